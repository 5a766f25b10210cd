// The jump distances of GPU JPS's table (kernels/astar/jps/jps_jumps.hpp) against hand-worked
// cells and against runs walked cell by cell on the map itself (the rule's words, not the
// sweeps: a straight run stops at a free cell with a free side cell whose cell behind is blocked,
// a diagonal run at a cell from which such a straight run along a component finds one), and the
// goal's steps by hand. CPU only: the GPU's use of them is tested with the kernel
// (test_jps_gpu.cpp).
#include <gtest/gtest.h>

#include "kernels/astar/jps/jps_jumps.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

enum Move { E = 0, W = 1, S = 2, N = 3, SE = 4, SW = 5, NE = 6, NW = 7 };

int dist(const gpu::JpsJumps& j, int x, int y, int d) {
    return j.dist[(std::size_t(y) * std::size_t(j.width) + std::size_t(x)) * 8 + std::size_t(d)];
}

std::shared_ptr<const gpu::JpsJumps> jumps_of(const GridMap& map) {
    const gpu::JpsBits bits = gpu::jps_bits(map);
    return gpu::jps_jumps(bits);
}

TEST(JpsJumps, HandWorkedDistances) {
    const GridMap map = test::map_from_rows({
        ".....",
        ".#...",
        ".....",
    });
    const auto j = jumps_of(map);
    ASSERT_TRUE(j);
    // Along row 0 east: (2,0) has (2,1) free beside it and (1,1) blocked behind that.
    EXPECT_EQ(dist(*j, 0, 0, E), 2);
    EXPECT_EQ(dist(*j, 0, 0, W), 0);   // the map's edge
    EXPECT_EQ(dist(*j, 0, 0, S), 2);   // (0,2): (1,2) free, (1,1) behind it blocked
    EXPECT_EQ(dist(*j, 0, 0, SE), 0);  // into the wall
    // West from (4,0): nothing forced until (0,0), whose (0,1) has (1,1) behind it.
    EXPECT_EQ(dist(*j, 4, 0, W), 4);
    // North-east from (2,2): (3,1) then (4,0), neither with a straight jump point; 2 legal steps.
    EXPECT_EQ(dist(*j, 2, 2, NE), -2);
    // North-west from (3,2): (2,1), from which the run north finds (2,0) ((1,0) free, (1,1) behind).
    EXPECT_EQ(dist(*j, 3, 2, NW), 1);
    EXPECT_EQ(dist(*j, 2, 2, NW), 0);  // into the wall
    EXPECT_EQ(dist(*j, 4, 2, E), 0);
    EXPECT_EQ(dist(*j, 4, 2, W), 4);   // (0,2): (0,1) free above, (1,1) behind it blocked
    EXPECT_EQ(dist(*j, 4, 1, W), -2);  // (3,1), (2,1), then the wall
}

TEST(JpsJumps, GoalStepsByHand) {
    // Straight: the goal on the line ahead within the reach, else the jump point (k > 0) or none.
    EXPECT_EQ(gpu::jump_steps(5, 1, 0, 0, 0, 3, 0), 3);
    EXPECT_EQ(gpu::jump_steps(5, 1, 0, 0, 0, 5, 0), 5);
    EXPECT_EQ(gpu::jump_steps(5, 1, 0, 0, 0, 7, 0), 5);
    EXPECT_EQ(gpu::jump_steps(-4, 1, 0, 0, 0, 4, 0), 4);   // reachable in the run's free steps
    EXPECT_EQ(gpu::jump_steps(-4, 1, 0, 0, 0, 5, 0), 0);   // beyond the wall
    EXPECT_EQ(gpu::jump_steps(-4, 1, 0, 0, 0, 3, 1), 0);   // not on the line
    EXPECT_EQ(gpu::jump_steps(5, -1, 0, 9, 2, 7, 2), 2);   // westward
    EXPECT_EQ(gpu::jump_steps(5, 1, 0, 9, 2, 7, 2), 5);    // the goal behind
    EXPECT_EQ(gpu::jump_steps(-3, 0, -1, 4, 9, 4, 7), 2);  // northward
    // Diagonal: the goal in the quadrant; the run stops where it meets the goal's row or column.
    EXPECT_EQ(gpu::jump_steps(-10, 1, 1, 0, 0, 3, 7), 3);
    EXPECT_EQ(gpu::jump_steps(-10, 1, 1, 0, 0, 7, 3), 3);
    EXPECT_EQ(gpu::jump_steps(2, 1, 1, 0, 0, 7, 3), 2);    // the jump point first
    EXPECT_EQ(gpu::jump_steps(-2, 1, 1, 0, 0, 7, 3), 0);   // blocked first
    EXPECT_EQ(gpu::jump_steps(-10, 1, 1, 0, 0, 7, 0), 0);  // on the start's row: no diagonal reaches it
    EXPECT_EQ(gpu::jump_steps(-10, -1, -1, 8, 8, 2, 5), 3);
    EXPECT_EQ(gpu::jump_steps(4, -1, 1, 8, 8, 2, 5), 4);  // the goal above: not in the quadrant
}

bool free_cell(const GridMap& m, int x, int y) { return m.passable(x, y); }

// The first jump point of a straight run from (x, y), walked cell by cell: its distance, or minus
// the free steps before the run is blocked.
int walk_straight(const GridMap& m, int x, int y, int dx, int dy) {
    for (int k = 1;; ++k) {
        const int cx = x + k * dx, cy = y + k * dy;
        if (!free_cell(m, cx, cy)) return -(k - 1);
        const int ax = dy != 0, ay = dx != 0;
        for (int side = -1; side <= 1; side += 2)
            if (free_cell(m, cx + side * ax, cy + side * ay) && !free_cell(m, cx + side * ax - dx, cy + side * ay - dy))
                return k;
    }
}

int walk_diagonal(const GridMap& m, int x, int y, int dx, int dy) {
    for (int k = 1;; ++k) {
        const int px = x + (k - 1) * dx, py = y + (k - 1) * dy, cx = px + dx, cy = py + dy;
        if (!free_cell(m, cx, cy) || !free_cell(m, cx, py) || !free_cell(m, px, cy)) return -(k - 1);
        if (walk_straight(m, cx, cy, dx, 0) > 0 || walk_straight(m, cx, cy, 0, dy) > 0) return k;
    }
}

TEST(JpsJumps, EqualTheRunsWalkedOnRandomMaps) {
    // Odd sizes, rows of exactly 32 and 64 cells (a word's end), densities from open to cluttered.
    const int sizes[][2] = {{1, 1}, {7, 5}, {32, 9}, {64, 33}, {45, 70}, {97, 31}};
    std::size_t jumps = 0, walls = 0;
    for (const auto& size : sizes)
        for (const double density : {0.0, 0.1, 0.3, 0.45}) {
            const GridMap map = test::random_map(size[0], size[1], density, std::uint64_t(size[0] * 131 + size[1]));
            const auto j = jumps_of(map);
            ASSERT_TRUE(j);
            for (int y = 0; y < map.height(); ++y)
                for (int x = 0; x < map.width(); ++x)
                    for (int d = 0; d < 8; ++d) {
                        const int want = !map.passable(x, y) ? 0
                                         : d < 4 ? walk_straight(map, x, y, kGridSteps[d].dx, kGridSteps[d].dy)
                                                 : walk_diagonal(map, x, y, kGridSteps[d].dx, kGridSteps[d].dy);
                        ASSERT_EQ(dist(*j, x, y, d), want) << size[0] << "x" << size[1] << " density " << density
                                                           << " cell " << x << "," << y << " move " << d;
                        (want > 0 ? jumps : walls) += 1;
                    }
        }
    EXPECT_GT(jumps, 1000u);
    EXPECT_GT(walls, 1000u);
}

TEST(JpsJumps, NoTableForMapsBeyondSixteenBits) {
    const GridMap wide(40000, 1);
    EXPECT_FALSE(jumps_of(wide));
    const GridMap fine(300, 200);
    const auto j = jumps_of(fine);
    ASSERT_TRUE(j);
    EXPECT_EQ(dist(*j, 0, 0, E), -299);  // an empty map: no forced neighbour anywhere
    EXPECT_EQ(dist(*j, 0, 0, SE), -199);
}

}  // namespace
}  // namespace ps
