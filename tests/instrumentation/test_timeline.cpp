// The timeline analysis on hand-built timelines that mimic what CUPTI and the device stamps
// report (host-driven loops, tail-launch chains), the clock fit on synthetic globaltimer data,
// demangling, the Chrome trace / CSV exports read back, and a recorded GPU trace when present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "instrumentation/output/chrome_trace.hpp"
#include "instrumentation/timeline/timeline.hpp"

namespace ps::trace {
namespace {

constexpr std::int64_t kUs = 1000;
// CUPTI timestamps are nanoseconds since boot or the epoch; keep the tests at that magnitude.
constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;

// Appends events to a Timeline with one host thread, two streams and a device-level track.
struct Builder {
    Timeline t;
    std::uint32_t host = t.add_track(TrackKind::HostThread, 4242, "CPU thread 4242");
    std::uint32_t stream = t.add_track(TrackKind::GpuStream, 13, "stream 13");
    std::uint32_t stream2 = t.add_track(TrackKind::GpuStream, 14, "stream 14");
    std::uint32_t levels = t.add_track(TrackKind::DeviceLevels, 0, "device levels");

    std::size_t add(EventKind kind, std::string name, std::uint32_t track, std::int64_t start, std::int64_t end,
                    std::uint64_t correlation = 0, std::int32_t level = -1) {
        Event e;
        e.kind = kind;
        e.name = std::move(name);
        e.track = track;
        e.start_ns = start;
        e.end_ns = end;
        e.correlation_id = correlation;
        e.level = level;
        t.events.push_back(std::move(e));
        return t.events.size() - 1;
    }
    std::size_t api(const char* name, std::int64_t start, std::int64_t end, std::uint64_t correlation) {
        return add(EventKind::RuntimeApi, name, host, start, end, correlation);
    }
    std::size_t kernel(std::int64_t start, std::int64_t end, std::uint64_t correlation = 0, std::int32_t level = -1) {
        const std::size_t i =
            add(EventKind::Kernel, "ps::gpu::bfs::level_kernel(int*)", stream, start, end, correlation, level);
        t.events[i].grid[0] = 64;
        t.events[i].block[0] = 256;
        std::fill(t.events[i].grid + 1, t.events[i].grid + 3, 1u);
        std::fill(t.events[i].block + 1, t.events[i].block + 3, 1u);
        return i;
    }
    std::size_t memcpy(std::int64_t start, std::int64_t end, std::uint64_t correlation, std::uint64_t bytes) {
        const std::size_t i = add(EventKind::Memcpy, "memcpy DtoH", stream, start, end, correlation);
        t.events[i].bytes = bytes;
        return i;
    }
    std::size_t level(std::int64_t start, std::int64_t end, std::int32_t index, bool device_launched) {
        const std::size_t i =
            add(EventKind::DeviceLevel, "level " + std::to_string(index), levels, start, end, 0, index);
        t.events[i].device_launched = device_launched;
        return i;
    }
};

// bfs.gpu.shared's loop: cudaLaunchKernel, the kernel, cudaStreamSynchronize returning
// `sync_return` after the kernel ends, the next launch 0.5 us later.
Timeline host_loop(int levels, std::int64_t kernel_ns, std::int64_t launch_to_start, std::int64_t sync_return) {
    Builder b;
    std::int64_t t = kT0;
    for (int i = 0; i < levels; ++i) {
        const std::uint64_t corr = 2 * std::uint64_t(i) + 1;
        b.api("cudaLaunchKernel", t, t + 2 * kUs, corr);
        const std::int64_t start = t + launch_to_start;
        b.kernel(start, start + kernel_ns, corr, i);
        const std::int64_t sync_end = start + kernel_ns + sync_return;
        b.api("cudaStreamSynchronize", t + 2 * kUs, sync_end, corr + 1);
        t = sync_end + kUs / 2;
    }
    return b.t;
}

// bfs.gpu.dp: a blocking upload, one host launch whose kernel stamps level 0 (placed 20 ns before
// the kernel's CUPTI start, as the clock fit may), `levels - 1` tail-launched levels, then a
// blocking download whose call was issued while the chain still ran.
Timeline tail_chain(int levels, std::int64_t level_ns, std::int64_t gap_ns) {
    Builder b;
    b.api("cudaMemcpy", kT0, kT0 + 4 * kUs, 1);
    b.memcpy(kT0 + 1 * kUs, kT0 + 3 * kUs, 1, 1 << 20);
    b.api("cudaLaunchKernel", kT0 + 5 * kUs, kT0 + 7 * kUs, 2);
    const std::int64_t first = kT0 + 9 * kUs;
    b.level(first - 20, first + level_ns, 0, false);
    b.kernel(first, first + level_ns + kUs, 2);
    std::int64_t end = first + level_ns + kUs;
    for (int l = 1; l < levels; ++l) {
        const std::int64_t start = end + gap_ns;
        end = start + level_ns;
        b.level(start, end, l, true);
    }
    b.api("cudaMemcpy", kT0 + 8 * kUs, end + 5 * kUs, 3);
    b.memcpy(end + 3 * kUs, end + 4 * kUs, 3, 4);
    return b.t;
}

// Kernels of 2 us separated by the given gaps (in us); each launched 3 us before it starts.
Timeline kernels_with_gaps(const std::vector<std::int64_t>& gaps_us) {
    Builder b;
    std::int64_t start = kT0;
    for (std::size_t i = 0; i <= gaps_us.size(); ++i) {
        b.api("cudaLaunchKernel", start - 3 * kUs, start - 2 * kUs, i + 1);
        b.kernel(start, start + 2 * kUs, i + 1, std::int32_t(i));
        if (i < gaps_us.size()) start += 2 * kUs + gaps_us[i] * kUs;
    }
    return b.t;
}

std::vector<GapCause> causes(const std::vector<Gap>& gaps) {
    std::vector<GapCause> out;
    for (const Gap& g : gaps) out.push_back(g.cause);
    return out;
}

// ---- Model -----------------------------------------------------------------------------

TEST(TimelineModel, AddTrackDedupesByKindAndId) {
    Timeline t;
    EXPECT_EQ(t.add_track(TrackKind::GpuStream, 7, "stream 7"), 0u);
    EXPECT_EQ(t.add_track(TrackKind::HostThread, 7, "CPU thread 7"), 1u);
    EXPECT_EQ(t.add_track(TrackKind::GpuStream, 7, "again"), 0u);
    EXPECT_EQ(t.add_track(TrackKind::GpuStream, 8, "stream 8"), 2u);
    ASSERT_EQ(t.tracks.size(), 3u);
    EXPECT_EQ(t.tracks[0].name, "stream 7");
}

TEST(TimelineModel, EveryKindHasADistinctName) {
    std::set<std::string_view> names;
    for (int k = 0; k <= int(EventKind::Overhead); ++k) names.insert(to_string(EventKind(k)));
    EXPECT_EQ(names.size(), std::size_t(EventKind::Overhead) + 1);
    names.clear();
    for (int k = 0; k <= int(TrackKind::Host); ++k) names.insert(to_string(TrackKind(k)));
    EXPECT_EQ(names.size(), std::size_t(TrackKind::Host) + 1);
    names.clear();
    for (int c = 0; c <= int(GapCause::TailLaunch); ++c) names.insert(to_string(GapCause(c)));
    EXPECT_EQ(names.size(), std::size_t(GapCause::TailLaunch) + 1);
}

TEST(TimelineModel, GpuWorkKinds) {
    for (int k = 0; k <= int(EventKind::Overhead); ++k) {
        Event e;
        e.kind = EventKind(k);
        const bool expected = e.kind == EventKind::Kernel || e.kind == EventKind::Memcpy ||
                              e.kind == EventKind::Memset || e.kind == EventKind::DeviceLevel;
        EXPECT_EQ(is_gpu_work(e), expected) << to_string(e.kind);
    }
}

// ---- GPU usage ---------------------------------------------------------------------------

TEST(TimelineUsage, UnionOfGpuItems) {
    struct Item {
        std::int64_t start, end;
        int stream;
    };
    struct Case {
        const char* name;
        std::vector<Item> items;
        std::int64_t span, busy;
    };
    const std::vector<Case> cases = {
        {"empty", {}, 0, 0},
        {"single", {{100, 300, 0}}, 200, 200},
        {"disjoint", {{0, 100, 0}, {200, 300, 0}, {500, 600, 0}}, 600, 300},
        {"overlapping", {{0, 100, 0}, {50, 150, 0}}, 150, 150},
        {"nested", {{0, 1000, 0}, {100, 200, 0}, {300, 400, 0}}, 1000, 1000},
        {"touching", {{0, 100, 0}, {100, 200, 0}}, 200, 200},
        {"two streams overlapping", {{0, 100, 0}, {50, 300, 1}, {400, 500, 0}}, 500, 400},
        {"two streams disjoint", {{0, 100, 0}, {200, 300, 1}}, 300, 200},
        {"unsorted input", {{400, 500, 0}, {0, 100, 1}, {50, 300, 0}}, 500, 400},
        {"instant and reversed records", {{0, 100, 0}, {200, 200, 0}, {300, 250, 1}}, 300, 100},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        Builder b;
        // Host-side events around everything must not count as GPU time.
        b.api("cudaDeviceSynchronize", kT0 - 5000, kT0 + 5000, 99);
        b.add(EventKind::Nvtx, "compute", b.host, kT0 - 6000, kT0 + 6000);
        for (const Item& item : c.items)
            b.add(EventKind::Kernel, "k", item.stream ? b.stream2 : b.stream, kT0 + item.start, kT0 + item.end);
        const GpuUsage u = gpu_usage(b.t);
        EXPECT_EQ(u.span_ns, c.span);
        EXPECT_EQ(u.busy_ns, c.busy);
        EXPECT_EQ(u.idle_ns, c.span - c.busy);
        EXPECT_DOUBLE_EQ(u.busy_fraction(), c.span > 0 ? double(c.busy) / double(c.span) : 0.0);
    }
}

// ---- Gaps --------------------------------------------------------------------------------

TEST(TimelineGaps, CauseOfTheItemAfterTheGap) {
    struct Case {
        const char* name;
        EventKind kind;
        bool device_launched;
        bool correlated;                     // the item carries correlation id 42
        std::optional<std::int64_t> api_at;  // its runtime API call, relative to the gap start
        GapCause expected;
    };
    const std::vector<Case> cases = {
        {"tail-launched level", EventKind::DeviceLevel, true, false, std::nullopt, GapCause::TailLaunch},
        {"tail launch wins over a correlated call", EventKind::DeviceLevel, true, true, 100, GapCause::TailLaunch},
        {"kernel launched as the GPU went idle", EventKind::Kernel, false, true, 0, GapCause::HostSync},
        {"kernel launched after the GPU went idle", EventKind::Kernel, false, true, 3000, GapCause::HostSync},
        {"kernel launched before the GPU went idle", EventKind::Kernel, false, true, -1, GapCause::LaunchLatency},
        {"memcpy called after idle", EventKind::Memcpy, false, true, 500, GapCause::HostSync},
        {"memset queued early", EventKind::Memset, false, true, -2000, GapCause::LaunchLatency},
        {"kernel whose API record is missing", EventKind::Kernel, false, true, std::nullopt, GapCause::Unknown},
        {"kernel without correlation id", EventKind::Kernel, false, false, std::nullopt, GapCause::Unknown},
        {"host-stamped level on its own", EventKind::DeviceLevel, false, false, std::nullopt, GapCause::Unknown},
        {"host-stamped level with its kernel's id", EventKind::DeviceLevel, false, true, -500, GapCause::LaunchLatency},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        Builder b;
        const std::size_t before = b.kernel(kT0, kT0 + 1000);
        const std::size_t after = b.add(c.kind, "next", b.stream, kT0 + 5000, kT0 + 6000, c.correlated ? 42 : 0);
        b.t.events[after].device_launched = c.device_launched;
        if (c.api_at) b.api("cudaLaunchKernel", kT0 + 1000 + *c.api_at, kT0 + 1000 + *c.api_at + 10, 42);
        const auto gaps = gpu_gaps(b.t);
        ASSERT_EQ(gaps.size(), 1u);
        EXPECT_EQ(gaps[0].start_ns, kT0 + 1000);
        EXPECT_EQ(gaps[0].end_ns, kT0 + 5000);
        EXPECT_EQ(gaps[0].length_ns(), 4000);
        EXPECT_EQ(gaps[0].before, before);
        EXPECT_EQ(gaps[0].after, after);
        EXPECT_EQ(gaps[0].cause, c.expected) << to_string(gaps[0].cause);
    }
}

TEST(TimelineGaps, HostDrivenLoopWaitsOnTheHost) {
    const int levels = 50;
    const Timeline t = host_loop(levels, 2 * kUs, 5 * kUs, 3 * kUs);
    const auto gaps = gpu_gaps(t);
    ASSERT_EQ(gaps.size(), std::size_t(levels - 1));
    for (const Gap& g : gaps) {
        // sync returns 3 us after the kernel, next launch 0.5 us later, kernel starts 5 us after that.
        EXPECT_EQ(g.length_ns(), 8500);
        EXPECT_EQ(g.cause, GapCause::HostSync);
        EXPECT_EQ(t.events[g.before].kind, EventKind::Kernel);
        EXPECT_EQ(t.events[g.after].level, t.events[g.before].level + 1);
    }
}

TEST(TimelineGaps, BackToBackLaunchesAreLaunchLatency) {
    // All launches issued up front (0.5 us apart); the kernels run 2 us, 1 us apart.
    Builder b;
    for (int i = 0; i < 10; ++i) {
        b.api("cudaLaunchKernel", kT0 + i * kUs / 2, kT0 + i * kUs / 2 + 400, std::uint64_t(i) + 1);
        const std::int64_t start = kT0 + 10 * kUs + i * 3 * kUs;
        b.kernel(start, start + 2 * kUs, std::uint64_t(i) + 1, i);
    }
    const auto gaps = gpu_gaps(b.t);
    ASSERT_EQ(gaps.size(), 9u);
    for (const Gap& g : gaps) {
        EXPECT_EQ(g.length_ns(), kUs);
        EXPECT_EQ(g.cause, GapCause::LaunchLatency);
    }
}

TEST(TimelineGaps, TailChainGapsAreTailLaunches) {
    const int levels = 40;
    const Timeline t = tail_chain(levels, 1500, 11 * kUs);
    const auto gaps = gpu_gaps(t);
    // upload | level 0 + its kernel | levels 1..39 | download
    ASSERT_EQ(gaps.size(), std::size_t(levels + 1));
    std::vector<GapCause> expected(levels - 1, GapCause::TailLaunch);
    // The upload's call returned before the launch: a host handshake. Level 0, placed 20 ns
    // before its kernel by the clock fit, is classified through that kernel's launch call.
    expected.insert(expected.begin(), GapCause::HostSync);
    // The download was called long before the chain ended: the GPU was just late to start it.
    expected.push_back(GapCause::LaunchLatency);
    EXPECT_EQ(causes(gaps), expected);
    EXPECT_EQ(t.events[gaps[0].after].kind, EventKind::DeviceLevel);
    for (std::size_t i = 1; i < gaps.size() - 1; ++i) EXPECT_EQ(gaps[i].length_ns(), 11 * kUs);
}

TEST(TimelineGaps, MergesStreamsAndNamesTheNeighbours) {
    Builder b;
    const std::size_t a0 = b.add(EventKind::Kernel, "a0", b.stream, kT0 + 0, kT0 + 100);
    const std::size_t b0 = b.add(EventKind::Kernel, "b0", b.stream2, kT0 + 50, kT0 + 200);
    const std::size_t b1 = b.add(EventKind::Kernel, "b1", b.stream2, kT0 + 250, kT0 + 280);
    const std::size_t a1 = b.add(EventKind::Kernel, "a1", b.stream, kT0 + 300, kT0 + 400);
    b.add(EventKind::Kernel, "a2", b.stream, kT0 + 310, kT0 + 320);  // inside a1: no gap
    const auto gaps = gpu_gaps(b.t);
    ASSERT_EQ(gaps.size(), 2u);
    EXPECT_EQ(gaps[0].before, b0);  // the item that ended last, not the one that started first
    EXPECT_NE(gaps[0].before, a0);
    EXPECT_EQ(gaps[0].after, b1);
    EXPECT_EQ(gaps[0].length_ns(), 50);
    EXPECT_EQ(gaps[1].before, b1);
    EXPECT_EQ(gaps[1].after, a1);
    EXPECT_EQ(gaps[1].length_ns(), 20);
}

TEST(TimelineGaps, MinGapFilterIsInclusive) {
    const Timeline t = kernels_with_gaps({1, 5, 10});
    struct Case {
        std::int64_t min_gap;
        std::size_t count;
    };
    for (const Case& c :
         std::vector<Case>{{0, 3}, {kUs, 3}, {5 * kUs, 2}, {5 * kUs + 1, 1}, {10 * kUs, 1}, {20 * kUs, 0}}) {
        SCOPED_TRACE(c.min_gap);
        const auto gaps = gpu_gaps(t, c.min_gap);
        EXPECT_EQ(gaps.size(), c.count);
        for (const Gap& g : gaps) EXPECT_GE(g.length_ns(), c.min_gap);
    }
}

TEST(TimelineGaps, EventOrderDoesNotMatter) {
    const Timeline sorted = tail_chain(20, 1500, 11 * kUs);
    Timeline shuffled = sorted;
    std::shuffle(shuffled.events.begin(), shuffled.events.end(), std::mt19937(7));
    const auto expected = gpu_gaps(sorted);
    const auto got = gpu_gaps(shuffled);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].start_ns, expected[i].start_ns);
        EXPECT_EQ(got[i].end_ns, expected[i].end_ns);
        EXPECT_EQ(got[i].cause, expected[i].cause);
        EXPECT_EQ(shuffled.events[got[i].before].end_ns, got[i].start_ns);
        EXPECT_EQ(shuffled.events[got[i].after].start_ns, got[i].end_ns);
    }
    EXPECT_EQ(describe(summarize(shuffled)), describe(summarize(sorted)));
}

// ---- Launch latency and levels -----------------------------------------------------------

TEST(TimelineLatency, KernelStartMinusApiStartByCorrelationId) {
    Builder b;
    b.kernel(kT0 + 13000, kT0 + 14000, 2);  // added before its call and before kernel 1
    b.api("cudaLaunchKernel", kT0 + 10000, kT0 + 11000, 2);
    b.api("cudaLaunchKernel", kT0, kT0 + 1000, 1);
    b.kernel(kT0 + 5000, kT0 + 6000, 1);
    b.kernel(kT0 + 20000, kT0 + 21000, 3);  // its call was not recorded
    b.kernel(kT0 + 30000, kT0 + 31000, 0);  // no correlation id
    b.api("cudaMemcpyAsync", kT0 + 40000, kT0 + 41000, 4);
    b.memcpy(kT0 + 42000, kT0 + 43000, 4, 64);  // not a kernel
    EXPECT_EQ(launch_latencies_ns(b.t), (std::vector<std::int64_t>{5000, 3000}));
}

TEST(TimelineLevels, FirstStartToLastEndPerLevel) {
    Builder b;
    b.level(kT0 + 0, kT0 + 100, 0, false);
    b.kernel(kT0 + 50, kT0 + 300, 0, 0);
    b.level(kT0 + 1000, kT0 + 1100, 2, true);
    b.level(kT0 + 500, kT0 + 600, 1, true);
    b.add(EventKind::Nvtx, "level 1", b.host, kT0 + 400, kT0 + 900, 0, 1);  // host side: ignored here
    b.kernel(kT0 + 2000, kT0 + 2100);                                       // no level
    const auto costs = level_costs(b.t);
    ASSERT_EQ(costs.size(), 3u);
    const std::int64_t expected[3][2] = {{0, 300}, {500, 600}, {1000, 1100}};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(costs[i].level, std::int32_t(i));
        EXPECT_EQ(costs[i].start_ns - kT0, expected[i][0]);
        EXPECT_EQ(costs[i].end_ns - kT0, expected[i][1]);
    }
}

TEST(TimelineLevels, CpuRunTakesLevelsFromHostEvents) {
    Builder b;
    b.add(EventKind::HostPhase, "compute", b.host, kT0, kT0 + 10000);
    b.add(EventKind::Nvtx, "level 0", b.host, kT0 + 100, kT0 + 500, 0, 0);
    b.add(EventKind::Nvtx, "level 1", b.host, kT0 + 500, kT0 + 1100, 0, 1);
    const auto costs = level_costs(b.t);
    ASSERT_EQ(costs.size(), 2u);
    EXPECT_EQ(costs[1].end_ns - costs[1].start_ns, 600);
    const Summary s = summarize(b.t);
    EXPECT_EQ(s.gpu_items, 0u);
    EXPECT_EQ(s.levels, 2u);
    EXPECT_EQ(describe(s), "no GPU activity recorded, 2 levels, mean level 0.5 us");
}

// ---- Summary -------------------------------------------------------------------------------

// 21 kernels of 2 us, gaps 1..20 us in a scrambled order, one level each.
Timeline twenty_gaps() {
    std::vector<std::int64_t> gaps;
    for (int i = 0; i < 20; ++i) gaps.push_back((i * 7) % 20 + 1);
    return kernels_with_gaps(gaps);
}

TEST(TimelineSummary, HandComputedNumbers) {
    Timeline t = twenty_gaps();
    t.dropped_records = 0;
    const Summary s = summarize(t);
    EXPECT_EQ(s.gpu_items, 21u);
    EXPECT_EQ(s.host_launches, 21u);
    EXPECT_EQ(s.device_levels, 0u);
    EXPECT_EQ(s.levels, 21u);
    EXPECT_EQ(s.gaps, 20u);
    EXPECT_DOUBLE_EQ(s.mean_gap_us, 10.5);
    EXPECT_DOUBLE_EQ(s.p95_gap_us, 19.0);  // nearest rank: the 19th of 20
    EXPECT_DOUBLE_EQ(s.max_gap_us, 20.0);
    EXPECT_NEAR(s.busy_percent, 100.0 * 42.0 / 252.0, 1e-9);  // 21 x 2 us busy over 252 us
    EXPECT_NEAR(s.idle_ms, 0.210, 1e-12);
    EXPECT_NEAR(s.span_ms, 0.252, 1e-12);
    EXPECT_DOUBLE_EQ(s.mean_level_us, 2.0);
    EXPECT_DOUBLE_EQ(s.mean_launch_latency_us, 3.0);
    EXPECT_DOUBLE_EQ(s.launches_per_level, 1.0);
    // Launched 3 us before the start: gaps shorter than that were launch latency, longer host sync.
    const auto c = causes(gpu_gaps(t));
    EXPECT_EQ(std::count(c.begin(), c.end(), GapCause::LaunchLatency), 2);
    EXPECT_EQ(std::count(c.begin(), c.end(), GapCause::HostSync), 18);
}

TEST(TimelineSummary, P95IsNearestRank) {
    struct Case {
        std::vector<std::int64_t> gaps_us;
        double p95;
    };
    auto one_to = [](int n) {
        std::vector<std::int64_t> v;
        for (int i = n; i >= 1; --i) v.push_back(i);
        return v;
    };
    const std::vector<Case> cases = {{{5}, 5},         {{1, 2, 10}, 10}, {{10, 1, 2, 3}, 10},
                                     {one_to(20), 19}, {one_to(21), 20}, {one_to(100), 95}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.gaps_us.size());
        EXPECT_DOUBLE_EQ(summarize(kernels_with_gaps(c.gaps_us)).p95_gap_us, c.p95);
    }
}

TEST(TimelineSummary, EmptyTimeline) {
    const Summary s = summarize(Timeline{});
    EXPECT_EQ(s.gpu_items, 0u);
    EXPECT_EQ(s.gaps, 0u);
    EXPECT_EQ(s.busy_percent, 0.0);
    EXPECT_EQ(s.launches_per_level, 0.0);
    EXPECT_EQ(describe(s), "no GPU activity recorded");
}

TEST(TimelineSummary, DescribeHostLoop) {
    EXPECT_EQ(describe(summarize(twenty_gaps())),
              "21 host launches, 21 levels, mean gap 10.5 us (p95 19.0 us), 0.2 ms idle, GPU busy 17%");
}

TEST(TimelineSummary, DescribeTailChainAndDroppedRecords) {
    Timeline t = tail_chain(100, 1500, 11 * kUs);
    t.dropped_records = 3;
    const Summary s = summarize(t);
    EXPECT_EQ(s.host_launches, 1u);
    EXPECT_EQ(s.device_levels, 100u);
    EXPECT_EQ(s.levels, 100u);
    EXPECT_DOUBLE_EQ(s.launches_per_level, 0.01);
    const std::string line = describe(s);
    EXPECT_EQ(line.rfind("1 host launch, 100 device levels, mean level gap ", 0), 0u) << line;
    EXPECT_NE(line.find("ms idle, GPU busy "), std::string::npos) << line;
    EXPECT_NE(line.find("3 dropped records"), std::string::npos) << line;
}

TEST(TimelineSummary, CompareAlignsTwoColumns) {
    const Summary host = summarize(twenty_gaps());
    const Summary tail = summarize(tail_chain(100, 1500, 11 * kUs));
    const std::string text = compare("host loop", host, "tail chain", tail);
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    ASSERT_GE(lines.size(), 8u);
    for (const auto& line : lines) EXPECT_EQ(line.size(), lines[0].size()) << "'" << line << "'";
    EXPECT_NE(lines[0].find("host loop"), std::string::npos);
    EXPECT_NE(lines[0].find("tail chain"), std::string::npos);
    // The two values of a row: its last two words.
    auto values = [&](std::string_view label) {
        for (const auto& line : lines) {
            if (line.rfind(label, 0) != 0) continue;
            std::istringstream words(line.substr(label.size()));
            std::vector<std::string> v{std::istream_iterator<std::string>(words), {}};
            return v;
        }
        return std::vector<std::string>();
    };
    using Pair = std::vector<std::string>;
    EXPECT_EQ(values("host launches"), (Pair{"21", "1"})) << text;
    EXPECT_EQ(values("device levels"), (Pair{"0", "100"})) << text;
    EXPECT_EQ(values("levels"), (Pair{"21", "100"})) << text;
    EXPECT_EQ(values("mean gap (us)").at(0), "10.5") << text;
    EXPECT_EQ(values("p95 gap (us)").at(0), "19.0") << text;
    EXPECT_EQ(values("GPU busy (%)").at(0), "17") << text;
}

// ---- Clock fit -----------------------------------------------------------------------------

TEST(TimelineClock, RecoversOffsetAndDriftFromNoisyGlobaltimer) {
    const std::int64_t d0 = kT0;  // a multiple of 32, like %globaltimer
    const std::int64_t offset = 1'200'000;
    const double drift = 18e-6;
    const std::int64_t span = 50'000'000;
    auto truth = [&](std::int64_t d) { return d + offset + std::llround(drift * double(d - d0)); };
    for (std::size_t n : {50u, 4000u}) {
        SCOPED_TRACE(n);
        std::mt19937_64 rng(n);
        std::uniform_int_distribution<int> noise(-16, 16);
        std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
        for (std::size_t i = 0; i < n; ++i) {
            const std::int64_t d = d0 + (std::int64_t(i) * span / std::int64_t(n - 1)) / 32 * 32;
            pairs.emplace_back(d, truth(d) + noise(rng));
        }
        const auto fit = fit_clock(pairs);
        ASSERT_TRUE(fit.has_value());
        EXPECT_EQ(fit->pairs, n);
        EXPECT_NEAR(fit->drift, drift, 0.5e-6);
        EXPECT_NEAR(double(fit->map(d0) - d0), double(offset), 100.0);  // the offset at the run's start
        for (std::int64_t d : {d0, d0 + span / 2, d0 + span, d0 + 2 * span})
            EXPECT_NEAR(double(fit->map(d) - truth(d)), 0.0, 2000.0) << d - d0;
        EXPECT_GT(fit->max_residual_ns, 0.0);
        EXPECT_LT(fit->max_residual_ns, 40.0);
    }
}

TEST(TimelineClock, OnePairGivesOffsetOnly) {
    const std::int64_t d = kT0 + 7;
    const auto fit = fit_clock({{d, d + 1'234'567}});
    ASSERT_TRUE(fit.has_value());
    EXPECT_EQ(fit->pairs, 1u);
    EXPECT_EQ(fit->drift, 0.0);
    EXPECT_EQ(fit->offset_ns, 1'234'567.0);
    EXPECT_EQ(fit->max_residual_ns, 0.0);
    EXPECT_EQ(fit->map(d), d + 1'234'567);
    EXPECT_EQ(fit->map(d + 1'000'000'000), d + 1'000'000'000 + 1'234'567);
}

TEST(TimelineClock, PairsAtOneDeviceTimeGiveTheMeanOffset) {
    const auto fit = fit_clock({{kT0, kT0 + 100}, {kT0, kT0 + 140}});
    ASSERT_TRUE(fit.has_value());
    EXPECT_EQ(fit->drift, 0.0);
    EXPECT_EQ(fit->map(kT0), kT0 + 120);
    EXPECT_DOUBLE_EQ(fit->max_residual_ns, 20.0);
}

TEST(TimelineClock, NoPairsNoFit) { EXPECT_FALSE(fit_clock({}).has_value()); }

// ---- Demangling ----------------------------------------------------------------------------

TEST(TimelineDemangle, Names) {
    struct Case {
        const char* in;
        const char* out;
    };
    const std::vector<Case> cases = {
        {"_ZN2ps3gpu3bfs8dp_levelENS1_5GraphEPiPKjjPjPNS1_7ControlEij",
         "ps::gpu::bfs::dp_level(ps::gpu::bfs::Graph, int*, unsigned int const*, unsigned int, unsigned int*, "
         "ps::gpu::bfs::Control*, int, unsigned int)"},
        // nvcc 13 with -rdc=true: a static kernel, and one in an anonymous namespace.
        {"__nv_static_25__b8c24701_4_k_cu_96bbf7c6__Z13static_kernelPij", "static_kernel(int*, unsigned int)"},
        {"__nv_static_25__b8c24701_4_k_cu_96bbf7c6__ZN36_GLOBAL__N__b8c24701_4_k_cu_96bbf7c611anon_kernelEPi",
         "(anonymous namespace)::anon_kernel(int*)"},
        // Older nvcc form of a file-static symbol that was never mangled.
        {"__nv_static_27__14_kernel_cpp1_ii_6c28956c_static_ctxt", "static_ctxt"},
        // A prefix whose length does not add up: the mangled part is found by its "_Z".
        {"__nv_static_99__abc__Z6kernelv", "kernel()"},
        {"main", "main"},
        {"i", "i"},  // a C name, not the mangled type "int"
        {"_Z", "_Z"},
        {"_Znot_really_mangled(", "_Znot_really_mangled("},
        {"__nv_static_", "__nv_static_"},
        {"", ""},
    };
    for (const Case& c : cases) EXPECT_EQ(demangle(c.in), c.out) << c.in;
}

// ---- Export --------------------------------------------------------------------------------

// A strict JSON reader (RFC 8259): the export must load in Perfetto and chrome://tracing, so
// the test checks the grammar as well as the structure.
struct Json {
    enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<Json> items;
    std::vector<std::pair<std::string, Json>> members;

    const Json* get(std::string_view key) const {
        for (const auto& [k, v] : members)
            if (k == key) return &v;
        return nullptr;
    }
};

class JsonReader {
public:
    explicit JsonReader(std::string_view text) : m_s(text) {}

    std::optional<Json> document() {
        Json v;
        if (!value(v, 0)) return std::nullopt;
        skip_space();
        if (m_pos != m_s.size()) {
            fail("trailing characters");
            return std::nullopt;
        }
        return v;
    }
    std::string error() const { return m_error + " at offset " + std::to_string(m_pos); }

private:
    bool fail(const char* what) {
        if (m_error.empty()) m_error = what;
        return false;
    }
    bool at(char c) const { return m_pos < m_s.size() && m_s[m_pos] == c; }
    void skip_space() {
        while (m_pos < m_s.size() && std::string_view(" \n\r\t").find(m_s[m_pos]) != std::string_view::npos) ++m_pos;
    }
    bool eat(char c) {
        skip_space();
        if (!at(c)) return false;
        ++m_pos;
        return true;
    }
    bool literal(std::string_view word) {
        if (m_s.substr(m_pos, word.size()) != word) return false;
        m_pos += word.size();
        return true;
    }
    bool digits() {
        const std::size_t from = m_pos;
        while (m_pos < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_pos]))) ++m_pos;
        return m_pos > from;
    }
    bool value(Json& v, int depth) {
        if (depth > 64) return fail("nesting too deep");
        skip_space();
        if (m_pos >= m_s.size()) return fail("unexpected end");
        if (at('{')) return object(v, depth);
        if (at('[')) return array(v, depth);
        if (at('"')) {
            v.type = Json::Type::String;
            return string_value(v.text);
        }
        for (const bool flag : {true, false}) {
            if (!literal(flag ? "true" : "false")) continue;
            v.type = Json::Type::Bool;
            v.boolean = flag;
            return true;
        }
        if (literal("null")) return true;
        return number(v);
    }
    bool number(Json& v) {
        const std::size_t from = m_pos;
        if (at('-')) ++m_pos;
        if (at('0'))
            ++m_pos;
        else if (!digits())
            return fail("bad value");
        if (at('.')) {
            ++m_pos;
            if (!digits()) return fail("bad fraction");
        }
        if (at('e') || at('E')) {
            ++m_pos;
            if (at('+') || at('-')) ++m_pos;
            if (!digits()) return fail("bad exponent");
        }
        v.type = Json::Type::Number;
        v.number = std::stod(std::string(m_s.substr(from, m_pos - from)));
        return true;
    }
    bool string_value(std::string& out) {
        ++m_pos;  // opening quote
        static constexpr std::string_view escapes = "\"\\/bfnrt", meanings = "\"\\/\b\f\n\r\t";
        while (m_pos < m_s.size()) {
            const char c = m_s[m_pos++];
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) return fail("control character in string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_s.size()) break;
            const char e = m_s[m_pos++];
            if (const auto k = escapes.find(e); k != std::string_view::npos) {
                out += meanings[k];
                continue;
            }
            const std::string hex(m_s.substr(m_pos, 4));
            if (e != 'u' || hex.size() != 4 || !std::all_of(hex.begin(), hex.end(), [](char h) {
                    return std::isxdigit(static_cast<unsigned char>(h));
                }))
                return fail("bad escape");
            const unsigned long code = std::stoul(hex, nullptr, 16);
            out += code < 0x80 ? char(code) : '?';  // the tests need no UTF-8 beyond ASCII
            m_pos += 4;
        }
        return fail("unterminated string");
    }
    bool array(Json& v, int depth) {
        ++m_pos;
        v.type = Json::Type::Array;
        if (eat(']')) return true;
        do {
            v.items.emplace_back();
            if (!value(v.items.back(), depth + 1)) return false;
        } while (eat(','));
        return eat(']') || fail("expected , or ]");
    }
    bool object(Json& v, int depth) {
        ++m_pos;
        v.type = Json::Type::Object;
        if (eat('}')) return true;
        do {
            skip_space();
            if (!at('"')) return fail("expected a key");
            std::string key;
            if (!string_value(key)) return false;
            if (!eat(':')) return fail("expected :");
            v.members.emplace_back(std::move(key), Json{});
            if (!value(v.members.back().second, depth + 1)) return false;
        } while (eat(','));
        return eat('}') || fail("expected , or }");
    }

    std::string_view m_s;
    std::size_t m_pos = 0;
    std::string m_error;
};

TEST(TimelineExport, JsonReaderRejectsMalformedText) {
    for (const char* bad : {"", "{", "[1,]", "{\"a\":1,}", "{a:1}", "01", "1.", "\"\\x\"", "[1] 2", "\"a\nb\"", "nul"})
        EXPECT_FALSE(JsonReader(bad).document().has_value()) << bad;
    for (const char* good : {"{}", "[]", "-0.5e+3", "{\"a\":[true,false,null,\"\\u00e9\\n\"]}", " 1 "})
        EXPECT_TRUE(JsonReader(good).document().has_value()) << good;
}

// A bit of everything the export must carry: a host API call, a kernel with its launch
// configuration, a memcpy, NVTX, device levels, and a name that needs escaping.
Timeline export_sample() {
    Timeline t = tail_chain(3, 1500, 11 * kUs);
    t.dropped_records = 0;
    Event nvtx;
    nvtx.kind = EventKind::Nvtx;
    nvtx.name = "compute \"512\\512\"\n";
    nvtx.track = t.add_track(TrackKind::Nvtx, 1, "NVTX");
    nvtx.start_ns = kT0 + 1500;
    nvtx.end_ns = kT0 + 1750;
    nvtx.depth = 1;
    t.events.push_back(nvtx);
    return t;
}

TEST(TimelineExport, ChromeTraceIsValidAndComplete) {
    const Timeline t = export_sample();
    std::ostringstream out;
    write_chrome_trace(t, {"bfs.gpu.dp", "arena2.map", "NVIDIA H100 80GB HBM3", "abc123 RelWithDebInfo"}, out);
    const std::string text = out.str();
    EXPECT_EQ(text.rfind("{\"traceEvents\":[", 0), 0u) << text.substr(0, 40);

    JsonReader reader(text);
    const auto doc = reader.document();
    ASSERT_TRUE(doc.has_value()) << reader.error();
    ASSERT_EQ(doc->type, Json::Type::Object);
    ASSERT_NE(doc->get("displayTimeUnit"), nullptr);
    EXPECT_EQ(doc->get("displayTimeUnit")->text, "ns");
    const Json* meta = doc->get("metadata");
    ASSERT_NE(meta, nullptr);
    for (const auto& [key, want] :
         std::vector<std::pair<const char*, const char*>>{{"variant", "bfs.gpu.dp"},
                                                          {"map", "arena2.map"},
                                                          {"device", "NVIDIA H100 80GB HBM3"},
                                                          {"build", "abc123 RelWithDebInfo"}}) {
        ASSERT_NE(meta->get(key), nullptr) << key;
        EXPECT_EQ(meta->get(key)->text, want);
    }
    const Json* events = doc->get("traceEvents");
    ASSERT_NE(events, nullptr);
    ASSERT_EQ(events->type, Json::Type::Array);

    std::map<std::pair<double, double>, std::string> thread_names;  // (pid, tid) -> name
    std::set<double> named_pids;
    std::vector<const Json*> complete;
    for (const Json& e : events->items) {
        ASSERT_EQ(e.type, Json::Type::Object);
        const Json* ph = e.get("ph");
        ASSERT_NE(ph, nullptr);
        ASSERT_NE(e.get("pid"), nullptr);
        if (ph->text == "M") {
            const Json* args = e.get("args");
            ASSERT_TRUE(args);
            if (e.get("name")->text.ends_with("sort_index")) continue;  // args: sort_index
            ASSERT_TRUE(args->get("name"));
            if (e.get("name")->text == "process_name") named_pids.insert(e.get("pid")->number);
            if (e.get("name")->text == "thread_name")
                thread_names[{e.get("pid")->number, e.get("tid")->number}] = args->get("name")->text;
            continue;
        }
        if (ph->text == "s" || ph->text == "f") continue;  // flows: test_chrome_trace.cpp
        ASSERT_EQ(ph->text, "X");
        for (const char* key : {"name", "cat", "ts", "dur", "pid", "tid", "args"})
            ASSERT_NE(e.get(key), nullptr) << key;
        EXPECT_EQ(e.get("ts")->type, Json::Type::Number);
        EXPECT_GE(e.get("dur")->number, 0.0);
        EXPECT_TRUE(named_pids.count(e.get("pid")->number)) << "pid without process_name";
        EXPECT_TRUE(thread_names.count({e.get("pid")->number, e.get("tid")->number})) << "tid without thread_name";
        complete.push_back(&e);
    }
    EXPECT_EQ(complete.size(), t.events.size());
    EXPECT_EQ(thread_names.size(), t.tracks.size());
    EXPECT_EQ(named_pids.size(), 4u);  // host thread, GPU stream, NVTX, device levels

    auto find = [&](std::string_view cat, std::string_view name_part) -> const Json* {
        for (const Json* e : complete)
            if (e->get("cat")->text == cat && e->get("name")->text.find(name_part) != std::string::npos) return e;
        return nullptr;
    };
    double min_ts = 1e300;
    for (const Json* e : complete) min_ts = std::min(min_ts, e->get("ts")->number);
    EXPECT_EQ(min_ts, 0.0);  // relative to the earliest event

    const Json* nvtx = find("nvtx", "compute");
    ASSERT_NE(nvtx, nullptr);
    EXPECT_EQ(nvtx->get("name")->text, "compute \"512\\512\"\n");
    EXPECT_DOUBLE_EQ(nvtx->get("ts")->number, 1.5);  // sub-microsecond precision
    EXPECT_DOUBLE_EQ(nvtx->get("dur")->number, 0.25);
    EXPECT_EQ(thread_names[std::pair(nvtx->get("pid")->number, nvtx->get("tid")->number)], "NVTX");

    const Json* kernel = find("kernel", "level_kernel");
    ASSERT_NE(kernel, nullptr);
    const Json* args = kernel->get("args");
    ASSERT_TRUE(args->get("correlation_id") && args->get("grid") && args->get("block"));
    EXPECT_EQ(args->get("correlation_id")->number, 2.0);
    EXPECT_EQ(args->get("grid")->text, "64x1x1");
    EXPECT_EQ(args->get("block")->text, "256x1x1");
    EXPECT_EQ(thread_names[std::pair(kernel->get("pid")->number, kernel->get("tid")->number)], "stream 13");

    const Json* copy = find("memcpy", "");
    ASSERT_TRUE(copy && copy->get("args")->get("bytes"));
    EXPECT_EQ(copy->get("args")->get("bytes")->number, double(1 << 20));

    const Json* level2 = find("device level", "level 2");
    ASSERT_NE(level2, nullptr);
    ASSERT_TRUE(level2->get("args")->get("level") && level2->get("args")->get("device_launched"));
    EXPECT_EQ(level2->get("args")->get("level")->number, 2.0);
    EXPECT_TRUE(level2->get("args")->get("device_launched")->boolean);
}

TEST(TimelineExport, ChromeTraceOfAnEmptyTimeline) {
    std::ostringstream out;
    write_chrome_trace(Timeline{}, {}, out);
    const std::string text = out.str();  // the reader keeps a view of it
    JsonReader reader(text);
    const auto doc = reader.document();
    ASSERT_TRUE(doc.has_value()) << reader.error() << "\n" << text;
    EXPECT_TRUE(doc->get("traceEvents")->items.empty());
}

// ---- CSV -----------------------------------------------------------------------------------

constexpr const char* kCsvHeader =
    "kind,name,track,start_ns,end_ns,duration_ns,correlation_id,level,grid,block,bytes,track_kind,track_id,depth,"
    "device_launched,graph_id,graph_node_id";

TEST(TimelineCsv, HeaderAndOneRowPerEventByStart) {
    const Timeline t = export_sample();
    std::ostringstream out;
    write_csv(t, out);
    std::istringstream in(out.str());
    const auto records = read_csv_records(in);
    ASSERT_EQ(records.size(), t.events.size() + 1);
    EXPECT_EQ(out.str().substr(0, out.str().find('\n')), kCsvHeader);
    for (std::size_t r = 2; r < records.size(); ++r)
        EXPECT_LE(std::stoll(records[r - 1][3]), std::stoll(records[r][3])) << "row " << r;
    for (const auto& rec : records) EXPECT_EQ(rec.size(), records[0].size());
}

TEST(TimelineCsv, QuotesNamesThatNeedIt) {
    Builder b;
    b.add(EventKind::Kernel, "ps::k(int, float)", b.stream, kT0, kT0 + 10);
    b.add(EventKind::Nvtx, "say \"hi\"", b.host, kT0 + 20, kT0 + 30);
    b.add(EventKind::Nvtx, "plain", b.host, kT0 + 40, kT0 + 50);
    std::ostringstream out;
    write_csv(b.t, out);
    const std::string text = out.str();
    EXPECT_NE(text.find(",\"ps::k(int, float)\","), std::string::npos) << text;
    EXPECT_NE(text.find(",\"say \"\"hi\"\"\","), std::string::npos) << text;
    EXPECT_NE(text.find(",plain,"), std::string::npos) << text;
}

TEST(TimelineCsv, RoundTripKeepsTheAnalysis) {
    for (const Timeline& original : {export_sample(), host_loop(30, 2 * kUs, 5 * kUs, 3 * kUs)}) {
        std::ostringstream out;
        write_csv(original, out);
        std::istringstream in(out.str());
        std::string error;
        const auto back = read_csv(in, error);
        ASSERT_TRUE(back.has_value()) << error;
        ASSERT_EQ(back->events.size(), original.events.size());
        EXPECT_EQ(describe(summarize(*back)), describe(summarize(original)));
        EXPECT_EQ(causes(gpu_gaps(*back)), causes(gpu_gaps(original)));
        EXPECT_EQ(launch_latencies_ns(*back), launch_latencies_ns(original));
        // write_csv sorts by start; so does a second export, which must match the first.
        std::ostringstream again;
        write_csv(*back, again);
        EXPECT_EQ(again.str(), out.str());
    }
}

TEST(TimelineCsv, KeepsGraphNodeIdsAndTheCapturesNotes) {
    Timeline t = export_sample();
    t.notes = {"CUPTI does not report device-launched kernels here, \"quoted\", with a comma"};
    for (Event& e : t.events)
        if (e.kind == EventKind::Kernel) e.graph_id = 3, e.graph_node_id = 4000000000ull + e.correlation_id;
    std::ostringstream out;
    write_csv(t, out);
    std::istringstream in(out.str());
    std::string error;
    const auto back = read_csv(in, error);
    ASSERT_TRUE(back.has_value()) << error;
    EXPECT_EQ(back->notes, t.notes);
    std::multiset<std::uint64_t> nodes, nodes_back;
    for (const Event& e : t.events) nodes.insert(e.graph_node_id);
    for (const Event& e : back->events) {
        nodes_back.insert(e.graph_node_id);
        EXPECT_EQ(e.graph_id, e.kind == EventKind::Kernel ? 3u : 0u);
    }
    EXPECT_EQ(nodes_back, nodes);
    // A trace written before the graph columns existed still reads (tests/data holds such files).
    std::string old = out.str();
    old.replace(0, old.find('\n'),
                "kind,name,track,start_ns,end_ns,duration_ns,correlation_id,level,grid,block,bytes,"
                "track_kind,track_id,depth,device_launched,x,y");
    std::istringstream old_in(old);
    const auto old_back = read_csv(old_in, error);
    ASSERT_TRUE(old_back.has_value()) << error;
    for (const Event& e : old_back->events) EXPECT_EQ(e.graph_node_id, 0u);
}

// ---- A trace recorded on the GPU ----------------------------------------------------------

// Recorded with full tracing on the H100: bfs.gpu.dp on an open 512 x 512 grid, exported with
// write_csv. Absent in a fresh clone until someone records it.
TEST(TimelineRecorded, BfsDp512HasCausesAndDeviceLevels) {
    const auto path = std::filesystem::path(PATHSCOPE_SOURCE_DIR) / "tests" / "data" / "bfs_dp_512.csv";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "no recorded trace at " << path << " (record one on the GPU with write_csv)";
    std::ifstream in(path, std::ios::binary);
    std::string error;
    const auto t = read_csv(in, error);
    ASSERT_TRUE(t.has_value()) << path << ": " << error;
    ASSERT_FALSE(t->events.empty());
    const auto gaps = gpu_gaps(*t);
    for (const Gap& g : gaps) {
        EXPECT_NE(g.cause, GapCause::Unknown)
            << "gap of " << g.length_ns() << " ns before " << to_string(t->events[g.after].kind) << " '"
            << t->events[g.after].name << "' at " << t->events[g.after].start_ns;
    }
    const Summary s = summarize(*t);
    EXPECT_GT(s.device_levels, 0u);
    std::cout << "[ recorded ] " << describe(s) << '\n';
}

}  // namespace
}  // namespace ps::trace
