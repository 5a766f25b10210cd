// pathscope-cli as a user runs it: a child process, its exit code, stdout and stderr.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/map/generators.hpp"
#include "kernels/map/map_io.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::run_cli;

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(Cli, ListsEveryCpuVariant) {
    auto r = run_cli("list");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* id : {"bfs.cpu ", "bfs.cpu.queue", "dijkstra.cpu", "astar.cpu ", "astar.cpu.bidir"})
        EXPECT_NE(r.out.find(id), std::string::npos) << id;
    auto j = run_cli("list --json");
    ASSERT_EQ(j.exit_code, 0);
    EXPECT_EQ(j.out.front(), '[');
    EXPECT_NE(j.out.find("\"id\": \"astar.cpu.bidir\""), std::string::npos);
}

TEST(Cli, RunReportsValidationAndPhases) {
    auto r = run_cli(
        "run --gen random --size 64 --seed 3 --density 0.2 --variant astar.cpu,bfs.cpu "
        "--repeat 3 --warmup 1 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("\"variant\": \"astar.cpu\""), std::string::npos);
    EXPECT_NE(r.out.find("\"validation\": \"passed\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"repetitions\": 3"), std::string::npos);
    EXPECT_NE(r.out.find("\"median\""), std::string::npos);
    EXPECT_EQ(r.out.find("\"validation\": \"failed\""), std::string::npos);
}

TEST(Cli, BadInputExitsWithTwoAndAMessage) {
    struct Case {
        std::string args;
        std::string message;
    };
    const Case cases[] = {
        {"run --map /nonexistent/x.map --variant astar.cpu", "/nonexistent/x.map"},
        {"run --gen empty --size 16 --variant astar.cpu --start 99,99", "outside"},
        {"run --gen empty --size 16 --variant astar.cpu --start 1:2", "x,y"},
        {"run --gen empty --size 16 --variant nope.cpu", "unknown variant"},
        {"run --gen empty --size 16 --variant astar.cpu --bogus", "unknown option"},
        {"run --gen empty --size 16 --variant astar.cpu --repeat 0", "--repeat"},
        {"run --gen blocked-centre --size 16 --variant astar.cpu --start 8,8", "blocked"},
        {"frobnicate", "unknown command"},
        {"gen --gen empty --size 16", "--out"},
    };
    for (const auto& c : cases) {
        auto r = run_cli(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << " -> " << r.err;
    }
}

TEST(Cli, CornerCuttingTakesTheRuleOrNothing) {
    // Two diagonal walls between (0,0) and (2,2): only the any rule gets through, 2 sqrt2.
    const std::string map = test::temp_path("corners-squeeze.map");
    write_file(map, "type octile\nheight 3\nwidth 3\nmap\n.@.\n@.@\n.@.\n");
    const std::string run = "run --map " + map + " --variant astar.cpu,dijkstra.cpu --start 0,0 --goal 2,2 --json";
    const struct {
        const char* option;
        const char* stored;
        bool found;
    } cases[] = {
        {"", "none", false},
        {" --corner-cutting none", "none", false},
        {" --corner-cutting", "one", false},
        {" --corner-cutting one", "one", false},
        {" --corner-cutting any", "any", true},
        {" --corner-cutting=any", "any", true},
        {" --corner-cutting --cost integer", "one", false},  // the next option is no value
    };
    for (const auto& c : cases) {
        auto r = run_cli(run + c.option);
        // No path is a run impossible (2), with the report still printed.
        ASSERT_EQ(r.exit_code, c.found ? 0 : 2) << c.option << ": " << r.err << r.out;
        EXPECT_NE(r.out.find("\"corners\": \"" + std::string(c.stored) + "\""), std::string::npos) << c.option << r.out;
        EXPECT_NE(r.out.find(c.found ? "\"found\": true" : "\"found\": false"), std::string::npos) << c.option;
        EXPECT_EQ(r.out.find("\"validation\": \"failed\""), std::string::npos) << c.option << r.out;
    }
    auto any = run_cli("run --map " + map + " --variant astar.cpu --start 0,0 --goal 2,2 --corner-cutting any");
    EXPECT_NE(any.out.find("path cost 2.828427125"), std::string::npos) << any.out;
    EXPECT_NE(any.out.find("any"), std::string::npos) << any.out;

    for (const char* bad : {"run --gen empty --size 8 --variant astar.cpu --corner-cutting sideways",
                            "bench --family astar --sizes 8 --corner-cutting 2",
                            "roadmap gen --gen empty --size 8 --spacing 2 --corner-cutting yes"}) {
        auto r = run_cli(bad);
        EXPECT_EQ(r.exit_code, 2) << bad;
        EXPECT_NE(r.err.find("--corner-cutting expects none, one or any"), std::string::npos) << bad << " -> " << r.err;
    }
    auto empty = run_cli("run --gen empty --size 8 --variant astar.cpu --corner-cutting=");
    EXPECT_EQ(empty.exit_code, 2);
    EXPECT_NE(empty.err.find("--corner-cutting= needs a value"), std::string::npos) << empty.err;
    auto twice = run_cli("run --gen empty --size 8 --variant astar.cpu --corner-cutting --corner-cutting any");
    EXPECT_EQ(twice.exit_code, 2);
    EXPECT_NE(twice.err.find("more than once"), std::string::npos) << twice.err;
    // The MovingAI lengths hold under their own rule only.
    const std::string scenarios = test::temp_path("corners-squeeze.scen");
    write_file(scenarios, "version 1\n0\tcorners-squeeze.map\t3\t3\t0\t0\t0\t0\t0\n");
    auto scen = run_cli("scen --map " + map + " --scen " + scenarios + " --variant astar.cpu --corner-cutting any");
    EXPECT_EQ(scen.exit_code, 2);
    EXPECT_NE(scen.err.find("without corner cutting"), std::string::npos) << scen.err;
}

TEST(Cli, DivisionMazeNeedsTheAnyRuleCornerToCorner) {
    const std::string path = test::temp_path("gen-division.map");
    auto gen = run_cli("gen --gen division --width 40 --height 16 --seed 3 --out " + path);
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
    auto map = read_movingai_map(path);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_EQ(map->width(), 40);
    EXPECT_EQ(map->height(), 16);
    // From corner to corner (the default endpoints): no path until diagonals may squeeze.
    auto shut = run_cli("run --map " + path + " --variant astar.cpu");
    EXPECT_EQ(shut.exit_code, 2);
    EXPECT_NE(shut.err.find("not reachable"), std::string::npos) << shut.err;
    auto any =
        run_cli("run --map " + path + " --variant astar.cpu,dijkstra.cpu,astar.cpu.bidir --corner-cutting any --json");
    EXPECT_EQ(any.exit_code, 0) << any.err << any.out;
    EXPECT_EQ(any.out.find("\"validation\": \"failed\""), std::string::npos) << any.out;
}

TEST(Cli, GenWritesAReadableMap) {
    const std::string path = test::temp_path("gen-maze.map");
    auto r = run_cli("gen --gen maze --size 33 --corridor 1 --seed 5 --out " + path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto map = read_movingai_map(path);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_EQ(map->width(), 33);
    EXPECT_EQ(map->height(), 33);
    EXPECT_GT(map->passable_count(), 0u);
}

TEST(Cli, GenRoomsWritesRoomsOfTheGivenSize) {
    const std::string path = test::temp_path("gen-rooms.map");
    auto r = run_cli("gen --gen rooms --room 8 --size 65 --out " + path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto map = read_movingai_map(path);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_EQ(map->width(), 65);
    EXPECT_EQ(map->height(), 65);
    // Wall lines on columns and rows 8, 17, ..., 62 (every 9th), crossing at blocked posts; the
    // last rooms are 2 cells wide. Room interiors are free.
    for (int a : {8, 17, 62})
        for (int b : {8, 17, 62}) EXPECT_FALSE(map->passable(a, b)) << a << "," << b;
    for (int a : {0, 7, 9, 16, 63, 64})
        for (int b : {0, 7, 9, 16, 63, 64}) EXPECT_TRUE(map->passable(a, b)) << a << "," << b;
    // Corner to corner under the MovingAI rule (the default), through the doors.
    auto run = run_cli("run --map " + path + " --variant astar.cpu,dijkstra.cpu --json");
    EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_EQ(run.out.find("\"validation\": \"failed\""), std::string::npos) << run.out;

    // Without --density rooms keep half the walls beyond the tree closed, not the 20% cells of
    // the other generators.
    auto plain = run_cli("gen --gen rooms --size 70 --seed 4 --out " + path);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    GeneratorParams p;
    p.kind = GeneratorKind::Rooms;
    p.width = p.height = 70;
    p.seed = 4;
    p.density = 0.5;
    auto expected = generate_map(p);
    ASSERT_TRUE(expected);
    auto written = read_movingai_map(path);
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_TRUE(written->cells() == expected->cells());
    p.density = 0.2;
    EXPECT_FALSE(written->cells() == generate_map(p)->cells());

    // A room needs 2 cells; --room does nothing to a map file.
    auto small = run_cli("gen --gen rooms --room 1 --size 65 --out " + path);
    EXPECT_EQ(small.exit_code, 2);
    EXPECT_NE(small.err.find("room"), std::string::npos) << small.err;
    auto file = run_cli("run --map " + path + " --room 8 --variant astar.cpu");
    EXPECT_EQ(file.exit_code, 2);
    EXPECT_NE(file.err.find("--room is an option of --gen"), std::string::npos) << file.err;
}

TEST(Cli, ScenCountsPassAndFail) {
    // 4x3 open map: (0,0) -> (3,2) is 2 diagonals + 1 straight = 1 + 2*sqrt2.
    const std::string map = test::temp_path("scen-small.map");
    write_file(map, "type octile\nheight 3\nwidth 4\nmap\n....\n....\n....\n");
    const std::string good = test::temp_path("scen-good.scen");
    write_file(good,
               "version 1\n0\tscen-small.map\t4\t3\t0\t0\t3\t2\t3.82842712\n"
               "0\tscen-small.map\t4\t3\t1\t1\t1\t1\t0.00000000\n");
    auto ok = run_cli("scen --map " + map + " --scen " + good + " --variant astar.cpu,dijkstra.cpu,astar.cpu.bidir");
    EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
    EXPECT_NE(ok.out.find("2 passed, 0 failed"), std::string::npos) << ok.out;

    const std::string bad = test::temp_path("scen-bad.scen");
    write_file(bad, "version 1\n0\tscen-small.map\t4\t3\t0\t0\t3\t2\t3.00000000\n");
    auto failed = run_cli("scen --map " + map + " --scen " + bad + " --variant astar.cpu");
    EXPECT_EQ(failed.exit_code, 1);
    EXPECT_NE(failed.out.find("0 passed, 1 failed"), std::string::npos) << failed.out;

    const std::string outside = test::temp_path("scen-outside.scen");
    write_file(outside, "version 1\n0\tscen-small.map\t4\t3\t0\t0\t7\t2\t3.0\n");
    auto refused = run_cli("scen --map " + map + " --scen " + outside + " --variant astar.cpu");
    EXPECT_EQ(refused.exit_code, 2);  // its only scenario is unusable: nothing to run
    EXPECT_NE(refused.err.find("no usable scenario"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(outside + ":2: goal (7, 2) is outside the 4x3 map"), std::string::npos) << refused.err;
}

// A file that gives 0 between two different cells gives no length (tests/bench/random_scen.py
// writes such files): those scenarios are checked against astar.cpu's cost, with a note, so a
// right cost passes and a search that finds none where astar.cpu finds one fails.
TEST(Cli, ScenWithoutLengthsChecksAgainstAstarCpu) {
    // 5x3, wall at (2, 1): (0,0) -> (4,2) is 4 + sqrt2 without corner cutting (hand-worked below).
    const std::string map = test::temp_path("scen-nolength.map");
    write_file(map, "type octile\nheight 3\nwidth 5\nmap\n.....\n..@..\n.....\n");
    const std::string scen = test::temp_path("scen-nolength.map.scen");
    write_file(scen,
               "version 1\n0\tscen-nolength.map\t5\t3\t0\t0\t4\t2\t0\n"
               "0\tscen-nolength.map\t5\t3\t0\t2\t4\t2\t4.00000000\n");
    auto ok = run_cli("scen --map " + map + " --scen " + scen + " --variant astar.cpu,jps.cpu");
    EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
    EXPECT_NE(ok.out.find("jps.cpu on scen-nolength: 2 passed, 0 failed"), std::string::npos) << ok.out;
    EXPECT_NE(ok.err.find("1 scenarios give no optimal length"), std::string::npos) << ok.err;
    auto bench = run_cli("bench --family scen --scen " + scen + " --variant astar.cpu,batch.cpu --repeat 1 --warmup 0");
    EXPECT_EQ(bench.exit_code, 0) << bench.out << bench.err;
    EXPECT_NE(bench.out.find("1 of them give no optimal length"), std::string::npos) << bench.out;
    EXPECT_EQ(bench.out.find("failed"), std::string::npos) << bench.out;
}

// A scenario file with bad lines among good ones: every command that reads one runs the good
// queries (checked against hand-worked lengths) and names each bad line with its number.
TEST(Cli, ScenarioFilesWithBadLinesRunTheRest) {
    // 5x3, wall at (2, 1). Without corner cutting no diagonal may touch the wall's corners, so
    // (0,0) -> (4,2) goes (1,0) (2,0) (3,0), diagonally to (4,1), then (4,2): 4 + sqrt2. Along
    // the bottom row (0,2) -> (4,2) is 4.
    const std::string map = test::temp_path("mixed.map");
    write_file(map, "type octile\nheight 3\nwidth 5\nmap\n.....\n..@..\n.....\n");
    const std::string scen = test::temp_path("mixed.map.scen");
    write_file(scen,
               "version 1\n"
               "0\tmixed.map\t5\t3\t0\t0\t4\t2\t5.41421356\n"    // 2: good
               "0\tmixed.map\t6\t6\t0\t0\t4\t2\t5.41421356\n"    // 3: another map size
               "0\tmixed.map\t5\t3\t2\t1\t4\t2\t2.41421356\n"    // 4: start in the wall
               "0\tmixed.map\t5\t3\t0\t0\t9\t2\t9.00000000\n"    // 5: goal outside
               "garbage\n"                                       // 6: one field
               "0\tmixed.map\t5\t3\t0\t2\t4\t2\t4.00000000\n");  // 7: good
    const char* reasons[] = {":3: scenario is for a 6x6 map, this map is 5x3", ":4: start (2, 1) is a blocked cell",
                             ":5: goal (9, 2) is outside the 5x3 map", ":6: expected 9 fields"};
    auto expect_reported = [&](const std::string& text, const std::string& what) {
        EXPECT_NE(text.find("4 of 6 scenario lines left out"), std::string::npos) << what << ": " << text;
        for (const char* reason : reasons)
            EXPECT_NE(text.find(scen + reason), std::string::npos) << what << " lacks " << reason << ": " << text;
    };

    auto scen_run = run_cli("scen --map " + map + " --scen " + scen + " --variant astar.cpu --json");
    EXPECT_EQ(scen_run.exit_code, 0) << scen_run.out << scen_run.err;
    EXPECT_NE(scen_run.out.find("\"passed\": 2"), std::string::npos) << scen_run.out;
    EXPECT_NE(scen_run.out.find("\"failed\": 0"), std::string::npos) << scen_run.out;
    EXPECT_EQ(scen_run.out.front(), '[') << "the notes go to stderr, stdout stays JSON";
    expect_reported(scen_run.err, "scen");

    auto batch = run_cli("run --map " + map + " --agents-scen " + scen + " --variant batch.cpu");
    EXPECT_EQ(batch.exit_code, 0) << batch.out << batch.err;
    EXPECT_NE(batch.out.find("agents 2: 2 reached"), std::string::npos) << batch.out;
    expect_reported(batch.err, "run --agents-scen");

    auto bench = run_cli("bench --family astar --scen " + scen + " --variant astar.cpu --repeat 1");
    EXPECT_EQ(bench.exit_code, 0) << bench.out << bench.err;
    EXPECT_NE(bench.out.find("2 passed, 0 failed"), std::string::npos) << bench.out;
    expect_reported(bench.out, "bench --family astar --scen");
}

TEST(Cli, TraceWritesAChromeTraceAndStoresTheTimeline) {
    const std::string out = test::temp_path("cli-trace.json");
    const std::string db = test::temp_path("cli-trace.sqlite");
    std::remove(db.c_str());
    auto r =
        run_cli("run --gen random --size 64 --variant bfs.cpu.queue --trace full --trace-out " + out + " --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("trace (full):"), std::string::npos) << r.out;
    const std::string written = test::file_bytes(out);
    EXPECT_EQ(written.rfind("{\"traceEvents\":[", 0), 0u) << written.substr(0, 80);
    EXPECT_NE(written.find("\"compute\""), std::string::npos);

    auto exported = run_cli("trace export 1 --format csv --db " + db);
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    EXPECT_EQ(exported.out.rfind("kind,name,track,start_ns", 0), 0u) << exported.out.substr(0, 80);
    EXPECT_NE(exported.out.find("host phase,compute"), std::string::npos) << exported.out;

    auto missing = run_cli("trace export 99 --db " + db);
    EXPECT_EQ(missing.exit_code, 2);
    auto bad = run_cli("run --gen empty --size 8 --variant bfs.cpu --trace loud");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("--trace"), std::string::npos);
}

TEST(Cli, ScenPassesEverySharedScenario) {
    PS_REQUIRE_MOVINGAI();
    for (const char* name : {"arena", "den520d", "random512-10-0"}) {
        const auto map = (test::movingai_dir() / (std::string(name) + ".map")).string();
        auto r = run_cli("scen --map " + map + " --scen " + map + ".scen --variant astar.cpu.bidir --json");
        EXPECT_EQ(r.exit_code, 0) << name << r.out << r.err;
        EXPECT_NE(r.out.find("\"failed\": 0"), std::string::npos) << name << r.out.substr(0, 500);
    }
}

}  // namespace
}  // namespace ps
