// Tile A* on the GPU in one thread block (astar.gpu.tile): A* whose nodes are 8x8 tiles of the
// grid, each settled exactly inside by a warp, so that a search's chain of barriers is about a
// tile per step of the path instead of a cell. Plain C++ header in front of CUDA
// (kernels/astar/tile/tile_astar_gpu.cu).
//
// Why: block A* (kernels/search/grid_astar_gpu.hpp) expands a cell's successor along the path
// one barrier after the cell, so a query costs about an iteration per cell of its path (a
// 700-cell random512-10-0 path: 700 iterations of 2-4 us however many threads wait), and Jump
// Point Search only shortens that where jump points are sparse. Here an iteration hands each
// warp a tile: the warp loads the tile's 64 g values and the 36 of the ring around it, relaxes
// the tile's cells from each other and from the ring until nothing changes (a sweep of every
// cell's legal moves per round; a straight run across the tile takes 8 rounds of a few shared
// loads, not 8 barriers), writes the lowered values back and pushes the ring's cells it lowers,
// with their tile, into the next iteration's open list.
//
// State: g << 3 | the arrival move per cell of the map in global memory (8 bytes a cell,
// cleared per query; at most a few MiB, L2-resident, on the MovingAI maps), a key per tile (the
// lowest f = g + h of the tile's cells lowered since the tile was last processed; none: not
// open) and the open list of tiles, both in shared memory where they fit. Each iteration takes
// the open tiles whose key is within `band` orthogonal steps of the lowest key, up to a warp's
// worth of tiles per warp.
// The lowest key of each open list and the goal's g sit in shared memory, kept up by the atomics
// that change them (the selection's kept tiles, the pushes, the goal's writes), so an iteration
// makes one pass over the list and has two barriers.
//
// Exact: every value written is the cost of a path; a lowered cell's tile is open with a key no
// higher than the cell's f until a warp has relaxed from it, and the heuristic (octile, or
// Manhattan 4-connected) is consistent, so while the goal's g is above the lowest key some open
// tile holds a cell of a cheaper path; the search ends when it is not. Integer costs: the
// integer metric's 1000 and 1414, the real metric in 33461 and 47321 (grid_costs.cuh: a
// convergent of sqrt(2), 2.3e-10 relative). The path is walked back from the goal through the
// arrival moves (each cell's value was written with the move that gave it, in one atomicMin).
// Every movement rule (4- and 8-connected, the three corner rules).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/gpu/gpu_test_delay.hpp"
#include "kernels/map/grid_map.hpp"
#include "kernels/search/grid_astar_gpu.hpp"

namespace ps::gpu {

struct TileAStarOptions {
    int block_threads = 1024;  // a warp per tile: 32 tiles an iteration
    // Open tiles whose key is within this many orthogonal steps of the lowest key are processed in
    // the same iteration (again if their cells are lowered later). Negative: adapting, from 8,
    // between 1 and band_max: an iteration with fewer candidates than warps doubles it, one with
    // more than twice as many halves it. H200, integer metric, compute, band 2 / 4 / 8: every 5th
    // random512-10-0 scenario 241 / 255 / 310 ms, den520d 60 / 53 / 49, 50 pairs on random 1024^2
    // 80 / 82 / 101, rooms 512^2 39 / 34 / 33 (README; adapting was slower on random maps).
    int band = 4;
    int band_max = 64;
    int tiles_per_warp = 1;  // tiles a warp may take an iteration (at most 128 a block)
    // The tiles' keys and the open list (12 bytes a tile) in shared memory where they fit; else,
    // and with false, in global memory.
    bool meta_on_chip = true;
    bool want_path = false;
    const std::atomic<bool>* cancel = nullptr;
    const GridBits* bits = nullptr;  // grid_bits(map) made beforehand, or null
    // Test-only: warps picked at random wait where a slow warp exposes a race (after taking a
    // tile, between writing the tile back and pushing its ring), with ns and one_in as for blocks.
    BlockDelay test_delay;
    // Test-only: every window in 64 bits (the form taken where a window's values span 2^27 or
    // more, which small test maps never reach).
    bool test_wide_windows = false;
};

// Where the last launch's time went, in the SM's clock cycles (clock64), thread 0's view: the
// setup before the loop and the path walk after it; summed over the iterations, finding the
// lowest key and taking the tiles (select) and processing them up to the block's barrier
// (process); and warp 0's own tiles' parts, summed over them: loading the window, relaxing the
// tile, writing it back, pushing the ring.
struct TileCycles {
    unsigned long long setup = 0, walk = 0, select = 0, process = 0;
    unsigned long long load = 0, relax = 0, write_back = 0, ring = 0;
    unsigned long long own_tiles = 0;  // warp 0's
};

struct TileAStarOutput {
    std::string error;
    ErrorKind error_kind = ErrorKind::Invalid;
    bool cancelled = false;
    double cost = -1;  // -1: unreachable
    std::vector<Vertex> path;
    std::uint64_t lowered = 0;     // cell values lowered (the tiles' write-backs and ring pushes)
    std::uint64_t tiles = 0;       // tiles processed, again counted again
    std::uint64_t iterations = 0;  // block barriers' rounds
    std::uint64_t sweeps = 0;      // relaxation rounds summed over the tiles processed
    std::uint64_t open_peak = 0;   // most open tiles at the top of an iteration
    std::uint64_t band_steps = 0;  // the bands summed over the iterations, in orthogonal steps
    TileCycles cycles;             // of the last launch
    double clock_khz = 0;          // the SM clock (cudaDevAttrClockRate) that counts them
    bool meta_on_chip = false;
    int block_threads = 0;
    PhaseTimes phases;
    double gpu_compute_ms = 0;
};

// One query under `rules` in `cost`; start and goal passable (callers check with Problem::check).
TileAStarOutput run_tile_astar_gpu(const GridMap& map, MoveRules rules, CostMode cost, Vertex start, Vertex goal,
                                   const TileAStarOptions& options);

}  // namespace ps::gpu
