// `pathscope-cli trace stats` and `trace diff` on stored runs whose timelines are the traces
// recorded on the H100 (tests/data), checked against trace_summary / level_diff computed here,
// and a range's own CSV against the recorded events (length, GPU busy, items per row).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "database/recorder.hpp"
#include "instrumentation/timeline/trace_stats.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using test::run_cli;

trace::Timeline recorded(const char* file) {
    std::ifstream in(std::filesystem::path(PATHSCOPE_SOURCE_DIR) / "tests" / "data" / file, std::ios::binary);
    std::string error;
    auto t = trace::read_csv(in, error);
    EXPECT_TRUE(t) << file << ": " << error;
    return t.value_or(trace::Timeline{});
}

// Two stored BFS runs (ids 1 and 2) carrying the recorded dp and shared traces, a third run
// without a timeline, and a fourth on another map carrying the shared trace again.
std::string history_with_traces() {
    const std::string path = test::fresh_db("cli-trace-stats.sqlite");
    auto h = db::History::open(path);
    EXPECT_TRUE(h) << h.error().message;
    const auto map = std::make_shared<const GridMap>(test::test_map(32, 32, 3));
    db::HistoryRecorder recorder(*h);
    for (const char* file : {"bfs_dp_64.csv", "bfs_shared_64.csv", ""}) {
        RunRequest r;
        r.variant_id = "bfs.cpu.queue";
        r.problem.map = map;
        r.problem.rules.connectivity = Connectivity::Four;
        r.problem.start = map->index(*nearest_passable(*map, {0, 0}));
        r.problem.goal = map->index(*nearest_passable(*map, {31, 31}));
        const RunReport report = run_variant(r, &recorder);
        recorder.record(r, report);
        EXPECT_FALSE(recorder.error());
        if (*file) {
            EXPECT_TRUE(h->add_events(*recorder.run_id(), db::encode_timeline(recorded(file))));
        }
    }
    RunRequest other;
    other.variant_id = "bfs.cpu.queue";
    other.problem.map = std::make_shared<const GridMap>(test::test_map(40, 24, 5));
    other.problem.rules.connectivity = Connectivity::Four;
    other.problem.start = other.problem.map->index(*nearest_passable(*other.problem.map, {0, 0}));
    other.problem.goal = other.problem.map->index(*nearest_passable(*other.problem.map, {39, 23}));
    recorder.record(other, run_variant(other, &recorder));
    EXPECT_TRUE(h->add_events(*recorder.run_id(), db::encode_timeline(recorded("bfs_shared_64.csv"))));
    return path;
}

TEST(TraceStatsCli, PrintsTheSummaryAndWritesItsCsv) {
    const std::string db = history_with_traces();
    const std::string csv = test::temp_path("trace-stats.csv");
    auto r = run_cli("trace stats 2 --csv " + csv + " --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("CUDA GPU kernel summary"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("CUDA API summary"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GPU memory operations"), std::string::npos) << r.out;

    std::ostringstream expected;
    trace::write_summary_csv(trace::trace_summary(recorded("bfs_shared_64.csv")), expected);
    EXPECT_EQ(test::file_bytes(csv), expected.str());
}

TEST(TraceStatsCli, ARangeAddsItsStatisticsAndNarrowsTheTables) {
    const std::string db = history_with_traces();
    const trace::Timeline t = recorded("bfs_shared_64.csv");
    const std::string csv = test::temp_path("trace-stats-range.csv");
    auto r = run_cli("trace stats 2 --range 100us-300us --csv " + csv + " --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("GPU busy"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Range 0.100 .. 0.300 ms"), std::string::npos) << r.out;
    const std::int64_t origin = trace::view_origin_ns(t);
    const trace::TimeRange range{origin + 100'000, origin + 300'000};
    std::ostringstream expected;
    trace::write_summary_csv(trace::trace_summary(t, range), expected);
    EXPECT_EQ(test::file_bytes(csv), expected.str());

    // The range's own statistics go beside it, named after it, and stdout says where.
    const std::string range_csv = test::temp_path("trace-stats-range.range.csv");
    EXPECT_NE(r.out.find("range statistics written to " + range_csv + "\n"), std::string::npos) << r.out;
    std::ostringstream expected_range;
    trace::write_range_csv(trace::range_stats(t, range), expected_range);
    EXPECT_EQ(test::file_bytes(range_csv), expected_range.str());
    // Checked against the recorded events themselves: the range's length, the GPU's busy time
    // (the union of kernels, copies, sets and device levels clipped to it) and each row's items
    // (those overlapping the range; an instant one at its start counts).
    std::istringstream in(test::file_bytes(range_csv));
    std::map<std::string, std::vector<std::string>> section;  // first row of each section
    std::map<std::string, std::string> row_counts;            // track name -> count
    for (const auto& record : trace::read_csv_records(in)) {
        if (record.size() < 5) continue;
        section.try_emplace(record[0], record);
        if (record[0] == "row") row_counts[record[1]] = record[3];
    }
    ASSERT_TRUE(section.count("range") && section.count("gpu_busy")) << test::file_bytes(range_csv);
    EXPECT_EQ(section["range"][4], "200000");
    const auto overlapping = [&](const trace::Event& e) {
        const std::int64_t end = std::max(e.start_ns, e.end_ns);
        return e.start_ns < range.end_ns && (end > range.begin_ns || e.start_ns == range.begin_ns);
    };
    std::vector<std::pair<std::int64_t, std::int64_t>> busy;
    std::map<std::string, int> items;
    for (const trace::Event& e : t.events) {
        if (!overlapping(e)) continue;
        ++items[t.tracks[e.track].name];
        using K = trace::EventKind;
        if (e.kind == K::Kernel || e.kind == K::Memcpy || e.kind == K::Memset || e.kind == K::DeviceLevel)
            busy.emplace_back(std::max(e.start_ns, range.begin_ns), std::min(e.end_ns, range.end_ns));
    }
    std::sort(busy.begin(), busy.end());
    std::int64_t busy_ns = 0, reach = range.begin_ns;
    for (const auto& [from, to] : busy) {
        if (to > std::max(from, reach)) busy_ns += to - std::max(from, reach);
        reach = std::max(reach, to);
    }
    ASSERT_GT(busy_ns, 0);
    EXPECT_EQ(section["gpu_busy"][4], std::to_string(busy_ns));
    ASSERT_FALSE(items.empty());
    EXPECT_EQ(row_counts.size(), items.size());
    for (const auto& [track, count] : items) EXPECT_EQ(row_counts[track], std::to_string(count)) << track;
    // Without a range, no range file.
    std::filesystem::remove(range_csv);
    ASSERT_EQ(run_cli("trace stats 2 --csv " + csv + " --db " + db).exit_code, 0);
    EXPECT_FALSE(std::filesystem::exists(range_csv));

    for (const char* bad : {"300us-100us", "1-2parsecs"}) {
        auto refused = run_cli(std::string("trace stats 2 --range ") + bad + " --db " + db);
        EXPECT_EQ(refused.exit_code, 2) << bad;
        EXPECT_NE(refused.err.find("range"), std::string::npos) << refused.err;
    }
    auto untraced = run_cli("trace stats 3 --db " + db);
    EXPECT_EQ(untraced.exit_code, 2);
    EXPECT_NE(untraced.err.find("has no timeline"), std::string::npos) << untraced.err;
    EXPECT_EQ(run_cli("trace stats --db " + db).exit_code, 2);
    EXPECT_EQ(run_cli("trace frobnicate 1 --db " + db).exit_code, 2);
}

// Each line's first `n` comma-separated cells (no quoted fields in these CSVs).
std::string first_cells(const std::string& csv, int n) {
    std::istringstream in(csv);
    std::string out;
    for (std::string line; std::getline(in, line);) {
        std::size_t end = 0;
        for (int i = 0; i < n && end != std::string::npos; ++i) end = line.find(',', end + (i > 0));
        out += line.substr(0, end) + '\n';
    }
    return out;
}

TEST(TraceStatsCli, DiffListsEveryLevelOfBothRuns) {
    const std::string db = history_with_traces();
    const std::string csv = test::temp_path("trace-diff.csv");
    auto r = run_cli("trace diff 1 2 --csv " + csv + " --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rows = trace::level_diff(recorded("bfs_dp_64.csv"), recorded("bfs_shared_64.csv"));
    ASSERT_FALSE(rows.empty());
    std::ostringstream expected;
    trace::write_level_diff_csv(rows, expected);
    // The times (the edges and rates are CliMteps.TraceDiffGivesEachLevelsEdgesAndRate's).
    EXPECT_EQ(first_cells(test::file_bytes(csv), 6), first_cells(expected.str(), 6));
    // A header line, a column line and a line per level.
    EXPECT_EQ(std::size_t(std::count(r.out.begin(), r.out.end(), '\n')), 2 + rows.size()) << r.out;
    EXPECT_EQ(r.err.find("different maps"), std::string::npos) << r.err;  // both on one map
    EXPECT_EQ(run_cli("trace diff 1 --db " + db).exit_code, 2);
    auto other_map = run_cli("trace diff 1 4 --db " + db);
    EXPECT_EQ(other_map.exit_code, 0) << other_map.err;
    EXPECT_NE(other_map.err.find("different maps"), std::string::npos) << other_map.err;
}

}  // namespace
}  // namespace ps
