// Registers the GPU A* variants (astar.gpu.*).
#pragma once

#include "kernels/variant.hpp"

namespace ps {

void add_astar_gpu_variants(Registry& registry);

}  // namespace ps
