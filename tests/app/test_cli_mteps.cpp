// Edges visited and MTEPS of BFS runs in pathscope-cli, as a user runs it: `run` (text and
// --json), the history (`history show`, `history export --format csv`) and `bench --family bfs`'s
// CSV, on maps small enough to count by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "kernels/base/json_reader.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/history_test_support.hpp"

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
