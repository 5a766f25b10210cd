// Bytes that name a map wherever it goes: its cells packed one bit per cell, and a SHA-256 over
// its size and those bits. The history stores a map once per hash; a remote target keeps the
// maps it was sent by the same hash, so a map crosses the wire once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ps {

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

// The map's identity: its size and packed cells (names and start/goal do not count).
std::string map_hash(int width, int height, std::span<const std::uint8_t> packed);
// The identity of a map with weighted terrain: the same, then every cell's cost byte (`costs`
// empty: a plain map, the hash above).
std::string map_hash(int width, int height, std::span<const std::uint8_t> packed, std::span<const std::uint8_t> costs);

}  // namespace ps
