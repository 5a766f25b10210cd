// Registers the BBA* paper's GPU A* baselines (astar.gpu.lock, astar.gpu.heaps).
#pragma once

#include "kernels/run/variant.hpp"

namespace ps {

void add_astar_gpu_baseline_variants(Registry& registry);

}  // namespace ps
