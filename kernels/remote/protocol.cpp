// Framing and codecs of the remote protocol (protocol.hpp; the wire is docs/remote-protocol.md).
#include "kernels/remote/protocol.hpp"

#include <poll.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "kernels/base/sha256.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::remote {

static_assert(std::endian::native == std::endian::little, "the wire's arrays are little-endian bytes");

namespace {

// ---- JSON reads with a fallback (a field of another type or missing reads as the fallback) --

std::uint64_t u64_of(const JsonValue* v, std::uint64_t fallback = 0) {
    if (!v || v->type != JsonValue::Type::Number) return fallback;
    std::uint64_t out = 0;
    const auto [p, ec] = std::from_chars(v->text.data(), v->text.data() + v->text.size(), out);
    return ec == std::errc() && p == v->text.data() + v->text.size() ? out : fallback;
}
std::int64_t i64_of(const JsonValue* v, std::int64_t fallback = 0) {
    if (!v || v->type != JsonValue::Type::Number) return fallback;
    std::int64_t out = 0;
    const auto [p, ec] = std::from_chars(v->text.data(), v->text.data() + v->text.size(), out);
    return ec == std::errc() && p == v->text.data() + v->text.size() ? out : fallback;
}
double num_of(const JsonValue* v, double fallback = 0) {
    return v && v->type == JsonValue::Type::Number ? v->number : fallback;
}
std::string str_of(const JsonValue* v, std::string_view fallback = {}) {
    return v ? v->string_or(fallback) : std::string(fallback);
}
bool bool_of(const JsonValue* v, bool fallback = false) { return v ? v->bool_or(fallback) : fallback; }
const JsonValue* at(const JsonValue* v, std::string_view key) { return v ? v->find(key) : nullptr; }

// ---- arrays as blobs ---------------------------------------------------------------------------

template <class T>
void add_array(std::vector<Blob>& blobs, std::string name, const std::vector<T>& v) {
    if (v.empty()) return;
    Blob b{std::move(name), std::string(v.size() * sizeof(T), '\0')};
    std::memcpy(b.bytes.data(), v.data(), b.bytes.size());
    blobs.push_back(std::move(b));
}

template <class T>
Expected<std::vector<T>> array_of(const Message& m, std::string_view name) {
    const std::string* b = m.blob(name);
    if (!b) return std::vector<T>{};
    if (b->size() % sizeof(T))
        return Error{"the blob '" + std::string(name) + "' has " + std::to_string(b->size()) +
                     " bytes, not a whole number of " + std::to_string(sizeof(T)) + "-byte items"};
    std::vector<T> v(b->size() / sizeof(T));
    std::memcpy(v.data(), b->data(), b->size());
    return v;
}

void write_phases(JsonWriter& j, const PhaseTimes& p) {
    j.begin_array().value(p.allocate_ms).value(p.upload_ms).value(p.compute_ms).value(p.download_ms).value(p.total_ms);
    j.end_array();
}
PhaseTimes phases_of(const JsonValue* v) {
    PhaseTimes p;
    if (!v || v->type != JsonValue::Type::Array || v->items.size() != 5) return p;
    p.allocate_ms = num_of(&v->items[0]);
    p.upload_ms = num_of(&v->items[1]);
    p.compute_ms = num_of(&v->items[2]);
    p.download_ms = num_of(&v->items[3]);
    p.total_ms = num_of(&v->items[4]);
    return p;
}

template <class E>
E enum_named(std::string_view text, std::initializer_list<E> values, E fallback) {
    for (E e : values)
        if (to_string(e) == text) return e;
    return fallback;
}

// ---- variants ----------------------------------------------------------------------------------

}  // namespace

void write_variant(JsonWriter& j, const VariantInfo& info, const std::optional<std::string>& unavailable) {
    j.begin_object()
        .field("id", info.id)
        .field("family", to_string(info.family))
        .field("device", to_string(info.device))
        .field("description", info.description)
        .field("reference", info.reference_id)
        .field("cell_costs", info.cell_costs)
        .field("available", !unavailable.has_value());
    j.key("params").begin_array();
    for (const ParamSpec& p : info.params) {
        j.begin_object().field("name", p.name).field("default", p.default_value).field("description", p.description);
        if (p.kind == ParamSpec::Kind::Int) {
            j.field("kind", "int").field("min", p.min).field("max", p.max);
            if (p.multiple_of > 1) j.field("multiple_of", p.multiple_of);
        } else {
            j.field("kind", p.kind == ParamSpec::Kind::Flag ? "flag" : "choice");
            j.key("choices").begin_array();
            for (const std::string& c : offered_values(p)) j.value(c);
            j.end_array();
        }
        j.end_object();
    }
    j.end_array();
    if (unavailable) j.field("unavailable_reason", *unavailable);
    j.end_object();
}

namespace {

RemoteVariant variant_of(const JsonValue& v) {
    RemoteVariant out;
    VariantInfo& info = out.info;
    info.id = str_of(v.find("id"));
    info.family =
        enum_named(str_of(v.find("family")), {Family::Bfs, Family::ShortestPath, Family::Batch, Family::FlowField},
                   Family::ShortestPath);
    info.device = enum_named(str_of(v.find("device")), {DeviceKind::Cpu, DeviceKind::Gpu}, DeviceKind::Cpu);
    info.description = str_of(v.find("description"));
    info.reference_id = str_of(v.find("reference"));
    info.cell_costs = bool_of(v.find("cell_costs"), false);
    out.available = bool_of(v.find("available"), true);
    out.unavailable_reason = str_of(v.find("unavailable_reason"));
    if (const JsonValue* params = v.find("params"); params && params->type == JsonValue::Type::Array) {
        for (const JsonValue& p : params->items) {
            ParamSpec s;
            s.name = str_of(p.find("name"));
            s.default_value = str_of(p.find("default"));
            s.description = str_of(p.find("description"));
            const std::string kind = str_of(p.find("kind"));
            s.kind = kind == "flag"     ? ParamSpec::Kind::Flag
                     : kind == "choice" ? ParamSpec::Kind::Choice
                                        : ParamSpec::Kind::Int;
            s.min = i64_of(p.find("min"));
            s.max = i64_of(p.find("max"));
            s.multiple_of = std::max<std::int64_t>(1, i64_of(p.find("multiple_of"), 1));
            if (const JsonValue* c = p.find("choices"); c && c->type == JsonValue::Type::Array && kind == "choice")
                for (const JsonValue& x : c->items) s.choices.push_back(x.string_or(""));
            info.params.push_back(std::move(s));
        }
    }
    return out;
}

// ---- the timeline, as a JSON blob ----------------------------------------------------------

std::string timeline_json(const trace::Timeline& t) {
    std::ostringstream out;
    JsonWriter j(out, false);
    j.begin_object().field("dropped", t.dropped_records).field("level_name", t.level_name);
    j.key("tracks").begin_array();
    for (const trace::Track& tr : t.tracks)
        j.begin_array().value(to_string(tr.kind)).value(tr.id).value(tr.name).end_array();
    j.end_array().key("events").begin_array();
    for (const trace::Event& e : t.events) {
        j.begin_array()
            .value(to_string(e.kind))
            .value(e.name)
            .value(std::uint64_t(e.track))
            .value(std::int64_t(e.start_ns))
            .value(std::int64_t(e.end_ns))
            .value(e.correlation_id)
            .value(std::int64_t(e.level));
        for (std::uint32_t g : e.grid) j.value(std::uint64_t(g));
        for (std::uint32_t b : e.block) j.value(std::uint64_t(b));
        j.value(e.bytes)
            .value(std::int64_t(e.depth))
            .value(e.device_launched)
            .value(std::int64_t(e.queued_ns))
            .value(std::int64_t(e.submitted_ns))
            .value(e.load)
            .value(e.graph_id)
            .value(e.graph_node_id)
            .end_array();
    }
    j.end_array().key("notes").begin_array();
    for (const std::string& note : t.notes) j.value(note);
    j.end_array().end_object();
    return out.str();
}

Expected<trace::Timeline> timeline_of(const std::string& text) {
    auto doc = parse_json(text, JsonLimits{text.size() + 16, 8});
    if (!doc) return Error{"the timeline blob: " + doc.error().message};
    trace::Timeline t;
    t.dropped_records = u64_of(doc->find("dropped"));
    t.level_name = str_of(doc->find("level_name"), "level");
    if (const JsonValue* tracks = doc->find("tracks"); tracks && tracks->type == JsonValue::Type::Array)
        for (const JsonValue& tr : tracks->items) {
            if (tr.items.size() != 3) return Error{"the timeline blob: a track is not [kind, id, name]"};
            t.tracks.push_back({trace::track_kind_named(tr.items[0].string_or("")).value_or(trace::TrackKind::Host),
                                u64_of(&tr.items[1]), tr.items[2].string_or("")});
        }
    if (const JsonValue* events = doc->find("events"); events && events->type == JsonValue::Type::Array)
        for (const JsonValue& ev : events->items) {
            const auto& f = ev.items;
            // 19 fields from servers that predate graph ids, 21 since.
            if (f.size() != 19 && f.size() != 21)
                return Error{"the timeline blob: an event does not have its 19 (or 21) fields"};
            trace::Event e;
            e.kind = trace::event_kind_named(f[0].string_or("")).value_or(trace::EventKind::Kernel);
            e.name = f[1].string_or("");
            e.track = std::uint32_t(u64_of(&f[2]));
            if (e.track >= t.tracks.size()) return Error{"the timeline blob: an event names a track it lacks"};
            e.start_ns = i64_of(&f[3]);
            e.end_ns = i64_of(&f[4]);
            e.correlation_id = u64_of(&f[5]);
            e.level = std::int32_t(i64_of(&f[6], -1));
            for (int k = 0; k < 3; ++k) e.grid[k] = std::uint32_t(u64_of(&f[7 + k]));
            for (int k = 0; k < 3; ++k) e.block[k] = std::uint32_t(u64_of(&f[10 + k]));
            e.bytes = u64_of(&f[13]);
            e.depth = std::int32_t(i64_of(&f[14]));
            e.device_launched = f[15].bool_or(false);
            e.queued_ns = i64_of(&f[16]);
            e.submitted_ns = i64_of(&f[17]);
            e.load = num_of(&f[18]);
            if (f.size() == 21) e.graph_id = u64_of(&f[19]), e.graph_node_id = u64_of(&f[20]);
            t.events.push_back(std::move(e));
        }
    if (const JsonValue* notes = doc->find("notes"); notes && notes->type == JsonValue::Type::Array)
        for (const JsonValue& note : notes->items) t.notes.push_back(note.string_or(""));
    return t;
}

}  // namespace

// ---- messages ----------------------------------------------------------------------------------

std::string Message::type() const { return str_of(header.find("type")); }

const std::string* Message::blob(std::string_view name) const {
    for (const Blob& b : blobs)
        if (b.name == name) return &b.bytes;
    return nullptr;
}

MessageReader::MessageReader(int fd, Limits limits, bool server_side)
    : m_fd(fd), m_limits(limits), m_server(server_side), m_buffer(1 << 16) {}

bool MessageReader::fill() {
    if (m_begin == m_end) m_begin = m_end = 0;
    if (m_end == m_buffer.size()) {
        if (m_begin > 0) {
            std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
            m_end -= m_begin;
            m_begin = 0;
        } else {
            m_buffer.resize(m_buffer.size() * 2);
        }
    }
    for (;;) {
        const ssize_t n = ::read(m_fd, m_buffer.data() + m_end, m_buffer.size() - m_end);
        if (n > 0) {
            m_end += std::size_t(n);
            return true;
        }
        if (n < 0 && errno == EINTR) continue;
        return false;  // end of stream, or a broken one
    }
}

bool MessageReader::wait_readable(int timeout_ms) {
    if (m_begin < m_end) return true;
    pollfd p{m_fd, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms) > 0;
}

bool MessageReader::read_line(std::string& line, bool& too_long) {
    line.clear();
    too_long = false;
    for (;;) {
        const char* b = m_buffer.data() + m_begin;
        const char* e = m_buffer.data() + m_end;
        const char* nl = static_cast<const char*>(std::memchr(b, '\n', std::size_t(e - b)));
        const std::size_t take = nl ? std::size_t(nl - b) : std::size_t(e - b);
        if (!too_long) {
            if (line.size() + take > m_limits.max_header_bytes) {
                too_long = true;
                line.clear();
            } else {
                line.append(b, take);
            }
        }
        m_begin += take;
        if (nl) {
            ++m_begin;
            return true;
        }
        if (m_begin == m_end && m_end == m_buffer.size()) m_begin = m_end = 0;  // keep the buffer bounded
        if (!fill()) return false;
    }
}

bool MessageReader::read_exact(std::string& out, std::uint64_t n) {
    out.clear();
    out.reserve(std::size_t(n));
    while (out.size() < n) {
        if (m_begin == m_end && !fill()) return false;
        const std::size_t take = std::min<std::uint64_t>(n - out.size(), m_end - m_begin);
        out.append(m_buffer.data() + m_begin, take);
        m_begin += take;
    }
    return true;
}

bool MessageReader::skip(std::uint64_t n) {
    while (n > 0) {
        if (m_begin == m_end && !fill()) return false;
        const std::size_t take = std::min<std::uint64_t>(n, m_end - m_begin);
        m_begin += take;
        n -= take;
    }
    return true;
}

MessageReader::Read MessageReader::next() {
    Read r;
    std::string line;
    bool too_long = false;
    do {
        if (!read_line(line, too_long)) {
            r.status = Status::Closed;
            r.error = "the stream ended";
            return r;
        }
    } while (!too_long && line.find_first_not_of(" \t\r") == std::string::npos);  // blank lines between messages
    if (too_long) {
        r.status = Status::TooLarge;
        r.error = "a message line longer than " + std::to_string(m_limits.max_header_bytes) + " bytes";
        return r;
    }
    auto header = parse_json(line, JsonLimits{m_limits.max_header_bytes, 32});
    if (!header || header->type != JsonValue::Type::Object) {
        r.status = Status::Malformed;
        r.error = header ? std::string("a message must be a JSON object") : "not JSON: " + header.error().message;
        return r;
    }
    // Blobs: [{"name":..., "bytes":N}, ...] follow the line in order.
    std::vector<std::pair<std::string, std::uint64_t>> sizes;
    std::uint64_t total = 0;
    bool bad = false;
    if (const JsonValue* blobs = header->find("blobs")) {
        if (blobs->type != JsonValue::Type::Array) bad = true;
        for (const JsonValue& b : bad ? std::vector<JsonValue>{} : blobs->items) {
            const JsonValue* n = b.find("bytes");
            if (!n || n->type != JsonValue::Type::Number ||
                n->text.find_first_not_of("0123456789") != std::string::npos) {
                bad = true;
                break;
            }
            sizes.emplace_back(str_of(b.find("name")), u64_of(n));
            total += sizes.back().second;
        }
    }
    if (bad) {
        r.status = Status::Malformed;
        r.error = "\"blobs\" must be a list of {\"name\": ..., \"bytes\": N}";
        return r;  // the blobs' lengths are unknown: the stream can only go on at the next line
    }
    const std::uint64_t limit = m_server ? m_limits.max_request_bytes : m_limits.max_reply_bytes;
    if (total > limit) {
        r.status = skip(total) ? Status::TooLarge : Status::Closed;
        r.error = "a message of " + std::to_string(total) + " blob bytes, more than the " + std::to_string(limit) +
                  " allowed";
        return r;
    }
    r.message.header = std::move(*header);
    for (auto& [name, n] : sizes) {
        Blob b{name, {}};
        if (!read_exact(b.bytes, n)) {
            r.status = Status::Closed;
            r.error = "the stream ended inside a message";
            return r;
        }
        r.message.blobs.push_back(std::move(b));
    }
    return r;
}

Expected<void> MessageWriter::write_all(const char* data, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(m_fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return Error{std::string("the connection is closed (") + std::strerror(errno) + ")", ErrorKind::Io};
        data += w;
        n -= std::size_t(w);
    }
    return {};
}

Expected<void> MessageWriter::send(std::string_view type, const Fields& fields, const std::vector<Blob>& blobs) {
    std::ostringstream line;
    {
        JsonWriter j(line, false);
        j.begin_object().field("type", type);
        if (fields) fields(j);
        if (!blobs.empty()) {
            j.key("blobs").begin_array();
            for (const Blob& b : blobs)
                j.begin_object().field("name", b.name).field("bytes", std::uint64_t(b.bytes.size())).end_object();
            j.end_array();
        }
        j.end_object();
    }
    line << '\n';
    const std::string text = line.str();
    std::lock_guard lock(m_mutex);
    if (auto ok = write_all(text.data(), text.size()); !ok) return ok;
    for (const Blob& b : blobs)
        if (auto ok = write_all(b.bytes.data(), b.bytes.size()); !ok) return ok;
    return {};
}

Expected<void> MessageWriter::send_error(std::optional<std::uint64_t> id, std::string_view code,
                                         std::string_view message) {
    return send("error", [&](JsonWriter& j) {
        j.key("id");
        if (id)
            j.value(*id);
        else
            j.null();
        j.field("code", code).field("message", message);
    });
}

// ---- hello ------------------------------------------------------------------------------------

void write_hello(JsonWriter& j, const Hello& h) {
    j.field("protocol", h.protocol).field("build", h.build_commit);
    const ExecutionSite& s = h.site;
    j.key("site")
        .begin_object()
        .field("host", s.host)
        .field("cpu", s.cpu_model)
        .field("gpu_available", s.gpu_available)
        .field("gpu", s.gpu_name)
        .field("gpu_reason", s.gpu_reason)
        .field("driver_version", s.driver_version)
        .field("runtime_version", s.runtime_version)
        .end_object();
    j.key("variants").begin_array();
    for (const RemoteVariant& v : h.variants)
        write_variant(j, v.info, v.available ? std::nullopt : std::optional<std::string>(v.unavailable_reason));
    j.end_array();
}

Expected<Hello> read_hello(const Message& m) {
    Hello h;
    const JsonValue* protocol = m.field("protocol");
    if (!protocol || protocol->type != JsonValue::Type::Number) return Error{"a hello without a protocol version"};
    h.protocol = int(i64_of(protocol));
    h.build_commit = str_of(m.field("build"), "unknown");
    const JsonValue* s = m.field("site");
    h.site.host = str_of(at(s, "host"));
    h.site.cpu_model = str_of(at(s, "cpu"));
    h.site.build_commit = h.build_commit;
    h.site.gpu_available = bool_of(at(s, "gpu_available"));
    h.site.gpu_name = str_of(at(s, "gpu"));
    h.site.gpu_reason = str_of(at(s, "gpu_reason"));
    h.site.driver_version = int(i64_of(at(s, "driver_version")));
    h.site.runtime_version = int(i64_of(at(s, "runtime_version")));
    if (const JsonValue* vs = m.field("variants"); vs && vs->type == JsonValue::Type::Array)
        for (const JsonValue& v : vs->items) h.variants.push_back(variant_of(v));
    return h;
}

// ---- maps ----------------------------------------------------------------------------------------

// Weighted terrain travels as every cell's cost byte beside the packed bits, and is part of the hash.
std::span<const std::uint8_t> costs_of(const GridMap& map) {
    return map.weighted() ? std::span<const std::uint8_t>(map.cells()) : std::span<const std::uint8_t>();
}

std::string hash_of(const GridMap& map) {
    return map_hash(map.width(), map.height(), pack_cells(map.cells()), costs_of(map));
}

std::shared_ptr<const GridMap> MapCache::find(const std::string& hash) const {
    for (const auto& [h, map] : m_maps)
        if (h == hash) return map;
    return nullptr;
}

void MapCache::add(const std::string& hash, std::shared_ptr<const GridMap> map) {
    if (find(hash)) return;
    m_maps.emplace_back(hash, std::move(map));
    std::uint64_t cells = 0;
    for (const auto& entry : m_maps) cells += entry.second->cell_count();
    while (m_maps.size() > 1 && cells > m_max_cells) {  // the oldest go first; the newest always stays
        cells -= m_maps.front().second->cell_count();
        m_maps.erase(m_maps.begin());
    }
}

// ---- run requests ------------------------------------------------------------------------------

Expected<void> can_send(const RunRequest& request) {
    const Problem& p = request.problem;
    if (p.roadmap) return Error{"remote runs on roadmap graphs are not supported yet: run them on a grid map"};
    if (!p.map || p.map->empty()) return Error{"a remote run needs a map"};
    return {};
}

Expected<void> write_run_request(JsonWriter& j, std::vector<Blob>& blobs, const RunRequest& request, std::uint64_t id,
                                 bool with_cells) {
    if (auto ok = can_send(request); !ok) return ok;
    const Problem& p = request.problem;
    j.field("id", id).field("variant", request.variant_id);
    j.field("warmup", request.warmup).field("repeat", request.repeat).field("validate", request.validate);
    j.field("record", request.context.record)
        .field("trace", to_string(request.context.trace))
        .field("recording_budget_bytes", request.context.recording_budget_bytes);
    const auto packed = pack_cells(p.map->cells());
    const auto costs = costs_of(*p.map);
    j.key("map")
        .begin_object()
        .field("width", p.map->width())
        .field("height", p.map->height())
        .field("name", p.map->name)
        .field("hash", map_hash(p.map->width(), p.map->height(), packed, costs))
        .end_object();
    j.key("problem")
        .begin_object()
        .field("connectivity", p.rules.connectivity == Connectivity::Eight ? 8 : 4)
        .field("corners", to_string(p.rules.corners))
        .field("cost", to_string(p.cost_mode))
        .field("heuristic", to_string(p.heuristic))
        .field("start", std::uint64_t(p.start))
        .field("goal", std::uint64_t(p.goal))
        .field("stop_at_start", p.bfs_stop_at_start);
    j.key("params").begin_object();
    for (const auto& [name, value] : p.params) j.field(name, value);
    j.end_object().end_object();
    if (with_cells) blobs.push_back({"cells", std::string(packed.begin(), packed.end())});
    if (with_cells && !costs.empty()) blobs.push_back({"costs", std::string(costs.begin(), costs.end())});
    if (!p.agents.empty()) {
        std::vector<std::uint32_t> flat;
        flat.reserve(p.agents.size() * 2);
        for (const auto& [s, g] : p.agents) {
            flat.push_back(s);
            flat.push_back(g);
        }
        add_array(blobs, "agents", flat);
    }
    return {};
}

Expected<DecodedRequest> read_run_request(const Message& m, MapCache& maps, const Limits& limits) {
    DecodedRequest d;
    d.id = u64_of(m.field("id"));
    RunRequest& r = d.request;
    r.variant_id = str_of(m.field("variant"));
    r.warmup = int(i64_of(m.field("warmup")));
    r.repeat = int(i64_of(m.field("repeat"), 1));
    r.validate = bool_of(m.field("validate"), true);
    r.context.record = bool_of(m.field("record"));
    r.context.trace = trace::parse_trace_level(str_of(m.field("trace"), "off")).value_or(trace::TraceLevel::Off);
    r.context.recording_budget_bytes = u64_of(m.field("recording_budget_bytes"), r.context.recording_budget_bytes);
    if (r.variant_id.empty()) return Error{"a run request without a variant"};
    if (r.repeat < 1 || r.repeat > 1000000 || r.warmup < 0 || r.warmup > 1000000)
        return Error{"repeat must be 1..1000000 and warmup 0..1000000"};

    const JsonValue* map = m.field("map");
    const std::int64_t w = i64_of(at(map, "width")), h = i64_of(at(map, "height"));
    if (w < 1 || h < 1 || w > 65535 || h > 65535 || std::uint64_t(w) * std::uint64_t(h) > limits.max_map_cells)
        return Error{"the map is " + std::to_string(w) + "x" + std::to_string(h) + ": sides must be 1..65535 and " +
                     std::to_string(limits.max_map_cells) + " cells at most"};
    const std::string hash = str_of(at(map, "hash"));
    std::shared_ptr<const GridMap> grid = maps.find(hash);
    if (const std::string* cells = m.blob("cells")) {
        const std::uint64_t n = std::uint64_t(w) * std::uint64_t(h);
        if (cells->size() != (n + 7) / 8)
            return Error{"the map's cells take " + std::to_string((n + 7) / 8) + " bytes, the blob has " +
                         std::to_string(cells->size())};
        const std::span<const std::uint8_t> packed(reinterpret_cast<const std::uint8_t*>(cells->data()), cells->size());
        std::span<const std::uint8_t> costs;
        if (const std::string* c = m.blob("costs")) {
            if (c->size() != n)
                return Error{"the map's costs take " + std::to_string(n) + " bytes, the blob has " +
                             std::to_string(c->size())};
            costs = {reinterpret_cast<const std::uint8_t*>(c->data()), c->size()};
            for (std::size_t i = 0; i < costs.size(); ++i)
                if ((costs[i] != 0) != bool(packed[i / 8] & (1u << (i % 8))))
                    return Error{"the map's costs do not match its cells"};
        }
        const std::string actual = map_hash(int(w), int(h), packed, costs);
        if (!hash.empty() && actual != hash) return Error{"the map's cells do not match its hash"};
        auto fresh = std::make_shared<GridMap>(int(w), int(h));
        if (costs.empty())
            fresh->cells() = unpack_cells(packed, std::size_t(n));
        else
            fresh->cells().assign(costs.begin(), costs.end());
        fresh->name = str_of(at(map, "name"));
        maps.add(actual, fresh);
        grid = fresh;
    }
    if (!grid) return Error{"map_unknown", ErrorKind::Io};
    r.problem.map = grid;

    const JsonValue* p = m.field("problem");
    Problem& pr = r.problem;
    pr.rules.connectivity = i64_of(at(p, "connectivity"), 8) == 4 ? Connectivity::Four : Connectivity::Eight;
    pr.rules.corners = parse_corner_rule(str_of(at(p, "corners"), "none")).value_or(CornerRule::None);
    pr.cost_mode = str_of(at(p, "cost"), "real") == to_string(CostMode::Integer) ? CostMode::Integer : CostMode::Real;
    pr.heuristic = parse_heuristic(str_of(at(p, "heuristic"), "octile")).value_or(Heuristic::Octile);
    pr.start = Vertex(u64_of(at(p, "start"), kNoVertex));
    pr.goal = Vertex(u64_of(at(p, "goal"), kNoVertex));
    pr.bfs_stop_at_start = bool_of(at(p, "stop_at_start"));
    if (const JsonValue* params = at(p, "params"))
        for (const JsonMember& member : params->members) pr.params[member.key] = member.value.string_or("");
    auto agents = array_of<std::uint32_t>(m, "agents");
    if (!agents) return agents.error();
    if (agents->size() % 2 || agents->size() / 2 > limits.max_agents)
        return Error{"agents must be (start, goal) pairs, at most " + std::to_string(limits.max_agents)};
    for (std::size_t i = 0; i + 1 < agents->size(); i += 2) pr.agents.emplace_back((*agents)[i], (*agents)[i + 1]);
    return d;
}

// ---- run reports ---------------------------------------------------------------------------------

Expected<void> write_run_report(JsonWriter& j, std::vector<Blob>& blobs, const RunReport& report) {
    const RunResult& r = report.result;
    j.field("status", to_string(r.status)).field("message", r.message);
    j.field("validation", to_string(r.validation)).field("validation_message", r.validation_message);
    j.field("found", r.found).field("cost", r.cost).field("expanded", r.expanded);
    if (r.cost_bound) j.field("cost_bound", std::isinf(*r.cost_bound) ? -1.0 : *r.cost_bound);  // -1: infinity
    j.field("levels", std::int64_t(r.levels)).field("visited", r.visited).field("levels_prefix", r.bfs_levels_prefix);
    j.key("phases");
    write_phases(j, r.phases);
    j.key("samples").begin_array();
    for (const PhaseTimes& s : report.samples) write_phases(j, s);
    j.end_array();
    j.key("counters").begin_object();
    for (const auto& [name, value] : r.counters) j.field(name, value);
    j.end_object();
    j.field("failed_repetitions", report.failed_repetitions)
        .field("reference_ms", report.reference_ms)
        .field("trace_overhead_ms", report.trace_overhead_ms)
        .field("trace_message", report.trace_message)
        .field("clock_offset_ns", std::int64_t(report.clock_offset_ns));
    if (report.clock_fit)
        j.key("clock_fit")
            .begin_array()
            .value(report.clock_fit->offset_ns)
            .value(report.clock_fit->drift)
            .value(report.clock_fit->max_residual_ns)
            .value(std::uint64_t(report.clock_fit->pairs))
            .end_array();
    if (const auto& load = report.agent_load)
        j.key("agent_load")
            .begin_array()
            .value(std::uint64_t(load->agents))
            .value(std::uint64_t(load->lanes))
            .value(load->lane_unit)
            .value(load->span_ms)
            .value(load->done_50)
            .value(load->done_90)
            .value(load->done_99)
            .value(load->done_100)
            .value(std::uint64_t(load->running_last_10))
            .value(load->first_lane_done_ms)
            .value(load->last_lane_done_ms)
            .end_array();
    const DeviceStamps& st = r.stamps;
    j.key("stamps")
        .begin_object()
        .field("kernel", st.kernel)
        .field("tail_launched", st.tail_launched)
        .field("unit", st.unit)
        .end_object();
    const AgentSpans& sp = r.agent_spans;
    j.key("agent_spans")
        .begin_object()
        .field("lane_unit", sp.lane_unit)
        .field("device_clock", sp.device_clock)
        .field("kernel", sp.kernel)
        .end_object();

    add_array(blobs, "path", r.path);
    add_array(blobs, "bfs_levels", r.bfs_levels);
    add_array(blobs, "agent_costs", r.agent_costs);
    add_array(blobs, "agent_steps", r.agent_steps);
    add_array(blobs, "flow_dirs", r.flow_dirs);
    std::vector<std::uint64_t> levels;
    for (const auto& [a, b] : st.levels) {
        levels.push_back(a);
        levels.push_back(b);
    }
    add_array(blobs, "stamps", levels);
    add_array(blobs, "span_start", sp.start_ns);
    add_array(blobs, "span_end", sp.end_ns);
    add_array(blobs, "span_lane", sp.lane);
    if (r.recording) {  // the history's layout (kernels/base/recording.hpp)
        const auto bytes = encode_search_events(*r.recording);
        blobs.push_back({"recording", std::string(bytes.begin(), bytes.end())});
    }
    if (report.timeline) blobs.push_back({"timeline", timeline_json(*report.timeline)});
    return {};
}

Expected<RunReport> read_run_report(const Message& m, const VariantInfo& info) {
    RunReport report;
    report.info = info;
    RunResult& r = report.result;
    r.status =
        enum_named(str_of(m.field("status")),
                   {RunStatus::Ok, RunStatus::Error, RunStatus::Cancelled, RunStatus::Unavailable}, RunStatus::Error);
    r.message = str_of(m.field("message"));
    r.validation = enum_named(str_of(m.field("validation")),
                              {Validation::NotRun, Validation::Passed, Validation::Failed, Validation::Reference},
                              Validation::NotRun);
    r.validation_message = str_of(m.field("validation_message"));
    r.found = bool_of(m.field("found"));
    r.cost = num_of(m.field("cost"));
    if (const JsonValue* bound = m.field("cost_bound"))
        r.cost_bound = bound->number < 0 ? std::numeric_limits<double>::infinity() : bound->number;
    r.expanded = u64_of(m.field("expanded"));
    r.levels = std::int32_t(i64_of(m.field("levels")));
    r.visited = u64_of(m.field("visited"));
    r.bfs_levels_prefix = bool_of(m.field("levels_prefix"));
    r.phases = phases_of(m.field("phases"));
    if (const JsonValue* samples = m.field("samples"); samples && samples->type == JsonValue::Type::Array)
        for (const JsonValue& s : samples->items) report.samples.push_back(phases_of(&s));
    if (const JsonValue* counters = m.field("counters"))
        for (const JsonMember& c : counters->members) r.counters[c.key] = num_of(&c.value);
    report.failed_repetitions = int(i64_of(m.field("failed_repetitions")));
    report.reference_ms = num_of(m.field("reference_ms"));
    report.trace_overhead_ms = num_of(m.field("trace_overhead_ms"));
    report.trace_message = str_of(m.field("trace_message"));
    report.clock_offset_ns = i64_of(m.field("clock_offset_ns"));
    if (const JsonValue* fit = m.field("clock_fit"); fit && fit->items.size() == 4) {
        trace::ClockFit f;
        f.offset_ns = num_of(&fit->items[0]);
        f.drift = num_of(&fit->items[1]);
        f.max_residual_ns = num_of(&fit->items[2]);
        f.pairs = std::size_t(u64_of(&fit->items[3]));
        report.clock_fit = f;
    }
    const JsonValue* st = m.field("stamps");
    r.stamps.kernel = str_of(at(st, "kernel"));
    r.stamps.tail_launched = bool_of(at(st, "tail_launched"));
    r.stamps.unit = str_of(at(st, "unit"), "level");
    const JsonValue* sp = m.field("agent_spans");
    r.agent_spans.lane_unit = str_of(at(sp, "lane_unit"));
    r.agent_spans.device_clock = bool_of(at(sp, "device_clock"));
    r.agent_spans.kernel = str_of(at(sp, "kernel"));

#define PS_ARRAY(field, type, name)           \
    if (auto a = array_of<type>(m, name); !a) \
        return a.error();                     \
    else                                      \
        field = std::move(*a);
    PS_ARRAY(r.path, Vertex, "path")
    PS_ARRAY(r.bfs_levels, std::int32_t, "bfs_levels")
    PS_ARRAY(r.agent_costs, double, "agent_costs")
    PS_ARRAY(r.agent_steps, std::uint32_t, "agent_steps")
    PS_ARRAY(r.flow_dirs, std::uint8_t, "flow_dirs")
    PS_ARRAY(r.agent_spans.start_ns, std::uint64_t, "span_start")
    PS_ARRAY(r.agent_spans.end_ns, std::uint64_t, "span_end")
    PS_ARRAY(r.agent_spans.lane, std::uint32_t, "span_lane")
#undef PS_ARRAY
    auto levels = array_of<std::uint64_t>(m, "stamps");
    if (!levels) return levels.error();
    for (std::size_t i = 0; i + 1 < levels->size(); i += 2)
        r.stamps.levels.emplace_back((*levels)[i], (*levels)[i + 1]);
    if (const std::string* bytes = m.blob("recording")) {
        auto recording =
            decode_search_events(std::span(reinterpret_cast<const std::uint8_t*>(bytes->data()), bytes->size()));
        if (!recording) return Error{"the recording blob: " + recording.error().message};
        r.recording = std::make_shared<SearchRecording>(std::move(*recording));
    }
    if (const std::string* t = m.blob("timeline")) {
        auto timeline = timeline_of(*t);
        if (!timeline) return timeline.error();
        report.timeline = std::make_shared<const trace::Timeline>(std::move(*timeline));
    }
    if (const JsonValue* load = m.field("agent_load"); load && load->items.size() == 11) {
        const auto& f = load->items;
        trace::AgentLoadSummary a;
        a.agents = std::size_t(u64_of(&f[0]));
        a.lanes = std::size_t(u64_of(&f[1]));
        a.lane_unit = f[2].string_or("");
        a.span_ms = num_of(&f[3]);
        a.done_50 = num_of(&f[4]);
        a.done_90 = num_of(&f[5]);
        a.done_99 = num_of(&f[6]);
        a.done_100 = num_of(&f[7]);
        a.running_last_10 = std::size_t(u64_of(&f[8]));
        a.first_lane_done_ms = num_of(&f[9]);
        a.last_lane_done_ms = num_of(&f[10]);
        report.agent_load = a;
    }
    return report;
}

}  // namespace ps::remote
