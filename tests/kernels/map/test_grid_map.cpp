// Grid map helpers: nearest passable cell and nearest cell of the largest region.
#include <gtest/gtest.h>

#include "kernels/map/grid_map.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::map_from_rows;

TEST(GridMapNearest, PassableAndLargestRegion) {
    // A 2-cell pocket at the top-left corner, walled off from the big region.
    const GridMap map = map_from_rows({"..#.....", "###.....", "........", "........"});
    EXPECT_EQ(nearest_passable(map, {0, 0}), (Cell{0, 0}));
    EXPECT_EQ(nearest_in_largest_region(map, {Connectivity::Four, false}, {0, 0}), (Cell{0, 2}));
    EXPECT_EQ(nearest_passable(map, {2, 1}), (Cell{1, 0}));  // ring 1, first in scan order
    // 8-connected with corner cutting, (1,0) -> (2,1)? (2,1) is a wall: the pocket stays apart.
    EXPECT_EQ(nearest_in_largest_region(map, {Connectivity::Eight, true}, {0, 0}), (Cell{0, 2}));
    const GridMap walls = map_from_rows({"###", "###"});
    EXPECT_FALSE(nearest_passable(walls, {1, 1}));
    EXPECT_FALSE(nearest_in_largest_region(walls, {}, {1, 1}));
}

}  // namespace
}  // namespace ps
