// Search recordings: the sampling stride that keeps a recording within a byte budget, the
// append that honours the hard event cap, and the byte layouts the history and the remote
// protocol store them in.
#include "kernels/base/recording.hpp"

#include <algorithm>

namespace ps {
namespace {

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
}

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
}

std::uint64_t get_le(std::span<const std::uint8_t> bytes, std::size_t offset, int size) {
    std::uint64_t v = 0;
    for (int i = 0; i < size; ++i) v |= std::uint64_t(bytes[offset + std::size_t(i)]) << (8 * i);
    return v;
}

constexpr std::size_t kSearchHeaderBytes = 24;
constexpr std::size_t kSearchEventBytes = 10;
constexpr char kSearchMagic[4] = {'P', 'S', 'E', '1'};

}  // namespace

std::uint32_t SearchRecording::stride_for(std::uint64_t vertex_count, std::uint64_t max_bytes) {
    // The budget assumes about 4 events (opens, improvements, the close) per recorded vertex.
    constexpr std::uint64_t kBytesPerVertex = 4 * sizeof(Event);
    const std::uint64_t fits = max_bytes / kBytesPerVertex;
    if (vertex_count <= fits) return 1;
    // Smallest s with floor(n / s) <= fits, i.e. s > n / (fits + 1).
    const std::uint64_t stride = vertex_count / (fits + 1) + 1;
    return std::uint32_t(std::min<std::uint64_t>(stride, 0xFFFFFFFFull));
}

void SearchRecording::add(Vertex v, std::uint32_t step, Kind kind, std::uint8_t direction) {
    if (max_events != 0 && events.size() >= max_events) {
        truncated = true;
        return;
    }
    events.push_back({v, step, kind, direction});
}

std::size_t search_events_bytes(std::size_t events) { return kSearchHeaderBytes + events * kSearchEventBytes; }

std::vector<std::uint8_t> encode_path(const std::vector<Vertex>& path) {
    return encode_bfs_levels(std::vector<std::int32_t>(path.begin(), path.end()));  // the same 32-bit layout
}

Expected<std::vector<Vertex>> decode_path(std::span<const std::uint8_t> bytes) {
    if (bytes.size() % 4) return Error{"a path recording must hold whole u32 vertex ids"};
    auto values = decode_bfs_levels(bytes);
    if (!values) return values.error();
    return std::vector<Vertex>(values->begin(), values->end());
}

std::vector<std::uint8_t> encode_bfs_levels(const std::vector<std::int32_t>& levels) {
    std::vector<std::uint8_t> out(levels.size() * 4);
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const auto v = std::uint32_t(levels[i]);
        out[4 * i] = std::uint8_t(v), out[4 * i + 1] = std::uint8_t(v >> 8);
        out[4 * i + 2] = std::uint8_t(v >> 16), out[4 * i + 3] = std::uint8_t(v >> 24);
    }
    return out;
}

Expected<std::vector<std::int32_t>> decode_bfs_levels(std::span<const std::uint8_t> bytes) {
    if (bytes.size() % 4) return Error{"a bfs_levels recording must hold whole int32 values"};
    std::vector<std::int32_t> levels(bytes.size() / 4);
    for (std::size_t i = 0; i < levels.size(); ++i) levels[i] = std::int32_t(std::uint32_t(get_le(bytes, 4 * i, 4)));
    return levels;
}

std::vector<std::uint8_t> encode_search_events(const SearchRecording& recording) {
    std::vector<std::uint8_t> out(kSearchMagic, kSearchMagic + 4);
    out.reserve(kSearchHeaderBytes + recording.events.size() * kSearchEventBytes);
    put_u32(out, recording.vertex_stride);
    put_u32(out, recording.steps);
    put_u32(out, recording.truncated ? 1u : 0u);
    put_u64(out, recording.events.size());
    for (const auto& e : recording.events) {
        put_u32(out, e.vertex);
        put_u32(out, e.step);
        out.push_back(e.kind);
        out.push_back(e.direction);
    }
    return out;
}

Expected<SearchRecording> decode_search_events(std::span<const std::uint8_t> bytes) {
    if (bytes.size() < kSearchHeaderBytes || !std::equal(kSearchMagic, kSearchMagic + 4, bytes.begin()))
        return Error{"not a search_events recording (bad header)"};
    SearchRecording r;
    r.vertex_stride = std::uint32_t(get_le(bytes, 4, 4));
    r.steps = std::uint32_t(get_le(bytes, 8, 4));
    r.truncated = (get_le(bytes, 12, 4) & 1u) != 0;
    const std::uint64_t count = get_le(bytes, 16, 8);
    if ((bytes.size() - kSearchHeaderBytes) / kSearchEventBytes != count ||
        (bytes.size() - kSearchHeaderBytes) % kSearchEventBytes)
        return Error{"a search_events recording is truncated or has trailing bytes"};
    r.events.reserve(count);
    for (std::size_t off = kSearchHeaderBytes; off < bytes.size(); off += kSearchEventBytes)
        r.events.push_back(
            {Vertex(get_le(bytes, off, 4)), std::uint32_t(get_le(bytes, off + 4, 4)), bytes[off + 8], bytes[off + 9]});
    return r;
}

}  // namespace ps
