// GPU A* variants (astar.gpu.uba, astar.gpu.bba) against the CPU A* in the integer metric:
// equal optimal costs and valid paths on generated maps of many shapes and sizes, both
// movement rules, unreachable goals, start == goal, forced bucket overflows, other bucket
// widths, and a sample of the shared MovingAI scenarios. Skips where no GPU is.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/astar/astar_gpu.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::generated;

constexpr const char* kIds[] = {"astar.gpu.uba", "astar.gpu.bba"};

// Runs one GPU variant directly and checks it against the CPU A* (test::expect_optimal_astar).
void expect_optimal(const GridMap& map, MoveRules rules, Vertex start, Vertex goal, bool bidirectional,
                    gpu::AStarGpuOptions options = {}) {
    options.bidirectional = bidirectional;
    test::expect_optimal_astar(map, rules, start, goal, gpu::run_astar_gpu(map, rules, start, goal, options),
                               bidirectional ? "bba" : "uba");
}

TEST(AStarGpu, UnavailableWithoutGpuSaysWhy) {
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

TEST(AStarGpu, CostsEqualTheCpuOnGeneratedMaps) {
    PS_REQUIRE_GPU();
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        generated(GeneratorKind::Empty, 8, 8, 1),
        generated(GeneratorKind::Empty, 300, 120, 1),
        generated(GeneratorKind::Random, 33, 17, 2, 0.2),
        generated(GeneratorKind::Random, 257, 300, 3, 0.2),
        generated(GeneratorKind::Random, 64, 64, 4, 0.4),
        generated(GeneratorKind::Rectangles, 200, 150, 6, 0.25),
        generated(GeneratorKind::BlockedCentre, 96, 64, 5),
        generated(GeneratorKind::Maze, 101, 67, 4, 0.0, 1),
        generated(GeneratorKind::Maze, 120, 90, 8, 0.0, 2),
        std::make_shared<const GridMap>(test::random_map(150, 40, 0.3, 11)),
    };
    test::Lcg rng(7);
    for (const auto& map : maps)
        for (const MoveRules rules : test::eight_connected_rules())
            for (const bool bidir : {false, true}) {
                if (map->start && map->goal)  // test::random_map sets neither
                    expect_optimal(*map, rules, map->index(*map->start), map->index(*map->goal), bidir);
                for (int k = 0; k < 3; ++k)
                    expect_optimal(*map, rules, test::random_passable(*map, rng), test::random_passable(*map, rng),
                                   bidir);
            }
}

TEST(AStarGpu, UnreachableGoalAndStartEqualsGoal) {
    PS_REQUIRE_GPU();
    const auto walled = test::shared_map({
        "....#....",
        "....#....",
        "....#....",
        "....#....",
    });
    // Diagonal pockets: without corner cutting (4,0) is shut in; cutting one corner, the squeeze
    // between two diagonal walls is still forbidden; under the any rule it is the way in.
    const auto pocket = test::shared_map({
        "...#.",
        "..#.#",
        ".....",
    });
    for (const MoveRules rules : test::eight_connected_rules())
        for (const bool bidir : {false, true}) {
            expect_optimal(*walled, rules, walled->index(0, 0), walled->index(8, 3), bidir);
            expect_optimal(*walled, rules, walled->index(2, 2), walled->index(2, 2), bidir);
            expect_optimal(*pocket, rules, pocket->index(0, 0), pocket->index(4, 0), bidir);
            expect_optimal(*pocket, rules, pocket->index(0, 0), pocket->index(3, 1), bidir);
        }
}

TEST(AStarGpu, FullBucketsRestartWithMoreRoomAndStayExact) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Random, 200, 200, 21, 0.2);
    gpu::AStarGpuOptions options;
    options.initial_bucket_capacity = 4;
    for (const bool bidir : {false, true}) {
        expect_optimal(*map, {}, map->index(*map->start), map->index(*map->goal), bidir, options);
        options.bidirectional = bidir;
        const auto out = gpu::run_astar_gpu(*map, {}, map->index(*map->start), map->index(*map->goal), options);
        EXPECT_GT(out.restarts, 0u);
    }
}

TEST(AStarGpu, HostDrivenFallbackLoopStaysExact) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Random, 300, 200, 5, 0.25);
    gpu::AStarGpuOptions options;
    options.persistent = false;
    for (const bool bidir : {false, true}) {
        expect_optimal(*map, {}, map->index(*map->start), map->index(*map->goal), bidir, options);
        options.bidirectional = bidir;
        EXPECT_FALSE(gpu::run_astar_gpu(*map, {}, map->index(*map->start), map->index(*map->goal), options).persistent);
    }
}

TEST(AStarGpu, AnyBucketWidthIsExact) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Rectangles, 180, 140, 9, 0.3);
    for (const int width : {256, 1414, 5000, 100000}) {
        gpu::AStarGpuOptions options;
        options.bucket_width = width;
        for (const bool bidir : {false, true})
            expect_optimal(*map, {}, map->index(*map->start), map->index(*map->goal), bidir, options);
    }
}

// Batched extraction (one bucket per iteration up to 16, tiny and default budgets), one or
// eight threads per entry, the host-driven loop, 4-connected grids: all exact.
TEST(AStarGpu, ExtractionAndThreadSettingsStayExact) {
    PS_REQUIRE_GPU();
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        generated(GeneratorKind::Random, 190, 170, 31, 0.2),
        generated(GeneratorKind::BlockedCentre, 160, 160, 32),
        generated(GeneratorKind::Maze, 91, 71, 33, 0.0, 2),
    };
    struct Setting {
        int max_extract, extract_target, threads_per_vertex;
        bool persistent, solo = true;
    };
    const Setting settings[] = {{1, 0, 8, true},  {16, 0, 8, true}, {28, 1, 8, true},      {8, 64, 1, true},
                                {8, 0, 1, false}, {4, 0, 8, false}, {8, 0, 8, true, false}};
    MoveRules four;
    four.connectivity = Connectivity::Four;
    test::Lcg rng(99);
    for (const auto& map : maps)
        for (const Setting& setting : settings)
            for (const MoveRules rules : {MoveRules{}, four})
                for (const bool bidir : {false, true}) {
                    gpu::AStarGpuOptions options;
                    options.max_extract = setting.max_extract;
                    options.extract_target = setting.extract_target;
                    options.threads_per_vertex = setting.threads_per_vertex;
                    options.persistent = setting.persistent;
                    options.solo_block = setting.solo;
                    SCOPED_TRACE(std::string(setting.solo ? "" : "no solo ") + "max_extract " +
                                 std::to_string(setting.max_extract) + " target " +
                                 std::to_string(setting.extract_target) + " tpv " +
                                 std::to_string(setting.threads_per_vertex) +
                                 (rules.connectivity == Connectivity::Four ? " 4-conn" : ""));
                    expect_optimal(*map, rules, map->index(*map->start), map->index(*map->goal), bidir, options);
                    expect_optimal(*map, rules, test::random_passable(*map, rng), test::random_passable(*map, rng),
                                   bidir, options);
                }
}

// The recording holds exactly the expansions and insertions the counters report (stride 1,
// nothing dropped), tagged with iterations of this search, the source expanded first.
TEST(AStarGpu, RecordingMatchesTheCounters) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Rectangles, 120, 90, 12, 0.25);
    for (const bool bidir : {false, true}) {
        gpu::AStarGpuOptions options;
        options.bidirectional = bidir;
        options.record = true;
        options.record_cap = 1u << 22;
        const Vertex start = map->index(*map->start), goal = map->index(*map->goal);
        const auto out = gpu::run_astar_gpu(*map, {}, start, goal, options);
        ASSERT_TRUE(out.error.empty()) << out.error;
        ASSERT_FALSE(out.record_truncated);
        std::uint64_t closes = 0, opens = 0;
        for (const auto& e : out.events) {
            ASSERT_LT(e.iteration, out.iterations);
            ASSERT_TRUE(map->passable(e.vertex));
            ASSERT_LT(e.direction, bidir ? 2 : 1);
            (e.kind == 1 ? closes : opens) += 1;
        }
        EXPECT_EQ(closes, out.expanded);
        EXPECT_EQ(opens, out.pushed);
        ASSERT_FALSE(out.events.empty());
        EXPECT_EQ(out.events.front().iteration, 0u);
        EXPECT_TRUE(std::is_sorted(out.events.begin(), out.events.end(),
                                   [](const auto& a, const auto& b) { return a.iteration < b.iteration; }));
        bool start_closed_first = false;
        for (const auto& e : out.events)
            if (e.iteration == 0 && e.kind == 1 && e.vertex == start) start_closed_first = true;
        EXPECT_TRUE(start_closed_first);
    }
}

TEST(AStarGpu, RunnerValidatesAgainstDijkstraAndRefusesTheRealMetric) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Maze, 81, 61, 3, 0.0, 1);
    for (const char* id : kIds) {
        RunRequest request;
        request.variant_id = id;
        request.problem.map = map;
        request.problem.cost_mode = CostMode::Integer;
        request.problem.start = map->index(*map->start);
        request.problem.goal = map->index(*map->goal);
        request.problem.params = {{"block_size", "128"}};
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

// Every 20th scenario of each shared map (GPU test time stays small), both rules.
class AStarGpuMovingAi : public ::testing::TestWithParam<const char*> {};

TEST_P(AStarGpuMovingAi, SampledScenariosAreOptimal) {
    PS_REQUIRE_GPU();
    PS_REQUIRE_MOVINGAI();
    const std::string path = (test::movingai_dir() / GetParam()).string();
    const auto map = read_movingai_map(path);
    ASSERT_TRUE(map.ok()) << map.error().message;
    const auto file = read_movingai_scen(path + ".scen");
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_EQ(file->rejected_count, 0u);
    const std::vector<Scenario>& scenarios = file->scenarios;
    for (std::size_t i = 0; i < scenarios.size(); i += 20) {
        const Scenario& sc = scenarios[i];
        SCOPED_TRACE(std::string(GetParam()) + ".scen line " + std::to_string(sc.line));
        for (const MoveRules rules : test::eight_connected_rules())
            for (const bool bidir : {false, true})
                expect_optimal(*map, rules, map->index(sc.start), map->index(sc.goal), bidir);
    }
}

INSTANTIATE_TEST_SUITE_P(AStarGpuShared, AStarGpuMovingAi,
                         ::testing::Values("arena.map", "den520d.map", "random512-10-0.map"),
                         [](const ::testing::TestParamInfo<const char*>& param_info) {
                             std::string n = param_info.param;
                             n = n.substr(0, n.find('.'));
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

}  // namespace
}  // namespace ps
