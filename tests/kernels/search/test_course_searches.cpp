// The searches of a search course (issue 18): Jump Point Search, weighted A* and greedy
// best-first, against independent truth. JPS: hand-worked costs, A*'s cost and a legal path on
// generated maps of every kind in both metrics, and every scenario of the shared MovingAI maps at
// its optimal length. Weighted A*: cost between the optimum and w times it. Greedy: a legal path
// wherever one exists. The validation holds each to its promise and fails a result that breaks it.
// A* with a bucket queue: hand-worked integer costs, A*'s cost and a legal path on generated maps
// under every movement rule and heuristic it accepts, every MovingAI scenario at the scenario's
// optimal length (integer metric: 1000 per unit, diagonals 1414), and refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/map/map_io.hpp"
#include "kernels/run/runner.hpp"
#include "kernels/run/validation.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/search/bucket_astar.hpp"
#include "kernels/search/jps.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::course_maps;
using test::generated;

const MoveRules kMovingAi{Connectivity::Eight, CornerRule::None};

// Path legal, start to goal, its steps adding up to the reported cost.
void expect_legal(const GridMap& map, MoveRules rules, CostMode mode, Vertex s, Vertex g, const SearchOutput& out) {
    ASSERT_NO_FATAL_FAILURE(test::expect_legal_path(map, rules, mode, s, g, out.path, out.cost));
}

TEST(Jps, HandWorkedCostsAndRefusals) {
    const auto map = test::wall_end_map();
    auto run = [&](Cell a, Cell b) {
        return jps_grid(*map, kMovingAi, CostMode::Integer, map->index(a), map->index(b)).value().search;
    };
    EXPECT_EQ(run({0, 0}, {0, 2}).cost, 2000.0);
    EXPECT_EQ(run({1, 0}, {4, 2}).cost, 7000.0);
    EXPECT_FALSE(run({0, 0}, {8, 0}).found);
    const SearchOutput same = run({7, 3}, {7, 3});
    EXPECT_TRUE(same.found);
    EXPECT_EQ(same.cost, 0.0);
    // An open room: one diagonal run then one straight run, two jump points at most.
    const auto open = generated(GeneratorKind::Empty, 30, 20, 1);
    const auto diag = jps_grid(*open, kMovingAi, CostMode::Integer, open->index(0, 0), open->index(29, 5)).value();
    EXPECT_EQ(diag.search.cost, 5 * 1414.0 + 24 * 1000.0);
    EXPECT_LE(diag.search.expanded, 3u);
    for (const MoveRules rules :
         {MoveRules{Connectivity::Four, CornerRule::None}, MoveRules{Connectivity::Eight, CornerRule::One},
          MoveRules{Connectivity::Eight, CornerRule::Any}})
        EXPECT_FALSE(jps_grid(*map, rules, CostMode::Real, map->index(0, 0), map->index(0, 2)));
}

TEST(Jps, EqualsAStarOnGeneratedMapsWithFewerExpansions) {
    std::uint64_t jps_expanded = 0, astar_expanded = 0;
    for (const auto& map : course_maps()) {
        test::Lcg rng(17);
        for (const CostMode mode : {CostMode::Integer, CostMode::Real})
            for (int i = 0; i < 40; ++i) {
                const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
                const SearchOutput a = astar_grid(*map, {kMovingAi, mode, Heuristic::Octile}, s, g);
                const auto j = jps_grid(*map, kMovingAi, mode, s, g);
                ASSERT_TRUE(j);
                SCOPED_TRACE(map->name + " query " + std::to_string(i));
                ASSERT_EQ(j->search.found, a.found);
                if (!a.found) continue;
                if (mode == CostMode::Integer)
                    EXPECT_EQ(j->search.cost, a.cost);
                else
                    EXPECT_NEAR(j->search.cost, a.cost, 1e-9 * std::max(1.0, a.cost));
                expect_legal(*map, kMovingAi, mode, s, g, j->search);
                jps_expanded += j->search.expanded;
                astar_expanded += a.expanded;
            }
    }
    EXPECT_LT(jps_expanded, astar_expanded);  // the point of jumping
}

TEST(Jps, EveryMovingAiScenarioAtItsOptimalLength) {
    PS_REQUIRE_MOVINGAI();
    for (const char* name : test::kMovingAiMaps) {
        auto loaded = test::load_movingai(name);
        ASSERT_TRUE(loaded) << loaded.error().message;
        const GridMap* map = &loaded->map;
        for (const Scenario& sc : loaded->scen.scenarios) {
            const auto j = jps_grid(*map, kMovingAi, CostMode::Real, map->index(sc.start), map->index(sc.goal));
            ASSERT_TRUE(j && j->search.found) << name;
            EXPECT_NEAR(j->search.cost, sc.optimal_length, 1e-4 * std::max(1.0, sc.optimal_length))
                << name << " (" << sc.start.x << "," << sc.start.y << ")->(" << sc.goal.x << "," << sc.goal.y << ")";
        }
    }
}

TEST(BucketAStar, HandWorkedCostsAndRefusals) {
    // (0,0) -> (4,0) under the walls: without corner cutting every diagonal on the way passes a
    // wall's corner, so 8 straight steps, as 4-connected; cutting corners (one free side, or
    // none needed) saves two: (0,1) -> (1,2) -> (2,1) -> (3,0) diagonally, 1000 + 3 x 1414 + 1000.
    const auto map = test::shared_map({
        ".#...",
        ".#.#.",
        "...#.",
    });
    auto run = [&](MoveRules rules, Heuristic h) {
        return bucket_astar_grid(*map, {rules, CostMode::Integer, h}, map->index({0, 0}), map->index({4, 0})).value();
    };
    EXPECT_EQ(run(kMovingAi, Heuristic::Octile).search.cost, 8000);
    EXPECT_EQ(run({Connectivity::Four, CornerRule::None}, Heuristic::Manhattan).search.cost, 8000);
    EXPECT_EQ(run({Connectivity::Four, CornerRule::None}, Heuristic::Zero).search.cost, 8000);  // Dial's Dijkstra
    EXPECT_EQ(run({Connectivity::Eight, CornerRule::One}, Heuristic::Octile).search.cost, 6242);
    EXPECT_EQ(run({Connectivity::Eight, CornerRule::Any}, Heuristic::Octile).search.cost, 6242);
    const auto found = run(kMovingAi, Heuristic::Octile);
    expect_legal(*map, kMovingAi, CostMode::Integer, map->index({0, 0}), map->index({4, 0}), found.search);
    EXPECT_GE(found.buckets, 1u);
    // Start == goal, an unreachable goal, a goal in a wall.
    const auto same = bucket_astar_grid(*map, {kMovingAi, CostMode::Integer, Heuristic::Octile}, 0, 0).value();
    EXPECT_TRUE(same.search.found);
    EXPECT_EQ(same.search.cost, 0);
    const auto walled = test::shared_map({"..#..", "..#..", "..#.."});
    EXPECT_FALSE(bucket_astar_grid(*walled, {kMovingAi, CostMode::Integer, Heuristic::Octile}, 0, walled->index({4, 0}))
                     .value()
                     .search.found);
    EXPECT_FALSE(bucket_astar_grid(*walled, {kMovingAi, CostMode::Integer, Heuristic::Octile}, 0, walled->index({2, 0}))
                     .value()
                     .search.found);
    // The real metric's f values are not integers; Manhattan overestimates with diagonals.
    EXPECT_FALSE(bucket_astar_grid(*map, {kMovingAi, CostMode::Real, Heuristic::Octile}, 0, 4));
    EXPECT_FALSE(bucket_astar_grid(*map, {kMovingAi, CostMode::Integer, Heuristic::Manhattan}, 0, 4));
}

TEST(BucketAStar, EqualsAStarOnGeneratedMapsUnderEveryRule) {
    const MoveRules rules[] = {{Connectivity::Four, CornerRule::None},
                               kMovingAi,
                               {Connectivity::Eight, CornerRule::One},
                               {Connectivity::Eight, CornerRule::Any}};
    for (const auto& map : course_maps()) {
        test::Lcg rng(23);
        for (const MoveRules& r : rules)
            for (const Heuristic h : {Heuristic::Zero, Heuristic::Octile, Heuristic::Euclidean})
                for (int i = 0; i < 12; ++i) {
                    const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
                    const GridSearchSpec spec{r, CostMode::Integer, h};
                    const SearchOutput a = astar_grid(*map, spec, s, g);
                    const auto b = bucket_astar_grid(*map, spec, s, g);
                    ASSERT_TRUE(b) << b.error().message;
                    SCOPED_TRACE(map->name + " query " + std::to_string(i));
                    ASSERT_EQ(b->search.found, a.found);
                    if (!a.found) continue;
                    EXPECT_EQ(b->search.cost, a.cost);
                    expect_legal(*map, r, CostMode::Integer, s, g, b->search);
                }
    }
}

TEST(BucketAStar, EveryMovingAiScenarioAtItsOptimalLength) {
    PS_REQUIRE_MOVINGAI();
    for (const char* name : test::kMovingAiMaps) {
        auto loaded = test::load_movingai(name);
        ASSERT_TRUE(loaded) << loaded.error().message;
        const GridMap* map = &loaded->map;
        for (std::size_t i = 0; i < loaded->scen.scenarios.size(); i += 5) {
            const Scenario& sc = loaded->scen.scenarios[i];
            const auto b = bucket_astar_grid(*map, {kMovingAi, CostMode::Integer, Heuristic::Octile},
                                             map->index(sc.start), map->index(sc.goal));
            ASSERT_TRUE(b && b->search.found) << name;
            // 1414 stands for 1000 sqrt(2) a share of 1 - 1414 / (1000 sqrt 2) (1.51e-4) too short: the
            // integer optimum lies within that share of the scenario's real optimum (and the file's
            // 8 decimals).
            const double share = 1.0 - 1.414 / kSqrt2;
            EXPECT_NEAR(b->search.cost / 1000.0, sc.optimal_length, share * sc.optimal_length + 1e-6)
                << name << " (" << sc.start.x << "," << sc.start.y << ")->(" << sc.goal.x << "," << sc.goal.y << ")";
        }
    }
}

TEST(WeightedAndGreedy, CostsLieBetweenTheOptimumAndTheirBound) {
    for (const auto& map : course_maps()) {
        test::Lcg rng(23);
        for (const MoveRules rules : {kMovingAi, MoveRules{Connectivity::Four, CornerRule::None}})
            for (int i = 0; i < 30; ++i) {
                const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
                const GridSearchSpec spec{rules, CostMode::Integer, Heuristic::Octile};
                const SearchOutput opt = astar_grid(*map, spec, s, g);
                for (const double w : {1.0, 1.5, 3.0, std::numeric_limits<double>::infinity()}) {
                    SCOPED_TRACE(map->name + " query " + std::to_string(i) + " w " + std::to_string(w));
                    const SearchOutput out = best_first_grid(*map, spec, s, g, w);
                    ASSERT_EQ(out.found, opt.found);
                    if (!opt.found) continue;
                    expect_legal(*map, rules, CostMode::Integer, s, g, out);
                    EXPECT_GE(out.cost, opt.cost);
                    if (w == 1.0) {
                        EXPECT_EQ(out.cost, opt.cost);
                    }
                    if (!std::isinf(w)) {
                        EXPECT_LE(out.cost, w * opt.cost);
                    }
                }
            }
    }
}

// Through the runner: the variants validate against dijkstra.cpu by their promises, and a
// result that breaks its promise fails.
TEST(WeightedAndGreedy, ValidationHoldsEachToItsPromise) {
    const auto map = generated(GeneratorKind::Rectangles, 90, 67, 6, 0.25);
    for (const char* id : {"wastar.cpu", "greedy.cpu", "jps.cpu"}) {
        RunRequest r;
        r.variant_id = id;
        r.problem.map = map;
        test::Lcg rng(5);
        r.problem.start = test::random_passable(*map, rng);
        r.problem.goal = test::random_passable(*map, rng);
        if (std::string(id) == "wastar.cpu") r.problem.params["w"] = "3";
        const RunReport report = run_variant(r);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        EXPECT_EQ(report.result.validation, Validation::Passed) << id << ": " << report.result.validation_message;
    }
    // A weighted A* result 10% over its bound of 1.5, and one below the optimum: both fail.
    Problem p;
    p.map = test::shared_map({"....."});
    p.rules = kMovingAi;
    p.cost_mode = CostMode::Integer;
    p.start = 0;
    p.goal = 4;
    RunResult reference;
    reference.found = true;
    reference.cost = 4000;
    reference.path = {0, 1, 2, 3, 4};
    RunResult over = reference;
    over.cost_bound = 1.5;
    over.cost = 6600;
    validate_against_reference(p, Family::ShortestPath, over, reference);
    EXPECT_EQ(over.validation, Validation::Failed);
    EXPECT_NE(over.validation_message.find("more than w = 1.5"), std::string::npos) << over.validation_message;
    RunResult below = reference;
    below.cost_bound = std::numeric_limits<double>::infinity();
    below.cost = 3000;
    validate_against_reference(p, Family::ShortestPath, below, reference);
    EXPECT_EQ(below.validation, Validation::Failed);
    RunResult fine = reference;
    fine.cost_bound = 1.5;
    validate_against_reference(p, Family::ShortestPath, fine, reference);
    EXPECT_EQ(fine.validation, Validation::Passed) << fine.validation_message;
}

}  // namespace
}  // namespace ps
