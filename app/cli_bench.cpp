// pathscope-cli bench --family bfs: reproduces the BFS paper's protocol (square grids with and
// without noise obstacles, BFS from a corner target over the whole graph, 1 warm-up + 100
// runs, mean/min/max/median/SD end-to-end and compute-only) for every BFS variant, and writes
// the table to stdout and CSV. GPU rows are skipped, with the reason, where there is no GPU.
#include "app/cli_bench.hpp"

#include <chrono>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli_history.hpp"
#include "kernels/generators.hpp"
#include "kernels/gpu_info.hpp"
#include "kernels/runner.hpp"

namespace ps::cli {
namespace {

struct BenchRow {
    std::string setup;
    int size = 0;
    std::string variant;  // id, plus "[once]" for frontier buffers allocated up front
    std::string status;   // ok / skipped / error
    std::string note;
    RunReport report;
};

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ','))
        if (!part.empty()) out.push_back(part);
    return out;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

void write_csv(std::ostream& out, const std::vector<BenchRow>& rows) {
    out << "setup,size,variant,status,note,validation,levels,repetitions,"
           "total_mean_ms,total_min_ms,total_max_ms,total_median_ms,total_sd_ms,"
           "compute_mean_ms,compute_min_ms,compute_max_ms,compute_median_ms,compute_sd_ms,"
           "allocate_mean_ms,upload_mean_ms,download_mean_ms,gpu_compute_last_ms,host_launches,device_launches,"
           "global_steps\n";
    for (const auto& r : rows) {
        const auto& s = r.report.stats;
        const auto counter = [&](const char* name) {
            auto it = r.report.result.counters.find(name);
            return it == r.report.result.counters.end() ? 0.0 : it->second;
        };
        char line[1024];
        std::snprintf(line, sizeof line,
                      "%s,%d,%s,%s,%s,%s,%d,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,"
                      "%.6f,%.0f,%.0f,%.0f\n",
                      r.setup.c_str(), r.size, r.variant.c_str(), r.status.c_str(), csv_field(r.note).c_str(),
                      std::string(to_string(r.report.result.validation)).c_str(), r.report.result.levels,
                      r.report.samples.size(), s.total.mean, s.total.min, s.total.max, s.total.median, s.total.sd,
                      s.compute.mean, s.compute.min, s.compute.max, s.compute.median, s.compute.sd, s.allocate.mean,
                      s.upload.mean, s.download.mean, counter("gpu_compute_ms"), counter("host_launches"),
                      counter("device_launches"), counter("global_steps"));
        out << line;
    }
}

void print_row(const BenchRow& r) {
    if (r.status != "ok") {
        std::printf("%-6s %6d  %-26s %s: %s\n", r.setup.c_str(), r.size, r.variant.c_str(), r.status.c_str(),
                    r.note.c_str());
        return;
    }
    const auto& s = r.report.stats;
    std::printf("%-6s %6d  %-26s %10.4f %10.4f %10.4f %10.4f %9.4f | %10.4f %10.4f %9.4f  %6d  %s\n", r.setup.c_str(),
                r.size, r.variant.c_str(), s.total.mean, s.total.min, s.total.max, s.total.median, s.total.sd,
                s.compute.mean, s.compute.median, s.compute.sd, r.report.result.levels,
                std::string(to_string(r.report.result.validation)).c_str());
    std::fflush(stdout);
}

// dp / shared compute-time ratio per setup and size, both frontier allocation modes.
void print_ratios(const std::vector<BenchRow>& rows) {
    auto find = [&](const std::string& setup, int size, const std::string& id) -> const BenchRow* {
        for (const auto& r : rows)
            if (r.setup == setup && r.size == size && r.variant == id && r.status == "ok") return &r;
        return nullptr;
    };
    bool header = false;
    for (const auto& r : rows) {
        if (r.variant != "bfs.gpu.dp" || r.status != "ok") continue;
        const BenchRow* faithful = find(r.setup, r.size, "bfs.gpu.shared");
        const BenchRow* once = find(r.setup, r.size, "bfs.gpu.shared[once]");
        if (!faithful && !once) continue;
        if (!header) {
            std::printf("\nspeed-up of bfs.gpu.dp over bfs.gpu.shared (median end-to-end / compute):\n");
            header = true;
        }
        const double dp_total = r.report.stats.total.median, dp_compute = r.report.stats.compute.median;
        std::printf("  %-6s %6d", r.setup.c_str(), r.size);
        if (faithful)
            std::printf("  per-level buffers %6.2fx / %6.2fx", faithful->report.stats.total.median / dp_total,
                        faithful->report.stats.compute.median / dp_compute);
        if (once)
            std::printf("  buffers once %6.2fx / %6.2fx", once->report.stats.total.median / dp_total,
                        once->report.stats.compute.median / dp_compute);
        std::printf("\n");
    }
}

}  // namespace

OptionSpec bench_options() {
    return {{"family", "sizes", "obstacles", "variant", "repeat", "warmup", "csv", "density", "seed", "frontier-alloc",
             "cpu-sweep-max", "db"},
            {"json"},
            {"variant"}};
}

int cmd_bench(const Args& args) {
    auto fail = [](const std::string& m) {
        std::cerr << "pathscope-cli: " << m << "\n";
        return 2;
    };
    const std::string family = args.get("family").value_or("bfs");
    if (family != "bfs") return fail("bench supports --family bfs (A* and batch benches arrive with their variants)");
    std::vector<int> sizes;
    for (const auto& s : split(args.get("sizes").value_or("8,32,128,512,2048"))) {
        try {
            sizes.push_back(std::stoi(s));
        } catch (...) {
            return fail("--sizes expects numbers, got '" + s + "'");
        }
        if (auto ok = GridMap::validate_dimensions(sizes.back(), sizes.back()); !ok) return fail(ok.error().message);
    }
    const auto setups = split(args.get("obstacles").value_or("none,noise"));
    for (const auto& s : setups)
        if (s != "none" && s != "noise") return fail("--obstacles takes none and/or noise, got '" + s + "'");
    auto repeat = args.integer("repeat", 100, 1, 1000000);
    auto warmup = args.integer("warmup", 1, 0, 1000000);
    auto density = args.number("density", 0.15);  // the paper's noise graphs lack ~15% of vertices
    auto seed = args.integer("seed", 1, 0, 1ll << 62);
    auto sweep_max = args.integer("cpu-sweep-max", 512, 0, 65535);
    for (const Error* e : {repeat ? nullptr : &repeat.error(), warmup ? nullptr : &warmup.error(),
                           density ? nullptr : &density.error(), seed ? nullptr : &seed.error(),
                           sweep_max ? nullptr : &sweep_max.error()})
        if (e) return fail(e->message);
    const std::string alloc = args.get("frontier-alloc").value_or("both");
    if (alloc != "both" && alloc != "per-level" && alloc != "once")
        return fail("--frontier-alloc takes both, per-level or once");

    std::vector<const Variant*> variants;
    const auto wanted = args.all("variant");
    for (const auto& v : Registry::instance().all())
        if (v->info().family == Family::Bfs) variants.push_back(v.get());
    if (!wanted.empty()) {
        std::vector<const Variant*> chosen;
        for (const auto& list : wanted)
            for (const auto& id : split(list)) {
                const Variant* v = Registry::instance().find(id);
                if (!v || v->info().family != Family::Bfs) return fail("unknown BFS variant '" + id + "'");
                chosen.push_back(v);
            }
        variants = chosen;
    }

    auto storage = RunStorage::open(args);
    if (!storage) return fail(storage.error().message);
    db::HistoryRecorder* recorder = storage->observer();
    std::string bench_id;
    if (recorder) {
        const auto now = std::chrono::system_clock::now().time_since_epoch();
        bench_id = "bfs-" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now).count());
        recorder->set_bench_id(bench_id);
    }
    std::size_t stored = 0;

    std::printf("pathscope bench --family bfs: %d warm-up + %lld runs, GPU: %s\n", int(*warmup), *repeat,
                describe(gpu_info()).c_str());
    std::printf("%-6s %6s  %-26s %10s %10s %10s %10s %9s | %10s %10s %9s  %6s  %s\n", "setup", "size", "variant",
                "total", "min", "max", "median", "sd", "compute", "median", "sd", "levels", "validation");
    std::vector<BenchRow> rows;
    int exit_code = 0;
    for (const auto& setup : setups) {
        for (int size : sizes) {
            GeneratorParams gen;
            gen.kind = setup == "noise" ? GeneratorKind::Noise : GeneratorKind::Empty;
            gen.width = gen.height = size;
            gen.seed = std::uint64_t(*seed);
            gen.density = *density;
            auto map = generate_map(gen);
            if (!map) return fail(map.error().message);
            Problem problem;
            problem.map = std::make_shared<const GridMap>(std::move(map).value());
            problem.rules.connectivity = Connectivity::Four;
            // BFS from the top-left corner, or the nearest cell of the largest region when
            // obstacles cut the corner off.
            auto target = nearest_in_largest_region(*problem.map, problem.rules, Cell{0, 0});
            if (!target) return fail("the " + setup + " map of size " + std::to_string(size) + " has no passable cell");
            problem.goal = problem.map->index(*target);
            if (recorder)
                recorder->set_map_provenance(std::string(to_string(gen.kind)) + " size=" + std::to_string(size) +
                                                 (setup == "noise" ? " density=" + std::to_string(*density) : ""),
                                             gen.seed);
            const Variant* reference_variant = Registry::instance().find("bfs.cpu.queue");
            auto reference = std::make_shared<const RunResult>(
                run_reference(reference_variant->info(), problem, RunContext{}));

            for (const Variant* v : variants) {
                std::vector<std::pair<std::string, std::string>> modes = {{"", ""}};
                const bool has_alloc = std::any_of(v->info().params.begin(), v->info().params.end(),
                                                   [](const ParamSpec& p) { return p.name == "frontier_alloc"; });
                if (has_alloc) {
                    modes.clear();
                    if (alloc != "once") modes.push_back({"", "per-level"});
                    if (alloc != "per-level") modes.push_back({"[once]", "once"});
                }
                for (const auto& [suffix, mode] : modes) {
                    BenchRow row;
                    row.setup = setup;
                    row.size = size;
                    row.variant = v->info().id + suffix;
                    if (auto why = v->unavailable_reason()) {
                        row.status = "skipped";
                        row.note = *why;
                    } else if (v->info().id == "bfs.cpu" && size > *sweep_max) {
                        row.status = "skipped";
                        row.note = "the per-level sweep is O(vertices x levels); raise --cpu-sweep-max to include it";
                    } else {
                        RunRequest request;
                        request.variant_id = v->info().id;
                        request.problem = problem;
                        if (!mode.empty()) request.problem.params["frontier_alloc"] = mode;
                        request.repeat = int(*repeat);
                        request.warmup = int(*warmup);
                        request.reference = reference;
                        row.report = run_variant(request, recorder);
                        if (recorder) {
                            recorder->record(request, row.report);
                            if (const auto& error = recorder->error()) return fail("storing the bench: " + error->message);
                            ++stored;
                        }
                        row.status = row.report.result.status == RunStatus::Ok ? "ok" : "error";
                        row.note = row.report.result.message;
                        if (row.status != "ok" || row.report.result.validation == Validation::Failed) exit_code = 1;
                    }
                    print_row(row);
                    rows.push_back(std::move(row));
                }
            }
        }
    }
    print_ratios(rows);
    if (recorder)
        std::printf("\nstored %zu runs as bench %s in %s\n", stored, bench_id.c_str(), storage->history()->path().c_str());
    if (auto path = args.get("csv")) {
        std::ofstream out(*path);
        write_csv(out, rows);
        out.flush();
        if (!out) return fail("cannot write " + *path);
        std::printf("\nCSV: %s\n", path->c_str());
    }
    return exit_code;
}

}  // namespace ps::cli
