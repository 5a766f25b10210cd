// Host-side CUDA helpers: errors as exceptions inside the .cu files (turned into the output's
// error and its kind at the plain-C++ API boundary, by run_phases in gpu_run.cuh), RAII device
// buffers, streams and events.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <mutex>

#include "kernels/base/expected.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/gpu/gpu_test_delay.hpp"

namespace ps::gpu {

#ifdef __CUDACC__
// The device clock the timeline's device stamps use (%globaltimer, nanoseconds).
__device__ __forceinline__ unsigned long long global_timer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Level stamps for the timeline (detail::LevelStamps): called by every thread of a block at
// the start / end of its share of a level (or round); `stamps` null when not tracing.
__device__ __forceinline__ void stamp_enter(unsigned long long* stamps, std::uint32_t cap, std::int32_t level) {
    if (stamps && threadIdx.x == 0 && std::uint32_t(level) < cap) atomicMin(stamps + level, global_timer());
}
__device__ __forceinline__ void stamp_exit(unsigned long long* stamps, std::uint32_t cap, std::int32_t level) {
    if (!stamps) return;
    __syncthreads();
    if (threadIdx.x == 0 && std::uint32_t(level) < cap) atomicMax(stamps + cap + level, global_timer());
}

// Test-only (BlockDelay): whether a hash of (seed, site, step, who) picks the caller, and the wait.
__device__ __forceinline__ bool delay_picked(const BlockDelay& d, unsigned site, unsigned long long step,
                                             unsigned who) {
    std::uint64_t h =
        (std::uint64_t(d.seed) << 40) ^ (std::uint64_t(site) << 32) ^ (step * 0x9E3779B97F4A7C15ull) ^ who;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return d.one_in <= 1 || h % d.one_in == 0;
}
__device__ __forceinline__ void delay_wait(unsigned ns) {
    const unsigned long long until = global_timer() + ns;
    while (global_timer() < until) __nanosleep(500);
}
// The calling block waits d.ns when the hash picks it. Every thread of the block waits alike,
// so warps stay converged.
__device__ __forceinline__ void delay_block(const BlockDelay& d, unsigned site, unsigned long long step) {
    if (d.ns != 0 && delay_picked(d, site, step, blockIdx.x)) delay_wait(d.ns);
}
// The calling warp waits d.ns when the hash picks it (kernels whose warps coordinate through
// shared state between block barriers).
__device__ __forceinline__ void delay_warp(const BlockDelay& d, unsigned site, unsigned long long step) {
    if (d.ns != 0 && delay_picked(d, site, step, threadIdx.x >> 5)) delay_wait(d.ns);
}

// A kernel's one result struct (with a last field `std::uint32_t done`), written by one thread as
// its final act: the fields, a fence that orders them (and the thread's earlier writes, such as
// a path) before what follows for the host too, then done = 1, which detail::await_result spins
// on where `out` is mapped pinned memory.
template <class T>
__device__ __forceinline__ void publish_result(T* out, T result) {
    result.done = 0;
    *out = result;
    __threadfence_system();
    *reinterpret_cast<volatile std::uint32_t*>(&out->done) = 1u;
}
#endif

}  // namespace ps::gpu

namespace ps::gpu::detail {

// A failure inside a GPU run: thrown in the .cu files, turned into the output's error and its
// kind by run_phases (kernels/gpu/gpu_run.cuh).
struct RunError : std::runtime_error {
    RunError(ErrorKind error_kind, const std::string& message) : std::runtime_error(message), kind(error_kind) {}
    ErrorKind kind;
};

// The GPU failed: a CUDA call, GPU memory, or no usable device.
struct CudaError : RunError {
    explicit CudaError(const std::string& message) : RunError(ErrorKind::Device, message) {}
};

inline void check(cudaError_t err, const char* what) {
    if (err == cudaSuccess) return;
    cudaGetLastError();  // clear non-sticky errors so the next run starts clean
    throw CudaError(std::string(what) + ": " + cudaGetErrorString(err));
}

// The SM clock's rate in kHz (what kernels' clock64() counts are divided by), read once per
// device: cudaDevAttrClockRate took about 0.4 ms a call on the H200, and GPU JPS and tile A*
// read it for every query.
inline int sm_clock_khz(int device) {
    static std::mutex mutex;
    static std::vector<int> rates;
    const std::lock_guard<std::mutex> lock(mutex);
    if (device < 0) throw CudaError("no CUDA device selected");
    if (rates.size() <= std::size_t(device)) rates.resize(std::size_t(device) + 1, 0);
    if (rates[std::size_t(device)] == 0)
        check(cudaDeviceGetAttribute(&rates[std::size_t(device)], cudaDevAttrClockRate, device),
              "reading the SM clock");
    return rates[std::size_t(device)];
}

// The dynamic shared memory a block of a kernel with these attributes may take on `device`:
// the per-block opt-in limit less the kernel's own static shared memory, which comes out of
// the same limit (a launch asking for the whole opt-in limit fails with "invalid argument").
inline std::size_t dynamic_shared_limit(const cudaFuncAttributes& kernel, int device) {
    int optin = 0;
    check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "reading the shared memory limit");
    return std::size_t(optin) - std::min(std::size_t(optin), kernel.sharedSizeBytes);
}

using ps::mib;

// Path cells a run keeps room for in the pinned staging (1 MiB): longer paths are read into
// pageable memory (a 10000^2 maze's path could otherwise pin 200 MB for the process).
constexpr std::size_t kPinnedPathCells = std::size_t(1) << 18;

// Pinned host memory kept for the whole process and lent to one run at a time: copies through
// it run at PCIe speed, where pageable copies ran at about 1 GB/s on the H100 machine (0.9 ms
// each way for 100,000 agents' inputs and results). It grows and is never freed (no teardown
// order to get wrong at exit). Empty when another run holds it or pinned memory cannot be had:
// the caller then copies from pageable memory.
class PinnedStaging {
public:
    static PinnedStaging acquire(std::size_t bytes) {
        static std::mutex mutex;
        static void* buffer = nullptr;
        static std::size_t capacity = 0;
        PinnedStaging s;
        s.m_lock = std::unique_lock<std::mutex>(mutex, std::try_to_lock);
        if (!s.m_lock.owns_lock()) return s;
        if (capacity < bytes) {
            void* grown = nullptr;
            if (cudaMallocHost(&grown, bytes) != cudaSuccess) {
                cudaGetLastError();
                s.m_lock.unlock();
                return s;
            }
            if (buffer) cudaFreeHost(buffer);
            buffer = grown;
            capacity = bytes;
        }
        s.m_data = static_cast<std::byte*>(buffer);
        s.m_capacity = bytes;
        return s;
    }
    explicit operator bool() const { return m_data != nullptr; }
    // The next `count` Ts of the buffer (16-byte aligned), or null when it is empty or full.
    template <class T>
    T* take(std::size_t count) {
        const std::size_t at = (m_used + 15) / 16 * 16, bytes = count * sizeof(T);
        if (!m_data || at + bytes > m_capacity) return nullptr;
        m_used = at + bytes;
        return reinterpret_cast<T*>(m_data + at);
    }
    // What take() needs for these arrays: each rounded up to 16 bytes.
    static std::size_t bytes_for(std::initializer_list<std::size_t> sizes) {
        std::size_t total = 0;
        for (std::size_t b : sizes) total += (b + 15) / 16 * 16;
        return total;
    }

private:
    std::unique_lock<std::mutex> m_lock;
    std::byte* m_data = nullptr;
    std::size_t m_capacity = 0, m_used = 0;
};

// Mapped pinned memory for a single-launch kernel's result and, where its longest path fits
// kPinnedPathCells, its path: the kernel writes both straight to the host (publish_result), so
// no copy follows the launch and neither is read after a stream sync. Null pointers (copies
// from device memory instead) where another run holds the staging or it cannot grow.
template <class Out>
struct PinnedResult {
    PinnedResult() = default;
    explicit PinnedResult(std::size_t path_cells) {
        const bool path_fits = path_cells <= kPinnedPathCells;
        staging = PinnedStaging::acquire(PinnedStaging::bytes_for({sizeof(Out), path_fits ? path_cells * 4 : 0}));
        result = staging.take<Out>(1);
        if (result && path_fits && path_cells > 0) path = staging.take<std::uint32_t>(path_cells);
    }

    PinnedStaging staging;  // held for the run: the kernel writes there
    Out* result = nullptr;
    std::uint32_t* path = nullptr;
};

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t count, const char* what) { allocate(count, what); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : m_ptr(std::exchange(o.m_ptr, nullptr)), m_count(o.m_count) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        release();
        m_ptr = std::exchange(o.m_ptr, nullptr);
        m_count = o.m_count;
        return *this;
    }

    void allocate(std::size_t count, const char* what) {
        release();
        const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(T);
        cudaError_t err = cudaMalloc(&m_ptr, bytes);
        if (err != cudaSuccess) {
            m_ptr = nullptr;
            cudaGetLastError();
            std::size_t free = 0, total = 0;
            cudaMemGetInfo(&free, &total);
            if (err == cudaErrorMemoryAllocation)
                throw CudaError("out of GPU memory: " + std::string(what) + " needs " + mib(bytes) + ", " + mib(free) +
                                " of " + mib(total) + " free");
            check(err, what);
        }
        m_count = count;
    }
    void release() {
        if (m_ptr) cudaFree(m_ptr);
        m_ptr = nullptr;
        m_count = 0;
    }
    T* get() const { return m_ptr; }
    std::size_t size() const { return m_count; }

private:
    T* m_ptr = nullptr;
    std::size_t m_count = 0;
};

// Device memory kept between runs, so that a search launched once per query makes no
// cudaMalloc (and no cudaFree, which waits for the whole device) after its first run. take()
// hands out a kept block of the current device at least `bytes` and at most four times as
// large, or a new one; give() waits for the device (a failed run may have left work running
// on its block) and keeps the block, up to kKept blocks of at most kMaxBytes (others are
// freed). Thread-safe. The kept blocks live until the process ends.
class ScratchCache {
public:
    static constexpr std::size_t kMaxBytes = std::size_t(256) << 20;
    static constexpr std::size_t kKept = 4;

    static DeviceBuffer<unsigned char> take(std::size_t bytes, const char* what) {
        int device = 0;
        cudaGetDevice(&device);
        {
            std::lock_guard<std::mutex> lock(mutex());
            auto& kept = blocks();
            auto best = kept.end();
            for (auto it = kept.begin(); it != kept.end(); ++it)
                if (it->device == device && it->buffer.size() >= bytes && it->buffer.size() / 4 <= bytes &&
                    (best == kept.end() || it->buffer.size() < best->buffer.size()))
                    best = it;
            if (best != kept.end()) {
                DeviceBuffer<unsigned char> b = std::move(best->buffer);
                kept.erase(best);
                return b;
            }
        }
        return DeviceBuffer<unsigned char>(bytes, what);
    }

    static void give(DeviceBuffer<unsigned char> buffer) {
        if (!buffer.get() || buffer.size() > kMaxBytes) return;  // freed here
        if (cudaDeviceSynchronize() != cudaSuccess) {
            cudaGetLastError();
            return;  // a broken context: free it, keep nothing
        }
        int device = 0;
        cudaGetDevice(&device);
        std::lock_guard<std::mutex> lock(mutex());
        auto& kept = blocks();
        if (kept.size() == kKept) kept.erase(kept.begin());  // the oldest goes
        kept.push_back({device, std::move(buffer)});
    }

private:
    struct Block {
        int device;
        DeviceBuffer<unsigned char> buffer;
    };
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    static std::vector<Block>& blocks() {
        static auto* kept = new std::vector<Block>();  // never destroyed: no cudaFree after the runtime's end
        return *kept;
    }
};

// Arrays carved out of one device allocation (each 256-byte aligned): a run takes one block
// per set of arrays, not one per array, from the blocks earlier runs gave back (ScratchCache),
// and gives them back at its end.
class Carving {
public:
    Carving() = default;
    Carving(const Carving&) = delete;
    Carving& operator=(const Carving&) = delete;
    ~Carving() { ScratchCache::give(std::move(m_memory)); }

    // Reserves `count` elements of T; returns the array's byte offset.
    template <class T>
    std::size_t add(std::size_t count) {
        const std::size_t at = (m_bytes + 255) / 256 * 256;
        m_bytes = at + std::max<std::size_t>(1, count) * sizeof(T);
        return at;
    }
    void allocate(const char* what) { m_memory = ScratchCache::take(m_bytes, what); }
    template <class T>
    T* at(std::size_t offset) const {
        return reinterpret_cast<T*>(m_memory.get() + offset);
    }

private:
    std::size_t m_bytes = 0;
    DeviceBuffer<unsigned char> m_memory;
};

class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "creating a CUDA stream"); }
    ~Stream() { cudaStreamDestroy(m_stream); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    operator cudaStream_t() const { return m_stream; }
    void sync(const char* what) const { check(cudaStreamSynchronize(m_stream), what); }

private:
    cudaStream_t m_stream = nullptr;
};

// A kernel's one result struct copied back from `device` after the stream's work (where it is
// not in mapped memory: await_result's fallback).
template <class T>
T read_result(const Stream& stream, const T* device, const char* what) {
    T host{};
    check(cudaMemcpyAsync(&host, device, sizeof(T), cudaMemcpyDeviceToHost, stream), what);
    stream.sync(what);
    return host;
}

// A single-launch kernel's result struct, written with publish_result. Where it is mapped
// pinned memory (`pinned`, armed by arm_result before the launch) the host spins on its done
// flag instead of synchronising the stream: the flag is seen a few microseconds before the
// stream's completion is (H200, a 1-block kernel: launch and wait 5.6-9.1 us against 12.2-12.5
// with cudaStreamSynchronize). The stream is queried between reads of the flag, so a kernel
// that failed or ended without publishing is reported rather than waited on forever. Else the
// result is copied back from `device` after the stream's work.
template <class T>
T* arm_result(T* pinned) {
    if (pinned) *reinterpret_cast<volatile std::uint32_t*>(&pinned->done) = 0u;
    return pinned;
}

template <class T>
T await_result(const Stream& stream, const T* pinned, const T* device, const char* what) {
    if (!pinned) return read_result(stream, device, what);
    const volatile std::uint32_t* done = reinterpret_cast<const volatile std::uint32_t*>(&pinned->done);
    // The stream is queried at growing intervals (20 us doubling up to 1 ms): a traced run
    // records every runtime call, and a long query would otherwise leave millions of them.
    using Clock = std::chrono::steady_clock;
    auto interval = std::chrono::microseconds(20);
    auto next_query = Clock::now() + interval;
    while (*done == 0u) {
        if (Clock::now() < next_query) continue;
        interval = std::min(interval * 2, std::chrono::microseconds(1000));
        next_query = Clock::now() + interval;
        const cudaError_t state = cudaStreamQuery(stream);
        if (state == cudaErrorNotReady) continue;
        check(state, what);  // the kernel failed
        if (*done == 0u)     // the stream is done: the flag was written before it
            throw RunError(ErrorKind::Internal, std::string(what) + ": the kernel ended without its result");
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    T result;
    std::memcpy(&result, pinned, sizeof(T));
    return result;
}

// The first `count` elements of a device array, after the stream's work so far.
template <class T>
std::vector<T> read_array(const Stream& stream, const T* device, std::size_t count, const char* what) {
    std::vector<T> host(count);
    if (count == 0) return host;
    check(cudaMemcpyAsync(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost, stream), what);
    stream.sync(what);
    return host;
}

// The same from where the kernel wrote it: mapped pinned memory (`pinned`, after await_result
// returned the result the kernel published after it) or else the device array.
template <class T>
std::vector<T> read_array(const Stream& stream, const T* pinned, const T* device, std::size_t count, const char* what) {
    if (pinned) return std::vector<T>(pinned, pinned + count);
    return read_array(stream, device, count, what);
}

class Event {
public:
    Event() { check(cudaEventCreate(&m_event), "creating a CUDA event"); }
    ~Event() { cudaEventDestroy(m_event); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    void record(cudaStream_t s) { check(cudaEventRecord(m_event, s), "recording a CUDA event"); }
    // The time from `start` to this event, once this one has completed (a run whose result came
    // through mapped memory may not have waited for it).
    float ms_since(const Event& start) const {
        float ms = 0;
        check(cudaEventSynchronize(m_event), "waiting for a CUDA event");
        check(cudaEventElapsedTime(&ms, start.m_event, m_event), "reading CUDA event times");
        return ms;
    }

private:
    cudaEvent_t m_event = nullptr;
};

// Pinned host memory for small per-level readbacks (a frontier count, a flag).
template <class T>
class PinnedValue {
public:
    PinnedValue() { check(cudaMallocHost(&m_ptr, sizeof(T)), "allocating pinned host memory"); }
    ~PinnedValue() { cudaFreeHost(m_ptr); }
    PinnedValue(const PinnedValue&) = delete;
    PinnedValue& operator=(const PinnedValue&) = delete;
    T* get() const { return m_ptr; }
    T& operator*() const { return *m_ptr; }
    T* operator->() const { return m_ptr; }

private:
    T* m_ptr = nullptr;
};

// Device buffer of per-level (entry, exit) %globaltimer stamps: entries start at the maximum
// (atomicMin), exits at 0 (atomicMax). At most `cap` levels are stamped.
class LevelStamps {
public:
    void allocate(std::uint32_t cap, cudaStream_t stream) {
        m_cap = cap;
        m_buffer.allocate(2 * std::size_t(cap), "the level stamps");
        check(cudaMemsetAsync(m_buffer.get(), 0xFF, cap * sizeof(unsigned long long), stream), "clearing level stamps");
        check(cudaMemsetAsync(m_buffer.get() + cap, 0, cap * sizeof(unsigned long long), stream),
              "clearing level stamps");
    }
    unsigned long long* get() const { return m_buffer.get(); }
    std::uint32_t cap() const { return m_cap; }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> download(std::uint32_t levels, cudaStream_t stream) const {
        const std::uint32_t n = std::min(levels, m_cap);
        std::vector<unsigned long long> raw(2 * std::size_t(m_cap));
        std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
        if (!m_buffer.get() || n == 0) return out;
        check(cudaMemcpyAsync(raw.data(), m_buffer.get(), raw.size() * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, stream),
              "downloading level stamps");
        check(cudaStreamSynchronize(stream), "downloading level stamps");
        for (std::uint32_t l = 0; l < n; ++l) out.emplace_back(raw[l], raw[m_cap + l]);
        return out;
    }

private:
    DeviceBuffer<unsigned long long> m_buffer;
    std::uint32_t m_cap = 0;
};

// Levels stamped at most: enough for any grid BFS we time, bounded in memory (16 MiB).
inline constexpr std::uint32_t kMaxStampedLevels = 1u << 20;

}  // namespace ps::gpu::detail
