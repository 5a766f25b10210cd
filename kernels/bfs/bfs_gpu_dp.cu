// The dynamic-parallelism GPU BFS (the BFS paper's listing 1): the last block of a level to
// finish tail-launches the next level. The one translation unit of the project built with
// relocatable device code and linked with the device runtime (kernels/CMakeLists.txt), so that
// compute-sanitizer's racecheck, synccheck and initcheck, which skip every kernel of a module
// that uses dynamic parallelism, still check every other kernel.
#include "kernels/bfs/bfs_device.cuh"

namespace ps::gpu::bfs {

// ---- dynamic parallelism: the last block to finish tail-launches the next level ----------
__global__ void dp_level(Graph g, std::int32_t* level, const std::uint32_t* frontier, std::uint32_t count,
                         std::uint32_t* next, Control* ctl, std::int32_t cur, std::uint32_t stop) {
    stamp_enter(g.stamps, g.stamp_cap, cur);
    shared_expand(g, level, frontier, count, next, ctl, cur, stop);
    stamp_exit(g.stamps, g.stamp_cap, cur);
    delay_block(g.delay, 0, std::uint64_t(cur));
    __threadfence();
    __shared__ bool is_last_block;
    if (threadIdx.x == 0) is_last_block = atomicAdd(&ctl->blocks_finished, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!is_last_block || threadIdx.x != 0) return;
    ctl->blocks_finished = 0;
    const unsigned int total = *static_cast<volatile unsigned int*>(&ctl->next_count);
    const bool stop_found = *static_cast<volatile unsigned int*>(&ctl->stop_found) != 0;
    if (total > 0 && !stop_found) {
        ctl->next_count = 0;
        ctl->device_launches += 1;
        const unsigned int blocks = (total + blockDim.x - 1) / blockDim.x;
        dp_level<<<blocks, blockDim.x, shared_queue_bytes(blockDim.x), cudaStreamTailLaunch>>>(
            g, level, next, total, const_cast<std::uint32_t*>(frontier), ctl, cur + 1, stop);
        // A failed launch ends the chain here: say so rather than return a half-labelled BFS.
        if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
            ctl->launch_error = int(err);
            ctl->final_level = cur;
        }
    } else {
        ctl->final_level = total > 0 ? cur + 1 : cur;
    }
}

cudaError_t launch_dp_level(Graph g, std::int32_t* level, std::uint32_t* frontier, std::uint32_t* next, Control* ctl,
                            std::uint32_t stop, unsigned int block_threads, cudaStream_t stream) {
    dp_level<<<1, block_threads, shared_queue_bytes(block_threads), stream>>>(g, level, frontier, 1, next, ctl, 0,
                                                                              stop);
    return cudaGetLastError();
}

}  // namespace ps::gpu::bfs
