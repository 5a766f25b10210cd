// The timeline view's pure half (see timeline_layout.hpp): time <-> pixel mapping, rows, span
// merging, hit testing, level buckets and captions, gap labels.
#include "instrumentation/timeline/timeline_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

#include "instrumentation/timeline/agent_load.hpp"

namespace ps::trace {
namespace {

std::string format(const char* pattern, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, pattern, value);
    return buf;
}

}  // namespace

// ---- TimeAxis ------------------------------------------------------------------------------

double TimeAxis::ns_per_px() const { return span_ns() / std::max(width_px, 1.0); }

double TimeAxis::to_px(double ns) const { return (ns - begin_ns) / ns_per_px(); }

double TimeAxis::to_ns(double px) const { return begin_ns + px * ns_per_px(); }

TimeAxis TimeAxis::zoomed(double factor, double anchor_px) const {
    if (!(factor > 0)) return *this;
    const double anchor_ns = to_ns(anchor_px);
    TimeAxis out = *this;
    const double span = span_ns() / factor;
    out.begin_ns = anchor_ns - anchor_px * span / std::max(width_px, 1.0);
    out.end_ns = out.begin_ns + span;
    return out;
}

TimeAxis TimeAxis::panned(double dx_px) const {
    TimeAxis out = *this;
    const double shift = dx_px * ns_per_px();
    out.begin_ns -= shift;
    out.end_ns -= shift;
    return out;
}

void ZoomStack::push(Range r) {
    if (m_limit == 0) return;
    if (m_ranges.size() == m_limit) m_ranges.erase(m_ranges.begin());
    m_ranges.push_back(r);
}

std::optional<ZoomStack::Range> ZoomStack::pop() {
    if (m_ranges.empty()) return std::nullopt;
    const Range r = m_ranges.back();
    m_ranges.pop_back();
    return r;
}

TimeAxis TimeAxis::clamped(double lo, double hi, double min_span_ns) const {
    TimeAxis out = *this;
    if (hi < lo) std::swap(lo, hi);
    const double room = hi - lo;
    const double span = std::clamp(span_ns(), min_span_ns, std::max(room, min_span_ns));
    if (span != span_ns()) {
        // Resize about the centre: the user's point of interest stays in view.
        const double centre = 0.5 * (begin_ns + end_ns);
        out.begin_ns = centre - 0.5 * span;
        out.end_ns = centre + 0.5 * span;
    }
    if (span >= room) {  // more than everything: centre it
        out.begin_ns = 0.5 * (lo + hi) - 0.5 * span;
        out.end_ns = out.begin_ns + span;
    } else if (out.begin_ns < lo) {
        out.begin_ns = lo;
        out.end_ns = lo + span;
    } else if (out.end_ns > hi) {
        out.end_ns = hi;
        out.begin_ns = hi - span;
    }
    return out;
}

// ---- Rows and spans ------------------------------------------------------------------------

std::pair<std::size_t, std::size_t> RowItems::overlapping(double t0, double t1) const {
    // max_end_ns is non-decreasing: every item before `first` ends before t0.
    const auto first = std::lower_bound(max_end_ns.begin(), max_end_ns.end(), t0,
                                        [](std::int64_t end, double t) { return double(end) < t; });
    const auto last = std::upper_bound(start_ns.begin(), start_ns.end(), t1,
                                       [](double t, std::int64_t start) { return t < double(start); });
    const std::size_t a = std::size_t(first - max_end_ns.begin());
    const std::size_t b = std::size_t(last - start_ns.begin());
    return {a, std::max(a, b)};
}

RowItems make_row_items(std::vector<RowItem> items) {
    for (RowItem& item : items) item.end_ns = std::max(item.start_ns, item.end_ns);
    std::sort(items.begin(), items.end(), [](const RowItem& a, const RowItem& b) {
        return std::tie(a.start_ns, a.end_ns, a.id) < std::tie(b.start_ns, b.end_ns, b.id);
    });
    RowItems row;
    row.start_ns.reserve(items.size());
    row.end_ns.reserve(items.size());
    row.max_end_ns.reserve(items.size());
    row.id.reserve(items.size());
    std::int64_t running = std::numeric_limits<std::int64_t>::min();
    for (const RowItem& item : items) {
        running = std::max(running, item.end_ns);
        row.start_ns.push_back(item.start_ns);
        row.end_ns.push_back(item.end_ns);
        row.max_end_ns.push_back(running);
        row.id.push_back(item.id);
    }
    return row;
}

std::vector<DrawSpan> merge_spans(const RowItems& row, const TimeAxis& axis, double min_gap_px) {
    std::vector<DrawSpan> spans;
    const auto [first, last] = row.overlapping(axis.begin_ns, axis.end_ns);
    // Clipping keeps vector exports free of rectangles millions of pixels wide.
    const double lo = -1.0, hi = axis.width_px + 1.0;
    for (std::size_t i = first; i < last; ++i) {
        if (double(row.end_ns[i]) < axis.begin_ns) continue;  // inside the range only through an earlier long item
        const double x0 = std::clamp(axis.to_px(double(row.start_ns[i])), lo, hi);
        const double x1 = std::clamp(axis.to_px(double(row.end_ns[i])), lo, hi);
        if (!spans.empty() && x0 < spans.back().x1 + min_gap_px) {
            DrawSpan& s = spans.back();
            s.x1 = std::max(s.x1, x1);
            ++s.count;
            if (row.end_ns[i] - row.start_ns[i] > row.end_ns[s.longest] - row.start_ns[s.longest])
                s.longest = std::uint32_t(i);
            continue;
        }
        spans.push_back({x0, x1, std::uint32_t(i), 1, std::uint32_t(i)});
    }
    return spans;
}

std::optional<std::size_t> pick_item(const RowItems& row, double t_ns, double tolerance_ns) {
    const auto [first, last] = row.overlapping(t_ns - tolerance_ns, t_ns + tolerance_ns);
    std::optional<std::size_t> best;
    bool best_contains = false;
    double best_score = 0;  // duration when containing, else distance
    for (std::size_t i = first; i < last; ++i) {
        const double start = double(row.start_ns[i]), end = double(row.end_ns[i]);
        if (end < t_ns - tolerance_ns) continue;
        const bool contains = start <= t_ns && t_ns <= end;
        // Containing beats near; among containing ones the shortest (the innermost of nested
        // ranges), among near ones the nearest.
        const double score = contains ? end - start : std::min(std::fabs(start - t_ns), std::fabs(end - t_ns));
        if (!best || (contains && !best_contains) || (contains == best_contains && score < best_score)) {
            best = i;
            best_contains = contains;
            best_score = score;
        }
    }
    return best;
}

// ---- Levels --------------------------------------------------------------------------------

std::vector<LevelBucket> bucket_levels(const Timeline& t) {
    const bool gpu_levels =
        std::any_of(t.events.begin(), t.events.end(), [](const Event& e) { return e.level >= 0 && is_gpu_work(e); });
    std::map<std::int32_t, LevelBucket> by_level;
    for (const Event& e : t.events) {
        if (e.level < 0 || (gpu_levels && !is_gpu_work(e))) continue;
        auto [it, inserted] = by_level.try_emplace(e.level);
        LevelBucket& b = it->second;
        if (inserted) {
            b.level = e.level;
            b.start_ns = e.start_ns;
            b.end_ns = end_of(e);
        }
        b.start_ns = std::min(b.start_ns, e.start_ns);
        b.end_ns = std::max(b.end_ns, end_of(e));
        ++b.items;
        if (e.kind == EventKind::Kernel) ++b.kernels;
        if (e.kind == EventKind::DeviceLevel && e.device_launched) b.launch = LevelLaunch::Device;
        // A stamped level not launched on the device came from a host-launched kernel (a host
        // loop's kernel, or the first level of a tail chain).
        const bool host = e.kind == EventKind::Kernel || (e.kind == EventKind::DeviceLevel && !e.device_launched);
        if (host && b.launch == LevelLaunch::Unknown) b.launch = LevelLaunch::Host;
    }
    std::vector<LevelBucket> out;
    out.reserve(by_level.size());
    for (auto& [level, bucket] : by_level) {
        if (!out.empty()) bucket.gap_before_ns = bucket.start_ns - out.back().end_ns;
        out.push_back(bucket);
    }
    return out;
}

std::optional<std::size_t> level_at(const std::vector<LevelBucket>& levels, std::int64_t t_ns) {
    std::optional<std::size_t> running, before;
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const LevelBucket& b = levels[i];
        if (b.start_ns > t_ns) continue;
        if (t_ns <= b.end_ns && (!running || b.start_ns >= levels[*running].start_ns)) running = i;
        if (!before || b.start_ns >= levels[*before].start_ns) before = i;
    }
    return running ? running : before;
}

std::optional<std::size_t> find_level(const std::vector<LevelBucket>& levels, std::int32_t level) {
    const auto it = std::lower_bound(levels.begin(), levels.end(), level,
                                     [](const LevelBucket& b, std::int32_t l) { return b.level < l; });
    if (it == levels.end() || it->level != level) return std::nullopt;
    return std::size_t(it - levels.begin());
}

std::string describe_level(const std::vector<LevelBucket>& levels, std::size_t index, const std::string& level_name) {
    if (index >= levels.size()) return {};
    const LevelBucket& b = levels[index];
    const std::string self = level_name + ' ' + std::to_string(b.level);
    const std::string prev = index > 0 ? level_name + ' ' + std::to_string(levels[index - 1].level) : std::string();
    std::string text;
    if (b.launch == LevelLaunch::Device && index > 0)
        text = "tail launch: the last block of " + prev + " launched " + self + " on the GPU";
    else if (b.launch != LevelLaunch::Unknown && index > 0)
        text = "host loop: the CPU waits for " + prev + " to finish, then launches " + self;
    else if (b.launch != LevelLaunch::Unknown)
        text = "the CPU launches " + self + ", the first";
    else
        text = self;
    text += " (" + self + " took " + format_duration(b.end_ns - b.start_ns);
    if (b.gap_before_ns > 0) text += ", started " + format_duration(b.gap_before_ns) + " after " + prev + " ended";
    return text + ")";
}

namespace {

int levels_per_frame(int levels, int frames) {
    return frames > 0 && levels > frames ? (levels + frames - 1) / frames : 1;
}

}  // namespace

int frame_of_level(int level, int levels, int frames) {
    if (levels <= 0 || frames <= 0) return 0;
    return std::clamp(std::clamp(level, 0, levels - 1) / levels_per_frame(levels, frames), 0, frames - 1);
}

int level_of_frame(int frame, int levels, int frames) {
    if (levels <= 0 || frames <= 0) return 0;
    return std::clamp(std::clamp(frame, 0, frames - 1) * levels_per_frame(levels, frames), 0, levels - 1);
}

// ---- Gaps and text ---------------------------------------------------------------------------

std::vector<GapSpan> gap_spans(const Timeline& t, std::int64_t min_gap_ns) {
    std::vector<GapSpan> out;
    for (const Gap& g : gpu_gaps(t, min_gap_ns))
        out.push_back({g.start_ns, g.end_ns, g.cause, format_duration(g.length_ns())});
    return out;
}

std::string format_duration(std::int64_t ns) {
    if (ns < 0) return "-" + format_duration(-ns);
    // Thresholds at the rounding points: 999,960 ns reads "1.00 ms", not "1000.0 us".
    if (ns < 1000) return std::to_string(ns) + " ns";
    if (ns < 999'950) return format("%.1f us", double(ns) / 1e3);
    if (ns < 999'995'000) return format("%.2f ms", double(ns) / 1e6);
    return format("%.2f s", double(ns) / 1e9);
}

std::string summary_line(const Summary& s) {
    std::string line = describe(s);
    if (s.levels == 0 || s.host_launches == 0) return line;
    if (s.host_launches >= s.levels) return line + format(", %.2f host launches per level", s.launches_per_level);
    // A tail chain: one host launch for many levels reads better the other way round.
    return line + ", 1 host launch per " + format("%.0f", double(s.levels) / double(s.host_launches)) + " levels";
}

// ---- Layout --------------------------------------------------------------------------------

std::vector<std::int32_t> nesting_depths(const std::vector<std::pair<std::int64_t, std::int64_t>>& intervals) {
    std::vector<std::size_t> order(intervals.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    // Enclosing ranges first: by start, the longer one first at equal starts.
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (intervals[a].first != intervals[b].first) return intervals[a].first < intervals[b].first;
        return intervals[a].second > intervals[b].second;
    });
    std::vector<std::int32_t> depth(intervals.size(), 0);
    std::vector<std::int64_t> row_end;  // per sub-row: the end of its last interval
    for (std::size_t i : order) {
        const auto [start, end] = intervals[i];
        // The lowest sub-row free at `start`: for properly nested ranges this is the nesting depth.
        std::size_t row = 0;
        while (row < row_end.size() && row_end[row] > start) ++row;
        if (row == row_end.size()) row_end.push_back(0);
        row_end[row] = std::max(start, end);
        depth[i] = std::int32_t(row);
    }
    return depth;
}

namespace {

RowKind row_kind_of(const Track& track, const Event& first_event) {
    switch (track.kind) {
    case TrackKind::HostThread:
        return RowKind::HostThread;
    case TrackKind::GpuStream:
        return RowKind::GpuStream;
    case TrackKind::Nvtx:
        return RowKind::Nvtx;
    case TrackKind::DeviceLevels:
        return RowKind::DeviceLevels;
    case TrackKind::AgentLanes:
        return RowKind::AgentLoad;
    case TrackKind::Host:
        break;
    }
    // Host tracks hold synchronisation, run phases or CUPTI's overhead: their events say which.
    switch (first_event.kind) {
    case EventKind::Sync:
        return RowKind::Sync;
    case EventKind::Overhead:
        return RowKind::Overhead;
    case EventKind::RuntimeApi:
        return RowKind::HostThread;
    default:
        return RowKind::HostPhases;
    }
}

// The first GPU item's start, else the first event's (second: whether it is a GPU item).
std::pair<std::int64_t, bool> origin_of(const Timeline& t) {
    std::optional<std::int64_t> gpu, any;
    for (const Event& e : t.events) {
        any = std::min(any.value_or(e.start_ns), e.start_ns);
        if (is_gpu_work(e)) gpu = std::min(gpu.value_or(e.start_ns), e.start_ns);
    }
    return {gpu.value_or(any.value_or(0)), gpu.has_value()};
}

void link_partners(const Timeline& t, std::vector<std::uint32_t>& partner) {
    // correlation id -> the earliest API call, and the earliest GPU item, carrying it.
    std::unordered_map<std::uint64_t, std::uint32_t> api, gpu;
    auto keep_earliest = [&t](auto& index, std::uint64_t id, std::uint32_t i) {
        auto [it, inserted] = index.emplace(id, i);
        if (!inserted && t.events[i].start_ns < t.events[it->second].start_ns) it->second = i;
    };
    for (std::uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (e.correlation_id == 0) continue;
        if (e.kind == EventKind::RuntimeApi)
            keep_earliest(api, e.correlation_id, i);
        else if (is_gpu_work(e))
            keep_earliest(gpu, e.correlation_id, i);
    }
    for (std::uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (e.correlation_id == 0) continue;
        const auto& other = e.kind == EventKind::RuntimeApi ? gpu : api;
        if (e.kind != EventKind::RuntimeApi && !is_gpu_work(e)) continue;
        if (auto it = other.find(e.correlation_id); it != other.end()) partner[i] = it->second;
    }
}

// "agents per SM": the heading row between the overall "agents in flight" row and the lanes
// ("SM 17"), without items.
Row agent_heading(const Timeline& t, std::uint32_t first_lane_track) {
    const std::string& name = t.tracks[first_lane_track].name;
    Row heading;
    heading.kind = RowKind::AgentLoad;
    heading.track = first_lane_track;
    heading.label = "agents per " + name.substr(0, name.rfind(' '));
    return heading;
}

// Every AgentLoad row's colour scale: the overall row's own peak, the lanes' common one.
void set_peak_loads(const Timeline& t, std::vector<Row>& rows) {
    double lane_peak = 0;
    for (Row& r : rows) {
        if (r.kind != RowKind::AgentLoad) continue;
        for (std::uint32_t id : r.items.id) r.peak_load = std::max(r.peak_load, t.events[id].load);
        if (t.tracks[r.track].id != kAllLanes) lane_peak = std::max(lane_peak, r.peak_load);
    }
    for (Row& r : rows)
        if (r.kind == RowKind::AgentLoad && t.tracks[r.track].id != kAllLanes) r.peak_load = lane_peak;
}

}  // namespace

TimelineLayout layout_timeline(const Timeline& t, std::int64_t min_gap_ns) {
    TimelineLayout layout;
    std::tie(layout.origin_ns, layout.origin_is_gpu) = origin_of(t);
    const std::size_t n = t.events.size();
    layout.row_of_event.assign(n, kNoIndex);
    layout.pos_of_event.assign(n, kNoIndex);
    layout.partner.assign(n, kNoIndex);

    std::vector<std::vector<std::uint32_t>> by_track(t.tracks.size());
    for (std::uint32_t i = 0; i < n; ++i)
        if (t.events[i].track < t.tracks.size()) by_track[t.events[i].track].push_back(i);

    // (track, depth) rows with their items, before ordering.
    struct Pending {
        RowKind kind;
        std::uint32_t track;
        std::int32_t depth;
        std::vector<RowItem> items;
    };
    std::vector<Pending> pending;
    auto relative = [&](const Event& e) {
        return RowItem{e.start_ns - layout.origin_ns, end_of(e) - layout.origin_ns, 0};
    };
    for (std::uint32_t track = 0; track < by_track.size(); ++track) {
        const auto& events = by_track[track];
        if (events.empty()) continue;
        const RowKind kind = row_kind_of(t.tracks[track], t.events[events.front()]);
        std::vector<std::int32_t> depths(events.size(), 0);
        if (kind == RowKind::Nvtx) {
            std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
            intervals.reserve(events.size());
            for (std::uint32_t i : events) intervals.emplace_back(t.events[i].start_ns, end_of(t.events[i]));
            depths = nesting_depths(intervals);
        }
        const std::int32_t deepest = *std::max_element(depths.begin(), depths.end());
        const std::size_t base = pending.size();
        for (std::int32_t d = 0; d <= deepest; ++d) pending.push_back({kind, track, d, {}});
        for (std::size_t k = 0; k < events.size(); ++k) {
            RowItem item = relative(t.events[events[k]]);
            item.id = events[k];
            pending[base + std::size_t(depths[k])].items.push_back(item);
        }
    }
    std::stable_sort(pending.begin(), pending.end(), [&](const Pending& a, const Pending& b) {
        // Streams by their id (CUDA's numbering), lanes by theirs with the overall one (kAllLanes,
        // wrapping to 0) first, everything else in capture order.
        auto key = [&](const Pending& p) -> std::uint64_t {
            if (p.kind == RowKind::GpuStream) return t.tracks[p.track].id;
            if (p.kind == RowKind::AgentLoad) return t.tracks[p.track].id + 1;
            return p.track;
        };
        const std::uint64_t ida = key(a), idb = key(b);
        return std::tie(a.kind, ida, a.depth) < std::tie(b.kind, idb, b.depth);
    });

    layout.gaps = gap_spans(t, min_gap_ns);
    bool gaps_placed = false;
    auto place_gaps = [&] {
        gaps_placed = true;
        if (layout.gaps.empty()) return;
        std::vector<RowItem> items;
        items.reserve(layout.gaps.size());
        for (std::uint32_t g = 0; g < layout.gaps.size(); ++g)
            items.push_back({layout.gaps[g].start_ns - layout.origin_ns, layout.gaps[g].end_ns - layout.origin_ns, g});
        layout.rows.push_back({RowKind::GpuGaps, 0, 0, "GPU idle", make_row_items(std::move(items))});
    };
    bool heading_placed = false;
    for (Pending& p : pending) {
        if (!gaps_placed && p.kind > RowKind::GpuGaps) place_gaps();
        if (!heading_placed && p.kind == RowKind::AgentLoad && t.tracks[p.track].id != kAllLanes) {
            heading_placed = true;
            layout.rows.push_back(agent_heading(t, p.track));
        }
        Row row;
        row.kind = p.kind;
        row.track = p.track;
        row.depth = p.depth;
        row.label = t.tracks[p.track].name;
        if (p.depth > 0) row.label += " depth " + std::to_string(p.depth);
        row.items = make_row_items(std::move(p.items));
        const auto index = std::uint32_t(layout.rows.size());
        for (std::uint32_t pos = 0; pos < row.items.size(); ++pos) {
            layout.row_of_event[row.items.id[pos]] = index;
            layout.pos_of_event[row.items.id[pos]] = pos;
        }
        layout.rows.push_back(std::move(row));
    }
    if (!gaps_placed) place_gaps();
    set_peak_loads(t, layout.rows);

    if (n > 0) {
        std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
        for (const Event& e : t.events) {
            first = std::min(first, e.start_ns);
            last = std::max(last, end_of(e));
        }
        layout.first_ns = first - layout.origin_ns;
        layout.last_ns = last - layout.origin_ns;
    }
    layout.levels = bucket_levels(t);
    link_partners(t, layout.partner);
    return layout;
}

}  // namespace ps::trace
