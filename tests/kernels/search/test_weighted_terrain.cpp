// Weighted terrain (cells costing 1..255): the step rule on hand-worked maps for Dijkstra, A*,
// bidirectional A* and the GPU A* baselines; A* with its heuristic scaled by the least cell cost
// against Dijkstra on generated weighted maps (every corner rule, both metrics); the runner's
// refusal of the variants that ignore costs; validation of a weighted path's cost.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/astar/astar_gpu_baselines.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/run/runner.hpp"
#include "kernels/run/validation.hpp"
#include "kernels/search/cpu_search.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::map_from_rows;

SearchOutput search(const char* which, const GridMap& map, MoveRules rules, CostMode mode, Cell s, Cell g) {
    const std::string kind = which;
    const GridSearchSpec spec{rules, mode, kind == "dijkstra" ? Heuristic::Zero : Heuristic::Octile};
    if (kind == "bidir") return astar_bidir_grid(map, spec, map.index(s), map.index(g));
    return astar_grid(map, spec, map.index(s), map.index(g));
}

constexpr const char* kSearches[] = {"dijkstra", "astar", "bidir"};
constexpr MoveRules kFour{Connectivity::Four, CornerRule::None};
constexpr MoveRules kEight{Connectivity::Eight, CornerRule::None};

TEST(WeightedTerrain, StepCostIsTheMeanOfTheTwoCellsTimesTheLength) {
    EXPECT_EQ(weighted_step_cost(CostMode::Integer, 1, 1, false), 1000.0);
    EXPECT_EQ(weighted_step_cost(CostMode::Integer, 1, 1, true), 1414.0);
    EXPECT_EQ(weighted_step_cost(CostMode::Integer, 1, 5, false), 3000.0);
    EXPECT_EQ(weighted_step_cost(CostMode::Integer, 255, 255, true), 360570.0);
    EXPECT_EQ(weighted_step_cost(CostMode::Real, 1, 1, true), kSqrt2);
    EXPECT_EQ(weighted_step_cost(CostMode::Real, 2, 5, false), 3.5);
    EXPECT_DOUBLE_EQ(weighted_step_cost(CostMode::Real, 3, 4, true), 3.5 * kSqrt2);
}

TEST(WeightedTerrain, CorridorCostsAddUpByHand) {
    // 1 3 3 1: (1+3)/2 + (3+3)/2 + (3+1)/2 = 7 steps' worth.
    const GridMap map = map_from_rows({"1331"});
    EXPECT_TRUE(map.weighted());
    EXPECT_EQ(map.min_cost(), 1);
    for (const char* which : kSearches) {
        const SearchOutput real = search(which, map, kFour, CostMode::Real, {0, 0}, {3, 0});
        ASSERT_TRUE(real.found) << which;
        EXPECT_DOUBLE_EQ(real.cost, 7.0) << which;
        const SearchOutput exact = search(which, map, kEight, CostMode::Integer, {0, 0}, {3, 0});
        EXPECT_EQ(exact.cost, 7000.0) << which;
        EXPECT_EQ(exact.path.size(), 4u) << which;
    }
}

TEST(WeightedTerrain, PathsDetourAroundCostlyCells) {
    // Straight through the 9: 2 x (1+9)/2 = 10. Around it, 4-connected: 4 plain steps = 4.
    // 8-connected without corner cutting: two diagonals beside the 9 (its cell is passable, so
    // the corner rule allows them) = 2 sqrt2.
    const GridMap map = map_from_rows({"191", "..."});
    for (const char* which : kSearches) {
        const SearchOutput four = search(which, map, kFour, CostMode::Integer, {0, 0}, {2, 0});
        EXPECT_EQ(four.cost, 4000.0) << which;
        EXPECT_EQ(four.path, (std::vector<Vertex>{0, 3, 4, 5, 2})) << which;
        const SearchOutput eight = search(which, map, kEight, CostMode::Real, {0, 0}, {2, 0});
        EXPECT_DOUBLE_EQ(eight.cost, 2 * kSqrt2) << which;
        EXPECT_EQ(eight.path, (std::vector<Vertex>{0, 4, 2})) << which;
    }
    // A dearer detour loses to the costly cell: around a 3 in a 3-wide strip of 5s.
    //   5 3 5      straight: (1+3)/2 + (3+1)/2 = 4
    //   1 3 1      around, 4-connected: over the top 3 + 4 + 4 + 3 = 14, along the bottom 16
    //   5 5 5
    const GridMap strip = map_from_rows({"535", "131", "555"});
    for (const char* which : kSearches)
        EXPECT_EQ(search(which, strip, kFour, CostMode::Integer, {0, 1}, {2, 1}).cost, 4000.0) << which;
}

TEST(WeightedTerrain, HeuristicScaledByTheLeastCostStaysExactAndPrunes) {
    // Every cell costs 3: the octile distance times 3 is exact, so A* walks the diagonal alone.
    GridMap map(9, 9);
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 9; ++x) map.set_cost(x, y, 3);
    EXPECT_EQ(map.min_cost(), 3);
    const SearchOutput dijkstra = search("dijkstra", map, kEight, CostMode::Integer, {0, 0}, {8, 8});
    const SearchOutput astar = search("astar", map, kEight, CostMode::Integer, {0, 0}, {8, 8});
    EXPECT_EQ(dijkstra.cost, 8 * 6 * 707.0);
    EXPECT_EQ(astar.cost, dijkstra.cost);
    EXPECT_EQ(astar.expanded, 9u);  // the nine diagonal cells, nothing else
    EXPECT_GT(dijkstra.expanded, 60u);
}

// Generated maps of several kinds with smooth costly patches (add_terrain_costs).
std::vector<GridMap> weighted_maps() {
    std::vector<GridMap> maps;
    const std::pair<GeneratorKind, double> kinds[] = {{GeneratorKind::Empty, 0.0},
                                                      {GeneratorKind::Random, 0.2},
                                                      {GeneratorKind::Rooms, 0.5},
                                                      {GeneratorKind::Maze, 0.0},
                                                      {GeneratorKind::Noise, 0.3}};
    std::uint64_t seed = 3;
    for (const auto& [kind, density] : kinds) {
        GeneratorParams p;
        p.kind = kind;
        p.width = 67 + int(seed);
        p.height = 53;
        p.seed = seed++;
        p.density = density;
        p.room_size = 8;
        GridMap map = generate_map(p).value();
        add_terrain_costs(map, kind == GeneratorKind::Maze ? 9 : 40, p.seed);
        maps.push_back(std::move(map));
    }
    return maps;
}

TEST(WeightedTerrain, AStarAndBidirectionalEqualDijkstraOnGeneratedMaps) {
    test::Lcg rng(11);
    int compared = 0;
    for (const GridMap& map : weighted_maps()) {
        ASSERT_TRUE(map.weighted());
        for (const MoveRules rules :
             {kFour, MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Eight, CornerRule::One},
              MoveRules{Connectivity::Eight, CornerRule::Any}})
            for (const CostMode mode : {CostMode::Integer, CostMode::Real})
                for (int q = 0; q < 4; ++q) {
                    const Vertex s = test::random_passable(map, rng), g = test::random_passable(map, rng);
                    const SearchOutput ref = astar_grid(map, {rules, mode, Heuristic::Zero}, s, g);
                    for (const Heuristic h : {Heuristic::Octile, Heuristic::Euclidean}) {
                        const GridSearchSpec spec{rules, mode, h};
                        for (const SearchOutput& out :
                             {astar_grid(map, spec, s, g), astar_bidir_grid(map, spec, s, g)}) {
                            ASSERT_EQ(out.found, ref.found);
                            if (!ref.found) continue;
                            if (mode == CostMode::Integer)
                                EXPECT_EQ(out.cost, ref.cost);
                            else
                                EXPECT_NEAR(out.cost, ref.cost, 1e-9 * ref.cost);
                            ASSERT_NO_FATAL_FAILURE(
                                test::expect_legal_path(map, rules, mode, s, g, out.path, out.cost));
                            ++compared;
                        }
                    }
                }
    }
    EXPECT_GT(compared, 300);
}

RunReport run_on(const std::shared_ptr<const GridMap>& map, const std::string& id, Cell s, Cell g,
                 CostMode mode = CostMode::Integer) {
    RunRequest request;
    request.variant_id = id;
    request.problem.map = map;
    request.problem.cost_mode = mode;
    request.problem.start = map->index(s);
    request.problem.goal = map->index(g);
    return run_variant(request);
}

TEST(WeightedTerrain, RunnerRefusesVariantsThatIgnoreCostsAndValidatesTheOthers) {
    const auto map = std::make_shared<const GridMap>(map_from_rows({"191", "...", "5.."}));
    for (const char* id : {"dijkstra.cpu", "astar.cpu", "astar.cpu.bidir"}) {
        const RunReport r = run_on(map, id, {0, 0}, {2, 0});
        EXPECT_EQ(r.result.status, RunStatus::Ok) << id << ": " << r.result.message;
        EXPECT_EQ(r.result.cost, 2828.0) << id;
        EXPECT_NE(r.result.validation, Validation::Failed) << id << ": " << r.result.validation_message;
    }
    for (const char* id : {"bfs.cpu.queue", "bfs.cpu", "jps.cpu", "astar.cpu.buckets"}) {
        const RunReport r = run_on(map, id, {0, 0}, {2, 0});
        EXPECT_EQ(r.result.status, RunStatus::Error) << id;
        EXPECT_NE(r.result.message.find("ignores cell costs"), std::string::npos) << id << ": " << r.result.message;
        EXPECT_NE(r.result.message.find("dijkstra.cpu"), std::string::npos) << r.result.message;
    }
    EXPECT_NE(run_on(map, "bfs.cpu.queue", {0, 0}, {2, 0}).result.message.find("BFS counts steps"), std::string::npos);
    // The same variants take the plain map.
    const auto plain = std::make_shared<const GridMap>(map_from_rows({"...", "...", "..."}));
    EXPECT_EQ(run_on(plain, "jps.cpu", {0, 0}, {2, 0}).result.status, RunStatus::Ok);
}

TEST(WeightedTerrain, ValidationAddsWeightedSteps) {
    Problem problem;
    problem.map = std::make_shared<const GridMap>(map_from_rows({"1331"}));
    problem.rules = kFour;
    problem.cost_mode = CostMode::Integer;
    problem.start = 0;
    problem.goal = 3;
    RunResult right;
    right.found = true;
    right.path = {0, 1, 2, 3};
    right.cost = 7000;
    validate_self(problem, Family::ShortestPath, right);
    EXPECT_EQ(right.validation, Validation::Reference) << right.validation_message;
    RunResult unweighted = right;
    unweighted.cost = 3000;  // the steps counted as plain ones
    validate_self(problem, Family::ShortestPath, unweighted);
    EXPECT_EQ(unweighted.validation, Validation::Failed);
    EXPECT_NE(unweighted.validation_message.find("7000"), std::string::npos) << unweighted.validation_message;
}

TEST(WeightedTerrain, TerrainCostsAreDeterministicAndKeepWalls) {
    GeneratorParams p;
    p.kind = GeneratorKind::Random;
    p.width = 80;
    p.height = 60;
    p.density = 0.25;
    const GridMap plain = generate_map(p).value();
    GridMap a = plain, b = plain;
    add_terrain_costs(a, 20, 5);
    add_terrain_costs(b, 20, 5);
    EXPECT_EQ(a.cells(), b.cells());
    std::size_t costly = 0;
    for (Vertex v = 0; v < plain.cell_count(); ++v) {
        EXPECT_EQ(a.passable(v), plain.passable(v));
        EXPECT_LE(a.cost(v), 20);
        costly += a.cost(v) > 1;
    }
    EXPECT_GT(costly, plain.passable_count() / 5);
    EXPECT_LT(costly, plain.passable_count() * 4 / 5);
}

TEST(WeightedTerrain, GpuBaselinesEqualTheCpuOnWeightedMaps) {
    PS_REQUIRE_GPU();
    test::Lcg rng(5);
    for (const GridMap& map : weighted_maps())
        for (const MoveRules rules : test::eight_connected_rules())
            for (const bool lock : {true, false})
                for (int q = 0; q < 3; ++q) {
                    const Vertex s = test::random_passable(map, rng), g = test::random_passable(map, rng);
                    const auto out = lock ? gpu::run_astar_gpu_lock(map, rules, s, g, {})
                                          : gpu::run_astar_gpu_heaps(map, rules, s, g, {});
                    test::expect_optimal_astar(map, rules, s, g, out, lock ? "lock" : "heaps");
                }
    // Through the runner, validated against dijkstra.cpu.
    const auto map = std::make_shared<const GridMap>(weighted_maps()[2]);
    for (const char* id : {"astar.gpu.lock", "astar.gpu.heaps"}) {
        const RunReport r = run_on(map, id, *map->start, *map->goal);
        EXPECT_EQ(r.result.status, RunStatus::Ok) << id << ": " << r.result.message;
        EXPECT_EQ(r.result.validation, Validation::Passed) << id << ": " << r.result.validation_message;
    }
    // The GPU searches that ignore costs are refused there.
    const RunReport uba = run_on(map, "astar.gpu.uba", *map->start, *map->goal);
    EXPECT_NE(uba.result.message.find("ignores cell costs"), std::string::npos) << uba.result.message;
}

}  // namespace
}  // namespace ps
