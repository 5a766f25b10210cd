// Registers the many-agent GPU variants (batch.gpu.bsp, .batch, .queue, .permute).
#pragma once

#include "kernels/run/variant.hpp"

namespace ps {

void add_batch_gpu_variants(Registry& registry);

}  // namespace ps
