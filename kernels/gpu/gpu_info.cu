// CUDA runtime queries behind gpu_info.hpp. Any error counts as "no GPU" with its message:
// without a driver the runtime returns cudaErrorInsufficientDriver (35), elsewhere
// cudaErrorNoDevice (100).
#include "kernels/gpu/gpu_info.hpp"

#include <cuda_runtime.h>

#include <cstdio>

namespace ps {
namespace {

GpuInfo query() {
    GpuInfo info;
    cudaRuntimeGetVersion(&info.runtime_version);
    cudaDriverGetVersion(&info.driver_version);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        info.reason = err != cudaSuccess ? std::string("no usable GPU: ") + cudaGetErrorString(err) + " (CUDA error " +
                                               std::to_string(int(err)) + ")"
                                         : std::string("no CUDA device found");
        cudaGetLastError();  // clear the sticky-free error so later calls start clean
        return info;
    }
    cudaDeviceProp prop{};
    if ((err = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess) {
        info.reason = std::string("cannot query GPU 0: ") + cudaGetErrorString(err);
        return info;
    }
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.shared_per_block_optin = prop.sharedMemPerBlockOptin;
    info.total_bytes = prop.totalGlobalMem;
    if ((err = cudaMemGetInfo(&info.free_bytes, &info.total_bytes)) != cudaSuccess) {
        info.reason = std::string("cannot create a CUDA context: ") + cudaGetErrorString(err);
        return info;
    }
    info.available = true;
    return info;
}

}  // namespace

const GpuInfo& gpu_info() {
    static const GpuInfo info = query();
    return info;
}

std::size_t gpu_free_bytes() {
    if (!gpu_info().available) return 0;
    std::size_t free = 0, total = 0;
    return cudaMemGetInfo(&free, &total) == cudaSuccess ? free : 0;
}

std::string describe(const GpuInfo& info) {
    if (!info.available) return info.reason;
    char text[256];
    std::snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %.1f GiB, driver %d.%d, runtime %d.%d)", info.name.c_str(),
                  info.cc_major, info.cc_minor, info.sm_count, double(info.total_bytes) / double(1ull << 30),
                  info.driver_version / 1000, (info.driver_version % 1000) / 10, info.runtime_version / 1000,
                  (info.runtime_version % 1000) / 10);
    return text;
}

}  // namespace ps
