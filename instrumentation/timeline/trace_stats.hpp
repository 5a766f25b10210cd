// Statistics of a timeline for GPU engineers, as Nsight Systems' `nsys stats` and Perfetto's
// area selection give them: a summary per kernel name, CUDA API call and memory operation
// (count, total, mean, median, min, max, standard deviation, share), statistics of a selected
// time range per row and per name with the GPU's busy share and the gaps in it, search by
// name, and the per-level difference of two runs. Pure functions over a Timeline: the window,
// `pathscope-cli trace stats` and the tests on recorded traces (tests/data) share them.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "instrumentation/timeline/timeline.hpp"

namespace ps::trace {

// [begin_ns, end_ns) on the timeline's own clock (absolute CUPTI nanoseconds).
struct TimeRange {
    std::int64_t begin_ns = 0, end_ns = 0;
    std::int64_t length_ns() const { return end_ns > begin_ns ? end_ns - begin_ns : 0; }
};

// Time 0 of a run as the timeline view shows it: its first GPU item's start, else its first
// event's (the view's axis and the CLI's --range are relative to it).
std::int64_t view_origin_ns(const Timeline& t);

// "T0-T1" relative to `origin_ns`, each a number with an optional unit (ns, us, ms, s; ms when
// absent), e.g. "1.5-3", "200us-1.2ms". nullopt, with the reason in `error`, otherwise.
std::optional<TimeRange> parse_time_range(std::string_view text, std::int64_t origin_ns, std::string& error);

// Durations of a set of items, ns. The standard deviation is the sample one (n - 1), as
// nsys reports it; 0 for fewer than two items. The median of an even count is the mean of
// the two middle values.
struct DurationStats {
    std::size_t count = 0;
    std::int64_t total_ns = 0, min_ns = 0, max_ns = 0;
    double mean_ns = 0, median_ns = 0, stddev_ns = 0;
};
DurationStats duration_stats(std::vector<std::int64_t> durations_ns);

// One row of a summary table: every item of one name (memory operations: of one kind, e.g.
// "memcpy HtoD"; device levels: of one launch kind, see trace_summary).
struct NameStats {
    std::string name;
    EventKind kind = EventKind::Kernel;
    DurationStats time;
    double percent = 0;                 // of the table's total time
    std::uint64_t bytes = 0;            // memory operations: bytes moved in all
    double bandwidth_gbs = 0;           // memory operations: bytes / total time, GB/s (1e9 bytes)
    std::vector<std::uint32_t> events;  // the items, by start: the window highlights them
};

// The tables of `nsys stats` for one run, or for the items that start in `range`.
// - kernels: host-launched kernels (CUPTI records), percent of their summed time;
// - device_levels: device-stamped levels (tail-launched chains CUPTI sees as one parent),
//   grouped without their index: "level, tail-launched" and "level, host-launched";
// - api: CUDA runtime API calls, percent of their summed time;
// - memory: memcpy by direction and memset, with bytes and bandwidth;
// - nvtx: NVTX ranges.
// Rows are sorted by total time, largest first (ties by name). Graph launches (runtime calls
// named cudaGraphLaunch*) and graph node executions (kernels that carry a graph node id) are
// counted apart, since one launch runs many nodes.
struct TraceSummary {
    std::optional<TimeRange> range;
    std::vector<NameStats> kernels, device_levels, api, memory, nvtx;
    std::size_t graph_launches = 0, graph_node_executions = 0;
};
TraceSummary trace_summary(const Timeline& t, std::optional<TimeRange> range = std::nullopt);

// A selected time range, as Perfetto's area selection: every item that overlaps it counts,
// with the part of its duration inside the range (so shares of the range stay <= 100% per row).
struct RowStats {
    std::uint32_t track = 0;  // index into Timeline::tracks
    std::string name;         // the track's name
    DurationStats time;       // clipped durations
    double percent = 0;       // of the range's length (a row's items may overlap: NVTX nesting)
};
struct RangeStats {
    TimeRange range;
    std::vector<RowStats> rows;    // tracks with items in the range, in track order
    std::vector<NameStats> names;  // per (kind, name), clipped, percent of the range; by total time
    std::int64_t gpu_busy_ns = 0;  // union of GPU items (is_gpu_work) inside the range
    double gpu_busy_percent = 0;   // of the range
    std::vector<Gap> gaps;         // GPU gaps (gpu_gaps) clipped to the range
    DurationStats gap_time;        // of the clipped gaps
};
RangeStats range_stats(const Timeline& t, TimeRange range);

// Items whose name contains `query`, ignoring case (kernels, device levels, API calls, NVTX
// ranges, memory operations, host phases), by start time. An empty query finds nothing.
std::vector<std::uint32_t> find_events(const Timeline& t, std::string_view query);

// The per-level difference of two runs of one map: for each level either run has, its time
// (first start .. last end of the level's items, level_costs) and the gap before it (its start
// minus the previous level's end; none for a run's first level). A BFS run's edges visited in
// the level and its rate (MTEPS) come from the run's edge count (ps::level_diff_with_rates in
// kernels/run/edges_visited.hpp), where it is known.
struct LevelSide {
    std::int64_t time_ns = 0;
    std::optional<std::int64_t> gap_before_ns;
    std::optional<std::uint64_t> edges;
    std::optional<double> mteps;
};
struct LevelDiffRow {
    std::int32_t level = 0;
    std::optional<LevelSide> a, b;
};
std::vector<LevelDiffRow> level_diff(const Timeline& a, const Timeline& b);

// ---- Text and CSV ------------------------------------------------------------------------

// The tables as aligned text (times in us, as nsys prints ns; shares in %), one block per
// non-empty table, with the graph counts when there are graph launches.
std::string format_summary(const TraceSummary& s);
// One CSV with a `table` column (kernels, device_levels, api, memory, nvtx) and the stats,
// times in ns.
void write_summary_csv(const TraceSummary& s, std::ostream& out);
// The range (relative to `origin_ns`), GPU busy share, gaps, then rows and names.
std::string format_range(const Timeline& t, const RangeStats& r, std::int64_t origin_ns);
void write_range_csv(const RangeStats& r, std::ostream& out);
// level,a_time_ns,a_gap_before_ns,b_time_ns,b_gap_before_ns,diff_ns (b - a),a_edges,a_mteps,
// b_edges,b_mteps; empty cells where a run lacks the level or its edges were not counted.
void write_level_diff_csv(const std::vector<LevelDiffRow>& rows, std::ostream& out);

}  // namespace ps::trace
