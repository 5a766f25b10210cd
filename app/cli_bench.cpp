// pathscope-cli bench --family bfs: reproduces the BFS paper's protocol (square grids with and
// without noise obstacles, BFS from a corner target over the whole graph, 1 warm-up + 100
// runs, mean/min/max/median/SD end-to-end and compute-only) for every BFS variant, and writes
// the table to stdout and CSV. GPU rows are skipped, with the reason, where there is no GPU.
#include "app/cli_bench.hpp"
#include "app/cli_target.hpp"

#include <algorithm>
#include <chrono>

#include <cstdio>
#include <filesystem>
#include <map>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/bench_store.hpp"
#include "app/cli_bench_batch.hpp"
#include "app/cli_bench_scen.hpp"
#include "app/cli_history.hpp"
#include "app/cli_text.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/run/runner.hpp"

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

void write_csv(std::ostream& out, const std::vector<BenchRow>& rows) {
    out << "setup,size,variant,status,note,validation,levels,repetitions,"
           "total_mean_ms,total_min_ms,total_max_ms,total_median_ms,total_sd_ms,"
           "compute_mean_ms,compute_min_ms,compute_max_ms,compute_median_ms,compute_sd_ms,"
           "allocate_mean_ms,upload_mean_ms,download_mean_ms,gpu_compute_last_ms,host_launches,device_launches,"
           "global_steps,edges_visited,mteps\n";
    for (const auto& r : rows) {
        const auto& s = r.report.stats;
        const auto counter = [&](const char* name) { return counter_value(r.report.result.counters, name); };
        char line[1024];
        std::snprintf(line, sizeof line,
                      "%s,%d,%s,%s,%s,%s,%d,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,"
                      "%.6f,%.0f,%.0f,%.0f,%.0f,%.6f\n",
                      r.setup.c_str(), r.size, r.variant.c_str(), r.status.c_str(), csv_field(r.note).c_str(),
                      std::string(to_string(r.report.result.validation)).c_str(), r.report.result.levels,
                      r.report.samples.size(), s.total.mean, s.total.min, s.total.max, s.total.median, s.total.sd,
                      s.compute.mean, s.compute.min, s.compute.max, s.compute.median, s.compute.sd, s.allocate.mean,
                      s.upload.mean, s.download.mean, counter("gpu_compute_ms"), counter("host_launches"),
                      counter("device_launches"), counter("global_steps"), counter(kEdgesVisitedCounter),
                      counter(kMtepsCounter));
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
    // MTEPS: edges visited over the median compute (kernels/run/edges_visited.hpp).
    const auto rate = r.report.result.counters.find(kMtepsCounter);
    char mteps[16] = "-";
    if (rate != r.report.result.counters.end()) std::snprintf(mteps, sizeof mteps, "%.1f", rate->second);
    std::printf("%-6s %6d  %-26s %10.4f %10.4f %10.4f %10.4f %9.4f | %10.4f %10.4f %9.4f  %6d %9s  %s\n",
                r.setup.c_str(), r.size, r.variant.c_str(), s.total.mean, s.total.min, s.total.max, s.total.median,
                s.total.sd, s.compute.mean, s.compute.median, s.compute.sd, r.report.result.levels, mteps,
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

int write_csv_file(const Args& args, const std::vector<BenchRow>& rows,
                   void (*writer)(std::ostream&, const std::vector<BenchRow>&)) {
    return write_csv_to(args.get("csv"), [&](std::ostream& out) { writer(out, rows); });
}

int cmd_bench_astar(const Args& args, BenchRuns& runs);

}  // namespace

Expected<ScenarioInput> load_scenario_input(const std::string& scen_path) {
    auto file = read_movingai_scen(scen_path);
    if (!file) return file.error();
    auto map_path = find_scenario_map(scen_path, *file);
    if (!map_path) return map_path.error();
    auto map = read_movingai_map(*map_path);
    if (!map) return map.error();
    check_scenarios(*file, *map, scen_path);
    if (auto ok = require_scenarios(*file, scen_path); !ok) return ok.error();
    ScenarioInput input;
    input.scen_path = scen_path;
    input.map_path = *map_path;
    input.name = std::filesystem::path(*map_path).filename().string();
    input.map = std::make_shared<const GridMap>(std::move(map).value());
    input.file = std::move(file).value();
    return input;
}

void print_left_out(const ScenarioInput& input) {
    if (const std::string text = describe_rejected(input.file); !text.empty())
        std::printf("%s: %s\n", input.scen_path.c_str(), text.c_str());
}

OptionSpec bench_options() {
    return with_scen_bench_options(with_batch_bench_options(
        {{"family",    "sizes",          "obstacles",     "variant", "repeat", "warmup",     "csv",   "density",
          "seed",      "frontier-alloc", "cpu-sweep-max", "db",      "grids",  "cpu-max",    "param", "scen",
          "scen-step", "reference",      "corridor",      "room",    "target", "remote-cli", "shard", "bench-id"},
         {"json", "straight-only", "record"},
         {"variant", "param", "scen", "target"},
         {"corner-cutting"}}));
}

// The options each family reads; anything else given to it would be ignored, so it is an error.
const std::map<std::string, std::set<std::string>> kBenchFamilyOptions = {
    {"bfs", {"sizes", "obstacles", "density", "frontier-alloc", "cpu-sweep-max", "record"}},
    {"astar",
     {"sizes", "grids", "cpu-max", "corridor", "room", "param", "scen", "scen-step", "reference", "corner-cutting",
      "record"}},
    {"batch",
     {"map", "roadmap", "waypoints", "max-edge", "agents", "agents-scen", "sweep", "variants", "param",
      "corner-cutting", "straight-only", "record"}},
    {"scen", {"scen", "every", "metric", "threads", "param"}},
};

int cmd_bench(const Args& args) {
    const std::string family = args.get("family").value_or("bfs");
    const auto own = kBenchFamilyOptions.find(family);
    if (own == kBenchFamilyOptions.end()) return bad_input("bench supports --family bfs, astar, batch and scen");
    for (const auto& name : args.names()) {
        if (name == "json")
            return bad_input(
                "bench has no --json output: it prints a table; --csv F writes its rows, --db F stores "
                "its runs (pathscope-cli history --json)");
        static const std::set<std::string> common = {"family", "variant", "repeat",     "warmup", "seed",    "csv",
                                                     "db",     "target",  "remote-cli", "shard",  "bench-id"};
        if (common.count(name) || own->second.count(name)) continue;
        std::string owners;
        for (const auto& [other, options] : kBenchFamilyOptions)
            if (options.count(name)) owners += (owners.empty() ? "" : " and ") + other;
        return bad_input("--" + name + " is an option of bench --family " + owners + "; --family " + family +
                         " would ignore it");
    }
    if (args.all("target").size() > 1) return run_bench_across_targets(args);
    auto runs = bench_runs(args);
    if (!runs) return bad_input(runs.error().message);
    if (family == "astar") return cmd_bench_astar(args, *runs);
    if (family == "batch") return cmd_bench_batch(args, *runs);
    if (family == "scen") return cmd_bench_scen(args, *runs);
    const std::shared_ptr<Executor>& executor = runs->executor;
    Shard& shard = runs->shard;
    const bool record = runs->record;
    if (family != "bfs") return bad_input("bench supports --family bfs, astar, batch and scen");
    std::vector<int> sizes;
    for (const auto& s : split(args.get("sizes").value_or("8,32,128,512,2048"))) {
        try {
            sizes.push_back(std::stoi(s));
        } catch (...) {
            return bad_input("--sizes expects numbers, got '" + s + "'");
        }
        if (auto ok = GridMap::validate_dimensions(sizes.back(), sizes.back()); !ok)
            return bad_input(ok.error().message);
    }
    const auto setups = split(args.get("obstacles").value_or("none,noise"));
    for (const auto& s : setups)
        if (s != "none" && s != "noise") return bad_input("--obstacles takes none and/or noise, got '" + s + "'");
    auto repeat = args.integer("repeat", 100, 1, 1000000);
    auto warmup = args.integer("warmup", 1, 0, 1000000);
    auto density = args.number("density", 0.15);  // the paper's noise graphs lack ~15% of vertices
    auto seed = args.integer("seed", 1, 0, 1ll << 62);
    auto sweep_max = args.integer("cpu-sweep-max", 512, 0, 65535);
    for (const Error* e :
         {repeat ? nullptr : &repeat.error(), warmup ? nullptr : &warmup.error(), density ? nullptr : &density.error(),
          seed ? nullptr : &seed.error(), sweep_max ? nullptr : &sweep_max.error()})
        if (e) return bad_input(e->message);
    const std::string alloc = args.get("frontier-alloc").value_or("both");
    if (alloc != "both" && alloc != "per-level" && alloc != "once")
        return bad_input("--frontier-alloc takes both, per-level or once");

    std::vector<const Variant*> variants;
    const auto wanted = args.all("variant");
    for (const auto& v : Registry::instance().all())
        if (v->info().family == Family::Bfs) variants.push_back(v.get());
    if (!wanted.empty()) {
        std::vector<const Variant*> chosen;
        for (const auto& list : wanted)
            for (const auto& id : split(list)) {
                const Variant* v = Registry::instance().find(id);
                if (!v || v->info().family != Family::Bfs) return bad_input("unknown BFS variant '" + id + "'");
                chosen.push_back(v);
            }
        variants = chosen;
    }

    auto store = BenchStore::open(args, "bfs");
    if (!store) return bad_input(store.error().message);
    db::HistoryRecorder* recorder = store->recorder();

    std::printf("pathscope bench --family bfs: %d warm-up + %lld runs, GPU: %s\n", int(*warmup), *repeat,
                where_runs_go(executor.get()).c_str());
    std::printf("%-6s %6s  %-26s %10s %10s %10s %10s %9s | %10s %10s %9s  %6s %9s  %s\n", "setup", "size", "variant",
                "total", "min", "max", "median", "sd", "compute", "median", "sd", "levels", "MTEPS", "validation");
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
            if (!map) return bad_input(map.error().message);
            Problem problem;
            problem.map = std::make_shared<const GridMap>(std::move(map).value());
            problem.rules.connectivity = Connectivity::Four;
            // BFS from the top-left corner, or the nearest cell of the largest region when
            // obstacles cut the corner off.
            auto target = nearest_in_largest_region(*problem.map, problem.rules, Cell{0, 0});
            if (!target)
                return bad_input("the " + setup + " map of size " + std::to_string(size) + " has no passable cell");
            problem.goal = problem.map->index(*target);
            if (recorder)
                recorder->set_map_provenance(std::string(to_string(gen.kind)) + " size=" + std::to_string(size) +
                                                 (setup == "noise" ? " density=" + std::to_string(*density) : ""),
                                             gen.seed);
            const Variant* reference_variant = Registry::instance().find("bfs.cpu.queue");
            auto reference =
                std::make_shared<const RunResult>(run_reference(reference_variant->info(), problem, RunContext{}));

            for (const Variant* v : variants) {
                std::vector<std::pair<std::string, std::string>> modes = {{"", ""}};
                const bool has_alloc = find_param(v->info(), "frontier_alloc") != nullptr;
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
                    if (!shard.take()) continue;  // another job's (a sweep split across targets)
                    if (auto why = unavailable_reason(*v, executor.get())) {
                        row.status = "skipped";
                        row.note = *why;
                    } else if (v->info().id == "bfs.cpu" && size > *sweep_max) {
                        row.status = "skipped";
                        row.note = "the per-level sweep is O(vertices x levels); raise --cpu-sweep-max to include it";
                    } else {
                        RunRequest request;
                        request.variant_id = v->info().id;
                        request.executor = executor;
                        request.context.record = record;  // --record: stored with the run for the window
                        request.problem = problem;
                        if (!mode.empty()) request.problem.params["frontier_alloc"] = mode;
                        request.repeat = int(*repeat);
                        request.warmup = int(*warmup);
                        request.reference = reference;
                        if (auto error = store->run_row(row, request, exit_code)) return bad_input(*error);
                    }
                    print_row(row);
                    rows.push_back(std::move(row));
                }
            }
        }
    }
    print_ratios(rows);
    store->print_summary();
    if (int rc = write_csv_file(args, rows, write_csv)) return rc;
    return exit_code;
}

namespace {

// pathscope-cli bench --family astar: the BBA* paper's grids (empty, random 20%, random
// rectangles, blocked centre, maze; on request the authors' recursive-division maze and
// MovingAI-style rooms) at fixed
// seeds, start and goal at opposite corners of the largest region, integer metric; the CPU searches up to --cpu-max and
// every registered astar.gpu.* variant. Every run is validated against one astar.cpu run (exact cost).
struct AStarGrid {
    const char* name;
    GeneratorKind kind;
    double density;
    int corridor = 1;
    int room = 16;
};

constexpr AStarGrid kAStarGrids[] = {
    {"empty", GeneratorKind::Empty, 0.0},
    {"random", GeneratorKind::Random, 0.2},
    {"rects", GeneratorKind::Rectangles, 0.2},
    {"blocked", GeneratorKind::BlockedCentre, 0.0},
    // Corridors 4 cells wide: the corner-to-corner path is ~34x the side at 2000² (the BBA*
    // paper's 10000² maze: 36x); 1-cell corridors make it ~110x, and at 10000² costs pass the
    // GPU A*'s int32 range. --corridor overrides.
    {"maze", GeneratorKind::Maze, 0.0, 4},
    // Not in the default list: under the default (MovingAI) corner rule its far corners are
    // mostly apart, so it is meant for --corner-cutting any.
    {"division", GeneratorKind::Division, 0.0},
    // Not in the default list either (the paper has no rooms): MovingAI's rooms category, 16-cell
    // rooms, half the walls beyond a spanning tree without a door. --room overrides the size.
    {"rooms", GeneratorKind::Rooms, kRoomsDensity},
    // Nor MovingAI's street category: city blocks between streets, two diagonal avenues.
    {"streets", GeneratorKind::Streets, 0.0},
    // Nor smooth blobs of gradient noise, a fifth blocked (the game maps' open areas).
    {"noise", GeneratorKind::Noise, 0.2},
};

// "a, b, c and/or d": the names of kAStarGrids, for --grids' error.
std::string astar_grid_names() {
    std::string out;
    const std::size_t n = std::size(kAStarGrids);
    for (std::size_t i = 0; i < n; ++i)
        out += std::string(i == 0 ? "" : i + 1 == n ? " and/or " : ", ") + kAStarGrids[i].name;
    return out;
}

double counter_of(const RunReport& report, const char* name) { return counter_value(report.result.counters, name); }

void write_astar_csv(std::ostream& out, const std::vector<BenchRow>& rows) {
    out << "grid,size,variant,status,note,validation,repetitions,cost,expanded,"
           "total_median_ms,total_min_ms,total_max_ms,compute_median_ms,compute_min_ms,compute_max_ms,"
           "gpu_compute_last_ms,iterations,pushed,restarts,host_launches\n";
    for (const auto& r : rows) {
        const auto& s = r.report.stats;
        char line[1024];
        std::snprintf(line, sizeof line,
                      "%s,%d,%s,%s,%s,%s,%zu,%.0f,%llu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.0f,%.0f,%.0f,%.0f\n",
                      r.setup.c_str(), r.size, r.variant.c_str(), r.status.c_str(), csv_field(r.note).c_str(),
                      std::string(to_string(r.report.result.validation)).c_str(), r.report.samples.size(),
                      r.report.result.cost, static_cast<unsigned long long>(r.report.result.expanded), s.total.median,
                      s.total.min, s.total.max, s.compute.median, s.compute.min, s.compute.max,
                      counter_of(r.report, "gpu_compute_ms"), counter_of(r.report, "iterations"),
                      counter_of(r.report, "pushed"), counter_of(r.report, "restarts"),
                      counter_of(r.report, "host_launches"));
        out << line;
    }
}

void print_astar_row(const BenchRow& r) {
    if (r.status != "ok") {
        std::printf("%-8s %6d  %-18s %s: %s\n", r.setup.c_str(), r.size, r.variant.c_str(), r.status.c_str(),
                    r.note.c_str());
        std::fflush(stdout);
        return;
    }
    const auto& s = r.report.stats;
    std::printf("%-8s %6d  %-18s %10.3f %10.3f %10.3f | %10.3f %10.3f %10.3f  %12.0f %11llu %9.0f  %s\n",
                r.setup.c_str(), r.size, r.variant.c_str(), s.total.median, s.total.min, s.total.max, s.compute.median,
                s.compute.min, s.compute.max, r.report.result.cost,
                static_cast<unsigned long long>(r.report.result.expanded), counter_of(r.report, "iterations"),
                std::string(to_string(r.report.result.validation)).c_str());
    std::fflush(stdout);
}

// MovingAI scenarios: every `step`-th usable scenario of `scen_path` (its map found by
// load_scenario_input), each variant once per scenario (the first one also warms up), validated
// against an untimed astar.cpu per scenario in the integer metric. One CSV row and stored run per
// scenario; one summary line per variant with summed times.
template <class ParamsOf>
std::optional<std::string> bench_scenarios(
    const std::string& scen_path, int step, MoveRules rules, const std::vector<const Variant*>& variants,
    const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& labels, const ParamsOf& params_of,
    const Variant& reference_variant, BenchStore& store, std::vector<BenchRow>& rows, int& exit_code,
    const std::shared_ptr<Executor>& executor, Shard& shard, bool record) {
    auto input = load_scenario_input(scen_path);
    if (!input) return input.error().message;
    print_left_out(*input);
    const std::shared_ptr<const GridMap>& shared_map = input->map;
    const std::vector<Scenario>& scenarios = input->file.scenarios;
    const std::string& name = input->name;
    std::vector<Problem> problems;
    std::vector<std::shared_ptr<const RunResult>> references;
    for (std::size_t i = 0; i < scenarios.size(); i += std::size_t(step)) {
        Problem problem;
        problem.map = shared_map;
        problem.rules = rules;
        problem.cost_mode = CostMode::Integer;
        problem.heuristic = Heuristic::Octile;
        problem.start = shared_map->index(scenarios[i].start);
        problem.goal = shared_map->index(scenarios[i].goal);
        references.push_back(std::make_shared<const RunResult>(reference_variant.run(problem, RunContext{})));
        problems.push_back(std::move(problem));
    }
    if (db::HistoryRecorder* recorder = store.recorder()) recorder->set_map_provenance("movingai " + name, 0);
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
        const Variant* v = variants[vi];
        if (!shard.take()) continue;  // another job's (a sweep split across targets)
        if (auto why = unavailable_reason(*v, executor.get())) {
            std::printf("%-14s %5zu  %-30s skipped: %s\n", name.c_str(), problems.size(), labels[vi].first.c_str(),
                        why->c_str());
            continue;
        }
        double total = 0, compute = 0;
        std::uint64_t expanded = 0, passed = 0, failed = 0;
        std::string first_problem;
        for (std::size_t i = 0; i < problems.size(); ++i) {
            BenchRow row;
            row.setup = name + ":" + std::to_string(i * std::size_t(step));
            row.size = shared_map->width();
            row.variant = labels[vi].first;
            RunRequest request;
            request.variant_id = v->info().id;
            request.executor = executor;
            request.context.record = record;  // --record: stored with the run for the window
            request.problem = problems[i];
            request.problem.params = params_of(vi);
            request.repeat = 1;
            request.warmup = i == 0 ? 1 : 0;
            request.reference = references[i];
            if (auto error = store.run_row(row, request, exit_code)) return error;
            const RunResult& r = row.report.result;
            if (row.status == "ok" && r.validation != Validation::Failed) {
                ++passed;
            } else {
                ++failed;
                if (first_problem.empty())
                    first_problem = row.setup + ": " + (row.status != "ok" ? row.note : r.validation_message);
            }
            total += row.report.stats.total.median;
            compute += row.report.stats.compute.median;
            expanded += r.expanded;
            rows.push_back(std::move(row));
        }
        std::printf(
            "%-14s %5zu  %-30s total %10.3f ms  compute %10.3f ms  expanded %12llu  %llu passed, %llu failed%s%s\n",
            name.c_str(), problems.size(), labels[vi].first.c_str(), total, compute,
            static_cast<unsigned long long>(expanded), static_cast<unsigned long long>(passed),
            static_cast<unsigned long long>(failed), first_problem.empty() ? "" : "; first: ", first_problem.c_str());
        std::fflush(stdout);
    }
    return std::nullopt;
}

int cmd_bench_astar(const Args& args, BenchRuns& runs) {
    const std::shared_ptr<Executor>& executor = runs.executor;
    Shard& shard = runs.shard;
    const bool record = runs.record;
    std::vector<int> sizes;
    for (const auto& s : split(args.get("sizes").value_or("1000,2000,4000"))) {
        try {
            sizes.push_back(std::stoi(s));
        } catch (...) {
            return bad_input("--sizes expects numbers, got '" + s + "'");
        }
        if (auto ok = GridMap::validate_dimensions(sizes.back(), sizes.back()); !ok)
            return bad_input(ok.error().message);
    }
    std::vector<AStarGrid> grids;
    for (const auto& name : split(args.get("grids").value_or("empty,random,rects,blocked,maze"))) {
        const auto it = std::find_if(std::begin(kAStarGrids), std::end(kAStarGrids),
                                     [&](const AStarGrid& g) { return name == g.name; });
        if (it == std::end(kAStarGrids))
            return bad_input("--grids takes " + astar_grid_names() + ", got '" + name + "'");
        grids.push_back(*it);
    }
    auto repeat = args.integer("repeat", 5, 1, 1000000);
    auto warmup = args.integer("warmup", 1, 0, 1000000);
    auto seed = args.integer("seed", 1, 0, 1ll << 62);
    auto cpu_max = args.integer("cpu-max", 4000, 0, 65535);
    std::optional<long long> corridor;
    if (args.get("corridor")) {
        auto c = args.integer("corridor", 1, 1, 65535);
        if (!c) return bad_input(c.error().message);
        corridor = *c;
    }
    std::optional<long long> room;
    if (args.get("room")) {
        auto r = args.integer("room", 16, 2, 65535);
        if (!r) return bad_input(r.error().message);
        room = *r;
    }
    for (const Error* e : {repeat ? nullptr : &repeat.error(), warmup ? nullptr : &warmup.error(),
                           seed ? nullptr : &seed.error(), cpu_max ? nullptr : &cpu_max.error()})
        if (e) return bad_input(e->message);

    // The CPU searches, then every GPU A* registered (others may join under the prefix).
    std::vector<const Variant*> variants;
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> variant_params;  // row label, params
    const auto wanted = args.all("variant");
    if (wanted.empty()) {
        for (const char* id : {"astar.cpu", "astar.cpu.bidir", "dijkstra.cpu"})
            if (const Variant* v = Registry::instance().find(id)) variants.push_back(v);
        for (const auto& v : Registry::instance().all())
            if (v->info().id.rfind("astar.gpu.", 0) == 0) variants.push_back(v.get());
    } else {
        for (const auto& list : wanted)
            for (const auto& spec : split(list)) {
                auto parsed = parse_variant_spec(spec);
                if (!parsed) return bad_input(parsed.error().message);
                const Variant* v = Registry::instance().find(parsed->id);
                if (!v || v->info().family != Family::ShortestPath)
                    return bad_input("unknown shortest-path variant '" + parsed->id + "'");
                variants.push_back(v);
                variant_params.push_back({spec, std::move(parsed->params)});
            }
    }
    // --param name=value applies to every GPU variant (row parameters win).
    auto common = param_items(args.all("param"));
    if (!common) return bad_input(common.error().message);
    const std::map<std::string, std::string> common_params = std::move(common).value();
    if (variant_params.empty())
        for (const Variant* v : variants) variant_params.push_back({v->info().id, {}});
    auto params_of = [&](std::size_t i) {
        std::map<std::string, std::string> params;
        if (variants[i]->info().device == DeviceKind::Gpu) params = common_params;
        for (const auto& [k, val] : variant_params[i].second) params[k] = val;
        return params;
    };
    // The untimed run every row is validated against: astar.cpu, or (for sizes where one CPU
    // search takes minutes) another exact variant named with --reference.
    const std::string reference_id = args.get("reference").value_or("astar.cpu");
    const Variant* reference_variant = Registry::instance().find(reference_id);
    if (!reference_variant || reference_variant->info().family != Family::ShortestPath)
        return bad_input("--reference: unknown shortest-path variant '" + reference_id + "'");
    if (auto why = unavailable_reason(*reference_variant, executor.get()))
        return bad_input("--reference " + reference_id + ": " + *why);

    auto store = BenchStore::open(args, "astar");
    if (!store) return bad_input(store.error().message);
    db::HistoryRecorder* recorder = store->recorder();

    auto corners = args.corner_rule();
    if (!corners) return bad_input(corners.error().message);
    const MoveRules rules{Connectivity::Eight, *corners};
    std::printf(
        "pathscope bench --family astar: %d warm-up + %lld runs, integer metric, 8-connected, %s, seed %lld, "
        "validated against %s, GPU: %s\n",
        int(*warmup), *repeat, std::string(corner_rule_text(rules.corners)).c_str(), *seed, reference_id.c_str(),
        where_runs_go(executor.get()).c_str());
    std::printf("%-8s %6s  %-18s %10s %10s %10s | %10s %10s %10s  %12s %11s %9s  %s\n", "grid", "size", "variant",
                "total med", "min", "max", "compute med", "min", "max", "cost", "expanded", "iters", "validation");
    std::vector<BenchRow> rows;
    int exit_code = 0;
    if (!args.all("scen").empty()) {
        auto step = args.integer("scen-step", 1, 1, 1000000);
        if (!step) return bad_input(step.error().message);
        for (const auto& list : args.all("scen"))
            for (const auto& scen_path : split(list)) {
                if (auto error = bench_scenarios(scen_path, int(*step), rules, variants, variant_params, params_of,
                                                 *reference_variant, *store, rows, exit_code, executor, shard, record))
                    return bad_input(*error);
            }
        store->print_summary();
        if (int rc = write_csv_file(args, rows, write_astar_csv)) return rc;
        return exit_code;
    }
    for (const auto& grid : grids) {
        for (int size : sizes) {
            GeneratorParams gen;
            gen.kind = grid.kind;
            gen.width = gen.height = size;
            gen.seed = std::uint64_t(*seed);
            if (grid.density > 0) gen.density = grid.density;
            gen.corridor_width = int(corridor ? *corridor : grid.corridor);
            gen.room_size = int(room ? *room : grid.room);
            auto map = generate_map(gen);
            if (!map) return bad_input(map.error().message);
            Problem problem;
            problem.map = std::make_shared<const GridMap>(std::move(map).value());
            problem.rules = rules;
            problem.cost_mode = CostMode::Integer;
            problem.heuristic = Heuristic::Octile;
            const auto ends = nearest_in_largest_region(*problem.map, rules, {Cell{0, 0}, Cell{size - 1, size - 1}});
            const auto& start = ends[0];
            const auto& goal = ends[1];
            if (!start || !goal)
                return bad_input(std::string("the ") + grid.name + " map of size " + std::to_string(size) +
                                 " has no passable cell");
            problem.start = problem.map->index(*start);
            problem.goal = problem.map->index(*goal);
            if (recorder)
                recorder->set_map_provenance(
                    std::string(to_string(gen.kind)) + " size=" + std::to_string(size) +
                        (grid.density > 0 ? " density=" + std::to_string(grid.density) : "") +
                        (gen.kind == GeneratorKind::Maze ? " corridor=" + std::to_string(gen.corridor_width) : "") +
                        (gen.kind == GeneratorKind::Rooms ? " room=" + std::to_string(gen.room_size) : ""),
                    gen.seed);
            // One exact CPU A* (untimed) validates every variant's cost, whatever the size.
            auto reference = std::make_shared<const RunResult>(reference_variant->run(problem, RunContext{}));
            if (reference->status != RunStatus::Ok)
                return bad_input("the reference " + reference_id + " failed on the " + grid.name + " map of size " +
                                 std::to_string(size) + ": " + reference->message);

            for (const Variant* const& v : variants) {
                BenchRow row;
                row.setup = grid.name;
                row.size = size;
                const std::size_t index = std::size_t(&v - variants.data());
                row.variant = variant_params[index].first;
                if (!shard.take()) continue;  // another job's (a sweep split across targets)
                if (auto why = unavailable_reason(*v, executor.get())) {
                    row.status = "skipped";
                    row.note = *why;
                } else if (v->info().device != DeviceKind::Gpu && size > *cpu_max) {
                    row.status = "skipped";
                    row.note = "CPU search above --cpu-max " + std::to_string(*cpu_max) +
                               " (single-thread, seconds per run; raise --cpu-max to time it)";
                } else {
                    RunRequest request;
                    request.variant_id = v->info().id;
                    request.executor = executor;
                    request.context.record = record;  // --record: stored with the run for the window
                    request.problem = problem;
                    request.problem.params = params_of(index);
                    request.repeat = int(*repeat);
                    request.warmup = int(*warmup);
                    request.reference = reference;
                    if (auto error = store->run_row(row, request, exit_code)) return bad_input(*error);
                }
                print_astar_row(row);
                rows.push_back(std::move(row));
            }
        }
    }
    store->print_summary();
    if (int rc = write_csv_file(args, rows, write_astar_csv)) return rc;
    return exit_code;
}

}  // namespace

}  // namespace ps::cli
