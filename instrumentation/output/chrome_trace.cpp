// The Chrome trace export (see chrome_trace.hpp), written to what Perfetto's JSON importer does
// with it: threads keyed by tid, slices nested per thread by time, flows bound to the slice open
// on their thread at their timestamp.
#include "instrumentation/output/chrome_trace.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "instrumentation/output/json.hpp"

namespace ps::trace {
namespace {

bool carries_bytes(const Event& e) {
    return e.kind == EventKind::Memcpy || e.kind == EventKind::Memset || e.bytes != 0;
}

// GPU work that a runtime API call launched, found through its correlation id.
bool is_launched_item(const Event& e) {
    return e.kind == EventKind::Kernel || e.kind == EventKind::Memcpy || e.kind == EventKind::Memset;
}

// The rows from top to bottom: what the host asked for, then what the GPU did.
constexpr TrackKind kProcessOrder[] = {TrackKind::HostThread,   TrackKind::Nvtx, TrackKind::GpuStream,
                                       TrackKind::DeviceLevels, TrackKind::Host, TrackKind::AgentLanes};

int process_rank(TrackKind kind) {
    for (int r = 0; r < int(std::size(kProcessOrder)); ++r)
        if (kProcessOrder[r] == kind) return r;
    return int(std::size(kProcessOrder));
}

// pid = rank + 1, so that viewers which order processes by pid agree with process_sort_index.
int pid_of(TrackKind kind) { return process_rank(kind) + 1; }

// Perfetto names threads by tid alone and puts an event without a tid (process metadata) on
// thread tid == pid: tids stay clear of the pids.
constexpr std::uint64_t kFirstTid = 100;

// Microseconds with the nanoseconds as decimals: to_chars writes the shortest text that reads
// back as the same double, which for ns / 1e3 is the exact decimal (up to 15 digits: 11 days of
// trace), so a reader gets the very nanosecond back and nested slices nest as in nanoseconds.
double us(std::int64_t ns) { return double(ns) / 1e3; }

struct Place {
    int pid = 0;
    std::uint64_t tid = 0;
};

struct Rows {
    std::vector<Place> of_track;   // per Timeline track
    std::vector<int> thread_rank;  // per track: its thread_sort_index within its process
    Place no_track;                // for an event whose track index is out of range
};

Rows place_rows(const Timeline& t) {
    // Within a process: streams by CUDA's stream id, lanes by theirs with the overall one
    // (kAllLanes, wrapping to 0) first, as the GUI's timeline orders them; else capture order.
    auto key = [&](std::size_t i) -> std::uint64_t {
        const Track& track = t.tracks[i];
        if (track.kind == TrackKind::GpuStream) return track.id;
        if (track.kind == TrackKind::AgentLanes) return track.id + 1;
        return i;
    };
    std::vector<std::size_t> order(t.tracks.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const int ra = process_rank(t.tracks[a].kind), rb = process_rank(t.tracks[b].kind);
        if (ra != rb) return ra < rb;
        return key(a) < key(b);
    });
    Rows rows;
    rows.of_track.resize(t.tracks.size());
    rows.thread_rank.resize(t.tracks.size());
    int rank = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        if (k > 0 && t.tracks[order[k - 1]].kind != t.tracks[i].kind) rank = 0;
        rows.of_track[i] = {pid_of(t.tracks[i].kind), kFirstTid + k};
        rows.thread_rank[i] = rank++;
    }
    rows.no_track = {pid_of(TrackKind::Host), kFirstTid + t.tracks.size()};
    return rows;
}

void write_process_metadata(JsonWriter& json, TrackKind kind) {
    const int pid = pid_of(kind);
    json.begin_object().field("name", "process_name").field("ph", "M").field("pid", pid);
    json.key("args").begin_object().field("name", to_string(kind)).end_object().end_object();
    json.begin_object().field("name", "process_sort_index").field("ph", "M").field("pid", pid);
    json.key("args").begin_object().field("sort_index", process_rank(kind)).end_object().end_object();
}

void write_thread_metadata(JsonWriter& json, Place place, std::string_view name, int rank) {
    json.begin_object().field("name", "thread_name").field("ph", "M");
    json.field("pid", place.pid).field("tid", place.tid);
    json.key("args").begin_object().field("name", name).end_object().end_object();
    json.begin_object().field("name", "thread_sort_index").field("ph", "M");
    json.field("pid", place.pid).field("tid", place.tid);
    json.key("args").begin_object().field("sort_index", rank).end_object().end_object();
}

// One arrow: 's' at `from_us` on the source slice's thread, 'f' at `to_us` on the target's,
// binding to the slice that encloses it ("bp":"e") rather than the next one to begin. Both
// timestamps are the start of their slice: written after the slices, a flow at a slice's start
// finds that slice open and topmost (Perfetto orders events of equal ts by insertion, or puts
// slices first).
void write_flow(JsonWriter& json, std::uint64_t id, std::string_view name, Place from, double from_us, Place to,
                double to_us) {
    json.begin_object().field("name", name).field("cat", "launch").field("ph", "s").field("id", id);
    json.field("ts", from_us).field("pid", from.pid).field("tid", from.tid).end_object();
    json.begin_object().field("name", name).field("cat", "launch").field("ph", "f").field("bp", "e");
    json.field("id", id).field("ts", to_us).field("pid", to.pid).field("tid", to.tid).end_object();
}

}  // namespace

void write_chrome_trace(const Timeline& t, const Provenance& p, std::ostream& out) {
    // Parents before children: by start, then the longer first, so that a reader nesting slices
    // in file order (or by ts alone) opens the enclosing range first.
    std::vector<std::size_t> order(t.events.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const Event& ea = t.events[a];
        const Event& eb = t.events[b];
        if (ea.start_ns != eb.start_ns) return ea.start_ns < eb.start_ns;
        if (end_of(ea) != end_of(eb)) return end_of(ea) > end_of(eb);
        return a < b;
    });
    // Times relative to the earliest event: microseconds since boot with nanosecond fractions
    // would need 16+ significant digits.
    const std::int64_t origin = order.empty() ? 0 : t.events[order.front()].start_ns;

    const Rows rows = place_rows(t);
    auto place_of = [&](const Event& e) { return e.track < t.tracks.size() ? rows.of_track[e.track] : rows.no_track; };
    const bool any_without_track =
        std::any_of(t.events.begin(), t.events.end(), [&](const Event& e) { return e.track >= t.tracks.size(); });

    // NVTX ranges of one thread nest (push/pop); should a capture ever report one that ends
    // after its enclosing range, end it with that range: slices on one thread must nest.
    std::vector<std::int64_t> end_ns(t.events.size());
    std::vector<bool> clamped(t.events.size(), false);
    std::unordered_map<std::uint32_t, std::vector<std::int64_t>> open_ends;  // NVTX track -> ends
    for (std::size_t i : order) {
        const Event& e = t.events[i];
        end_ns[i] = end_of(e);
        if (e.kind != EventKind::Nvtx) continue;
        auto& open = open_ends[e.track];
        while (!open.empty() && open.back() <= e.start_ns) open.pop_back();
        if (!open.empty() && end_ns[i] > open.back()) {
            end_ns[i] = open.back();
            clamped[i] = true;
        }
        open.push_back(end_ns[i]);
    }

    JsonWriter json(out, false);
    json.begin_object().key("traceEvents").begin_array();

    for (TrackKind kind : kProcessOrder) {
        const bool used =
            std::any_of(t.tracks.begin(), t.tracks.end(), [&](const Track& tr) { return tr.kind == kind; });
        if (used || (kind == TrackKind::Host && any_without_track)) write_process_metadata(json, kind);
    }
    for (std::size_t i = 0; i < t.tracks.size(); ++i)
        write_thread_metadata(json, rows.of_track[i], t.tracks[i].name, rows.thread_rank[i]);
    if (any_without_track) write_thread_metadata(json, rows.no_track, "no track", int(t.tracks.size()));

    for (std::size_t i : order) {
        const Event& e = t.events[i];
        const Place place = place_of(e);
        json.begin_object().field("name", e.name).field("cat", to_string(e.kind)).field("ph", "X");
        json.field("ts", us(e.start_ns - origin)).field("dur", us(end_ns[i] - e.start_ns));
        json.field("pid", place.pid).field("tid", place.tid);
        json.key("args").begin_object();
        if (e.correlation_id != 0) json.field("correlation_id", e.correlation_id);
        if (e.level >= 0) json.field(t.level_name, e.level);  // "level", or "iteration" for A*
        if (has_launch_config(e)) json.field("grid", launch_config(e.grid)).field("block", launch_config(e.block));
        if (carries_bytes(e)) json.field("bytes", e.bytes);
        if (e.graph_id != 0) json.field("graph_id", e.graph_id);
        if (e.graph_node_id != 0) json.field("graph_node_id", e.graph_node_id);
        if (e.kind == EventKind::Nvtx) json.field("depth", e.depth);
        if (clamped[i]) json.field("clamped_to_enclosing_range", true);
        if (e.device_launched) json.field("device_launched", true);
        // Launch latency breakdown: queued -> submitted -> start (CUPTI latency timestamps).
        if (e.queued_ns) json.field("queued_to_start_us", double(e.start_ns - e.queued_ns) / 1e3);
        if (e.submitted_ns) json.field("submitted_to_start_us", double(e.start_ns - e.submitted_ns) / 1e3);
        if (e.kind == EventKind::AgentLoad) json.field("agents_in_flight", e.load);
        json.end_object().end_object();
    }

    // correlation id -> the runtime API call that launched the item (the earliest, should a
    // capture ever report one id twice; `order` is by start).
    std::unordered_map<std::uint64_t, std::size_t> api_of;
    for (std::size_t i : order) {
        const Event& e = t.events[i];
        if (e.kind == EventKind::RuntimeApi && e.correlation_id != 0) api_of.emplace(e.correlation_id, i);
    }
    std::uint64_t flow_id = 0;
    std::unordered_set<std::uint64_t> calls_with_items;  // correlation ids of calls whose work we saw
    for (std::size_t i : order) {
        const Event& item = t.events[i];
        if (!is_launched_item(item) || item.correlation_id == 0) continue;
        const auto api = api_of.find(item.correlation_id);
        if (api == api_of.end()) continue;
        calls_with_items.insert(item.correlation_id);
        const Event& call = t.events[api->second];
        write_flow(json, ++flow_id, "launch", place_of(call), us(call.start_ns - origin), place_of(item),
                   us(item.start_ns - origin));
    }
    // CUDA graph launches: CUPTI may report a graph's node kernels with correlation id 0 (with a
    // conditional WHILE node it does: tests/data/bfs_graph_64.csv), and a cudaGraphLaunch record
    // names neither the graph nor the stream. So those launches and node kernels are paired by
    // time: the launches in the order they were called, each with the first uncorrelated node
    // kernel that starts after the call started and after the previous launch's first node (one
    // stream runs its graph launches in launch order, and a launch cannot run before its call).
    // Exact when each launch's first node starts before the next launch is called (PathScope's
    // graph variant: one launch, then a sync); launches queued ahead of their execution would
    // pair a later call with a node of an earlier execution.
    std::vector<std::size_t> unpaired_nodes;
    for (std::size_t i : order) {
        const Event& node = t.events[i];
        if (is_graph_node(node) && !api_of.contains(node.correlation_id)) unpaired_nodes.push_back(i);
    }
    std::size_t next_node = 0;
    for (std::size_t i : order) {
        const Event& call = t.events[i];
        if (!is_graph_launch(call) || calls_with_items.contains(call.correlation_id)) continue;
        while (next_node < unpaired_nodes.size() && t.events[unpaired_nodes[next_node]].start_ns < call.start_ns)
            ++next_node;
        if (next_node == unpaired_nodes.size()) break;
        const Event& node = t.events[unpaired_nodes[next_node++]];
        write_flow(json, ++flow_id, "graph launch", place_of(call), us(call.start_ns - origin), place_of(node),
                   us(node.start_ns - origin));
    }
    // Tail-launch chains: each level launched on the device by the level before it on its track.
    std::unordered_map<std::uint32_t, std::size_t> previous_level;  // track -> event index
    for (std::size_t i : order) {
        const Event& level = t.events[i];
        if (level.kind != EventKind::DeviceLevel) continue;
        const auto [previous, first] = previous_level.try_emplace(level.track, i);
        if (first) continue;
        const Event& before = t.events[previous->second];
        previous->second = i;
        if (!level.device_launched) continue;
        write_flow(json, ++flow_id, "tail launch", place_of(before), us(before.start_ns - origin), place_of(level),
                   us(level.start_ns - origin));
    }
    json.end_array().field("displayTimeUnit", "ns");

    json.key("metadata").begin_object();
    json.field("variant", p.variant).field("map", p.map).field("device", p.device).field("build", p.build);
    json.field("level_name", t.level_name).field("dropped_records", t.dropped_records);
    json.field("time_origin_ns", origin);  // CUPTI clock value of ts 0
    json.end_object().end_object();
    out << '\n';
}

}  // namespace ps::trace
