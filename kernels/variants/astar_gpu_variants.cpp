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
    {false, "astar.gpu.uba", "BBA* paper's UBA*: bucket-queue A* over f, one bucket per iteration, integer metric"},
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

class AStarGpu final : public Variant {
public:
    explicit AStarGpu(const Spec& spec) : m_bidirectional(spec.bidirectional) {
        m_info.id = spec.id;
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Gpu;
        m_info.description = spec.description;
        m_info.reference_id = "dijkstra.cpu";
        m_info.params.push_back({"block_size", "256", "threads per block: 128, 256, 512 or 1024"});
        m_info.params.push_back({"bucket_width", "1000", "f units per bucket (256 .. 16777216); any width is exact"});
    }
    const VariantInfo& info() const override { return m_info; }
    std::optional<std::string> unavailable_reason() const override {
        if (!gpu_info().available) return gpu_info().reason;
        return std::nullopt;
    }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        auto fail = [&](std::string message) {
            result.status = RunStatus::Error;
            result.message = m_info.id + ": " + std::move(message);
            return result;
        };
        if (auto why = astar_gpu_refusal(problem)) return fail(*why);
        gpu::AStarGpuOptions options;
        options.bidirectional = m_bidirectional;
        options.cancel = context.cancel;
        if (auto error = parse_int(problem, "block_size", options.block_size)) return fail(*error);
        if (options.block_size != 128 && options.block_size != 256 && options.block_size != 512 &&
            options.block_size != 1024)
            return fail("block_size must be 128, 256, 512 or 1024, got " + std::to_string(options.block_size));
        if (auto error = parse_int(problem, "bucket_width", options.bucket_width)) return fail(*error);

        gpu::AStarGpuOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            out = gpu::run_astar_gpu(*problem.map, problem.rules, problem.start, problem.goal, options);
        }
        const bool persistent = out.persistent;
        result = astar_gpu_result(m_info.id, std::move(out), "bucket_capacity");
        if (result.status == RunStatus::Ok) result.counters["persistent"] = persistent ? 1.0 : 0.0;
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
    if (!out.error.empty()) {
        result.status = RunStatus::Error;
        result.message = id + ": " + out.error;
        return result;
    }
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
