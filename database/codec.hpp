// Byte codecs behind the history's blobs: zlib chunks, map cells packed one bit per cell, and
// the SHA-256 content hash that lets the same map be stored once across machines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/base/expected.hpp"

namespace ps::db {

// zlib (deflate) level 1: the history stores recordings of tens of MiB while a run is being
// saved, where speed matters more than the last few percent of size.
std::vector<std::uint8_t> compress_bytes(std::span<const std::uint8_t> raw, int level = 1);
// `raw` cut into chunks of `chunk_bytes` (at least one, possibly empty), compressed on all
// cores: a 2048^2 level recording (16 MiB) takes about half as long on two.
std::vector<std::vector<std::uint8_t>> compress_chunks(std::span<const std::uint8_t> raw, std::size_t chunk_bytes,
                                                       int level = 1);
// `raw_size` is stored next to each blob; a mismatch means the file was damaged.
Expected<std::vector<std::uint8_t>> decompress_bytes(std::span<const std::uint8_t> compressed, std::size_t raw_size);

// Cells row-major, one bit each (1 = passable), least significant bit first: 8x smaller
// than GridMap's bytes before zlib even starts.
std::vector<std::uint8_t> pack_cells(const std::vector<std::uint8_t>& cells);
std::vector<std::uint8_t> unpack_cells(std::span<const std::uint8_t> packed, std::size_t cell_count);

class Sha256 {
public:
    Sha256();
    void update(std::span<const std::uint8_t> bytes);
    std::string hex();  // finishes the hash; call once

private:
    void block(const std::uint8_t* p);
    std::uint32_t m_h[8];
    std::uint8_t m_buffer[64];
    std::size_t m_fill = 0;
    std::uint64_t m_length = 0;
};

std::string sha256_hex(std::span<const std::uint8_t> bytes);

}  // namespace ps::db
