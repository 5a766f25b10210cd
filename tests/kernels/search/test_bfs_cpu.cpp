// CPU BFS references: hand-worked level grids, sweep == queue on random maps, stop_at
// semantics, path extraction and cancellation.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/search/cpu_search.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/grid_map.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

constexpr MoveRules kFour{Connectivity::Four, CornerRule::None};
constexpr std::int32_t U = kUnreached;

using test::Lcg;
using test::map_from_rows;
using test::random_map;
using test::random_passable;

CsrGraph bfs_graph(const GridMap& map) {
    auto graph = grid_to_csr(map, kFour, std::nullopt);
    EXPECT_TRUE(graph.ok());
    return std::move(graph).value();
}

void expect_levels(const BfsOutput& out, const std::vector<std::int32_t>& expected, std::int32_t depth,
                   std::uint64_t visited) {
    EXPECT_EQ(out.levels, expected);
    EXPECT_EQ(out.depth, depth);
    EXPECT_EQ(out.visited, visited);
    EXPECT_FALSE(out.cancelled);
}

TEST(BfsCpu, FiveByFiveWithWall) {
    const GridMap map = map_from_rows({
        ".....",
        ".@@@.",
        ".....",
        ".....",
        ".....",
    });
    const CsrGraph graph = bfs_graph(map);
    const std::vector<std::int32_t> expected = {
        2, 1, 0, 1, 2,  //
        3, U, U, U, 3,  //
        4, 5, 6, 5, 4,  //
        5, 6, 7, 6, 5,  //
        6, 7, 8, 7, 6,  //
    };
    const Vertex target = map.index(2, 0);
    expect_levels(bfs_sweep(graph, target, kNoVertex), expected, 9, 22);
    expect_levels(bfs_queue(graph, target, kNoVertex), expected, 9, 22);
}

TEST(BfsCpu, EnclosedTarget) {
    const GridMap map = map_from_rows({
        ".....",
        ".@@@.",
        ".@.@.",
        ".@@@.",
        ".....",
    });
    const CsrGraph graph = bfs_graph(map);
    std::vector<std::int32_t> inside(25, U);
    inside[std::size_t(map.index(2, 2))] = 0;
    expect_levels(bfs_sweep(graph, map.index(2, 2), kNoVertex), inside, 1, 1);
    expect_levels(bfs_queue(graph, map.index(2, 2), kNoVertex), inside, 1, 1);

    // From outside the ring the enclosed cell stays unreached.
    const std::vector<std::int32_t> outside = {
        0, 1, 2, 3, 4,  //
        1, U, U, U, 5,  //
        2, U, U, U, 6,  //
        3, U, U, U, 7,  //
        4, 5, 6, 7, 8,  //
    };
    expect_levels(bfs_sweep(graph, map.index(0, 0), kNoVertex), outside, 9, 16);
    expect_levels(bfs_queue(graph, map.index(0, 0), kNoVertex), outside, 9, 16);
}

TEST(BfsCpu, SingleCell) {
    const CsrGraph graph = bfs_graph(GridMap(1, 1));
    expect_levels(bfs_sweep(graph, 0, kNoVertex), {0}, 1, 1);
    expect_levels(bfs_queue(graph, 0, kNoVertex), {0}, 1, 1);
    EXPECT_EQ(bfs_path(graph, bfs_queue(graph, 0, kNoVertex).levels, 0), std::vector<Vertex>{0});
}

TEST(BfsCpu, TargetOutOfRangeReachesNothing) {
    const CsrGraph graph = bfs_graph(GridMap(3, 3));
    for (const BfsOutput& out : {bfs_sweep(graph, 9, kNoVertex), bfs_queue(graph, 9, kNoVertex)}) {
        EXPECT_EQ(out.levels, std::vector<std::int32_t>(9, U));
        EXPECT_EQ(out.depth, 0);
        EXPECT_EQ(out.visited, 0u);
    }
}

TEST(BfsCpu, EmptyMapLevelsAreManhattanDistances) {
    const GridMap map(40, 25);
    const CsrGraph graph = bfs_graph(map);
    const Cell t{13, 7};
    const BfsOutput out = bfs_queue(graph, map.index(t), kNoVertex);
    for (Vertex v = 0; v < map.cell_count(); ++v) {
        const Cell c = map.cell(v);
        ASSERT_EQ(out.levels[v], std::abs(c.x - t.x) + std::abs(c.y - t.y)) << "at " << c.x << "," << c.y;
    }
    EXPECT_EQ(out.depth, (39 - 13) + (24 - 7) + 1);
    EXPECT_EQ(bfs_sweep(graph, map.index(t), kNoVertex).levels, out.levels);
}

TEST(BfsCpu, SweepEqualsQueueOnRandomMaps) {
    Lcg pick(7);
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const int w = 5 + int(pick.below(60));
        const int h = 5 + int(pick.below(60));
        const double density = 0.1 * double(seed % 5);
        const GridMap map = random_map(w, h, density, seed);
        const CsrGraph graph = bfs_graph(map);
        const Vertex target = random_passable(map, pick);
        const BfsOutput sweep = bfs_sweep(graph, target, kNoVertex);
        const BfsOutput queue = bfs_queue(graph, target, kNoVertex);
        SCOPED_TRACE("seed " + std::to_string(seed));
        EXPECT_EQ(sweep.levels, queue.levels);
        EXPECT_EQ(sweep.depth, queue.depth);
        EXPECT_EQ(sweep.visited, queue.visited);
        // BFS invariants: neighbours differ by at most one level, a labelled vertex has a
        // neighbour one level closer, and a complete BFS leaves no labelled vertex's neighbour out.
        std::int32_t max_level = -1;
        std::uint64_t labelled = 0;
        for (Vertex v = 0; v < graph.vertex_count(); ++v) {
            const std::int32_t lv = queue.levels[v];
            if (lv == U) continue;
            ++labelled;
            max_level = std::max(max_level, lv);
            bool has_parent = lv == 0;
            for (std::uint32_t e = graph.offsets[v]; e < graph.offsets[v + 1]; ++e) {
                const std::int32_t lw = queue.levels[graph.targets[e]];
                ASSERT_NE(lw, U);
                ASSERT_LE(std::abs(lw - lv), 1);
                has_parent = has_parent || lw == lv - 1;
            }
            ASSERT_TRUE(has_parent);
        }
        EXPECT_EQ(queue.visited, labelled);
        EXPECT_EQ(queue.depth, max_level + 1);
    }
}

TEST(BfsCpu, StopAtCompletesItsLevel) {
    Lcg pick(11);
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const GridMap map = random_map(48, 40, 0.25, seed);
        const CsrGraph graph = bfs_graph(map);
        const Vertex target = random_passable(map, pick);
        const BfsOutput full = bfs_queue(graph, target, kNoVertex);
        for (int trial = 0; trial < 4; ++trial) {
            const Vertex stop = random_passable(map, pick);
            const std::int32_t stop_level = full.levels[stop];
            std::vector<std::int32_t> expected = full.levels;
            std::int32_t depth = 0;
            std::uint64_t visited = 0;
            if (stop_level != U) {
                for (auto& l : expected)
                    if (l > stop_level) l = U;
                depth = stop_level + 1;
            } else {
                depth = full.depth;
            }
            for (auto l : expected) visited += l != U;
            SCOPED_TRACE("seed " + std::to_string(seed) + " stop level " + std::to_string(stop_level));
            expect_levels(bfs_sweep(graph, target, stop), expected, depth, visited);
            expect_levels(bfs_queue(graph, target, stop), expected, depth, visited);
        }
        std::vector<std::int32_t> only_target(graph.vertex_count(), U);
        only_target[target] = 0;
        expect_levels(bfs_sweep(graph, target, target), only_target, 1, 1);
        expect_levels(bfs_queue(graph, target, target), only_target, 1, 1);
    }
}

TEST(BfsCpu, PathFollowsDecreasingLevels) {
    const GridMap map = random_map(50, 50, 0.3, 42);
    const CsrGraph graph = bfs_graph(map);
    Lcg pick(3);
    const Vertex target = random_passable(map, pick);
    const BfsOutput out = bfs_sweep(graph, target, kNoVertex);
    int checked = 0;
    for (Vertex from = 0; from < graph.vertex_count(); ++from) {
        const std::vector<Vertex> path = bfs_path(graph, out.levels, from);
        if (out.levels[from] == U) {
            EXPECT_TRUE(path.empty());
            continue;
        }
        ++checked;
        ASSERT_EQ(path.size(), std::size_t(out.levels[from]) + 1);
        EXPECT_EQ(path.front(), from);
        EXPECT_EQ(path.back(), target);
        for (std::size_t i = 1; i < path.size(); ++i) {
            ASSERT_TRUE(is_grid_step(map, kFour, path[i - 1], path[i], nullptr));
            ASSERT_EQ(out.levels[path[i]], out.levels[path[i - 1]] - 1);
        }
    }
    EXPECT_GT(checked, 100);
    EXPECT_TRUE(bfs_path(graph, out.levels, Vertex(graph.vertex_count())).empty());
}

TEST(BfsCpu, PresetCancelFlagCancels) {
    const CsrGraph graph = bfs_graph(GridMap(32, 32));
    const std::atomic<bool> cancel{true};
    EXPECT_TRUE(bfs_sweep(graph, 0, kNoVertex, &cancel).cancelled);
    EXPECT_TRUE(bfs_queue(graph, 0, kNoVertex, &cancel).cancelled);
    const std::atomic<bool> go_on{false};
    EXPECT_FALSE(bfs_sweep(graph, 0, kNoVertex, &go_on).cancelled);
    EXPECT_FALSE(bfs_queue(graph, 0, kNoVertex, &go_on).cancelled);
}

}  // namespace
}  // namespace ps
