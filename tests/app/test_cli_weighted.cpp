// Weighted terrain from the command line: a grey PNG read with --costs, a costs text map written
// by `gen --terrain-costs` and searched, the history keeping the costs, MovingAI swamp costs,
// and the refusals (BFS on costs, --costs on a .map, --terrain-costs on a file).
#include <gtest/gtest.h>

#include <fstream>

#include "database/history.hpp"
#include "kernels/map/image_map.hpp"
#include "kernels/map/map_io.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::run_cli;

TEST(CliWeighted, GreyPngCostsAreSearchedAndStored) {
    // 3x2: the direct step east crosses a 9 ((1+9)/2 x 2 = 10); around it costs 4, 4-connected.
    const GridMap map = test::map_from_rows({"191", "..."});
    const std::string png = test::temp_path("detour.png"), db = test::temp_path("weighted-cli.sqlite");
    ASSERT_TRUE(write_cost_png(map, png).ok());
    auto r = run_cli("run --map " + png +
                     " --costs --connectivity 4 --cost integer --start 0,0 --goal 2,0 "
                     "--variant dijkstra.cpu,astar.cpu,astar.cpu.bidir --db " +
                     db + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_EQ(r.out.find("\"validation\": \"failed\""), std::string::npos) << r.out;
    std::size_t costs = 0;
    for (std::size_t at = r.out.find("\"cost\": 4000"); at != std::string::npos;
         at = r.out.find("\"cost\": 4000", at + 1))
        ++costs;
    EXPECT_EQ(costs, 3u) << r.out;
    auto history = db::History::open(db);
    ASSERT_TRUE(history) << history.error().message;
    auto maps = history->list_maps();
    ASSERT_TRUE(maps && maps->size() == 1u);
    auto stored = history->load_map(maps->front().id);
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->cells(), map.cells());
    // Without --costs the same image is obstacles: every level below 128 is a wall, so the cells
    // of cost 1 and 9 block and nothing is left to search.
    auto obstacles = run_cli("run --map " + png + " --start 0,0 --goal 2,0 --variant astar.cpu");
    EXPECT_EQ(obstacles.exit_code, 2) << obstacles.out;
    EXPECT_NE(obstacles.err.find("blocked"), std::string::npos) << obstacles.err;
}

TEST(CliWeighted, GeneratedTerrainRoundTripsThroughTheTextFormat) {
    const std::string path = test::temp_path("terrain.map");
    auto gen = run_cli("gen --gen rooms --size 96 --room 12 --terrain-costs 30 --seed 4 --out " + path);
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
    auto map = read_movingai_map(path);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_TRUE(map->weighted());
    EXPECT_NE(test::file_bytes(path).find("\ncosts\n"), std::string::npos);
    auto run = run_cli("run --map " + path + " --variant dijkstra.cpu,astar.cpu,astar.cpu.bidir,wastar.cpu --json");
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_EQ(run.out.find("\"validation\": \"failed\""), std::string::npos) << run.out;
    auto bfs = run_cli("run --map " + path + " --variant bfs.cpu.queue");
    EXPECT_EQ(bfs.exit_code, 2);
    EXPECT_NE((bfs.out + bfs.err).find("BFS counts steps, so it ignores cell costs"), std::string::npos)
        << bfs.out << bfs.err;
}

TEST(CliWeighted, SwampCostsAndRefusals) {
    const std::string path = test::temp_path("swamp.map");
    std::ofstream(path) << "type octile\nheight 2\nwidth 3\nmap\n.S.\n...\n";
    // Plain by default (S passable): straight through, 2 steps.
    auto plain =
        run_cli("run --map " + path + " --start 0,0 --goal 2,0 --connectivity 4 --variant dijkstra.cpu --json");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_NE(plain.out.find("\"cost\": 2"), std::string::npos) << plain.out;
    // Swamp at 9: around it, 4 steps.
    auto swamp = run_cli("run --map " + path +
                         " --swamp-cost 9 --start 0,0 --goal 2,0 --connectivity 4 --variant dijkstra.cpu --json");
    ASSERT_EQ(swamp.exit_code, 0) << swamp.err;
    EXPECT_NE(swamp.out.find("\"cost\": 4"), std::string::npos) << swamp.out;
    const std::pair<std::string, const char*> refusals[] = {
        {"run --map " + path + " --costs --variant astar.cpu", "--costs reads grey levels"},
        {"run --map " + path + " --terrain-costs 5 --variant astar.cpu", "--terrain-costs is an option of --gen"},
        {"run --gen empty --size 8 --costs --variant astar.cpu", "--costs is an option of --map"},
        {"run --gen empty --size 8 --terrain-costs 300 --variant astar.cpu", "terrain-costs"},
        {"run --map " + path + " --swamp-cost 256 --variant astar.cpu", "swamp-cost"},
    };
    for (const auto& [args, reason] : refusals) {
        auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_NE((r.out + r.err).find(reason), std::string::npos) << args << ": " << r.err;
    }
}

}  // namespace
}  // namespace ps
