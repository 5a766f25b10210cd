// batch.cpu: every agent's A* (Dijkstra with heuristic=zero) on Problem::batch_graph(), spread
// over worker threads (kernels/batch/batch_cpu.hpp). Allocate covers the per-thread working sets,
// compute the parallel part; there is nothing to upload or download.
#include "kernels/batch/batch_cpu_variants.hpp"

#include <thread>

#include "instrumentation/capture/clock.hpp"
#include "instrumentation/capture/nvtx.hpp"
#include "kernels/batch/batch_cpu.hpp"

namespace ps {
namespace {

class BatchCpu final : public Variant {
public:
    BatchCpu() {
        m_info.id = "batch.cpu";
        m_info.family = Family::Batch;
        m_info.device = DeviceKind::Cpu;
        m_info.description =
            "A* per agent on worker threads (kept between runs) pulling agents from an atomic counter "
            "(the reference for every batch variant)";
        m_info.reference_id = "batch.cpu";
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        m_info.params = {
            int_param("threads", std::to_string(cores),
                      "worker threads (0 = every core; default: this machine's cores)", 0, 4096),
            choice_param("heuristic", "auto",
                         "auto: octile on grid graphs, scaled Euclidean on roadmap coords; zero: Dijkstra",
                         {"auto", "zero"}),
        };
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        Stopwatch total;
        auto graph = problem.batch_graph();
        if (!graph) return failed_run(graph.error().message);
        BatchCpuOptions options;
        options.cancel = context.cancel;
        options.record_spans = context.trace != trace::TraceLevel::Off;
        const ParamValues params(m_info, problem);
        options.threads = unsigned(params.integer("threads"));
        options.dijkstra = params.text("heuristic") == "zero";
        BatchCpuOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            out = batch_search_cpu(**graph, problem.agents, options);
        }
        if (!out.error.empty()) return failed_run(out.error);
        if (out.cancelled) return failed_run("cancelled", RunStatus::Cancelled);
        RunResult result;
        result.agent_costs = std::move(out.costs);
        result.agent_steps = std::move(out.steps);
        if (options.record_spans)
            result.agent_spans = {std::move(out.span_start_ns), std::move(out.span_end_ns),
                                  std::move(out.span_worker),   "thread",
                                  /*device_clock=*/false,       {}};
        add_batch_counters(result);
        result.counters["threads"] = double(out.threads);
        result.counters["threads_started"] = double(out.started_threads);
        result.counters["heuristic_scale"] = out.heuristic.kind == BatchHeuristic::Kind::Coords ? out.heuristic.scale
                                             : out.heuristic.kind == BatchHeuristic::Kind::Grid ? 1.0
                                                                                                : 0.0;
        result.phases.allocate_ms = out.allocate_ms;
        result.phases.compute_ms = out.compute_ms;
        result.phases.total_ms = total.elapsed_ms();
        return result;
    }

private:
    VariantInfo m_info;
};

}  // namespace

std::unique_ptr<Variant> make_batch_cpu() { return std::make_unique<BatchCpu>(); }

}  // namespace ps
