// Timeline statistics (see trace_stats.hpp): nsys-style summaries, range statistics, search
// and the per-level difference. Pure and deterministic: every table is sorted by a total key.
#include "instrumentation/timeline/trace_stats.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <utility>

namespace ps::trace {
namespace {

bool contains_ignoring_case(std::string_view text, std::string_view query) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    return std::search(text.begin(), text.end(), query.begin(), query.end(),
                       [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

// The name items are grouped under: their own, except device-stamped levels, which are named
// by their index ("level 12") and group by what they are ("level, tail-launched").
std::string group_name(const Event& e) {
    if (e.kind != EventKind::DeviceLevel) return e.name;
    std::string_view name = e.name;
    while (!name.empty() && name.back() >= '0' && name.back() <= '9') name.remove_suffix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    return std::string(name.empty() ? "level" : name) + (e.device_launched ? ", tail-launched" : ", host-launched");
}

// Items grouped by (kind, name) in first-seen order of the sorted events, then turned into rows.
struct Group {
    std::string name;
    EventKind kind;
    std::vector<std::int64_t> durations;
    std::vector<std::uint32_t> events;
    std::uint64_t bytes = 0;
};

std::vector<NameStats> rows_of(std::vector<Group> groups, double percent_base_ns) {
    std::vector<NameStats> rows;
    rows.reserve(groups.size());
    for (Group& g : groups) {
        NameStats row;
        row.name = std::move(g.name);
        row.kind = g.kind;
        row.time = duration_stats(std::move(g.durations));
        row.events = std::move(g.events);
        row.bytes = g.bytes;
        if (percent_base_ns > 0) row.percent = 100.0 * double(row.time.total_ns) / percent_base_ns;
        if (row.time.total_ns > 0) row.bandwidth_gbs = double(row.bytes) / double(row.time.total_ns);  // B/ns = GB/s
        rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(), [](const NameStats& a, const NameStats& b) {
        if (a.time.total_ns != b.time.total_ns) return a.time.total_ns > b.time.total_ns;
        if (a.name != b.name) return a.name < b.name;
        return a.kind < b.kind;
    });
    return rows;
}

class Grouper {
public:
    void add(const Event& e, std::uint32_t index, std::int64_t duration) {
        std::string name = group_name(e);
        auto [it, inserted] = m_index.try_emplace({e.kind, name}, m_groups.size());
        if (inserted) m_groups.push_back({std::move(name), e.kind, {}, {}, 0});
        Group& g = m_groups[it->second];
        g.durations.push_back(duration);
        g.events.push_back(index);
        g.bytes += e.bytes;
    }
    std::int64_t total() const {
        std::int64_t sum = 0;
        for (const Group& g : m_groups)
            for (std::int64_t d : g.durations) sum += d;
        return sum;
    }
    std::vector<NameStats> rows(double percent_base_ns) { return rows_of(std::move(m_groups), percent_base_ns); }
    std::vector<NameStats> rows() {
        const double base = double(total());
        return rows_of(std::move(m_groups), base);
    }

private:
    std::map<std::pair<EventKind, std::string>, std::size_t> m_index;
    std::vector<Group> m_groups;
};

// Event indices ordered by start (then index), so every row's `events` come by start.
std::vector<std::uint32_t> by_start(const Timeline& t) {
    std::vector<std::uint32_t> order(t.events.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return t.events[a].start_ns < t.events[b].start_ns; });
    return order;
}

bool starts_in(const Event& e, const std::optional<TimeRange>& range) {
    return !range || (e.start_ns >= range->begin_ns && e.start_ns < range->end_ns);
}

std::int64_t clipped(std::int64_t start, std::int64_t end, const TimeRange& r) {
    return std::max<std::int64_t>(0, std::min(end, r.end_ns) - std::max(start, r.begin_ns));
}

bool overlaps(const Event& e, const TimeRange& r) {
    // An instant item at the range's start counts; one at its end does not.
    return e.start_ns < r.end_ns && end_of(e) >= r.begin_ns && (end_of(e) > r.begin_ns || e.start_ns == r.begin_ns);
}

// Length of the union of [start, end) intervals.
std::int64_t union_length(std::vector<std::pair<std::int64_t, std::int64_t>> spans) {
    std::sort(spans.begin(), spans.end());
    std::int64_t total = 0, cur_begin = 0, cur_end = 0;
    bool open = false;
    for (const auto& [b, e] : spans) {
        if (e <= b) continue;
        if (!open || b > cur_end) {
            if (open) total += cur_end - cur_begin;
            cur_begin = b, cur_end = e, open = true;
        } else {
            cur_end = std::max(cur_end, e);
        }
    }
    if (open) total += cur_end - cur_begin;
    return total;
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buffer[1024];
    va_list args;
    va_start(args, fmt);
    const int n = std::vsnprintf(buffer, sizeof buffer, fmt, args);
    va_end(args);
    return std::string(buffer, std::size_t(std::clamp(n, 0, int(sizeof buffer) - 1)));
}

double us(double ns) { return ns / 1e3; }

// A table of rows as aligned text: the name last, as nsys prints it.
void append_table(std::string& out, const char* title, const std::vector<NameStats>& rows, bool memory,
                  const char* percent_label) {
    if (rows.empty()) return;
    out += format("%s\n", title);
    out += format(" %8s %12s %8s %11s %11s %11s %11s %11s", percent_label, "Total (us)", "Count", "Mean (us)",
                  "Median (us)", "Min (us)", "Max (us)", "StdDev (us)");
    if (memory) out += format(" %12s %9s", "Total (MB)", "GB/s");
    out += "  Name\n";
    for (const NameStats& r : rows) {
        const DurationStats& s = r.time;
        out +=
            format(" %8.1f %12.3f %8zu %11.3f %11.3f %11.3f %11.3f %11.3f", r.percent, us(double(s.total_ns)), s.count,
                   us(s.mean_ns), us(s.median_ns), us(double(s.min_ns)), us(double(s.max_ns)), us(s.stddev_ns));
        if (memory) out += format(" %12.3f %9.2f", double(r.bytes) / 1e6, r.bandwidth_gbs);
        out += "  " + r.name + "\n";
    }
    out += "\n";
}

void write_stats_columns(std::ostream& out, const DurationStats& s) {
    out << s.count << ',' << s.total_ns << ',' << s.mean_ns << ',' << s.median_ns << ',' << s.min_ns << ',' << s.max_ns
        << ',' << s.stddev_ns;
}

void write_rows_csv(std::ostream& out, const char* table, const std::vector<NameStats>& rows) {
    for (const NameStats& r : rows) {
        out << table << ',' << csv_field(r.name) << ',' << to_string(r.kind) << ',';
        write_stats_columns(out, r.time);
        out << ',' << r.percent << ',' << r.bytes << ',' << r.bandwidth_gbs << '\n';
    }
}

}  // namespace

std::int64_t view_origin_ns(const Timeline& t) {
    std::optional<std::int64_t> gpu, any;
    for (const Event& e : t.events) {
        any = std::min(any.value_or(e.start_ns), e.start_ns);
        if (is_gpu_work(e)) gpu = std::min(gpu.value_or(e.start_ns), e.start_ns);
    }
    return gpu.value_or(any.value_or(0));
}

std::optional<TimeRange> parse_time_range(std::string_view text, std::int64_t origin_ns, std::string& error) {
    const auto time = [&](std::string_view part) -> std::optional<std::int64_t> {
        double value = 0;
        const char* end = part.data() + part.size();
        auto [ptr, ec] = std::from_chars(part.data(), end, value);
        if (ec != std::errc() || ptr == part.data() || !std::isfinite(value)) return std::nullopt;
        const std::string_view unit(ptr, std::size_t(end - ptr));
        double scale = 0;
        if (unit.empty() || unit == "ms")
            scale = 1e6;
        else if (unit == "us")
            scale = 1e3;
        else if (unit == "ns")
            scale = 1;
        else if (unit == "s")
            scale = 1e9;
        else
            return std::nullopt;
        const double ns = std::round(value * scale);
        if (std::fabs(ns) > 9e18) return std::nullopt;
        return origin_ns + std::int64_t(ns);
    };
    // The separator is the first '-' after the first number ("-1-2" is not a range we take).
    const std::size_t dash = text.find('-', 1);
    if (text.empty() || dash == std::string_view::npos) {
        error = "a range is T0-T1, e.g. 1.5-3 or 200us-1.2ms (ms when no unit; from the first GPU item)";
        return std::nullopt;
    }
    const auto begin = time(text.substr(0, dash));
    const auto end = time(text.substr(dash + 1));
    if (!begin || !end) {
        error = "cannot read '" + std::string(text) + "' as a range: T0-T1 with units ns, us, ms or s";
        return std::nullopt;
    }
    if (*end <= *begin) {
        error = "the range '" + std::string(text) + "' ends before it starts";
        return std::nullopt;
    }
    return TimeRange{*begin, *end};
}

DurationStats duration_stats(std::vector<std::int64_t> d) {
    DurationStats s;
    s.count = d.size();
    if (d.empty()) return s;
    std::sort(d.begin(), d.end());
    s.min_ns = d.front();
    s.max_ns = d.back();
    for (std::int64_t x : d) s.total_ns += x;
    s.mean_ns = double(s.total_ns) / double(d.size());
    const std::size_t mid = d.size() / 2;
    s.median_ns = d.size() % 2 ? double(d[mid]) : (double(d[mid - 1]) + double(d[mid])) / 2.0;
    if (d.size() > 1) {
        double sq = 0;
        for (std::int64_t x : d) sq += (double(x) - s.mean_ns) * (double(x) - s.mean_ns);
        s.stddev_ns = std::sqrt(sq / double(d.size() - 1));
    }
    return s;
}

TraceSummary trace_summary(const Timeline& t, std::optional<TimeRange> range) {
    TraceSummary s;
    s.range = range;
    Grouper kernels, levels, api, memory, nvtx;
    for (std::uint32_t i : by_start(t)) {
        const Event& e = t.events[i];
        if (!starts_in(e, range)) continue;
        const std::int64_t d = end_of(e) - e.start_ns;
        switch (e.kind) {
        case EventKind::Kernel:
            kernels.add(e, i, d);
            if (is_graph_node(e)) ++s.graph_node_executions;
            break;
        case EventKind::DeviceLevel:
            levels.add(e, i, d);
            break;
        case EventKind::RuntimeApi:
            api.add(e, i, d);
            if (is_graph_launch(e)) ++s.graph_launches;
            break;
        case EventKind::Memcpy:
        case EventKind::Memset:
            memory.add(e, i, d);
            break;
        case EventKind::Nvtx:
            nvtx.add(e, i, d);
            break;
        default:
            break;
        }
    }
    s.kernels = kernels.rows();
    s.device_levels = levels.rows();
    s.api = api.rows();
    s.memory = memory.rows();
    s.nvtx = nvtx.rows();
    return s;
}

RangeStats range_stats(const Timeline& t, TimeRange range) {
    RangeStats r;
    r.range = range;
    const double length = double(range.length_ns());
    std::map<std::uint32_t, std::vector<std::int64_t>> by_track;
    Grouper names;
    std::vector<std::pair<std::int64_t, std::int64_t>> gpu;
    for (std::uint32_t i : by_start(t)) {
        const Event& e = t.events[i];
        if (!overlaps(e, range)) continue;
        const std::int64_t d = clipped(e.start_ns, end_of(e), range);
        by_track[e.track].push_back(d);
        if (e.kind != EventKind::AgentLoad) names.add(e, i, d);
        if (is_gpu_work(e)) gpu.emplace_back(std::max(e.start_ns, range.begin_ns), std::min(end_of(e), range.end_ns));
    }
    for (auto& [track, durations] : by_track) {
        RowStats row;
        row.track = track;
        row.name = track < t.tracks.size() ? t.tracks[track].name : std::string();
        row.time = duration_stats(std::move(durations));
        if (length > 0) row.percent = 100.0 * double(row.time.total_ns) / length;
        r.rows.push_back(std::move(row));
    }
    r.names = names.rows(length);
    r.gpu_busy_ns = union_length(std::move(gpu));
    if (length > 0) r.gpu_busy_percent = 100.0 * double(r.gpu_busy_ns) / length;
    std::vector<std::int64_t> gap_lengths;
    for (Gap g : gpu_gaps(t)) {
        if (g.end_ns <= range.begin_ns || g.start_ns >= range.end_ns) continue;
        g.start_ns = std::max(g.start_ns, range.begin_ns);
        g.end_ns = std::min(g.end_ns, range.end_ns);
        gap_lengths.push_back(g.length_ns());
        r.gaps.push_back(g);
    }
    r.gap_time = duration_stats(std::move(gap_lengths));
    return r;
}

std::vector<std::uint32_t> find_events(const Timeline& t, std::string_view query) {
    std::vector<std::uint32_t> out;
    if (query.empty()) return out;
    for (std::uint32_t i : by_start(t)) {
        const Event& e = t.events[i];
        switch (e.kind) {
        case EventKind::Kernel:
        case EventKind::DeviceLevel:
        case EventKind::RuntimeApi:
        case EventKind::Nvtx:
        case EventKind::Memcpy:
        case EventKind::Memset:
        case EventKind::HostPhase:
            if (contains_ignoring_case(e.name, query)) out.push_back(i);
            break;
        default:
            break;
        }
    }
    return out;
}

std::vector<LevelDiffRow> level_diff(const Timeline& a, const Timeline& b) {
    std::map<std::int32_t, LevelDiffRow> rows;
    const auto add = [&](const Timeline& t, std::optional<LevelSide> LevelDiffRow::*side) {
        const auto costs = level_costs(t);  // sorted by level
        for (std::size_t i = 0; i < costs.size(); ++i) {
            LevelSide s;
            s.time_ns = costs[i].end_ns - costs[i].start_ns;
            if (i > 0) s.gap_before_ns = costs[i].start_ns - costs[i - 1].end_ns;
            LevelDiffRow& row = rows[costs[i].level];
            row.level = costs[i].level;
            row.*side = s;
        }
    };
    add(a, &LevelDiffRow::a);
    add(b, &LevelDiffRow::b);
    std::vector<LevelDiffRow> out;
    out.reserve(rows.size());
    for (auto& [level, row] : rows) out.push_back(row);
    return out;
}

std::string format_summary(const TraceSummary& s) {
    std::string out;
    append_table(out, "CUDA GPU kernel summary (host-launched kernels):", s.kernels, false, "Time (%)");
    append_table(out, "Device-stamped levels (kernels launched on the device):", s.device_levels, false, "Time (%)");
    append_table(out, "CUDA API summary:", s.api, false, "Time (%)");
    append_table(out, "GPU memory operations:", s.memory, true, "Time (%)");
    append_table(out, "NVTX ranges:", s.nvtx, false, "Time (%)");
    if (s.graph_launches || s.graph_node_executions)
        out +=
            format("CUDA graphs: %zu graph launches, %zu node executions\n", s.graph_launches, s.graph_node_executions);
    if (out.empty()) out = "no kernels, API calls, memory operations or NVTX ranges in this trace\n";
    return out;
}

void write_summary_csv(const TraceSummary& s, std::ostream& out) {
    out << "table,name,kind,count,total_ns,mean_ns,median_ns,min_ns,max_ns,stddev_ns,percent,bytes,bandwidth_gbs\n";
    write_rows_csv(out, "kernels", s.kernels);
    write_rows_csv(out, "device_levels", s.device_levels);
    write_rows_csv(out, "api", s.api);
    write_rows_csv(out, "memory", s.memory);
    write_rows_csv(out, "nvtx", s.nvtx);
}

std::string format_range(const Timeline&, const RangeStats& r, std::int64_t origin_ns) {
    std::string out = format("Range %.3f .. %.3f ms (%.3f us)\n", double(r.range.begin_ns - origin_ns) / 1e6,
                             double(r.range.end_ns - origin_ns) / 1e6, us(double(r.range.length_ns())));
    out += format("GPU busy %.1f%% (%.3f us); %zu gaps, %.3f us in all, mean %.3f us, max %.3f us\n\n",
                  r.gpu_busy_percent, us(double(r.gpu_busy_ns)), r.gap_time.count, us(double(r.gap_time.total_ns)),
                  us(r.gap_time.mean_ns), us(double(r.gap_time.max_ns)));
    out += "Rows:\n";
    out += format(" %8s %12s %8s %11s %11s %11s %11s  Row\n", "Range (%)", "Total (us)", "Count", "Mean (us)",
                  "Median (us)", "Min (us)", "Max (us)");
    for (const RowStats& row : r.rows) {
        const DurationStats& s = row.time;
        out +=
            format(" %8.1f %12.3f %8zu %11.3f %11.3f %11.3f %11.3f  %s\n", row.percent, us(double(s.total_ns)), s.count,
                   us(s.mean_ns), us(s.median_ns), us(double(s.min_ns)), us(double(s.max_ns)), row.name.c_str());
    }
    out += "\n";
    append_table(out, "Names:", r.names, false, "Range (%)");
    return out;
}

void write_range_csv(const RangeStats& r, std::ostream& out) {
    out << "section,name,kind,count,total_ns,mean_ns,median_ns,min_ns,max_ns,stddev_ns,percent\n";
    out << "range,,," << 1 << ',' << r.range.length_ns() << ",,,,,,100\n";
    out << "gpu_busy,,," << 1 << ',' << r.gpu_busy_ns << ",,,,,," << r.gpu_busy_percent << '\n';
    out << "gaps,,,";
    write_stats_columns(out, r.gap_time);
    out << ',' << (r.range.length_ns() > 0 ? 100.0 * double(r.gap_time.total_ns) / double(r.range.length_ns()) : 0.0)
        << '\n';
    for (const RowStats& row : r.rows) {
        out << "row," << csv_field(row.name) << ",,";
        write_stats_columns(out, row.time);
        out << ',' << row.percent << '\n';
    }
    for (const NameStats& n : r.names) {
        out << "name," << csv_field(n.name) << ',' << to_string(n.kind) << ',';
        write_stats_columns(out, n.time);
        out << ',' << n.percent << '\n';
    }
}

void write_level_diff_csv(const std::vector<LevelDiffRow>& rows, std::ostream& out) {
    out << "level,a_time_ns,a_gap_before_ns,b_time_ns,b_gap_before_ns,diff_ns,a_edges,a_mteps,b_edges,b_mteps\n";
    const auto side = [&](const std::optional<LevelSide>& s) {
        if (s) out << s->time_ns;
        out << ',';
        if (s && s->gap_before_ns) out << *s->gap_before_ns;
    };
    const auto rate = [&](const std::optional<LevelSide>& s) {
        out << ',';
        if (s && s->edges) out << *s->edges;
        out << ',';
        if (s && s->mteps) out << *s->mteps;
    };
    for (const LevelDiffRow& row : rows) {
        out << row.level << ',';
        side(row.a);
        out << ',';
        side(row.b);
        out << ',';
        if (row.a && row.b) out << row.b->time_ns - row.a->time_ns;
        rate(row.a);
        rate(row.b);
        out << '\n';
    }
}

}  // namespace ps::trace
