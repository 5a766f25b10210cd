// The many-agent GPU variants behind the variant interface (CUDA code in
// kernels/batch/batch_gpu.cu). One variant per scheduling strategy, so that histories, tables
// and plots compare strategies by id; everything else (memory mode, block, grid, agents per
// dequeue, layout, heap size, memory budget) is a parameter a sweep can vary.
#include "kernels/batch/batch_gpu_variants.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/batch/batch_cpu.hpp"
#include "kernels/batch/batch_gpu.hpp"
#include "kernels/gpu/gpu_info.hpp"

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

class BatchGpu final : public GpuVariant {
public:
    explicit BatchGpu(const Spec& spec) : m_strategy(spec.strategy) {
        m_info.id = spec.id;
        m_info.family = Family::Batch;
        m_info.device = DeviceKind::Gpu;
        m_info.description = spec.description;
        m_info.reference_id = "batch.cpu";
        auto& p = m_info.params;
        p.push_back(choice_param("memory", "explicit",
                                 "explicit: cudaMalloc and copies; unified: cudaMallocManaged (refused when larger "
                                 "than the free GPU memory)",
                                 {"explicit", "unified"}));
        p.push_back(flag_param("prefetch", "1",
                               "unified memory: 1 migrates the working set to the GPU before the searches, 0 leaves "
                               "it to page faults on first touch"));
        p.push_back(int_param("block", "128",
                              spec.strategy == gpu::BatchStrategy::Bsp
                                  ? "threads per block, a multiple of 32 up to 1024"
                                  : "threads per block, a multiple of 32 up to 1024 (the kernel's registers allow "
                                    "about 800)",
                              32, 1024, 32));
        if (spec.strategy == gpu::BatchStrategy::Queue) {
            p.push_back(int_param(
                "grid", "0", "persistent blocks; 0 = as many as are resident at once (occupancy x SMs)", 0, 1 << 24));
            p.push_back(
                int_param("per_dequeue", "1", "agents a thread takes from the global counter at a time", 1, 1 << 16));
        }
        if (spec.strategy == gpu::BatchStrategy::Batch || spec.strategy == gpu::BatchStrategy::Queue)
            p.push_back(choice_param("order", "index",
                                     "order agents are handed out in: index, or longest-first (by heuristic distance: "
                                     "similar searches share a warp; measured slower on 100k-agent roadmaps)",
                                     {"index", "longest-first"}));
        if (spec.strategy != gpu::BatchStrategy::Bsp)
            p.push_back(int_param("shared_levels", "3",
                                  "top levels of every search's 4-ary heap kept in shared memory (0-4: 0, 1, 5, 21 or "
                                  "85 entries of 8 bytes per thread)",
                                  0, 4));
        if (spec.strategy == gpu::BatchStrategy::Bsp)
            p.push_back(int_param("sync_every", "1", "step launches between reads of the done count", 1, 1 << 16));
        if (spec.strategy == gpu::BatchStrategy::Permute)
            p.push_back(int_param("seed", "1", "seed of the shuffle of the agent order", 0, INT64_MAX));
        p.push_back(choice_param("heuristic", "auto",
                                 "auto: octile in the grid metric on grid graphs, Euclidean on roadmap coordinates; "
                                 "zero: Dijkstra",
                                 {"auto", "zero"}));
        p.push_back(choice_param("layout", "blocked",
                                 "working set layout: blocked (each slot contiguous: one search's accesses share "
                                 "sectors; faster on the H100) or interleaved (entry i of all slots adjacent, the "
                                 "2008 paper's)",
                                 {"blocked", "interleaved"}));
        p.push_back(int_param("heap_capacity", "0",
                              "heap entries per search slot; 0 = the vertex count (never overflows)", 0, 0xFFFFFFFFll));
        p.push_back(int_param("max_working_set_mb", "0",
                              "device memory the run may use, MiB; 0 = free memory minus a margin. Agents that do "
                              "not fit run in several launches",
                              0, 1ll << 30));
    }
    const VariantInfo& info() const override { return m_info; }

    // The options the problem's parameters ask for (checked by the runner against the specs).
    gpu::BatchGpuOptions options_for(const Problem& problem) const {
        const ParamValues params(m_info, problem);
        auto has = [&](const char* name) { return find_param(m_info, name) != nullptr; };
        gpu::BatchGpuOptions options;
        options.strategy = m_strategy;
        options.memory = params.text("memory") == "unified" ? gpu::BatchMemory::Unified : gpu::BatchMemory::Explicit;
        options.prefetch = params.flag("prefetch");
        options.block_size = int(params.integer("block"));
        if (has("grid")) options.grid_size = int(params.integer("grid"));
        if (has("per_dequeue")) options.per_dequeue = int(params.integer("per_dequeue"));
        if (has("shared_levels")) options.shared_levels = int(params.integer("shared_levels"));
        if (has("sync_every")) options.sync_every = int(params.integer("sync_every"));
        if (has("seed")) options.permute_seed = std::uint64_t(params.integer("seed"));
        if (has("order"))
            options.order =
                params.text("order") == "longest-first" ? gpu::BatchOrder::LongestFirst : gpu::BatchOrder::Index;
        options.zero_heuristic = params.text("heuristic") == "zero";
        options.layout = params.text("layout") == "blocked" ? gpu::BatchLayout::Blocked : gpu::BatchLayout::Interleaved;
        options.heap_capacity = std::uint32_t(params.integer("heap_capacity"));
        options.max_working_set_bytes = std::uint64_t(params.integer("max_working_set_mb")) << 20;
        return options;
    }

    std::optional<std::string> preview(const Problem& problem) const override {
        if (!check_params(m_info, problem)) return std::nullopt;  // run() says what is wrong
        const gpu::BatchGpuOptions options = options_for(problem);
        auto graph = problem.batch_graph();
        if (!graph || problem.agents.empty()) return std::nullopt;
        const gpu::BatchMemoryPlan plan = gpu::plan_batch_gpu(**graph, problem.agents.size(), options);
        if (!plan.error.empty()) return std::nullopt;
        return "memory plan: " + plan.describe();
    }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        gpu::BatchGpuOptions options = options_for(problem);
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
        if (auto ended = gpu_run_outcome(out)) return *ended;
        result.phases = out.phases;
        result.agent_costs = std::move(out.costs);
        result.agent_steps = std::move(out.steps);
        if (options.stamp_agents) {
            const char* kernel = m_strategy == gpu::BatchStrategy::Queue ? "queue_run"
                                 : m_strategy == gpu::BatchStrategy::Bsp ? "bsp_"
                                                                         : "batch_run";
            result.agent_spans = {std::move(out.agent_start_ns), std::move(out.agent_end_ns),
                                  std::move(out.agent_sm),       "SM",
                                  /*device_clock=*/true,         kernel};
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
