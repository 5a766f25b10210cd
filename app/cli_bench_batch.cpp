// pathscope-cli bench --family batch: one graph (a roadmap file, a waypoint roadmap, or the
// map's grid graph), several agent counts, every registered batch.* variant (or those given)
// and, per variant, the cartesian product of --sweep values for the parameters it has (e.g.
// --sweep block=64:128:256 --sweep per_dequeue=1:4:16; default memory=explicit:unified x
// per_dequeue=1:4:16, --sweep none for none). Each count gets one untimed
// batch.cpu reference that validates every row; the table shows agents/s and the speed-up
// over batch.cpu, the step histogram shows the load imbalance. Table, CSV and SQLite.
#include "app/cli_bench_batch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "app/bench_store.hpp"
#include "app/cli_batch.hpp"
#include "app/cli_history.hpp"
#include "app/cli_target.hpp"
#include "app/cli_text.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/map/map_io.hpp"

namespace ps::cli {
namespace {

double counter_of(const RunResult& r, const char* name) { return counter_value(r.counters, name); }

struct Row {
    std::size_t agents = 0;
    std::string variant;  // id, plus "[name=value,..]" for swept parameters
    std::string params;   // "name=value;.." as run
    std::string status;   // ok / skipped / error
    std::string note;
    RunReport report;
    double speedup = 0;  // over batch.cpu at the same count (median total)
};

double agents_per_s(const Row& r) {
    const double ms = r.report.stats.total.median;
    return ms > 0 ? double(r.agents) / (ms / 1000.0) : 0.0;
}

// The bench reads maps from files only (--map F): generated maps are for `run`.
Expected<std::shared_ptr<const GridMap>> load_map_file(const Args& args) {
    auto path = args.get("map");
    if (!path) return Error{"bench --family batch needs --map F.map (or --roadmap F alone)"};
    auto map = read_movingai_map(*path);
    if (!map) return map.error();
    return std::make_shared<const GridMap>(std::move(map).value());
}

Expected<void> no_problem_options(const Args& args, Problem& problem) {
    auto corners = args.corner_rule();
    if (!corners) return corners.error();
    problem.rules.corners = *corners;
    return {};
}

// Parameter sets for one variant: --param values it has, times every --sweep it has.
std::vector<std::map<std::string, std::string>> param_sets(
    const VariantInfo& info, const std::map<std::string, std::string>& fixed,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& sweeps) {
    auto has = [&](const std::string& name) { return find_param(info, name) != nullptr; };
    std::vector<std::map<std::string, std::string>> sets(1);
    for (const auto& [name, value] : fixed)
        if (has(name)) sets.front()[name] = value;
    for (const auto& [name, values] : sweeps) {
        if (!has(name)) continue;
        std::vector<std::map<std::string, std::string>> next;
        for (const auto& set : sets)
            for (const auto& value : values) {
                auto s = set;
                s[name] = value;
                next.push_back(std::move(s));
            }
        sets = std::move(next);
    }
    return sets;
}

std::string label_of(const std::string& id, const std::map<std::string, std::string>& params,
                     const std::vector<std::pair<std::string, std::vector<std::string>>>& sweeps) {
    std::string swept;
    for (const auto& [name, values] : sweeps) {
        auto it = params.find(name);
        if (it == params.end()) continue;
        swept += (swept.empty() ? "" : ",") + name + "=" + it->second;
    }
    return swept.empty() ? id : id + "[" + swept + "]";
}

void print_row(const Row& r) {
    if (r.status != "ok") {
        std::printf("%9zu  %-46s %s: %s\n", r.agents, r.variant.c_str(), r.status.c_str(), r.note.c_str());
        std::fflush(stdout);
        return;
    }
    const auto& s = r.report.stats;
    const RunResult& res = r.report.result;
    // Warp efficiency: expansions done / expansions the warps pay for (a fixed agent-to-thread
    // mapping only: bsp, batch, permute). The imbalance the strategies fight, per row.
    const auto simt = res.counters.find("simt_efficiency");
    char warp[16] = "-";
    if (simt != res.counters.end()) std::snprintf(warp, sizeof warp, "%.2f", simt->second);
    std::printf("%9zu  %-46s %10.3f %10.3f %12.0f %8.2fx %9.1f %7.0f %7.0f %9s  %s\n", r.agents, r.variant.c_str(),
                s.total.median, s.compute.median, agents_per_s(r), r.speedup, counter_of(res, "steps_mean"),
                counter_of(res, "steps_p95"), counter_of(res, "steps_max"), warp,
                std::string(to_string(res.validation)).c_str());
    std::fflush(stdout);
}

void write_csv(std::ostream& out, const std::vector<Row>& rows, const std::string& map_name, const CsrGraph& graph) {
    out << "map,nodes,arcs,agents,variant,params,status,note,validation,repetitions,total_median_ms,total_min_ms,"
           "total_max_ms,compute_median_ms,agents_per_s,speedup_vs_batch_cpu,steps_mean,steps_p50,steps_p95,"
           "steps_max,steps_imbalance,agents_unreachable,counters\n";
    for (const auto& r : rows) {
        const auto& s = r.report.stats;
        const RunResult& res = r.report.result;
        std::string counters;
        for (const auto& [name, value] : res.counters) {
            char item[96];
            std::snprintf(item, sizeof item, "%s%s=%.10g", counters.empty() ? "" : ";", name.c_str(), value);
            counters += item;
        }
        char line[1024];
        std::snprintf(line, sizeof line,
                      "%s,%u,%llu,%zu,%s,%s,%s,%s,%s,%zu,%.6f,%.6f,%.6f,%.6f,%.3f,%.4f,%.3f,%.0f,%.0f,"
                      "%.0f,%.4f,%.0f,",
                      csv_field(map_name).c_str(), graph.vertex_count(), (unsigned long long)graph.edge_count(),
                      r.agents, csv_field(r.variant).c_str(), csv_field(r.params).c_str(), r.status.c_str(),
                      csv_field(r.note).c_str(), std::string(to_string(res.validation)).c_str(),
                      r.report.samples.size(), s.total.median, s.total.min, s.total.max, s.compute.median,
                      agents_per_s(r), r.speedup, counter_of(res, "steps_mean"), counter_of(res, "steps_p50"),
                      counter_of(res, "steps_p95"), counter_of(res, "steps_max"), counter_of(res, "steps_imbalance"),
                      counter_of(res, "agents_unreachable"));
        out << line << csv_field(counters) << "\n";
    }
}

}  // namespace

OptionSpec with_batch_bench_options(OptionSpec spec) {
    for (const char* name :
         {"map", "roadmap", "waypoints", "max-edge", "agents", "agents-scen", "sweep", "variants", "param"})
        spec.with_value.insert(name);
    for (const char* name : {"sweep", "variants", "param"}) spec.repeatable.insert(name);
    return spec;
}

int cmd_bench_batch(const Args& args, BenchRuns& runs) {
    const std::shared_ptr<Executor>& target = runs.executor;
    Shard& shard = runs.shard;
    std::vector<std::size_t> counts;
    for (const auto& s : split(args.get("agents").value_or("1000,10000"))) {
        try {
            const long long n = std::stoll(s);
            if (n < 1 || n > 100000000) throw std::out_of_range("agents");
            counts.push_back(std::size_t(n));
        } catch (...) {
            return bad_input("--agents expects counts from 1 to 100000000, e.g. 1000,10000; got '" + s + "'");
        }
    }
    auto repeat = args.integer("repeat", 3, 1, 1000000);
    auto warmup = args.integer("warmup", 1, 0, 1000000);
    for (const Error* e : {repeat ? nullptr : &repeat.error(), warmup ? nullptr : &warmup.error()})
        if (e) return bad_input(e->message);

    auto given = param_items(args.all("param"));
    if (!given) return bad_input(given.error().message);
    const std::map<std::string, std::string> fixed = std::move(given).value();
    // Without --sweep: the questions, explicit copies against unified memory, and how
    // many agents a queue thread should take per dequeue (the scheduling paper found 1 best).
    // --sweep none runs every variant with its defaults.
    std::vector<std::pair<std::string, std::vector<std::string>>> sweeps;
    if (args.all("sweep").empty()) sweeps = {{"memory", {"explicit", "unified"}}, {"per_dequeue", {"1", "4", "16"}}};
    for (const auto& item : args.all("sweep")) {
        if (item == "none") continue;
        const auto eq = item.find('=');
        const auto values = eq == std::string::npos ? std::vector<std::string>{} : split(item.substr(eq + 1), ':');
        if (eq == 0 || values.empty()) return bad_input("--sweep expects name=v1:v2:.., got '" + item + "'");
        sweeps.push_back({item.substr(0, eq), values});
    }

    std::vector<const Variant*> variants;
    auto wanted = args.all("variant");
    for (const auto& v : args.all("variants")) wanted.push_back(v);
    if (wanted.empty()) {
        for (const auto& v : Registry::instance().all())
            if (v->info().family == Family::Batch) variants.push_back(v.get());
    } else {
        for (const auto& list : wanted)
            for (const auto& id : split(list)) {
                const Variant* v = Registry::instance().find(id);
                if (!v || v->info().family != Family::Batch) return bad_input("unknown batch variant '" + id + "'");
                variants.push_back(v);
            }
    }
    const Variant* reference_variant = Registry::instance().find("batch.cpu");
    if (!reference_variant) return bad_input("batch.cpu is not registered");

    Problem base;
    auto corners = args.corner_rule();
    if (!corners) return bad_input(corners.error().message);
    base.rules = {Connectivity::Eight, *corners};
    auto setup = load_batch_setup(args, CliHooks{load_map_file, no_problem_options}, base.rules);
    if (!setup) return bad_input(setup.error().message);
    attach(base, *setup, {});
    auto graph = base.batch_graph();
    if (!graph) return bad_input(graph.error().message);
    auto store = BenchStore::open(args, "batch");
    if (!store) return bad_input(store.error().message);
    const std::string map_name = setup->map ? setup->map->name : args.get("roadmap").value_or("");

    std::string sweep_text;
    for (const auto& [name, values] : sweeps) {
        sweep_text += (sweep_text.empty() ? "" : " x ") + name + "=";
        for (std::size_t i = 0; i < values.size(); ++i) sweep_text += (i ? ":" : "") + values[i];
    }
    std::printf("pathscope bench --family batch: %s%s%s, %d warm-up + %lld runs, sweep %s, GPU: %s\n", map_name.c_str(),
                map_name.empty() ? "" : ", ", setup->graph_text.c_str(), int(*warmup), *repeat,
                sweep_text.empty() ? "none" : sweep_text.c_str(), where_runs_go(target.get()).c_str());
    std::vector<Row> rows;
    int exit_code = 0;
    for (const std::size_t count : counts) {
        std::string left_out;
        auto agents = make_agents(args, *setup, base, count, &left_out);
        if (!agents) return bad_input(agents.error().message);
        if (!left_out.empty() && count == counts.front()) std::printf("\n%s\n", left_out.c_str());
        Problem problem = base;
        problem.agents = std::move(agents).value();
        // One untimed reference (all cores) validates every row of this count.
        auto reference =
            std::make_shared<const RunResult>(run_reference(reference_variant->info(), problem, RunContext{}));
        if (reference->status != RunStatus::Ok) return bad_input("batch.cpu reference: " + reference->message);
        std::printf("\n%zu agents (%.0f unreachable); steps per agent (expansions, from batch.cpu):\n",
                    problem.agents.size(), counter_of(*reference, "agents_unreachable"));
        print_step_histogram(reference->agent_steps, "  ");
        std::printf("\n%9s  %-46s %10s %10s %12s %9s %9s %7s %7s %9s  %s\n", "agents", "variant", "total ms", "compute",
                    "agents/s", "vs cpu", "steps", "p95", "max", "warp eff", "validation");
        const std::size_t first = rows.size();
        double cpu_ms = 0;
        for (const Variant* v : variants) {
            for (const auto& params : param_sets(v->info(), fixed, sweeps)) {
                Row row;
                row.agents = problem.agents.size();
                row.variant = label_of(v->info().id, params, sweeps);
                for (const auto& [k, value] : params) row.params += (row.params.empty() ? "" : ";") + k + "=" + value;
                if (!shard.take()) continue;  // another job's (a sweep split across targets)
                if (auto why = unavailable_reason(*v, target.get())) {
                    row.status = "skipped";
                    row.note = *why;
                } else {
                    RunRequest request;
                    request.variant_id = v->info().id;
                    request.executor = target;
                    request.context.record = runs.record;
                    request.problem = problem;
                    request.problem.params = params;
                    request.repeat = int(*repeat);
                    request.warmup = int(*warmup);
                    request.reference = reference;
                    if (auto error = store->run_row(row, request, exit_code)) return bad_input(*error);
                    if (row.status == "ok" && v == reference_variant && cpu_ms == 0)
                        cpu_ms = row.report.stats.total.median;
                }
                rows.push_back(std::move(row));
            }
        }
        for (std::size_t i = first; i < rows.size(); ++i) {
            if (cpu_ms > 0 && rows[i].status == "ok" && rows[i].report.stats.total.median > 0)
                rows[i].speedup = cpu_ms / rows[i].report.stats.total.median;
            print_row(rows[i]);
        }
    }
    store->print_summary();
    if (int rc = write_csv_to(args.get("csv"), [&](std::ostream& out) { write_csv(out, rows, map_name, **graph); }))
        return rc;
    return exit_code;
}

}  // namespace ps::cli
