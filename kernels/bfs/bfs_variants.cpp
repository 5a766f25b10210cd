// The GPU BFS variants behind the variant interface (CUDA code in kernels/bfs/bfs_gpu*.cu).
#include "kernels/bfs/bfs_variants.hpp"

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/bfs/bfs_gpu.hpp"
#include "kernels/gpu/gpu_info.hpp"

namespace ps {
namespace {

struct Spec {
    gpu::BfsKind kind;
    const char* id;
    const char* description;
};

constexpr Spec kSpecs[] = {
    {gpu::BfsKind::Basic, "bfs.gpu.basic", "BFS paper: one thread per vertex per level, host reads a changed flag"},
    {gpu::BfsKind::Frontier, "bfs.gpu.frontier", "BFS paper: two frontier buffers, host reads the next frontier size"},
    {gpu::BfsKind::Shared, "bfs.gpu.shared", "BFS paper: frontier with the next frontier privatised in shared memory"},
    {gpu::BfsKind::DynamicParallel, "bfs.gpu.dp",
     "BFS paper: shared variant whose last block tail-launches the next level (cudaStreamTailLaunch)"},
    {gpu::BfsKind::Persistent, "bfs.gpu.persistent", "one cooperative kernel, grid-wide barrier per level"},
    {gpu::BfsKind::Graph, "bfs.gpu.graph", "the level loop as one CUDA graph with a conditional WHILE node"},
    {gpu::BfsKind::Tiled, "bfs.gpu.tiled",
     "32x32 bit tiles settled to a fixed point per warp: many levels per global barrier (4-connected)"},
};

// The kernel whose host launches carry the level stamps, in launch order (indexed by BfsKind).
constexpr const char* kStampedKernel[] = {"vertex_level",   "frontier_level", "shared_level", "dp_level",
                                          "persistent_bfs", "graph_expand",   "tiled_bfs"};

class BfsGpu final : public GpuVariant {
public:
    explicit BfsGpu(const Spec& spec) : m_kind(spec.kind) {
        m_info.id = spec.id;
        m_info.family = Family::Bfs;
        m_info.device = DeviceKind::Gpu;
        m_info.description = spec.description;
        m_info.reference_id = "bfs.cpu.queue";
        m_info.params.push_back(choice_param("block_size", "256", "threads per block", {"128", "256", "512", "1024"}));
        if (spec.kind == gpu::BfsKind::Frontier || spec.kind == gpu::BfsKind::Shared)
            m_info.params.push_back(choice_param("frontier_alloc", "per-level",
                                                 "per-level: create the next frontier buffer between kernel runs (as "
                                                 "the paper); once: allocate both frontier buffers up front",
                                                 {"per-level", "once"}));
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        gpu::BfsGpuOptions options;
        options.kind = m_kind;
        options.cancel = context.cancel;
        options.stamp_levels = context.trace != trace::TraceLevel::Off;
        const ParamValues params(m_info, problem);
        options.block_size = int(params.integer("block_size"));
        if (m_kind == gpu::BfsKind::Frontier || m_kind == gpu::BfsKind::Shared)
            options.frontier_alloc_once = params.text("frontier_alloc") == "once";
        // The CSR is built once per problem, outside the measured phases (as the paper does);
        // the tiled kernel reads the map itself and runs where no CSR would fit.
        std::shared_ptr<const CsrGraph> graph;
        if (gpu::bfs_gpu_needs_csr(m_kind)) {
            auto built = problem.bfs_graph();
            if (!built) return failed_run(built.error().message);
            graph = *built;
        }
        const Vertex stop = problem.bfs_stop_at_start ? problem.start : kNoVertex;
        gpu::BfsGpuOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            out = gpu::run_bfs_gpu(*problem.map, problem.rules, graph.get(), problem.goal, stop, options);
        }
        if (auto ended = gpu_run_outcome(out)) return *ended;
        result.phases = out.phases;
        result.levels = out.depth;
        result.visited = out.visited;
        result.expanded = out.visited;
        if (problem.start != kNoVertex && out.levels[problem.start] >= 0) {
            result.found = true;
            result.cost = out.levels[problem.start];
            result.path = graph ? bfs_path(*graph, out.levels, problem.start)
                                : bfs_path(*problem.map, problem.rules, out.levels, problem.start);
        }
        result.bfs_levels = std::move(out.levels);
        result.stamps.levels = std::move(out.level_stamps);
        result.stamps.kernel = kStampedKernel[int(m_kind)];
        result.stamps.tail_launched = m_kind == gpu::BfsKind::DynamicParallel;
        result.stamps.unit = m_kind == gpu::BfsKind::Tiled ? "round" : "level";
        result.counters["gpu_compute_ms"] = out.gpu_compute_ms;
        result.counters["host_launches"] = double(out.host_launches);
        result.counters["device_launches"] = double(out.device_launches);
        result.counters["global_steps"] = double(out.global_steps);
        return result;
    }

private:
    gpu::BfsKind m_kind;
    VariantInfo m_info;
};

}  // namespace

void add_bfs_gpu_variants(Registry& registry) {
    for (const Spec& spec : kSpecs) registry.add(std::make_unique<BfsGpu>(spec));
}

}  // namespace ps
