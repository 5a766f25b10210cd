// Parameters of the block A* variants (kernels/search/grid_astar_params.hpp).
#include "kernels/search/grid_astar_params.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/search/dead_ends.hpp"

namespace ps {

std::vector<ParamSpec> grid_astar_params(const char* block, const char* slots) {
    return {
        choice_param("block", block, "threads per query (8 per entry: 32 entries per iteration at 256)",
                     {"64", "128", "256", "512", "1024"}),
        choice_param("shared_slots", slots,
                     "on-chip hash slots per query (8 bytes each in the integer metric, 12 with 64-bit values; a "
                     "query may fill 3/4 before it moves to a global-memory table)",
                     {"1024", "2048", "4096", "8192", "16384"}),
        int_param("shared_bucket", "512",
                  "on-chip entries per f bucket, rounded up to a power of two (8 buckets of 4 bytes per entry)", 32,
                  8192),
        int_param("blocks", "0", "persistent blocks on chip; 0 = as many as are resident at once", 0, 1 << 20),
        int_param("spill_budget_mb", "0",
                  "global memory for the tables of queries that outgrow the chip, MiB; 0 = half the free memory", 0,
                  1 << 24),
        int_param("pool_tables", "-1",
                  "global tables that queries outgrowing the chip move into and go on (-1: one per on-chip block "
                  "within half the budget; 0: they start over in a later launch)",
                  -1, 1 << 20),
        int_param("chain", "1",
                  "expansions per group per iteration: a group goes on with a successor that stays in the current f "
                  "bucket instead of pushing it (1: push every successor)",
                  1, 256),
        int_param("spread", "4",
                  "f buckets one iteration pops from, the lowest first: entries of the higher ones are expanded "
                  "early (and again if their g improves), fewer iterations where the lowest bucket holds few",
                  1, 4),
        flag_param("dead_ends", "0",
                   "1: peel the map's dead ends first (per-map preprocessing, once per map and rules, reported as "
                   "preprocess_ms): queries "
                   "inside one peeled tree are answered by its tree path, the rest search only the core "
                   "(kernels/search/dead_ends.hpp)"),
        flag_param("spill_only", "0", "1: every query keeps its table in global memory (to compare the two tiers)"),
        flag_param("wide_values", "0",
                   "1: 64-bit g values in the integer metric too (by default 32 bits while g stays below 2^31, "
                   "so that the table's shared-memory atomics are single instructions)"),
    };
}

gpu::GridAStarOptions grid_astar_options(const VariantInfo& info, const Problem& problem) {
    const ParamValues params(info, problem);
    gpu::GridAStarOptions o;
    o.block_threads = int(params.integer("block"));
    o.shared_slots = int(params.integer("shared_slots"));
    o.shared_bucket = int(params.integer("shared_bucket"));
    o.blocks = int(params.integer("blocks"));
    o.spill_budget_bytes = std::uint64_t(params.integer("spill_budget_mb")) << 20;
    o.spill_only = params.flag("spill_only");
    o.pool_tables = int(params.integer("pool_tables"));
    o.chain = int(params.integer("chain"));
    o.spread = int(params.integer("spread"));
    o.wide_values = params.flag("wide_values");
    return o;
}

std::optional<std::string> grid_astar_refusal(const Problem& problem) {
    if (problem.heuristic != Heuristic::Octile)
        return "uses the octile heuristic only (its bucket ring relies on it being consistent)";
    return std::nullopt;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The queries through the dead-end forest: tree paths on the host, core searches on the GPU
// (on the map with the peeled cells blocked), recombined into `out` per query as if the engine
// had run them all. Counters of the forest go to `counters`.
gpu::GridAStarOutput run_through_forest(const Problem& problem, const std::vector<gpu::GridQuery>& queries,
                                        const gpu::GridAStarOptions& options, std::map<std::string, double>& counters) {
    // Built once per map and rules for every copy of the problem (the queries of a scenario file).
    const auto t0 = std::chrono::steady_clock::now();
    bool built = false;
    const auto shared = std::static_pointer_cast<const DeadEndForest>(problem.derived(
        "dead_end_forest",
        [&] { return std::make_shared<const DeadEndForest>(build_dead_end_forest(*problem.map, problem.rules)); },
        &built));
    const DeadEndForest& forest = *shared;
    const double preprocess_ms = built ? ms_since(t0) : 0.0;

    const auto t1 = std::chrono::steady_clock::now();
    const std::size_t n = queries.size();
    std::vector<ForestQuery> fq(n);
    std::vector<gpu::GridQuery> core;  // the core searches, in query order
    for (std::size_t i = 0; i < n; ++i) {
        fq[i] = forest_query(forest, queries[i].start, queries[i].goal);
        if (fq[i].kind == ForestQuery::Kind::CoreSearch) core.push_back({fq[i].core_start, fq[i].core_goal});
    }
    double host_ms = ms_since(t1);

    gpu::GridAStarOutput gpu_out;
    if (!core.empty()) {
        gpu_out = gpu::run_grid_astar_gpu(forest.core_map, problem.rules, problem.cost_mode, core, options);
        if (!gpu_out.error.empty() || gpu_out.cancelled) return gpu_out;
    }
    const auto t2 = std::chrono::steady_clock::now();
    gpu::GridAStarOutput out = gpu_out;
    out.costs.assign(n, -1.0);
    out.expanded.assign(n, 0);
    out.iterations.assign(n, 0);
    out.spilled.assign(n, 0);
    out.moved.assign(n, 0);
    out.path.clear();
    std::size_t by_tree = 0, c = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double tree = fq[i].steps.cost(problem.cost_mode);
        if (fq[i].kind == ForestQuery::Kind::TreePath) {
            out.costs[i] = tree;
            ++by_tree;
        } else if (fq[i].kind == ForestQuery::Kind::CoreSearch) {
            if (gpu_out.costs[c] >= 0) out.costs[i] = gpu_out.costs[c] + tree;
            out.expanded[i] = gpu_out.expanded[c];
            out.iterations[i] = gpu_out.iterations[c];
            out.spilled[i] = gpu_out.spilled[c];
            out.moved[i] = gpu_out.moved[c];
            ++c;
        }
    }
    if (options.want_path && n == 1 && out.costs[0] >= 0)
        out.path = forest_path(forest, queries[0].start, queries[0].goal, fq[0], gpu_out.path);
    host_ms += ms_since(t2);
    out.phases.compute_ms += host_ms;
    out.phases.total_ms += host_ms;
    counters["preprocess_ms"] = preprocess_ms;  // 0 when an earlier copy of the problem built it
    counters["forest_built"] = built ? 1.0 : 0.0;
    counters["forest_host_ms"] = host_ms;
    counters["peeled_cells"] = double(forest.peeled);
    counters["core_cells"] = double(forest.core_cells);
    counters["queries_by_tree"] = double(by_tree);
    counters["queries_on_gpu"] = double(core.size());
    return out;
}

}  // namespace

RunResult run_grid_astar(const VariantInfo& info, const Problem& problem, const RunContext& context,
                         const std::vector<gpu::GridQuery>& queries, bool want_path, gpu::GridAStarOutput& out) {
    gpu::GridAStarOptions options = grid_astar_options(info, problem);
    options.want_path = want_path;
    options.cancel = context.cancel;
    std::map<std::string, double> forest_counters;
    {
        nvtx::ScopedRange range(nvtx::Phase::Compute, info.id);
        if (ParamValues(info, problem).flag("dead_ends")) {
            out = run_through_forest(problem, queries, options, forest_counters);
        } else {
            // The map's bitmap, made once for every copy of the problem (a scenario file's queries).
            const auto bits = std::static_pointer_cast<const gpu::GridBits>(problem.derived(
                "grid_bits", [&] { return std::make_shared<const gpu::GridBits>(gpu::grid_bits(*problem.map)); }));
            options.bits = bits.get();
            out = gpu::run_grid_astar_gpu(*problem.map, problem.rules, problem.cost_mode, queries, options);
        }
    }
    if (auto ended = gpu_run_outcome(out)) return *ended;
    RunResult result;
    result.phases = out.phases;
    std::size_t started_over = 0, moved = 0;
    std::uint64_t iterations = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
        started_over += out.spilled[i];
        moved += out.moved[i];
        iterations += out.iterations[i];
    }
    auto& c = result.counters;
    c["gpu_compute_ms"] = out.gpu_compute_ms;
    c["host_launches"] = double(out.launches);
    c["queries_moved"] = double(moved);
    c["queries_spilled"] = double(started_over);
    c["iterations"] = double(iterations);  // summed over the queries (one query: its own)
    c["mean_iterations"] = queries.empty() ? 0.0 : double(iterations) / double(queries.size());
    c["on_chip_blocks"] = double(out.on_chip_blocks);
    c["spill_blocks"] = double(out.spill_blocks);
    c["shared_bytes_per_block"] = double(out.shared_bytes_per_block);
    c["spill_bytes_per_block"] = double(out.spill_bytes_per_block);
    for (const auto& [name, value] : forest_counters) c[name] = value;
    return result;
}

}  // namespace ps
