// flowfield.gpu against flowfield.cpu: every distance and every direction (the two share the
// tie-break of kernels/flowfield/flowfield.hpp) on generated maps of sizes that are and are not
// multiples of the 32-cell tiles, goals in various tiles, 4- and 8-connected under all three corner
// rules, plain and weighted terrain (the weighted tile kernel, also with blocks delayed on
// purpose), and through the runner (validation). Skips where no GPU is; without one, the
// variant must say why instead of failing.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "kernels/flowfield/flowfield.hpp"
#include "kernels/flowfield/flowfield_gpu.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/gpu_test_support.hpp"

namespace ps {
namespace {

using test::generated;

const MoveRules kAllRules[] = {{Connectivity::Four, CornerRule::None},
                               {Connectivity::Eight, CornerRule::None},
                               {Connectivity::Eight, CornerRule::One},
                               {Connectivity::Eight, CornerRule::Any}};

void expect_gpu_equals_cpu(const GridMap& map, MoveRules rules, Cell goal_near,
                           const gpu::FlowFieldGpuOptions& options = {}) {
    const Cell goal = nearest_in_largest_region(map, rules, goal_near).value();
    const Vertex g = map.index(goal);
    SCOPED_TRACE(map.name + " " + std::to_string(map.width()) + "x" + std::to_string(map.height()) +
                 (map.weighted() ? " weighted" : " plain") + " goal (" + std::to_string(goal.x) + "," +
                 std::to_string(goal.y) + ") " + std::string(to_string(rules.connectivity)) +
                 " corners=" + std::string(to_string(rules.corners)));
    const FlowField cpu = compute_flow_field(map, rules, g).value();
    const gpu::FlowFieldGpuOutput out = gpu::run_flowfield_gpu(map, rules, g, options);
    ASSERT_TRUE(out.error.empty()) << out.error;
    EXPECT_EQ(out.weighted, map.weighted());
    EXPECT_EQ(out.levels, cpu.levels);
    ASSERT_EQ(out.distance.size(), cpu.distance.size());
    std::size_t wrong = 0, first = 0;
    for (std::size_t v = 0; v < cpu.distance.size(); ++v)
        if (out.distance[v] != cpu.distance[v] && wrong++ == 0) first = v;
    ASSERT_EQ(wrong, 0u) << "first at cell " << first % map.width() << "," << first / map.width() << ": "
                         << out.distance[first] << " instead of " << cpu.distance[first];
    EXPECT_EQ(out.dirs, cpu.dirs);
    EXPECT_GE(out.global_steps, 1u);
}

TEST(FlowFieldGpu, EqualsCpuOnGeneratedMaps) {
    PS_REQUIRE_GPU();
    struct Case {
        GeneratorKind kind;
        int w, h;
        double density;
        int corridor;
    };
    const Case cases[] = {
        {GeneratorKind::Empty, 1, 1, 0, 1},
        {GeneratorKind::Empty, 64, 64, 0, 1},
        {GeneratorKind::Empty, 33, 65, 0, 1},  // 1-cell edge tiles: a goal alone in its tile
        {GeneratorKind::Random, 33, 70, 0.3, 1},
        {GeneratorKind::Random, 100, 37, 0.35, 1},
        {GeneratorKind::Rectangles, 257, 129, 0.3, 1},
        {GeneratorKind::Maze, 95, 161, 0, 1},
        {GeneratorKind::Maze, 256, 256, 0, 2},
        {GeneratorKind::Noise, 300, 211, 0.35, 1},
        {GeneratorKind::BlockedCentre, 129, 97, 0, 1},
    };
    std::uint64_t seed = 1;
    for (const Case& c : cases) {
        const auto map = generated(c.kind, c.w, c.h, seed++, c.density, c.corridor);
        for (MoveRules rules : kAllRules) {
            expect_gpu_equals_cpu(*map, rules, {0, 0});
            expect_gpu_equals_cpu(*map, rules, {c.w / 2, c.h / 2});
            expect_gpu_equals_cpu(*map, rules, {c.w - 1, c.h - 1});
        }
    }
}

std::shared_ptr<const GridMap> weighted(GeneratorKind kind, int w, int h, std::uint64_t seed, int max_cost) {
    GeneratorParams p;
    p.kind = kind;
    p.width = w;
    p.height = h;
    p.seed = seed;
    p.density = kind == GeneratorKind::Rooms ? kRoomsDensity : kind == GeneratorKind::Noise ? 0.35 : 0.25;
    p.room_size = 12;
    GridMap map = generate_map(p).value();
    add_terrain_costs(map, max_cost, seed + 100);
    return std::make_shared<const GridMap>(std::move(map));
}

// Weighted terrain of every generator kind, sizes that are not multiples of the tiles, costs up to
// 9 and up to 255: the weighted kernels equal the CPU bit for bit, distances and directions.
TEST(FlowFieldGpu, WeightedTerrainEqualsCpu) {
    PS_REQUIRE_GPU();
    std::uint64_t seed = 40;
    for (GeneratorKind kind : all_generator_kinds()) {
        for (const auto& [w, h, max_cost] : {std::tuple{97, 61, 9}, std::tuple{300, 257, 255}}) {
            const auto map = weighted(kind, w, h, seed++, max_cost);
            ASSERT_TRUE(map->weighted());
            for (MoveRules rules : kAllRules) {
                expect_gpu_equals_cpu(*map, rules, {0, 0});
                expect_gpu_equals_cpu(*map, rules, {w / 2, h / 2});
            }
        }
    }
}

// Hand-made terrain: a wall of costly cells (255) with a cheap gap, a 1-cell goal tile at the
// map's corner, costs that change across every tile border.
TEST(FlowFieldGpu, WeightedEdgeCasesEqualCpu) {
    PS_REQUIRE_GPU();
    GridMap map(65, 33);
    for (int y = 0; y < 33; ++y)
        for (int x = 0; x < 65; ++x) map.set_cost(x, y, std::uint8_t(1 + (x * 7 + y * 13) % 255));
    for (int y = 0; y < 33; ++y) map.set_cost(31, y, y == 17 ? 1 : 255);
    map.set_passable(40, 10, false);
    for (MoveRules rules : kAllRules) {
        expect_gpu_equals_cpu(map, rules, {64, 32});
        expect_gpu_equals_cpu(map, rules, {0, 0});
    }
}

// The weighted kernel with blocks delayed on purpose (kernels/gpu/gpu_test_delay.hpp): a slow
// block must never change the result; the watchdog turns a hang at the grid barrier into a failure.
TEST(FlowFieldGpu, WeightedTerrainWithDelayedBlocksEqualsCpu) {
    PS_REQUIRE_GPU();
    const auto noise = weighted(GeneratorKind::Noise, 300, 257, 51, 255);
    const auto empty = weighted(GeneratorKind::Empty, 480, 353, 52, 60);
    for (const auto& map : {noise, empty}) {
        for (MoveRules rules : {kAllRules[0], kAllRules[1]}) {
            for (const gpu::BlockDelay& d : {gpu::BlockDelay{20000, 2, 1}, gpu::BlockDelay{100000, 3, 2}}) {
                gpu::FlowFieldGpuOptions options;
                options.test_delay = d;
                test::Watchdog watchdog("flowfield.gpu", "a delayed weighted run", 60);
                expect_gpu_equals_cpu(*map, rules, {map->width() / 3, map->height() / 2}, options);
            }
        }
    }
}

// Plain maps still take the plain kernels (a regression check beside the weighted ones).
TEST(FlowFieldGpu, PlainMapStillEqualsCpu) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Noise, 300, 257, 61, 0.35);
    ASSERT_FALSE(map->weighted());
    for (MoveRules rules : kAllRules) expect_gpu_equals_cpu(*map, rules, {150, 128});
}

TEST(FlowFieldGpu, LargeMazeAndNoiseEqualCpu) {
    PS_REQUIRE_GPU();
    const auto maze = generated(GeneratorKind::Maze, 1000, 1000, 5, 0, 1);
    const auto noise = generated(GeneratorKind::Noise, 1024, 777, 6, 0.4, 1);
    for (MoveRules rules : kAllRules) {
        expect_gpu_equals_cpu(*maze, rules, {500, 500});
        expect_gpu_equals_cpu(*noise, rules, {0, 0});
    }
}

TEST(FlowFieldGpu, RunnerValidatesAgainstCpu) {
    PS_REQUIRE_GPU();
    const std::shared_ptr<const GridMap> maps[] = {generated(GeneratorKind::Random, 200, 150, 3, 0.3),
                                                   weighted(GeneratorKind::Random, 200, 150, 3, 255)};
    for (const auto& map : maps) {
        for (MoveRules rules : kAllRules) {
            RunRequest request;
            request.variant_id = "flowfield.gpu";
            request.problem.map = map;
            request.problem.rules = rules;
            request.problem.goal = map->index(nearest_in_largest_region(*map, rules, {100, 75}).value());
            request.problem.start = map->index(nearest_in_largest_region(*map, rules, {0, 0}).value());
            request.repeat = 2;  // a second run catches state left over from the first
            const RunReport report = run_variant(request);
            ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
            EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
            EXPECT_TRUE(report.result.found);
            EXPECT_GT(report.result.counters.at("tile_passes"), 0);
        }
    }
}

TEST(FlowFieldGpu, DistancesBeyond32BitsAreRefused) {
    PS_REQUIRE_GPU();
    GridMap map(3000, 1500, false);  // the serpentine of test_flowfield.cpp: ~2.25 million steps
    for (int y = 0; y < 1500; y += 2) {
        for (int x = 0; x < 3000; ++x) map.set_passable(x, y, true);
        if (y + 1 < 1500) map.set_passable((y / 2) % 2 == 0 ? 2999 : 0, y + 1, true);
    }
    const gpu::FlowFieldGpuOutput out = gpu::run_flowfield_gpu(map, {Connectivity::Eight, CornerRule::None}, 0, {});
    EXPECT_NE(out.error.find("exceed 32 bits"), std::string::npos) << out.error;
    EXPECT_EQ(out.error_kind, ErrorKind::Invalid);  // the map is too big for the metric, the GPU is fine
}

TEST(FlowFieldGpu, WithoutGpuSaysWhy) {
    if (gpu_info().available) GTEST_SKIP() << "a GPU is present: nothing to refuse";
    const auto map = generated(GeneratorKind::Empty, 8, 8, 1);
    const gpu::FlowFieldGpuOutput out = gpu::run_flowfield_gpu(*map, {}, 0, {});
    EXPECT_EQ(out.error.rfind("unavailable: no usable GPU", 0), 0u) << out.error;
    EXPECT_EQ(out.error_kind, ErrorKind::Device);
    const Variant* v = Registry::instance().find("flowfield.gpu");
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->unavailable_reason().has_value());
}

}  // namespace
}  // namespace ps
