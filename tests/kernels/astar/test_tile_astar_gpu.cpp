// Tile A* on the GPU (kernels/astar/tile/tile_astar_gpu.hpp) against independent truth:
// hand-worked costs under every movement rule, the CPU A* on generated maps of every kind at odd
// sizes (tiles cut by the map's edge) under the four rule sets and both metrics, unreachable
// goals and start == goal, every path legal and as long as its cost; the tiles' keys and open
// list in global memory (by choice, and on a map whose tiles do not fit the chip); warps delayed
// on purpose where a slow one exposes a race; the shared MovingAI scenarios at their optimal
// lengths. Skips where no GPU is; the refusal needs none.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "kernels/astar/tile/tile_astar_gpu.hpp"
#include "kernels/run/variant.hpp"
#include "kernels/search/cpu_search.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::generated;

const MoveRules kMovingAi{Connectivity::Eight, CornerRule::None};
const MoveRules kAllRules[] = {{Connectivity::Four, CornerRule::None},
                               {Connectivity::Eight, CornerRule::None},
                               {Connectivity::Eight, CornerRule::One},
                               {Connectivity::Eight, CornerRule::Any}};

// One query on the GPU against the CPU A*: the same cost (exact in the integer metric) and a
// legal path as long as it. Returns the GPU's output.
gpu::TileAStarOutput expect_equals_cpu(const GridMap& map, MoveRules rules, CostMode mode, Vertex s, Vertex g,
                                       gpu::TileAStarOptions options) {
    options.want_path = true;
    const gpu::TileAStarOutput out = gpu::run_tile_astar_gpu(map, rules, mode, s, g, options);
    test::expect_query_equals_cpu(
        map, rules, mode, s, g, out.error, out.cost, out.path,
        "band " + std::to_string(options.band) + " block " + std::to_string(options.block_threads));
    return out;
}

double cost_of(const GridMap& map, MoveRules rules, Cell a, Cell b, CostMode mode = CostMode::Integer) {
    gpu::TileAStarOptions o;
    o.want_path = true;
    const auto out = gpu::run_tile_astar_gpu(map, rules, mode, map.index(a), map.index(b), o);
    EXPECT_TRUE(out.error.empty()) << out.error;
    return out.cost;
}

TEST(TileAStarGpu, HandWorkedCosts) {
    PS_REQUIRE_GPU();
    const auto wall = test::wall_end_map();
    EXPECT_EQ(cost_of(*wall, kMovingAi, {0, 0}, {0, 2}), 2000.0);
    EXPECT_EQ(cost_of(*wall, kMovingAi, {1, 0}, {4, 2}), 7000.0);  // round the wall's end: 7 straight steps
    EXPECT_EQ(cost_of(*wall, kMovingAi, {0, 0}, {8, 0}), -1.0);    // the wall splits the map
    gpu::TileAStarOptions o;
    o.want_path = true;
    const auto same =
        gpu::run_tile_astar_gpu(*wall, kMovingAi, CostMode::Integer, wall->index(7, 3), wall->index(7, 3), o);
    EXPECT_EQ(same.cost, 0.0);
    EXPECT_EQ(same.path, std::vector<Vertex>{wall->index(7, 3)});
    // Diagonals past blocked corners: both blocked (only "any" passes), one blocked ("one" and
    // "any" pass); 4-connected never moves diagonally.
    const auto both = test::shared_map({".#", "#."});
    EXPECT_EQ(cost_of(*both, {Connectivity::Eight, CornerRule::None}, {0, 0}, {1, 1}), -1.0);
    EXPECT_EQ(cost_of(*both, {Connectivity::Eight, CornerRule::One}, {0, 0}, {1, 1}), -1.0);
    EXPECT_EQ(cost_of(*both, {Connectivity::Eight, CornerRule::Any}, {0, 0}, {1, 1}), 1414.0);
    const auto one = test::shared_map({"..", "#."});
    EXPECT_EQ(cost_of(*one, {Connectivity::Eight, CornerRule::None}, {0, 0}, {1, 1}), 2000.0);
    EXPECT_EQ(cost_of(*one, {Connectivity::Eight, CornerRule::One}, {0, 0}, {1, 1}), 1414.0);
    EXPECT_EQ(cost_of(*one, {Connectivity::Four, CornerRule::None}, {0, 0}, {1, 1}), 2000.0);
    // An open room across several tiles: five diagonal steps and 24 straight ones (8-connected),
    // 34 straight ones (4-connected); the real metric in its convergent's steps.
    const auto open = generated(GeneratorKind::Empty, 30, 20, 1);
    EXPECT_EQ(cost_of(*open, kMovingAi, {0, 0}, {29, 5}), 5 * 1414.0 + 24 * 1000.0);
    EXPECT_EQ(cost_of(*open, {Connectivity::Four, CornerRule::None}, {0, 0}, {29, 5}), 34 * 1000.0);
    const double real = cost_of(*open, kMovingAi, {0, 0}, {29, 5}, CostMode::Real);
    EXPECT_DOUBLE_EQ(real, (24.0 * 33461 + 5.0 * 47321) / 33461);
    EXPECT_NEAR(real, 5 * std::sqrt(2.0) + 24, 1e-9 * real);
    const auto path =
        gpu::run_tile_astar_gpu(*open, kMovingAi, CostMode::Integer, open->index(0, 0), open->index(29, 5), o);
    EXPECT_EQ(path.path.size(), 30u);
    EXPECT_NO_FATAL_FAILURE(test::expect_legal_path(*open, kMovingAi, CostMode::Integer, open->index(0, 0),
                                                    open->index(29, 5), path.path, path.cost));
}

TEST(TileAStarGpu, EqualsTheCpuOnGeneratedMapsUnderEveryRule) {
    PS_REQUIRE_GPU();
    auto maps = test::course_maps();
    maps.push_back(generated(GeneratorKind::Streets, 143, 119, 13));
    maps.push_back(generated(GeneratorKind::Rooms, 129, 97, 5));
    std::size_t unreachable = 0, same = 0, several = 0;
    for (const auto& map : maps) {
        test::Lcg rng(31);
        for (const MoveRules rules : kAllRules)
            for (const CostMode mode : {CostMode::Integer, CostMode::Real})
                for (int i = 0; i < 4; ++i) {
                    const Vertex s = test::random_passable(*map, rng);
                    const Vertex g = i == 3 && mode == CostMode::Real ? s : test::random_passable(*map, rng);
                    gpu::TileAStarOptions o;
                    o.block_threads = i % 2 ? 128 : 1024;
                    o.band = i == 0 ? -1 : i == 1 ? 0 : i == 2 ? 64 : 2;  // adapting, lowest key only, wide, narrow
                    o.tiles_per_warp = i == 1 ? 4 : 1;
                    o.meta_on_chip = i != 2;
                    o.test_wide_windows = i == 0;  // the 64-bit relaxation, which these maps never need
                    const auto out = expect_equals_cpu(*map, rules, mode, s, g, o);
                    unreachable += out.cost < 0;
                    same += s == g;
                    several += out.tiles > out.iterations;  // iterations that took more than one tile
                }
    }
    EXPECT_GT(unreachable, 0u);  // the random maps and the 1-wide maze under 4-connectivity have pockets
    EXPECT_GT(same, 0u);
    EXPECT_GT(several, 0u);
}

// Maps of more free cells than the pinned staging keeps path room for (2^18) have the kernel
// write the path to device memory and the download copy it back; smaller ones, every other test
// here, have it written straight into mapped host memory.
TEST(TileAStarGpu, PathBeyondThePinnedRoomIsReadFromTheDevice) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Random, 701, 523, 9, 0.2);
    ASSERT_GT(map->passable_count(), std::size_t(1) << 18);
    test::Lcg rng(5);
    for (int i = 0; i < 3; ++i)
        expect_equals_cpu(*map, kMovingAi, CostMode::Integer, test::random_passable(*map, rng),
                          test::random_passable(*map, rng), {});
}

// Warps that stop for microseconds after taking a tile or between writing it back and pushing
// its ring: their neighbours then read, lower and open the same cells and tiles at other times.
TEST(TileAStarGpu, WarpsDelayedOnPurposeStillGiveTheCpuCost) {
    PS_REQUIRE_GPU();
    const auto maps = {generated(GeneratorKind::Random, 120, 90, 4, 0.3), generated(GeneratorKind::Noise, 100, 101, 6),
                       generated(GeneratorKind::Maze, 95, 77, 2, 0.0, 2)};
    std::uint64_t delayed_iterations = 0;
    for (const auto& map : maps) {
        test::Lcg rng(7);
        for (std::uint32_t seed = 1; seed <= 4; ++seed) {
            const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
            gpu::TileAStarOptions o;
            o.band = 16;  // many tiles an iteration, side by side
            o.test_delay = {3000, 3, seed};
            o.test_wide_windows = seed == 4;
            const auto out =
                expect_equals_cpu(*map, seed % 2 ? kMovingAi : MoveRules{Connectivity::Eight, CornerRule::Any},
                                  seed % 2 ? CostMode::Integer : CostMode::Real, s, g, o);
            delayed_iterations += out.iterations;
        }
    }
    EXPECT_GT(delayed_iterations, 0u);
}

// A map whose tiles' keys and open list pass the shared memory a block may take keeps them in
// global memory and gives the same costs.
TEST(TileAStarGpu, TilesBeyondTheChipKeepTheirKeysInGlobalMemory) {
    PS_REQUIRE_GPU();
    const std::size_t limit = gpu_info().shared_per_block_optin;
    ASSERT_GT(limit, 0u);
    const int side = int(std::ceil(std::sqrt(double(limit) / 12.0))) * 8 + 16;  // 12 bytes a tile
    const auto map = generated(GeneratorKind::Random, side, side - 3, 8, 0.2);
    test::Lcg rng(3);
    for (int i = 0; i < 2; ++i) {
        const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
        const auto out = expect_equals_cpu(*map, kMovingAi, CostMode::Integer, s, g, {});
        EXPECT_FALSE(out.meta_on_chip);
    }
    const auto small = generated(GeneratorKind::Random, 200, 150, 8, 0.2);
    const Vertex s = small->index(0, 0), g = small->index(199, 149);
    if (small->passable(s) && small->passable(g)) {
        EXPECT_TRUE(expect_equals_cpu(*small, kMovingAi, CostMode::Integer, s, g, {}).meta_on_chip);
    }
}

TEST(TileAStarGpu, MovingAiScenariosAtTheirOptimalLengths) {
    PS_REQUIRE_GPU();
    PS_REQUIRE_MOVINGAI();
    for (const char* name : test::kMovingAiMaps) {
        auto loaded = test::load_movingai(name);
        ASSERT_TRUE(loaded) << loaded.error().message;
        const GridMap& map = loaded->map;
        const auto bits = gpu::grid_bits(map);
        gpu::TileAStarOptions o;
        o.bits = &bits;
        const std::vector<Scenario>& scen = loaded->scen.scenarios;
        for (std::size_t i = 0; i < scen.size(); i += 7) {
            const auto out = gpu::run_tile_astar_gpu(map, kMovingAi, CostMode::Real, map.index(scen[i].start),
                                                     map.index(scen[i].goal), o);
            ASSERT_TRUE(out.error.empty()) << out.error;
            EXPECT_NEAR(out.cost, scen[i].optimal_length, 1e-4 * std::max(1.0, scen[i].optimal_length))
                << name << " scenario " << i;
        }
    }
}

// astar.gpu.block's tile=auto: a map of random obstacles (dense jump points, no maze) runs as tile
// A*, an open rooms map as Jump Point Search, a perfect maze through its gate forest, and any
// block A* parameter named (jump=0 here) keeps block A*; tile=1 forces it. The CPU's cost each time.
TEST(TileAStarGpu, BlockAStarTakesTilesWhereItWouldSearchTheWholeMapItself) {
    PS_REQUIRE_GPU();
    const Variant& block = *Registry::instance().find("astar.gpu.block");
    struct Case {
        std::shared_ptr<const GridMap> map;
        std::map<std::string, std::string> params;
        MoveRules rules;
        double tile, jump;
    };
    const auto random = generated(GeneratorKind::Random, 120, 90, 4, 0.3);
    const auto rooms = generated(GeneratorKind::Rectangles, 150, 97, 6, 0.1);
    const auto maze = generated(GeneratorKind::Maze, 129, 97, 3, 0.0, 1);
    const MoveRules one{Connectivity::Eight, CornerRule::One};
    for (const Case& c : std::vector<Case>{{random, {}, kMovingAi, 1, 0},
                                           {random, {}, one, 1, 0},
                                           {random, {{"jump", "0"}}, kMovingAi, 0, 0},
                                           {random, {{"tile", "0"}}, kMovingAi, 0, 0},
                                           {rooms, {}, kMovingAi, 0, 1},
                                           {rooms, {}, one, 1, 0},  // no jump points under this rule
                                           {rooms, {{"tile", "1"}, {"jump", "0"}}, kMovingAi, 1, 0},
                                           {maze, {}, kMovingAi, 0, 0}}) {
        Problem p;
        p.map = c.map;
        p.rules = c.rules;
        p.params = c.params;
        p.cost_mode = CostMode::Integer;
        test::Lcg rng(9);
        p.start = test::random_passable(*c.map, rng);
        p.goal = test::random_passable(*c.map, rng);
        const RunResult r = block.run(p, {});
        ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
        SCOPED_TRACE(c.map->name + " corners=" + std::string(to_string(c.rules.corners)) +
                     (c.params.empty() ? "" : " " + c.params.begin()->first + "=" + c.params.begin()->second));
        EXPECT_EQ(r.counters.at("tile"), c.tile);
        EXPECT_EQ(r.counters.at("jump"), c.jump);
        const SearchOutput cpu = astar_grid(*c.map, {c.rules, CostMode::Integer, Heuristic::Octile}, p.start, p.goal);
        ASSERT_EQ(r.found, cpu.found);
        if (cpu.found) {
            EXPECT_EQ(r.cost, cpu.cost);
            EXPECT_NO_FATAL_FAILURE(
                test::expect_legal_path(*c.map, c.rules, CostMode::Integer, p.start, p.goal, r.path, r.cost));
        }
    }
}

TEST(TileAStarGpu, RefusesOtherHeuristicsWithAReason) {
    const Variant& tile = *Registry::instance().find("astar.gpu.tile");
    Problem p;
    p.map = test::shared_map({"....", "....", "...."});
    p.start = 0;
    p.goal = 11;
    p.heuristic = Heuristic::Euclidean;
    const RunResult r = tile.run(p, {});
    EXPECT_EQ(r.status, RunStatus::Error);
    EXPECT_NE(r.message.find("octile"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace ps
