// The GPU flow field (flowfield.gpu): the distance field from a goal over the whole grid and
// the direction per cell, in the integer metric of kernels/flowfield/flowfield.hpp (BFS levels on
// plain 4-connected maps, otherwise weighted by the cells' costs: 1000/1414 on plain cells; all
// three corner rules). Plain C++ header in front of kernels/flowfield/flowfield_gpu.cu.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/gpu/gpu_test_delay.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::gpu {

struct FlowFieldGpuOptions {
    const std::atomic<bool>* cancel = nullptr;  // polled before the compute phase
    bool stamp_rounds = false;                  // %globaltimer (entry, exit) per round, for the timeline
    BlockDelay test_delay;                      // test-only: blocks delayed on purpose (kernels/gpu/gpu_test_delay.hpp)
};

struct FlowFieldGpuOutput {
    std::string error;                          // empty on success
    ErrorKind error_kind = ErrorKind::Invalid;  // with an error: what failed (Device: CUDA, GPU memory, no GPU)
    bool cancelled = false;
    std::vector<std::int32_t> distance;  // per cell, -1 where blocked or unreachable
    std::vector<std::uint8_t> dirs;      // per cell, 255 where none (flowfield.hpp's table)
    bool levels = false;                 // distances in BFS levels (flow_uses_levels)
    bool weighted = false;               // the map has cell costs: the weighted tile kernel ran
    PhaseTimes phases;                   // host clock, as the other GPU variants measure
    double gpu_compute_ms = 0;           // CUDA events around the compute phase
    std::uint64_t host_launches = 0;
    std::uint64_t global_steps = 0;      // rounds of the persistent kernel (one grid barrier each)
    std::uint64_t tile_passes = 0;       // 32x32 tiles relaxed, summed over rounds
    std::uint64_t sweep_iterations = 0;  // 32-step sweeps inside tiles, summed over passes
    std::uint64_t pass_cycles[3] = {};   // SM clock cycles of tile passes: load, sweeps, write-back
    std::vector<std::pair<std::uint64_t, std::uint64_t>> round_stamps;
};

// Never throws: CUDA failures, a missing GPU, a blocked goal or GPU memory exhaustion come
// back as `error` with a message.
FlowFieldGpuOutput run_flowfield_gpu(const GridMap& map, MoveRules rules, Vertex goal,
                                     const FlowFieldGpuOptions& options);

}  // namespace ps::gpu
