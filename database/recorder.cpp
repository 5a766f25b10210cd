// HistoryRecorder, the run rows it writes and their inverses, and the recording codecs (see
// recorder.hpp).
#include "database/recorder.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string_view>

#include "database/build_info.hpp"
#include "kernels/base/json_reader.hpp"
#include "instrumentation/output/json.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/run/edges_visited.hpp"

namespace ps::db {
namespace {

// "13.0" from the CUDA API's 13000; empty when unknown.
std::string cuda_version_text(int version) {
    if (version <= 0) return {};
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string params_json(const RunRequest& request) {
    const Problem& p = request.problem;
    std::ostringstream text;
    JsonWriter j(text, false);
    j.begin_object().field("connectivity", int(p.rules.connectivity)).field("corners", to_string(p.rules.corners));
    j.field("cost_mode", to_string(p.cost_mode)).field("heuristic", to_string(p.heuristic));
    j.field("bfs_stop_at_start", p.bfs_stop_at_start).field("repeat", request.repeat);
    j.field("validate", request.validate).field("record", request.context.record);
    j.key("params").begin_object();
    for (const auto& [name, value] : p.params) j.field(name, value);
    j.end_object().end_object();
    return text.str();
}

// Numbers in the payload are written and read with to_chars/from_chars: the C library's
// printf/scanf follow the process locale, and under de_DE the GUI wrote "load":0,25 (not JSON)
// while the CLI read it back as 0.
template <class T>
void append_number(std::string& out, T v) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, ec == std::errc() ? end : buf);
}

std::string timeline_payload(const trace::Track& track, const trace::Event& e) {
    std::string p = "{\"track_kind\":\"";
    p += trace::to_string(track.kind);
    p += "\",\"track_id\":";
    append_number(p, track.id);
    p += ",\"level\":";
    append_number(p, e.level);
    p += ",\"grid\":[";
    for (int i = 0; i < 3; ++i) {
        if (i) p += ',';
        append_number(p, e.grid[i]);
    }
    p += "],\"block\":[";
    for (int i = 0; i < 3; ++i) {
        if (i) p += ',';
        append_number(p, e.block[i]);
    }
    p += "],\"bytes\":";
    append_number(p, e.bytes);
    p += ",\"depth\":";
    append_number(p, e.depth);
    p += e.device_launched ? ",\"device_launched\":true" : ",\"device_launched\":false";
    p += ",\"queued_ns\":";
    append_number(p, e.queued_ns);
    p += ",\"submitted_ns\":";
    append_number(p, e.submitted_ns);
    p += ",\"load\":";
    if (std::isfinite(e.load))
        append_number(p, e.load);
    else
        p += '0';
    if (e.graph_node_id != 0) {  // only graph nodes carry them
        p += ",\"graph_id\":";
        append_number(p, e.graph_id);
        p += ",\"graph_node_id\":";
        append_number(p, e.graph_node_id);
    }
    p += '}';
    return p;
}

// The top-level fields of a JSON object as raw value text (strings keep their quotes, arrays
// their brackets). Tolerant: spaces, any key order, unknown keys and nesting; a malformed tail
// ends the scan with the fields read so far.
std::map<std::string_view, std::string_view> payload_fields(std::string_view s) {
    std::map<std::string_view, std::string_view> out;
    std::size_t i = 0;
    auto skip_space = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
    };
    auto skip_string = [&] {  // at the opening quote; stops after the closing one
        for (++i; i < s.size() && s[i] != '"'; ++i)
            if (s[i] == '\\') ++i;
        if (i < s.size()) ++i;
    };
    skip_space();
    if (i >= s.size() || s[i] != '{') return out;
    ++i;
    for (;;) {
        skip_space();
        if (i >= s.size() || s[i] != '"') return out;
        const std::size_t key_start = i + 1;
        skip_string();
        const std::string_view key = s.substr(key_start, i - 1 - key_start);
        skip_space();
        if (i >= s.size() || s[i] != ':') return out;
        ++i;
        skip_space();
        const std::size_t value_start = i;
        if (i < s.size() && s[i] == '"') {
            skip_string();
        } else if (i < s.size() && (s[i] == '[' || s[i] == '{')) {
            int depth = 0;
            while (i < s.size()) {
                if (s[i] == '"') {
                    skip_string();
                    continue;
                }
                if (s[i] == '[' || s[i] == '{') ++depth;
                if ((s[i] == ']' || s[i] == '}') && --depth == 0) {
                    ++i;
                    break;
                }
                ++i;
            }
        } else {
            while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ' ' && s[i] != '\n') ++i;
        }
        out[key] = s.substr(value_start, i - value_start);
        skip_space();
        if (i >= s.size() || s[i] != ',') return out;
        ++i;
    }
}

template <class T>
void read_number(std::string_view text, T& out) {
    T v{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size()) out = v;
}

template <class T>
void read_field(const std::map<std::string_view, std::string_view>& fields, std::string_view key, T& out) {
    if (auto it = fields.find(key); it != fields.end()) read_number(it->second, out);
}

// "[1, 2, 3]" into three numbers.
void read_triple(const std::map<std::string_view, std::string_view>& fields, std::string_view key,
                 std::uint32_t (&out)[3]) {
    const auto it = fields.find(key);
    if (it == fields.end() || it->second.size() < 2 || it->second.front() != '[') return;
    std::string_view rest = it->second.substr(1, it->second.size() - 2);
    for (auto& v : out) {
        const auto comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        read_number(item, v);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
}

std::string_view unquoted(std::string_view text) {
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') return text.substr(1, text.size() - 2);
    return {};
}

PhaseSample to_sample(int repetition, const PhaseTimes& p) {
    return {repetition, p.allocate_ms, p.upload_ms, p.compute_ms, p.download_ms, p.total_ms};
}

std::string counters_json(const RunResult& result) {
    std::ostringstream text;
    JsonWriter j(text, false);
    j.begin_object();
    for (const auto& [name, value] : result.counters) j.field(name, value);
    j.end_object();
    return text.str();
}

}  // namespace

std::string build_commit() { return PATHSCOPE_BUILD_COMMIT; }

std::string cpu_model() {
    static const std::string model = [] {
        std::ifstream in("/proc/cpuinfo");
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("model name", 0) != 0) continue;
            const auto colon = line.find(':');
            if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
        }
        return std::string("unknown CPU");
    }();
    return model;
}

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown host";
    return name;
}

RunInfo run_info_for(const RunRequest& request, const VariantInfo& info, std::int64_t map_id,
                     const RecorderOptions& options) {
    RunInfo r;
    r.map_id = map_id;
    // A run refused because its variant is unknown has no VariantInfo: keep what was asked for.
    r.variant = info.id.empty() ? request.variant_id : info.id;
    if (!info.id.empty()) {
        r.family = to_string(info.family);
        r.device_kind = to_string(info.device);
    }
    r.params_json = params_json(request);
    const auto& map = request.problem.map;
    auto cell = [&](Vertex v, int& x, int& y) {
        if (!map || v == kNoVertex || v >= map->cell_count()) return;
        const Cell c = map->cell(v);
        x = c.x, y = c.y;
    };
    cell(request.problem.start, r.start_x, r.start_y);
    cell(request.problem.goal, r.goal_x, r.goal_y);
    if (request.executor) {  // a remote target: where the run executed, as its hello said
        const ExecutionSite& site = request.executor->site();
        const bool gpu = !info.id.empty() && info.device == DeviceKind::Gpu;
        r.device_name = gpu ? (site.gpu_available ? site.gpu_name : "no GPU") : site.cpu_model;
        if (gpu) {
            r.driver_version = cuda_version_text(site.driver_version);
            r.cuda_version = cuda_version_text(site.runtime_version);
        }
        r.host = site.host;
        r.build_commit = site.build_commit;
        r.warmup = request.warmup;
        r.bench_id = options.bench_id;
        return r;
    }
    if (!info.id.empty() && info.device == DeviceKind::Gpu) {
        // Only GPU runs ask: the first gpu_info() call initialises the CUDA runtime.
        const GpuInfo& gpu = gpu_info();
        r.device_name = gpu.available ? gpu.name : "no GPU";
        r.driver_version = cuda_version_text(gpu.driver_version);
        r.cuda_version = cuda_version_text(gpu.runtime_version);
    } else {
        r.device_name = cpu_model();
    }
    r.host = host_name();
    r.build_commit = build_commit();
    r.warmup = request.warmup;
    r.bench_id = options.bench_id;
    return r;
}

RunSummary run_summary_for(const RunReport& report) {
    const RunResult& result = report.result;
    RunSummary s;
    s.status = to_string(result.status);
    s.message = result.message;
    s.validation = to_string(result.validation);
    s.validation_message = result.validation_message;
    s.found = result.found;
    s.cost = result.cost;
    s.expanded = result.expanded;
    s.levels = result.levels;
    s.visited = result.visited;
    s.counters_json = counters_json(result);
    return s;
}

namespace {

// The inverse of the kernels' to_string for small enums: the stored text is whatever to_string
// wrote, so compare against it rather than keeping a second spelling here.
template <class Enum>
Enum from_text(const std::string& text, std::initializer_list<Enum> values, Enum fallback) {
    for (Enum v : values)
        if (to_string(v) == text) return v;
    return fallback;
}

Vertex vertex_at(const GridMap* map, int x, int y) {
    return map && map->in_bounds(x, y) ? map->index(x, y) : kNoVertex;
}

}  // namespace

Expected<RunRequest> request_from_row(const RunRow& row, std::shared_ptr<const GridMap> map) {
    JsonValue o;
    if (!row.info.params_json.empty()) {
        auto parsed = parse_json(row.info.params_json);
        std::string why;
        if (!parsed)
            why = parsed.error().message;
        else if (!parsed->is(JsonValue::Type::Object))
            why = "it is " + std::string(describe(parsed->type));
        if (!why.empty())
            return Error{"run " + std::to_string(row.id) + ": its stored parameters are not a JSON object (" + why +
                         ")"};
        o = std::move(*parsed);
    }
    const JsonValue missing;
    auto field = [&](std::string_view key) -> const JsonValue& {
        const JsonValue* v = o.find(key);
        return v ? *v : missing;
    };
    RunRequest request;
    request.variant_id = row.info.variant;
    request.warmup = row.info.warmup;
    request.repeat = std::max(1, field("repeat").int_or(std::max(1, row.repetitions)));
    request.validate = field("validate").bool_or(true);
    request.context.record = field("record").bool_or(false);
    Problem& p = request.problem;
    p.rules.connectivity = field("connectivity").int_or(8) == 4 ? Connectivity::Four : Connectivity::Eight;
    // Rows written before the third rule existed hold a boolean "corner_cutting" instead.
    const bool old_cutting = field("corner_cutting").bool_or(false);
    p.rules.corners =
        parse_corner_rule(field("corners").string_or("")).value_or(old_cutting ? CornerRule::One : CornerRule::None);
    p.cost_mode = from_text(field("cost_mode").string_or(""), {CostMode::Real, CostMode::Integer}, CostMode::Real);
    p.heuristic = parse_heuristic(field("heuristic").string_or("")).value_or(Heuristic::Octile);
    p.bfs_stop_at_start = field("bfs_stop_at_start").bool_or(false);
    for (const auto& [name, value] : field("params").members) p.params[name] = value.string_or("");
    p.start = vertex_at(map.get(), row.info.start_x, row.info.start_y);
    p.goal = vertex_at(map.get(), row.info.goal_x, row.info.goal_y);
    p.map = std::move(map);
    return request;
}

RunResult result_from_row(const RunRow& row) {
    const RunSummary& s = row.summary;
    RunResult r;
    r.status = from_text(s.status, {RunStatus::Ok, RunStatus::Error, RunStatus::Cancelled, RunStatus::Unavailable},
                         RunStatus::Error);
    r.message = s.message;
    r.validation =
        from_text(s.validation, {Validation::NotRun, Validation::Passed, Validation::Failed, Validation::Reference},
                  Validation::NotRun);
    r.validation_message = s.validation_message;
    r.found = s.found;
    r.cost = s.cost;
    r.expanded = s.expanded;
    r.levels = s.levels;
    r.visited = s.visited;
    r.phases.total_ms = row.total_median_ms;
    r.phases.compute_ms = row.compute_median_ms;
    return r;
}

Expected<std::vector<std::uint64_t>> stored_level_edges(const History& history, const RunRow& row) {
    const std::string run = "run " + std::to_string(row.id);
    if (row.info.family != to_string(Family::Bfs)) return Error{run + " is not a BFS run"};
    if (row.info.map_id == 0) return Error{run + " has no map"};
    auto map = history.load_map(row.info.map_id);
    if (!map) return map.error();
    auto bytes = history.load_recording(row.id, kBfsLevelsKind);
    if (!bytes) return bytes.error();  // "run 3 has no 'bfs_levels' recording" (too large to keep, or a failed run)
    auto levels = decode_bfs_levels(*bytes);
    if (!levels) return levels.error();
    auto request = request_from_row(row, std::make_shared<const GridMap>(std::move(map).value()));
    if (!request) return request.error();
    // A bidirectional search keeps its target half of the levels (RunResult::bfs_levels_prefix,
    // not stored): fewer cells labelled than it visited.
    const auto labelled = std::count_if(levels->begin(), levels->end(), [](std::int32_t l) { return l >= 0; });
    if (std::uint64_t(labelled) != row.summary.visited)
        return Error{run + " kept part of its levels (" + std::to_string(labelled) + " of " +
                     std::to_string(row.summary.visited) + " visited cells, as a bidirectional search's half)"};
    RunResult result = result_from_row(row);
    result.bfs_levels = std::move(levels).value();
    auto count = bfs_edges_visited(request->problem, result);
    if (!count) return Error{run + ": its levels do not cover its map"};
    // The count must be the one stored with the run (the same rules on the same map).
    const auto counters = parse_json(row.summary.counters_json);
    const JsonValue* stored = counters ? counters->find(kEdgesVisitedCounter) : nullptr;
    if (!stored || !stored->is(JsonValue::Type::Number) || stored->number != double(count->total))
        return Error{run + ": its levels do not give the edges visited stored with it"};
    return std::move(count->per_level);
}

// ---- HistoryRecorder -----------------------------------------------------------------------

HistoryRecorder::HistoryRecorder(History& history, RecorderOptions options)
    : m_history(history), m_options(std::move(options)) {}

void HistoryRecorder::set_map_provenance(std::string generator, std::optional<std::uint64_t> seed) {
    m_options.generator = std::move(generator);
    m_options.seed = seed;
}

bool HistoryRecorder::check(Expected<void> result) {
    if (result || m_error) return bool(result);
    m_error = result.error();
    return false;
}

void HistoryRecorder::begin(const RunRequest& request, const VariantInfo& info) {
    m_state = State::Started;
    m_run_id.reset();
    m_error.reset();
    m_samples.clear();
    std::int64_t map_id = 0;
    const auto& map = request.problem.map;
    if (map && !map->empty()) {
        if (map != m_saved_map) {
            auto id = m_history.save_map(*map, m_options.generator, m_options.seed);
            if (!id) {
                check(id.error());
                return;
            }
            m_saved_map = map;
            m_saved_map_id = *id;
        }
        map_id = m_saved_map_id;
    }
    auto id = m_history.begin_run(run_info_for(request, info, map_id, m_options));
    if (!id) {
        check(id.error());
        return;
    }
    m_run_id = *id;
}

void HistoryRecorder::finish(const RunReport& report) {
    m_state = State::Finished;
    if (!m_run_id) return;  // begin failed; its error is kept
    const std::int64_t id = *m_run_id;
    // The summary goes in right after the samples it aggregates, before the optional parts: a
    // recording or trace that cannot be stored (a full disk) then leaves a complete run that
    // lacks only that part, not one marked incomplete without its result.
    if (m_samples.empty()) {  // buffered from on_sample; a run stopped before its first has none
        for (std::size_t i = 0; i < report.samples.size(); ++i)
            m_samples.push_back(to_sample(int(i), report.samples[i]));
    }
    std::vector<std::string> missing;
    ErrorKind first_kind = ErrorKind::Invalid;
    auto optional_part = [&](const std::string& what, Expected<void> stored) {
        if (stored) return;
        if (missing.empty()) first_kind = stored.error().kind;
        missing.push_back(what + " (" + stored.error().message + ")");
    };
    if (!m_samples.empty()) optional_part("its samples", m_history.add_samples(id, m_samples));
    if (!check(m_history.finish_run(id, run_summary_for(report)))) return;
    if (report.result.status == RunStatus::Ok) {
        const RunResult& r = report.result;
        const std::uint64_t limit = m_options.max_recording_bytes;
        if (!r.bfs_levels.empty() && r.bfs_levels.size() * 4 <= limit)
            optional_part(std::string("its ") + kBfsLevelsKind + " recording",
                          m_history.add_recording(id, kBfsLevelsKind, encode_bfs_levels(r.bfs_levels)));
        if (r.recording && !r.recording->events.empty() && search_events_bytes(r.recording->events.size()) <= limit)
            optional_part(std::string("its ") + kSearchEventsKind + " recording",
                          m_history.add_recording(id, kSearchEventsKind, encode_search_events(*r.recording)));
        const bool recorded = !r.bfs_levels.empty() || (r.recording && !r.recording->events.empty());
        if (recorded && !r.path.empty() && r.path.size() * 4 <= limit)
            optional_part(std::string("its ") + kPathKind, m_history.add_recording(id, kPathKind, encode_path(r.path)));
    }
    if (report.timeline && !report.timeline->events.empty())
        optional_part("its timeline events", m_history.add_events(id, encode_timeline(*report.timeline)));
    if (!missing.empty() && !m_error) {
        std::string text = "run " + std::to_string(id) + " is stored with its summary, but without ";
        for (std::size_t i = 0; i < missing.size(); ++i) text += (i ? "; nor " : "") + missing[i];
        m_error = Error{text, first_kind};
    }
}

std::vector<TimelineEvent> encode_timeline(const trace::Timeline& timeline) {
    std::vector<TimelineEvent> rows;
    rows.reserve(timeline.events.size());
    for (const trace::Event& e : timeline.events) {
        const trace::Track& track = timeline.tracks.at(e.track);
        rows.push_back({std::string(trace::to_string(e.kind)), e.name, track.name, e.start_ns, e.end_ns,
                        e.correlation_id, timeline_payload(track, e)});
    }
    // The capture's notes (what it could not record, and why) ride along as rows of kind "note".
    for (const std::string& note : timeline.notes) rows.push_back({"note", note, "", 0, 0, 0, "{}"});
    return rows;
}

trace::Timeline decode_timeline(const std::vector<TimelineEvent>& rows) {
    trace::Timeline t;
    for (const TimelineEvent& row : rows) {
        if (row.kind == "note") {
            t.notes.push_back(row.name);
            continue;
        }
        trace::Event e;
        e.kind = trace::event_kind_named(row.kind).value_or(trace::EventKind::Kernel);
        const auto fields = payload_fields(row.payload);
        std::uint64_t track_id = 0;
        read_field(fields, "track_id", track_id);
        read_field(fields, "level", e.level);
        read_triple(fields, "grid", e.grid);
        read_triple(fields, "block", e.block);
        read_field(fields, "bytes", e.bytes);
        read_field(fields, "depth", e.depth);
        read_field(fields, "queued_ns", e.queued_ns);
        read_field(fields, "submitted_ns", e.submitted_ns);
        read_field(fields, "load", e.load);  // rows written before "load" existed: 0
        read_field(fields, "graph_id", e.graph_id);
        read_field(fields, "graph_node_id", e.graph_node_id);
        const auto launched = fields.find("device_launched");
        e.device_launched = launched != fields.end() && launched->second == "true";
        const auto kind = fields.find("track_kind");
        const trace::TrackKind tk =
            trace::track_kind_named(kind == fields.end() ? std::string_view() : unquoted(kind->second))
                .value_or(trace::TrackKind::Host);
        e.track = t.add_track(tk, track_id, row.track);
        e.name = row.name;
        e.start_ns = row.start_ns;
        e.end_ns = row.end_ns;
        e.correlation_id = row.correlation_id;
        if (e.kind == trace::EventKind::DeviceLevel && e.level >= 0 && e.name.rfind("round", 0) == 0)
            t.level_name = "round";
        t.events.push_back(std::move(e));
    }
    return t;
}

void HistoryRecorder::on_started(const RunRequest& request, const VariantInfo& info) { begin(request, info); }

void HistoryRecorder::on_sample(int repetition, const PhaseTimes& p, const RunResult&) {
    if (m_state == State::Started) m_samples.push_back(to_sample(repetition, p));
}

void HistoryRecorder::on_finished(const RunRequest&, const RunReport& report) {
    if (m_state == State::Started) finish(report);
}

void HistoryRecorder::record(const RunRequest& request, const RunReport& report) {
    if (report.connection_failed && m_state == State::Idle) {  // nothing ran that could be stored
        m_run_id.reset();
        m_error.reset();
        return;
    }
    if (m_state == State::Idle) begin(request, report.info);
    if (m_state == State::Started) finish(report);
    m_state = State::Idle;  // the next record() belongs to the next run
}

}  // namespace ps::db
