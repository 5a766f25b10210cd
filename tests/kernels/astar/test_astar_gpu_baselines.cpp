// The GPU A* baselines (astar.gpu.lock, astar.gpu.heaps) against the CPU A* in the integer
// metric: equal optimal costs and valid paths on small generated maps (empty, random 20%,
// maze, blocked centre), both movement rules, unreachable goals, start == goal, forced heap
// overflows, and validation through the runner. Skips where no GPU is.
#include <gtest/gtest.h>

#include "kernels/astar/astar_gpu_baselines.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::generated;

constexpr const char* kIds[] = {"astar.gpu.lock", "astar.gpu.heaps"};

gpu::AStarGpuOutput run(bool lock, const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                        const gpu::AStarGpuBaselineOptions& options) {
    return lock ? gpu::run_astar_gpu_lock(map, rules, start, goal, options)
                : gpu::run_astar_gpu_heaps(map, rules, start, goal, options);
}

void expect_optimal(const GridMap& map, MoveRules rules, Vertex start, Vertex goal, bool lock,
                    const gpu::AStarGpuBaselineOptions& options = {}) {
    test::expect_optimal_astar(map, rules, start, goal, run(lock, map, rules, start, goal, options),
                               lock ? "lock" : "heaps");
}

TEST(AStarGpuBaselines, UnavailableWithoutGpuSaysWhy) {
    if (gpu_info().available) GTEST_SKIP() << "a GPU is present: " << describe(gpu_info());
    for (const char* id : kIds) {
        RunRequest request;
        request.variant_id = id;
        request.problem.map = generated(GeneratorKind::Empty, 8, 8, 1);
        request.problem.cost_mode = CostMode::Integer;
        request.problem.start = 0;
        request.problem.goal = 63;
        const RunReport report = run_variant(request);
        EXPECT_EQ(report.result.status, RunStatus::Unavailable) << id;
        EXPECT_FALSE(report.result.message.empty()) << id;
    }
}

TEST(AStarGpuBaselines, CostsEqualTheCpuOnGeneratedMaps) {
    PS_REQUIRE_GPU();
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        generated(GeneratorKind::Empty, 8, 8, 1),           generated(GeneratorKind::Empty, 200, 120, 1),
        generated(GeneratorKind::Random, 33, 17, 2, 0.2),   generated(GeneratorKind::Random, 200, 200, 3, 0.2),
        generated(GeneratorKind::BlockedCentre, 96, 64, 5), generated(GeneratorKind::Maze, 101, 67, 4, 0.0, 1),
        generated(GeneratorKind::Maze, 60, 45, 8, 0.0, 2),
    };
    test::Lcg rng(7);
    for (const auto& map : maps)
        for (const MoveRules rules : test::eight_connected_rules())
            for (const bool lock : {true, false}) {
                expect_optimal(*map, rules, map->index(*map->start), map->index(*map->goal), lock);
                for (int k = 0; k < 2; ++k)
                    expect_optimal(*map, rules, test::random_passable(*map, rng), test::random_passable(*map, rng),
                                   lock);
            }
}

TEST(AStarGpuBaselines, UnreachableGoalAndStartEqualsGoal) {
    PS_REQUIRE_GPU();
    const auto walled = test::shared_map({
        "....#....",
        "....#....",
        "....#....",
        "....#....",
    });
    const auto pocket = test::shared_map({
        "...#.",
        "..#.#",
        ".....",
    });
    for (const MoveRules rules : test::eight_connected_rules())
        for (const bool lock : {true, false}) {
            expect_optimal(*walled, rules, walled->index(0, 0), walled->index(8, 3), lock);
            expect_optimal(*walled, rules, walled->index(2, 2), walled->index(2, 2), lock);
            expect_optimal(*pocket, rules, pocket->index(0, 0), pocket->index(4, 0), lock);
            expect_optimal(*pocket, rules, pocket->index(0, 0), pocket->index(3, 1), lock);
            expect_optimal(*walled, rules, walled->index(4, 1), walled->index(0, 0), lock);  // start in a wall
            expect_optimal(*walled, rules, walled->index(0, 0), walled->index(4, 2), lock);  // goal in a wall
        }
}

TEST(AStarGpuBaselines, FullHeapsRestartWithMoreRoomAndStayExact) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Random, 120, 120, 21, 0.2);
    gpu::AStarGpuBaselineOptions options;
    options.initial_heap_capacity = 2;
    for (const bool lock : {true, false}) {
        expect_optimal(*map, {}, map->index(*map->start), map->index(*map->goal), lock, options);
        const auto out = run(lock, *map, {}, map->index(*map->start), map->index(*map->goal), options);
        EXPECT_GT(out.restarts, 0u);
    }
}

TEST(AStarGpuBaselines, RunnerValidatesAgainstDijkstraAndRefusesTheRealMetric) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Maze, 81, 61, 3, 0.0, 1);
    for (const char* id : kIds) {
        RunRequest request;
        request.variant_id = id;
        request.problem.map = map;
        request.problem.cost_mode = CostMode::Integer;
        request.problem.start = map->index(*map->start);
        request.problem.goal = map->index(*map->goal);
        request.repeat = 2;  // a second run catches state left over from the first
        RunReport report = run_variant(request);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << id << ": " << report.result.message;
        EXPECT_EQ(report.result.validation, Validation::Passed) << id << ": " << report.result.validation_message;
        EXPECT_GT(report.result.expanded, 0u);
        EXPECT_GT(report.result.counters.at("iterations"), 0.0);

        request.problem.cost_mode = CostMode::Real;
        report = run_variant(request);
        EXPECT_EQ(report.result.status, RunStatus::Error) << id;
        EXPECT_NE(report.result.message.find("integer"), std::string::npos) << report.result.message;
    }
}

}  // namespace
}  // namespace ps
