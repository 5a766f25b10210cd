// Test-only hook for the GPU kernels whose blocks coordinate through flags and grid barriers:
// blocks picked at random wait on purpose at the points where a slow block exposes a race
// (just after a barrier, before reading or clearing shared state). Under a correct protocol a
// delay never changes a result; two races that passed every normal test were found this way.
// Variants never set it (ns = 0 costs one uniform branch per site).
#pragma once

#include <cstdint>

namespace ps::gpu {

struct BlockDelay {
    std::uint32_t ns = 0;      // how long a picked block waits; 0: off
    std::uint32_t one_in = 2;  // at each site and step a block is picked with probability 1/one_in
    std::uint32_t seed = 0;    // which blocks are picked where
};

}  // namespace ps::gpu
