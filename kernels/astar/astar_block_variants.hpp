// Registers astar.gpu.block: one query in one thread block (block A*, kernels/search/grid_astar_gpu.hpp).
#pragma once

#include "kernels/run/variant.hpp"

namespace ps {

void add_astar_block_variant(Registry& registry);

}  // namespace ps
