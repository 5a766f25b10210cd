// astar.gpu.block behind the variant interface: a single query searched by one thread block with
// block barriers only (no grid barrier), its table on chip while it fits (kernels/search/grid_astar_gpu.hpp).
// Small searches are bounded by the iteration latency, and one SM iterates 10-100x faster
// than the whole grid can synchronise (shared/notes/gpu-facts.md).
#include "kernels/astar/astar_block_variants.hpp"

#include "kernels/search/grid_astar_params.hpp"

namespace ps {
namespace {

class AStarBlock final : public GpuVariant {
public:
    AStarBlock() {
        m_info.id = "astar.gpu.block";
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Gpu;
        m_info.description =
            "one thread block per query: bucket A* with block barriers, g values in an on-chip hash table";
        m_info.reference_id = "dijkstra.cpu";
        m_info.params = grid_astar_params("auto", "16384");
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        if (auto why = grid_astar_refusal(problem)) return failed_run(*why);
        gpu::GridAStarOutput out;
        RunResult result = run_grid_astar(m_info, problem, context, {{problem.start, problem.goal}}, true, out);
        if (result.status != RunStatus::Ok) return result;
        result.found = out.costs[0] >= 0;
        result.cost = result.found ? out.costs[0] : 0.0;
        result.path = std::move(out.path);
        result.expanded = out.expanded[0];
        return result;
    }

private:
    VariantInfo m_info;
};

}  // namespace

void add_astar_block_variant(Registry& registry) { registry.add(std::make_unique<AStarBlock>()); }

}  // namespace ps
