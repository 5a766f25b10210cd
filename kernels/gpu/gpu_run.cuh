// The one skeleton of a GPU run, after gunrock's enactor: run_phases owns what every driver
// does alike (the stream, the host-clock boundaries of the five phases, the NVTX phase ranges,
// the CUDA events around compute, cancellation polled between compute steps, and failures
// turned into the output's error with its kind); each algorithm is a struct that supplies the
// work of the phases. Host code, included by the .cu drivers only.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/base/expected.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/gpu/cuda_util.cuh"

namespace ps::gpu {

namespace detail {

inline bool cancel_requested(const std::atomic<bool>* cancel) {
    return cancel && cancel->load(std::memory_order_relaxed);
}

// Phases from the host clock at the five boundaries: before allocation, after allocation,
// after upload, after compute, after download.
inline PhaseTimes phase_times(const std::chrono::steady_clock::time_point (&t)[5]) {
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    return {ms(t[0], t[1]), ms(t[1], t[2]), ms(t[2], t[3]), ms(t[3], t[4]), ms(t[0], t[4])};
}

template <class Run>
constexpr bool polls_before_compute() {
    if constexpr (requires { Run::kPollBeforeCompute; })
        return Run::kPollBeforeCompute;
    else
        return false;
}

}  // namespace detail

// Runs one GPU search in its phases. `Run` is the algorithm, constructed here as
// Run(out, args...) once the stream exists: its constructor does what comes before the clock
// starts (occupancy queries, pinned readback buffers, checks that need the device). Then:
//   void allocate(const detail::Stream&)     device memory       (phase "allocate", t0 .. t1)
//   void upload(const detail::Stream&)       inputs and seeds    (phase "upload",   t1 .. t2)
//   bool step(const detail::Stream&)         part of the search: a level, a batch of
//                                            iterations, a chunk of agents, or all of it;
//                                            true when the search is done (phase "compute")
//     or step(const detail::Stream&, detail::Event& compute_end): a step that waits for its own
//                                            launch's result records compute_end right after
//                                            the launch, before it waits (else the skeleton
//                                            records it after the last step, and waiting for
//                                            it cost a second round trip, ~4.5 us a query)
//   void end_compute(const detail::Stream&)  after the compute_end event: wait for the device
//                                            and check what it reported         (.. t3)
//   void download(const detail::Stream&)     results to the host (phase "download", t3 .. t4)
//   void finish(const detail::Stream&)       after the phases are timed: device stamps,
//                                            recordings, counters
// Cancellation is polled after every step that is not the last (a step owns any loop inside
// it that must not be interrupted, such as restarting a search whose queue overflowed) and,
// where Run::kPollBeforeCompute is true, once between upload and compute. A cancelled run sets
// out.cancelled and leaves the phases unset. A RunError (CudaError: Device) or any other
// exception becomes out.error with its kind (other exceptions: Internal).
template <class Run, class... Args>
void run_phases(typename Run::Output& out, const std::atomic<bool>* cancel, Args&&... args) {
    using Clock = std::chrono::steady_clock;
    using Output = typename Run::Output;
    // A failed output holds its error (message and kind) and nothing else, or what
    // Run::keep_on_failure(failed, fresh) carries over (the batch memory plan says why a run
    // did not fit).
    auto failed = [&out](ErrorKind kind, std::string message) {
        Output fresh;
        if constexpr (requires(const Output& a, Output& b) { Run::keep_on_failure(a, b); })
            Run::keep_on_failure(out, fresh);
        out = std::move(fresh);
        out.error = std::move(message);
        out.error_kind = kind;
    };
    try {
        detail::Stream stream;
        detail::Event compute_start, compute_end;
        nvtx::PhaseSequence phase;
        Run run(out, std::forward<Args>(args)...);

        const auto t0 = Clock::now();
        phase.begin(nvtx::Phase::Allocate, "allocate");
        run.allocate(stream);
        const auto t1 = Clock::now();
        phase.begin(nvtx::Phase::Upload, "upload");
        run.upload(stream);
        const auto t2 = Clock::now();
        if constexpr (detail::polls_before_compute<Run>()) {
            if (detail::cancel_requested(cancel)) {
                out.cancelled = true;
                return;
            }
        }
        phase.begin(nvtx::Phase::Compute, "compute");
        compute_start.record(stream);
        constexpr bool step_records_end = requires { run.step(stream, compute_end); };
        for (;;) {
            bool done = false;
            if constexpr (step_records_end)
                done = run.step(stream, compute_end);
            else
                done = run.step(stream);
            if (done) break;
            if (detail::cancel_requested(cancel)) {
                out.cancelled = true;
                return;
            }
        }
        if constexpr (!step_records_end) compute_end.record(stream);
        run.end_compute(stream);
        const auto t3 = Clock::now();
        phase.begin(nvtx::Phase::Download, "download");
        run.download(stream);
        const auto t4 = Clock::now();
        phase.end();

        out.phases = detail::phase_times({t0, t1, t2, t3, t4});
        out.gpu_compute_ms = compute_end.ms_since(compute_start);
        run.finish(stream);
    } catch (const detail::RunError& e) {
        failed(e.kind, e.what());
    } catch (const std::exception& e) {
        failed(ErrorKind::Internal, e.what());
    }
}

}  // namespace ps::gpu
