// Parameters of the block A* variants (kernels/search/grid_astar_params.hpp).
#include "kernels/search/grid_astar_params.hpp"

namespace ps {

std::vector<ParamSpec> grid_astar_params(const char* block) {
    return {
        choice_param("block", block, "threads per query (8 per entry: 32 entries per iteration at 256)",
                     {"64", "128", "256", "512", "1024"}),
        choice_param("shared_slots", "8192",
                     "on-chip hash slots per query (12 bytes each; a query may fill 3/4 before it moves to a "
                     "global-memory table)",
                     {"1024", "2048", "4096", "8192", "16384"}),
        int_param("shared_bucket", "448", "on-chip entries per f bucket (8 buckets of 4 bytes per entry)", 32, 8192),
        int_param("blocks", "0", "persistent blocks on chip; 0 = as many as are resident at once", 0, 1 << 20),
        int_param("spill_budget_mb", "0",
                  "global memory for the tables of queries that outgrow the chip, MiB; 0 = half the free memory", 0,
                  1 << 24),
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
    return o;
}

std::optional<std::string> grid_astar_refusal(const Problem& problem) {
    if (problem.heuristic != Heuristic::Octile)
        return "uses the octile heuristic only (its bucket ring relies on it being consistent)";
    return std::nullopt;
}

}  // namespace ps
