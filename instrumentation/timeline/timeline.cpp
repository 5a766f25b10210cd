// The timeline model's pure half (see timeline.hpp): gap and level analysis, summaries, the
// device-to-CUPTI clock fit, CSV export and kernel name demangling (the Chrome trace export is
// output/chrome_trace.cpp). No CUDA, no CUPTI: it runs in CPU CI on hand-built and recorded
// timelines.
#include "instrumentation/timeline/timeline.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <map>
#include <memory>
#include <numeric>
#include <unordered_map>

namespace ps::trace {
namespace {

// Event indices ordered by start, then end, then index: analysis and export are deterministic
// whatever order capture appended the events in.
template <class Pred>
std::vector<std::size_t> sorted_indices(const Timeline& t, Pred keep) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < t.events.size(); ++i)
        if (keep(t.events[i])) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const Event& ea = t.events[a];
        const Event& eb = t.events[b];
        if (ea.start_ns != eb.start_ns) return ea.start_ns < eb.start_ns;
        if (end_of(ea) != end_of(eb)) return end_of(ea) < end_of(eb);
        return a < b;
    });
    return order;
}

// CUPTI records of work the host launched (as opposed to device-stamped levels).
bool is_cupti_gpu_work(const Event& e) {
    return e.kind == EventKind::Kernel || e.kind == EventKind::Memcpy || e.kind == EventKind::Memset;
}

constexpr std::size_t kNone = std::size_t(-1);

// A maximal stretch of time in which at least one GPU item runs, with the item that opened it,
// the item that closed it (they name the neighbours of a gap) and its first CUPTI record.
struct BusyInterval {
    std::int64_t start_ns, end_ns;
    std::size_t first, last;
    std::size_t first_cupti;  // kNone when only device levels ran
};

std::vector<BusyInterval> busy_intervals(const Timeline& t) {
    std::vector<BusyInterval> out;
    for (std::size_t i : sorted_indices(t, is_gpu_work)) {
        const Event& e = t.events[i];
        const std::size_t cupti = is_cupti_gpu_work(e) ? i : kNone;
        if (out.empty() || e.start_ns > out.back().end_ns) {
            out.push_back({e.start_ns, end_of(e), i, i, cupti});
            continue;
        }
        BusyInterval& b = out.back();
        if (end_of(e) >= b.end_ns) {
            b.end_ns = end_of(e);
            b.last = i;
        }
        if (b.first_cupti == kNone) b.first_cupti = cupti;
    }
    return out;
}

// correlation id -> the runtime API call that launched the item (the earliest, should a
// capture ever report one id twice).
using ApiIndex = std::unordered_map<std::uint64_t, std::size_t>;

ApiIndex runtime_api_by_correlation(const Timeline& t) {
    ApiIndex index;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (e.kind != EventKind::RuntimeApi || e.correlation_id == 0) continue;
        auto [it, inserted] = index.emplace(e.correlation_id, i);
        if (!inserted && e.start_ns < t.events[it->second].start_ns) it->second = i;
    }
    return index;
}

const Event* launch_call(const Timeline& t, const ApiIndex& apis, const Event& item) {
    if (item.correlation_id == 0) return nullptr;
    auto it = apis.find(item.correlation_id);
    return it == apis.end() ? nullptr : &t.events[it->second];
}

GapCause classify_gap(const Timeline& t, const ApiIndex& apis, const BusyInterval& next, std::int64_t gap_start) {
    const Event& after = t.events[next.first];
    if (after.kind == EventKind::DeviceLevel && after.device_launched) return GapCause::TailLaunch;
    // A level stamped by a host-launched kernel is placed by the clock fit, so it may start a
    // few ns before the kernel's own CUPTI record: the launch is then found through that record
    // (the interval's first), unless capture gave the level the kernel's correlation id.
    const Event* launched = &after;
    if (!is_cupti_gpu_work(after) && after.correlation_id == 0)
        launched = next.first_cupti == kNone ? nullptr : &t.events[next.first_cupti];
    const Event* call = launched ? launch_call(t, apis, *launched) : nullptr;
    if (call == nullptr) return GapCause::Unknown;
    // The host issued the call only once the GPU had gone idle: it was waiting on the GPU
    // (sync, blocking memcpy, reading a flag) and the gap is the CPU-GPU handshake.
    return call->start_ns >= gap_start ? GapCause::HostSync : GapCause::LaunchLatency;
}

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
    char buf[256];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return std::string(buf, n < 0 ? 0 : std::min<std::size_t>(std::size_t(n), sizeof buf - 1));
}

std::string count_of(std::size_t n, const char* singular, const char* plural) {
    return std::to_string(n) + ' ' + (n == 1 ? singular : plural);
}

double ns_to_us(double ns) { return ns / 1e3; }
double ns_to_ms(double ns) { return ns / 1e6; }

template <class T>
double mean_of(const std::vector<T>& values) {
    if (values.empty()) return 0.0;
    return std::accumulate(values.begin(), values.end(), 0.0, [](double s, T v) { return s + double(v); }) /
           double(values.size());
}

const Track* track_of(const Timeline& t, const Event& e) {
    return e.track < t.tracks.size() ? &t.tracks[e.track] : nullptr;
}

}  // namespace

// ---- Model -----------------------------------------------------------------------------

std::uint32_t Timeline::add_track(TrackKind kind, std::uint64_t id, std::string name) {
    for (std::size_t i = 0; i < tracks.size(); ++i)
        if (tracks[i].kind == kind && tracks[i].id == id) return std::uint32_t(i);
    tracks.push_back({kind, id, std::move(name)});
    return std::uint32_t(tracks.size() - 1);
}

std::string_view to_string(EventKind kind) {
    switch (kind) {
    case EventKind::Kernel:
        return "kernel";
    case EventKind::Memcpy:
        return "memcpy";
    case EventKind::Memset:
        return "memset";
    case EventKind::RuntimeApi:
        return "runtime api";
    case EventKind::Sync:
        return "sync";
    case EventKind::Nvtx:
        return "nvtx";
    case EventKind::DeviceLevel:
        return "device level";
    case EventKind::HostPhase:
        return "host phase";
    case EventKind::Overhead:
        return "overhead";
    case EventKind::AgentLoad:
        return "agent load";
    }
    return "unknown";
}

std::optional<EventKind> event_kind_named(std::string_view name) {
    for (int k = 0; k <= int(EventKind::AgentLoad); ++k)
        if (to_string(EventKind(k)) == name) return EventKind(k);
    return std::nullopt;
}

std::string_view to_string(TrackKind kind) {
    switch (kind) {
    case TrackKind::HostThread:
        return "host thread";
    case TrackKind::GpuStream:
        return "GPU stream";
    case TrackKind::Nvtx:
        return "NVTX";
    case TrackKind::DeviceLevels:
        return "device levels";
    case TrackKind::Host:
        return "host";
    case TrackKind::AgentLanes:
        return "agent lanes";
    }
    return "unknown";
}

std::optional<TrackKind> track_kind_named(std::string_view name) {
    for (int k = 0; k <= int(TrackKind::AgentLanes); ++k)
        if (to_string(TrackKind(k)) == name) return TrackKind(k);
    return std::nullopt;
}

std::string_view to_string(GapCause cause) {
    switch (cause) {
    case GapCause::Unknown:
        return "unknown";
    case GapCause::HostSync:
        return "host sync";
    case GapCause::LaunchLatency:
        return "launch latency";
    case GapCause::TailLaunch:
        return "tail launch";
    }
    return "unknown";
}

// ---- Analysis --------------------------------------------------------------------------

bool is_gpu_work(const Event& e) { return is_cupti_gpu_work(e) || e.kind == EventKind::DeviceLevel; }

GpuUsage gpu_usage(const Timeline& t) {
    GpuUsage usage;
    const auto busy = busy_intervals(t);
    if (busy.empty()) return usage;
    for (const auto& b : busy) usage.busy_ns += b.end_ns - b.start_ns;
    usage.span_ns = busy.back().end_ns - busy.front().start_ns;  // merged: the last ends last
    usage.idle_ns = usage.span_ns - usage.busy_ns;
    return usage;
}

std::vector<Gap> gpu_gaps(const Timeline& t, std::int64_t min_gap_ns) {
    const auto busy = busy_intervals(t);
    const auto apis = runtime_api_by_correlation(t);
    std::vector<Gap> gaps;
    for (std::size_t i = 1; i < busy.size(); ++i) {
        Gap g;
        g.start_ns = busy[i - 1].end_ns;
        g.end_ns = busy[i].start_ns;
        if (g.length_ns() < min_gap_ns) continue;
        g.before = busy[i - 1].last;
        g.after = busy[i].first;
        g.cause = classify_gap(t, apis, busy[i], g.start_ns);
        gaps.push_back(g);
    }
    return gaps;
}

std::vector<std::int64_t> launch_latencies_ns(const Timeline& t) {
    const auto apis = runtime_api_by_correlation(t);
    std::vector<std::int64_t> out;
    for (std::size_t i : sorted_indices(t, [](const Event& e) { return e.kind == EventKind::Kernel; })) {
        const Event& kernel = t.events[i];
        if (const Event* call = launch_call(t, apis, kernel)) out.push_back(kernel.start_ns - call->start_ns);
    }
    return out;
}

std::vector<LevelCost> level_costs(const Timeline& t) {
    // When GPU items carry levels they define them: a host NVTX range of the same level would
    // stretch the level over the host's launch work. A CPU-only run has nothing else.
    const bool gpu_levels =
        std::any_of(t.events.begin(), t.events.end(), [](const Event& e) { return e.level >= 0 && is_gpu_work(e); });
    std::map<std::int32_t, LevelCost> by_level;
    for (const Event& e : t.events) {
        if (e.level < 0 || (gpu_levels && !is_gpu_work(e))) continue;
        auto [it, inserted] = by_level.try_emplace(e.level, LevelCost{e.level, e.start_ns, end_of(e)});
        if (!inserted) {
            it->second.start_ns = std::min(it->second.start_ns, e.start_ns);
            it->second.end_ns = std::max(it->second.end_ns, end_of(e));
        }
    }
    std::vector<LevelCost> out;
    out.reserve(by_level.size());
    for (const auto& [level, cost] : by_level) out.push_back(cost);
    return out;
}

Summary summarize(const Timeline& t) {
    Summary s;
    for (const Event& e : t.events) {
        if (is_gpu_work(e)) ++s.gpu_items;
        if (e.kind == EventKind::Kernel) ++s.host_launches;
        if (e.kind == EventKind::DeviceLevel) ++s.device_levels;
    }
    const GpuUsage usage = gpu_usage(t);
    s.busy_percent = 100.0 * usage.busy_fraction();
    s.idle_ms = ns_to_ms(double(usage.idle_ns));
    s.span_ms = ns_to_ms(double(usage.span_ns));

    std::vector<std::int64_t> gap_lengths;
    for (const Gap& g : gpu_gaps(t)) gap_lengths.push_back(g.length_ns());
    std::sort(gap_lengths.begin(), gap_lengths.end());
    s.gaps = gap_lengths.size();
    if (!gap_lengths.empty()) {
        s.mean_gap_us = ns_to_us(mean_of(gap_lengths));
        const std::size_t rank = (95 * gap_lengths.size() + 99) / 100;  // nearest rank: ceil(0.95 n)
        s.p95_gap_us = ns_to_us(double(gap_lengths[rank - 1]));
        s.max_gap_us = ns_to_us(double(gap_lengths.back()));
    }

    const auto levels = level_costs(t);
    s.levels = levels.size();
    std::vector<std::int64_t> level_lengths;
    for (const auto& l : levels) level_lengths.push_back(l.end_ns - l.start_ns);
    s.mean_level_us = ns_to_us(mean_of(level_lengths));
    s.mean_launch_latency_us = ns_to_us(mean_of(launch_latencies_ns(t)));
    if (s.levels > 0) s.launches_per_level = double(s.host_launches) / double(s.levels);
    s.dropped_records = t.dropped_records;
    return s;
}

std::string describe(const Summary& s) {
    std::string line;
    auto add = [&line](const std::string& part) { line += (line.empty() ? "" : ", ") + part; };
    if (s.gpu_items == 0) {
        add("no GPU activity recorded");
        if (s.levels > 0)
            add(count_of(s.levels, "level", "levels") + printf_string(", mean level %.1f us", s.mean_level_us));
    } else {
        add(count_of(s.host_launches, "host launch", "host launches"));
        if (s.device_levels > 0) add(count_of(s.device_levels, "device level", "device levels"));
        // With device levels the level count is usually theirs; say it only when it differs.
        if (s.levels > 0 && s.levels != s.device_levels) add(count_of(s.levels, "level", "levels"));
        const char* gap_kind = s.device_levels > 0 ? "level gap" : "gap";
        if (s.gaps == 0)
            add("no gaps");
        else
            add(printf_string("mean %s %.1f us (p95 %.1f us)", gap_kind, s.mean_gap_us, s.p95_gap_us));
        add(printf_string("%.1f ms idle", s.idle_ms));
        add(printf_string("GPU busy %.0f%%", s.busy_percent));
    }
    if (s.dropped_records > 0) add(count_of(std::size_t(s.dropped_records), "dropped record", "dropped records"));
    return line;
}

std::string compare(const std::string& label_a, const Summary& a, const std::string& label_b, const Summary& b) {
    using Format = std::string (*)(const Summary&);
    static const std::pair<const char*, Format> rows[] = {
        {"host launches", [](const Summary& s) { return std::to_string(s.host_launches); }},
        {"device levels", [](const Summary& s) { return std::to_string(s.device_levels); }},
        {"levels", [](const Summary& s) { return std::to_string(s.levels); }},
        {"launches per level", [](const Summary& s) { return printf_string("%.2f", s.launches_per_level); }},
        {"gaps", [](const Summary& s) { return std::to_string(s.gaps); }},
        {"mean gap (us)", [](const Summary& s) { return printf_string("%.1f", s.mean_gap_us); }},
        {"p95 gap (us)", [](const Summary& s) { return printf_string("%.1f", s.p95_gap_us); }},
        {"max gap (us)", [](const Summary& s) { return printf_string("%.1f", s.max_gap_us); }},
        {"mean level (us)", [](const Summary& s) { return printf_string("%.1f", s.mean_level_us); }},
        {"mean launch latency (us)", [](const Summary& s) { return printf_string("%.1f", s.mean_launch_latency_us); }},
        {"GPU idle (ms)", [](const Summary& s) { return printf_string("%.1f", s.idle_ms); }},
        {"GPU span (ms)", [](const Summary& s) { return printf_string("%.1f", s.span_ms); }},
        {"GPU busy (%)", [](const Summary& s) { return printf_string("%.0f", s.busy_percent); }},
        {"dropped records", [](const Summary& s) { return std::to_string(s.dropped_records); }},
    };
    std::vector<std::array<std::string, 3>> table;
    table.push_back({"", label_a, label_b});
    for (const auto& [label, format] : rows) table.push_back({label, format(a), format(b)});

    std::size_t widths[3] = {0, 0, 0};
    for (const auto& row : table)
        for (std::size_t c = 0; c < 3; ++c) widths[c] = std::max(widths[c], row[c].size());
    std::string out;
    for (const auto& row : table) {
        out += row[0] + std::string(widths[0] - row[0].size(), ' ');
        for (std::size_t c = 1; c < 3; ++c) out += std::string(2 + widths[c] - row[c].size(), ' ') + row[c];
        out += '\n';
    }
    return out;
}

// ---- Clock fitting ---------------------------------------------------------------------

std::int64_t ClockFit::map(std::int64_t device_ns) const {
    // offset_ns and drift * device_ns are both ~1e13 and cancel to ~1e6; long double keeps the
    // nanoseconds that a double (53 bits, 256 ns steps at 1.7e18) would lose.
    const long double correction = (long double)offset_ns + (long double)drift * (long double)device_ns;
    return device_ns + std::int64_t(std::llround(correction));
}

std::optional<ClockFit> fit_clock(const std::vector<std::pair<std::int64_t, std::int64_t>>& device_host_pairs) {
    if (device_host_pairs.empty()) return std::nullopt;
    // Work on differences from the first pair: exact in int64, small enough for a long double to
    // hold every nanosecond, so the sums below do not drown the 32 ns steps in 1.7e18.
    const auto [d0, h0] = device_host_pairs.front();
    const long double n = (long double)device_host_pairs.size();
    long double mean_x = 0, mean_y = 0;
    for (const auto& [d, h] : device_host_pairs) {
        mean_x += (long double)(d - d0);
        mean_y += (long double)(h - h0);
    }
    mean_x /= n;
    mean_y /= n;
    // Regress (host - device) on device: the slope is the drift directly, without computing
    // 1 + 1.8e-5 and subtracting 1 again.
    long double sxx = 0, sxr = 0;
    for (const auto& [d, h] : device_host_pairs) {
        const long double x = (long double)(d - d0) - mean_x;
        const long double r = ((long double)(h - h0) - mean_y) - x;
        sxx += x * x;
        sxr += x * r;
    }
    // One pair, or pairs at a single device time: no slope to fit, offset only.
    const long double drift = sxx > 0 ? sxr / sxx : 0.0L;
    const long double mean_device = (long double)d0 + mean_x;
    const long double mean_offset = (long double)(h0 - d0) + (mean_y - mean_x);  // mean of host - device

    ClockFit fit;
    fit.drift = double(drift);
    // host = offset + (1 + drift) * device, so offset is the line's value at device time 0.
    fit.offset_ns = double(mean_offset - drift * mean_device);
    fit.pairs = device_host_pairs.size();
    for (const auto& [d, h] : device_host_pairs) {
        const long double fitted = (long double)fit.offset_ns + (long double)fit.drift * (long double)d;
        const long double residual = fitted - (long double)(h - d);
        fit.max_residual_ns = std::max(fit.max_residual_ns, double(std::fabs(residual)));
    }
    return fit;
}

// ---- Export ----------------------------------------------------------------------------

std::string launch_config(const std::uint32_t (&dims)[3]) {
    return std::to_string(dims[0]) + 'x' + std::to_string(dims[1]) + 'x' + std::to_string(dims[2]);
}

bool has_launch_config(const Event& e) { return e.grid[0] != 0 || e.block[0] != 0; }

bool is_graph_launch(const Event& e) {
    return e.kind == EventKind::RuntimeApi && std::string_view(e.name).starts_with("cudaGraphLaunch");
}

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

void write_csv(const Timeline& t, std::ostream& out) {
    // The documented columns first; the track's kind and id, NVTX depth and device_launched
    // follow so that a recorded trace reads back into the same Timeline for the analysis tests.
    out << "kind,name,track,start_ns,end_ns,duration_ns,correlation_id,level,grid,block,bytes,"
           "track_kind,track_id,depth,device_launched,graph_id,graph_node_id\n";
    // The capture's notes first, as rows of kind "note" with only a name.
    for (const std::string& note : t.notes) out << "note," << csv_field(note) << ",,0,0,0,0,-1,,,0,,,0,0,0,0\n";
    for (std::size_t i : sorted_indices(t, [](const Event&) { return true; })) {
        const Event& e = t.events[i];
        const Track* track = track_of(t, e);
        const bool config = has_launch_config(e);
        out << csv_field(to_string(e.kind)) << ',' << csv_field(e.name) << ','
            << csv_field(track ? track->name : std::string()) << ',' << e.start_ns << ',' << e.end_ns << ','
            << e.duration_ns() << ',' << e.correlation_id << ',' << e.level << ','
            << (config ? launch_config(e.grid) : "") << ',' << (config ? launch_config(e.block) : "") << ',' << e.bytes
            << ',' << csv_field(track ? to_string(track->kind) : "") << ',' << (track ? std::to_string(track->id) : "")
            << ',' << e.depth << ',' << (e.device_launched ? 1 : 0) << ',' << e.graph_id << ',' << e.graph_node_id
            << '\n';
    }
}

// RFC 4180 records: quoted fields may hold commas, doubled quotes and newlines.
std::vector<std::vector<std::string>> read_csv_records(std::istream& in) {
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    bool quoted = false, any = false;
    for (char c; in.get(c);) {
        any = true;
        if (quoted) {
            if (c != '"') {
                field += c;
            } else if (in.peek() == '"') {
                field += char(in.get());
            } else {
                quoted = false;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            record.push_back(std::move(field));
            field.clear();
        } else if (c == '\n') {
            record.push_back(std::move(field));
            records.push_back(std::move(record));
            field.clear();
            record.clear();
            any = false;
        } else if (c != '\r') {
            field += c;
        }
    }
    if (any) {
        record.push_back(std::move(field));
        records.push_back(std::move(record));
    }
    return records;
}

namespace {

template <class Enum>
std::optional<Enum> kind_named(std::string_view name, Enum last) {
    for (int k = 0; k <= int(last); ++k)
        if (to_string(Enum(k)) == name) return Enum(k);
    return std::nullopt;
}

template <class Int>
bool parse_int(const std::string& text, Int& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

void parse_dims(const std::string& text, std::uint32_t (&dims)[3]) {
    if (!text.empty()) std::sscanf(text.c_str(), "%ux%ux%u", &dims[0], &dims[1], &dims[2]);
}

}  // namespace

std::optional<Timeline> read_csv(std::istream& in, std::string& error) {
    const auto records = read_csv_records(in);
    auto failed = [&error](std::string why) {
        error = std::move(why);
        return std::optional<Timeline>();
    };
    if (records.empty()) return failed("empty file");
    std::map<std::string, std::size_t> column;
    for (std::size_t i = 0; i < records[0].size(); ++i) column[records[0][i]] = i;
    for (const char* name : {"kind", "name", "track", "start_ns", "end_ns", "correlation_id", "level", "grid", "block",
                             "bytes", "track_kind", "track_id", "depth", "device_launched"})
        if (!column.count(name)) return failed(std::string("missing column ") + name);

    Timeline t;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const auto& rec = records[r];
        const std::string row = "row " + std::to_string(r);
        if (rec.size() != records[0].size()) return failed(row + " has a wrong field count");
        auto at = [&](const char* name) -> const std::string& { return rec[column[name]]; };
        if (at("kind") == "note") {
            t.notes.push_back(at("name"));
            continue;
        }
        const auto kind = kind_named(at("kind"), EventKind::Overhead);
        const auto track_kind = kind_named(at("track_kind"), TrackKind::Host);
        if (!kind || !track_kind) return failed(row + ": unknown kind");
        Event e;
        e.kind = *kind;
        e.name = at("name");
        std::uint64_t track_id = 0;
        if (!parse_int(at("track_id"), track_id) || !parse_int(at("start_ns"), e.start_ns) ||
            !parse_int(at("end_ns"), e.end_ns) || !parse_int(at("correlation_id"), e.correlation_id) ||
            !parse_int(at("level"), e.level) || !parse_int(at("bytes"), e.bytes) || !parse_int(at("depth"), e.depth))
            return failed(row + ": a number column holds something else");
        e.track = t.add_track(*track_kind, track_id, at("track"));
        parse_dims(at("grid"), e.grid);
        parse_dims(at("block"), e.block);
        e.device_launched = at("device_launched") == "1";
        // Optional: traces recorded before graph ids were kept lack them.
        if ((column.count("graph_id") && !at("graph_id").empty() && !parse_int(at("graph_id"), e.graph_id)) ||
            (column.count("graph_node_id") && !at("graph_node_id").empty() &&
             !parse_int(at("graph_node_id"), e.graph_node_id)))
            return failed(row + ": a graph id is not a number");
        t.events.push_back(std::move(e));
    }
    return t;
}

// ---- Names -----------------------------------------------------------------------------

namespace {

// nvcc renames file-local kernels of relocatable device code "__nv_static_<N>_<tag>_<name>",
// where the tag ("_b8c24701_4_k_cu_96bbf7c6", "_14_kernel_cpp1_ii_6c28956c") is N characters.
std::string_view strip_nv_static(std::string_view name) {
    constexpr std::string_view prefix = "__nv_static_";
    if (name.substr(0, prefix.size()) != prefix) return name;
    const std::string_view rest = name.substr(prefix.size());
    std::size_t tag_length = 0;
    const auto [digits_end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), tag_length);
    const std::size_t tag_begin = std::size_t(digits_end - rest.data()) + 1;
    if (ec == std::errc() && tag_length < rest.size() && tag_begin + tag_length < rest.size() &&
        rest[tag_begin - 1] == '_' && rest[tag_begin + tag_length] == '_')
        return rest.substr(tag_begin + tag_length + 1);
    // Should a toolkit change the count's meaning: a mangled name still starts at "__Z".
    const std::size_t mangled = rest.find("__Z");
    return mangled == std::string_view::npos ? name : rest.substr(mangled + 1);
}

}  // namespace

std::string demangle(std::string_view name) {
    const std::string_view stripped = strip_nv_static(name);
    // Only "_Z" names are mangled: __cxa_demangle would also turn a kernel called "i" into "int".
    if (stripped.substr(0, 2) != "_Z") return std::string(stripped);
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> result(
        abi::__cxa_demangle(std::string(stripped).c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && result ? std::string(result.get()) : std::string(name);
}

}  // namespace ps::trace
