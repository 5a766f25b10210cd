// Jump Point Search on the GPU in one thread block (jps.gpu.block): the CPU's rules
// (kernels/search/jps.hpp: 8-connected, no corner cutting) with the block's warps expanding
// several jump points an iteration, block barriers only. Plain C++ header in front of CUDA
// (kernels/astar/jps/jps_gpu.cu).
//
// Why: block A* (kernels/search/grid_astar_gpu.hpp) needs an iteration per cell of the path,
// since a cell's successor along the path is expanded one barrier after it; one iteration costs
// about 1.7 us on one SM, so a 300-cell den520d path costs half a millisecond whatever the
// frontier. Jump points shorten that chain to the path's turns and forced cells: a run between
// two of them is scanned in one step, 32 cells of a row to a word (a transposed bitmap gives
// the columns), and a diagonal run tries 16 of its cells at once, a lane running the row and
// another the column from each.
//
// Per query the block keeps, on chip where they fit: the map's rows and columns as bitmaps, an
// open list of (f, table slot) in two buffers (each iteration moves the survivors into the
// other) and a table of g | run | arrival direction | open per jump point, one 64-bit word
// (the run: the steps from the jump point that set it; a hash table; a query that fills it runs
// again with a word per cell of the map in global memory). Each iteration finds the open list's
// lowest f, gives up to one entry a warp among those whose f is within `window` of it (a window
// that adapts by default), and each warp expands its jump point: a claim (an atomic AND on its
// open bit), the directions the pruning keeps, each followed to its jump point, and an
// atomicMin per successor, which pushes it when it lowers its g. Exact: integer costs (the
// integer metric's 1000/1414, the real metric in steps of 33461 and 47321, a convergent of
// sqrt(2) 2.3e-10 relative below it), a consistent heuristic, an entry expanded again whenever
// its g improves, and the search ends when the best goal g is at most the lowest f in the open
// list. The path is walked back from the goal: from each jump point to the one its run names,
// which makes the walked path no longer than the goal's g.
//
// With the map's jump distances (JpsGpuOptions::jumps, kernels/astar/jps/jps_jumps.hpp: JPS+,
// 16 bytes a cell, made once per map and kept on the device for its later queries) an expansion
// reads its cell's eight distances, one 16-byte load for the warp, instead of scanning: on the
// H200 it halved den520d's compute (35.4 -> 18.5 ms over every 5th scenario) and rooms, noise and
// street maps' (README). The goal is added per query: a straight run stops at it on its line,
// a diagonal run where it meets the goal's row or column (a point the scan would not stop at
// when the straight run from there is blocked: an extra successor, never a lost one).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::gpu {

struct JpsJumps;  // kernels/astar/jps/jps_jumps.hpp

// The map as rows and as columns: bit x & 31 of rows[y * stride + x / 32], bit y & 31 of
// cols[x * col_stride + y / 32] (set: passable), padding bits clear. Made once per map.
struct JpsBits {
    std::vector<std::uint32_t> rows, cols;
    int width = 0, height = 0;
    int stride = 0, col_stride = 0;
    std::size_t passable = 0;
    // Whether (x, y) is passable; outside the map is not.
    bool free(int x, int y) const {
        if (x < 0 || y < 0 || x >= width || y >= height) return false;
        return (rows[std::size_t(y) * std::size_t(stride) + std::size_t(x >> 5)] >> (x & 31)) & 1u;
    }
};
JpsBits jps_bits(const GridMap& map);

// How densely the map forces jump points: the share of free cells with a forced neighbour
// along their row, averaged with the same along their column. Where it is high (random
// obstacles, mazes) runs are short and jump points nearly every cell, and block A* is faster.
double jump_point_share(const JpsBits& bits);

// The share of the map's blocked cells with no blocked cell among their eight neighbours (outside
// the map counts as open): high for scattered obstacles (random maps: 0.42 at 10% density, 0.67
// at 5%), near 0 where obstacles are walls and blocks (rooms, streets, mazes, game maps). Each
// lone obstacle forces jump points on every side, so that sparse random maps, whose jump point
// share is low, still make JPS expand thousands of them (H200: 0.17-0.67x of astar.cpu at 2-5%
// density, 256^2-1024^2, where tile A* is 1.2-6.9x).
double scattered_obstacle_share(const JpsBits& bits);

// Where the last launch's time went, in the SM's clock cycles (clock64): thread 0's setup
// before the loop (clearing the table, copying the map, the start) and path walk after it; the
// block's three phases between its barriers, summed over the iterations (thread 0's view: lowest_f + select +
// expand is the loop), and, summed over the jump points expanded, the expanding warp's parts (the claim with
// the pruned directions, the straight runs, the diagonal runs, the successors' updates and
// pushes) and the groups of 16 cells the diagonal runs tried.
struct JpsCycles {
    unsigned long long setup = 0, walk = 0;  // before the loop (table, map, start), after it (the path)
    unsigned long long lowest_f = 0, select = 0, expand = 0;
    unsigned long long claim = 0, straight = 0, diagonal = 0, successors = 0, diagonal_groups = 0;
};

struct JpsGpuOptions {
    int block_threads = 512;  // a warp per jump point: 16 an iteration
    // Entries within this many orthogonal steps of the lowest f may be expanded in the same
    // iteration (0: only the lowest f). Negative: adapting, from 4 steps, between 1 and
    // window_max: an iteration with fewer candidates than warps doubles it, one with more than
    // twice as many halves it.
    int window = -1;
    int window_max = 16;
    // Open entries per buffer on chip (two buffers); a query that overflows them runs again with
    // its open list in global memory, four times as large each time.
    int open_cap = 2048;
    // The table of g values: a hash table of this many slots on chip (12 bytes each; a query may
    // take 3/4 of them), else, and for a query that fills it, a value per cell in global memory.
    int table_slots = 8192;
    bool table_on_chip = true;
    bool map_on_chip = true;   // the two bitmaps in shared memory where they fit beside the open list
    bool open_on_chip = true;  // test hook: false starts in global memory (open_cap entries)
    bool want_path = false;
    const std::atomic<bool>* cancel = nullptr;
    const JpsBits* bits = nullptr;  // jps_bits(map) made beforehand, or null
    // The map's jump distances (jps_jumps(bits)): an expansion reads its cell's eight instead of
    // scanning the bitmaps. Null, or no room for the device copy: the bitmaps are scanned.
    const JpsJumps* jumps = nullptr;
};

struct JpsGpuOutput {
    std::string error;
    ErrorKind error_kind = ErrorKind::Invalid;
    bool cancelled = false;
    double cost = -1;  // -1: unreachable
    std::vector<Vertex> path;
    std::uint64_t expanded = 0;      // jump points expanded
    std::uint64_t iterations = 0;    // of the last launch
    std::uint64_t launches = 0;      // more than one: the open list overflowed and grew
    std::uint64_t open_peak = 0;     // most entries in an open buffer
    std::uint64_t open_cap = 0;      // entries per buffer of the last launch
    JpsCycles cycles;                // of the last launch
    std::uint64_t window_steps = 0;  // the last launch's windows summed over its iterations
    double clock_khz = 0;            // the SM clock (cudaDevAttrClockRate) that counts them
    bool map_on_chip = false, open_on_chip = false, table_on_chip = false;
    bool jump_table = false;  // the runs read from the jump distances (else scanned)
    int block_threads = 0;
    PhaseTimes phases;
    double gpu_compute_ms = 0;
};

// One query under MovingAI's rule (8-connected, no corner cutting: the caller checks) in
// `cost`; start and goal passable.
JpsGpuOutput run_jps_gpu(const GridMap& map, CostMode cost, Vertex start, Vertex goal, const JpsGpuOptions& options);

}  // namespace ps::gpu
