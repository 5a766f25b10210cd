// Puts device-stamped levels (%globaltimer) on CUPTI's time axis: pairs the host-launched
// kernels that stamped (in launch order) with their stamps, fits offset and drift, adds one
// DeviceLevel event per level and tags those kernels with their level index.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "instrumentation/timeline/timeline.hpp"

namespace ps::trace {

struct DeviceLevelsResult {
    std::size_t levels_added = 0;
    std::optional<ClockFit> fit;  // nullopt: no kernel to anchor on; levels placed by `fallback_offset_ns`
};

// `kernel` is a substring of the stamping kernel's (demangled) name. When no such kernel is
// in the timeline (light tracing, no CUPTI), the device clock is shifted by
// `fallback_offset_ns` instead. `tail_launched`: levels after the first were device-launched.
DeviceLevelsResult add_device_levels(Timeline& timeline,
                                     const std::vector<std::pair<std::uint64_t, std::uint64_t>>& stamps,
                                     std::string_view kernel, bool tail_launched, std::int64_t fallback_offset_ns);

}  // namespace ps::trace
