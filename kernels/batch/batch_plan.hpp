// Host-side arithmetic of the GPU batch searches (batch.gpu.*), apart from the CUDA code so that
// g++ builds it and tests check it as tables (tests/kernels/batch/test_batch_plan.cpp): the
// sizes behind the memory plan, the plan itself, the order agents are handed to threads, and
// the SIMT efficiency of a run. Plain C++; the device code (batch_kernels.cuh) takes the heap
// layout constants from here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/batch/batch_gpu.hpp"
#include "kernels/graph/graph.hpp"

namespace ps::gpu {

// Pure: the plan for `agents` agents on a graph of `vertices`/`edges` (with coordinates or
// not) within `budget_bytes`. `wanted_slots`: the queue's persistent threads (0 for the
// other strategies: a slot per agent).
BatchMemoryPlan plan_batch_memory(std::uint64_t vertices, std::uint64_t edges, bool coords, std::uint64_t agents,
                                  const BatchGpuOptions& options, std::uint64_t budget_bytes,
                                  std::uint64_t wanted_slots);

}  // namespace ps::gpu

namespace ps::gpu::batch {

// Bytes of what the plan counts on the device, per item (batch_kernels.cuh checks them against
// the device types).
inline constexpr std::uint64_t kRangeBytes = 8;       // a vertex's edge range (uint2)
inline constexpr std::uint64_t kEdgeBytes = 16;       // an edge with its target's x, y (Edge)
inline constexpr std::uint64_t kCoordBytes = 16;      // a vertex's coordinates (float4)
inline constexpr std::uint64_t kPairBytes = 8;        // an agent's (start, goal) (uint2)
inline constexpr std::uint64_t kSlotStateBytes = 16;  // bsp: what a slot carries between launches (SlotState)
inline constexpr std::uint64_t kControlBytes = 24;    // the control block (Control)

// The top levels of every heap live in shared memory (the kernels' dynamic shared memory,
// entry i of thread t at [i * blockDim + t]: no bank conflicts). Every pop walks through them
// and most pushes climb into them; in global memory they would be evicted from L2 between two
// expansions of the same search, since 100,000 concurrent searches stream more than L2 holds
// through it every few microseconds (measured on the H100: each expansion took 64 us of wall
// time; Nsight Compute: 4.5 active threads per warp, stalled on dependent L1TEX accesses).
constexpr std::uint32_t top_entries(int levels) {
    std::uint32_t n = 0, width = 1;
    for (int l = 0; l < levels; ++l, width *= 4) n += width;
    return n;
}

// The heap is 4-ary, stored from index 3: the children of entry i (4i+1 .. 4i+4) then sit at
// 4(i+1) .. 4(i+1)+3, one aligned 32-byte sector in the blocked layout, and the tree is half
// as deep as a binary heap. Slots hold heap_entries(capacity) entries.
inline constexpr std::uint32_t kArity = 4, kHeapOffset = 3;
constexpr std::uint64_t heap_entries(std::uint32_t capacity) {
    return (std::uint64_t(capacity) + kHeapOffset + kArity - 1) / kArity * kArity;
}

// Heap entries per slot: options.heap_capacity, or the vertex count (0 or more than it).
std::uint32_t heap_capacity(const BatchGpuOptions& options, std::uint64_t vertices);

// Heap entries a slot keeps on chip: the shared_levels top levels (none for bsp, whose
// searches outlive a launch), never more than the heap holds.
std::uint32_t top_entries(const BatchGpuOptions& options, std::uint32_t capacity);

// The order agents are handed out in under these options: permute always shuffles, bsp runs
// in index order, batch and queue as asked.
BatchOrder order_of(const BatchGpuOptions& options);

// Device memory the run may use: free memory minus a margin for the CUDA context and other
// users of the GPU (256 MiB or 5% of the total, the larger), within max_working_set_bytes
// when that is set (0: no limit).
std::uint64_t memory_budget(std::uint64_t free_bytes, std::uint64_t total_bytes, std::uint64_t max_working_set_bytes);

// Empty when every agent's start and goal are vertices of `graph`, otherwise which is not.
std::string check_agents(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents);

// Positions -> agents, longest heuristic distance (start -> goal) first, ties in index order.
std::vector<std::uint32_t> longest_first(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents);

// Positions -> agents for `order`: empty for Index (the identity), longest_first, or a
// shuffle of the agent indices seeded with `seed`.
std::vector<std::uint32_t> make_order(BatchOrder order, const CsrGraph& graph,
                                      const std::vector<std::pair<Vertex, Vertex>>& agents, std::uint64_t seed);

// Expansions done / expansions the warps pay for (32 x the longest search of each warp of 32
// consecutive positions), with position i running agent (*order)[i] (null: agent i); 1 when
// nothing was expanded.
double simt_efficiency(const std::vector<std::uint32_t>& steps, const std::vector<std::uint32_t>* order);

}  // namespace ps::gpu::batch
