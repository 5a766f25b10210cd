// Registers astar.gpu.tile: A* over 8x8 tiles of the grid in one thread block, each tile
// settled by a warp (kernels/astar/tile/tile_astar_gpu.hpp).
#pragma once

#include <string>

#include "kernels/astar/tile/tile_astar_gpu.hpp"
#include "kernels/run/variant.hpp"

namespace ps {

void add_tile_astar_variant(Registry& registry);

// One query of `problem` through tile A* with `options` (the map's bitmap made once per map, in
// the variant's NVTX compute range): the result with its path, cost, phases and counters.
// astar.gpu.block runs its queries through it where plain block A* would search (its `tile`).
RunResult run_tile_query(const std::string& id, const Problem& problem, const RunContext& context,
                         gpu::TileAStarOptions options);

}  // namespace ps
