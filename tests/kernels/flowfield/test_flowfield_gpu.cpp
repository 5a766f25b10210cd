// flowfield.gpu against flowfield.cpu: every distance and every direction (the two share the
// tie-break of kernels/flowfield/flowfield.hpp) on generated maps of sizes that are and are not
// multiples of the 32-cell tiles, goals in various tiles, 4- and 8-connected under all three corner
// rules, and through the runner (validation). Skips where no GPU is; without one, the
// variant must say why instead of failing.
#include <gtest/gtest.h>

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

void expect_gpu_equals_cpu(const GridMap& map, MoveRules rules, Cell goal_near) {
    const Cell goal = nearest_in_largest_region(map, rules, goal_near).value();
    const Vertex g = map.index(goal);
    SCOPED_TRACE(map.name + " " + std::to_string(map.width()) + "x" + std::to_string(map.height()) + " goal (" +
                 std::to_string(goal.x) + "," + std::to_string(goal.y) + ") " +
                 std::string(to_string(rules.connectivity)) + " corners=" + std::string(to_string(rules.corners)));
    const FlowField cpu = compute_flow_field(map, rules, g).value();
    const gpu::FlowFieldGpuOutput out = gpu::run_flowfield_gpu(map, rules, g, {});
    ASSERT_TRUE(out.error.empty()) << out.error;
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
    const auto map = generated(GeneratorKind::Random, 200, 150, 3, 0.3);
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
