// A hand-built timeline of device-stamped levels, for the tests of per-level times and rates
// (kernels, the CLI's history, the window's per-level difference): no test framework needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instrumentation/timeline/timeline.hpp"

namespace ps::test {

// Device levels 0 .. n-1 on one track, level l lasting durations_ns[l], the first starting at
// 1000 ns and each 500 ns after the one before; `unit` is the timeline's level_name ("level" for
// BFS levels, "round" for the tiled variant's rounds).
inline trace::Timeline timeline_with_levels(const std::vector<std::int64_t>& durations_ns, std::string unit = "level") {
    trace::Timeline t;
    t.level_name = std::move(unit);
    const std::uint32_t track = t.add_track(trace::TrackKind::DeviceLevels, 0, "device levels");
    std::int64_t at = 1000;
    for (std::size_t l = 0; l < durations_ns.size(); ++l) {
        trace::Event e;
        e.kind = trace::EventKind::DeviceLevel;
        e.name = "level " + std::to_string(l);
        e.track = track;
        e.level = std::int32_t(l);
        e.start_ns = at;
        e.end_ns = at + durations_ns[l];
        at = e.end_ns + 500;
        t.events.push_back(e);
    }
    return t;
}

}  // namespace ps::test
