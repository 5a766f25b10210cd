// The run orchestrator shared by pathscope-cli and the GUI worker: checks the problem, runs
// warm-ups and repetitions of one variant, validates every measured repetition against the
// variant's CPU reference, and computes phase statistics. Storing (SQLite) and tracing plug in
// through RunObserver, so variants never see either.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "instrumentation/timeline/agent_load.hpp"
#include "instrumentation/timeline/timeline.hpp"
#include "kernels/base/expected.hpp"
#include "kernels/run/edges_visited.hpp"
#include "kernels/run/variant.hpp"

namespace ps {

struct Stats {
    std::size_t n = 0;
    double mean = 0, min = 0, max = 0, median = 0, sd = 0;  // sd: sample standard deviation
};
Stats compute_stats(std::vector<double> samples);

struct PhaseStats {
    Stats allocate, upload, compute, download, total;
};
PhaseStats compute_phase_stats(const std::vector<PhaseTimes>& samples);

// Where a run executes when not in this process: the target's host, CPU, GPU and build.
struct ExecutionSite {
    std::string host, cpu_model, build_commit;
    bool gpu_available = false;
    std::string gpu_name, gpu_reason;
    int driver_version = 0, runtime_version = 0;
};

struct RunRequest;
struct RunReport;

// Runs requests somewhere else (kernels/remote: `pathscope-cli serve` behind a command prefix
// such as ssh or srun). The runner hands it the whole request and replays what comes back to
// its observers as it would a local run's, so history, timeline and animation do not know.
class Executor {
public:
    virtual ~Executor() = default;
    virtual const ExecutionSite& site() const = 0;
    // The variant as the executor has it, or nullopt when it has none by that id.
    virtual std::optional<VariantInfo> variant(std::string_view id) const = 0;
    // Why the executor cannot run the variant (no GPU there), or nullopt.
    virtual std::optional<std::string> unavailable_reason(std::string_view id) const = 0;
    // The whole run there (repetitions, validation, tracing), `progress` as it goes; `cancel`
    // (the request's) is watched and passed on. A failure of the connection (lost, refused,
    // garbled) is an Error: then nothing of the run reaches the observers.
    virtual Expected<RunReport> run(const RunRequest& request, const std::function<void(double)>& progress) = 0;
};

// Why `variant` cannot run where runs go: on `executor` when one is set, else in this process.
std::optional<std::string> unavailable_reason(const Variant& variant, const Executor* executor);

struct RunRequest {
    std::string variant_id;
    Problem problem;
    int warmup = 0;
    int repeat = 1;
    bool validate = true;
    RunContext context;
    // Optional precomputed reference result for this problem (bench sweeps run many variants
    // on one problem); computed here when absent.
    std::shared_ptr<const RunResult> reference;
    // Set: the run executes there (a remote target), not in this process.
    std::shared_ptr<Executor> executor;
};

struct RunReport {
    VariantInfo info;
    RunResult result;                 // the last measured repetition, with validation
    std::vector<PhaseTimes> samples;  // one per measured repetition
    PhaseStats stats;
    int failed_repetitions = 0;  // repetitions whose validation failed
    double reference_ms = 0;     // time spent computing the reference (not in samples)
    // Tracing (context.trace != Off): one extra repetition after the measured ones, so the
    // statistics stay free of tracing overhead.
    std::shared_ptr<const trace::Timeline> timeline;
    std::optional<trace::ClockFit> clock_fit;  // device clock -> CUPTI clock, when fitted
    std::int64_t clock_offset_ns = 0;          // CUPTI minus device clock at the first level
    double trace_overhead_ms = 0;              // traced repetition's total minus the measured median total
    std::string trace_message;                 // why tracing was reduced (no GPU, CUPTI error), if it was
    // Batch runs: when the agents of the traced repetition finished, and on which lanes.
    std::optional<trace::AgentLoadSummary> agent_load;
    // BFS runs (edges_visited.hpp): the edges examined per expanded level, and with a traced run
    // whose timeline times its levels, each level's rate; empty where not counted. The totals
    // are result.counters "edges_visited" and "mteps" (on the median compute time).
    std::vector<std::uint64_t> level_edges;
    std::vector<LevelRate> level_rates;
    // A run on an executor whose connection failed (lost, refused, garbled): result says why,
    // nothing of the run happened that could be stored, and observers heard nothing of it.
    bool connection_failed = false;
};

class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void on_started(const RunRequest&, const VariantInfo&) {}
    virtual void on_sample(int /*repetition*/, const PhaseTimes&, const RunResult&) {}
    virtual void on_progress(double /*fraction*/) {}
    virtual void on_finished(const RunRequest&, const RunReport&) {}
};

// Never throws for bad input: an unknown variant, an invalid problem or an unavailable
// device come back as result.status != Ok with a message.
RunReport run_variant(const RunRequest& request, RunObserver* observer = nullptr);

// The reference result for a problem and family (run untimed); cached by callers if needed.
RunResult run_reference(const VariantInfo& info, const Problem& problem, const RunContext& context);

}  // namespace ps
