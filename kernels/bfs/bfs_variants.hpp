// Registers the GPU BFS variants (bfs.gpu.*).
#pragma once

#include "kernels/run/variant.hpp"

namespace ps {

void add_bfs_gpu_variants(Registry& registry);

}  // namespace ps
