// Device levels onto the CUPTI time axis (see device_levels.hpp).
#include "instrumentation/capture/device_levels.hpp"

#include <algorithm>
#include <string>

namespace ps::trace {

DeviceLevelsResult add_device_levels(Timeline& timeline,
                                     const std::vector<std::pair<std::uint64_t, std::uint64_t>>& stamps,
                                     std::string_view kernel, bool tail_launched, std::int64_t fallback_offset_ns) {
    DeviceLevelsResult result;
    // Host-launched stamping kernels in launch order: the i-th one stamped level i first.
    std::vector<std::size_t> launches;
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const Event& e = timeline.events[i];
        if (e.kind == EventKind::Kernel && e.name.find(kernel) != std::string::npos) launches.push_back(i);
    }
    std::sort(launches.begin(), launches.end(),
              [&](std::size_t a, std::size_t b) { return timeline.events[a].start_ns < timeline.events[b].start_ns; });
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    for (std::size_t i = 0; i < launches.size() && i < stamps.size(); ++i) {
        Event& k = timeline.events[launches[i]];
        if (launches.size() > 1) k.level = std::int32_t(i);  // a host loop: one kernel per level
        pairs.emplace_back(std::int64_t(stamps[i].first), k.start_ns);
    }
    result.fit = fit_clock(pairs);
    auto to_host = [&](std::uint64_t device_ns) {
        return result.fit ? result.fit->map(std::int64_t(device_ns)) : std::int64_t(device_ns) + fallback_offset_ns;
    };
    const std::uint32_t track = timeline.add_track(TrackKind::DeviceLevels, 0, "device " + timeline.level_name + "s");
    for (std::size_t l = 0; l < stamps.size(); ++l) {
        const auto [entry, exit] = stamps[l];
        if (exit == 0 || entry == ~0ull || exit < entry) continue;  // level never ran
        Event e;
        e.kind = EventKind::DeviceLevel;
        e.name = timeline.level_name + " " + std::to_string(l);
        e.track = track;
        e.start_ns = to_host(entry);
        e.end_ns = to_host(exit);
        e.level = std::int32_t(l);
        e.device_launched = tail_launched && l > 0;
        timeline.events.push_back(std::move(e));
        ++result.levels_added;
    }
    return result;
}

}  // namespace ps::trace
