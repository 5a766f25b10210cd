// Registers batch.gpu.grid: every agent of a grid-map batch searched by its own thread block
// (block A*, kernels/search/grid_astar_gpu.hpp).
#pragma once

#include "kernels/run/variant.hpp"

namespace ps {

void add_batch_grid_variant(Registry& registry);

}  // namespace ps
