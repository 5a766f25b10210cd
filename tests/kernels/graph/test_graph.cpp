// Grid-to-CSR conversion against hand-worked neighbour lists (4-connected, 8-connected under
// the three corner rules), edge weights in both metrics, and check_graph on broken graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/map/generators.hpp"
#include "kernels/graph/graph.hpp"

namespace ps {
namespace {

using Lists = std::vector<std::vector<Vertex>>;

// 3 x 3, one wall at (1, 0); vertex = y * 3 + x:
//   0 @ 2
//   3 4 5
//   6 7 8
GridMap three_by_three() {
    GridMap map(3, 3, true);
    map.set_passable(1, 0, false);
    return map;
}

Lists neighbour_lists(const CsrGraph& g) {
    Lists out(g.vertex_count());
    for (std::uint32_t v = 0; v < g.vertex_count(); ++v)
        out[v].assign(g.targets.begin() + g.offsets[v], g.targets.begin() + g.offsets[v + 1]);
    return out;
}

CsrGraph build(const GridMap& map, MoveRules rules, std::optional<CostMode> weights) {
    auto g = grid_to_csr(map, rules, weights);
    EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message);
    return g.ok() ? std::move(g).value() : CsrGraph{};
}

// Lists are in the documented order: E, W, S, N, then SE, SW, NE, NW.
TEST(Graph, FourConnectedNeighbours) {
    const CsrGraph g = build(three_by_three(), {Connectivity::Four, CornerRule::None}, std::nullopt);
    const Lists expected = {{3}, {}, {5}, {4, 6, 0}, {5, 3, 7}, {4, 8, 2}, {7, 3}, {8, 6, 4}, {7, 5}};
    EXPECT_EQ(neighbour_lists(g), expected);
    EXPECT_FALSE(g.weighted());
    EXPECT_EQ(g.edge_count(), 18u);
    EXPECT_EQ(g.grid_width, 3);
    EXPECT_TRUE(check_graph(g).ok());
}

TEST(Graph, EightConnectedWithoutCornerCutting) {
    const CsrGraph g = build(three_by_three(), {Connectivity::Eight, CornerRule::None}, std::nullopt);
    // 0 -> 4 and 2 -> 4 would pass the wall corner at (1, 0): forbidden.
    const Lists expected = {{3},      {}, {5}, {4, 6, 0, 7}, {5, 3, 7, 8, 6}, {4, 8, 2, 7}, {7, 3, 4}, {8, 6, 4, 5, 3},
                            {7, 5, 4}};
    EXPECT_EQ(neighbour_lists(g), expected);
    EXPECT_TRUE(check_graph(g).ok());
}

TEST(Graph, EightConnectedWithCornerCutting) {
    const CsrGraph g = build(three_by_three(), {Connectivity::Eight, CornerRule::One}, std::nullopt);
    // One free orthogonal cell is enough: 0 <-> 4 and 2 <-> 4 appear.
    const Lists expected = {{3, 4},       {},        {5, 4},          {4, 6, 0, 7}, {5, 3, 7, 8, 6, 2, 0},
                            {4, 8, 2, 7}, {7, 3, 4}, {8, 6, 4, 5, 3}, {7, 5, 4}};
    EXPECT_EQ(neighbour_lists(g), expected);
}

TEST(Graph, EightConnectedWithAnyCornerRule) {
    // One wall never blocks both cells beside a diagonal: the same lists as with one corner.
    const CsrGraph any = build(three_by_three(), {Connectivity::Eight, CornerRule::Any}, std::nullopt);
    const CsrGraph one = build(three_by_three(), {Connectivity::Eight, CornerRule::One}, std::nullopt);
    EXPECT_EQ(neighbour_lists(any), neighbour_lists(one));
}

TEST(Graph, OnlyTheAnyRuleSqueezesBetweenTwoWalls) {
    // . @
    // @ .
    GridMap map(2, 2, true);
    map.set_passable(1, 0, false);
    map.set_passable(0, 1, false);
    for (CornerRule rule : {CornerRule::None, CornerRule::One}) {
        const CsrGraph g = build(map, {Connectivity::Eight, rule}, CostMode::Real);
        EXPECT_EQ(g.edge_count(), 0u) << to_string(rule);
        EXPECT_EQ(g.vertex_count(), 4u);
    }
    const CsrGraph any = build(map, {Connectivity::Eight, CornerRule::Any}, CostMode::Real);
    EXPECT_EQ(neighbour_lists(any), (Lists{{3}, {}, {}, {0}}));
    EXPECT_DOUBLE_EQ(any.weight(0), std::sqrt(2.0));
}

TEST(Graph, WeightsInBothMetrics) {
    const GridMap map = three_by_three();
    const CsrGraph real = build(map, {Connectivity::Eight, CornerRule::One}, CostMode::Real);
    const CsrGraph integer = build(map, {Connectivity::Eight, CornerRule::One}, CostMode::Integer);
    ASSERT_TRUE(real.weighted());
    ASSERT_EQ(real.weights.size(), real.targets.size());
    ASSERT_EQ(integer.targets, real.targets);
    for (std::uint32_t v = 0; v < real.vertex_count(); ++v) {
        for (std::uint32_t e = real.offsets[v]; e < real.offsets[v + 1]; ++e) {
            const Vertex w = real.targets[e];
            const bool diagonal = (v % 3 != w % 3) && (v / 3 != w / 3);
            EXPECT_DOUBLE_EQ(real.weight(e), diagonal ? std::sqrt(2.0) : 1.0) << v << "->" << w;
            EXPECT_EQ(integer.weight(e), diagonal ? 1414.0 : 1000.0) << v << "->" << w;
        }
    }
    // 4-connected weighted graphs have only unit steps.
    const CsrGraph four = build(map, {Connectivity::Four, CornerRule::None}, CostMode::Integer);
    for (double w : four.weights) EXPECT_EQ(w, 1000.0);
}

TEST(Graph, BlockedCellsHaveNoEdgesAndGraphsAreSymmetric) {
    GeneratorParams p;
    p.kind = GeneratorKind::Random;
    p.width = 50;
    p.height = 40;
    p.density = 0.35;
    p.seed = 3;
    const auto map = generate_map(p);
    ASSERT_TRUE(map.ok());
    for (MoveRules rules :
         {MoveRules{Connectivity::Four, CornerRule::None}, MoveRules{Connectivity::Eight, CornerRule::None},
          MoveRules{Connectivity::Eight, CornerRule::One}, MoveRules{Connectivity::Eight, CornerRule::Any}}) {
        const CsrGraph g = build(*map, rules, CostMode::Real);
        ASSERT_EQ(g.vertex_count(), map->cell_count());
        ASSERT_TRUE(check_graph(g).ok());
        const Lists lists = neighbour_lists(g);
        for (Vertex v = 0; v < g.vertex_count(); ++v) {
            if (!map->passable(v)) {
                EXPECT_TRUE(lists[v].empty()) << v;
            }
            for (Vertex w : lists[v]) {
                EXPECT_TRUE(map->passable(w));
                // Movement rules are symmetric, so every edge has its reverse.
                EXPECT_NE(std::find(lists[w].begin(), lists[w].end(), v), lists[w].end()) << v << "->" << w;
            }
        }
    }
}

TEST(Graph, CheckGraphCatchesBrokenGraphs) {
    const CsrGraph good = build(three_by_three(), {Connectivity::Eight, CornerRule::None}, CostMode::Real);
    ASSERT_TRUE(check_graph(good).ok());
    struct Case {
        const char* what;
        void (*breakit)(CsrGraph&);
        const char* reason;
    };
    const Case cases[] = {
        {"no offsets", [](CsrGraph& g) { g.offsets.clear(); }, "no offset"},
        {"offsets not from 0", [](CsrGraph& g) { g.offsets[0] = 1; }, "start at 0"},
        {"decreasing offsets", [](CsrGraph& g) { g.offsets[4] = g.offsets[3] - 1; }, "decrease"},
        {"offsets end early",
         [](CsrGraph& g) {
             g.targets.push_back(0);
             g.weights.push_back(1);
         },
         "offsets end"},
        {"target out of range", [](CsrGraph& g) { g.targets[2] = 9; }, "points to vertex 9"},
        {"weights missing", [](CsrGraph& g) { g.weights.pop_back(); }, "weights for"},
        {"negative weight", [](CsrGraph& g) { g.weights[1] = -1; }, "non-negative"},
        {"NaN weight", [](CsrGraph& g) { g.weights[1] = std::numeric_limits<double>::quiet_NaN(); }, "finite"},
        {"infinite weight", [](CsrGraph& g) { g.weights[1] = std::numeric_limits<double>::infinity(); }, "finite"},
        {"coords wrong size", [](CsrGraph& g) { g.coords.resize(3); }, "coordinates for"},
    };
    for (const Case& c : cases) {
        CsrGraph g = good;
        c.breakit(g);
        const auto r = check_graph(g);
        ASSERT_FALSE(r.ok()) << c.what;
        EXPECT_NE(r.error().message.find(c.reason), std::string::npos) << c.what << ": " << r.error().message;
    }
    CsrGraph with_coords = good;
    with_coords.coords.resize(good.vertex_count());
    EXPECT_TRUE(check_graph(with_coords).ok());
}

}  // namespace
}  // namespace ps
