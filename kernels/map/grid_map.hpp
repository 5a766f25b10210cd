// The grid map: width x height cells, each blocked or passable at a cost (weighted terrain),
// with an optional start and goal,
// plus the movement rules (4/8-connected, three corner rules) and the two cost metrics
// (real octile 1/sqrt2 and the BBA* paper's integer 1000/1414) that every search shares.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/base/expected.hpp"

namespace ps {

// A vertex of a grid graph is its cell index y * width + x; blocked cells are vertices of
// degree 0. 32 bits cover 30000 x 30000 maps (9e8 cells).
using Vertex = std::uint32_t;
inline constexpr Vertex kNoVertex = 0xFFFFFFFFu;
inline constexpr std::uint64_t kMaxCells = 0xFFFFFFFEull;

struct Cell {
    int x = 0;
    int y = 0;
    friend bool operator==(const Cell&, const Cell&) = default;
};

enum class Connectivity : std::uint8_t { Four = 4, Eight = 8 };

// Which diagonal steps an 8-connected grid allows, by the two orthogonal cells beside the step
// (its target must be free under every rule). The values are what device code receives
// (kernels take the rule as a plain byte), so they stay fixed.
enum class CornerRule : std::uint8_t {
    None = 0,  // both orthogonal cells free: MovingAI benchmarks, no corner cutting
    One = 1,   // one of them free: cuts a wall's corner, never squeezes between two walls
    Any = 2,   // neither needed: the BBA* authors' code, PathFinding.js "allow diagonal"
};

// True when a diagonal step whose orthogonal cells are free as `a` and `b` is legal under `rule`.
constexpr bool diagonal_allowed(CornerRule rule, bool a, bool b) {
    return rule == CornerRule::None ? (a && b) : rule == CornerRule::One ? (a || b) : true;
}

struct MoveRules {
    Connectivity connectivity = Connectivity::Eight;
    // MovingAI benchmarks forbid corner cutting, hence the default.
    CornerRule corners = CornerRule::None;
    friend bool operator==(const MoveRules&, const MoveRules&) = default;
};

// Real: orthogonal 1, diagonal sqrt(2) (MovingAI optimal lengths).
// Integer: orthogonal 1000, diagonal 1414 (BBA* paper); exact integer arithmetic.
enum class CostMode : std::uint8_t { Real, Integer };

inline constexpr double kSqrt2 = 1.41421356237309504880;
inline constexpr std::int64_t kIntOrthogonal = 1000;
inline constexpr std::int64_t kIntDiagonal = 1414;

inline double step_cost(CostMode mode, bool diagonal) {
    if (mode == CostMode::Integer) return diagonal ? double(kIntDiagonal) : double(kIntOrthogonal);
    return diagonal ? kSqrt2 : 1.0;
}

// Weighted terrain: a cell costs 1..255 (0 = blocked; 1 everywhere on a plain map). A step costs
// the mean of its two cells' costs times its length, so it is the same in both directions and a
// plain map's steps cost exactly step_cost(): integer (a + b) * 500 or (a + b) * 707, real
// (a + b) / 2 or (a + b) / 2 * sqrt2.
inline constexpr std::uint8_t kMaxCellCost = 255;
inline constexpr std::int64_t kIntHalfOrthogonal = kIntOrthogonal / 2;
inline constexpr std::int64_t kIntHalfDiagonal = kIntDiagonal / 2;
inline double weighted_step_cost(CostMode mode, std::uint8_t from, std::uint8_t to, bool diagonal) {
    const int sum = int(from) + int(to);
    if (mode == CostMode::Integer)
        return double(std::int64_t(sum) * (diagonal ? kIntHalfDiagonal : kIntHalfOrthogonal));
    return 0.5 * double(sum) * (diagonal ? kSqrt2 : 1.0);
}

class GridMap {
public:
    GridMap() = default;
    // Cells start passable (or blocked). Callers check dimensions with validate_dimensions().
    GridMap(int width, int height, bool passable = true);

    // Error when width/height are outside 1..65535 or the cell count exceeds kMaxCells.
    static Expected<void> validate_dimensions(long long width, long long height);

    int width() const { return m_width; }
    int height() const { return m_height; }
    std::size_t cell_count() const { return m_cells.size(); }
    bool empty() const { return m_cells.empty(); }

    bool in_bounds(int x, int y) const { return x >= 0 && y >= 0 && x < m_width && y < m_height; }
    bool passable(int x, int y) const { return in_bounds(x, y) && m_cells[index(x, y)] != 0; }
    bool passable(Vertex v) const { return v < m_cells.size() && m_cells[v] != 0; }
    bool passable(Cell c) const { return passable(c.x, c.y); }
    void set_passable(int x, int y, bool passable) { m_cells[index(x, y)] = passable ? 1 : 0; }
    // The cell's cost: 0 blocked, 1..255 passable (weighted_step_cost says what a step costs).
    std::uint8_t cost(Vertex v) const { return m_cells[v]; }
    std::uint8_t cost(int x, int y) const { return m_cells[index(x, y)]; }
    void set_cost(int x, int y, std::uint8_t cost) { m_cells[index(x, y)] = cost; }

    Vertex index(int x, int y) const { return Vertex(y) * Vertex(m_width) + Vertex(x); }
    Vertex index(Cell c) const { return index(c.x, c.y); }
    Cell cell(Vertex v) const { return {int(v % Vertex(m_width)), int(v / Vertex(m_width))}; }

    std::size_t passable_count() const;
    // True when some passable cell costs more than 1 (a scan of the map: ask once per run).
    bool weighted() const;
    // The least cost of a passable cell (1 on a plain map; 0 when no cell is passable): what
    // heuristics are scaled by so that they stay admissible and consistent on weighted terrain.
    std::uint8_t min_cost() const;

    // One byte per cell, its cost (0 = blocked, 1 = plain passable): a 30000^2 map needs 0.9 GB.
    const std::vector<std::uint8_t>& cells() const { return m_cells; }
    std::vector<std::uint8_t>& cells() { return m_cells; }

    std::optional<Cell> start;
    std::optional<Cell> goal;
    std::string name;

    friend bool operator==(const GridMap& a, const GridMap& b) {
        return a.m_width == b.m_width && a.m_height == b.m_height && a.m_cells == b.m_cells;
    }

private:
    int m_width = 0;
    int m_height = 0;
    std::vector<std::uint8_t> m_cells;
};

// Visits the neighbours of v under `rules`: f(Vertex w, bool diagonal). Order: orthogonal
// (E, W, S, N) then diagonal, so searches break ties the same way on every run.
template <class F>
inline void for_each_grid_neighbour(const GridMap& map, MoveRules rules, Vertex v, F&& f) {
    const int w = map.width();
    const int x = int(v % Vertex(w));
    const int y = int(v / Vertex(w));
    const bool e = map.passable(x + 1, y);
    const bool west = map.passable(x - 1, y);
    const bool s = map.passable(x, y + 1);
    const bool n = map.passable(x, y - 1);
    if (e) f(v + 1, false);
    if (west) f(v - 1, false);
    if (s) f(v + Vertex(w), false);
    if (n) f(v - Vertex(w), false);
    if (rules.connectivity != Connectivity::Eight) return;
    const CornerRule corners = rules.corners;
    auto allowed = [&](bool a, bool b) { return diagonal_allowed(corners, a, b); };
    if (allowed(e, s) && map.passable(x + 1, y + 1)) f(v + Vertex(w) + 1, true);
    if (allowed(west, s) && map.passable(x - 1, y + 1)) f(v + Vertex(w) - 1, true);
    if (allowed(e, n) && map.passable(x + 1, y - 1)) f(v - Vertex(w) + 1, true);
    if (allowed(west, n) && map.passable(x - 1, y - 1)) f(v - Vertex(w) - 1, true);
}

// The eight moves in for_each_grid_neighbour's order, E, W, S, N, SE, SW, NE, NW: what a
// direction index means to the flow field and to GPU JPS's jump distances (and to the GPU
// kernels' move_dx, move_dy in kernels/search/grid_costs.cuh, checked against it there).
struct GridStep {
    int dx = 0, dy = 0;
};
inline constexpr GridStep kGridSteps[8] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};

// The passable cell closest to `from` (Chebyshev rings, ties by scan order), or nullopt
// when the map has none. Used for default starts and goals near map corners.
std::optional<Cell> nearest_passable(const GridMap& map, Cell from);

// Connected regions of the passable cells under `rules`: a label per cell (0 = blocked, regions
// 1, 2, ...), and in `largest` (if given) the label of the largest region (0: none).
std::vector<std::uint32_t> grid_regions(const GridMap& map, MoveRules rules, std::uint32_t* largest = nullptr);

// The cell of the largest connected region (under `rules`) that lies nearest to `near`, or
// nullopt when the map has no passable cell. Benchmarks start there so that a BFS from a
// "corner" does not end in a small pocket cut off by obstacles.
std::optional<Cell> nearest_in_largest_region(const GridMap& map, MoveRules rules, Cell near);
// The same for several cells with one labelling of the map (a full flood fill: seconds on
// 30000² maps, so callers that need a start and a goal ask once).
std::vector<std::optional<Cell>> nearest_in_largest_region(const GridMap& map, MoveRules rules,
                                                           const std::vector<Cell>& near);

// True when a single step a -> b is legal under the rules (used to validate paths).
bool is_grid_step(const GridMap& map, MoveRules rules, Vertex a, Vertex b, bool* diagonal);

std::string_view to_string(Connectivity c);
std::string_view to_string(CostMode m);
// "none", "one", "any": the CLI's and the history's spelling.
std::string_view to_string(CornerRule r);
std::optional<CornerRule> parse_corner_rule(std::string_view text);
// A phrase for reports: "no corner cutting", "corner cutting (one orthogonal cell free)", ...
std::string_view corner_rule_text(CornerRule r);

}  // namespace ps
