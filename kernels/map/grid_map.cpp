// Grid map basics: construction, dimension checks, step legality, names of enums.
#include "kernels/map/grid_map.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ps {

GridMap::GridMap(int width, int height, bool passable)
    : m_width(width), m_height(height), m_cells(std::size_t(width) * std::size_t(height), passable ? 1 : 0) {}

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
    return m_cells.size() - std::size_t(std::count(m_cells.begin(), m_cells.end(), std::uint8_t(0)));
}

// Every run asks this once or twice (the runner's check, the search's step costs), so it reads
// eight cells per step: a cell above 1 has a bit of 0xFE set.
bool GridMap::weighted() const {
    const std::uint8_t* cells = m_cells.data();
    const std::size_t n = m_cells.size();
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t word;
        std::memcpy(&word, cells + i, 8);
        if (word & 0xFEFEFEFEFEFEFEFEull) return true;
    }
    for (; i < n; ++i)
        if (cells[i] > 1) return true;
    return false;
}

std::uint8_t GridMap::min_cost() const {
    std::uint8_t least = 0;
    for (const std::uint8_t c : m_cells)
        if (c != 0 && (least == 0 || c < least)) {
            least = c;
            if (least == 1) break;
        }
    return least;
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

namespace {

// The cell nearest `from` (Chebyshev rings, ties by scan order) that satisfies `wanted`.
template <class Pred>
std::optional<Cell> find_nearest(const GridMap& map, Cell from, Pred wanted) {
    const int max_radius = std::max(map.width(), map.height());
    for (int r = 0; r <= max_radius; ++r) {
        for (int dy = -r; dy <= r; ++dy) {
            const bool edge_row = dy == -r || dy == r;
            // Interior rows only contribute their two ends: the ring, not the square.
            for (int dx = -r; dx <= r; dx += edge_row ? 1 : 2 * r) {
                const int x = from.x + dx, y = from.y + dy;
                if (map.in_bounds(x, y) && wanted(map.index(x, y))) return Cell{x, y};
            }
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<Cell> nearest_passable(const GridMap& map, Cell from) {
    return find_nearest(map, from, [&](Vertex v) { return map.passable(v); });
}

std::optional<Cell> nearest_in_largest_region(const GridMap& map, MoveRules rules, Cell near) {
    return nearest_in_largest_region(map, rules, std::vector<Cell>{near}).front();
}

std::vector<std::uint32_t> grid_regions(const GridMap& map, MoveRules rules, std::uint32_t* largest) {
    // A flood fill per region; remember the largest.
    std::vector<std::uint32_t> region(map.cell_count(), 0);
    std::vector<Vertex> stack;
    std::uint32_t label = 0, best = 0;
    std::size_t best_size = 0;
    for (Vertex seed = 0; seed < map.cell_count(); ++seed) {
        if (!map.passable(seed) || region[seed]) continue;
        ++label;
        std::size_t size = 0;
        region[seed] = label;
        stack.push_back(seed);
        while (!stack.empty()) {
            const Vertex v = stack.back();
            stack.pop_back();
            ++size;
            for_each_grid_neighbour(map, rules, v, [&](Vertex w, bool) {
                if (!region[w]) {
                    region[w] = label;
                    stack.push_back(w);
                }
            });
        }
        if (size > best_size) {
            best_size = size;
            best = label;
        }
    }
    if (largest) *largest = best;
    return region;
}

std::vector<std::optional<Cell>> nearest_in_largest_region(const GridMap& map, MoveRules rules,
                                                           const std::vector<Cell>& near) {
    std::uint32_t best = 0;
    const std::vector<std::uint32_t> region = grid_regions(map, rules, &best);
    std::vector<std::optional<Cell>> out(near.size());
    if (!best) return out;
    for (std::size_t i = 0; i < near.size(); ++i)
        out[i] = find_nearest(map, near[i], [&](Vertex v) { return region[v] == best; });
    return out;
}

std::string_view to_string(Connectivity c) { return c == Connectivity::Four ? "4" : "8"; }
std::string_view to_string(CostMode m) { return m == CostMode::Integer ? "integer" : "real"; }

std::string_view to_string(CornerRule r) {
    switch (r) {
    case CornerRule::None:
        return "none";
    case CornerRule::One:
        return "one";
    case CornerRule::Any:
        return "any";
    }
    return "none";
}

std::string_view corner_rule_text(CornerRule r) {
    switch (r) {
    case CornerRule::None:
        return "no corner cutting";
    case CornerRule::One:
        return "corner cutting (one orthogonal cell free)";
    case CornerRule::Any:
        return "corner cutting (any: a diagonal needs only its target)";
    }
    return "no corner cutting";
}

std::optional<CornerRule> parse_corner_rule(std::string_view text) {
    for (CornerRule r : {CornerRule::None, CornerRule::One, CornerRule::Any})
        if (text == to_string(r)) return r;
    return std::nullopt;
}

}  // namespace ps
