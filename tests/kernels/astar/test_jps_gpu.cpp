// GPU Jump Point Search (kernels/astar/jps/jps_gpu.hpp) against independent truth: hand-worked costs,
// the CPU A* on generated maps of every kind and odd sizes (rows of exactly 64 cells too, so a
// run ends at a word's end), both metrics, unreachable goals and start == goal, every path legal
// and as long as its cost; the open list and the on-chip table overflowing (the query runs
// again, larger, or with the global table), both kept in global memory, the map read from there; the shared MovingAI
// scenarios at their optimal lengths; each of these with the runs scanned and read from the jump
// distances. Skips where no GPU is; the refusals need none.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/astar/jps/jps_gpu.hpp"
#include "kernels/astar/jps/jps_gpu_variant.hpp"
#include "kernels/astar/jps/jps_jumps.hpp"
#include "kernels/run/variant.hpp"
#include "kernels/search/cpu_search.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::generated;

const MoveRules kMovingAi{Connectivity::Eight, CornerRule::None};

// The course's maps, and a random one whose rows are exactly 64 cells (a run ends at a word's end),
// a wider one of rectangles and city streets (long straight runs, diagonal avenues).
std::vector<std::shared_ptr<const GridMap>> jps_maps() {
    auto maps = test::course_maps();
    maps.push_back(generated(GeneratorKind::Random, 64, 96, 12, 0.15));
    maps.push_back(generated(GeneratorKind::Rectangles, 150, 97, 6, 0.25));
    maps.push_back(generated(GeneratorKind::Streets, 143, 119, 13));
    return maps;
}

// One query on the GPU against the CPU A*: the same cost (exact in the integer metric) and a
// legal path as long as it. Returns the GPU's output.
gpu::JpsGpuOutput expect_equals_cpu(const GridMap& map, CostMode mode, Vertex s, Vertex g, gpu::JpsGpuOptions options) {
    options.want_path = true;
    const gpu::JpsGpuOutput out = gpu::run_jps_gpu(map, mode, s, g, options);
    test::expect_query_equals_cpu(map, kMovingAi, mode, s, g, out.error, out.cost, out.path, "jps.gpu.block");
    return out;
}

// The map's jump distances (kernels/astar/jps/jps_jumps.hpp) for options.jumps.
std::shared_ptr<const gpu::JpsJumps> jumps_of(const GridMap& map) { return gpu::jps_jumps(gpu::jps_bits(map)); }

// Every case twice: the runs scanned in the bitmaps, and read from the jump distances.
class JpsGpuBothRuns : public ::testing::TestWithParam<bool> {
protected:
    // `o` reading `map`'s jump distances where the case's parameter says so.
    gpu::JpsGpuOptions with_runs(const GridMap& map, gpu::JpsGpuOptions o = {}) {
        if (GetParam()) {
            m_jumps.push_back(jumps_of(map));
            o.jumps = m_jumps.back().get();
        }
        return o;
    }
    // A query that launched (start != goal: that one is answered on the host) read its runs as
    // the case asked.
    void expect_runs_as_asked(const gpu::JpsGpuOutput& out, bool launched = true) const {
        if (launched) {
            EXPECT_EQ(out.jump_table, GetParam());
        }
    }

private:
    std::vector<std::shared_ptr<const gpu::JpsJumps>> m_jumps;
};
INSTANTIATE_TEST_SUITE_P(ScannedAndTabled, JpsGpuBothRuns, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "JumpTable" : "Scanned"; });

TEST_P(JpsGpuBothRuns, HandWorkedCosts) {
    PS_REQUIRE_GPU();
    const auto map = test::wall_end_map();
    auto run = [&](Cell a, Cell b) {
        gpu::JpsGpuOptions o = with_runs(*map);
        o.want_path = true;
        const auto out = gpu::run_jps_gpu(*map, CostMode::Integer, map->index(a), map->index(b), o);
        expect_runs_as_asked(out, a != b);
        return out;
    };
    EXPECT_EQ(run({0, 0}, {0, 2}).cost, 2000.0);
    const auto around = run({1, 0}, {4, 2});
    EXPECT_EQ(around.cost, 7000.0);
    EXPECT_EQ(around.path.size(), 8u);
    EXPECT_EQ(run({0, 0}, {8, 0}).cost, -1.0);
    const auto same = run({7, 3}, {7, 3});
    EXPECT_EQ(same.cost, 0.0);
    EXPECT_EQ(same.path, std::vector<Vertex>{map->index(7, 3)});
    // An open room: one diagonal run then one straight run.
    const auto open = generated(GeneratorKind::Empty, 30, 20, 1);
    gpu::JpsGpuOptions o = with_runs(*open);
    o.want_path = true;
    const auto diag = gpu::run_jps_gpu(*open, CostMode::Integer, open->index(0, 0), open->index(29, 5), o);
    EXPECT_EQ(diag.cost, 5 * 1414.0 + 24 * 1000.0);
    EXPECT_EQ(diag.path.size(), 30u);
    EXPECT_LE(diag.expanded, 3u);
    const auto real = gpu::run_jps_gpu(*open, CostMode::Real, open->index(0, 0), open->index(29, 5), o);
    // The real metric's steps are 33461 and 47321 (2.3e-10 relative below sqrt(2)): within the
    // validation's 1e-9 relative, and the path is still the one diagonal and one straight run.
    EXPECT_NEAR(real.cost, 5 * std::sqrt(2.0) + 24, 1e-9 * (5 * std::sqrt(2.0) + 24));
    EXPECT_DOUBLE_EQ(real.cost, (24.0 * 33461 + 5.0 * 47321) / 33461);
    EXPECT_EQ(real.path.size(), 30u);
}

TEST_P(JpsGpuBothRuns, EqualsTheCpuOnGeneratedMaps) {
    PS_REQUIRE_GPU();
    std::size_t unreachable = 0, same = 0;
    for (const auto& map : jps_maps()) {
        test::Lcg rng(23);
        const gpu::JpsGpuOptions runs = with_runs(*map);
        for (const CostMode mode : {CostMode::Integer, CostMode::Real})
            for (int i = 0; i < 16; ++i) {
                const Vertex s = test::random_passable(*map, rng);
                const Vertex g = i % 8 == 0 ? s : test::random_passable(*map, rng);
                gpu::JpsGpuOptions o = runs;
                o.block_threads = i % 3 == 0 ? 128 : 512;
                // Fixed windows of 0-2 steps and the adapting one (ceilings of 16 and 64 steps).
                o.window = i % 4 == 3 ? -1 : i % 4;
                o.window_max = i % 8 == 3 ? 64 : 16;
                const auto out = expect_equals_cpu(*map, mode, s, g, o);
                expect_runs_as_asked(out, s != g);
                unreachable += out.cost < 0;
                same += s == g;
            }
    }
    EXPECT_GT(unreachable, 0u);  // the maze of corridor 3 and the random maps have closed pockets
    EXPECT_GT(same, 0u);
}

TEST_P(JpsGpuBothRuns, OpenListOrTableThatOverflowsRunsAgainLarger) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Random, 200, 160, 3, 0.25);
    test::Lcg rng(5);
    std::size_t again = 0, full = 0;
    const gpu::JpsGpuOptions runs = with_runs(*map);
    for (int i = 0; i < 6; ++i) {
        const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
        gpu::JpsGpuOptions small = runs;
        small.open_cap = 64;  // a few jump points fill it
        const auto out = expect_equals_cpu(*map, CostMode::Integer, s, g, small);
        if (out.launches > 1) {
            ++again;
            EXPECT_FALSE(out.open_on_chip);  // the second launch keeps it in global memory
        }
        gpu::JpsGpuOptions global = runs;
        global.open_on_chip = false;
        global.map_on_chip = false;
        global.table_on_chip = false;
        const auto far = expect_equals_cpu(*map, CostMode::Real, s, g, global);
        EXPECT_FALSE(far.map_on_chip);
        expect_runs_as_asked(far, s != g);
        EXPECT_FALSE(far.open_on_chip);
        EXPECT_FALSE(far.table_on_chip);
        gpu::JpsGpuOptions tiny = runs;
        tiny.table_slots = 64;  // 48 jump points fill it
        const auto filled = expect_equals_cpu(*map, CostMode::Integer, s, g, tiny);
        if (filled.launches > 1) {
            ++full;
            EXPECT_FALSE(filled.table_on_chip);  // the second launch keeps the values in global memory
        }
    }
    EXPECT_GT(again, 0u);
    EXPECT_GT(full, 0u);
}

// Maps whose bitmaps fill, to the word, the shared memory a block may take beside a small open
// list and table (2,304 bytes): the kernel's own static shared memory comes out of the same
// limit, so where the two together pass it the map stays in global memory and the query still
// runs. Open maps 32 cells wide (a word a row), heights stepping the words up to the limit and
// past it; the cost by hand: a diagonal run to the far column, then straight down.
// Maps of more free cells than the pinned staging keeps path room for (2^18) have the kernel
// write the path to device memory and the download copy it back; smaller ones, every other test
// here, have it written straight into mapped host memory.
TEST_P(JpsGpuBothRuns, PathBeyondThePinnedRoomIsReadFromTheDevice) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Rooms, 701, 523, 9);
    ASSERT_GT(map->passable_count(), std::size_t(1) << 18);
    test::Lcg rng(5);
    for (int i = 0; i < 3; ++i) {
        const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
        expect_runs_as_asked(expect_equals_cpu(*map, CostMode::Integer, s, g, with_runs(*map)), s != g);
    }
}

TEST(JpsGpu, MapAtTheSharedMemoryLimitStillRuns) {
    PS_REQUIRE_GPU();
    const std::size_t limit = gpu_info().shared_per_block_optin;
    ASSERT_GT(limit, 0u);
    gpu::JpsGpuOptions o;
    o.open_cap = 64;
    o.table_slots = 64;
    const std::size_t before_map = 64 * 24 + 64 * 12;
    const auto words = [](int h) { return std::size_t(h) + 32 * std::size_t((h + 31) / 32); };  // rows + columns
    int top = 32;  // the tallest map whose bitmaps fit the limit, static shared memory left out
    while (before_map + words(top + 1) * 4 <= limit) ++top;
    std::size_t on_chip = 0, global = 0;
    for (int h = top - 120; h <= top + 3; h += 3) {
        const GridMap open(32, h);
        const auto out = gpu::run_jps_gpu(open, CostMode::Integer, open.index(0, 0), open.index(31, h - 1), o);
        ASSERT_TRUE(out.error.empty()) << h << " rows: " << out.error;
        EXPECT_EQ(out.cost, 31 * 1414.0 + double(h - 32) * 1000.0) << h << " rows";
        (out.map_on_chip ? on_chip : global) += 1;
    }
    EXPECT_GT(on_chip, 0u);
    EXPECT_GT(global, 0u);
}

TEST_P(JpsGpuBothRuns, MovingAiScenariosAtTheirOptimalLengths) {
    PS_REQUIRE_GPU();
    PS_REQUIRE_MOVINGAI();
    for (const char* name : test::kMovingAiMaps) {
        auto loaded = test::load_movingai(name);
        ASSERT_TRUE(loaded) << loaded.error().message;
        const GridMap& map = loaded->map;
        const auto bits = gpu::jps_bits(map);
        gpu::JpsGpuOptions o = with_runs(map);
        o.bits = &bits;
        const std::vector<Scenario>& scen = loaded->scen.scenarios;
        for (std::size_t i = 0; i < scen.size(); i += 7) {
            const auto out =
                gpu::run_jps_gpu(map, CostMode::Real, map.index(scen[i].start), map.index(scen[i].goal), o);
            ASSERT_TRUE(out.error.empty()) << out.error;
            expect_runs_as_asked(out, !(scen[i].start == scen[i].goal));
            EXPECT_NEAR(out.cost, scen[i].optimal_length, 1e-4 * std::max(1.0, scen[i].optimal_length))
                << name << " scenario " << i;
        }
    }
}

TEST(JpsGpu, RefusesOtherMoveRulesWithAReason) {
    const Variant& jps = *Registry::instance().find("jps.gpu.block");
    Problem p;
    p.map = test::shared_map({"....", "....", "...."});
    p.start = 0;
    p.goal = 11;
    for (const MoveRules rules :
         {MoveRules{Connectivity::Four, CornerRule::None}, MoveRules{Connectivity::Eight, CornerRule::One},
          MoveRules{Connectivity::Eight, CornerRule::Any}}) {
        p.rules = rules;
        const RunResult r = jps.run(p, {});
        EXPECT_EQ(r.status, RunStatus::Error);
        EXPECT_NE(r.message.find("without corner cutting"), std::string::npos) << r.message;
    }
}

TEST(JpsGpu, JumpPointShareByHand) {
    // An empty 4x3 room: along rows, the cells of the first and last columns have a forced
    // neighbour (the cell before them beside the run is off the map): 6 of 12; along columns the
    // first and last rows: 8 of 12. (6 + 8) / 24.
    EXPECT_NEAR(gpu::jump_point_share(gpu::jps_bits(*test::shared_map({"....", "....", "...."}))), 14.0 / 24.0, 1e-12);
    // A pillar in a 5x5 room adds the cells past its corners: along rows (3,1), (3,3), (1,1), (1,3)
    // to the 10 of the first and last columns; along columns (1,3), (3,3), (1,1), (3,1) to the 10
    // of the first and last rows: (14 + 14) / (2 * 24).
    EXPECT_NEAR(gpu::jump_point_share(gpu::jps_bits(*test::shared_map({".....", ".....", "..#..", ".....", "....."}))),
                28.0 / 48.0, 1e-12);
}

TEST(JpsGpu, ScatteredObstacleShareByHand) {
    // A lone pillar and a wall of three: one of four obstacles stands alone.
    EXPECT_NEAR(gpu::scattered_obstacle_share(gpu::jps_bits(*test::shared_map({".....", "..#..", ".....", "###.."}))),
                0.25, 1e-12);
    // Diagonal neighbours count: two obstacles touching at a corner are not alone; one at the
    // map's edge with nothing beside it is.
    EXPECT_NEAR(gpu::scattered_obstacle_share(gpu::jps_bits(*test::shared_map({"#....", ".#...", "....#"}))), 1.0 / 3.0,
                1e-12);
    EXPECT_EQ(gpu::scattered_obstacle_share(gpu::jps_bits(*test::shared_map({"....", "...."}))), 0.0);
    // Sparse random obstacles pass the jump point share's test and fail this one (the map
    // BlockAStarJumpsWhereTheMapSuits routes away from jump points); rooms pass both.
    const auto sparse = gpu::jps_bits(*generated(GeneratorKind::Random, 130, 90, 4, 0.05));
    EXPECT_LT(gpu::jump_point_share(sparse), 0.2);
    EXPECT_GT(gpu::scattered_obstacle_share(sparse), 0.5);
    const auto rooms = gpu::jps_bits(*generated(GeneratorKind::Rooms, 130, 90, 4));
    EXPECT_LT(gpu::scattered_obstacle_share(rooms), 0.05);
}

TEST(JpsGpu, BlockAStarJumpsWhereTheMapSuits) {
    PS_REQUIRE_GPU();
    const Variant& block = *Registry::instance().find("astar.gpu.block");
    // An open room map jumps, random obstacles (dense or sparse) do not; the cost is the CPU's
    // either way.
    for (const auto& [map, jumps] : std::vector<std::pair<std::shared_ptr<const GridMap>, bool>>{
             {generated(GeneratorKind::Rectangles, 150, 97, 6, 0.1), true},
             {generated(GeneratorKind::Random, 120, 90, 4, 0.3), false},
             // Sparse random obstacles: few jump points a row, but lone obstacles crowd them.
             {generated(GeneratorKind::Random, 130, 90, 4, 0.05), false}}) {
        Problem p;
        p.map = map;
        p.cost_mode = CostMode::Integer;
        test::Lcg rng(3);
        p.start = test::random_passable(*map, rng);
        p.goal = test::random_passable(*map, rng);
        const RunResult r = block.run(p, {});
        ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
        SCOPED_TRACE(map->name);
        EXPECT_EQ(r.counters.at("jump"), jumps ? 1.0 : 0.0) << "share " << r.counters.at("jump_point_share");
        if (jumps) {
            EXPECT_EQ(r.counters.at("jump_table"), 1.0);  // the runs read from the jump distances
        }
        const SearchOutput cpu = astar_grid(*map, {kMovingAi, CostMode::Integer, Heuristic::Octile}, p.start, p.goal);
        ASSERT_EQ(r.found, cpu.found);
        if (cpu.found) {
            EXPECT_EQ(r.cost, cpu.cost);
        }
        // Other rules never jump; jump=1 under them is refused with the reason.
        p.rules = {Connectivity::Eight, CornerRule::One};
        const RunResult one = block.run(p, {});
        ASSERT_EQ(one.status, RunStatus::Ok) << one.message;
        EXPECT_EQ(one.counters.at("jump"), 0.0);
        p.params["jump"] = "1";
        EXPECT_EQ(block.run(p, {}).status, RunStatus::Error);
    }
}

}  // namespace
}  // namespace ps
