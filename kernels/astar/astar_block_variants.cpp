// astar.gpu.block behind the variant interface: a single query searched by one thread block with
// block barriers only (no grid barrier), its table on chip while it fits (kernels/search/grid_astar_gpu.hpp).
// Small searches are bounded by the iteration latency, and one SM iterates 10-100x faster
// than the whole grid can synchronise (shared/notes/gpu-facts.md).
#include "kernels/astar/astar_block_variants.hpp"

#include "instrumentation/nvtx.hpp"
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
        m_info.params = grid_astar_params("512");
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        if (auto why = grid_astar_refusal(problem)) return failed_run(*why);
        gpu::GridAStarOptions options = grid_astar_options(m_info, problem);
        options.want_path = true;
        options.cancel = context.cancel;
        gpu::GridAStarOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            out = gpu::run_grid_astar_gpu(*problem.map, problem.rules, problem.cost_mode,
                                          {{problem.start, problem.goal}}, options);
        }
        RunResult result;
        if (out.cancelled) {
            result.status = RunStatus::Cancelled;
            return result;
        }
        if (!out.error.empty()) return failed_run(out.error);
        result.phases = out.phases;
        result.found = out.costs[0] >= 0;
        result.cost = result.found ? out.costs[0] : 0.0;
        result.path = std::move(out.path);
        result.expanded = out.expanded[0];
        auto& c = result.counters;
        c["gpu_compute_ms"] = out.gpu_compute_ms;
        c["iterations"] = double(out.iterations[0]);
        c["spilled"] = double(out.spilled[0]);
        c["host_launches"] = double(out.launches);
        c["shared_bytes"] = double(out.shared_bytes_per_block);
        return result;
    }

private:
    VariantInfo m_info;
};

}  // namespace

void add_astar_block_variant(Registry& registry) { registry.add(std::make_unique<AStarBlock>()); }

}  // namespace ps
