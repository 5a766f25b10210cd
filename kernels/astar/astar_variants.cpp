// The GPU A* variants behind the variant interface (CUDA code in kernels/astar/astar_gpu.cu).
#include "kernels/astar/astar_variants.hpp"

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/astar/astar_gpu.hpp"
#include "kernels/gpu/gpu_info.hpp"

namespace ps {
namespace {

struct Spec {
    bool bidirectional;
    const char* id;
    const char* description;
};

constexpr Spec kSpecs[] = {
    {false, "astar.gpu.uba",
     "BBA* paper's UBA*: bucket-queue A* over f, batched bucket extraction, 8 threads per vertex"},
    {true, "astar.gpu.bba", "BBA* paper's BBA*: bidirectional bucket-queue A*, atomically updated best meeting"},
};

class AStarGpu final : public GpuVariant {
public:
    explicit AStarGpu(const Spec& spec) : m_bidirectional(spec.bidirectional) {
        m_info.id = spec.id;
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Gpu;
        m_info.description = spec.description;
        m_info.reference_id = "dijkstra.cpu";
        m_info.params = {
            choice_param("block_size", "512", "threads per block", {"128", "256", "512", "1024"}),
            int_param("bucket_width", "1000", "f units per bucket; any width is exact", 256, 16777216),
            int_param("max_extract", "8", "buckets a direction takes per iteration at most", 1, 28),
            int_param("extract_target", "0",
                      "entries taken per iteration over both directions; 0 = threads / threads_per_vertex", 0, 1 << 30),
            choice_param("threads_per_vertex", "8", "threads expanding one entry: 8 (one per move) or 1", {"8", "1"}),
            flag_param("persistent", "1", "1: one cooperative kernel runs the loop; 0: one launch per iteration"),
            flag_param("solo", "1", "1: thin iterations run in one block (block barriers); 0: always the whole grid"),
        };
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        if (auto why = astar_gpu_refusal(problem)) return failed_run(*why);
        gpu::AStarGpuOptions options;
        options.bidirectional = m_bidirectional;
        options.cancel = context.cancel;
        const ParamValues params(m_info, problem);
        options.block_size = int(params.integer("block_size"));
        options.bucket_width = int(params.integer("bucket_width"));
        options.max_extract = int(params.integer("max_extract"));
        options.extract_target = int(params.integer("extract_target"));
        options.threads_per_vertex = int(params.integer("threads_per_vertex"));
        options.persistent = params.flag("persistent");
        options.solo_block = params.flag("solo");
        SearchRecording recording;
        if (context.record) {
            // About 12 bytes per event on the device, 12 on the host; ~4 events per vertex.
            recording.vertex_stride =
                SearchRecording::stride_for(problem.map->cell_count(), context.recording_budget_bytes / 2);
            options.record = true;
            options.record_stride = recording.vertex_stride;
            options.record_cap = std::max<std::uint64_t>(1024, context.recording_budget_bytes / 2 / 12);
        }

        gpu::AStarGpuOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            out = gpu::run_astar_gpu(*problem.map, problem.rules, problem.start, problem.goal, options);
        }
        const bool persistent = out.persistent;
        const double buckets = double(out.buckets_extracted);
        if (context.record && out.error.empty() && !out.cancelled) {
            // Per iteration, what each direction inserted (Open) and expanded (Close).
            recording.events.reserve(out.events.size());
            for (const auto& e : out.events)
                recording.events.push_back(
                    {e.vertex, e.iteration,
                     e.kind == 1 ? std::uint8_t(SearchRecording::Close) : std::uint8_t(SearchRecording::Open),
                     e.direction});
            recording.steps = std::uint32_t(out.iterations);
            recording.truncated = out.record_truncated;
        }
        result = astar_gpu_result(std::move(out), "bucket_capacity");
        if (result.status == RunStatus::Ok) {
            result.counters["persistent"] = persistent ? 1.0 : 0.0;
            result.counters["buckets_extracted"] = buckets;
            if (context.record) result.recording = std::make_shared<SearchRecording>(std::move(recording));
        }
        return result;
    }

private:
    bool m_bidirectional;
    VariantInfo m_info;
};

}  // namespace

std::optional<std::string> astar_gpu_refusal(const Problem& problem) {
    // The kernels compute exact integer costs; the reference runs in the problem's mode, so a
    // real-metric problem could not be compared (and would not be what runs here).
    if (problem.cost_mode != CostMode::Integer)
        return "runs in the integer metric only (1000/1414): use --cost integer";
    if (problem.heuristic != Heuristic::Octile)
        return "uses the octile heuristic only (the bucket window and exactness rely on it being consistent)";
    return std::nullopt;
}

RunResult astar_gpu_result(gpu::AStarGpuOutput&& out, const char* capacity_counter) {
    if (auto ended = gpu_run_outcome(out)) return *ended;
    RunResult result;
    result.phases = out.phases;
    result.found = out.found;
    result.cost = out.found ? double(out.cost) : 0.0;
    result.path = std::move(out.path);
    result.expanded = out.expanded;
    result.counters["gpu_compute_ms"] = out.gpu_compute_ms;
    result.counters["host_launches"] = double(out.host_launches);
    result.counters["iterations"] = double(out.iterations);
    result.counters["pushed"] = double(out.pushed);
    result.counters["restarts"] = double(out.restarts);
    result.counters[capacity_counter] = double(out.bucket_capacity);
    return result;
}

void add_astar_gpu_variants(Registry& registry) {
    for (const Spec& spec : kSpecs) registry.add(std::make_unique<AStarGpu>(spec));
}

}  // namespace ps
