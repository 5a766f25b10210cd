// The load of a batch (many-agent) run on the timeline: when every agent's search ran and on
// which lane (an SM, or a CPU worker thread), turned into "agents in flight" tracks (one per
// lane and one overall, time bins carrying the mean number of agents running) and a summary of
// the imbalance (when the agents finished, how long the last lanes ran alone). Pure: it takes
// plain spans, so the kernels' RunResult never reaches instrumentation.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "instrumentation/timeline/timeline.hpp"

namespace ps::trace {

// One entry per agent, in any order; start/end on one clock (device %globaltimer or host). An
// agent with end 0 was never stamped and is left out.
struct AgentSpanView {
    std::span<const std::uint64_t> start_ns, end_ns;
    std::span<const std::uint32_t> lane;
    std::string_view lane_unit;  // "SM", "thread"
};

inline constexpr int kAgentLoadBins = 200;
// Track id of the overall "agents in flight" track; lane tracks carry their lane id.
inline constexpr std::uint64_t kAllLanes = std::numeric_limits<std::uint64_t>::max();

// The shift onto the timeline's clock of spans stamped on the device: the earliest agent start
// lands on the first kernel whose (demangled) name contains `kernel` (CUPTI's record; the bsp
// strategy launches many, the searches start in the first), else on `fallback_ns` (no CUPTI).
std::int64_t device_span_offset(const Timeline& t, std::string_view kernel, const AgentSpanView& spans,
                                std::int64_t fallback_ns);

// Adds an AgentLoad track per lane (TrackKind::AgentLanes, id = lane, "SM 17") and the overall
// one (id kAllLanes, "agents in flight"), binning [first start, last end] + offset_ns into about
// `bins` equal bins. Each event is a run of bins with the same mean load (Event::load, agents in
// flight averaged over the bins); bins without agents add nothing. Returns the events added.
std::size_t add_agent_load(Timeline& t, const AgentSpanView& spans, std::int64_t offset_ns, int bins = kAgentLoadBins);

struct AgentLoadSummary {
    std::size_t agents = 0, lanes = 0;  // stamped agents, lanes they ran on
    std::string lane_unit;
    double span_ms = 0;  // first agent start .. last agent end
    // Share of the span (0..1) after which 50 / 90 / 99 / 100 % of the agents had finished.
    double done_50 = 0, done_90 = 0, done_99 = 0, done_100 = 0;
    std::size_t running_last_10 = 0;  // agents still running in the last 10 % of the span
    // The lanes' last agent ends, from the first agent start: the earliest and the latest lane.
    double first_lane_done_ms = 0, last_lane_done_ms = 0;
};
AgentLoadSummary summarize_agent_load(const AgentSpanView& spans);
// "agent load: 50% of agents done at 21% of the run (47.2 ms), 90% at 48%, 99% at 80%; 312
// agents still running in the last 10%; 132 SMs finished between 31.0 and 47.2 ms".
std::string describe(const AgentLoadSummary& s);

}  // namespace ps::trace
