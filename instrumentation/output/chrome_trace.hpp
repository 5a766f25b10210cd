// A run's timeline as a Chrome trace (Google's Trace Event Format, a JSON object with
// "traceEvents"), which Perfetto and chrome://tracing open: the slices, the rows' names and
// order, and arrows from each CUDA API call to the GPU work it launched.
#pragma once

#include <ostream>

#include "instrumentation/timeline/timeline.hpp"

namespace ps::trace {

// Writes, in order:
// - metadata ("ph":"M"): process_name and process_sort_index per track kind (one pid each:
//   host threads, NVTX, GPU streams, device levels, host, agent lanes), thread_name and
//   thread_sort_index per track (one tid each);
// - complete events ("ph":"X"), parents before children: ts and dur in microseconds relative to
//   the earliest event, with nanoseconds as 3 decimals so that nested ranges still nest; args
//   with correlation id, level, launch configuration, bytes, graph ids, device_launched;
// - flow events ("ph":"s" then "ph":"f" with "bp":"e", one id each): from a runtime API call to
//   the kernel, memcpy or memset with its correlation id ("launch"), from a cudaGraphLaunch to
//   the first node kernel it ran when CUPTI gave the nodes no correlation id ("graph launch",
//   paired by time: see the rule in chrome_trace.cpp), and from a device level to the next one
//   on its track when that one was launched on the device ("tail launch");
// then "displayTimeUnit":"ns" and the provenance under "metadata".
void write_chrome_trace(const Timeline& t, const Provenance& p, std::ostream& out);

}  // namespace ps::trace
