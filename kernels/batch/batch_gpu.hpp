// Many agents' searches on the GPU, one thread per agent (the 2008 many-agent paper), under
// the scheduling strategies of the Diderot CUDA study: one launch per expansion step (bsp),
// run to completion (batch), persistent threads taking agents from a global counter (queue),
// and run to completion over a shuffled agent order (permute); explicit copies or unified
// memory. Plain C++ header in front of kernels/batch/batch_gpu.cu.
//
// Working set: every search slot (one per agent in a launch; one per persistent thread for
// the queue, reused agent after agent) holds an 8-byte state per vertex (g as float, a 32-bit
// tag = generation << 2 | mark | closed) and a 4-ary heap of 8-byte entries (float f, vertex)
// with lazy deletion. A slot is never cleared between searches: an entry whose generation is
// not the current one reads as untouched. The heap's top levels (shared_levels) live in
// shared memory: every pop walks through them, and 100,000 concurrent searches stream more
// through L2 between two expansions of one search than L2 holds (H100: 3 levels took the
// queue strategy from 44 to 35 ms on 100k agents). Edges carry their target's x, y so a
// relaxation is one 16-byte load. When the working set does not fit the memory budget, the
// agents run in several sequential launches ("chunks").
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/graph/graph.hpp"

namespace ps::gpu {

enum class BatchStrategy : std::uint8_t { Bsp, Batch, Queue, Permute };
enum class BatchMemory : std::uint8_t { Explicit, Unified };
// Interleaved: entry i of slot s at i * slots + s (neighbouring threads' entries adjacent: the
// 2008 paper's coalescing layout, pays off at the heap top where a warp reads the same index).
// Blocked: each slot's entries contiguous (one thread's accesses share cache lines).
enum class BatchLayout : std::uint8_t { Interleaved, Blocked };
// The order agents are handed to threads. Shuffle is what the permute strategy does (random
// mixing, the Diderot study); LongestFirst sorts by the heuristic distance start -> goal,
// longest first, so that a warp's 32 searches take similar times and a queue ends with
// short ones (longest-processing-time-first scheduling). Measured (H200, 100k agents on a
// 4096-node roadmap): SIMT efficiency 0.32 -> 0.54 yet 37% slower: the run is bound by the
// longest searches' latency, and they run fastest alone at the end of an index-ordered run.
enum class BatchOrder : std::uint8_t { Index, Shuffle, LongestFirst };

struct BatchGpuOptions {
    BatchStrategy strategy = BatchStrategy::Queue;
    BatchMemory memory = BatchMemory::Explicit;
    // Unified: migrate the working set to the GPU before the searches (cudaMemPrefetchAsync)
    // rather than on first touch, page fault by page fault.
    bool prefetch = true;
    BatchLayout layout = BatchLayout::Blocked;  // 1.4x faster than interleaved on the H100 and H200
    BatchOrder order = BatchOrder::Index;       // batch and queue; permute always shuffles; bsp: index
    int block_size = 128;
    int grid_size = 0;    // queue: persistent blocks; 0 = as many as fit (occupancy x SMs)
    int per_dequeue = 1;  // queue: agents a thread takes per atomic dequeue
    // Levels of every 4-ary heap kept in shared memory (0-4: 0, 1, 5, 21, 85 entries of 8
    // bytes per thread); bsp keeps none (its searches outlive a launch).
    int shared_levels = 3;
    bool zero_heuristic = false;  // Dijkstra instead of A*
    // Heap entries per slot; 0 = the vertex count, which never overflows (a full heap is
    // compacted to one entry per open vertex). Smaller saves memory on big graphs; an agent
    // whose open list outgrows it fails the run with a message.
    std::uint32_t heap_capacity = 0;
    // Memory the run may use on the device; 0 = free memory minus a margin. Never more than that.
    std::uint64_t max_working_set_bytes = 0;
    int sync_every = 1;                         // bsp: launches between reads of the done count
    std::uint64_t permute_seed = 1;             // permute: the shuffle of the agent index space
    const std::atomic<bool>* cancel = nullptr;  // polled between launches
    // Stamp every agent's start and end (%globaltimer) and the SM it ran on: the timeline's
    // per-SM load. Costs two clock reads and three stores per agent.
    bool stamp_agents = false;
};

// How the run uses device memory: worked out before anything is allocated.
struct BatchMemoryPlan {
    std::string error;                    // empty when the run fits
    std::uint64_t graph_bytes = 0;        // CSR offsets, packed edges, coordinates
    std::uint64_t agent_io_bytes = 0;     // (start, goal), cost, steps (and order) for every agent
    std::uint64_t bytes_per_slot = 0;     // one search's working set (vertex states + heap)
    std::uint64_t budget_bytes = 0;       // what the plan had to fit into
    std::uint64_t slots = 0;              // concurrent searches per launch
    std::uint64_t chunks = 0;             // sequential launches (queue: always 1)
    std::uint64_t working_set_bytes = 0;  // everything allocated
    std::string describe() const;         // one line for messages and the CLI
};

// The plan itself, a pure function: plan_batch_memory in kernels/batch/batch_plan.hpp.

// The plan run_batch_gpu would make now for `agents` agents on `graph` (free GPU memory as of
// this call): shown before a run. Without a GPU, error says why.
BatchMemoryPlan plan_batch_gpu(const CsrGraph& graph, std::uint64_t agents, const BatchGpuOptions& options);

struct BatchGpuOutput {
    std::string error;                          // empty on success
    ErrorKind error_kind = ErrorKind::Invalid;  // with an error: what failed (Device: CUDA, GPU memory, no GPU)
    bool cancelled = false;
    std::vector<double> costs;         // per agent, -1 when the goal is unreachable
    std::vector<std::uint32_t> steps;  // per agent: vertices expanded
    std::string heuristic;             // what the searches used, in words
    BatchMemoryPlan plan;
    // Host clock, milliseconds, from before the first allocation until the results are on the
    // host (clean-up excluded), as the other GPU variants measure.
    PhaseTimes phases;
    double gpu_compute_ms = 0;  // CUDA events around the compute phase
    std::uint64_t host_launches = 0;
    std::uint64_t threads = 0;          // threads per launch (queue: persistent threads)
    int block_size = 0, grid_size = 0;  // of the (last) main launch
    std::uint64_t compactions = 0;      // heaps compacted because they filled up
    // bsp, batch, permute: expansions done / expansions the warps pay for (32 x the longest
    // search of each warp of 32 consecutive threads): 1 = no load imbalance inside warps.
    double simt_efficiency = 0;
    // With stamp_agents, per agent: start and end (%globaltimer ns) and SM id; else empty.
    std::vector<std::uint64_t> agent_start_ns, agent_end_ns;
    std::vector<std::uint32_t> agent_sm;
};

// Cost and expansions of every (start, goal) pair on `graph`, with the heuristic batch.cpu
// uses (choose_batch_heuristic in kernels/batch/batch_cpu.hpp: grid octile, scaled Euclidean on
// coords, or zero). Weights and g are float on the device: costs agree with a double-precision
// CPU search to about 1e-6 relative (the real-metric heuristics are shrunk by 1e-6 so float
// rounding never makes them overestimate).
BatchGpuOutput run_batch_gpu(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
                             const BatchGpuOptions& options);

// The same searches (heap, compaction, generations, layout strides, heuristic) run on the CPU,
// one after another over `slots` reused slots: lets machines without a GPU test the device
// algorithm itself. Fills costs, steps, compactions, heuristic and error only.
BatchGpuOutput emulate_batch_gpu(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
                                 const BatchGpuOptions& options, std::uint32_t slots);

std::string_view to_string(BatchStrategy s);

}  // namespace ps::gpu
