// The dead-end forest (kernels/search/dead_ends.hpp) against the CPU A* on the whole map: for
// random pairs on generated maps of every kind, odd sizes, 4- and 8-connected and the three
// corner rules, a tree query's cost and path, and a core query's tree part plus an A* on the
// core map alone, equal A* on the map; hand-worked peeling on small maps.
#include <gtest/gtest.h>

#include "kernels/search/cpu_search.hpp"
#include "kernels/search/dead_ends.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

// The forest's answer for (s, g), completed by a CPU A* on the core map where it needs one.
double forest_cost(const DeadEndForest& f, const GridSearchSpec& spec, Vertex s, Vertex g) {
    const ForestQuery q = forest_query(f, s, g);
    if (q.kind == ForestQuery::Kind::Unreachable) return -1;
    const double tree = q.steps.cost(spec.cost_mode);
    if (q.kind == ForestQuery::Kind::TreePath) return tree;
    const SearchOutput core = astar_grid(f.core_map, spec, q.core_start, q.core_goal);
    return core.found ? core.cost + tree : -1;
}

TEST(DeadEnds, HandWorkedTreeAndLoop) {
    // 4-connected. Bottom: the six cells x 2..4 of rows 3-4 form the only cycles; corridors of
    // two cells hang from (2,3) and (4,3), and (2,2), (4,2) from them too. Top: row 0 with two
    // stubs is a tree on its own (no core: it peels away entirely).
    const auto map = test::shared_map({
        "......#",
        "#.###.#",
        "##.#.##",
        ".......",
        "##...##",
    });
    const MoveRules four{Connectivity::Four, CornerRule::None};
    const DeadEndForest f = build_dead_end_forest(*map, four);
    EXPECT_EQ(f.core_cells, 6u);
    for (const Cell c : {Cell{2, 3}, Cell{3, 3}, Cell{4, 3}, Cell{2, 4}, Cell{3, 4}, Cell{4, 4}})
        EXPECT_TRUE(f.core[map->index(c)]) << c.x << "," << c.y;
    EXPECT_EQ(f.peeled + f.core_cells, map->passable_count());
    EXPECT_EQ(f.root[map->index(0, 3)], map->index(2, 3));
    EXPECT_EQ(f.depth[map->index(0, 3)], 2u);
    EXPECT_EQ(f.root[map->index(6, 3)], map->index(4, 3));
    EXPECT_EQ(f.root[map->index(2, 2)], map->index(2, 3));
    EXPECT_FALSE(f.core[f.root[map->index(0, 0)]]);  // the top tree's last cell is no core cell
    // (0,3) -> (6,3): 2 up the left corridor, 2 across the core, 2 down the right one.
    const ForestQuery across = forest_query(f, map->index(0, 3), map->index(6, 3));
    ASSERT_EQ(across.kind, ForestQuery::Kind::CoreSearch);
    EXPECT_EQ(across.steps.orthogonal, 4u);
    EXPECT_EQ(forest_query(f, map->index(0, 0), map->index(3, 4)).kind, ForestQuery::Kind::Unreachable);
    const GridSearchSpec spec{four, CostMode::Integer, Heuristic::Octile};
    for (Vertex s = 0; s < map->cell_count(); ++s)
        for (Vertex g = 0; g < map->cell_count(); ++g) {
            if (!map->passable(s) || !map->passable(g)) continue;
            const SearchOutput cpu = astar_grid(*map, spec, s, g);
            EXPECT_EQ(forest_cost(f, spec, s, g), cpu.found ? cpu.cost : -1.0) << s << " -> " << g;
        }
}

TEST(DeadEnds, CorridorOfOneCellPeelsCompletely) {
    const auto map = test::shared_map({
        ".....",
        "####.",
        "...#.",
        ".#...",
    });
    const MoveRules eight{Connectivity::Eight, CornerRule::None};
    const DeadEndForest f = build_dead_end_forest(*map, eight);
    EXPECT_EQ(f.core_cells, 0u);
    EXPECT_EQ(f.peeled, map->passable_count());
    const Vertex s = map->index(0, 0), g = map->index(0, 3);
    const ForestQuery q = forest_query(f, s, g);
    ASSERT_EQ(q.kind, ForestQuery::Kind::TreePath);
    // The tree path is the only path: its steps are what A* finds, and it is a legal walk.
    const SearchOutput cpu = astar_grid(*map, {eight, CostMode::Integer, Heuristic::Octile}, s, g);
    ASSERT_TRUE(cpu.found);
    EXPECT_EQ(q.steps.cost(CostMode::Integer), cpu.cost);
    const std::vector<Vertex> path = tree_path(f, s, g);
    EXPECT_EQ(path.front(), s);
    EXPECT_EQ(path.back(), g);
    double sum = 0;
    for (std::size_t i = 1; i < path.size(); ++i) {
        bool diagonal = false;
        ASSERT_TRUE(is_grid_step(*map, eight, path[i - 1], path[i], &diagonal));
        sum += diagonal ? 1414 : 1000;
    }
    EXPECT_EQ(sum, cpu.cost);
}

TEST(DeadEnds, EqualsAStarOnGeneratedMapsUnderEveryRule) {
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        test::generated(GeneratorKind::Maze, 101, 67, 4, 0.0, 1),
        test::generated(GeneratorKind::Maze, 83, 91, 5, 0.0, 2),
        test::generated(GeneratorKind::Division, 77, 59, 6),
        test::generated(GeneratorKind::Random, 61, 47, 2, 0.35),
        test::generated(GeneratorKind::Rectangles, 90, 71, 3, 0.3),
        test::generated(GeneratorKind::Noise, 75, 63, 9, 0.45),
        std::make_shared<const GridMap>(test::random_map(57, 41, 0.45, 11)),
    };
    const std::vector<MoveRules> rules = {{Connectivity::Four, CornerRule::None},
                                          {Connectivity::Eight, CornerRule::None},
                                          {Connectivity::Eight, CornerRule::One},
                                          {Connectivity::Eight, CornerRule::Any}};
    std::uint64_t seed = 1;
    std::size_t tree_queries = 0, core_queries = 0;
    for (const auto& map : maps)
        for (const MoveRules r : rules) {
            const DeadEndForest f = build_dead_end_forest(*map, r);
            for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
                const GridSearchSpec spec{r, mode, Heuristic::Octile};
                test::Lcg rng(seed++);
                for (int i = 0; i < 40; ++i) {
                    const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
                    const SearchOutput cpu = astar_grid(*map, spec, s, g);
                    const double got = forest_cost(f, spec, s, g);
                    SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()) + " " +
                                 std::string(to_string(r.corners)) + (mode == CostMode::Real ? " real" : " integer"));
                    if (!cpu.found) {
                        EXPECT_EQ(got, -1.0);
                    } else {
                        EXPECT_NEAR(got, cpu.cost, 1e-9 * std::max(1.0, cpu.cost));
                    }
                    const auto kind = forest_query(f, s, g).kind;
                    tree_queries += kind == ForestQuery::Kind::TreePath;
                    core_queries += kind == ForestQuery::Kind::CoreSearch;
                }
            }
        }
    // Both kinds of answers were exercised.
    EXPECT_GT(tree_queries, 100u);
    EXPECT_GT(core_queries, 100u);
}

TEST(DeadEnds, PerfectMazeHasNoCore) {
    // The backtracking maze generator makes perfect mazes (no cycle): nothing survives.
    const auto map = test::generated(GeneratorKind::Maze, 99, 73, 7, 0.0, 1);
    const DeadEndForest f = build_dead_end_forest(*map, {Connectivity::Eight, CornerRule::None});
    EXPECT_EQ(f.core_cells, 0u);
    EXPECT_EQ(f.core_map.passable_count(), 0u);
}

}  // namespace
}  // namespace ps
