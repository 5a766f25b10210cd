// Edges visited and MTEPS of BFS runs in pathscope-cli, as a user runs it: `run` (text and
// --json), the history (`history show`, `history export --format csv`), `bench --family bfs`'s
// CSV, and per level (`history show` and `trace diff` of stored runs given hand-built timelines),
// on maps small enough to count by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "kernels/base/json_reader.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/history_test_support.hpp"
#include "tests/support/level_timeline.hpp"

namespace ps {
namespace {

using test::run_cli;

// A 3x3 open grid, 4-connected, BFS from the corner (0,0): the levels' degrees are 2, 6, 8, 6, 2
// (corners 2, sides 3, centre 4), 24 in all (tests/kernels/run/test_edges_visited.cpp).
std::string open_3x3() {
    const std::string path = test::temp_path("mteps-open-3x3.map");
    std::ofstream(path, std::ios::binary) << "type octile\nheight 3\nwidth 3\nmap\n...\n...\n...\n";
    return path;
}

TEST(CliMteps, RunJsonHasEdgesVisitedAndMteps) {
    auto r = run_cli("run --map " + open_3x3() + " --variant bfs.cpu.queue --goal 0,0 --start 2,2 --repeat 3 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    auto parsed = parse_json(r.out);
    ASSERT_TRUE(parsed) << parsed.error().message << "\n" << r.out;
    ASSERT_EQ(parsed->items.size(), 1u);
    const JsonValue& run = parsed->items[0];
    const JsonValue* edges = run.find("edges_visited");
    ASSERT_NE(edges, nullptr) << r.out;
    EXPECT_EQ(edges->number, 24);
    const JsonValue* levels = run.find("level_edges");
    ASSERT_NE(levels, nullptr) << r.out;
    std::vector<double> per_level;
    for (const JsonValue& l : levels->items) per_level.push_back(l.number);
    EXPECT_EQ(per_level, (std::vector<double>{2, 6, 8, 6, 2}));
    // MTEPS on the median compute time the same report gives.
    const JsonValue* mteps = run.find("mteps");
    ASSERT_NE(mteps, nullptr) << r.out;
    const double compute_ms = run.find("phases_ms")->find("compute")->find("median")->number;
    ASSERT_GT(compute_ms, 0);
    EXPECT_NEAR(mteps->number, 24 / (compute_ms * 1e3), 1e-9 * mteps->number);
    // Also among the counters, as the history stores them.
    EXPECT_EQ(run.find("counters")->find("edges_visited")->number, 24);

    auto text = run_cli("run --map " + open_3x3() + " --variant bfs.cpu.queue --goal 0,0");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("edges visited 24  MTEPS "), std::string::npos) << text.out;
}

TEST(CliMteps, StoppingAtTheStartCountsLess) {
    // Stopped at (2,2), level 4: levels 0..3 expanded, 2 + 6 + 8 + 6 = 22.
    auto r = run_cli("run --map " + open_3x3() + " --variant bfs.cpu.queue,bfs.cpu --goal 0,0 --start 2,2 " +
                     "--stop-at-start --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto parsed = parse_json(r.out);
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_EQ(parsed->items.size(), 2u);
    for (const JsonValue& run : parsed->items) EXPECT_EQ(run.find("edges_visited")->number, 22) << r.out;
}

TEST(CliMteps, HistoryShowsAndExportsThem) {
    const std::string db = test::fresh_db("cli-mteps.sqlite");
    auto run = run_cli("run --map " + open_3x3() + " --variant bfs.cpu.queue --goal 0,0 --repeat 2 --db " + db);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto show = run_cli("history show 1 --db " + db);
    ASSERT_EQ(show.exit_code, 0) << show.err;
    EXPECT_NE(show.out.find("edges visited 24  MTEPS "), std::string::npos) << show.out;
    auto csv = run_cli("history export --format csv --db " + db);
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_NE(csv.out.find("\"\"edges_visited\"\":24"), std::string::npos) << csv.out;  // in counters_json
    EXPECT_NE(csv.out.find("\"\"mteps\"\":"), std::string::npos) << csv.out;
}

// Runs 1 and 2: BFS on the 3x3 grid from (0,0) (levels' edges 2, 6, 8, 6, 2), given timelines
// by hand. A's levels last 1, 2, 2, 4 and 5 us: 2, 3, 4, 1.5 and 0.4 MTEPS; B's 0.5 then 1 us
// each: 4, 6, 8, 6 and 2 MTEPS.
std::string history_with_timed_levels() {
    const std::string db = test::fresh_db("cli-level-mteps.sqlite");
    auto run = run_cli("run --map " + open_3x3() + " --variant bfs.cpu.queue,bfs.cpu --goal 0,0 --db " + db);
    EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
    auto h = db::History::open(db);
    EXPECT_TRUE(h) << h.error().message;
    if (!h) return db;
    EXPECT_TRUE(h->add_events(1, db::encode_timeline(test::timeline_with_levels({1000, 2000, 2000, 4000, 5000}))));
    EXPECT_TRUE(h->add_events(2, db::encode_timeline(test::timeline_with_levels({500, 1000, 1000, 1000, 1000}))));
    return db;
}

// Runs 3 and 4 beside history_with_timed_levels(): an untraced BFS, and a bidirectional BFS
// (it keeps one half of its levels) given a two-level timeline.
void add_untraced_and_half_level_runs(const std::string& db) {
    auto untraced = run_cli("run --map " + open_3x3() + " --variant bfs.cpu.queue --goal 0,0 --db " + db);
    ASSERT_EQ(untraced.exit_code, 0) << untraced.err;
    auto bidir = run_cli("run --map " + open_3x3() + " --variant bfs.cpu.bidir --goal 0,0 --start 2,2 --db " + db);
    ASSERT_EQ(bidir.exit_code, 0) << bidir.err;
    auto h = db::History::open(db);
    ASSERT_TRUE(h) << h.error().message;
    ASSERT_TRUE(h->add_events(4, db::encode_timeline(test::timeline_with_levels({1000, 1000}))));
}

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

TEST(CliMteps, HistoryShowGivesTheRatePerTracedLevel) {
    const std::string db = history_with_timed_levels();
    auto show = run_cli("history show 1 --db " + db);
    ASSERT_EQ(show.exit_code, 0) << show.err;
    // Sorted 0.4, 1.5, 2, 3, 4: the median is level 0's.
    EXPECT_NE(show.out.find("  MTEPS per traced level: median 2, min 0.4 (level 4), max 4 (level 2), 5 levels\n"),
              std::string::npos)
        << show.out;
    ASSERT_NO_FATAL_FAILURE(add_untraced_and_half_level_runs(db));
    // A run that stored no timeline has no such line.
    auto plain = run_cli("history show 3 --db " + db);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_NE(plain.out.find("edges visited 24"), std::string::npos) << plain.out;
    EXPECT_EQ(plain.out.find("per traced level"), std::string::npos) << plain.out;
    // The bidirectional BFS keeps one half of its levels: no per-level count, and the line says so.
    auto half = run_cli("history show 4 --db " + db);
    ASSERT_EQ(half.exit_code, 0) << half.err;
    EXPECT_NE(half.out.find("MTEPS per traced level: - (run 4 kept part of its levels (6 of 9 visited cells"),
              std::string::npos)
        << half.out;
}

TEST(CliMteps, HistoryShowJsonGivesTheRatePerTracedLevel) {
    const std::string db = history_with_timed_levels();
    auto show = run_cli("history show 2 --json --db " + db);
    ASSERT_EQ(show.exit_code, 0) << show.err;
    auto parsed = parse_json(show.out);
    ASSERT_TRUE(parsed) << parsed.error().message;
    const JsonValue* levels = parsed->find("level_mteps");
    ASSERT_TRUE(levels) << show.out;
    // Run B: edges 2, 6, 8, 6, 2 over 0.5, 1, 1, 1, 1 us.
    const std::vector<double> edges = {2, 6, 8, 6, 2}, us = {0.5, 1, 1, 1, 1}, mteps = {4, 6, 8, 6, 2};
    ASSERT_EQ(levels->items.size(), 5u) << show.out;
    for (std::size_t i = 0; i < 5; ++i) {
        const JsonValue& l = levels->items[i];
        EXPECT_EQ(l.find("level")->number, double(i));
        EXPECT_EQ(l.find("edges")->number, edges[i]);
        EXPECT_NEAR(l.find("ms")->number, us[i] / 1000, 1e-12);
        EXPECT_NEAR(l.find("mteps")->number, mteps[i], 1e-9);
    }
    // An untraced run has none; a bidirectional one's half levels say why in their place.
    ASSERT_NO_FATAL_FAILURE(add_untraced_and_half_level_runs(db));
    auto plain = run_cli("history show 3 --json --db " + db);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    auto plain_json = parse_json(plain.out);
    ASSERT_TRUE(plain_json) << plain_json.error().message;
    EXPECT_EQ(plain_json->find("level_mteps"), nullptr) << plain.out;
    EXPECT_EQ(plain_json->find("level_mteps_error"), nullptr) << plain.out;
    auto half = run_cli("history show 4 --json --db " + db);
    ASSERT_EQ(half.exit_code, 0) << half.err;
    auto half_json = parse_json(half.out);
    ASSERT_TRUE(half_json) << half_json.error().message;
    const JsonValue* why = half_json->find("level_mteps_error");
    ASSERT_TRUE(why) << half.out;
    EXPECT_NE(why->text.find("kept part of its levels"), std::string::npos) << half.out;
}

TEST(CliMteps, TraceDiffGivesEachLevelsEdgesAndRate) {
    const std::string db = history_with_timed_levels();
    const std::string csv = test::temp_path("cli-level-mteps.csv");
    auto diff = run_cli("trace diff 1 2 --csv " + csv + " --db " + db);
    ASSERT_EQ(diff.exit_code, 0) << diff.err;
    EXPECT_EQ(diff.err.find("no per-level MTEPS"), std::string::npos) << diff.err;
    // Table: level, A time, gap, edges, MTEPS, B time, gap, edges, MTEPS, B - A (us).
    std::istringstream table(diff.out);
    std::vector<std::vector<std::string>> lines;
    for (std::string line; std::getline(table, line);) lines.push_back(words(line));
    ASSERT_EQ(lines.size(), 2u + 5u) << diff.out;
    using W = std::vector<std::string>;
    EXPECT_EQ(lines[2], (W{"0", "1.000", "-", "2", "2", "0.500", "-", "2", "4", "-0.500"})) << diff.out;
    EXPECT_EQ(lines[4], (W{"2", "2.000", "0.500", "8", "4", "1.000", "0.500", "8", "8", "-1.000"})) << diff.out;
    EXPECT_EQ(lines[6], (W{"4", "5.000", "0.500", "2", "0.4", "1.000", "0.500", "2", "2", "-4.000"})) << diff.out;

    // CSV: a_edges, a_mteps, b_edges, b_mteps after diff_ns.
    std::ifstream in(csv);
    std::string header;
    ASSERT_TRUE(std::getline(in, header));
    EXPECT_EQ(header,
              "level,a_time_ns,a_gap_before_ns,b_time_ns,b_gap_before_ns,diff_ns,a_edges,a_mteps,b_edges,b_mteps");
    const double edges[] = {2, 6, 8, 6, 2}, mteps_a[] = {2, 3, 4, 1.5, 0.4}, mteps_b[] = {4, 6, 8, 6, 2};
    for (int l = 0; l < 5; ++l) {
        std::string row;
        ASSERT_TRUE(std::getline(in, row)) << l;
        std::vector<std::string> cells;
        std::istringstream fields(row);
        for (std::string c; std::getline(fields, c, ',');) cells.push_back(c);
        ASSERT_EQ(cells.size(), 10u) << row;
        EXPECT_EQ(std::stod(cells[6]), edges[l]) << row;
        EXPECT_NEAR(std::stod(cells[7]), mteps_a[l], 1e-9) << row;
        EXPECT_EQ(std::stod(cells[8]), edges[l]) << row;
        EXPECT_NEAR(std::stod(cells[9]), mteps_b[l], 1e-9) << row;
    }
}

TEST(CliMteps, BfsBenchCsvHasTheColumns) {
    // An open 8x8 grid, 4-connected, from the corner over the whole map: every one of its
    // 2 x 8 x 7 = 112 edges examined from both ends, 224.
    const std::string csv = test::temp_path("mteps-bench.csv");
    auto r = run_cli("bench --family bfs --sizes 8 --obstacles none --variant bfs.cpu.queue --repeat 3 --csv " + csv);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("MTEPS"), std::string::npos) << r.out;
    std::ifstream in(csv);
    std::string header, row;
    ASSERT_TRUE(std::getline(in, header) && std::getline(in, row));
    ASSERT_NE(header.find(",edges_visited,mteps"), std::string::npos) << header;
    EXPECT_EQ(header.substr(header.size() - std::string(",edges_visited,mteps").size()), ",edges_visited,mteps");
    const std::size_t last = row.rfind(','), before = row.rfind(',', last - 1);
    EXPECT_EQ(row.substr(before + 1, last - before - 1), "224") << row;
    EXPECT_GT(std::stod(row.substr(last + 1)), 0) << row;
}

}  // namespace
}  // namespace ps
