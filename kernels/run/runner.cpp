// Run orchestration: repetitions, statistics, validation (see runner.hpp).
#include "kernels/run/runner.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "instrumentation/capture/clock.hpp"
#include "instrumentation/capture/device_levels.hpp"
#include "instrumentation/capture/nvtx.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/run/validation.hpp"

namespace ps {

RunResult run_reference(const VariantInfo& info, const Problem& problem, const RunContext& context) {
    const Variant* reference = Registry::instance().find(info.reference_id);
    if (!reference) return failed_run("reference variant '" + info.reference_id + "' is not registered");
    RunContext quiet = context;
    quiet.record = false;
    return reference->run(problem, quiet);
}

namespace {

// The one place that names the variant in an error: "astar.gpu.uba: block_size must be ...".
void name_variant(RunReport& report) {
    if (report.result.status == RunStatus::Error && !report.info.id.empty())
        report.result.message = report.info.id + ": " + report.result.message;
}

RunReport failure(RunReport report, RunStatus status, std::string message) {
    report.result.status = status;
    report.result.message = std::move(message);
    name_variant(report);
    return report;
}

bool cancelled(const RunContext& context) { return context.cancel && context.cancel->load(std::memory_order_relaxed); }

// Host phases of the traced repetition laid out in order from its start (the variant reports
// durations; CPU runs get a timeline this way even without a GPU).
void add_host_phases(trace::Timeline& t, const PhaseTimes& phases, std::int64_t start_ns) {
    const std::uint32_t track = t.add_track(trace::TrackKind::Host, 0, "run phases");
    const std::pair<const char*, double> parts[] = {{"allocate", phases.allocate_ms},
                                                    {"upload", phases.upload_ms},
                                                    {"compute", phases.compute_ms},
                                                    {"download", phases.download_ms}};
    std::int64_t at = start_ns;
    for (const auto& [name, ms] : parts) {
        if (ms <= 0) continue;
        trace::Event e;
        e.kind = trace::EventKind::HostPhase;
        e.name = name;
        e.track = track;
        e.start_ns = at;
        e.end_ns = at + std::int64_t(ms * 1e6);
        at = e.end_ns;
        t.events.push_back(std::move(e));
    }
}

// Whether the variant's own NVTX phase ranges are in the timeline (the GPU variants open
// "allocate" .. "download" around their phases; the CPU variants one range named after them).
bool has_phase_ranges(const trace::Timeline& t) {
    return std::any_of(t.events.begin(), t.events.end(), [](const trace::Event& e) {
        return e.kind == trace::EventKind::Nvtx &&
               (e.name == "allocate" || e.name == "upload" || e.name == "compute" || e.name == "download");
    });
}

void trace_repetition(const Variant& variant, const RunRequest& request, RunReport& report) {
    RunContext ctx = request.context;
    ctx.record = false;
    std::unique_ptr<trace::CuptiSession> session;
    if (ctx.trace == trace::TraceLevel::Full) {
        if (!gpu_info().available) {
            report.trace_message = "CUPTI tracing needs a GPU (" + gpu_info().reason + "): host phases only";
        } else {
            std::string error;
            session = trace::CuptiSession::start(&error);
            if (!session) report.trace_message = error + ": NVTX and device stamps only";
        }
    }
    // Events share CUPTI's clock when CUPTI records them, else the host's steady clock; host
    // stamps (batch.cpu's agent spans) move by the difference of the two, read here together.
    const std::int64_t host_start_ns = now_ns();
    const std::int64_t start_ns = session ? trace::cupti_now_ns() : host_start_ns;
    RunResult r;
    {
        nvtx::ScopedRange range(nvtx::Phase::Other, "traced repetition");
        r = variant.run(request.problem, ctx);
    }
    trace::Timeline t = session ? session->stop() : trace::Timeline{};
    // A tail-launched chain CUPTI cannot see: the timeline says so, and why (gpu-facts.md).
    if (session && r.stamps.tail_launched && !session->cdp_unsupported().empty())
        t.notes.push_back(trace::device_launch_note(session->cdp_unsupported()));
    if (r.status != RunStatus::Ok) {
        report.trace_message = "traced repetition failed: " + r.message;
        return;
    }
    t.level_name = r.stamps.unit;
    // With CUPTI the variants' own NVTX phase ranges are the truth; without it, or for a variant
    // that opens none (a CPU search traced on a GPU machine had no phase rows), lay the reported
    // phase durations out from the start.
    if (!session || !has_phase_ranges(t)) add_host_phases(t, r.phases, start_ns);
    // Without CUPTI, device stamps are anchored at the start of the compute phase.
    const std::int64_t compute_start = start_ns + std::int64_t((r.phases.allocate_ms + r.phases.upload_ms) * 1e6);
    if (!r.stamps.levels.empty()) {
        const auto placed = trace::add_device_levels(t, r.stamps.levels, r.stamps.kernel, r.stamps.tail_launched,
                                                     compute_start - std::int64_t(r.stamps.levels.front().first));
        report.clock_fit = placed.fit;
        if (placed.fit) {
            const auto first = std::int64_t(r.stamps.levels.front().first);
            report.clock_offset_ns = placed.fit->map(first) - first;
        }
    }
    if (!r.agent_spans.empty()) {
        const AgentSpans& s = r.agent_spans;
        const trace::AgentSpanView view{s.start_ns, s.end_ns, s.lane, s.lane_unit};
        const std::int64_t offset =
            s.device_clock ? trace::device_span_offset(t, s.kernel, view, compute_start) : start_ns - host_start_ns;
        trace::add_agent_load(t, view, offset);
        report.agent_load = trace::summarize_agent_load(view);
        // Stored with the run, so the history shows the imbalance without the timeline.
        auto& c = report.result.counters;
        c["load_done_50"] = report.agent_load->done_50;
        c["load_done_90"] = report.agent_load->done_90;
        c["load_done_99"] = report.agent_load->done_99;
        c["load_running_last_10"] = double(report.agent_load->running_last_10);
        c["load_first_lane_done_ms"] = report.agent_load->first_lane_done_ms;
        c["load_last_lane_done_ms"] = report.agent_load->last_lane_done_ms;
    }
    report.trace_overhead_ms = r.phases.total_ms - report.stats.total.median;
    report.result.counters["trace_overhead_ms"] = report.trace_overhead_ms;  // stored with the run
    report.timeline = std::make_shared<const trace::Timeline>(std::move(t));
}

// A finished BFS run's graph-level metrics (edges_visited.hpp), once per run: the edges into
// the result's counters (unless the variant counted them itself, as the bidirectional BFS does),
// MTEPS on the median compute time, and with a traced run the rate of each timed level.
void add_edge_metrics(const Problem& problem, RunReport& report) {
    if (report.info.family != Family::Bfs || report.result.status != RunStatus::Ok) return;
    auto& counters = report.result.counters;
    if (auto count = bfs_edges_visited(problem, report.result)) {
        counters[kEdgesVisitedCounter] = double(count->total);
        report.level_edges = std::move(count->per_level);
    }
    const auto edges = counters.find(kEdgesVisitedCounter);
    if (edges == counters.end()) return;
    if (report.stats.compute.median > 0) counters[kMtepsCounter] = mteps(edges->second, report.stats.compute.median);
    if (report.timeline) report.level_rates = level_rates(report.level_edges, *report.timeline);
}

}  // namespace

namespace {

// The checks every run passes before it starts, here or on a target (report.info set): the
// parameters first (a misspelt or out-of-range one is the same mistake on any machine), where it
// can run, the problem, the counts. The refusal, or nullopt.
std::optional<RunReport> refused(const RunReport& report, const RunRequest& request,
                                 const std::optional<std::string>& unavailable) {
    if (auto ok = check_params(report.info, request.problem); !ok)
        return failure(report, RunStatus::Error, ok.error().message);
    if (unavailable) return failure(report, RunStatus::Unavailable, *unavailable);
    if (auto ok = request.problem.check(report.info.family); !ok)
        return failure(report, RunStatus::Error, ok.error().message);
    if (auto why = weighted_terrain_refusal(report.info, request.problem))
        return failure(report, RunStatus::Error, *why);
    if (request.repeat < 1 || request.warmup < 0)
        return failure(report, RunStatus::Error, "repetitions must be at least 1 and warm-ups at least 0");
    return std::nullopt;
}

// A run on an executor (a remote target): the whole run there, then what came back replayed to
// the observers as a local run's, so it is stored, drawn and compared alike. A connection that
// fails reaches no observer: nothing of the run is half-stored.
RunReport run_elsewhere(const RunRequest& request, RunObserver* observer) {
    RunReport report;
    Executor& executor = *request.executor;
    const auto info = executor.variant(request.variant_id);
    if (!info) return failure(report, RunStatus::Error, "the target has no variant '" + request.variant_id + "'");
    report.info = *info;
    const auto why = executor.unavailable_reason(request.variant_id);
    if (auto refusal = refused(report, request, why ? std::optional("on the target: " + *why) : std::nullopt))
        return *refusal;
    auto ran = executor.run(request, [&](double fraction) {
        if (observer) observer->on_progress(fraction);
    });
    if (!ran) {
        report = failure(report, RunStatus::Error, ran.error().message);
        report.connection_failed = true;
        return report;
    }
    report = std::move(*ran);
    report.stats = compute_phase_stats(report.samples);
    add_edge_metrics(request.problem, report);  // a target of an older build sends no counts
    if (observer && report.result.status == RunStatus::Ok) {
        observer->on_started(request, report.info);
        for (std::size_t i = 0; i < report.samples.size(); ++i)
            observer->on_sample(int(i), report.samples[i], report.result);
        observer->on_progress(1.0);
        observer->on_finished(request, report);
    }
    return report;
}

}  // namespace

std::optional<std::string> unavailable_reason(const Variant& variant, const Executor* executor) {
    if (!executor) return variant.unavailable_reason();
    if (auto why = executor->unavailable_reason(variant.info().id)) return "on the target: " + *why;
    return std::nullopt;
}

RunReport run_variant(const RunRequest& request, RunObserver* observer) {
    if (request.executor) return run_elsewhere(request, observer);
    RunReport report;
    const Variant* variant = Registry::instance().find(request.variant_id);
    if (!variant)
        return failure(report, RunStatus::Error,
                       "unknown variant '" + request.variant_id + "' (pathscope-cli list shows them)");
    report.info = variant->info();
    if (auto refusal = refused(report, request, variant->unavailable_reason())) return *refusal;

    if (observer) observer->on_started(request, report.info);
    const int steps = request.warmup + request.repeat;
    for (int i = 0; i < request.warmup; ++i) {
        if (cancelled(request.context)) return failure(report, RunStatus::Cancelled, "cancelled");
        RunContext warm = request.context;
        warm.record = false;
        warm.trace = trace::TraceLevel::Off;
        RunResult r = variant->run(request.problem, warm);
        if (r.status != RunStatus::Ok) {
            report.result = std::move(r);
            name_variant(report);
            return report;
        }
        if (observer) observer->on_progress(double(i + 1) / double(steps + 1));
    }

    const bool is_reference = report.info.reference_id == report.info.id;
    std::shared_ptr<const RunResult> reference = request.reference;
    if (request.validate && !is_reference && !reference) {
        nvtx::ScopedRange range(nvtx::Phase::Validate, "reference " + report.info.reference_id);
        Stopwatch watch;
        reference = std::make_shared<const RunResult>(run_reference(report.info, request.problem, request.context));
        report.reference_ms = watch.elapsed_ms();
    }
    if (reference && reference->status != RunStatus::Ok)
        return failure(report, reference->status,
                       "reference " + report.info.reference_id + " failed: " + reference->message);

    std::string first_failure;
    for (int rep = 0; rep < request.repeat; ++rep) {
        if (cancelled(request.context)) return failure(report, RunStatus::Cancelled, "cancelled");
        RunContext ctx = request.context;
        ctx.record = request.context.record && rep == request.repeat - 1;  // record once
        ctx.trace = trace::TraceLevel::Off;  // traced separately, after the measured repetitions
        RunResult r = variant->run(request.problem, ctx);
        if (r.status != RunStatus::Ok) {
            report.result = std::move(r);
            name_variant(report);
            return report;
        }
        if (request.validate) {
            nvtx::ScopedRange range(nvtx::Phase::Validate, "validate");
            if (is_reference)
                validate_self(request.problem, report.info.family, r);
            else
                validate_against_reference(request.problem, report.info.family, r, *reference);
            if (r.validation == Validation::Failed && report.failed_repetitions++ == 0)
                first_failure = "repetition " + std::to_string(rep + 1) + ": " + r.validation_message;
        }
        report.samples.push_back(r.phases);
        if (observer) {
            observer->on_sample(rep, r.phases, r);
            observer->on_progress(double(request.warmup + rep + 1) / double(steps + 1));
        }
        report.result = std::move(r);
    }
    if (report.failed_repetitions) {
        report.result.validation = Validation::Failed;
        report.result.validation_message = std::to_string(report.failed_repetitions) + " of " +
                                           std::to_string(request.repeat) +
                                           " repetitions failed; first: " + first_failure;
    }
    report.stats = compute_phase_stats(report.samples);
    if (request.context.trace != trace::TraceLevel::Off && !cancelled(request.context))
        trace_repetition(*variant, request, report);
    add_edge_metrics(request.problem, report);
    if (observer) {
        observer->on_progress(1.0);
        observer->on_finished(request, report);
    }
    return report;
}

}  // namespace ps
