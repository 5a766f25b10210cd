// pathscope-cli against the findings of review 14: options that would be ignored are errors,
// exit codes are the documented ones, --json output stays JSON on every error path, and
// inadmissible heuristics are refused up front.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/cli_test_support.hpp"
#include "tests/support/history_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::run_cli;

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A tiny scenario (open 4x3 map) for the scen command.
std::string scen_args() {
    const std::string map = test::temp_path("review-small.map");
    write_file(map, "type octile\nheight 3\nwidth 4\nmap\n....\n....\n....\n");
    const std::string scen = test::temp_path("review-small.scen");
    write_file(scen, "version 1\n0\treview-small.map\t4\t3\t0\t0\t3\t2\t3.82842712\n");
    return "scen --map " + map + " --scen " + scen;
}

TEST(CliReview, ScenNamesTheFamilyOfAVariantItCannotUse) {
    auto batch = run_cli(scen_args() + " --variant batch.cpu");
    EXPECT_EQ(batch.exit_code, 2);
    EXPECT_EQ(batch.err.find("BFS variant"), std::string::npos) << batch.err;
    EXPECT_NE(batch.err.find("batch.cpu is a batch variant"), std::string::npos) << batch.err;
    auto bfs = run_cli(scen_args() + " --variant bfs.cpu");
    EXPECT_EQ(bfs.exit_code, 2);
    EXPECT_NE(bfs.err.find("bfs.cpu is a BFS variant"), std::string::npos) << bfs.err;
}

TEST(CliReview, BatchRunRefusesSingleSearchOptions) {
    const std::string base = "run --gen empty --size 16 --variant batch.cpu --agents 4 ";
    for (const char* option : {"--heuristic octile", "--start 1,1", "--goal 3,3", "--stop-at-start"}) {
        auto r = run_cli(base + option);
        EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.out << r.err;
        const std::string name = std::string(option).substr(0, std::string(option).find(' '));
        EXPECT_NE(r.err.find(name), std::string::npos) << option << ": " << r.err;
    }
    auto fine = run_cli(base);
    EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

TEST(CliReview, MapFileRefusesGeneratorOptions) {
    const std::string map = test::temp_path("review-map.map");
    write_file(map, "type octile\nheight 3\nwidth 4\nmap\n....\n....\n....\n");
    for (const char* option : {"--size 8", "--seed 3", "--density 0.5", "--noise value", "--octaves 2"}) {
        auto r = run_cli("run --map " + map + " --variant astar.cpu " + option);
        EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.out;
        const std::string name = std::string(option).substr(0, std::string(option).find(' '));
        EXPECT_NE(r.err.find(name), std::string::npos) << option << ": " << r.err;
        EXPECT_NE(r.err.find("--gen"), std::string::npos) << option << ": " << r.err;
    }
}

TEST(CliReview, BenchRefusesOptionsItWouldIgnore) {
    const std::string astar = "bench --family astar --sizes 16 --grids empty --variant astar.cpu --repeat 1 ";
    for (const char* option : {"--json", "--obstacles none", "--frontier-alloc once", "--agents 10", "--sweep none",
                               "--density 0.2", "--cpu-sweep-max 8"}) {
        auto r = run_cli(astar + option);
        EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.out;
        const std::string name = std::string(option).substr(0, std::string(option).find(' '));
        EXPECT_NE(r.err.find(name), std::string::npos) << option << ": " << r.err;
    }
    auto bfs = run_cli("bench --family bfs --sizes 8 --obstacles none --variant bfs.cpu.queue --repeat 1 --grids maze");
    EXPECT_EQ(bfs.exit_code, 2) << bfs.out;
    EXPECT_NE(bfs.err.find("--grids"), std::string::npos) << bfs.err;
    auto fine = run_cli(astar);
    EXPECT_EQ(fine.exit_code, 0) << fine.out << fine.err;
}

// Every map category a target is reported on can be benched: rooms, streets and noise beside the
// BBA* paper's grids, each row validated against astar.cpu; an unknown name is refused with the
// list of the names there are.
TEST(CliReview, AStarBenchTakesTheMapCategoriesOfTheTargets) {
    auto r = run_cli(
        "bench --family astar --sizes 40 --grids rooms,streets,noise --variant astar.cpu,astar.cpu.bidir --repeat 1 "
        "--warmup 0");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const char* grid : {"rooms", "streets", "noise"}) {
        std::size_t rows = 0, passed = 0;
        std::istringstream lines(r.out);
        for (std::string line; std::getline(lines, line);)
            if (line.rfind(grid, 0) == 0) {
                ++rows;
                passed += line.find("passed") != std::string::npos;
            }
        EXPECT_EQ(rows, 2u) << grid << "\n" << r.out;
        EXPECT_EQ(passed, 2u) << grid << ": both against one astar.cpu run\n" << r.out;
    }
    auto bad = run_cli("bench --family astar --sizes 16 --grids cities --variant astar.cpu --repeat 1");
    EXPECT_EQ(bad.exit_code, 2) << bad.out;
    for (const char* name : {"empty", "rects", "maze", "division", "rooms", "streets", "noise", "'cities'"})
        EXPECT_NE(bad.err.find(name), std::string::npos) << name << ": " << bad.err;
}

TEST(CliReview, AFailedBenchRunExitsWithTwo) {
    // An unknown parameter makes the variant refuse the run: a failed run, not a failed validation.
    auto r = run_cli("bench --family astar --sizes 16 --grids empty --variant astar.cpu:no_such_param=1 --repeat 1");
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

TEST(CliReview, BenchIdsOfBenchesInOneSecondDiffer) {
    const std::string db = test::fresh_db("review-bench-ids.sqlite");
    const std::string bench = "bench --family astar --sizes 16 --grids empty --variant astar.cpu --repeat 1 --db " + db;
    ASSERT_EQ(run_cli(bench).exit_code, 0);
    ASSERT_EQ(run_cli(bench).exit_code, 0);
    ASSERT_EQ(run_cli(bench).exit_code, 0);
    test::RawDb raw(db);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM runs"), 3);
    EXPECT_EQ(raw.integer("SELECT count(DISTINCT bench_id) FROM runs"), 3);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM runs WHERE bench_id LIKE 'astar-%'"), 3) << "readable: family first";
}

// stdout under --json: nothing at all, or a complete JSON array.
void expect_json_or_nothing(const test::CliResult& r, const std::string& what) {
    if (r.out.empty()) return;
    ASSERT_EQ(r.out.front(), '[') << what << ": " << r.out;
    const auto last = r.out.find_last_not_of(" \n");
    EXPECT_EQ(r.out[last], ']') << what << ": " << r.out;
}

TEST(CliReview, JsonOutputStaysJsonOnEarlyErrors) {
    const std::string run = "run --gen empty --size 16 --json ";
    for (const std::string& args : {run + "--variant astar.cpu --start 99,99", run + "--variant astar.cpu --goal 0,x",
                                    run + "--variant astar.cpu --param bad", run + "--variant bfs.cpu --connectivity 6",
                                    run + "--variant batch.cpu --agents-scen /no/such.scen"}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_FALSE(r.err.empty()) << args;
        expect_json_or_nothing(r, args);
    }
    auto scen = run_cli(scen_args() + " --json --variant astar.cpu,bfs.cpu");
    EXPECT_EQ(scen.exit_code, 2);
    expect_json_or_nothing(scen, "scen with a BFS variant");
    auto scen_cost = run_cli(scen_args() + " --json --variant astar.cpu --cost integer");
    EXPECT_EQ(scen_cost.exit_code, 2);
    expect_json_or_nothing(scen_cost, "scen with integer costs");
}

TEST(CliReview, ManhattanWithEightConnectedMovesIsRefused) {
    auto r = run_cli("run --gen empty --size 16 --variant astar.cpu --heuristic manhattan");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find("manhattan"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("8-connected"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("validation"), std::string::npos) << "refused before running: " << r.out;
    auto four = run_cli("run --gen empty --size 16 --variant astar.cpu --heuristic manhattan --connectivity 4");
    EXPECT_EQ(four.exit_code, 0) << four.err;
}

}  // namespace
}  // namespace ps
