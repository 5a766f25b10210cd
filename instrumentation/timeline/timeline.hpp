// The timeline model of one run: what the host threads, the GPU streams, NVTX ranges and the
// device-side level stamps did, on one time axis (CUPTI's clock, nanoseconds). Capture
// (cupti_capture.hpp) fills it; the analysis below and the GUI's timeline read it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ps::trace {

enum class EventKind : std::uint8_t {
    Kernel,  // a kernel launched from the host (CUPTI concurrent kernel record)
    Memcpy,
    Memset,
    RuntimeApi,   // a CUDA runtime API call on a host thread
    Sync,         // a CUPTI synchronisation record (stream/event/context sync)
    Nvtx,         // an NVTX range (host)
    DeviceLevel,  // one BFS level (or search iteration) stamped on the device with %globaltimer
    HostPhase,    // a host-side phase of a run (allocate, upload, ...), also without a GPU
    Overhead,     // CUPTI's own overhead records
    AgentLoad,    // agents in flight on a lane over a stretch of time (batch runs; not GPU work)
};
std::string_view to_string(EventKind kind);
std::optional<EventKind> event_kind_named(std::string_view name);  // inverse of to_string

// AgentLanes: one track per SM / worker thread of a batch run, and one for all (agent_load.hpp).
enum class TrackKind : std::uint8_t { HostThread, GpuStream, Nvtx, DeviceLevels, Host, AgentLanes };
std::string_view to_string(TrackKind kind);
std::optional<TrackKind> track_kind_named(std::string_view name);  // inverse of to_string

struct Track {
    TrackKind kind = TrackKind::Host;
    std::uint64_t id = 0;  // thread id, stream id, ...
    std::string name;      // "CPU thread 1234", "stream 13", "NVTX", "device levels"
};

struct Event {
    EventKind kind = EventKind::Kernel;
    std::string name;         // demangled for kernels
    std::uint32_t track = 0;  // index into Timeline::tracks
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::uint64_t correlation_id = 0;  // links a kernel/memcpy to its runtime API call (0 = none)
    std::int32_t level = -1;           // BFS level / search iteration, -1 when not applicable
    std::uint32_t grid[3] = {0, 0, 0};
    std::uint32_t block[3] = {0, 0, 0};
    std::uint64_t bytes = 0;       // memcpy / memset size
    std::int32_t depth = 0;        // NVTX nesting depth
    bool device_launched = false;  // DeviceLevel of a tail-launched kernel
    // CUPTI latency timestamps of a kernel (0 when not available): when the launch was queued
    // and submitted to the GPU, on the same clock as start_ns.
    std::int64_t queued_ns = 0, submitted_ns = 0;
    double load = 0;  // AgentLoad: agents in flight, averaged over the event
    // A kernel that ran as a node of a CUDA graph: its graph and node ids (CUPTI), else 0.
    std::uint64_t graph_id = 0, graph_node_id = 0;

    std::int64_t duration_ns() const { return end_ns - start_ns; }
};

// An item's end, never before its start: a record whose end precedes its start (clock glitch,
// truncated capture) counts as an instant. The analysis, the layout and the exports read ends so.
inline std::int64_t end_of(const Event& e) { return std::max(e.start_ns, e.end_ns); }
// Whether a kernel record carries its grid and block, and one of them as "528x1x1".
bool has_launch_config(const Event& e);
std::string launch_config(const std::uint32_t (&dims)[3]);
// A cudaGraphLaunch runtime call (CUPTI names it with a version suffix: cudaGraphLaunch_v10000),
// and a kernel that ran as a node of a CUDA graph (one launch runs many of them).
bool is_graph_launch(const Event& e);
inline bool is_graph_node(const Event& e) { return e.kind == EventKind::Kernel && e.graph_node_id != 0; }

struct Timeline {
    std::vector<Track> tracks;
    std::vector<Event> events;  // any order; analysis sorts what it needs
    std::uint64_t dropped_records = 0;
    std::string level_name = "level";  // "level" for BFS, "iteration" for A*
    // What the capture could not record and why (e.g. an activity kind this driver does not
    // support), for the view to say: one sentence each.
    std::vector<std::string> notes;

    std::uint32_t add_track(TrackKind kind, std::uint64_t id, std::string name);  // dedupes by (kind, id)
};

// ---- Analysis (pure functions) ----------------------------------------------------------

// GPU work items: kernels, memcpys, memsets and device levels (the latter replace the one
// host-launched parent CUPTI reports for a tail-launch chain; see gpu-facts.md).
bool is_gpu_work(const Event& e);

struct GpuUsage {
    std::int64_t span_ns = 0;  // first GPU item start .. last GPU item end
    std::int64_t busy_ns = 0;  // union of GPU items
    std::int64_t idle_ns = 0;  // span - busy
    double busy_fraction() const { return span_ns > 0 ? double(busy_ns) / double(span_ns) : 0.0; }
};
GpuUsage gpu_usage(const Timeline& t);

enum class GapCause : std::uint8_t {
    Unknown,
    HostSync,       // the host waited for the GPU (sync / blocking memcpy) before launching the next item
    LaunchLatency,  // the next item was launched before the previous ended: queue-to-start latency
    TailLaunch,     // between two device-launched levels of a tail chain
};
std::string_view to_string(GapCause cause);

struct Gap {
    std::int64_t start_ns = 0, end_ns = 0;
    std::size_t before = 0, after = 0;  // event indices of the GPU items around the gap
    GapCause cause = GapCause::Unknown;
    std::int64_t length_ns() const { return end_ns - start_ns; }
};
// Gaps between consecutive GPU items (merged over all streams: time when no GPU item runs),
// at least `min_gap_ns` long, with their cause when known.
std::vector<Gap> gpu_gaps(const Timeline& t, std::int64_t min_gap_ns = 0);

// For each host-launched kernel with a matching runtime API call: kernel start - API start.
std::vector<std::int64_t> launch_latencies_ns(const Timeline& t);

struct LevelCost {
    std::int32_t level = 0;
    std::int64_t start_ns = 0, end_ns = 0;  // first start .. last end of items of that level
};
// Per level (events with level >= 0: device levels, or kernels tagged with their level).
std::vector<LevelCost> level_costs(const Timeline& t);

struct Summary {
    std::size_t gpu_items = 0;
    std::size_t host_launches = 0;  // Kernel events
    std::size_t device_levels = 0;  // DeviceLevel events
    std::size_t levels = 0;         // distinct level indices
    std::size_t gaps = 0;
    double busy_percent = 0, idle_ms = 0, span_ms = 0;
    double mean_gap_us = 0, p95_gap_us = 0, max_gap_us = 0;
    double mean_level_us = 0;  // mean level cost
    double mean_launch_latency_us = 0;
    double launches_per_level = 0;
    std::uint64_t dropped_records = 0;
};
Summary summarize(const Timeline& t);
// One line, e.g. "4094 host launches, 4094 levels, mean gap 10.8 us (p95 12.1), 44.1 ms idle, GPU busy 18%".
std::string describe(const Summary& s);
// Several lines comparing two runs side by side.
std::string compare(const std::string& label_a, const Summary& a, const std::string& label_b, const Summary& b);

// ---- Clock fitting ------------------------------------------------------------------------

// host_ns ~= offset_ns + (1 + drift) * device_ns, fitted by least squares on matched pairs
// (device %globaltimer stamp, CUPTI timestamp of the same moment).
struct ClockFit {
    double offset_ns = 0;
    double drift = 0;            // e.g. 18e-6 for 18 ppm
    double max_residual_ns = 0;  // worst |fitted - observed| over the pairs
    std::size_t pairs = 0;
    std::int64_t map(std::int64_t device_ns) const;
};
// With one pair: offset only. With none: nullopt.
std::optional<ClockFit> fit_clock(const std::vector<std::pair<std::int64_t, std::int64_t>>& device_host_pairs);

// ---- Export -------------------------------------------------------------------------------

// What an exported trace says it shows (write_chrome_trace, in output/chrome_trace.hpp).
struct Provenance {
    std::string variant, map, device, build;
};
// One row per event: kind,name,track,start_ns,end_ns,duration_ns,correlation_id,level,grid,block,bytes
// (then track_kind,track_id,depth,device_launched; an AgentLoad event's name says its load).
void write_csv(const Timeline& t, std::ostream& out);
// An RFC 4180 field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);
// RFC 4180 records: quoted fields may hold commas, doubled quotes and newlines.
std::vector<std::vector<std::string>> read_csv_records(std::istream& in);
// What write_csv writes (columns found by header name) back into a Timeline: recorded traces
// (tests/data) read back for the analysis and the view. nullopt, with the reason in `error`,
// for a file that is not such a table.
std::optional<Timeline> read_csv(std::istream& in, std::string& error);

// Demangles an Itanium C++ ABI name (kernels arrive mangled from CUPTI); returns the input
// unchanged when it is not mangled. Strips CUDA's "__nv_static_NN__..." prefixes.
std::string demangle(std::string_view name);

}  // namespace ps::trace
