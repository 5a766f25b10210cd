// Parameters of the block A* variants (kernels/search/grid_astar_params.hpp).
#include "kernels/search/grid_astar_params.hpp"

#include "instrumentation/nvtx.hpp"

namespace ps {

std::vector<ParamSpec> grid_astar_params(const char* block, const char* slots) {
    return {
        choice_param("block", block, "threads per query (8 per entry: 32 entries per iteration at 256)",
                     {"64", "128", "256", "512", "1024"}),
        choice_param("shared_slots", slots,
                     "on-chip hash slots per query (12 bytes each; a query may fill 3/4 before it moves to a "
                     "global-memory table)",
                     {"1024", "2048", "4096", "8192", "16384"}),
        int_param("shared_bucket", "448", "on-chip entries per f bucket (8 buckets of 4 bytes per entry)", 32, 8192),
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
        flag_param("spill_only", "0", "1: every query keeps its table in global memory (to compare the two tiers)"),
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
    return o;
}

std::optional<std::string> grid_astar_refusal(const Problem& problem) {
    if (problem.heuristic != Heuristic::Octile)
        return "uses the octile heuristic only (its bucket ring relies on it being consistent)";
    return std::nullopt;
}

RunResult run_grid_astar(const VariantInfo& info, const Problem& problem, const RunContext& context,
                         const std::vector<gpu::GridQuery>& queries, bool want_path, gpu::GridAStarOutput& out) {
    gpu::GridAStarOptions options = grid_astar_options(info, problem);
    options.want_path = want_path;
    options.cancel = context.cancel;
    {
        nvtx::ScopedRange range(nvtx::Phase::Compute, info.id);
        out = gpu::run_grid_astar_gpu(*problem.map, problem.rules, problem.cost_mode, queries, options);
    }
    RunResult result;
    if (out.cancelled) {
        result.status = RunStatus::Cancelled;
        return result;
    }
    if (!out.error.empty()) return failed_run(out.error);
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
    c["mean_iterations"] = queries.empty() ? 0.0 : double(iterations) / double(queries.size());
    c["on_chip_blocks"] = double(out.on_chip_blocks);
    c["spill_blocks"] = double(out.spill_blocks);
    c["shared_bytes_per_block"] = double(out.shared_bytes_per_block);
    c["spill_bytes_per_block"] = double(out.spill_bytes_per_block);
    return result;
}

}  // namespace ps
