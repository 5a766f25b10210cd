// Jump distances (JPS+: Harabor and Grastien, "Improving Jump Point Search", ICAPS 2014): for
// every cell and each of the eight moves, where GPU JPS's run in that direction ends, made once
// per map, so that an expansion reads eight numbers instead of scanning the bitmaps. Plain C++
// (the kernel reads the device copy: kernels/astar/jps/jps_gpu.cu).
//
// The runs are the kernel's (jps_gpu.cu: scan, diagonal_jump) without the goal: a straight run
// stops at the first free cell with a forced neighbour (a free cell beside the run whose cell
// behind, beside the run's previous cell, is blocked; outside the map is blocked), a diagonal run
// (MovingAI's rule: both corner cells free) at the first cell from which a straight run along
// either of its two components finds such a cell. A value k > 0: that jump point, k steps away;
// k <= 0: no jump point before the run is blocked, after -k legal steps. The goal is added per
// query (jump_steps below), as the scanning kernel's runs add it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/astar/jps/jps_gpu.hpp"

// jump_steps is the kernel's as much as the host's.
#if defined(__CUDACC__)
#define PS_JUMP_HOST_DEVICE __host__ __device__
#else
#define PS_JUMP_HOST_DEVICE
#endif

namespace ps::gpu {

// Cells a jump table is made for at most: 16 bytes a cell (256 MiB here); larger maps, and those
// wider or higher than a 16-bit distance reaches, scan.
inline constexpr std::size_t kJumpTableMaxCells = std::size_t(1) << 24;

struct JpsJumps {
    int width = 0, height = 0;
    std::vector<std::int16_t> dist;  // dist[(y * width + x) * 8 + d], d a kGridSteps move; 0 for blocked cells
    // The device copy, made by the first query that uses it on a device (jps_gpu.cu) and kept for
    // the map's later queries.
    mutable std::mutex device_mutex;
    mutable std::shared_ptr<void> device;
    mutable int device_id = -1;
};

// The table of `bits`' map, or null where it is too large (kJumpTableMaxCells, 32767 cells
// along a side).
std::shared_ptr<const JpsJumps> jps_jumps(const JpsBits& bits);

// How many steps a run from (x, y) in direction (dx, dy) goes for a query to (gx, gy), from the cell's
// distance k: to the goal where the goal lies ahead within the run's reach (a straight run: on
// its line; a diagonal run: in its quadrant, where the run meets the goal's row or column first,
// which may add a point the scanning kernel would pass: JPS+'s target point), else to the jump
// point (k > 0), else nowhere (0).
PS_JUMP_HOST_DEVICE constexpr int jump_steps(int k, int dx, int dy, int x, int y, int gx, int gy) {
    const int ax = (gx - x) * dx, ay = (gy - y) * dy;  // the goal's distance ahead on each axis
    int to_goal = -1;
    if (dy == 0) {
        if (gy == y && ax > 0) to_goal = ax;
    } else if (dx == 0) {
        if (gx == x && ay > 0) to_goal = ay;
    } else if (ax > 0 && ay > 0) {
        to_goal = ax < ay ? ax : ay;
    }
    const int reach = k > 0 ? k : -k;
    if (to_goal > 0 && to_goal <= reach) return to_goal;
    return k > 0 ? k : 0;
}

}  // namespace ps::gpu
