// `pathscope-cli trace stats` and `trace diff` on stored runs whose timelines are the traces
// recorded on the H100 (tests/data), checked against trace_summary / level_diff computed here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
    std::ostringstream expected;
    trace::write_summary_csv(trace::trace_summary(t, trace::TimeRange{origin + 100'000, origin + 300'000}), expected);
    EXPECT_EQ(test::file_bytes(csv), expected.str());

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
