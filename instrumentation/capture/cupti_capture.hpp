// CUPTI activity capture: runtime API calls, kernels (concurrent kind), memcpy, memset,
// synchronisation, NVTX markers and CUPTI overhead records of one traced interval, turned
// into a Timeline on CUPTI's clock. Only used when a GPU is present (without a driver,
// enabling activity kinds fails): callers ask the kernels' gpu_info() first.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "instrumentation/timeline/timeline.hpp"

namespace ps::trace {

enum class TraceLevel : std::uint8_t { Off, Light, Full };  // light = NVTX + device stamps
std::string_view to_string(TraceLevel level);
std::optional<TraceLevel> parse_trace_level(std::string_view text);

// Points NVTX_INJECTION64_PATH at the libcupti this process loaded, so NVTX ranges reach
// CUPTI. Must run before the process's first NVTX call; does nothing if the variable is set.
// Returns the path used, or an empty string.
std::string prepare_nvtx_injection();

// CUPTI's clock (the time base of every record), nanoseconds.
std::int64_t cupti_now_ns();

class CuptiSession {
public:
    // One session at a time per process. Null, with the reason in *error, when CUPTI cannot
    // enable its activity kinds.
    static std::unique_ptr<CuptiSession> start(std::string* error);
    ~CuptiSession();
    CuptiSession(const CuptiSession&) = delete;
    CuptiSession& operator=(const CuptiSession&) = delete;

    // Flushes every buffer, disables the kinds and returns what was recorded.
    Timeline stop();
    // After stop(): why CUPTI cannot record device-launched (CDP) kernels here, as the answer to
    // enabling CUPTI_ACTIVITY_KIND_CDP_KERNEL (the H100 with CUPTI 13: CUPTI_ERROR_NOT_COMPATIBLE),
    // or empty when it can.
    const std::string& cdp_unsupported() const { return m_cdp_unsupported; }

private:
    CuptiSession() = default;
    bool m_active = false;
    std::string m_cdp_unsupported;
};

// The timeline's note for a run that tail-launched kernels CUPTI could not see.
std::string device_launch_note(const std::string& cdp_unsupported);

}  // namespace ps::trace
