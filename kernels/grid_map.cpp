// Grid map basics: construction, dimension checks, step legality, names of enums.
#include "kernels/grid_map.hpp"

#include <algorithm>
#include <cstdlib>

namespace ps {

GridMap::GridMap(int width, int height, bool passable)
    : m_width(width), m_height(height),
      m_cells(std::size_t(width) * std::size_t(height), passable ? 1 : 0) {}

Expected<void> GridMap::validate_dimensions(long long width, long long height) {
    if (width < 1 || height < 1)
        return Error{"map size " + std::to_string(width) + "x" + std::to_string(height) +
                     " is invalid: width and height must be at least 1"};
    if (width > 65535 || height > 65535)
        return Error{"map size " + std::to_string(width) + "x" + std::to_string(height) +
                     " is too large: width and height must be at most 65535"};
    if (std::uint64_t(width) * std::uint64_t(height) > kMaxCells)
        return Error{"map size " + std::to_string(width) + "x" + std::to_string(height) +
                     " has more cells than 32-bit vertex ids can address"};
    return {};
}

std::size_t GridMap::passable_count() const {
    return std::size_t(std::count(m_cells.begin(), m_cells.end(), std::uint8_t(1)));
}

bool is_grid_step(const GridMap& map, MoveRules rules, Vertex a, Vertex b, bool* diagonal) {
    if (!map.passable(a) || !map.passable(b)) return false;
    bool found = false;
    for_each_grid_neighbour(map, rules, a, [&](Vertex w, bool diag) {
        if (w == b) {
            found = true;
            if (diagonal) *diagonal = diag;
        }
    });
    return found;
}

std::optional<Cell> nearest_passable(const GridMap& map, Cell from) {
    const int max_radius = std::max(map.width(), map.height());
    for (int r = 0; r <= max_radius; ++r) {
        for (int dy = -r; dy <= r; ++dy) {
            const bool edge_row = dy == -r || dy == r;
            // Interior rows only contribute their two ends: the ring, not the square.
            for (int dx = -r; dx <= r; dx += edge_row ? 1 : 2 * r) {
                if (map.passable(from.x + dx, from.y + dy)) return Cell{from.x + dx, from.y + dy};
            }
        }
    }
    return std::nullopt;
}

std::string_view to_string(Connectivity c) { return c == Connectivity::Four ? "4" : "8"; }
std::string_view to_string(CostMode m) { return m == CostMode::Integer ? "integer" : "real"; }

}  // namespace ps
