// Grid map helpers: nearest passable cell and nearest cell of the largest region; the three
// corner rules in single steps, regions and their names.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/map/grid_map.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::map_from_rows;

TEST(GridMapNearest, PassableAndLargestRegion) {
    // A 2-cell pocket at the top-left corner, walled off from the big region.
    const GridMap map = map_from_rows({"..#.....", "###.....", "........", "........"});
    EXPECT_EQ(nearest_passable(map, {0, 0}), (Cell{0, 0}));
    EXPECT_EQ(nearest_in_largest_region(map, {Connectivity::Four, CornerRule::None}, {0, 0}), (Cell{0, 2}));
    EXPECT_EQ(nearest_passable(map, {2, 1}), (Cell{1, 0}));  // ring 1, first in scan order
    // 8-connected with corner cutting, (1,0) -> (2,1)? (2,1) is a wall: the pocket stays apart.
    EXPECT_EQ(nearest_in_largest_region(map, {Connectivity::Eight, CornerRule::One}, {0, 0}), (Cell{0, 2}));
    // Nor can a squeeze reach it: every diagonal out of the pocket ends on a wall.
    EXPECT_EQ(nearest_in_largest_region(map, {Connectivity::Eight, CornerRule::Any}, {0, 0}), (Cell{0, 2}));
    const GridMap walls = map_from_rows({"###", "###"});
    EXPECT_FALSE(nearest_passable(walls, {1, 1}));
    EXPECT_FALSE(nearest_in_largest_region(walls, {}, {1, 1}));
}

TEST(GridMapRules, DiagonalsByTheCellsBesideThem) {
    // (a, b): the two orthogonal cells beside the diagonal, free or not.
    const bool both[] = {true, false, false, false}, one[] = {true, true, true, false};
    int i = 0;
    for (bool a : {true, false})
        for (bool b : {true, false}) {
            EXPECT_EQ(diagonal_allowed(CornerRule::None, a, b), both[i]);
            EXPECT_EQ(diagonal_allowed(CornerRule::One, a, b), one[i]);
            EXPECT_TRUE(diagonal_allowed(CornerRule::Any, a, b));
            ++i;
        }
}

TEST(GridMapRules, StepsUnderTheThreeCornerRules) {
    const GridMap map = map_from_rows({".#.", "#..", "..."});
    auto v = [&](int x, int y) { return map.index(x, y); };
    const MoveRules none{Connectivity::Eight, CornerRule::None}, one{Connectivity::Eight, CornerRule::One},
        any{Connectivity::Eight, CornerRule::Any};
    const struct {
        Vertex a, b;
        bool none, one, any;
    } cases[] = {
        {v(0, 0), v(1, 1), false, false, true},   // between the walls at (1,0) and (0,1)
        {v(1, 1), v(0, 0), false, false, true},   // and back
        {v(1, 1), v(2, 0), false, true, true},    // past the wall at (1,0), (2,1) free
        {v(1, 1), v(0, 2), false, true, true},    // past the wall at (0,1), (1,2) free
        {v(1, 1), v(2, 2), true, true, true},     // open on both sides
        {v(1, 1), v(2, 1), true, true, true},     // orthogonal
        {v(0, 0), v(1, 0), false, false, false},  // onto a wall
        {v(0, 0), v(2, 2), false, false, false},  // not neighbours
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::to_string(c.a) + " -> " + std::to_string(c.b));
        bool diagonal = false;
        EXPECT_EQ(is_grid_step(map, none, c.a, c.b, nullptr), c.none);
        EXPECT_EQ(is_grid_step(map, one, c.a, c.b, nullptr), c.one);
        EXPECT_EQ(is_grid_step(map, any, c.a, c.b, &diagonal), c.any);
        if (c.any) {
            const Cell a = map.cell(c.a), b = map.cell(c.b);
            EXPECT_EQ(diagonal, a.x != b.x && a.y != b.y);
        }
    }
    // 4-connected grids have no diagonals whatever the corner rule says.
    EXPECT_FALSE(is_grid_step(map, {Connectivity::Four, CornerRule::Any}, v(1, 1), v(2, 2), nullptr));
}

TEST(GridMapRules, RegionsJoinThroughSqueezesOnlyUnderTheAnyRule) {
    // (1,1) has walls on its four sides and every diagonal out of it squeezes between two of
    // them, as does the one out of (0,0): without squeezes both cells are regions of their own.
    const GridMap map = map_from_rows({".#..", "#.#.", ".#..", "...."});
    for (CornerRule rule : {CornerRule::None, CornerRule::One, CornerRule::Any}) {
        SCOPED_TRACE(std::string(to_string(rule)));
        std::uint32_t largest = 0;
        const auto region = grid_regions(map, {Connectivity::Eight, rule}, &largest);
        const std::uint32_t regions = *std::max_element(region.begin(), region.end());
        EXPECT_EQ(region[map.index(1, 0)], 0u);  // a wall
        EXPECT_EQ(largest, region[map.index(3, 3)]);
        if (rule == CornerRule::Any) {
            EXPECT_EQ(regions, 1u);
        } else {
            EXPECT_EQ(regions, 3u);
            EXPECT_NE(region[map.index(0, 0)], region[map.index(1, 1)]);
            EXPECT_NE(region[map.index(1, 1)], region[map.index(3, 3)]);
            EXPECT_NE(region[map.index(0, 0)], region[map.index(3, 3)]);
        }
    }
}

TEST(GridMapRules, NamesRoundTrip) {
    for (CornerRule rule : {CornerRule::None, CornerRule::One, CornerRule::Any})
        EXPECT_EQ(parse_corner_rule(to_string(rule)), rule);
    EXPECT_EQ(to_string(CornerRule::Any), "any");
    for (const char* bad : {"", "ANY", "two", "true", "1"}) EXPECT_FALSE(parse_corner_rule(bad)) << bad;
}

}  // namespace
}  // namespace ps
