// What GPU (if any) this process can use. Plain C++ header in front of CUDA runtime calls,
// so the CLI, the GUI and the variants ask one place, and a machine without a driver gets a
// reason to show instead of a failure.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace ps {

struct GpuInfo {
    bool available = false;
    std::string reason;  // why not available (driver missing, no device, ...)
    std::string name;
    int device = 0;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::size_t shared_per_block_optin = 0;  // the most shared memory a block may take, static included
    std::size_t total_bytes = 0, free_bytes = 0;
    int driver_version = 0;  // e.g. 13000
    int runtime_version = 0;
};

// Queried once per process (the first call initialises the CUDA runtime), then cached;
// free_bytes is as of that first call: use gpu_free_bytes() for a fresh value.
const GpuInfo& gpu_info();
std::size_t gpu_free_bytes();
std::string describe(const GpuInfo& info);

// Bytes in MiB with one decimal ("1.5 MiB"), for messages about GPU memory.
inline std::string mib(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
    return text;
}

}  // namespace ps
