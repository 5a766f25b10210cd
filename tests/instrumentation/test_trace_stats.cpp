// Timeline statistics (instrumentation/timeline/trace_stats.hpp): a hand-worked small trace
// whose every number is worked out below, and the recorded GPU traces in tests/data checked
// against sums and unions computed here independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "instrumentation/timeline/trace_stats.hpp"

namespace ps::trace {
namespace {

Event item(EventKind kind, std::string name, std::uint32_t track, std::int64_t start, std::int64_t end,
           std::uint64_t correlation = 0) {
    Event e;
    e.kind = kind;
    e.name = std::move(name);
    e.track = track;
    e.start_ns = start;
    e.end_ns = end;
    e.correlation_id = correlation;
    return e;
}

// Host thread: two launches and a blocking copy; stream 7: expand [20,50), expand [60,80),
// a 1000-byte copy [85,95), finish [100,110); NVTX "bfs" over it all [0,120).
// GPU gaps: [50,60), [80,85), [95,100).
Timeline hand_worked() {
    Timeline t;
    const auto cpu = t.add_track(TrackKind::HostThread, 1, "CPU thread 1");
    const auto stream = t.add_track(TrackKind::GpuStream, 7, "stream 7");
    const auto nvtx = t.add_track(TrackKind::Nvtx, 1, "NVTX 1");
    t.events.push_back(item(EventKind::RuntimeApi, "cudaLaunchKernel", cpu, 0, 10, 1));
    t.events.push_back(item(EventKind::Kernel, "expand", stream, 20, 50, 1));
    t.events.push_back(item(EventKind::RuntimeApi, "cudaLaunchKernel", cpu, 12, 18, 2));
    t.events.push_back(item(EventKind::Kernel, "expand", stream, 60, 80, 2));
    t.events.push_back(item(EventKind::RuntimeApi, "cudaMemcpy", cpu, 30, 100, 3));
    Event copy = item(EventKind::Memcpy, "memcpy HtoD", stream, 85, 95, 3);
    copy.bytes = 1000;
    t.events.push_back(copy);
    t.events.push_back(item(EventKind::Kernel, "finish", stream, 100, 110));
    t.events.push_back(item(EventKind::Nvtx, "bfs", nvtx, 0, 120));
    return t;
}

const NameStats* row_named(const std::vector<NameStats>& rows, std::string_view name) {
    for (const NameStats& r : rows)
        if (r.name == name) return &r;
    return nullptr;
}

std::optional<Timeline> recorded(const char* file) {
    const auto path = std::filesystem::path(PATHSCOPE_SOURCE_DIR) / "tests" / "data" / file;
    std::ifstream in(path, std::ios::binary);
    std::string error;
    auto t = read_csv(in, error);
    EXPECT_TRUE(t.has_value()) << path << ": " << error;
    return t;
}

TEST(TraceStats, DurationStatsHandWorked) {
    const DurationStats s = duration_stats({4, 1, 3, 2});
    EXPECT_EQ(s.count, 4u);
    EXPECT_EQ(s.total_ns, 10);
    EXPECT_EQ(s.min_ns, 1);
    EXPECT_EQ(s.max_ns, 4);
    EXPECT_DOUBLE_EQ(s.mean_ns, 2.5);
    EXPECT_DOUBLE_EQ(s.median_ns, 2.5);                     // even count: mean of 2 and 3
    EXPECT_NEAR(s.stddev_ns, std::sqrt(5.0 / 3.0), 1e-12);  // (2.25 + 0.25 + 0.25 + 2.25) / 3
    EXPECT_DOUBLE_EQ(duration_stats({7, 1, 5}).median_ns, 5.0);
    EXPECT_EQ(duration_stats({9}).stddev_ns, 0.0);
    EXPECT_EQ(duration_stats({}).count, 0u);
}

TEST(TraceStats, SummaryOfTheHandWorkedTrace) {
    const TraceSummary s = trace_summary(hand_worked());
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "expand");  // 50 ns before finish's 10
    EXPECT_EQ(s.kernels[0].time.count, 2u);
    EXPECT_EQ(s.kernels[0].time.total_ns, 50);
    EXPECT_DOUBLE_EQ(s.kernels[0].time.median_ns, 25.0);
    EXPECT_NEAR(s.kernels[0].time.stddev_ns, std::sqrt(50.0), 1e-12);  // (25 + 25) / 1
    EXPECT_NEAR(s.kernels[0].percent, 100.0 * 50 / 60, 1e-9);
    EXPECT_EQ(s.kernels[0].events, (std::vector<std::uint32_t>{1, 3}));
    EXPECT_NEAR(s.kernels[1].percent, 100.0 * 10 / 60, 1e-9);
    ASSERT_EQ(s.api.size(), 2u);
    EXPECT_EQ(s.api[0].name, "cudaMemcpy");
    EXPECT_NEAR(s.api[0].percent, 100.0 * 70 / 86, 1e-9);
    EXPECT_EQ(s.api[1].time.total_ns, 16);
    ASSERT_EQ(s.memory.size(), 1u);
    EXPECT_EQ(s.memory[0].bytes, 1000u);
    EXPECT_DOUBLE_EQ(s.memory[0].bandwidth_gbs, 100.0);  // 1000 B in 10 ns
    ASSERT_EQ(s.nvtx.size(), 1u);
    EXPECT_EQ(s.nvtx[0].time.total_ns, 120);
    EXPECT_TRUE(s.device_levels.empty());
    EXPECT_EQ(s.graph_launches, 0u);

    // Items that start in [10, 70): both expands, the second launch and the copy call.
    const TraceSummary r = trace_summary(hand_worked(), TimeRange{10, 70});
    ASSERT_EQ(r.kernels.size(), 1u);
    EXPECT_EQ(r.kernels[0].time.count, 2u);
    ASSERT_EQ(r.api.size(), 2u);
    EXPECT_EQ(row_named(r.api, "cudaLaunchKernel")->time.count, 1u);
    EXPECT_TRUE(r.memory.empty());
    EXPECT_TRUE(r.nvtx.empty());
}

TEST(TraceStats, RangeStatisticsHandWorked) {
    const Timeline t = hand_worked();
    const RangeStats r = range_stats(t, TimeRange{25, 90});  // 65 ns
    ASSERT_EQ(r.rows.size(), 3u);
    // CPU thread: only the copy call overlaps, 30..90 = 60 ns.
    EXPECT_EQ(r.rows[0].name, "CPU thread 1");
    EXPECT_EQ(r.rows[0].time.count, 1u);
    EXPECT_EQ(r.rows[0].time.total_ns, 60);
    // Stream 7: expand 25..50 (25), expand 60..80 (20), copy 85..90 (5).
    EXPECT_EQ(r.rows[1].time.count, 3u);
    EXPECT_EQ(r.rows[1].time.total_ns, 50);
    EXPECT_EQ(r.rows[1].time.min_ns, 5);
    EXPECT_NEAR(r.rows[1].percent, 100.0 * 50 / 65, 1e-9);
    EXPECT_EQ(r.rows[2].time.total_ns, 65);  // NVTX covers the range
    EXPECT_DOUBLE_EQ(r.rows[2].percent, 100.0);
    EXPECT_EQ(r.gpu_busy_ns, 50);
    ASSERT_EQ(r.gaps.size(), 2u);  // [50,60) and [80,85); [95,100) is outside
    EXPECT_EQ(r.gaps[0].start_ns, 50);
    EXPECT_EQ(r.gaps[1].end_ns, 85);
    EXPECT_EQ(r.gap_time.total_ns, 15);
    EXPECT_EQ(r.gpu_busy_ns + r.gap_time.total_ns, r.range.length_ns());
    const NameStats* expand = row_named(r.names, "expand");
    ASSERT_NE(expand, nullptr);
    EXPECT_EQ(expand->time.total_ns, 45);
    EXPECT_EQ(row_named(r.names, "finish"), nullptr);
    // A gap cut by the range counts with its inside part.
    const RangeStats cut = range_stats(t, TimeRange{55, 70});
    ASSERT_EQ(cut.gaps.size(), 1u);
    EXPECT_EQ(cut.gaps[0].length_ns(), 5);
    EXPECT_EQ(cut.gpu_busy_ns, 10);
}

TEST(TraceStats, GraphLaunchesAndNodeExecutionsAreCountedApart) {
    Timeline t;
    const auto cpu = t.add_track(TrackKind::HostThread, 1, "CPU thread 1");
    const auto stream = t.add_track(TrackKind::GpuStream, 7, "stream 7");
    t.events.push_back(item(EventKind::RuntimeApi, "cudaGraphLaunch_v10000", cpu, 0, 5, 1));
    for (int i = 0; i < 3; ++i) {
        Event k = item(EventKind::Kernel, i % 2 ? "finish" : "expand", stream, 10 + 10 * i, 15 + 10 * i, 1);
        k.graph_id = 4;
        k.graph_node_id = 100 + std::uint64_t(i % 2);
        t.events.push_back(k);
    }
    t.events.push_back(item(EventKind::Kernel, "init", stream, 1, 2, 0));
    const TraceSummary s = trace_summary(t);
    EXPECT_EQ(s.graph_launches, 1u);
    EXPECT_EQ(s.graph_node_executions, 3u);
    EXPECT_NE(format_summary(s).find("1 graph launches, 3 node executions"), std::string::npos) << format_summary(s);
}

TEST(TraceStats, SearchFindsNamesIgnoringCase) {
    const Timeline t = hand_worked();
    EXPECT_EQ(find_events(t, "EXPAND"), (std::vector<std::uint32_t>{1, 3}));
    EXPECT_EQ(find_events(t, "launch"), (std::vector<std::uint32_t>{0, 2}));
    EXPECT_EQ(find_events(t, "memcpy").size(), 2u);  // the call and the copy
    EXPECT_EQ(find_events(t, "bfs"), (std::vector<std::uint32_t>{7}));
    EXPECT_TRUE(find_events(t, "").empty());
    EXPECT_TRUE(find_events(t, "nothing").empty());
}

TEST(TraceStats, ParsesRangesRelativeToTheOrigin) {
    std::string error;
    auto r = parse_time_range("1.5-3", 1000, error);
    ASSERT_TRUE(r.has_value()) << error;
    EXPECT_EQ(r->begin_ns, 1000 + 1'500'000);
    EXPECT_EQ(r->end_ns, 1000 + 3'000'000);
    r = parse_time_range("200us-1.2ms", 0, error);
    ASSERT_TRUE(r.has_value()) << error;
    EXPECT_EQ(r->begin_ns, 200'000);
    EXPECT_EQ(r->end_ns, 1'200'000);
    EXPECT_EQ(parse_time_range("5ns-1s", 0, error)->end_ns, 1'000'000'000);
    for (const char* bad : {"3-1", "abc", "1-2xs", "", "4", "1-"}) {
        error.clear();
        EXPECT_FALSE(parse_time_range(bad, 0, error).has_value()) << bad;
        EXPECT_FALSE(error.empty()) << bad;
    }
    EXPECT_EQ(view_origin_ns(hand_worked()), 20);  // the first GPU item, not the first API call
}

TEST(TraceStats, LevelDiffHandWorked) {
    Timeline a, b;
    const auto la = a.add_track(TrackKind::DeviceLevels, 0, "device levels");
    const auto lb = b.add_track(TrackKind::DeviceLevels, 0, "device levels");
    const auto level = [](std::uint32_t track, int l, std::int64_t s, std::int64_t e) {
        Event ev = item(EventKind::DeviceLevel, "level", track, s, e);
        ev.level = l;
        return ev;
    };
    a.events = {level(la, 0, 100, 110), level(la, 1, 130, 150), level(la, 2, 160, 165)};
    b.events = {level(lb, 0, 0, 20), level(lb, 1, 25, 30)};
    const auto rows = level_diff(a, b);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].a->time_ns, 10);
    EXPECT_FALSE(rows[0].a->gap_before_ns.has_value());
    EXPECT_EQ(rows[1].a->gap_before_ns, 20);
    EXPECT_EQ(rows[1].b->gap_before_ns, 5);
    EXPECT_EQ(rows[1].b->time_ns, 5);
    EXPECT_FALSE(rows[2].b.has_value());
    std::ostringstream csv;
    write_level_diff_csv(rows, csv);
    EXPECT_EQ(csv.str(),
              "level,a_time_ns,a_gap_before_ns,b_time_ns,b_gap_before_ns,diff_ns,a_edges,a_mteps,b_edges,b_mteps\n"
              "0,10,,20,,10,,,,\n"
              "1,20,20,5,5,-15,,,,\n"
              "2,5,10,,,,,,,\n");
    // Edges and rates, where a run's were counted, follow in their own columns.
    auto with_rates = rows;
    with_rates[1].a->edges = 6;
    with_rates[1].a->mteps = 300;  // 6 edges in 20 ns
    with_rates[1].b->edges = 6;
    std::ostringstream rated;
    write_level_diff_csv(with_rates, rated);
    EXPECT_NE(rated.str().find("\n1,20,20,5,5,-15,6,300,6,\n"), std::string::npos) << rated.str();
}

// ---- Recorded traces (tests/data, H100) -----------------------------------------------------

TEST(TraceStatsRecorded, SummaryTotalsAreTheSumsOfTheItems) {
    for (const char* file : {"bfs_shared_64.csv", "bfs_dp_64.csv"}) {
        SCOPED_TRACE(file);
        const auto t = recorded(file);
        ASSERT_TRUE(t);
        std::map<EventKind, std::int64_t> total;
        std::map<EventKind, std::size_t> count;
        std::uint64_t bytes = 0;
        for (const Event& e : t->events) {
            total[e.kind] += e.end_ns - e.start_ns;
            ++count[e.kind];
            bytes += e.bytes;
        }
        const TraceSummary s = trace_summary(*t);
        const auto check = [&](const std::vector<NameStats>& rows, std::vector<EventKind> kinds) {
            std::int64_t sum = 0, expected = 0;
            std::size_t n = 0, expected_n = 0;
            double percent = 0;
            for (const NameStats& r : rows) {
                sum += r.time.total_ns;
                n += r.time.count;
                percent += r.percent;
                EXPECT_EQ(r.events.size(), r.time.count);
                for (std::uint32_t i : r.events) {
                    if (t->events[i].kind == EventKind::DeviceLevel) {
                        EXPECT_EQ(r.name,
                                  t->events[i].device_launched ? "level, tail-launched" : "level, host-launched");
                    } else {
                        EXPECT_EQ(t->events[i].name, r.name);
                    }
                }
            }
            for (EventKind k : kinds) expected += total[k], expected_n += count[k];
            EXPECT_EQ(sum, expected);
            EXPECT_EQ(n, expected_n);
            if (!rows.empty()) {
                EXPECT_NEAR(percent, 100.0, 1e-6);
            }
        };
        check(s.kernels, {EventKind::Kernel});
        check(s.device_levels, {EventKind::DeviceLevel});
        check(s.api, {EventKind::RuntimeApi});
        check(s.memory, {EventKind::Memcpy, EventKind::Memset});
        check(s.nvtx, {EventKind::Nvtx});
        std::uint64_t summary_bytes = 0;
        for (const NameStats& r : s.memory) summary_bytes += r.bytes;
        EXPECT_EQ(summary_bytes, bytes);
        EXPECT_FALSE(s.kernels.empty());
        EXPECT_LE(s.device_levels.size(), 2u);  // one row per launch kind, not per level
        for (std::size_t i = 1; i < s.api.size(); ++i) EXPECT_GE(s.api[i - 1].time.total_ns, s.api[i].time.total_ns);
        std::ostringstream csv;
        write_summary_csv(s, csv);
        std::istringstream in(csv.str());
        const auto records = read_csv_records(in);
        EXPECT_EQ(records.size(),
                  1 + s.kernels.size() + s.device_levels.size() + s.api.size() + s.memory.size() + s.nvtx.size());
    }
}

TEST(TraceStatsRecorded, RangeOverTheGpuSpanAgreesWithTheRunsUsage) {
    for (const char* file : {"bfs_shared_64.csv", "bfs_dp_64.csv"}) {
        SCOPED_TRACE(file);
        const auto t = recorded(file);
        ASSERT_TRUE(t);
        std::int64_t first = INT64_MAX, last = INT64_MIN;
        for (const Event& e : t->events)
            if (is_gpu_work(e)) first = std::min(first, e.start_ns), last = std::max(last, e.end_ns);
        const RangeStats whole = range_stats(*t, TimeRange{first, last});
        const GpuUsage usage = gpu_usage(*t);
        EXPECT_EQ(whole.gpu_busy_ns, usage.busy_ns);
        EXPECT_EQ(whole.gaps.size(), gpu_gaps(*t).size());
        EXPECT_EQ(whole.gpu_busy_ns + whole.gap_time.total_ns, last - first);

        // The middle third: each row's total is the sum of its items' parts inside, computed here.
        const TimeRange mid{first + (last - first) / 3, first + 2 * (last - first) / 3};
        const RangeStats r = range_stats(*t, mid);
        std::map<std::uint32_t, std::int64_t> inside;
        for (const Event& e : t->events) {
            const std::int64_t part = std::min(e.end_ns, mid.end_ns) - std::max(e.start_ns, mid.begin_ns);
            if (part > 0) inside[e.track] += part;
        }
        ASSERT_FALSE(r.rows.empty());
        for (const RowStats& row : r.rows) {
            EXPECT_EQ(row.time.total_ns, inside[row.track]) << row.name;
            if (t->tracks[row.track].kind != TrackKind::Nvtx) {  // nested NVTX ranges overlap
                EXPECT_LE(row.time.total_ns, mid.length_ns()) << row.name;
            }
        }
        EXPECT_EQ(r.gpu_busy_ns + r.gap_time.total_ns, mid.length_ns());
        EXPECT_GT(r.gpu_busy_percent, 0.0);
        EXPECT_LT(r.gpu_busy_percent, 100.0);
        const std::string text = format_range(*t, r, view_origin_ns(*t));
        EXPECT_NE(text.find("GPU busy"), std::string::npos);
    }
}

// bfs.gpu.graph at 64², recorded on the H100: one cudaGraphLaunch runs the WHILE node's body,
// expand and finish, once per level (127 levels), each a kernel record with its node id.
TEST(TraceStatsRecorded, GraphLaunchesAndNodeExecutionsOfBfsGpuGraph) {
    const auto t = recorded("bfs_graph_64.csv");
    ASSERT_TRUE(t);
    std::set<std::uint64_t> nodes;
    std::size_t node_kernels = 0;
    for (const Event& e : t->events)
        if (e.kind == EventKind::Kernel && e.graph_node_id != 0) ++node_kernels, nodes.insert(e.graph_node_id);
    const TraceSummary s = trace_summary(*t);
    EXPECT_EQ(s.graph_launches, 1u);
    EXPECT_EQ(s.graph_node_executions, node_kernels);
    EXPECT_EQ(node_kernels, 2u * level_costs(*t).size());
    EXPECT_EQ(nodes.size(), 2u);
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].time.count, s.kernels[1].time.count);
    EXPECT_NE(format_summary(s).find("1 graph launches, 254 node executions"), std::string::npos);
}

// Per level, the first start and last end of the GPU rows (kernel, memcpy, memset, device level)
// that carry it, read from the recorded CSV's own rows, not through the Timeline's analysis.
std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> level_spans_of_rows(const char* file) {
    std::ifstream in(std::filesystem::path(PATHSCOPE_SOURCE_DIR) / "tests" / "data" / file, std::ios::binary);
    const auto records = read_csv_records(in);
    std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> spans;
    if (records.empty()) return spans;
    std::map<std::string, std::size_t> column;
    for (std::size_t c = 0; c < records.front().size(); ++c) column[records.front()[c]] = c;
    const std::size_t kind = column.at("kind"), start = column.at("start_ns"), end = column.at("end_ns"),
                      level = column.at("level");
    const std::set<std::string> gpu = {"kernel", "memcpy", "memset", "device level"};
    for (std::size_t r = 1; r < records.size(); ++r) {
        const auto& row = records[r];
        const std::int32_t l = std::stoi(row[level]);
        if (l < 0 || !gpu.count(row[kind])) continue;
        const std::int64_t s = std::stoll(row[start]), e = std::max<std::int64_t>(s, std::stoll(row[end]));
        const auto [it, first] = spans.try_emplace(l, s, e);
        if (!first) it->second = {std::min(it->second.first, s), std::max(it->second.second, e)};
    }
    return spans;
}

TEST(TraceStatsRecorded, LevelDiffOfDpAndShared) {
    const auto dp = recorded("bfs_dp_64.csv");
    const auto shared = recorded("bfs_shared_64.csv");
    ASSERT_TRUE(dp && shared);
    const auto rows = level_diff(*dp, *shared);
    const auto a = level_spans_of_rows("bfs_dp_64.csv"), b = level_spans_of_rows("bfs_shared_64.csv");
    ASSERT_EQ(a.size(), 127u);  // 64x64 from a corner: levels 0 .. 126
    ASSERT_EQ(b.size(), 127u);
    ASSERT_EQ(rows.size(), 127u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        SCOPED_TRACE("level " + std::to_string(i));
        const std::int32_t level = std::int32_t(i);
        EXPECT_EQ(rows[i].level, level);
        for (const auto& [side, spans] : {std::pair{&rows[i].a, &a}, std::pair{&rows[i].b, &b}}) {
            ASSERT_TRUE(spans->count(level));
            ASSERT_TRUE(side->has_value());
            const auto [start, end] = spans->at(level);
            EXPECT_EQ((*side)->time_ns, end - start);
            if (i == 0) {
                EXPECT_FALSE((*side)->gap_before_ns.has_value());
            } else {
                ASSERT_TRUE((*side)->gap_before_ns.has_value());
                EXPECT_EQ(*(*side)->gap_before_ns, start - spans->at(level - 1).second);
            }
        }
    }
}

}  // namespace
}  // namespace ps::trace
