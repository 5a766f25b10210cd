// The GPU A* baselines behind the variant interface (CUDA code in
// kernels/astar/astar_gpu_baselines.cu).
#include "kernels/astar/astar_baseline_variants.hpp"

#include <charconv>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/astar/astar_gpu_baselines.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/astar/astar_variants.hpp"

namespace ps {
namespace {

struct Spec {
    bool lock;
    const char* id;
    const char* description;
};

constexpr Spec kSpecs[] = {
    {true, "astar.gpu.lock",
     "BBA* paper's LockA* baseline: one global binary heap under a spin lock, many workers, integer metric"},
    {false, "astar.gpu.heaps",
     "BBA* paper's GA*-style baseline: 32 per-block heaps, entries hashed to heaps, g-array duplicate detection"},
};

class AStarGpuBaseline final : public GpuVariant {
public:
    explicit AStarGpuBaseline(const Spec& spec) : m_lock(spec.lock) {
        m_info.id = spec.id;
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Gpu;
        m_info.description = spec.description;
        m_info.reference_id = "dijkstra.cpu";
        m_info.cell_costs = true;  // the step cost reads both cells' costs (astar_baselines_kernels.cuh)
        if (m_lock)
            m_info.params.push_back(
                int_param("workers", "0", "worker threads contending for the heap (0: two per SM)", 0, 65535));
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        if (auto why = astar_gpu_refusal(problem)) return failed_run(*why);
        gpu::AStarGpuBaselineOptions options;
        options.cancel = context.cancel;
        if (m_lock) options.workers = int(ParamValues(m_info, problem).integer("workers"));

        gpu::AStarGpuOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            out = m_lock ? gpu::run_astar_gpu_lock(*problem.map, problem.rules, problem.start, problem.goal, options)
                         : gpu::run_astar_gpu_heaps(*problem.map, problem.rules, problem.start, problem.goal, options);
        }
        return astar_gpu_result(std::move(out), "heap_capacity");
    }

private:
    bool m_lock;
    VariantInfo m_info;
};

}  // namespace

void add_astar_gpu_baseline_variants(Registry& registry) {
    for (const Spec& spec : kSpecs) registry.add(std::make_unique<AStarGpuBaseline>(spec));
}

}  // namespace ps
