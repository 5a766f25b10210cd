// Registers the GPU A* variants (astar.gpu.*).
#pragma once

#include <optional>
#include <string>

#include "kernels/astar/astar_gpu.hpp"
#include "kernels/run/variant.hpp"

namespace ps {

void add_astar_gpu_variants(Registry& registry);

// Shared by every GPU A* adapter (bucket queues and the heap baselines).
// Why the problem cannot run on the integer-metric octile kernels, or nullopt.
std::optional<std::string> astar_gpu_refusal(const Problem& problem);
// The kernels' output as a RunResult: status, phases, path and the common counters;
// `capacity_counter` names the queue's final capacity ("bucket_capacity", "heap_capacity").
RunResult astar_gpu_result(gpu::AStarGpuOutput&& out, const char* capacity_counter);

}  // namespace ps
