// The many-agent GPU variants behind the variant interface (CUDA code in
// kernels/cuda/batch_gpu.cu). One variant per scheduling strategy, so that histories, tables
// and plots compare strategies by id; everything else (memory mode, block, grid, agents per
// dequeue, layout, heap size, memory budget) is a parameter a sweep can vary.
#include "kernels/variants/batch_gpu_variants.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "instrumentation/nvtx.hpp"
#include "kernels/batch_cpu.hpp"
#include "kernels/batch_gpu.hpp"
#include "kernels/gpu_info.hpp"

namespace ps {
namespace {

struct Spec {
    gpu::BatchStrategy strategy;
    const char* id;
    const char* description;
};

constexpr Spec kSpecs[] = {
    {gpu::BatchStrategy::Bsp, "batch.gpu.bsp",
     "a thread per agent, one launch per expansion step, the host reads a done count (Diderot: BSP)"},
    {gpu::BatchStrategy::Batch, "batch.gpu.batch",
     "a thread per agent, every search run to completion in one launch (2008 many-agent paper)"},
    {gpu::BatchStrategy::Queue, "batch.gpu.queue",
     "persistent threads take the next agents from a global atomic counter; slots reused (Diderot: queue)"},
    {gpu::BatchStrategy::Permute, "batch.gpu.permute",
     "run to completion over a shuffled agent order, mixing long and short searches in warps"},
};

std::optional<std::uint64_t> parse_uint(const std::string& text) {
    std::uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
    return v;
}

class BatchGpu final : public GpuVariant {
public:
    explicit BatchGpu(const Spec& spec) : m_strategy(spec.strategy) {
        m_info.id = spec.id;
        m_info.family = Family::Batch;
        m_info.device = DeviceKind::Gpu;
        m_info.description = spec.description;
        m_info.reference_id = "batch.cpu";
        auto& p = m_info.params;
        p.push_back({"memory", "explicit",
                     "explicit: cudaMalloc and copies; unified: cudaMallocManaged (refused when larger than the free "
                     "GPU memory)"});
        p.push_back({"prefetch", "1",
                     "unified memory: 1 migrates the working set to the GPU before the searches, 0 leaves it to "
                     "page faults on first touch"});
        p.push_back({"block", "128",
                     spec.strategy == gpu::BatchStrategy::Bsp
                         ? "threads per block, a multiple of 32 up to 1024"
                         : "threads per block, a multiple of 32 up to 1024 (the kernel's registers allow about 800)"});
        if (spec.strategy == gpu::BatchStrategy::Queue) {
            p.push_back({"grid", "0", "persistent blocks; 0 = as many as are resident at once (occupancy x SMs)"});
            p.push_back({"per_dequeue", "1", "agents a thread takes from the global counter at a time"});
        }
        if (spec.strategy == gpu::BatchStrategy::Batch || spec.strategy == gpu::BatchStrategy::Queue)
            p.push_back({"order", "index",
                         "order agents are handed out in: index, or longest-first (by heuristic distance: similar "
                         "searches share a warp; measured slower on 100k-agent roadmaps)"});
        if (spec.strategy != gpu::BatchStrategy::Bsp)
            p.push_back({"shared_levels", "3",
                         "top levels of every search's 4-ary heap kept in shared memory (0-4: 0, 1, 5, 21 or 85 "
                         "entries of 8 bytes per thread)"});
        if (spec.strategy == gpu::BatchStrategy::Bsp)
            p.push_back({"sync_every", "1", "step launches between reads of the done count"});
        if (spec.strategy == gpu::BatchStrategy::Permute)
            p.push_back({"seed", "1", "seed of the shuffle of the agent order"});
        p.push_back({"heuristic", "auto",
                     "auto: octile in the grid metric on grid graphs, Euclidean on roadmap coordinates; zero: Dijkstra"});
        p.push_back({"layout", "blocked",
                     "working set layout: blocked (each slot contiguous: one search's accesses share sectors; "
                     "faster on the H100) or interleaved (entry i of all slots adjacent, the 2008 paper's)"});
        p.push_back({"heap_capacity", "0", "heap entries per search slot; 0 = the vertex count (never overflows)"});
        p.push_back({"max_working_set_mb", "0",
                     "device memory the run may use, MiB; 0 = free memory minus a margin. Agents that do not fit "
                     "run in several launches"});
    }
    const VariantInfo& info() const override { return m_info; }

    // The options the problem's parameters ask for, or what is wrong with them.
    Expected<gpu::BatchGpuOptions> options_for(const Problem& problem) const {
        gpu::BatchGpuOptions options;
        options.strategy = m_strategy;
        for (const auto& [name, value] : problem.params) {
            const bool known = std::any_of(m_info.params.begin(), m_info.params.end(),
                                           [&](const ParamSpec& s) { return s.name == name; });
            if (!known) continue;  // shared parameter maps may carry other variants' settings
            const auto number = parse_uint(value);
            auto need = [&](std::uint64_t lo, std::uint64_t hi) -> std::optional<std::string> {
                if (number && *number >= lo && *number <= hi) return std::nullopt;
                return name + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                       ", got '" + value + "'";
            };
            std::optional<std::string> bad;
            if (name == "memory") {
                if (value != "explicit" && value != "unified") bad = "memory must be explicit or unified, got '" + value + "'";
                options.memory = value == "unified" ? gpu::BatchMemory::Unified : gpu::BatchMemory::Explicit;
            } else if (name == "prefetch") {
                if (!(bad = need(0, 1))) options.prefetch = *number != 0;
            } else if (name == "block") {
                bad = need(32, 1024);
                if (!bad && *number % 32 != 0) bad = "block must be a multiple of 32, got '" + value + "'";
                if (!bad) options.block_size = int(*number);
            } else if (name == "grid") {
                if (!(bad = need(0, 1u << 24))) options.grid_size = int(*number);
            } else if (name == "per_dequeue") {
                if (!(bad = need(1, 1u << 16))) options.per_dequeue = int(*number);
            } else if (name == "shared_levels") {
                if (!(bad = need(0, 4))) options.shared_levels = int(*number);
            } else if (name == "sync_every") {
                if (!(bad = need(1, 1u << 16))) options.sync_every = int(*number);
            } else if (name == "seed") {
                if (!(bad = need(0, ~0ull))) options.permute_seed = *number;
            } else if (name == "heuristic") {
                if (value != "auto" && value != "zero") bad = "heuristic must be auto or zero, got '" + value + "'";
                options.zero_heuristic = value == "zero";
            } else if (name == "layout") {
                if (value != "interleaved" && value != "blocked")
                    bad = "layout must be interleaved or blocked, got '" + value + "'";
                options.layout = value == "blocked" ? gpu::BatchLayout::Blocked : gpu::BatchLayout::Interleaved;
            } else if (name == "order") {
                if (value != "index" && value != "longest-first")
                    bad = "order must be index or longest-first, got '" + value + "'";
                options.order = value == "longest-first" ? gpu::BatchOrder::LongestFirst : gpu::BatchOrder::Index;
            } else if (name == "heap_capacity") {
                if (!(bad = need(0, 0xFFFFFFFFull))) options.heap_capacity = std::uint32_t(*number);
            } else if (name == "max_working_set_mb") {
                if (!(bad = need(0, 1ull << 30))) options.max_working_set_bytes = *number << 20;
            }
            if (bad) return Error{*bad};
        }
        return options;
    }

    std::optional<std::string> preview(const Problem& problem) const override {
        auto options = options_for(problem);
        auto graph = problem.batch_graph();
        if (!options || !graph || problem.agents.empty()) return std::nullopt;  // run() says what is wrong
        const gpu::BatchMemoryPlan plan = gpu::plan_batch_gpu(**graph, problem.agents.size(), *options);
        if (!plan.error.empty()) return std::nullopt;
        return "memory plan: " + plan.describe();
    }


    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        auto parsed = options_for(problem);
        if (!parsed) return failed_run(parsed.error().message);
        gpu::BatchGpuOptions options = *parsed;
        options.cancel = context.cancel;
        options.stamp_agents = context.trace != trace::TraceLevel::Off;
        auto graph = problem.batch_graph();
        if (!graph) return failed_run(graph.error().message);
        if (problem.agents.empty()) return failed_run("the batch has no agents: give (start, goal) pairs");

        gpu::BatchGpuOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            out = gpu::run_batch_gpu(**graph, problem.agents, options);
        }
        if (out.cancelled) {
            result.status = RunStatus::Cancelled;
            return result;
        }
        if (!out.error.empty()) return failed_run(m_info.id + ": " + out.error);
        result.phases = {out.allocate_ms, out.upload_ms, out.compute_ms, out.download_ms, out.total_ms};
        result.agent_costs = std::move(out.costs);
        result.agent_steps = std::move(out.steps);
        if (options.stamp_agents) {
            const char* kernel = m_strategy == gpu::BatchStrategy::Queue ? "queue_run"
                                 : m_strategy == gpu::BatchStrategy::Bsp ? "bsp_"
                                                                         : "batch_run";
            result.agent_spans = {std::move(out.agent_start_ns), std::move(out.agent_end_ns), std::move(out.agent_sm),
                                  "SM", /*device_clock=*/true, kernel};
        }
        add_batch_counters(result);  // the summary every batch variant reports
        result.message = out.plan.describe() + "; heuristic: " + out.heuristic;
        auto& c = result.counters;
        c["launch_chunks"] = double(out.plan.chunks);
        c["bytes_per_agent"] = double(out.plan.bytes_per_slot);
        c["working_set_bytes"] = double(out.plan.working_set_bytes);
        c["search_slots"] = double(out.plan.slots);
        c["graph_bytes"] = double(out.plan.graph_bytes);
        c["memory_budget_bytes"] = double(out.plan.budget_bytes);
        c["gpu_compute_ms"] = out.gpu_compute_ms;
        c["host_launches"] = double(out.host_launches);
        c["threads"] = double(out.threads);
        c["block"] = double(out.block_size);
        c["grid"] = double(out.grid_size);
        c["heap_compactions"] = double(out.compactions);
        if (out.simt_efficiency > 0) c["simt_efficiency"] = out.simt_efficiency;
        return result;
    }

private:
    gpu::BatchStrategy m_strategy;
    VariantInfo m_info;
};

}  // namespace

void add_batch_gpu_variants(Registry& registry) {
    for (const Spec& spec : kSpecs) registry.add(std::make_unique<BatchGpu>(spec));
}

}  // namespace ps
