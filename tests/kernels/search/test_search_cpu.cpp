// CPU A* / Dijkstra / bidirectional A*: hand-worked costs, movement rules, the MovingAI
// scenario lengths, agreement between algorithms and between grid and CSR versions,
// unreachable and invalid endpoints, recordings and cancellation.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <utility>
#include <string>
#include <vector>

#include "kernels/search/cpu_search.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/grid_map.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/base/recording.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

constexpr MoveRules kMovingAi{Connectivity::Eight, CornerRule::None};
constexpr MoveRules kCutting{Connectivity::Eight, CornerRule::One};
constexpr MoveRules kAny{Connectivity::Eight, CornerRule::Any};
constexpr MoveRules kFour{Connectivity::Four, CornerRule::None};
constexpr double kInf = std::numeric_limits<double>::infinity();

using test::Lcg;
using test::map_from_rows;
using test::random_map;
using test::random_passable;

GridSearchSpec spec_of(MoveRules rules, CostMode mode, Heuristic h) {
    GridSearchSpec spec;
    spec.rules = rules;
    spec.cost_mode = mode;
    spec.heuristic = h;
    return spec;
}

// Independent of the search: the path is a chain of legal steps from start to goal, and its
// step costs add up to the reported cost (exactly in integer mode).
::testing::AssertionResult valid_grid_path(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal,
                                           const SearchOutput& out) {
    if (!out.found) return ::testing::AssertionFailure() << "no path found";
    if (out.path.empty() || out.path.front() != start || out.path.back() != goal)
        return ::testing::AssertionFailure() << "path does not run from start to goal";
    double sum = 0.0;
    for (std::size_t i = 1; i < out.path.size(); ++i) {
        bool diagonal = false;
        if (!is_grid_step(map, spec.rules, out.path[i - 1], out.path[i], &diagonal))
            return ::testing::AssertionFailure()
                   << "illegal step " << i << " from " << out.path[i - 1] << " to " << out.path[i];
        sum += step_cost(spec.cost_mode, diagonal);
    }
    const double tolerance = spec.cost_mode == CostMode::Integer ? 0.0 : 1e-9 * std::max(1.0, out.cost);
    if (std::abs(sum - out.cost) > tolerance)
        return ::testing::AssertionFailure() << "steps add up to " << sum << " but the cost is " << out.cost;
    return ::testing::AssertionSuccess();
}

struct Triple {
    SearchOutput astar, dijkstra, bidir;
};

Triple run_three(const GridMap& map, MoveRules rules, CostMode mode, Vertex start, Vertex goal) {
    return {astar_grid(map, spec_of(rules, mode, Heuristic::Octile), start, goal),
            astar_grid(map, spec_of(rules, mode, Heuristic::Zero), start, goal),
            astar_bidir_grid(map, spec_of(rules, mode, Heuristic::Octile), start, goal)};
}

// ---------------------------------------------------------------------------------------------

TEST(SearchHeuristic, ValuesAndNames) {
    const Cell a{0, 0};
    const Cell b{5, 3};
    EXPECT_EQ(grid_heuristic(Heuristic::Zero, CostMode::Real, a, b), 0.0);
    EXPECT_EQ(grid_heuristic(Heuristic::Manhattan, CostMode::Real, a, b), 8.0);
    EXPECT_EQ(grid_heuristic(Heuristic::Manhattan, CostMode::Integer, a, b), 8000.0);
    EXPECT_DOUBLE_EQ(grid_heuristic(Heuristic::Octile, CostMode::Real, a, b), 3 * kSqrt2 + 2);
    EXPECT_EQ(grid_heuristic(Heuristic::Octile, CostMode::Integer, b, a), 3 * 1414 + 2 * 1000);
    EXPECT_DOUBLE_EQ(grid_heuristic(Heuristic::Euclidean, CostMode::Real, a, b), std::sqrt(34.0));
    EXPECT_DOUBLE_EQ(grid_heuristic(Heuristic::Euclidean, CostMode::Integer, a, b), std::sqrt(34.0) * 1414 / kSqrt2);
    for (Heuristic h : {Heuristic::Zero, Heuristic::Manhattan, Heuristic::Euclidean, Heuristic::Octile})
        EXPECT_EQ(parse_heuristic(to_string(h)), h);
    EXPECT_EQ(parse_heuristic("Octile"), Heuristic::Octile);
    EXPECT_FALSE(parse_heuristic("chebyshev").has_value());
}

// Octile and (scaled) Euclidean never drop by more than a step's cost: A* may stop at the goal.
TEST(SearchHeuristic, OctileAndEuclideanAreConsistent) {
    const GridMap map(40, 40);
    Lcg rng(5);
    for (CostMode mode : {CostMode::Real, CostMode::Integer})
        for (Heuristic h : {Heuristic::Octile, Heuristic::Euclidean})
            for (int i = 0; i < 300; ++i) {
                const Cell t = map.cell(rng.below(1600));
                const Vertex v = rng.below(1600);
                for_each_grid_neighbour(map, kAny, v, [&](Vertex w, bool diagonal) {
                    const double drop =
                        grid_heuristic(h, mode, map.cell(v), t) - grid_heuristic(h, mode, map.cell(w), t);
                    ASSERT_LE(drop, step_cost(mode, diagonal) * (1 + 1e-12));
                });
            }
}

TEST(SearchCpu, HandWorkedEmptyMapCosts) {
    const GridMap map(6, 4);
    const Vertex s = map.index(0, 0);
    const Vertex g = map.index(5, 3);
    // Three diagonals and two straight steps.
    const Triple integer = run_three(map, kMovingAi, CostMode::Integer, s, g);
    for (const SearchOutput* out : {&integer.astar, &integer.dijkstra, &integer.bidir}) {
        EXPECT_EQ(out->cost, 3 * 1414 + 2 * 1000);
        EXPECT_TRUE(valid_grid_path(map, spec_of(kMovingAi, CostMode::Integer, Heuristic::Zero), s, g, *out));
        EXPECT_EQ(out->path.size(), 6u);
    }
    const Triple real = run_three(map, kMovingAi, CostMode::Real, s, g);
    for (const SearchOutput* out : {&real.astar, &real.dijkstra, &real.bidir})
        EXPECT_NEAR(out->cost, 3 * kSqrt2 + 2, 1e-12);
    // On an empty map the octile heuristic is exact: A* expands only the path.
    EXPECT_EQ(integer.astar.expanded, 6u);
    EXPECT_GT(integer.dijkstra.expanded, integer.astar.expanded);
}

TEST(SearchCpu, CornerCuttingChangesTheCost) {
    // Around the end of a wall: without corner cutting the path must pass the corners
    // orthogonally; with it, two diagonals shave them.
    const GridMap map = map_from_rows({
        ".....",
        ".@@@.",
        ".....",
    });
    const Vertex s = map.index(2, 0);
    const Vertex g = map.index(2, 2);
    const struct {
        MoveRules rules;
        double cost;
    } cases[] = {{kMovingAi, 6000}, {kCutting, 2000 + 2 * 1414}, {kFour, 6000}};
    for (const auto& c : cases) {
        const Triple t = run_three(map, c.rules, CostMode::Integer, s, g);
        for (const SearchOutput* out : {&t.astar, &t.dijkstra, &t.bidir}) {
            EXPECT_EQ(out->cost, c.cost);
            EXPECT_TRUE(valid_grid_path(map, spec_of(c.rules, CostMode::Integer, Heuristic::Zero), s, g, *out));
        }
    }

    const GridMap corner = map_from_rows({".@", ".."});
    const Vertex a = corner.index(0, 0);
    const Vertex b = corner.index(1, 1);
    EXPECT_EQ(astar_grid(corner, spec_of(kMovingAi, CostMode::Real, Heuristic::Octile), a, b).cost, 2.0);
    EXPECT_EQ(astar_grid(corner, spec_of(kCutting, CostMode::Real, Heuristic::Octile), a, b).cost, kSqrt2);

    EXPECT_EQ(astar_grid(corner, spec_of(kAny, CostMode::Real, Heuristic::Octile), a, b).cost, kSqrt2);

    // Squeezing between two diagonal walls needs the any rule.
    const GridMap squeeze = map_from_rows({".@", "@."});
    for (MoveRules rules : {kMovingAi, kCutting}) {
        const Triple t = run_three(squeeze, rules, CostMode::Real, a, b);
        EXPECT_FALSE(t.astar.found);
        EXPECT_FALSE(t.dijkstra.found);
        EXPECT_FALSE(t.bidir.found);
    }
    const Triple through = run_three(squeeze, kAny, CostMode::Real, a, b);
    for (const SearchOutput* out : {&through.astar, &through.dijkstra, &through.bidir}) {
        EXPECT_EQ(out->cost, kSqrt2);
        EXPECT_EQ(out->path, (std::vector<Vertex>{a, b}));
    }
}

// One map, three answers: (0,0) -> (3,2) on
//   . . @ .
//   . @ . .
//   . . . .
// None: 5 orthogonal steps round the walls. One: S, SE past (1,1) with (0,2) free, E, E.
// Any: E, SE between the walls at (2,0) and (1,1), SE. Worked by hand in both metrics and in
// BFS levels (every step 1).
TEST(SearchCpu, TheThreeCornerRulesByHand) {
    const GridMap map = map_from_rows({"..@.", ".@..", "...."});
    const Vertex s = map.index(0, 0);
    const Vertex g = map.index(3, 2);
    const struct {
        MoveRules rules;
        double integer, real;
        std::int32_t levels;
    } cases[] = {
        {kMovingAi, 5000, 5.0, 5},
        {kCutting, 3 * 1000 + 1414, 3 + kSqrt2, 4},
        {kAny, 1000 + 2 * 1414, 1 + 2 * kSqrt2, 3},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(to_string(c.rules.corners)));
        for (CostMode mode : {CostMode::Integer, CostMode::Real}) {
            const double expected = mode == CostMode::Integer ? c.integer : c.real;
            const Triple t = run_three(map, c.rules, mode, s, g);
            auto graph = grid_to_csr(map, c.rules, mode);
            ASSERT_TRUE(graph.ok());
            const SearchOutput graph_astar = astar_graph(*graph, Heuristic::Octile, s, g);
            const SearchOutput graph_bidir = astar_bidir_graph(*graph, Heuristic::Octile, s, g);
            for (const SearchOutput* out : {&t.astar, &t.dijkstra, &t.bidir, &graph_astar, &graph_bidir}) {
                ASSERT_TRUE(out->found);
                EXPECT_NEAR(out->cost, expected, 1e-12);
                EXPECT_TRUE(valid_grid_path(map, spec_of(c.rules, mode, Heuristic::Zero), s, g, *out));
            }
        }
        auto unweighted = grid_to_csr(map, c.rules, std::nullopt);
        ASSERT_TRUE(unweighted.ok());
        EXPECT_EQ(bfs_queue(*unweighted, g, kNoVertex).levels[s], c.levels);
        EXPECT_EQ(bfs_sweep(*unweighted, g, kNoVertex).levels[s], c.levels);
    }
}

// Two diagonal walls through the middle of a 3x3: only the any rule gets from corner to corner,
// along the diagonal.
TEST(SearchCpu, OnlyTheAnyRuleCrossesTwoDiagonalWalls) {
    const GridMap map = map_from_rows({".@.", "@.@", ".@."});
    const Vertex s = map.index(0, 0);
    const Vertex g = map.index(2, 2);
    for (MoveRules rules : {kMovingAi, kCutting}) {
        const Triple t = run_three(map, rules, CostMode::Integer, s, g);
        for (const SearchOutput* out : {&t.astar, &t.dijkstra, &t.bidir}) EXPECT_FALSE(out->found);
        EXPECT_EQ(bfs_queue(grid_to_csr(map, rules, std::nullopt).value(), g, kNoVertex).levels[s], kUnreached);
    }
    for (CostMode mode : {CostMode::Integer, CostMode::Real}) {
        const Triple t = run_three(map, kAny, mode, s, g);
        for (const SearchOutput* out : {&t.astar, &t.dijkstra, &t.bidir}) {
            EXPECT_EQ(out->cost, 2 * step_cost(mode, true));
            EXPECT_EQ(out->path, (std::vector<Vertex>{s, map.index(1, 1), g}));
        }
    }
    EXPECT_EQ(bfs_queue(grid_to_csr(map, kAny, std::nullopt).value(), g, kNoVertex).levels[s], 2);
}

TEST(SearchCpu, UnreachableGoal) {
    const GridMap map = map_from_rows({
        ".....",
        ".@@@.",
        ".@.@.",
        ".@@@.",
        ".....",
    });
    for (MoveRules rules : {kMovingAi, kCutting, kFour}) {
        const Triple t = run_three(map, rules, CostMode::Real, map.index(0, 0), map.index(2, 2));
        for (const SearchOutput* out : {&t.astar, &t.dijkstra, &t.bidir}) {
            EXPECT_FALSE(out->found);
            EXPECT_EQ(out->cost, kInf);
            EXPECT_TRUE(out->path.empty());
            EXPECT_FALSE(out->cancelled);
        }
        // A one-directional search proves unreachability by closing the whole component.
        EXPECT_EQ(t.astar.expanded, 16u);
        EXPECT_EQ(t.dijkstra.expanded, 16u);
    }
}

TEST(SearchCpu, InvalidEndpoints) {
    const GridMap map = map_from_rows({
        ".@.",
        "...",
    });
    const Vertex blocked = map.index(1, 0);
    const Vertex free_cell = map.index(0, 0);
    const Vertex outside = Vertex(map.cell_count());
    auto graph = grid_to_csr(map, kMovingAi, CostMode::Real);
    ASSERT_TRUE(graph.ok());
    const GridSearchSpec spec = spec_of(kMovingAi, CostMode::Real, Heuristic::Octile);
    for (auto [s, g] : {std::pair{blocked, free_cell}, std::pair{free_cell, blocked}, std::pair{outside, free_cell},
                        std::pair{free_cell, outside}, std::pair{kNoVertex, kNoVertex}, std::pair{blocked, blocked}}) {
        for (const SearchOutput& out : {astar_grid(map, spec, s, g), astar_bidir_grid(map, spec, s, g)}) {
            EXPECT_FALSE(out.found);
            EXPECT_TRUE(out.path.empty());
            EXPECT_EQ(out.expanded, 0u);
        }
        // Blocked cells are isolated vertices in the graph, but ids out of range are invalid.
        if (s >= map.cell_count() || g >= map.cell_count()) {
            EXPECT_FALSE(astar_graph(*graph, Heuristic::Octile, s, g).found);
            EXPECT_FALSE(astar_bidir_graph(*graph, Heuristic::Octile, s, g).found);
        }
    }
}

TEST(SearchCpu, StartEqualsGoal) {
    const GridMap map(4, 4);
    const Vertex v = map.index(2, 1);
    auto graph = grid_to_csr(map, kMovingAi, CostMode::Integer);
    ASSERT_TRUE(graph.ok());
    const GridSearchSpec spec = spec_of(kMovingAi, CostMode::Integer, Heuristic::Octile);
    for (const SearchOutput& out :
         {astar_grid(map, spec, v, v), astar_bidir_grid(map, spec, v, v), astar_graph(*graph, Heuristic::Octile, v, v),
          astar_bidir_graph(*graph, Heuristic::Octile, v, v)}) {
        EXPECT_TRUE(out.found);
        EXPECT_EQ(out.cost, 0.0);
        EXPECT_EQ(out.path, std::vector<Vertex>{v});
    }
}

// ---------------------------------------------------------------------------------------------
// The MovingAI benchmark lengths (8-connected, no corner cutting, real costs).

// One test per map and algorithm, so ctest spreads the ~3000 scenarios over the cores.
struct SharedMap {
    const char* file;
    const char* algorithm;  // "astar", "dijkstra" or "bidir"
};

void PrintTo(const SharedMap& m, std::ostream* os) { *os << m.file << " " << m.algorithm; }

class SearchMovingAi : public ::testing::TestWithParam<SharedMap> {};

TEST_P(SearchMovingAi, ScenariosAreOptimal) {
    PS_REQUIRE_MOVINGAI();
    const std::string name = GetParam().file;
    const std::string algorithm = GetParam().algorithm;
    const std::string map_path = (test::movingai_dir() / name).string();
    const auto map = read_movingai_map(map_path);
    ASSERT_TRUE(map.ok()) << map.error().message;
    const auto file = read_movingai_scen(map_path + ".scen");
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_EQ(file->rejected_count, 0u);
    const std::vector<Scenario>& scenarios = file->scenarios;
    ASSERT_FALSE(scenarios.empty());

    const GridSearchSpec spec =
        spec_of(kMovingAi, CostMode::Real, algorithm == "dijkstra" ? Heuristic::Zero : Heuristic::Octile);
    for (const Scenario& sc : scenarios) {
        ASSERT_TRUE(check_scenario(sc, *map, name).ok());
        const Vertex s = map->index(sc.start);
        const Vertex g = map->index(sc.goal);
        const SearchOutput out =
            algorithm == "bidir" ? astar_bidir_grid(*map, spec, s, g) : astar_grid(*map, spec, s, g);
        SCOPED_TRACE(name + ".scen line " + std::to_string(sc.line) + " " + algorithm);
        ASSERT_TRUE(valid_grid_path(*map, spec, s, g, out));
        ASSERT_NEAR(out.cost, sc.optimal_length, 1e-4 * std::max(1.0, sc.optimal_length));
    }
}

INSTANTIATE_TEST_SUITE_P(SearchShared, SearchMovingAi,
                         ::testing::Values(SharedMap{"arena.map", "astar"}, SharedMap{"arena.map", "dijkstra"},
                                           SharedMap{"arena.map", "bidir"}, SharedMap{"den520d.map", "astar"},
                                           SharedMap{"den520d.map", "dijkstra"}, SharedMap{"den520d.map", "bidir"},
                                           SharedMap{"random512-10-0.map", "astar"},
                                           SharedMap{"random512-10-0.map", "dijkstra"},
                                           SharedMap{"random512-10-0.map", "bidir"}),
                         [](const ::testing::TestParamInfo<SharedMap>& param_info) {
                             std::string n = param_info.param.file;
                             n = n.substr(0, n.find('.'));
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n + "_" + param_info.param.algorithm;
                         });

// ---------------------------------------------------------------------------------------------

// Integer costs are exact, so every optimal algorithm must agree to the last unit, and the
// CSR versions (same neighbour order, same heuristic) must do exactly the same work.
TEST(SearchCpu, AlgorithmsAndGraphVersionsAgreeOnRandomMaps) {
    Lcg pick(19);
    int found = 0;
    int unreachable = 0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const MoveRules all[] = {kFour, kMovingAi, kCutting, kAny};
        const MoveRules rules = all[seed % 4];
        const GridMap map = random_map(40 + int(seed) * 3, 35 + int(seed) * 2, 0.15 + 0.02 * double(seed % 6), seed);
        for (CostMode mode : {CostMode::Integer, CostMode::Real}) {
            auto graph = grid_to_csr(map, rules, mode);
            ASSERT_TRUE(graph.ok());
            const GridSearchSpec spec = spec_of(rules, mode, Heuristic::Octile);
            for (int trial = 0; trial < 8; ++trial) {
                const Vertex s = random_passable(map, pick);
                const Vertex g = random_passable(map, pick);
                SCOPED_TRACE("seed " + std::to_string(seed) + " trial " + std::to_string(trial) + " " +
                             std::string(to_string(mode)));
                const Triple t = run_three(map, rules, mode, s, g);
                const SearchOutput euclid = astar_grid(map, spec_of(rules, mode, Heuristic::Euclidean), s, g);
                const SearchOutput bidir_zero = astar_bidir_grid(map, spec_of(rules, mode, Heuristic::Zero), s, g);
                const SearchOutput graph_astar = astar_graph(*graph, Heuristic::Octile, s, g);
                const SearchOutput graph_bidir = astar_bidir_graph(*graph, Heuristic::Octile, s, g);
                ASSERT_EQ(t.astar.found, t.dijkstra.found);
                for (const SearchOutput* out : {&t.bidir, &euclid, &bidir_zero, &graph_astar, &graph_bidir})
                    ASSERT_EQ(out->found, t.astar.found);
                if (!t.astar.found) {
                    ++unreachable;
                    continue;
                }
                ++found;
                if (mode == CostMode::Integer) {
                    EXPECT_EQ(t.astar.cost, t.dijkstra.cost);
                    EXPECT_EQ(t.bidir.cost, t.astar.cost);
                    EXPECT_EQ(euclid.cost, t.astar.cost);
                    EXPECT_EQ(bidir_zero.cost, t.astar.cost);
                } else {
                    const double tol = 1e-9 * std::max(1.0, t.astar.cost);
                    EXPECT_NEAR(t.dijkstra.cost, t.astar.cost, tol);
                    EXPECT_NEAR(t.bidir.cost, t.astar.cost, tol);
                    EXPECT_NEAR(euclid.cost, t.astar.cost, tol);
                    EXPECT_NEAR(bidir_zero.cost, t.astar.cost, tol);
                }
                for (const SearchOutput* out : {&t.astar, &t.dijkstra, &t.bidir, &euclid, &bidir_zero})
                    EXPECT_TRUE(valid_grid_path(map, spec, s, g, *out));
                EXPECT_EQ(graph_astar.cost, t.astar.cost);
                EXPECT_EQ(graph_astar.expanded, t.astar.expanded);
                EXPECT_EQ(graph_astar.path, t.astar.path);
                EXPECT_EQ(graph_bidir.cost, t.bidir.cost);
                EXPECT_EQ(graph_bidir.expanded, t.bidir.expanded);
                EXPECT_EQ(graph_bidir.path, t.bidir.path);
            }
        }
    }
    EXPECT_GT(found, 100);
    EXPECT_GT(unreachable, 0);
}

// 4-connected unit steps: A* costs are BFS levels (BFS from the goal) times the step cost.
TEST(SearchCpu, FourConnectedCostsMatchBfsLevels) {
    Lcg pick(23);
    const GridMap map = random_map(60, 45, 0.3, 77);
    auto graph = grid_to_csr(map, kFour, std::nullopt);
    ASSERT_TRUE(graph.ok());
    const Vertex goal = random_passable(map, pick);
    const BfsOutput bfs = bfs_queue(*graph, goal, kNoVertex);
    const GridSearchSpec spec = spec_of(kFour, CostMode::Integer, Heuristic::Manhattan);
    for (int i = 0; i < 40; ++i) {
        const Vertex s = random_passable(map, pick);
        const SearchOutput out = astar_grid(map, spec, s, goal);
        const SearchOutput bidir = astar_bidir_grid(map, spec, s, goal);
        if (bfs.levels[s] == kUnreached) {
            EXPECT_FALSE(out.found);
            EXPECT_FALSE(bidir.found);
            continue;
        }
        EXPECT_EQ(out.cost, 1000.0 * bfs.levels[s]);
        EXPECT_EQ(bidir.cost, 1000.0 * bfs.levels[s]);
        // The unweighted CSR graph: every step costs 1.
        EXPECT_EQ(astar_graph(*graph, Heuristic::Manhattan, s, goal).cost, double(bfs.levels[s]));
    }
}

// ---------------------------------------------------------------------------------------------
// A hand-made roadmap (coordinates, weights at least the Euclidean length of each edge):
//
//   3 (0,4) ---3.5--- 2 (3,4) ---3--- 4 (6,4)
//   |              /  |             /
//   4           6     4          7
//   |        /        |       /
//   0 (0,0) ----3---- 1 (3,0)
//
// plus a one-way edge 0 -> 4 of weight 8, and vertex 5 at (10,10) with no edges.

CsrGraph hand_roadmap() {
    struct Edge {
        Vertex a, b;
        double w;
        bool both_ways;
    };
    const std::vector<Point3> coords = {{0, 0, 0}, {3, 0, 0}, {3, 4, 0}, {0, 4, 0}, {6, 4, 0}, {10, 10, 0}};
    const std::vector<Edge> edges = {{0, 1, 3, true}, {1, 2, 4, true}, {0, 3, 4, true}, {3, 2, 3.5, true},
                                     {0, 2, 6, true}, {2, 4, 3, true}, {1, 4, 7, true}, {0, 4, 8, false}};
    std::vector<std::vector<std::pair<Vertex, double>>> adjacency(coords.size());
    for (const Edge& e : edges) {
        adjacency[e.a].push_back({e.b, e.w});
        if (e.both_ways) adjacency[e.b].push_back({e.a, e.w});
    }
    CsrGraph graph;
    graph.offsets.push_back(0);
    for (const auto& list : adjacency) {
        for (auto [v, w] : list) {
            graph.targets.push_back(v);
            graph.weights.push_back(w);
        }
        graph.offsets.push_back(std::uint32_t(graph.targets.size()));
    }
    graph.coords = coords;
    EXPECT_TRUE(check_graph(graph).ok());
    return graph;
}

TEST(SearchGraph, HandMadeRoadmap) {
    const CsrGraph graph = hand_roadmap();
    const struct {
        Vertex s, g;
        double cost;
        std::vector<Vertex> path;
    } cases[] = {
        {0, 4, 8, {0, 4}},     // the one-way edge beats 0-2-4 (9)
        {4, 0, 9, {4, 2, 0}},  // ... but cannot be used backwards: 4-1-0 and 4-2-1-0 cost 10
        {3, 1, 7, {3, 0, 1}},  // 3-2-1 costs 7.5
        {1, 3, 7, {1, 0, 3}}, {2, 2, 0, {2}},
    };
    for (Heuristic h : {Heuristic::Euclidean, Heuristic::Octile, Heuristic::Zero}) {
        for (const auto& c : cases) {
            SCOPED_TRACE(std::string(to_string(h)) + " " + std::to_string(c.s) + " -> " + std::to_string(c.g));
            for (const SearchOutput& out : {astar_graph(graph, h, c.s, c.g), astar_bidir_graph(graph, h, c.s, c.g)}) {
                EXPECT_TRUE(out.found);
                EXPECT_EQ(out.cost, c.cost);
                EXPECT_EQ(out.path, c.path);
            }
        }
        for (const SearchOutput& out : {astar_graph(graph, h, 0, 5), astar_bidir_graph(graph, h, 5, 0)}) {
            EXPECT_FALSE(out.found);
            EXPECT_TRUE(out.path.empty());
        }
    }
}

TEST(SearchGraph, ReverseGraph) {
    const CsrGraph graph = hand_roadmap();
    const CsrGraph reversed = reverse_graph(graph);
    ASSERT_TRUE(check_graph(reversed).ok());
    EXPECT_EQ(reversed.edge_count(), graph.edge_count());
    EXPECT_EQ(reversed.coords.size(), graph.coords.size());
    // The one-way edge 0 -> 4 becomes 4 -> 0 and nothing leads from 0 to 4 any more.
    auto edges_of = [](const CsrGraph& g, Vertex v) {
        std::vector<std::pair<Vertex, double>> list;
        for (std::uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) list.push_back({g.targets[e], g.weight(e)});
        std::sort(list.begin(), list.end());
        return list;
    };
    EXPECT_EQ(edges_of(reversed, 4), (std::vector<std::pair<Vertex, double>>{{0, 8}, {1, 7}, {2, 3}}));
    EXPECT_EQ(edges_of(reversed, 0), (std::vector<std::pair<Vertex, double>>{{1, 3}, {2, 6}, {3, 4}}));
    const CsrGraph twice = reverse_graph(reversed);
    for (Vertex v = 0; v < graph.vertex_count(); ++v) EXPECT_EQ(edges_of(twice, v), edges_of(graph, v));
}

// ---------------------------------------------------------------------------------------------

struct EventCounts {
    std::uint64_t opens[2] = {0, 0};
    std::uint64_t closes[2] = {0, 0};
};

EventCounts count_events(const SearchRecording& rec) {
    EventCounts c;
    for (const auto& e : rec.events) {
        EXPECT_LT(e.direction, 2);
        (e.kind == SearchRecording::Close ? c.closes : c.opens)[e.direction]++;
    }
    return c;
}

TEST(SearchRecord, EventsMatchTheSearch) {
    const GridMap map = random_map(64, 64, 0.25, 9);
    Lcg pick(4);
    const Vertex s = random_passable(map, pick);
    Vertex g = random_passable(map, pick);
    const GridSearchSpec spec = spec_of(kMovingAi, CostMode::Integer, Heuristic::Zero);
    while (!astar_grid(map, spec, s, g).found || g == s) g = random_passable(map, pick);

    SearchRecording rec;
    rec.vertex_stride = 0;  // treated as 1
    const SearchOutput out = astar_grid(map, spec, s, g, &rec);
    ASSERT_TRUE(out.found);
    EXPECT_EQ(rec.vertex_stride, 1u);
    EXPECT_FALSE(rec.truncated);
    const EventCounts c = count_events(rec);
    EXPECT_EQ(c.closes[0], out.expanded);
    EXPECT_EQ(c.opens[0], out.generated);
    EXPECT_EQ(c.closes[1] + c.opens[1], 0u);
    EXPECT_EQ(rec.steps, out.expanded);
    // Close events come one per step, in step order; the start is opened first, the goal closed last.
    std::uint32_t next_step = 0;
    for (const auto& e : rec.events) {
        if (e.kind != SearchRecording::Close) continue;
        EXPECT_EQ(e.step, next_step++);
    }
    EXPECT_EQ(rec.events.front().vertex, s);
    EXPECT_EQ(rec.events.back().vertex, g);
    EXPECT_EQ(rec.events.back().kind, SearchRecording::Close);

    SearchRecording bidir_rec;
    const SearchOutput bidir =
        astar_bidir_grid(map, spec_of(kMovingAi, CostMode::Integer, Heuristic::Octile), s, g, &bidir_rec);
    ASSERT_TRUE(bidir.found);
    EXPECT_EQ(bidir.cost, out.cost);
    const EventCounts b = count_events(bidir_rec);
    EXPECT_EQ(b.closes[0] + b.closes[1], bidir.expanded);
    EXPECT_EQ(b.opens[0] + b.opens[1], bidir.generated);
    EXPECT_GT(b.closes[0], 0u);
    EXPECT_GT(b.closes[1], 0u);
    EXPECT_EQ(bidir_rec.steps, bidir.expanded);
}

TEST(SearchRecord, StrideFor) {
    const std::uint64_t per_vertex = 4 * sizeof(SearchRecording::Event);
    EXPECT_EQ(SearchRecording::stride_for(0, 0), 1u);
    EXPECT_EQ(SearchRecording::stride_for(1000, 1000 * per_vertex), 1u);
    EXPECT_EQ(SearchRecording::stride_for(1000, 500 * per_vertex), 2u);
    EXPECT_EQ(SearchRecording::stride_for(1000, 499 * per_vertex), 3u);
    EXPECT_EQ(SearchRecording::stride_for(10, 0), 11u);
    for (std::uint64_t n : {1ull, 17ull, 4096ull, 1000003ull, 900000000ull})
        for (std::uint64_t bytes : {0ull, 100ull, 4096ull, 1ull << 20, 1ull << 30}) {
            const std::uint64_t s = SearchRecording::stride_for(n, bytes);
            ASSERT_GE(s, 1u);
            EXPECT_LE((n / s) * per_vertex, bytes) << n << " " << bytes;
            if (s > 1) {
                EXPECT_GT((n / (s - 1)) * per_vertex, bytes);  // the smallest such stride
            }
        }
}

TEST(SearchRecord, StrideAndCapBoundTheEvents) {
    const GridMap map = random_map(128, 128, 0.2, 31);
    Lcg pick(8);
    const Vertex s = random_passable(map, pick);
    Vertex g = random_passable(map, pick);
    // Far apart, so that the searches touch most of the map.
    while (std::abs(map.cell(s).x - map.cell(g).x) + std::abs(map.cell(s).y - map.cell(g).y) < 120)
        g = random_passable(map, pick);
    const std::uint64_t budget = 16 * 1024;
    for (bool bidirectional : {false, true}) {
        SearchRecording rec;
        rec.vertex_stride = SearchRecording::stride_for(map.cell_count(), budget);
        ASSERT_GT(rec.vertex_stride, 1u);
        const GridSearchSpec spec = spec_of(kMovingAi, CostMode::Integer, Heuristic::Zero);
        const SearchOutput out =
            bidirectional ? astar_bidir_grid(map, spec, s, g, &rec) : astar_grid(map, spec, s, g, &rec);
        EXPECT_GT(out.expanded, map.cell_count() / 20);
        for (const auto& e : rec.events) ASSERT_EQ(e.vertex % rec.vertex_stride, 0u);
        // At most one close per direction and a few improvements per sampled vertex.
        EXPECT_LE(rec.events.size() * sizeof(SearchRecording::Event), budget);
        EXPECT_GT(rec.events.size(), 0u);

        SearchRecording capped;
        capped.max_events = 10;
        bidirectional ? astar_bidir_grid(map, spec, s, g, &capped) : astar_grid(map, spec, s, g, &capped);
        EXPECT_EQ(capped.events.size(), 10u);
        EXPECT_TRUE(capped.truncated);
        EXPECT_EQ(capped.steps, out.expanded);
    }
}

TEST(SearchCpu, PresetCancelFlagCancels) {
    const GridMap map(64, 64);
    auto graph = grid_to_csr(map, kMovingAi, CostMode::Real);
    ASSERT_TRUE(graph.ok());
    const std::atomic<bool> cancel{true};
    const GridSearchSpec spec = spec_of(kMovingAi, CostMode::Real, Heuristic::Octile);
    const Vertex s = 0;
    const Vertex g = Vertex(map.cell_count() - 1);
    for (const SearchOutput& out :
         {astar_grid(map, spec, s, g, nullptr, &cancel), astar_bidir_grid(map, spec, s, g, nullptr, &cancel),
          astar_graph(*graph, Heuristic::Octile, s, g, nullptr, &cancel),
          astar_bidir_graph(*graph, Heuristic::Octile, s, g, nullptr, &cancel)}) {
        EXPECT_TRUE(out.cancelled);
        EXPECT_FALSE(out.found);
        EXPECT_TRUE(out.path.empty());
    }
    const std::atomic<bool> go_on{false};
    EXPECT_TRUE(astar_grid(map, spec, s, g, nullptr, &go_on).found);
    EXPECT_TRUE(astar_bidir_grid(map, spec, s, g, nullptr, &go_on).found);
}

}  // namespace
}  // namespace ps
