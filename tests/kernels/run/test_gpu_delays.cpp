// The GPU kernels whose blocks coordinate through flags and grid barriers, run with blocks
// delayed on purpose (BlockDelay, a test-only hook): a delay only simulates a slow block, so
// every result must still equal the CPU reference exactly, and every run must end. A run that
// hangs (a block left a cooperative kernel while the others wait at its barrier) ends the test
// program through a watchdog with the case's name instead of hanging CI. Skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "kernels/bfs/bfs_gpu.hpp"
#include "kernels/flowfield/flowfield.hpp"
#include "kernels/flowfield/flowfield_gpu.hpp"
#include "kernels/graph/graph.hpp"
#include "tests/support/gpu_test_support.hpp"

namespace ps {
namespace {

using test::generated;

// Delays of a few tens of microseconds: longer than a grid barrier (~1.4 us) or an
// iteration, so a picked block falls a whole step behind the others.
std::vector<gpu::BlockDelay> delays() { return {{20000, 2, 1}, {100000, 3, 2}, {50000, 7, 3}}; }

std::string label(const GridMap& map, const gpu::BlockDelay& d) {
    return map.name + " " + std::to_string(map.width()) + "x" + std::to_string(map.height()) + " delay " +
           std::to_string(d.ns / 1000) + " us 1/" + std::to_string(d.one_in) + " seed " + std::to_string(d.seed);
}

TEST(GpuDelays, AStarPersistentAndHostLoopStayExact) {
    PS_REQUIRE_GPU();
    // Thin frontiers (maze, rooms) make solo stretches in block 0; random and noise maps
    // alternate between solo and whole-grid iterations, where the race window is.
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        generated(GeneratorKind::Random, 192, 192, 11, 0.25),
        generated(GeneratorKind::Noise, 160, 160, 12, 0.35),
        generated(GeneratorKind::Maze, 97, 97, 13, 0.0, 2),
        generated(GeneratorKind::Rectangles, 200, 120, 14, 0.25),
    };
    const MoveRules rules{Connectivity::Eight, CornerRule::None};
    for (const auto& map : maps) {
        const Vertex start = map->index(*map->start), goal = map->index(*map->goal);
        for (const gpu::BlockDelay& d : delays()) {
            for (bool bidirectional : {false, true}) {
                for (bool persistent : {true, false}) {
                    gpu::AStarGpuOptions opt;
                    opt.bidirectional = bidirectional;
                    opt.persistent = persistent;
                    opt.test_delay = d;
                    const std::string what = std::string(bidirectional ? "astar.gpu.bba" : "astar.gpu.uba") +
                                             (persistent ? " persistent " : " host loop ") + label(*map, d);
                    gpu::AStarGpuOutput out;
                    {
                        test::Watchdog watchdog("GPU stress", what, 60);
                        out = gpu::run_astar_gpu(*map, rules, start, goal, opt);
                    }
                    test::expect_optimal_astar(*map, rules, start, goal, out, what);
                }
            }
        }
    }
}

void expect_bfs_exact(const GridMap& map, gpu::BfsKind kind, Vertex target, Vertex stop, const gpu::BlockDelay& d,
                      const std::string& name) {
    const MoveRules rules{Connectivity::Four, CornerRule::None};
    const CsrGraph csr = grid_to_csr(map, rules, std::nullopt).value();
    const BfsOutput cpu = bfs_queue(csr, target, stop);
    gpu::BfsGpuOptions opt;
    opt.kind = kind;
    opt.test_delay = d;
    const std::string what = name + (stop == kNoVertex ? "" : " stop") + " " + label(map, d);
    gpu::BfsGpuOutput out;
    {
        test::Watchdog watchdog("GPU stress", what, 60);
        out = gpu::run_bfs_gpu(map, rules, &csr, target, stop, opt);
    }
    ASSERT_TRUE(out.error.empty()) << what << ": " << out.error;
    std::size_t wrong = 0, first = 0;
    for (std::size_t v = 0; v < cpu.levels.size(); ++v)
        if (out.levels[v] != cpu.levels[v] && wrong++ == 0) first = v;
    EXPECT_EQ(wrong, 0u) << what << ": first at cell " << first % map.width() << "," << first / map.width() << ": "
                         << out.levels[first] << " instead of " << cpu.levels[first];
}

TEST(GpuDelays, BfsPersistentTiledAndTailLaunchStayExact) {
    PS_REQUIRE_GPU();
    // Large open areas give wide tiled wavefronts (many tiles flagged per round, across all
    // blocks); mazes give long thin ones.
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        generated(GeneratorKind::Empty, 512, 512, 21),
        generated(GeneratorKind::Random, 384, 256, 22, 0.3),
        generated(GeneratorKind::Noise, 320, 320, 23, 0.35),
        generated(GeneratorKind::Maze, 257, 129, 24, 0.0, 3),
        generated(GeneratorKind::Rectangles, 300, 300, 25, 0.25),
    };
    const std::pair<gpu::BfsKind, const char*> kinds[] = {{gpu::BfsKind::Persistent, "bfs.gpu.persistent"},
                                                          {gpu::BfsKind::Tiled, "bfs.gpu.tiled"},
                                                          {gpu::BfsKind::DynamicParallel, "bfs.gpu.dp"}};
    for (const auto& map : maps) {
        const Vertex target = map->index(*map->goal), far = map->index(*map->start);
        for (const gpu::BlockDelay& d : delays()) {
            for (const auto& [kind, name] : kinds) {
                expect_bfs_exact(*map, kind, target, kNoVertex, d, name);
                expect_bfs_exact(*map, kind, target, far, d, name);
            }
        }
    }
}

TEST(GpuDelays, FlowFieldStaysExact) {
    PS_REQUIRE_GPU();
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        generated(GeneratorKind::Empty, 480, 480, 31),
        generated(GeneratorKind::Noise, 300, 260, 32, 0.35),
        generated(GeneratorKind::Maze, 193, 193, 33, 0.0, 2),
    };
    for (const auto& map : maps) {
        for (const MoveRules rules :
             {MoveRules{Connectivity::Four, CornerRule::None}, MoveRules{Connectivity::Eight, CornerRule::None}}) {
            const Vertex goal = map->index(*map->goal);
            const FlowField cpu = compute_flow_field(*map, rules, goal).value();
            for (const gpu::BlockDelay& d : delays()) {
                gpu::FlowFieldGpuOptions opt;
                opt.test_delay = d;
                const std::string what = "flowfield.gpu " + label(*map, d);
                gpu::FlowFieldGpuOutput out;
                {
                    test::Watchdog watchdog("GPU stress", what, 60);
                    out = gpu::run_flowfield_gpu(*map, rules, goal, opt);
                }
                ASSERT_TRUE(out.error.empty()) << what << ": " << out.error;
                EXPECT_EQ(out.distance, cpu.distance) << what;
            }
        }
    }
}

}  // namespace
}  // namespace ps
