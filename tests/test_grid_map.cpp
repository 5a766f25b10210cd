// Grid map helpers: nearest passable cell and nearest cell of the largest region.
#include <gtest/gtest.h>

#include "kernels/grid_map.hpp"

namespace ps {
namespace {

GridMap from_rows(std::initializer_list<const char*> rows) {
    GridMap map(int(std::string(*rows.begin()).size()), int(rows.size()));
    int y = 0;
    for (const char* row : rows) {
        for (int x = 0; row[x]; ++x) map.set_passable(x, y, row[x] == '.');
        ++y;
    }
    return map;
}

TEST(GridMapNearest, PassableAndLargestRegion) {
    // A 2-cell pocket at the top-left corner, walled off from the big region.
    const GridMap map = from_rows({"..#.....", "###.....", "........", "........"});
    EXPECT_EQ(nearest_passable(map, {0, 0}), (Cell{0, 0}));
    EXPECT_EQ(nearest_in_largest_region(map, {Connectivity::Four, false}, {0, 0}), (Cell{0, 2}));
    EXPECT_EQ(nearest_passable(map, {2, 1}), (Cell{1, 0}));  // ring 1, first in scan order
    // 8-connected with corner cutting, (1,0) -> (2,1)? (2,1) is a wall: the pocket stays apart.
    EXPECT_EQ(nearest_in_largest_region(map, {Connectivity::Eight, true}, {0, 0}), (Cell{0, 2}));
    const GridMap walls = from_rows({"###", "###"});
    EXPECT_FALSE(nearest_passable(walls, {1, 1}));
    EXPECT_FALSE(nearest_in_largest_region(walls, {}, {1, 1}));
}

}  // namespace
}  // namespace ps
