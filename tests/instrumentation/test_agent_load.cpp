// Agent load of batch runs on the timeline: hand-worked bins and imbalance summary, placement of
// device-clock spans on a CUPTI kernel, the layout's rows, that the GPU analysis ignores the new
// events, exports, and traced batch.cpu / batch.gpu.queue runs through the runner.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "instrumentation/output/chrome_trace.hpp"
#include "instrumentation/timeline/agent_load.hpp"
#include "instrumentation/timeline/timeline_layout.hpp"
#include "kernels/graph/agents.hpp"
#include "kernels/graph/roadmap.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using trace::EventKind;
using trace::TrackKind;

// 3 lanes, 5 agents over [0, 1000) ns; with 10 bins of 100 ns:
//   SM 0: [0, 300) and [300, 500)       -> one agent in flight over [0, 500)
//   SM 1: [0, 1000)                     -> one agent over the whole run
//   SM 2: [150, 250) and [600, 650)     -> half an agent in bins 1, 2 and 6
struct HandSpans {
    std::vector<std::uint64_t> start = {0, 300, 0, 150, 600};
    std::vector<std::uint64_t> end = {300, 500, 1000, 250, 650};
    std::vector<std::uint32_t> lane = {0, 0, 1, 2, 2};
    trace::AgentSpanView view() const { return {start, end, lane, "SM"}; }
};

struct Load {
    std::int64_t start, end;
    double load;
    friend bool operator==(const Load&, const Load&) = default;
};
std::ostream& operator<<(std::ostream& out, const Load& l) {
    return out << '[' << l.start << ", " << l.end << ") " << l.load;
}

// AgentLoad events per track id, by start.
std::map<std::uint64_t, std::vector<Load>> loads_by_lane(const trace::Timeline& t) {
    std::map<std::uint64_t, std::vector<Load>> out;
    for (const trace::Event& e : t.events) {
        if (e.kind != EventKind::AgentLoad) continue;
        EXPECT_EQ(t.tracks[e.track].kind, TrackKind::AgentLanes);
        out[t.tracks[e.track].id].push_back({e.start_ns, e.end_ns, e.load});
    }
    for (auto& [lane, loads] : out)
        std::sort(loads.begin(), loads.end(), [](const Load& a, const Load& b) { return a.start < b.start; });
    return out;
}

// Agent-nanoseconds a track's events hold.
double integral(const std::vector<Load>& loads) {
    double sum = 0;
    for (const Load& l : loads) sum += l.load * double(l.end - l.start);
    return sum;
}

TEST(AgentLoad, HandWorkedBinsPerLaneAndOverall) {
    const HandSpans spans;
    trace::Timeline t;
    const std::size_t added = trace::add_agent_load(t, spans.view(), 5'000, 10);
    const auto loads = loads_by_lane(t);
    using V = std::vector<Load>;
    EXPECT_EQ(loads.at(0), (V{{5'000, 5'500, 1.0}}));
    EXPECT_EQ(loads.at(1), (V{{5'000, 6'000, 1.0}}));
    EXPECT_EQ(loads.at(2), (V{{5'100, 5'300, 0.5}, {5'600, 5'700, 0.5}}));  // empty bins add nothing
    EXPECT_EQ(loads.at(trace::kAllLanes), (V{{5'000, 5'100, 2.0},
                                             {5'100, 5'300, 2.5},
                                             {5'300, 5'500, 2.0},
                                             {5'500, 5'600, 1.0},
                                             {5'600, 5'700, 1.5},
                                             {5'700, 6'000, 1.0}}));
    EXPECT_EQ(added, 10u);
    EXPECT_EQ(t.events.size(), 10u);
    // Track names: the lane unit and id, the overall track first.
    ASSERT_EQ(t.tracks.size(), 4u);
    EXPECT_EQ(t.tracks[0].name, "agents in flight");
    EXPECT_EQ(t.tracks[1].name, "SM 0");
    EXPECT_EQ(t.tracks[3].name, "SM 2");
    EXPECT_EQ(t.events.back().name, "0.5 agents in flight");
    // The events hold every agent's time exactly once.
    EXPECT_DOUBLE_EQ(integral(loads.at(trace::kAllLanes)), 300 + 200 + 1000 + 100 + 50);
    EXPECT_DOUBLE_EQ(integral(loads.at(2)), 150);
}

TEST(AgentLoad, UnevenBinsAndAnEmptyInput) {
    // 1000 ns in 3 bins: 334 ns wide, the last one 332 ns; one agent over all of it.
    const std::vector<std::uint64_t> start = {10, 10}, end = {1010, 510};
    const std::vector<std::uint32_t> lane = {4, 4};
    trace::Timeline t;
    trace::add_agent_load(t, {start, end, lane, "thread"}, 0, 3);
    const auto loads = loads_by_lane(t);
    ASSERT_EQ(loads.at(4).size(), 3u);
    EXPECT_EQ(loads.at(4)[0], (Load{10, 344, 2.0}));
    EXPECT_EQ(loads.at(4)[1].end, 678);
    EXPECT_DOUBLE_EQ(loads.at(4)[1].load, 1.0 + 166.0 / 334.0);
    EXPECT_EQ(loads.at(4)[2], (Load{678, 1010, 1.0}));
    EXPECT_DOUBLE_EQ(integral(loads.at(4)), 1500);

    trace::Timeline empty;
    EXPECT_EQ(trace::add_agent_load(empty, {}, 0), 0u);
    EXPECT_TRUE(empty.tracks.empty());
    EXPECT_EQ(trace::summarize_agent_load({}).agents, 0u);
}

TEST(AgentLoad, HandWorkedSummary) {
    const HandSpans spans;
    const trace::AgentLoadSummary s = trace::summarize_agent_load(spans.view());
    EXPECT_EQ(s.agents, 5u);
    EXPECT_EQ(s.lanes, 3u);
    EXPECT_DOUBLE_EQ(s.span_ms, 0.001);
    // Ends in order: 250, 300, 500, 650, 1000.
    EXPECT_DOUBLE_EQ(s.done_50, 0.5);  // the 3rd agent
    EXPECT_DOUBLE_EQ(s.done_90, 1.0);  // the 5th
    EXPECT_DOUBLE_EQ(s.done_100, 1.0);
    EXPECT_EQ(s.running_last_10, 1u);                // only SM 1's agent ends after 900 ns
    EXPECT_DOUBLE_EQ(s.first_lane_done_ms, 0.0005);  // SM 0
    EXPECT_DOUBLE_EQ(s.last_lane_done_ms, 0.001);    // SM 1
    EXPECT_EQ(trace::describe(s),
              "agent load: 50% of agents done at 50% of the run (0.0 ms), 90% at 100%, 99% at 100%; 1 agent "
              "still running in the last 10%; 3 SMs finished between 0.0 and 0.0 ms");

    // 100 agents, one a ms, all but the last ending at once: the tail is one agent.
    std::vector<std::uint64_t> start(100, 0), end(100, 1'000'000);
    std::vector<std::uint32_t> lane(100, 0);
    end[99] = 10'000'000;
    for (std::size_t i = 0; i < 100; ++i) lane[i] = std::uint32_t(i % 4);
    const auto tail = trace::summarize_agent_load({start, end, lane, "thread"});
    EXPECT_DOUBLE_EQ(tail.done_50, 0.1);
    EXPECT_DOUBLE_EQ(tail.done_99, 0.1);
    EXPECT_DOUBLE_EQ(tail.done_100, 1.0);
    EXPECT_EQ(tail.running_last_10, 1u);
    EXPECT_DOUBLE_EQ(tail.first_lane_done_ms, 1.0);
    EXPECT_DOUBLE_EQ(tail.last_lane_done_ms, 10.0);

    // On %globaltimer (~1.7e18 ns, where a double steps by 256 ns): an agent ending 1 ns after
    // 90 % of a 1000 ns run is in the tail, one ending on it is not.
    const std::uint64_t t0 = 1'700'000'000'000'000'001;
    const std::vector<std::uint64_t> big_start = {t0, t0, t0}, big_end = {t0 + 1000, t0 + 901, t0 + 900};
    const std::vector<std::uint32_t> big_lane = {0, 1, 2};
    EXPECT_EQ(trace::summarize_agent_load({big_start, big_end, big_lane, "SM"}).running_last_10, 2u);
}

using test::kernel_event;

TEST(AgentLoad, DeviceSpansAnchorOnTheFirstMatchingKernel) {
    trace::Timeline t;
    t.events.push_back(kernel_event(t, "void ps::gpu::batch::bsp_step(int)", 3'000'000, 3'100'000));
    t.events.push_back(kernel_event(t, "void ps::gpu::batch::bsp_step(int)", 2'000'000, 2'100'000));
    t.events.push_back(kernel_event(t, "memset_kernel", 1'000'000, 1'100'000));
    // The device clock: agents from 7'000'400 (the third was never stamped); the first bsp
    // launch starts at 2'000'000.
    const std::vector<std::uint64_t> device_start = {7'000'700, 7'000'400, 0};
    const std::vector<std::uint64_t> device_end = {7'010'700, 7'050'400, 0};
    const std::vector<std::uint32_t> lane = {9, 3, 0};
    const trace::AgentSpanView view{device_start, device_end, lane, "SM"};
    EXPECT_EQ(trace::device_span_offset(t, "bsp_", view, 55), 2'000'000 - 7'000'400);
    // Light tracing: no kernel records, the fallback (start of the compute phase).
    EXPECT_EQ(trace::device_span_offset(t, "queue_run", view, 55), 55 - 7'000'400);

    trace::add_agent_load(t, view, trace::device_span_offset(t, "bsp_", view, 0));
    EXPECT_EQ(trace::summarize_agent_load(view).agents, 2u);
    const auto loads = loads_by_lane(t);
    EXPECT_EQ(loads.count(0), 0u);
    EXPECT_EQ(loads.at(3).front().start, 2'000'000);
    EXPECT_EQ(loads.at(9).front().start, 2'000'250);  // 50 us in 200 bins: its bin starts 250 ns in
    EXPECT_EQ(loads.at(trace::kAllLanes).back().end, 2'050'000);
}

TEST(AgentLoad, GpuAnalysisIgnoresLoadEvents) {
    trace::Timeline t;
    t.events.push_back(kernel_event(t, "queue_run", 1'000, 5'000));
    t.events.push_back(kernel_event(t, "queue_run", 9'000, 12'000));
    const trace::Summary before = trace::summarize(t);
    const auto gaps_before = trace::gpu_gaps(t);
    const HandSpans spans;
    trace::add_agent_load(t, spans.view(), 0, 10);  // [0, 1000): before and between the kernels too
    for (const trace::Event& e : t.events) EXPECT_EQ(trace::is_gpu_work(e), e.kind == EventKind::Kernel) << e.name;
    const trace::Summary after = trace::summarize(t);
    EXPECT_EQ(after.gpu_items, before.gpu_items);
    EXPECT_EQ(after.gaps, before.gaps);
    EXPECT_EQ(after.levels, 0u);
    EXPECT_DOUBLE_EQ(after.busy_percent, before.busy_percent);
    EXPECT_DOUBLE_EQ(after.span_ms, before.span_ms);
    ASSERT_EQ(trace::gpu_gaps(t).size(), gaps_before.size());
    EXPECT_EQ(trace::gpu_gaps(t).front().start_ns, 5'000);
    EXPECT_EQ(trace::describe(after), trace::describe(before));
}

TEST(AgentLoad, LayoutPutsTheOverallRowAndAHeadingAboveLanesById) {
    trace::Timeline t;
    // Lanes arrive out of order: 2 first.
    const std::vector<std::uint64_t> start = {0, 0, 0}, end = {100, 400, 200};
    const std::vector<std::uint32_t> lane = {2, 0, 1};
    t.events.push_back(kernel_event(t, "queue_run", 0, 400));
    trace::add_agent_load(t, {start, end, lane, "SM"}, 0, 4);
    const trace::TimelineLayout layout = trace::layout_timeline(t);
    std::vector<std::string> labels;
    for (const trace::Row& r : layout.rows)
        if (r.kind == trace::RowKind::AgentLoad) labels.push_back(r.label);
    EXPECT_EQ(labels, (std::vector<std::string>{"agents in flight", "agents per SM", "SM 0", "SM 1", "SM 2"}));
    EXPECT_EQ(layout.rows.front().kind, trace::RowKind::GpuStream);  // everything else stays where it was
    EXPECT_EQ(layout.rows.back().label, "SM 2");
    for (const trace::Row& r : layout.rows) {
        if (r.kind != trace::RowKind::AgentLoad) continue;
        EXPECT_DOUBLE_EQ(r.peak_load, r.label == "agents in flight" ? 3.0 : 1.0) << r.label;
        EXPECT_EQ(r.items.empty(), r.label == "agents per SM") << r.label;
    }
    // Every load event is drawn, in its lane's row.
    for (std::uint32_t i = 0; i < t.events.size(); ++i) {
        ASSERT_NE(layout.row_of_event[i], trace::kNoIndex) << i;
        EXPECT_EQ(layout.rows[layout.row_of_event[i]].track, t.events[i].track) << i;
    }
}

TEST(AgentLoad, ExportsCarryTheLoad) {
    trace::Timeline t;
    const HandSpans spans;
    trace::add_agent_load(t, spans.view(), 0, 10);
    std::ostringstream chrome, csv;
    trace::write_chrome_trace(t, {}, chrome);
    trace::write_csv(t, csv);
    EXPECT_NE(chrome.str().find("\"agents_in_flight\":2.5"), std::string::npos) << chrome.str();
    EXPECT_NE(chrome.str().find("\"agent lanes\""), std::string::npos);
    EXPECT_NE(csv.str().find("agent load,2.5 agents in flight,agents in flight,100,300,200,"), std::string::npos)
        << csv.str();
    EXPECT_NE(csv.str().find(",agent lanes,2,"), std::string::npos);
}

// ---- through the runner --------------------------------------------------------------------

Problem batch_problem(std::size_t agents) {
    static const auto roadmap = [] {
        const GridMap map = test::random_map(96, 64, 0.2, 11);
        return std::make_shared<const Roadmap>(waypoint_roadmap(map, {3, 0, {}}).value());
    }();
    Problem p;
    p.roadmap = std::shared_ptr<const CsrGraph>(roadmap, &roadmap->graph);
    p.agents = random_agents(roadmap->graph, {agents, 9}).value();
    return p;
}

TEST(AgentLoad, TracedBatchCpuRunHasALoadTrackPerWorkerThread) {
    RunRequest request;
    request.variant_id = "batch.cpu";
    request.problem = batch_problem(3000);
    request.problem.params["threads"] = "2";
    request.context.trace = trace::TraceLevel::Light;
    const RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_EQ(report.result.validation, Validation::Reference);
    EXPECT_TRUE(report.result.agent_spans.empty());  // the measured repetitions are not traced
    ASSERT_TRUE(report.timeline);
    ASSERT_TRUE(report.agent_load);
    EXPECT_EQ(report.agent_load->agents, 3000u);
    EXPECT_EQ(report.agent_load->lane_unit, "thread");
    EXPECT_EQ(report.agent_load->lanes, 2u);
    EXPECT_DOUBLE_EQ(report.agent_load->done_100, 1.0);
    EXPECT_LE(report.agent_load->done_50, report.agent_load->done_90);
    EXPECT_LE(report.agent_load->first_lane_done_ms, report.agent_load->last_lane_done_ms);
    EXPECT_EQ(report.result.counters.at("load_done_90"), report.agent_load->done_90);  // stored with the run
    EXPECT_EQ(report.result.counters.at("load_last_lane_done_ms"), report.agent_load->last_lane_done_ms);

    const trace::Timeline& t = *report.timeline;
    const auto loads = loads_by_lane(t);
    ASSERT_EQ(loads.size(), 3u);  // threads 0 and 1, and the overall track
    EXPECT_TRUE(loads.count(0) && loads.count(1));
    // A worker runs one agent at a time; the overall track is the lanes added up.
    for (std::uint64_t lane : {0, 1})
        for (const Load& l : loads.at(lane)) {
            EXPECT_GT(l.load, 0.0);
            EXPECT_LE(l.load, 1.0 + 1e-9);
        }
    const double all = integral(loads.at(trace::kAllLanes));
    EXPECT_GT(all, 0.0);
    EXPECT_NEAR(all, integral(loads.at(0)) + integral(loads.at(1)), 1e-9 * all);
    EXPECT_LE(all / 1e6, 2 * report.agent_load->span_ms * (1 + 1e-9));  // never more than 2 in flight
    // Host spans sit inside the traced repetition on the timeline's (steady) clock.
    const auto phase = std::find_if(t.events.begin(), t.events.end(),
                                    [](const trace::Event& e) { return e.kind == EventKind::HostPhase; });
    ASSERT_NE(phase, t.events.end());
    for (const trace::Event& e : t.events)
        if (e.kind == EventKind::AgentLoad) {
            EXPECT_GE(e.start_ns, phase->start_ns);
        }
    // Nothing of it counts as GPU work.
    EXPECT_EQ(trace::summarize(t).gpu_items, 0u);
}

TEST(AgentLoad, UntracedBatchCpuRecordsNoSpans) {
    Problem p = batch_problem(50);
    const RunResult r = Registry::instance().find("batch.cpu")->run(p, RunContext{});
    ASSERT_EQ(r.status, RunStatus::Ok);
    EXPECT_TRUE(r.agent_spans.empty());

    RunContext traced;
    traced.trace = trace::TraceLevel::Light;
    p.params["threads"] = "3";
    const RunResult s = Registry::instance().find("batch.cpu")->run(p, traced);
    ASSERT_EQ(s.status, RunStatus::Ok);
    ASSERT_EQ(s.agent_spans.start_ns.size(), 50u);
    ASSERT_EQ(s.agent_spans.end_ns.size(), 50u);
    ASSERT_EQ(s.agent_spans.lane.size(), 50u);
    EXPECT_FALSE(s.agent_spans.device_clock);
    for (std::size_t i = 0; i < 50; ++i) {
        EXPECT_GT(s.agent_spans.start_ns[i], 0u) << i;
        EXPECT_LE(s.agent_spans.start_ns[i], s.agent_spans.end_ns[i]) << i;
        EXPECT_LT(s.agent_spans.lane[i], 3u) << i;
    }
}

TEST(AgentLoadGpu, TracedQueueRunHasSpansOnSmsAndLoadTracks) {
    PS_REQUIRE_GPU();
    Problem p = batch_problem(4000);
    RunContext traced;
    traced.trace = trace::TraceLevel::Light;
    const RunResult r = Registry::instance().find("batch.gpu.queue")->run(p, traced);
    ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
    const AgentSpans& s = r.agent_spans;
    ASSERT_EQ(s.start_ns.size(), p.agents.size());
    ASSERT_EQ(s.end_ns.size(), p.agents.size());
    ASSERT_EQ(s.lane.size(), p.agents.size());
    EXPECT_TRUE(s.device_clock);
    EXPECT_EQ(s.lane_unit, "SM");
    for (std::size_t i = 0; i < p.agents.size(); ++i) {
        EXPECT_LE(s.start_ns[i], s.end_ns[i]) << i;
        EXPECT_LT(s.lane[i], std::uint32_t(gpu_info().sm_count)) << i;
    }

    for (auto level : {trace::TraceLevel::Light, trace::TraceLevel::Full}) {
        RunRequest request;
        request.variant_id = "batch.gpu.queue";
        request.problem = p;
        request.context.trace = level;
        const RunReport report = run_variant(request);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
        ASSERT_TRUE(report.timeline && report.agent_load) << report.trace_message;
        EXPECT_EQ(report.agent_load->agents, p.agents.size());
        EXPECT_GE(report.agent_load->lanes, 1u);
        EXPECT_LE(report.agent_load->lanes, std::size_t(gpu_info().sm_count));
        const auto loads = loads_by_lane(*report.timeline);
        EXPECT_EQ(loads.size(), report.agent_load->lanes + 1) << to_string(level);
        // Anchored: with CUPTI, the overall track starts at the queue kernel's start.
        const trace::Timeline& t = *report.timeline;
        const auto k = std::find_if(t.events.begin(), t.events.end(), [](const trace::Event& e) {
            return e.kind == EventKind::Kernel && e.name.find("queue_run") != std::string::npos;
        });
        if (k != t.events.end()) {
            EXPECT_EQ(loads.at(trace::kAllLanes).front().start, k->start_ns);
        }
    }
}

}  // namespace
}  // namespace ps
