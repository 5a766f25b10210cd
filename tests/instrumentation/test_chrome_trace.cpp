// The Chrome trace export against the Trace Event Format as Perfetto reads it, on a hand-built
// timeline and on the recorded traces in tests/data: the text is strict JSON (the project's
// RFC 8259 reader), every event has the fields its phase needs, every row is named, slices on
// one thread nest, and each flow joins a runtime API call to the GPU work with its correlation
// id (or a cudaGraphLaunch to the first node kernel it ran, or a device level to the
// tail-launched next one), as many as the Timeline (for graph launches: the CSV rows) says.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "instrumentation/output/chrome_trace.hpp"
#include "instrumentation/timeline/timeline.hpp"
#include "kernels/base/json_reader.hpp"

namespace ps::trace {
namespace {

using Type = JsonValue::Type;

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // CUPTI timestamps are this large
constexpr const char* kLaunch = "launch";
constexpr const char* kTailLaunch = "tail launch";
constexpr const char* kGraphLaunch = "graph launch";

// ---- Reading the document back --------------------------------------------------------------

struct Slice {  // a complete event ('X')
    std::string name, cat;
    std::int64_t pid = 0, tid = 0, start_ns = 0, end_ns = 0;
    std::uint64_t correlation = 0, graph_node = 0;
    bool device_launched = false;
    const JsonValue* json = nullptr;
};

struct FlowEnd {  // 's' or 'f'
    std::string name, cat;
    std::int64_t pid = 0, tid = 0, ts_ns = 0;
};

struct Flow {
    int starts = 0, finishes = 0;
    FlowEnd s, f;
};

struct Trace {
    JsonValue doc;
    std::vector<Slice> slices;
    std::map<std::uint64_t, Flow> flows;          // by id
    std::map<std::int64_t, std::string> process;  // pid -> process_name
    std::map<std::int64_t, std::int64_t> process_sort;
    std::map<std::int64_t, std::pair<std::int64_t, std::string>> thread;  // tid -> (pid, thread_name)
    std::map<std::int64_t, std::int64_t> thread_sort;                     // tid -> sort index
    std::set<std::pair<std::int64_t, std::int64_t>> used;                 // (pid, tid) of X, s, f
};

const JsonValue* member(const JsonValue& object, std::string_view key, Type type) {
    const JsonValue* v = object.find(key);
    return v && v->is(type) ? v : nullptr;
}

// Timestamps in microseconds to nanoseconds, rounded as Perfetto's importer does.
std::int64_t ns_of(const JsonValue& us) { return std::llround(us.number * 1000.0); }

bool whole(const JsonValue& v) { return v.is(Type::Number) && std::floor(v.number) == v.number; }

std::uint64_t u64_of(const JsonValue& v) {
    std::uint64_t n = 0;
    std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
    return n;
}

// Reads and checks each event's fields for its phase (fatal failures stop the caller through
// ASSERT_NO_FATAL_FAILURE).
void read_trace(const std::string& text, Trace& out) {
    JsonLimits limits;
    limits.max_bytes = std::size_t(64) << 20;
    auto doc = parse_json(text, limits);
    ASSERT_TRUE(doc) << doc.error().message;
    out.doc = std::move(doc).value();
    ASSERT_TRUE(out.doc.is(Type::Object));
    const JsonValue* unit = member(out.doc, "displayTimeUnit", Type::String);
    ASSERT_TRUE(unit);
    EXPECT_EQ(unit->text, "ns");
    const JsonValue* events = member(out.doc, "traceEvents", Type::Array);
    ASSERT_TRUE(events);

    const std::set<std::string> metadata_names = {"process_name", "thread_name", "process_sort_index",
                                                  "thread_sort_index"};
    for (const JsonValue& e : events->items) {
        ASSERT_TRUE(e.is(Type::Object));
        const JsonValue* ph = member(e, "ph", Type::String);
        const JsonValue* name = member(e, "name", Type::String);
        const JsonValue* pid = e.find("pid");
        const JsonValue* tid = e.find("tid");
        ASSERT_TRUE(ph && name) << "an event without ph or name";
        ASSERT_TRUE(pid && whole(*pid)) << ph->text << " " << name->text << ": pid";
        SCOPED_TRACE(ph->text + " event '" + name->text + "'");
        if (ph->text == "M") {
            ASSERT_TRUE(metadata_names.count(name->text));
            const JsonValue* args = member(e, "args", Type::Object);
            ASSERT_TRUE(args);
            const bool is_thread = name->text.starts_with("thread_");
            if (is_thread) {
                ASSERT_TRUE(tid && whole(*tid));
            }
            const std::int64_t p = std::int64_t(pid->number), t = is_thread ? std::int64_t(tid->number) : 0;
            if (name->text.ends_with("_name")) {
                const JsonValue* value = member(*args, "name", Type::String);
                ASSERT_TRUE(value);
                if (is_thread) {
                    EXPECT_FALSE(out.thread.count(t)) << "tid " << t << " named twice";
                    out.thread[t] = {p, value->text};
                } else {
                    out.process[p] = value->text;
                }
            } else {
                const JsonValue* index = args->find("sort_index");
                ASSERT_TRUE(index && whole(*index));
                (is_thread ? out.thread_sort[t] : out.process_sort[p]) = std::int64_t(index->number);
            }
            continue;
        }
        ASSERT_TRUE(tid && whole(*tid));
        const JsonValue* ts = member(e, "ts", Type::Number);
        ASSERT_TRUE(ts);
        const JsonValue* cat = member(e, "cat", Type::String);
        ASSERT_TRUE(cat);
        out.used.insert({std::int64_t(pid->number), std::int64_t(tid->number)});
        if (ph->text == "X") {
            const JsonValue* dur = member(e, "dur", Type::Number);
            ASSERT_TRUE(dur);
            ASSERT_GE(dur->number, 0.0);
            const JsonValue* args = member(e, "args", Type::Object);
            ASSERT_TRUE(args);
            Slice s{name->text,
                    cat->text,
                    std::int64_t(pid->number),
                    std::int64_t(tid->number),
                    ns_of(*ts),
                    ns_of(*ts) + ns_of(*dur)};
            if (const JsonValue* c = args->find("correlation_id")) {
                ASSERT_TRUE(whole(*c));
                s.correlation = u64_of(*c);
            }
            if (const JsonValue* n = args->find("graph_node_id")) {
                ASSERT_TRUE(whole(*n));
                s.graph_node = u64_of(*n);
            }
            if (const JsonValue* d = args->find("device_launched")) s.device_launched = d->bool_or(false);
            s.json = &e;
            out.slices.push_back(std::move(s));
        } else if (ph->text == "s" || ph->text == "f") {
            const JsonValue* id = e.find("id");
            ASSERT_TRUE(id && whole(*id));
            if (ph->text == "f") {
                const JsonValue* bp = member(e, "bp", Type::String);
                ASSERT_TRUE(bp);
                EXPECT_EQ(bp->text, "e");  // bind to the enclosing slice, not the next one
            }
            Flow& flow = out.flows[u64_of(*id)];
            ++(ph->text == "s" ? flow.starts : flow.finishes);
            (ph->text == "s" ? flow.s : flow.f) =
                FlowEnd{name->text, cat->text, std::int64_t(pid->number), std::int64_t(tid->number), ns_of(*ts)};
        } else {
            FAIL() << "unexpected phase";
        }
    }
}

// ---- What the Timeline says the trace must hold (counted without the exporter) ----------------

bool is_launched_item(const Event& e) {
    return e.kind == EventKind::Kernel || e.kind == EventKind::Memcpy || e.kind == EventKind::Memset;
}

std::size_t expected_launch_flows(const Timeline& t) {
    std::set<std::uint64_t> calls;
    for (const Event& e : t.events)
        if (e.kind == EventKind::RuntimeApi && e.correlation_id != 0) calls.insert(e.correlation_id);
    return std::size_t(std::count_if(t.events.begin(), t.events.end(), [&](const Event& e) {
        return is_launched_item(e) && e.correlation_id != 0 && calls.count(e.correlation_id);
    }));
}

std::size_t expected_tail_flows(const Timeline& t) {
    std::size_t n = 0;
    for (const Event& e : t.events) {
        if (e.kind != EventKind::DeviceLevel || !e.device_launched) continue;
        n += std::any_of(t.events.begin(), t.events.end(), [&](const Event& o) {
            return o.kind == EventKind::DeviceLevel && o.track == e.track && o.start_ns < e.start_ns;
        });
    }
    return n;
}

// ---- The checks -------------------------------------------------------------------------------

struct FlowCounts {
    std::size_t launch = 0, tail = 0, graph = 0;
};

bool is_graph_launch_slice(const Slice& s) { return s.cat == "runtime api" && s.name.starts_with("cudaGraphLaunch"); }

void check_flows(const Trace& tr, FlowCounts& counts) {
    auto on = [](const Slice& s, const FlowEnd& end) { return s.pid == end.pid && s.tid == end.tid; };
    auto is_item = [](const Slice& s) { return s.cat == "kernel" || s.cat == "memcpy" || s.cat == "memset"; };
    for (const auto& [id, flow] : tr.flows) {
        SCOPED_TRACE("flow " + std::to_string(id) + " '" + flow.s.name + "'");
        ASSERT_EQ(flow.starts, 1);
        ASSERT_EQ(flow.finishes, 1);
        EXPECT_EQ(flow.s.name, flow.f.name);
        EXPECT_EQ(flow.s.cat, flow.f.cat);
        EXPECT_LE(flow.s.ts_ns, flow.f.ts_ns) << "an arrow back in time";
        // The slices the two ends bind to: 's' inside its source, 'f' at its target's start.
        std::vector<const Slice*> from, to;
        const bool launch = flow.s.name == kLaunch, graph = flow.s.name == kGraphLaunch;
        ASSERT_TRUE(launch || graph || flow.s.name == kTailLaunch) << "unknown flow";
        for (const Slice& s : tr.slices) {
            const bool source = launch  ? s.cat == "runtime api"
                                : graph ? is_graph_launch_slice(s)
                                        : s.cat == "device level";
            const bool target = launch  ? is_item(s)
                                : graph ? s.cat == "kernel" && s.graph_node != 0
                                        : s.cat == "device level" && s.device_launched;
            if (source && on(s, flow.s) && s.start_ns <= flow.s.ts_ns && flow.s.ts_ns <= s.end_ns) from.push_back(&s);
            if (target && on(s, flow.f) && s.start_ns == flow.f.ts_ns) to.push_back(&s);
        }
        ASSERT_FALSE(from.empty()) << "'s' at " << flow.s.ts_ns << " ns is in no source slice of its thread";
        ASSERT_FALSE(to.empty()) << "'f' at " << flow.f.ts_ns << " ns starts no target slice of its thread";
        if (launch) {
            const bool same_call = std::any_of(from.begin(), from.end(), [&](const Slice* api) {
                return std::any_of(to.begin(), to.end(), [&](const Slice* item) {
                    return api->correlation != 0 && api->correlation == item->correlation;
                });
            });
            EXPECT_TRUE(same_call) << "the API call and the GPU item have different correlation ids";
        }
        ++(launch ? counts.launch : graph ? counts.graph : counts.tail);
    }
}

// Each cudaGraphLaunch starts exactly one arrow (by correlation id, or paired by time when
// CUPTI gave the nodes none), and it ends on a graph node kernel that started after the call.
void check_graph_launches(const Trace& tr) {
    for (const Slice& call : tr.slices) {
        if (!is_graph_launch_slice(call)) continue;
        SCOPED_TRACE(call.name + " at " + std::to_string(call.start_ns) + " ns");
        std::vector<const Flow*> flows;
        for (const auto& [id, flow] : tr.flows)
            if (flow.s.pid == call.pid && flow.s.tid == call.tid && flow.s.ts_ns == call.start_ns)
                flows.push_back(&flow);
        ASSERT_EQ(flows.size(), 1u);
        const FlowEnd& f = flows.front()->f;
        EXPECT_GE(f.ts_ns, call.start_ns);
        EXPECT_TRUE(std::any_of(tr.slices.begin(), tr.slices.end(), [&](const Slice& s) {
            return s.cat == "kernel" && s.graph_node != 0 && s.pid == f.pid && s.tid == f.tid && s.start_ns == f.ts_ns;
        })) << "the arrow ends on no graph node kernel";
    }
}

// Perfetto nests the slices of one thread by time: each must end within the one it starts in.
void check_nesting(const Trace& tr) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<const Slice*>> by_thread;
    for (const Slice& s : tr.slices) by_thread[{s.pid, s.tid}].push_back(&s);
    for (auto& [thread, slices] : by_thread) {
        // In the file, parents come before their children (the longer of two with one start
        // first), for readers that nest in file order.
        for (std::size_t k = 1; k < slices.size(); ++k) {
            const Slice& a = *slices[k - 1];
            const Slice& b = *slices[k];
            EXPECT_TRUE(a.start_ns < b.start_ns || (a.start_ns == b.start_ns && a.end_ns >= b.end_ns))
                << "'" << b.name << "' written after '" << a.name << "' on tid " << thread.second;
        }
        std::stable_sort(slices.begin(), slices.end(), [](const Slice* a, const Slice* b) {
            return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns > b->end_ns;
        });
        std::vector<const Slice*> open;
        for (const Slice* s : slices) {
            while (!open.empty() && open.back()->end_ns <= s->start_ns) open.pop_back();
            if (!open.empty()) {
                EXPECT_LE(s->end_ns, open.back()->end_ns)
                    << s->cat << " '" << s->name << "' [" << s->start_ns << ", " << s->end_ns << "] overlaps "
                    << open.back()->cat << " '" << open.back()->name << "' [" << open.back()->start_ns << ", "
                    << open.back()->end_ns << "] on tid " << thread.second;
            }
            open.push_back(s);
        }
    }
}

void check_names(const Trace& tr) {
    for (const auto& [pid, tid] : tr.used) {
        EXPECT_TRUE(tr.process.count(pid)) << "pid " << pid << " has no process_name";
        const auto named = tr.thread.find(tid);
        ASSERT_NE(named, tr.thread.end()) << "tid " << tid << " has no thread_name";
        EXPECT_EQ(named->second.first, pid) << "tid " << tid << " named in another process";
        EXPECT_FALSE(tr.process.count(tid)) << "tid " << tid << " is also a pid: Perfetto would mix them up";
    }
    for (const auto& [pid, name] : tr.process) EXPECT_TRUE(tr.process_sort.count(pid)) << name;
    for (const auto& [tid, named] : tr.thread) EXPECT_TRUE(tr.thread_sort.count(tid)) << named.second;
}

// Everything the format asks of an export of `t`; graph launch arrows are counted by the caller.
void check_export(const Timeline& t, Trace& tr, FlowCounts& counts) {
    std::ostringstream out;
    write_chrome_trace(t, {"bfs.gpu.dp", "open 64x64", "NVIDIA H100 80GB HBM3", "abc123 RelWithDebInfo"}, out);
    ASSERT_NO_FATAL_FAILURE(read_trace(out.str(), tr));
    EXPECT_EQ(tr.slices.size(), t.events.size());
    ASSERT_NO_FATAL_FAILURE(check_flows(tr, counts));
    EXPECT_EQ(counts.launch, expected_launch_flows(t));
    EXPECT_EQ(counts.tail, expected_tail_flows(t));
    check_graph_launches(tr);
    check_nesting(tr);
    check_names(tr);
    const JsonValue* meta = member(tr.doc, "metadata", Type::Object);
    ASSERT_TRUE(meta);
    for (const char* key : {"variant", "map", "device", "build", "level_name"})
        EXPECT_TRUE(member(*meta, key, Type::String)) << key;
    EXPECT_TRUE(member(*meta, "time_origin_ns", Type::Number));
    const JsonValue* variant = member(*meta, "variant", Type::String);
    EXPECT_TRUE(variant && variant->text == "bfs.gpu.dp");
}

// ---- A hand-built timeline ---------------------------------------------------------------------

struct Builder {
    Timeline t;
    // Stream 14 before stream 13 and the host thread after a stream: the export orders the rows.
    std::uint32_t stream14 = t.add_track(TrackKind::GpuStream, 14, "stream 14");
    std::uint32_t host = t.add_track(TrackKind::HostThread, 4242, "CPU thread 4242");
    std::uint32_t nvtx = t.add_track(TrackKind::Nvtx, 4242, "NVTX 4242");
    std::uint32_t stream13 = t.add_track(TrackKind::GpuStream, 13, "stream 13");
    std::uint32_t levels = t.add_track(TrackKind::DeviceLevels, 0, "device levels");
    std::uint32_t phases = t.add_track(TrackKind::Host, 1, "run phases");

    Event& add(EventKind kind, std::string name, std::uint32_t track, std::int64_t start, std::int64_t end,
               std::uint64_t correlation = 0) {
        Event e;
        e.kind = kind;
        e.name = std::move(name);
        e.track = track;
        e.start_ns = kT0 + start;
        e.end_ns = kT0 + end;
        e.correlation_id = correlation;
        t.events.push_back(std::move(e));
        return t.events.back();
    }
    void level(std::int64_t start, std::int64_t end, std::int32_t index, bool device_launched) {
        Event& e = add(EventKind::DeviceLevel, "level " + std::to_string(index), levels, start, end);
        e.level = index;
        e.device_launched = device_launched;
    }
};

// Times in ns from kT0: a blocking upload, a launch whose kernel ran as a graph node, a launch
// with no recorded kernel, a kernel with no recorded launch, memsets with and without a call,
// NVTX ranges 1 ns inside each other (and one that overruns its parent), two tail-launch chains
// on one level track, two graph launches whose node kernels have no correlation id and one whose
// node has its launch's, and an event whose track index is out of range.
Timeline hand_built() {
    Builder b;
    b.add(EventKind::HostPhase, "upload phase", b.phases, 0, 4000);
    b.add(EventKind::RuntimeApi, "cudaMemcpy", b.host, 0, 4000, 1);
    b.add(EventKind::Memcpy, "memcpy HtoD", b.stream13, 1000, 3000, 1).bytes = 1 << 20;
    b.add(EventKind::RuntimeApi, "cudaLaunchKernel", b.host, 5000, 7000, 2);
    Event& kernel = b.add(EventKind::Kernel, "ps::gpu::bfs::level_kernel(int*)", b.stream14, 9001, 12001, 2);
    kernel.grid[0] = 64;
    kernel.block[0] = 256;
    kernel.grid[1] = kernel.grid[2] = kernel.block[1] = kernel.block[2] = 1;
    kernel.graph_id = 7;
    kernel.graph_node_id = 3;
    b.add(EventKind::RuntimeApi, "cudaLaunchKernel", b.host, 7500, 8000, 4);  // its kernel was dropped
    b.add(EventKind::Kernel, "orphan_kernel", b.stream13, 13000, 14000, 9);   // its call was dropped
    b.add(EventKind::RuntimeApi, "cudaMemsetAsync", b.host, 14000, 14200, 5);
    b.add(EventKind::Memset, "memset", b.stream13, 14700, 14800, 5).bytes = 64;
    b.add(EventKind::Memset, "memset", b.stream13, 14900, 14950, 0);
    b.add(EventKind::Nvtx, "run", b.nvtx, 0, 20000).depth = 0;
    b.add(EventKind::Nvtx, "upload", b.nvtx, 1001, 2999).depth = 1;
    b.add(EventKind::Nvtx, "copy", b.nvtx, 1001, 2998).depth = 2;
    b.add(EventKind::Nvtx, "late", b.nvtx, 15000, 20500).depth = 1;  // ends after "run"
    b.level(9000, 10000, 0, false);
    b.level(10500, 11000, 1, true);
    b.level(11500, 12000, 2, true);
    b.level(15000, 15500, 0, false);  // a second run's chain on the same track
    b.level(16000, 16500, 1, true);
    auto node = [&](std::int64_t start, std::int64_t end, std::uint64_t graph, std::uint64_t id,
                    std::uint64_t correlation) {
        Event& e = b.add(EventKind::Kernel, "graph_node_" + std::to_string(id), b.stream14, start, end, correlation);
        e.graph_id = graph;
        e.graph_node_id = id;
    };
    b.add(EventKind::RuntimeApi, "cudaGraphLaunch_v10000", b.host, 17000, 17500, 6);
    node(18000, 18500, 8, 1, 0);
    node(18600, 19000, 8, 2, 0);
    b.add(EventKind::RuntimeApi, "cudaGraphLaunch_v10000", b.host, 19500, 19800, 7);
    node(20000, 20300, 8, 1, 0);
    node(20400, 20600, 8, 2, 0);
    b.add(EventKind::RuntimeApi, "cudaGraphLaunch_v10000", b.host, 21000, 21200, 10);
    node(21500, 21800, 9, 1, 10);
    b.add(EventKind::HostPhase, "stray", 99, 100, 200);
    return b.t;
}

TEST(ChromeTrace, ReaderIsStrict) {
    for (const char* bad : {"[1,]", "{\"a\":1,}", "{a:1}", "01", "1.", "[1] 2", "\"a\nb\"", "{\"a\" 1}", "[.5]"})
        EXPECT_FALSE(parse_json(bad)) << bad;
    EXPECT_TRUE(parse_json("{\"traceEvents\":[{\"ts\":1.001,\"dur\":1e+06}]}"));
}

TEST(ChromeTrace, HandBuiltTimelineFollowsTheFormat) {
    const Timeline t = hand_built();
    ASSERT_EQ(expected_launch_flows(t), 4u);  // corr 1, 2, 5 and 10
    ASSERT_EQ(expected_tail_flows(t), 3u);    // levels 1 and 2 of the first chain, 1 of the second
    Trace tr;
    FlowCounts counts;
    ASSERT_NO_FATAL_FAILURE(check_export(t, tr, counts));
    EXPECT_EQ(counts.graph, 2u);  // the launches at 17000 and 19500 ns
}

TEST(ChromeTrace, HandBuiltDetails) {
    Trace tr;
    FlowCounts counts;
    ASSERT_NO_FATAL_FAILURE(check_export(hand_built(), tr, counts));
    auto slice = [&](std::string_view name) -> const Slice& {
        for (const Slice& s : tr.slices)
            if (s.name == name) return s;
        ADD_FAILURE() << "no slice " << name;
        return tr.slices.front();
    };

    // Nanoseconds survive as 3 decimals of a microsecond, relative to the earliest event.
    const Slice& kernel = slice("ps::gpu::bfs::level_kernel(int*)");
    EXPECT_EQ(kernel.json->find("ts")->text, "9.001");
    EXPECT_EQ(kernel.json->find("dur")->text, "3");
    const JsonValue& args = *kernel.json->find("args");
    EXPECT_EQ(args.find("correlation_id")->text, "2");
    EXPECT_EQ(args.find("grid")->text, "64x1x1");
    EXPECT_EQ(args.find("block")->text, "256x1x1");
    EXPECT_EQ(args.find("graph_id")->text, "7");
    EXPECT_EQ(args.find("graph_node_id")->text, "3");
    EXPECT_EQ(slice("memcpy HtoD").json->find("args")->find("bytes")->text, "1048576");
    EXPECT_EQ(slice("copy").end_ns, 2998);
    EXPECT_EQ(slice("upload").end_ns, 2999);
    // The range that overran its parent ends with it, and says so.
    EXPECT_EQ(slice("late").end_ns, 20000);
    EXPECT_TRUE(slice("late").json->find("args")->find("clamped_to_enclosing_range"));
    EXPECT_EQ(slice("level 1").json->find("args")->find("level")->text, "1");

    // The launch arrow of the kernel: from its cudaLaunchKernel's start to its own start.
    const Flow* kernel_flow = nullptr;
    for (const auto& [id, flow] : tr.flows)
        if (flow.f.ts_ns == 9001) kernel_flow = &flow;
    ASSERT_NE(kernel_flow, nullptr);
    EXPECT_EQ(kernel_flow->s.name, "launch");
    EXPECT_EQ(kernel_flow->s.ts_ns, 5000);
    EXPECT_EQ(std::pair(kernel_flow->s.pid, kernel_flow->s.tid),
              std::pair(slice("cudaMemcpy").pid, slice("cudaMemcpy").tid));
    EXPECT_EQ(std::pair(kernel_flow->f.pid, kernel_flow->f.tid), std::pair(kernel.pid, kernel.tid));

    // Graph launches without correlated nodes: each to the first node of its own execution.
    std::map<std::int64_t, std::int64_t> graph_arrows;  // call start -> node start
    for (const auto& [id, flow] : tr.flows)
        if (flow.s.name == kGraphLaunch) graph_arrows[flow.s.ts_ns] = flow.f.ts_ns;
    EXPECT_EQ(graph_arrows, (std::map<std::int64_t, std::int64_t>{{17000, 18000}, {19500, 20000}}));

    // Rows: host threads, NVTX, GPU streams (by stream id), device levels, then the host's own.
    auto process_rank = [&](const Slice& s) { return tr.process_sort.at(s.pid); };
    EXPECT_LT(process_rank(slice("cudaMemcpy")), process_rank(slice("run")));
    EXPECT_LT(process_rank(slice("run")), process_rank(kernel));
    EXPECT_LT(process_rank(kernel), process_rank(slice("level 1")));
    EXPECT_LT(process_rank(slice("level 1")), process_rank(slice("upload phase")));
    EXPECT_EQ(tr.thread.at(kernel.tid).second, "stream 14");
    EXPECT_LT(tr.thread_sort.at(slice("memcpy HtoD").tid), tr.thread_sort.at(kernel.tid));  // 13 before 14
    EXPECT_EQ(tr.thread.at(slice("stray").tid).second, "no track");
    EXPECT_EQ(tr.process.at(slice("level 1").pid), "device levels");
}

TEST(ChromeTrace, EmptyTimeline) {
    std::ostringstream out;
    write_chrome_trace(Timeline{}, {}, out);
    auto doc = parse_json(out.str());
    ASSERT_TRUE(doc) << doc.error().message << "\n" << out.str();
    EXPECT_TRUE(doc->find("traceEvents")->items.empty());
    EXPECT_EQ(doc->find("displayTimeUnit")->text, "ns");
}

// ---- Recorded traces -------------------------------------------------------------------------

class ChromeTraceRecorded : public ::testing::TestWithParam<const char*> {};

// Graph launch arrows the export must draw, from the CSV's rows themselves (not the Timeline):
// one per cudaGraphLaunch row whose correlation id no kernel row carries, when a graph node
// kernel row without a correlation id starts at or after it.
struct GraphLaunchRows {
    std::size_t calls = 0, expected_flows = 0;
};
GraphLaunchRows graph_launch_rows(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    const auto records = read_csv_records(in);
    GraphLaunchRows out;
    if (records.empty()) return out;
    std::map<std::string, std::size_t> column;
    for (std::size_t c = 0; c < records.front().size(); ++c) column[records.front()[c]] = c;
    const std::size_t kind = column.at("kind"), name = column.at("name"), start = column.at("start_ns"),
                      correlation = column.at("correlation_id");
    const auto node = column.find("graph_node_id");  // absent in traces recorded before graph ids
    std::set<std::string> kernel_correlations;
    std::vector<std::int64_t> uncorrelated_nodes;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const auto& row = records[r];
        if (row[kind] != "kernel") continue;
        if (row[correlation] != "0") kernel_correlations.insert(row[correlation]);
        if (node != column.end() && row[node->second] != "0" && row[correlation] == "0")
            uncorrelated_nodes.push_back(std::stoll(row[start]));
    }
    for (std::size_t r = 1; r < records.size(); ++r) {
        const auto& row = records[r];
        if (row[kind] != "runtime api" || !row[name].starts_with("cudaGraphLaunch")) continue;
        ++out.calls;
        const std::int64_t called = std::stoll(row[start]);
        if (!kernel_correlations.count(row[correlation]) &&
            std::any_of(uncorrelated_nodes.begin(), uncorrelated_nodes.end(),
                        [&](std::int64_t n) { return n >= called; }))
            ++out.expected_flows;
    }
    return out;
}

TEST_P(ChromeTraceRecorded, FollowsTheFormat) {
    const auto path = std::filesystem::path(PATHSCOPE_SOURCE_DIR) / "tests" / "data" / GetParam();
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    std::string error;
    const auto t = read_csv(in, error);
    ASSERT_TRUE(t.has_value()) << path << ": " << error;
    const std::size_t launches = expected_launch_flows(*t);
    EXPECT_GT(launches, 0u);  // every recorded run uploads and downloads
    Trace tr;
    FlowCounts counts;
    ASSERT_NO_FATAL_FAILURE(check_export(*t, tr, counts));
    const GraphLaunchRows graph = graph_launch_rows(path);
    EXPECT_EQ(counts.graph, graph.expected_flows);
    if (std::string_view(GetParam()) == "bfs_graph_64.csv") {
        // One cudaGraphLaunch runs the WHILE node's body; CUPTI gave its nodes correlation id 0.
        EXPECT_EQ(graph.calls, 1u);
        EXPECT_EQ(graph.expected_flows, 1u);
    }
    std::cout << "[ recorded ] " << GetParam() << ": " << tr.slices.size() << " slices, " << launches
              << " launch flows, " << expected_tail_flows(*t) << " tail-launch flows, " << counts.graph
              << " graph launch flows\n";
}

INSTANTIATE_TEST_SUITE_P(Data, ChromeTraceRecorded,
                         ::testing::Values("bfs_dp_64.csv", "bfs_shared_64.csv", "bfs_dp_512.csv", "bfs_graph_64.csv"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                             std::string name = param.param;
                             name = name.substr(0, name.find('.'));
                             return name;
                         });

}  // namespace
}  // namespace ps::trace
