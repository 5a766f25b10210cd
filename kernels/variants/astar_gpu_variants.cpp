// The GPU A* variants behind the variant interface (CUDA code in kernels/cuda/astar_gpu.cu).
#include "kernels/variants/astar_gpu_variants.hpp"

#include <charconv>

#include "instrumentation/nvtx.hpp"
#include "kernels/astar_gpu.hpp"
#include "kernels/gpu_info.hpp"

namespace ps {
namespace {

struct Spec {
    bool bidirectional;
    const char* id;
    const char* description;
};

constexpr Spec kSpecs[] = {
    {false, "astar.gpu.uba", "BBA* paper's UBA*: bucket-queue A* over f, batched bucket extraction, 8 threads per vertex"},
    {true, "astar.gpu.bba", "BBA* paper's BBA*: bidirectional bucket-queue A*, atomically updated best meeting"},
};

// A positive integer parameter, or an error message naming it.
std::optional<std::string> parse_int(const Problem& problem, const char* name, int& value) {
    const auto it = problem.params.find(name);
    if (it == problem.params.end()) return std::nullopt;
    const std::string& text = it->second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value <= 0)
        return std::string(name) + " must be a positive integer, got '" + text + "'";
    return std::nullopt;
}

// A 0/1 parameter, or an error message naming it.
std::optional<std::string> parse_flag(const Problem& problem, const char* name, bool& value) {
    const auto it = problem.params.find(name);
    if (it == problem.params.end()) return std::nullopt;
    if (it->second != "0" && it->second != "1")
        return std::string(name) + " must be 0 or 1, got '" + it->second + "'";
    value = it->second == "1";
    return std::nullopt;
}

class AStarGpu final : public GpuVariant {
public:
    explicit AStarGpu(const Spec& spec) : m_bidirectional(spec.bidirectional) {
        m_info.id = spec.id;
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Gpu;
        m_info.description = spec.description;
        m_info.reference_id = "dijkstra.cpu";
        m_info.params.push_back({"block_size", "512", "threads per block: 128, 256, 512 or 1024"});
        m_info.params.push_back({"bucket_width", "1000", "f units per bucket (256 .. 16777216); any width is exact"});
        m_info.params.push_back({"max_extract", "8", "buckets a direction takes per iteration at most (1 .. 28)"});
        m_info.params.push_back(
            {"extract_target", "0", "entries taken per iteration over both directions; 0 = threads / threads_per_vertex"});
        m_info.params.push_back({"threads_per_vertex", "8", "threads expanding one entry: 8 (one per move) or 1"});
        m_info.params.push_back({"persistent", "1", "1: one cooperative kernel runs the loop; 0: one launch per iteration"});
        m_info.params.push_back({"solo", "1", "1: thin iterations run in one block (block barriers); 0: always the whole grid"});
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        auto fail = [&](const std::string& message) { return failed_run(m_info.id + ": " + message); };
        if (auto why = astar_gpu_refusal(problem)) return fail(*why);
        gpu::AStarGpuOptions options;
        options.bidirectional = m_bidirectional;
        options.cancel = context.cancel;
        if (auto error = parse_int(problem, "block_size", options.block_size)) return fail(*error);
        if (options.block_size != 128 && options.block_size != 256 && options.block_size != 512 &&
            options.block_size != 1024)
            return fail("block_size must be 128, 256, 512 or 1024, got " + std::to_string(options.block_size));
        if (auto error = parse_int(problem, "bucket_width", options.bucket_width)) return fail(*error);
        if (auto error = parse_int(problem, "max_extract", options.max_extract)) return fail(*error);
        if (auto error = parse_int(problem, "threads_per_vertex", options.threads_per_vertex)) return fail(*error);
        if (auto it = problem.params.find("extract_target"); it != problem.params.end() && it->second != "0")
            if (auto error = parse_int(problem, "extract_target", options.extract_target)) return fail(*error);
        if (auto error = parse_flag(problem, "persistent", options.persistent)) return fail(*error);
        if (auto error = parse_flag(problem, "solo", options.solo_block)) return fail(*error);
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
                recording.events.push_back({e.vertex, e.iteration,
                                            e.kind == 1 ? std::uint8_t(SearchRecording::Close)
                                                        : std::uint8_t(SearchRecording::Open),
                                            e.direction});
            recording.steps = std::uint32_t(out.iterations);
            recording.truncated = out.record_truncated;
        }
        result = astar_gpu_result(m_info.id, std::move(out), "bucket_capacity");
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

RunResult astar_gpu_result(const std::string& id, gpu::AStarGpuOutput&& out, const char* capacity_counter) {
    RunResult result;
    if (out.cancelled) {
        result.status = RunStatus::Cancelled;
        return result;
    }
    if (!out.error.empty()) return failed_run(id + ": " + out.error);
    result.phases = {out.allocate_ms, out.upload_ms, out.compute_ms, out.download_ms, out.total_ms};
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
