// zlib chunks (see codec.hpp).
#include "database/codec.hpp"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

namespace ps::db {

std::vector<std::uint8_t> compress_bytes(std::span<const std::uint8_t> raw, int level) {
    uLongf size = compressBound(uLong(raw.size()));
    std::vector<std::uint8_t> out(size);
    // compress2 only fails on a bad level or a too-small buffer; compressBound rules out both.
    compress2(out.data(), &size, raw.data(), uLong(raw.size()), level);
    out.resize(size);
    return out;
}

std::vector<std::vector<std::uint8_t>> compress_chunks(std::span<const std::uint8_t> raw, std::size_t chunk_bytes,
                                                       int level) {
    const std::size_t count = std::max<std::size_t>(1, (raw.size() + chunk_bytes - 1) / chunk_bytes);
    std::vector<std::vector<std::uint8_t>> out(count);
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < count;) {
            const std::size_t offset = i * chunk_bytes;
            out[i] = compress_bytes(raw.subspan(offset, std::min(chunk_bytes, raw.size() - offset)), level);
        }
    };
    const std::size_t helpers =
        std::min<std::size_t>({count - 1, std::max(1u, std::thread::hardware_concurrency()) - 1, 7});
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back(work);
    work();
    return out;  // the jthreads join first
}

Expected<std::vector<std::uint8_t>> decompress_bytes(std::span<const std::uint8_t> compressed, std::size_t raw_size) {
    // Deflate cannot do better than about 1032:1, so a larger claim is damage, refused before
    // it is allocated.
    if (raw_size / 1032 > compressed.size() + 64)
        return Error{"a compressed blob is damaged (it claims " + std::to_string(raw_size) + " bytes from " +
                     std::to_string(compressed.size()) + ")"};
    std::vector<std::uint8_t> out(raw_size);
    uLongf size = uLongf(raw_size);
    const int rc = uncompress(out.data(), &size, compressed.data(), uLong(compressed.size()));
    if (rc != Z_OK || size != raw_size)
        return Error{"a compressed blob is damaged (zlib: " + std::string(rc == Z_OK ? "wrong size" : zError(rc)) +
                     ")"};
    return out;
}

}  // namespace ps::db
