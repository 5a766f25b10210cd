// Byte codecs behind the history's blobs: zlib chunks; map cells packed one bit per cell and the
// SHA-256 content hash that lets the same map be stored once across machines (kernels/base).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/base/sha256.hpp"

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

// Packed cells and SHA-256 live in kernels/base/sha256.hpp (the remote protocol names maps by
// the same hash); the history's code calls them by these names.
using ps::pack_cells;
using ps::Sha256;
using ps::sha256_hex;
using ps::unpack_cells;

}  // namespace ps::db
