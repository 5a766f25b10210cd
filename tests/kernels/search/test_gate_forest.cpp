// The gate forest (kernels/search/gate_forest.hpp) against the CPU A* on the whole map: for
// random pairs on generated maps of every kind, corridors 1 to 5 wide, odd sizes, 4- and
// 8-connected under the three corner rules and both metrics, A* on the kept cells alone finds
// the whole map's cost; hand-worked gates, regions and pruning on small maps.
#include <gtest/gtest.h>

#include "kernels/search/cpu_search.hpp"
#include "kernels/search/gate_forest.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

// The map with every cell of an unkept node blocked.
GridMap kept_map(const GridMap& map, const GateForest& f, const KeptNodes& keep) {
    GridMap out = map;
    for (Vertex v = 0; v < map.cell_count(); ++v)
        if (map.passable(v) && !keep.node[f.node_of[v]]) {
            const Cell c = map.cell(v);
            out.set_passable(c.x, c.y, false);
        }
    return out;
}

const MoveRules kFour{Connectivity::Four, CornerRule::None};
const MoveRules kEight{Connectivity::Eight, CornerRule::None};

TEST(GateForest, HandWorkedGatesRegionsAndPruning) {
    // A corridor two cells wide (rows 1-2) from a room on the left (x 0..3, rows 0..3) to the
    // right; a dead-end room of 3x2 (x 6..8, rows 4..5) hangs below it through a gate of two
    // cells (x 6..7, row 3: the run "..").
    const auto map = test::shared_map({
        "....######",
        "..........",
        "..........",
        "....##..##",
        "######...#",
        "######...#",
    });
    const GateForest f = build_gate_forest(*map, kEight, 2);
    // Gates: the run x 6..7 of row 3; the vertical two-cell runs of rows 1-2 in columns 4, 5, 8
    // and 9 (columns 6 and 7 run on through row 3 to row 5); and column 8's run of rows 4-5.
    const std::uint32_t door = f.node_of[map->index(6, 3)];
    EXPECT_TRUE(f.gate[door]);
    EXPECT_EQ(f.node_of[map->index(7, 3)], door);
    for (const int x : {4, 5, 8, 9}) {
        const std::uint32_t k = f.node_of[map->index(x, 1)];
        EXPECT_TRUE(f.gate[k]) << x;
        EXPECT_EQ(f.node_of[map->index(x, 2)], k) << x;
    }
    EXPECT_TRUE(f.gate[f.node_of[map->index(8, 4)]]);
    EXPECT_EQ(f.gates, 6u);
    // Regions: the left room, the cells x 6..7 of rows 1-2, and the bottom room.
    EXPECT_EQ(f.regions, 3u);
    EXPECT_FALSE(f.gate[f.node_of[map->index(0, 0)]]);
    EXPECT_EQ(f.node_of[map->index(6, 1)], f.node_of[map->index(7, 2)]);
    // It is a perfect maze of nodes: a chain with the bottom room hanging off it.
    EXPECT_TRUE(f.core_nodes.empty());
    // From the left room to the right end: the bottom room is pruned, its gate is kept (the
    // path may cut through it), and A* on what is kept finds the map's cost.
    KeptNodes keep(f);
    const Vertex s = map->index(0, 3), g = map->index(9, 1);
    ASSERT_TRUE(keep_for_query(f, s, g, keep));
    EXPECT_FALSE(keep.node[f.node_of[map->index(7, 5)]]);
    EXPECT_TRUE(keep.node[door]);
    EXPECT_EQ(kept_cells(f, keep), map->passable_count() - 6);
    const GridSearchSpec spec{kEight, CostMode::Integer, Heuristic::Octile};
    const SearchOutput whole = astar_grid(*map, spec, s, g);
    const SearchOutput pruned = astar_grid(kept_map(*map, f, keep), spec, s, g);
    ASSERT_TRUE(whole.found);
    ASSERT_TRUE(pruned.found);
    EXPECT_EQ(pruned.cost, whole.cost);
    // The node path: left room, the gates of columns 4 and 5, the middle, columns 8 and 9.
    const std::vector<std::uint32_t> path = tree_node_path(f, s, g);
    const std::vector<std::uint32_t> expected = {f.node_of[map->index(0, 0)], f.node_of[map->index(4, 1)],
                                                 f.node_of[map->index(5, 1)], f.node_of[map->index(6, 1)],
                                                 f.node_of[map->index(8, 1)], f.node_of[map->index(9, 1)]};
    EXPECT_EQ(path, expected);
    // A blocked cell: unreachable by the forest alone.
    KeptNodes none(f);
    EXPECT_FALSE(keep_for_query(f, map->index(9, 0), g, none));
}

TEST(GateForest, LoopKeepsTheWholeCore) {
    // 4-connected: a ring around a block (the core) with a stub of two one-cell gates, (1, 2)
    // and (0, 2), hanging from the ring's region (2, 2). A query between two cells of the ring
    // keeps the core.
    const auto map = test::shared_map({
        "##.....#",
        "##.###.#",
        "...###.#",
        "##.###.#",
        "##.....#",
    });
    const GateForest f = build_gate_forest(*map, kFour, 1);
    EXPECT_FALSE(f.core_nodes.empty());
    KeptNodes keep(f);
    ASSERT_TRUE(keep_for_query(f, map->index(2, 1), map->index(6, 3), keep));
    EXPECT_TRUE(keep.whole_core);
    EXPECT_TRUE(tree_node_path(f, map->index(2, 1), map->index(6, 3)).empty());
    // The stub hangs from the core: its gate next to the ring's region is kept, the rest pruned.
    EXPECT_FALSE(f.gate[f.node_of[map->index(2, 2)]]);
    EXPECT_TRUE(keep.node[f.node_of[map->index(1, 2)]]);
    EXPECT_FALSE(keep.node[f.node_of[map->index(0, 2)]]);
    const GridSearchSpec spec{kFour, CostMode::Integer, Heuristic::Octile};
    for (Vertex s = 0; s < map->cell_count(); ++s)
        for (Vertex g = 0; g < map->cell_count(); ++g) {
            if (!map->passable(s) || !map->passable(g)) continue;
            KeptNodes k(f);
            ASSERT_TRUE(keep_for_query(f, s, g, k));
            const SearchOutput whole = astar_grid(*map, spec, s, g);
            const SearchOutput pruned = astar_grid(kept_map(*map, f, k), spec, s, g);
            EXPECT_EQ(pruned.cost, whole.cost) << s << " -> " << g;
        }
}

TEST(GateForest, PerfectMazesOfEveryCorridorWidthHaveNoCore) {
    // The backtracking maze generator makes perfect mazes: with gates as wide as the corridors,
    // every node peels, and a query keeps its corridor, not the maze.
    for (const int corridor : {1, 2, 4, 5}) {
        const auto map = test::generated(GeneratorKind::Maze, 203, 161, 3, 0.0, corridor);
        const GateForest f = build_gate_forest(*map, kEight, corridor);
        EXPECT_TRUE(f.core_nodes.empty()) << corridor;
        test::Lcg rng{std::uint64_t(corridor)};
        std::size_t kept = 0;
        for (int i = 0; i < 20; ++i) {
            KeptNodes keep(f);
            ASSERT_TRUE(keep_for_query(f, test::random_passable(*map, rng), test::random_passable(*map, rng), keep));
            kept += kept_cells(f, keep);
        }
        EXPECT_LT(kept / 20, map->passable_count() / 3) << corridor;
    }
}

// gate_width=auto's two steps, by hand: walls every third column leave corridors two cells
// wide (every horizontal run 2, every vertical run the map's height): the horizontal share is
// 1 and the vertical one 0. Open ground: no short run, and one region that peels whole as a
// single node, so nothing is pruned.
TEST(GateForest, AutoStepsByHand) {
    GridMap columns(30, 40);
    for (int x = 2; x < 30; x += 3)
        for (int y = 0; y < 40; ++y) columns.set_passable(x, y, false);
    EXPECT_DOUBLE_EQ(short_run_share(columns, 8), 1.0);
    EXPECT_DOUBLE_EQ(short_run_share(columns, 1), 0.0);  // runs of 2 are wider than 1
    EXPECT_DOUBLE_EQ(long_wall_share(columns), 1.0);     // walls of 40 cells
    // Blocked cells alone or in pairs are short walls; a run of 3 along a column is long.
    GridMap specks(12, 9);
    specks.set_passable(1, 1, false);  // alone: short
    specks.set_passable(4, 1, false);  // a pair along the row: short
    specks.set_passable(5, 1, false);
    for (int y = 3; y < 6; ++y) specks.set_passable(8, y, false);  // a column of 3: long
    EXPECT_DOUBLE_EQ(long_wall_share(specks), 3.0 / 6.0);
    // Each row's run of 2 is a gate (horizontal runs first): 400 gates of 2 cells, the ten
    // corridors ten paths of 40 gates that peel whole; the largest node holds 2 of 800 free cells.
    const GateForest f = build_gate_forest(columns, kEight, 8);
    EXPECT_EQ(f.gates, 400u);
    EXPECT_EQ(f.core_cells, 0u);
    EXPECT_DOUBLE_EQ(pruned_share(f), 1.0 - 2.0 / 800.0);

    const GridMap open(50, 30);
    EXPECT_DOUBLE_EQ(short_run_share(open, 8), 0.0);
    EXPECT_DOUBLE_EQ(pruned_share(build_gate_forest(open, kEight, 8)), 0.0);  // one region of every cell
    EXPECT_DOUBLE_EQ(short_run_share(GridMap(20, 20, false), 8), 0.0);        // no free cell
    EXPECT_DOUBLE_EQ(long_wall_share(open), 0.0);                             // no blocked cell
}

// The two steps on generated maps, with the thresholds gate_width=auto uses: perfect mazes of
// corridors 1 to 8 pass both (maps past 128 rows and columns are sampled, at odd sizes whose
// periods a fixed stride would alias), rooms and noise maps fail the first, maps of random
// obstacles fail the first on their short walls (and the second on their cycles).
TEST(GateForest, AutoPicksMazesOnly) {
    for (const int corridor : {1, 2, 4, 8}) {
        for (const int size : {97, 301, 515}) {
            const auto maze = test::generated(GeneratorKind::Maze, size, size + 14, 5, 0.0, corridor);
            SCOPED_TRACE("maze " + std::to_string(size) + " corridor " + std::to_string(corridor));
            EXPECT_GE(short_run_share(*maze, kAutoGateWidth), kMazeRunShare);
            EXPECT_GE(long_wall_share(*maze), kMazeWallShare);
            EXPECT_GE(pruned_share(build_gate_forest(*maze, kEight, kAutoGateWidth)), kMazePrunedShare);
        }
    }
    for (const auto& map : {test::generated(GeneratorKind::Rooms, 301, 257, 3, 0.5),
                            test::generated(GeneratorKind::Noise, 263, 311, 4, 0.2)}) {
        EXPECT_LT(short_run_share(*map, kAutoGateWidth), kMazeRunShare);
        EXPECT_LT(pruned_share(build_gate_forest(*map, kEight, kAutoGateWidth)), kMazePrunedShare);
    }
    // Random obstacles pass 1a (from 30%), fail 1b on their short walls, and step 2 on their cycles.
    for (const double density : {0.1, 0.3, 0.4}) {
        SCOPED_TRACE(density);
        const auto random = test::generated(GeneratorKind::Random, 283, 241, 6, density);
        if (density >= 0.3) {
            EXPECT_GE(short_run_share(*random, kAutoGateWidth), kMazeRunShare);
        }
        EXPECT_LT(long_wall_share(*random), kMazeWallShare);
        EXPECT_LT(pruned_share(build_gate_forest(*random, kEight, kAutoGateWidth)), kMazePrunedShare);
    }
}

// The pass over a query's pieces, by hand: start, two cut gates of two cells each, goal. Legs
// (row-major per pair of layers): s-A0 3, s-A1 1; A0-B0 1, A0-B1 5, A1-B0 4, A1-B1 unreachable;
// B0-g 2, B1-g 1. Chains: A0 B0 6, A0 B1 9, A1 B0 7, A1 B1 none: 6 through A0 and B0. Then
// cheaper ways through A1 and B1; no way into the goal; and one leg, no cut.
TEST(GateForest, LeastThroughLayersByHand) {
    const std::vector<std::size_t> sizes{1, 2, 2, 1}, first{0, 2, 6};
    ThroughLayers t = least_through(sizes, first, {3, 1, 1, 5, 4, -1, 2, 1});
    EXPECT_DOUBLE_EQ(t.cost, 6.0);
    EXPECT_EQ(t.cell, (std::vector<std::size_t>{0, 0, 0, 0}));
    t = least_through(sizes, first, {3, 1, 1, 5, 4, 0.5, 2, 1});  // A1-B1 now 0.5: 1 + 0.5 + 1
    EXPECT_DOUBLE_EQ(t.cost, 2.5);
    EXPECT_EQ(t.cell, (std::vector<std::size_t>{0, 1, 1, 0}));
    t = least_through(sizes, first, {3, 1, 1, 5, 4, 0.5, -1, -1});
    EXPECT_EQ(t.cost, -1.0);
    EXPECT_TRUE(t.cell.empty());
    t = least_through({1, 1}, {0}, {7});
    EXPECT_DOUBLE_EQ(t.cost, 7.0);
    EXPECT_EQ(t.cell, (std::vector<std::size_t>{0, 0}));
}

TEST(GateForest, EqualsAStarOnGeneratedMapsUnderEveryRule) {
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        test::generated(GeneratorKind::Maze, 101, 67, 4, 0.0, 1),
        test::generated(GeneratorKind::Maze, 123, 91, 5, 0.0, 2),
        test::generated(GeneratorKind::Maze, 131, 117, 6, 0.0, 4),
        test::generated(GeneratorKind::Maze, 97, 103, 7, 0.0, 3),
        test::generated(GeneratorKind::Division, 77, 59, 6),
        test::generated(GeneratorKind::Rooms, 129, 97, 8, 0.5),
        test::generated(GeneratorKind::Random, 61, 47, 2, 0.35),
        test::generated(GeneratorKind::Rectangles, 90, 71, 3, 0.3),
        test::generated(GeneratorKind::Noise, 75, 63, 9, 0.45),
        std::make_shared<const GridMap>(test::random_map(57, 41, 0.45, 11)),
    };
    const std::vector<MoveRules> rules = {
        kFour, kEight, {Connectivity::Eight, CornerRule::One}, {Connectivity::Eight, CornerRule::Any}};
    std::uint64_t seed = 1;
    std::size_t pruned_queries = 0, core_queries = 0, queries = 0;
    for (const auto& map : maps)
        for (const MoveRules r : rules)
            for (const int width : {1, 3, 6}) {
                const GateForest f = build_gate_forest(*map, r, width);
                for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
                    const GridSearchSpec spec{r, mode, Heuristic::Octile};
                    test::Lcg rng(seed++);
                    for (int i = 0; i < 12; ++i) {
                        const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
                        SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()) + " width " +
                                     std::to_string(width) + " " + std::string(to_string(r.corners)) +
                                     (r.connectivity == Connectivity::Four ? " 4-connected" : "") +
                                     (mode == CostMode::Real ? " real" : " integer"));
                        const SearchOutput whole = astar_grid(*map, spec, s, g);
                        KeptNodes keep(f);
                        if (!keep_for_query(f, s, g, keep)) {
                            EXPECT_FALSE(whole.found);
                            EXPECT_FALSE(keeps_whole_core(f, s, g));
                            continue;
                        }
                        EXPECT_EQ(keeps_whole_core(f, s, g), keep.whole_core);
                        const GridMap kept = kept_map(*map, f, keep);
                        const SearchOutput pruned = astar_grid(kept, spec, s, g);
                        ASSERT_EQ(pruned.found, whole.found);
                        if (whole.found) {
                            EXPECT_NEAR(pruned.cost, whole.cost, 1e-9 * std::max(1.0, whole.cost));
                        }
                        ++queries;
                        pruned_queries += kept.passable_count() < map->passable_count();
                        core_queries += keep.whole_core;
                    }
                }
            }
    // Both kinds of query were exercised, and most pruned something.
    EXPECT_GT(core_queries, 200u);
    EXPECT_GT(pruned_queries, queries / 2);
}

TEST(GateForest, EveryGateInsideATreePathSeparatesStartFromGoal) {
    // What the pieces of block A* rest on: for a tree query, d(s, g) = min over the cells y of any
    // gate strictly inside its node path of d(s, y) + d(y, g), distances by A* on the whole map.
    std::size_t checked = 0;
    for (const auto& [map, width] : std::vector<std::pair<std::shared_ptr<const GridMap>, int>>{
             {test::generated(GeneratorKind::Maze, 131, 117, 6, 0.0, 4), 4},
             {test::generated(GeneratorKind::Maze, 97, 103, 7, 0.0, 3), 3},
             {test::generated(GeneratorKind::Rooms, 129, 97, 8, 0.5), 6}})
        for (const MoveRules r : {kEight, kFour, MoveRules{Connectivity::Eight, CornerRule::Any}}) {
            const GateForest f = build_gate_forest(*map, r, width);
            const GridSearchSpec spec{r, CostMode::Real, Heuristic::Octile};
            test::Lcg rng{std::uint64_t(width) * 31 + std::uint64_t(r.corners)};
            for (int i = 0; i < 12; ++i) {
                const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
                const std::vector<std::uint32_t> path = tree_node_path(f, s, g);
                if (path.size() < 3) continue;
                const SearchOutput whole = astar_grid(*map, spec, s, g);
                ASSERT_TRUE(whole.found);
                for (const std::size_t at : {std::size_t(1), path.size() / 2, path.size() - 2}) {
                    const std::uint32_t k = path[at];
                    if (!f.gate[k]) continue;
                    double best = -1;
                    for (std::uint32_t c = f.cell_begin[k]; c < f.cell_begin[k + 1]; ++c) {
                        const SearchOutput a = astar_grid(*map, spec, s, f.cells[c]);
                        const SearchOutput b = astar_grid(*map, spec, f.cells[c], g);
                        ASSERT_TRUE(a.found && b.found);
                        if (best < 0 || a.cost + b.cost < best) best = a.cost + b.cost;
                    }
                    EXPECT_NEAR(best, whole.cost, 1e-9 * whole.cost);
                    ++checked;
                }
            }
        }
    EXPECT_GT(checked, 40u);
}

TEST(GateForest, UnionOfQueriesStaysExact) {
    // A batch searches the union of its queries' kept nodes: a superset of each query's.
    const auto map = test::generated(GeneratorKind::Rooms, 150, 121, 4, 0.4);
    const GateForest f = build_gate_forest(*map, kEight, 4);
    test::Lcg rng(9);
    std::vector<std::pair<Vertex, Vertex>> pairs;
    KeptNodes keep(f);
    for (int i = 0; i < 8; ++i) {
        pairs.emplace_back(test::random_passable(*map, rng), test::random_passable(*map, rng));
        keep_for_query(f, pairs.back().first, pairs.back().second, keep);
    }
    const GridMap kept = kept_map(*map, f, keep);
    const GridSearchSpec spec{kEight, CostMode::Real, Heuristic::Octile};
    for (const auto& [s, g] : pairs) {
        const SearchOutput whole = astar_grid(*map, spec, s, g), pruned = astar_grid(kept, spec, s, g);
        ASSERT_EQ(pruned.found, whole.found);
        if (whole.found) {
            EXPECT_NEAR(pruned.cost, whole.cost, 1e-9 * whole.cost);
        }
    }
}

}  // namespace
}  // namespace ps
