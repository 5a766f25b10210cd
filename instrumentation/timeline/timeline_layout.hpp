// What the timeline view draws, computed without Qt: the time <-> pixel mapping (TimeAxis),
// the rows a Timeline is laid out in (host threads, NVTX nesting, streams, device levels, ...),
// merging of items closer than a pixel into draw spans (so 100,000 events draw as at most about
// one span per pixel column and row), level buckets with a sentence for lecture mode, gap spans
// with their labels, and hit testing. The Qt plottable (ui/timeline/timeline_plottable.hpp) only paints
// what these functions return.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "instrumentation/timeline/timeline.hpp"

namespace ps::trace {

// ---- Time <-> pixel -----------------------------------------------------------------------

// The visible time range (ns relative to a layout's origin; double, as relative times of a run
// fit exactly) mapped onto [0, width_px). A value type: every operation returns a new axis.
struct TimeAxis {
    double begin_ns = 0;
    double end_ns = 1;
    double width_px = 1;

    double span_ns() const { return end_ns - begin_ns; }
    double ns_per_px() const;
    double to_px(double ns) const;
    double to_ns(double px) const;
    // factor > 1 zooms in, < 1 out; the time under `anchor_px` stays under it.
    TimeAxis zoomed(double factor, double anchor_px) const;
    // The content follows a drag of `dx_px` (> 0: to the right, so earlier times come into view).
    TimeAxis panned(double dx_px) const;
    // Shifted (and, when wider, shrunk) into [lo, hi], and at least `min_span_ns` wide.
    TimeAxis clamped(double lo, double hi, double min_span_ns = 1.0) const;

    friend bool operator==(const TimeAxis&, const TimeAxis&) = default;
};

// The visible ranges to go back to (Backspace in the timeline), newest last, at most `limit`
// of them: pushing past the limit forgets the oldest. A value type, apart from the widget.
class ZoomStack {
public:
    struct Range {
        double begin_ns = 0, end_ns = 0;
        friend bool operator==(const Range&, const Range&) = default;
    };
    explicit ZoomStack(std::size_t limit = 100) : m_limit(limit) {}
    void push(Range r);
    std::optional<Range> pop();  // the newest, or nullopt when empty
    void clear() { m_ranges.clear(); }
    std::size_t depth() const { return m_ranges.size(); }

private:
    std::size_t m_limit;
    std::vector<Range> m_ranges;
};

// ---- Rows of items and draw spans ---------------------------------------------------------

// The items of one row sorted by start, with the running maximum of their ends: the first item
// that can overlap a time is then found by binary search even where items overlap (nested or
// concurrent ones).
struct RowItems {
    std::vector<std::int64_t> start_ns, end_ns;  // relative to the layout's origin
    std::vector<std::int64_t> max_end_ns;        // max(end_ns[0..i])
    std::vector<std::uint32_t> id;               // event index (gap index on the gap row)

    std::size_t size() const { return start_ns.size(); }
    bool empty() const { return start_ns.empty(); }
    // Positions [first, last) of the items that may overlap [t0, t1].
    std::pair<std::size_t, std::size_t> overlapping(double t0, double t1) const;
};

struct RowItem {
    std::int64_t start_ns = 0, end_ns = 0;
    std::uint32_t id = 0;
};
// Sorts by start (then end, then id) and builds the running maximum; an end before its start
// counts as an instant.
RowItems make_row_items(std::vector<RowItem> items);

// One rectangle to draw: consecutive items less than `min_gap_px` apart merged into one.
struct DrawSpan {
    double x0 = 0, x1 = 0;      // pixels from the axis' left edge, clipped to [-1, width + 1]
    std::uint32_t first = 0;    // row position of the first item merged in
    std::uint32_t count = 0;    // items merged
    std::uint32_t longest = 0;  // row position of the longest item: its colour stands for the span
};
// Only items overlapping the visible range are visited. Consecutive spans start at least
// `min_gap_px` apart within [-1, width_px + 1], so a row never yields more than
// (width_px + 2) / min_gap_px + 1 spans, however many items it holds.
std::vector<DrawSpan> merge_spans(const RowItems& row, const TimeAxis& axis, double min_gap_px = 1.0);

// The item under time `t_ns` (relative), within `tolerance_ns` either side: the shortest item
// containing t, else the nearest one. Row position, or nullopt.
std::optional<std::size_t> pick_item(const RowItems& row, double t_ns, double tolerance_ns);

// ---- Levels -------------------------------------------------------------------------------

// Who started a level: the CPU (a host loop's kernel, or the first level of a tail chain), the
// GPU (a tail launch by the previous level's last block), or unknown (CPU-only runs).
enum class LevelLaunch : std::uint8_t { Unknown, Host, Device };

struct LevelBucket {
    std::int32_t level = 0;
    std::int64_t start_ns = 0, end_ns = 0;  // absolute: first start .. last end of its items
    std::uint32_t items = 0;
    std::uint32_t kernels = 0;  // host-launched kernel records of that level
    LevelLaunch launch = LevelLaunch::Unknown;
    std::int64_t gap_before_ns = -1;  // previous level's end .. this start (-1: first level)
};
// One bucket per level index, sorted by level. As trace::level_costs: when GPU items carry levels
// they alone define them (a host NVTX range of a level would stretch it over launch work).
std::vector<LevelBucket> bucket_levels(const Timeline& t);
// The bucket whose level runs at `t_ns` (absolute), else the last one started before it.
std::optional<std::size_t> level_at(const std::vector<LevelBucket>& levels, std::int64_t t_ns);
// The bucket of `level`, or nullopt.
std::optional<std::size_t> find_level(const std::vector<LevelBucket>& levels, std::int32_t level);
// What happened at a level, for lecture mode, e.g. "tail launch: the last block of level 12
// launched level 13 on the GPU (level 13 took 4.1 us, started 0.9 us after level 12 ended)".
std::string describe_level(const std::vector<LevelBucket>& levels, std::size_t index, const std::string& level_name);

// The animation shows `levels` levels in `frames` frames, grouping ceil(levels / frames) levels
// per frame when there are more levels than frames (as the map's replay does): the frame that
// shows a level, and the first level a frame shows. Clamped to the valid ranges; 0 when empty.
int frame_of_level(int level, int levels, int frames);
int level_of_frame(int frame, int levels, int frames);

// ---- Gaps ---------------------------------------------------------------------------------

struct GapSpan {
    std::int64_t start_ns = 0, end_ns = 0;  // absolute
    GapCause cause = GapCause::Unknown;
    std::string label;  // its length, "12.3 us"
};
std::vector<GapSpan> gap_spans(const Timeline& t, std::int64_t min_gap_ns = 0);

// "850 ns", "12.3 us", "4.56 ms", "1.23 s".
std::string format_duration(std::int64_t ns);
// describe(summary) plus the launches per level, for the view's summary line.
std::string summary_line(const Summary& s);

// ---- Rows ---------------------------------------------------------------------------------

// In drawing order, top to bottom. AgentLoad: the overall "agents in flight" row, a heading row
// without items ("agents per SM"), then one row per lane by lane id.
enum class RowKind : std::uint8_t {
    HostThread,
    Nvtx,
    Sync,
    GpuStream,
    DeviceLevels,
    GpuGaps,
    HostPhases,
    Overhead,
    AgentLoad
};

struct Row {
    RowKind kind = RowKind::HostThread;
    std::uint32_t track = 0;  // Timeline track (none for GpuGaps)
    std::int32_t depth = 0;   // nesting sub-row of an NVTX track
    std::string label;
    RowItems items;
    double peak_load = 0;  // AgentLoad: the highest load of its group (the overall row, or all lanes)
};

inline constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();

// Nesting depth of each interval (given in any order): how many earlier-starting intervals
// still open when it starts. Ranges closed by their capture out of order still get a free row.
std::vector<std::int32_t> nesting_depths(const std::vector<std::pair<std::int64_t, std::int64_t>>& intervals);

struct TimelineLayout {
    std::int64_t origin_ns = 0;              // time 0 of the view: the first GPU item, else the first event
    bool origin_is_gpu = false;              // origin_ns is a GPU item's start (false: no GPU work)
    std::int64_t first_ns = 0, last_ns = 0;  // extent of all events, relative
    std::vector<Row> rows;
    std::vector<GapSpan> gaps;  // ids of the GpuGaps row index into this
    std::vector<LevelBucket> levels;
    std::vector<std::uint32_t> row_of_event;  // kNoIndex: not drawn
    std::vector<std::uint32_t> pos_of_event;  // position within its row
    std::vector<std::uint32_t> partner;       // the correlated event (API call <-> GPU item), or kNoIndex

    double relative(std::int64_t absolute_ns) const { return double(absolute_ns - origin_ns); }
};
// Rows (tracks without events are left out), gaps of at least `min_gap_ns`, levels and
// correlation partners of a timeline.
TimelineLayout layout_timeline(const Timeline& t, std::int64_t min_gap_ns = 0);

}  // namespace ps::trace
