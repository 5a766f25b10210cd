// Device levels onto the CUPTI axis (add_device_levels), and timelines through the history
// store (encode_timeline / decode_timeline), agent load tracks included.
#include <gtest/gtest.h>

#include <algorithm>

#include "database/recorder.hpp"
#include "instrumentation/timeline/agent_load.hpp"
#include "instrumentation/capture/device_levels.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

trace::Event kernel(trace::Timeline& t, const char* name, std::int64_t start, std::int64_t end) {
    return test::kernel_event(t, name, start, end);
}

// Every stored field of every event and its track reads back as written.
void expect_same_events(const trace::Timeline& t, const trace::Timeline& back) {
    ASSERT_EQ(back.events.size(), t.events.size());
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const trace::Event &a = t.events[i], &b = back.events[i];
        EXPECT_EQ(a.kind, b.kind) << i;
        EXPECT_EQ(a.name, b.name) << i;
        EXPECT_EQ(a.start_ns, b.start_ns) << i;
        EXPECT_EQ(a.end_ns, b.end_ns) << i;
        EXPECT_EQ(a.correlation_id, b.correlation_id) << i;
        EXPECT_EQ(a.level, b.level) << i;
        EXPECT_EQ(a.grid[0], b.grid[0]) << i;
        EXPECT_EQ(a.block[0], b.block[0]) << i;
        EXPECT_EQ(a.bytes, b.bytes) << i;
        EXPECT_EQ(a.device_launched, b.device_launched) << i;
        EXPECT_EQ(a.queued_ns, b.queued_ns) << i;
        EXPECT_EQ(a.submitted_ns, b.submitted_ns) << i;
        EXPECT_EQ(a.load, b.load) << i;  // exactly: %.17g reads back as the same double
        EXPECT_EQ(t.tracks[a.track].kind, back.tracks[b.track].kind) << i;
        EXPECT_EQ(t.tracks[a.track].id, back.tracks[b.track].id) << i;
        EXPECT_EQ(t.tracks[a.track].name, back.tracks[b.track].name) << i;
    }
}

TEST(TraceDeviceLevels, HostLoopKernelsAnchorEveryLevel) {
    // Three host-launched level kernels; the device clock runs 1 ms behind CUPTI's.
    trace::Timeline t;
    t.events.push_back(kernel(t, "ps::gpu::bfs::frontier_level(...)", 2'000'000, 2'004'000));
    t.events.push_back(kernel(t, "ps::gpu::bfs::frontier_level(...)", 2'020'000, 2'024'000));
    t.events.push_back(kernel(t, "other_kernel", 2'010'000, 2'011'000));
    t.events.push_back(kernel(t, "ps::gpu::bfs::frontier_level(...)", 2'040'000, 2'044'000));
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> stamps = {
        {1'000'500, 1'003'500}, {1'020'500, 1'023'500}, {1'040'500, 1'043'500}};
    const auto r = trace::add_device_levels(t, stamps, "frontier_level", false, 0);
    ASSERT_TRUE(r.fit);
    EXPECT_EQ(r.fit->pairs, 3u);
    EXPECT_EQ(r.levels_added, 3u);
    // Kernels tagged with their level, in launch order; the other kernel untouched.
    EXPECT_EQ(t.events[0].level, 0);
    EXPECT_EQ(t.events[1].level, 1);
    EXPECT_EQ(t.events[2].level, -1);
    EXPECT_EQ(t.events[3].level, 2);
    for (std::size_t l = 0; l < 3; ++l) {
        const trace::Event& level = t.events[4 + l];
        EXPECT_EQ(level.kind, trace::EventKind::DeviceLevel);
        EXPECT_EQ(level.level, std::int32_t(l));
        EXPECT_NEAR(double(level.start_ns), double(stamps[l].first) + 999'500.0, 2.0);
        EXPECT_FALSE(level.device_launched);
    }
}

TEST(TraceDeviceLevels, TailChainAndFallback) {
    trace::Timeline t;
    t.events.push_back(kernel(t, "ps::gpu::bfs::dp_level(...)", 5'000, 9'000));
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> stamps = {{100, 3'000}, {15'000, 17'000}, {0, 0}};
    const auto r = trace::add_device_levels(t, stamps, "dp_level", true, 0);
    ASSERT_TRUE(r.fit);
    EXPECT_EQ(r.levels_added, 2u);  // the third level never ran
    EXPECT_EQ(t.events[1].start_ns, 5'000);
    EXPECT_FALSE(t.events[1].device_launched);
    EXPECT_EQ(t.events[2].start_ns, 19'900);
    EXPECT_TRUE(t.events[2].device_launched);

    trace::Timeline light;  // no CUPTI records: shifted by the fallback offset
    const auto placed = trace::add_device_levels(light, stamps, "dp_level", true, 1'000);
    EXPECT_FALSE(placed.fit);
    EXPECT_EQ(light.events.front().start_ns, 1'100);
}

TEST(TraceStore, TimelineRoundTripsThroughRows) {
    trace::Timeline t;
    trace::Event k = kernel(t, "ps::gpu::bfs::dp_level(ps::gpu::bfs::Graph, int*)", 10, 20);
    k.correlation_id = 77;
    k.grid[0] = 4;
    k.block[0] = 256;
    k.level = 0;
    k.queued_ns = 4;
    k.submitted_ns = 7;
    t.events.push_back(k);
    trace::Event level;
    level.kind = trace::EventKind::DeviceLevel;
    level.name = "level 1";
    level.track = t.add_track(trace::TrackKind::DeviceLevels, 0, "device levels");
    level.start_ns = 30;
    level.end_ns = 45;
    level.level = 1;
    level.device_launched = true;
    t.events.push_back(level);
    trace::Event copy;
    copy.kind = trace::EventKind::Memcpy;
    copy.name = "memcpy DtoH";
    copy.track = 0;
    copy.start_ns = 50;
    copy.end_ns = 90;
    copy.bytes = 1 << 20;
    t.events.push_back(copy);

    const trace::Timeline back = db::decode_timeline(db::encode_timeline(t));
    expect_same_events(t, back);
    // The analysis sees the same thing before and after storing.
    const auto s1 = trace::summarize(t), s2 = trace::summarize(back);
    EXPECT_EQ(s1.gaps, s2.gaps);
    EXPECT_EQ(s1.device_levels, s2.device_levels);
}

TEST(TraceStore, AgentLoadRoundTripsThroughRows) {
    trace::Timeline t;
    t.events.push_back(kernel(t, "void ps::gpu::batch::queue_run(...)", 100, 2'000));
    const std::vector<std::uint64_t> start = {100, 130, 400}, end = {1'900, 1'000, 700};
    const std::vector<std::uint32_t> lane = {5, 0, 5};
    ASSERT_GT(trace::add_agent_load(t, {start, end, lane, "SM"}, 0, 7), 3u);  // uneven thirds of loads

    const trace::Timeline back = db::decode_timeline(db::encode_timeline(t));
    expect_same_events(t, back);
    const auto loads = std::count_if(back.events.begin(), back.events.end(),
                                     [](const trace::Event& e) { return e.kind == trace::EventKind::AgentLoad; });
    EXPECT_EQ(std::size_t(loads), t.events.size() - 1);
    EXPECT_EQ(back.tracks.size(), 4u);  // the stream, the overall track, SM 0 and SM 5
    // Rows stored before loads were (no "load" in the payload) read back with none.
    auto rows = db::encode_timeline(t);
    for (auto& row : rows) row.payload = row.payload.substr(0, row.payload.find(",\"load\"")) + "}";
    const trace::Timeline old = db::decode_timeline(rows);
    EXPECT_EQ(old.events.back().kind, trace::EventKind::AgentLoad);
    EXPECT_EQ(old.events.back().load, 0.0);
}

}  // namespace
}  // namespace ps
