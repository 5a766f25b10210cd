// Search recordings: the sampling stride that keeps a recording within a byte budget, and the
// append that honours the hard event cap.
#include "kernels/base/recording.hpp"

#include <algorithm>

namespace ps {

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

}  // namespace ps
