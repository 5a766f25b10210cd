// Synthetic map generators (empty, random, rectangles, blocked centre, maze, noise, recursive
// division, rooms) and the portable PRNG behind them. Every generator runs in O(cells) time
// with at most about one byte per cell of scratch memory, so 30000 x 30000 maps are practical.
#include "kernels/map/generators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <system_error>
#include <thread>

namespace ps {

// ---------------------------------------------------------------------------------------------
// Rng

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The splitmix64 finaliser on its own: a cheap, well-mixed hash for noise lattice points.
std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed) {
    // splitmix64 turns any seed, 0 included, into a well-mixed non-zero xoshiro state.
    std::uint64_t sm = seed;
    for (auto& s : m_s) s = splitmix64(sm);
}

std::uint64_t Rng::next() {
    const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const std::uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
}

double Rng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::below(std::uint64_t n) {
    if (n <= 1) return 0;
    // Rejecting the lowest 2^64 mod n values leaves a range that is a multiple of n, so the
    // modulo is exactly uniform; fewer than half the draws are rejected even in the worst case.
    const std::uint64_t threshold = (0 - n) % n;
    while (true) {
        const std::uint64_t r = next();
        if (r >= threshold) return r % n;
    }
}

// ---------------------------------------------------------------------------------------------
// Names

std::string_view to_string(GeneratorKind kind) {
    switch (kind) {
    case GeneratorKind::Empty:
        return "empty";
    case GeneratorKind::Random:
        return "random";
    case GeneratorKind::Rectangles:
        return "rectangles";
    case GeneratorKind::BlockedCentre:
        return "blocked-centre";
    case GeneratorKind::Maze:
        return "maze";
    case GeneratorKind::Noise:
        return "noise";
    case GeneratorKind::Division:
        return "division";
    case GeneratorKind::Rooms:
        return "rooms";
    case GeneratorKind::Streets:
        return "streets";
    }
    return "unknown";
}

std::optional<GeneratorKind> parse_generator_kind(std::string_view name) {
    for (GeneratorKind k : all_generator_kinds())
        if (name == to_string(k)) return k;
    if (name == "blocked-center") return GeneratorKind::BlockedCentre;
    return std::nullopt;
}

std::vector<GeneratorKind> all_generator_kinds() {
    return {GeneratorKind::Empty,         GeneratorKind::Random, GeneratorKind::Rectangles,
            GeneratorKind::BlockedCentre, GeneratorKind::Maze,   GeneratorKind::Noise,
            GeneratorKind::Division,      GeneratorKind::Rooms,  GeneratorKind::Streets};
}

std::string_view to_string(NoiseType type) { return type == NoiseType::Value ? "value" : "gradient"; }

std::optional<NoiseType> parse_noise_type(std::string_view name) {
    if (name == "value") return NoiseType::Value;
    if (name == "gradient") return NoiseType::Gradient;
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Generators

namespace {

constexpr int kMaxOctaves = 8;
constexpr double kMaxNoiseFrequency = 1.0;
constexpr std::size_t kNoiseSamples = std::size_t(1) << 20;

void fill_rect(GridMap& map, int x0, int y0, int w, int h, bool passable) {
    for (int y = y0; y < y0 + h; ++y) {
        auto* row = map.cells().data() + std::size_t(y) * std::size_t(map.width());
        std::fill(row + x0, row + x0 + w, std::uint8_t(passable ? 1 : 0));
    }
}

void generate_random(GridMap& map, double density, Rng& rng) {
    // Comparing the top 53 bits with density * 2^53 is exactly uniform() < density, without
    // the int-to-double conversion per cell.
    const auto threshold = std::uint64_t(density * 0x1.0p53);
    for (auto& c : map.cells()) c = (rng.next() >> 11) < threshold ? 0 : 1;
}

void generate_rectangles(GridMap& map, double density, Rng& rng) {
    const int w = map.width();
    const int h = map.height();
    const int max_w = std::min(w, std::max(2, w / 10));
    const int max_h = std::min(h, std::max(2, h / 10));
    const auto target = std::uint64_t(std::ceil(density * double(map.cell_count())));
    std::uint64_t blocked = 0;
    // Terminates: 1x1 rectangles can land on any cell, so coverage keeps growing; the work is
    // about cells * ln(1 / (1 - density)) cell visits.
    while (blocked < target) {
        const int rw = 1 + int(rng.below(std::uint64_t(max_w)));
        const int rh = 1 + int(rng.below(std::uint64_t(max_h)));
        const int x0 = int(rng.below(std::uint64_t(w - rw + 1)));
        const int y0 = int(rng.below(std::uint64_t(h - rh + 1)));
        for (int y = y0; y < y0 + rh; ++y) {
            auto* row = map.cells().data() + std::size_t(y) * std::size_t(w);
            for (int x = x0; x < x0 + rw; ++x) {
                blocked += row[x];
                row[x] = 0;
            }
        }
    }
}

void generate_blocked_centre(GridMap& map, double fraction) {
    const int side = int(std::lround(fraction * double(std::min(map.width(), map.height()))));
    fill_rect(map, (map.width() - side) / 2, (map.height() - side) / 2, side, side, false);
}

// Maze lattice: maze cells and walls alternate, each `c` map cells thick, framed by a wall:
// wall, cell, wall, ..., cell, wall. n cells need (2n + 1) * c map cells.
struct MazeLattice {
    int c = 1;
    int nx = 0, ny = 0;
    int ox = 0, oy = 0;  // centres the lattice when the map size is not an exact fit

    static MazeLattice fit(int width, int height, int corridor) {
        MazeLattice l;
        l.c = corridor;
        l.nx = (width / corridor - 1) / 2;
        l.ny = (height / corridor - 1) / 2;
        l.ox = (width - (2 * l.nx + 1) * corridor) / 2;
        l.oy = (height - (2 * l.ny + 1) * corridor) / 2;
        return l;
    }
    int x(int i) const { return ox + (2 * i + 1) * c; }
    int y(int j) const { return oy + (2 * j + 1) * c; }
};

constexpr int kLatticeDx[4] = {1, -1, 0, 0};
constexpr int kLatticeDy[4] = {0, 0, 1, -1};

// A random spanning tree of an nx x ny lattice by a randomised depth-first walk (the maze and
// the rooms' doors). `visited(i, j)`: the lattice cell is in the tree; `enter(i, j, d)` adds the
// cell reached from (i, j) in direction d (kLatticeDx/Dy), or with d = -1 the first cell (i, j).
// The stack holds only the direction taken into each cell (1 byte per lattice cell), and
// backtracking steps back against it.
template <class Visited, class Enter>
void random_depth_first_tree(int nx, int ny, Rng& rng, Visited&& visited, Enter&& enter) {
    std::vector<std::uint8_t> stack;
    int i = int(rng.below(std::uint64_t(nx)));
    int j = int(rng.below(std::uint64_t(ny)));
    enter(i, j, -1);
    while (true) {
        int options[4];
        int count = 0;
        for (int d = 0; d < 4; ++d) {
            const int ni = i + kLatticeDx[d];
            const int nj = j + kLatticeDy[d];
            if (ni >= 0 && nj >= 0 && ni < nx && nj < ny && !visited(ni, nj)) options[count++] = d;
        }
        if (count > 0) {
            const int d = options[rng.below(std::uint64_t(count))];
            enter(i, j, d);
            i += kLatticeDx[d];
            j += kLatticeDy[d];
            stack.push_back(std::uint8_t(d));
        } else {
            if (stack.empty()) break;
            const int d = stack.back();
            stack.pop_back();
            i -= kLatticeDx[d];
            j -= kLatticeDy[d];
        }
    }
}

void generate_maze(GridMap& map, const MazeLattice& l, Rng& rng) {
    // A maze cell is visited exactly when it has been carved, so the map itself is the visited set.
    auto visited = [&](int i, int j) { return map.passable(l.x(i), l.y(j)); };
    random_depth_first_tree(l.nx, l.ny, rng, visited, [&](int i, int j, int d) {
        if (d >= 0) {
            // The wall between two cells starts right after the cell in +x/+y, before it in -x/-y.
            fill_rect(map, l.x(i) + kLatticeDx[d] * l.c, l.y(j) + kLatticeDy[d] * l.c, l.c, l.c, true);
            i += kLatticeDx[d];
            j += kLatticeDy[d];
        }
        fill_rect(map, l.x(i), l.y(j), l.c, l.c, true);
    });
}

// Recursive division as in the BBA* authors' code: a chamber (first the whole map) is cut by a
// wall across it, at any row or column strictly inside it, with one gap at any cell of the
// wall; then both halves are cut the same way until neither side is 3 cells long. A wall cuts
// the longer side in two (a coin decides for squares). Walls are not kept to even rows and gaps to odd
// columns as in the textbook maze, so a later wall may end right beside an earlier gap: the gap
// cell then keeps only diagonal ways out, each between two wall cells, which CornerRule::Any
// takes and the other rules do not. A chamber's corner cells lie on rows and columns no wall
// inside it may use, so they stay free, and every gap keeps a way (straight or diagonal) to
// them: the map is connected under CornerRule::Any. Chambers wait on an explicit stack (maps
// are up to 65535 cells a side; walls near the edges would nest that deep); each cell is
// written at most once.
void generate_division(GridMap& map, Rng& rng) {
    struct Chamber {
        int x0, y0, x1, y1;  // inclusive
    };
    std::vector<Chamber> stack{{0, 0, map.width() - 1, map.height() - 1}};
    while (!stack.empty()) {
        const Chamber c = stack.back();
        stack.pop_back();
        const int w = c.x1 - c.x0 + 1, h = c.y1 - c.y0 + 1;
        if (w < 3 && h < 3) continue;
        const bool horizontal = h > w || (h == w && rng.below(2) == 0) || w < 3;
        if (horizontal) {
            const int y = c.y0 + 1 + int(rng.below(std::uint64_t(h - 2)));
            const int gap = c.x0 + int(rng.below(std::uint64_t(w)));
            for (int x = c.x0; x <= c.x1; ++x)
                if (x != gap) map.set_passable(x, y, false);
            stack.push_back({c.x0, c.y0, c.x1, y - 1});
            stack.push_back({c.x0, y + 1, c.x1, c.y1});
        } else {
            const int x = c.x0 + 1 + int(rng.below(std::uint64_t(w - 2)));
            const int gap = c.y0 + int(rng.below(std::uint64_t(h)));
            for (int y = c.y0; y <= c.y1; ++y)
                if (y != gap) map.set_passable(x, y, false);
            stack.push_back({c.x0, c.y0, x - 1, c.y1});
            stack.push_back({x + 1, c.y0, c.x1, c.y1});
        }
    }
}

// Rooms lattice along one axis: a wall line on every (R+1)-th cell, x = R, 2R+1, ..., except
// on the last cell, where it would enclose nothing (the map border is the wall); the last room
// takes the remainder, 1 to R+1 cells.
struct RoomAxis {
    int r = 1;
    int n = 1;  // rooms along the axis

    RoomAxis(int length, int room) : r(room), n((length - 1) / (room + 1) + 1), m_length(length) {}
    int begin(int i) const { return i * (r + 1); }
    int end(int i) const { return i + 1 < n ? begin(i) + r : m_length; }  // exclusive
    int wall(int i) const { return begin(i + 1) - 1; }                    // the line after room i, i + 1 < n

private:
    int m_length;
};

// MovingAI's street maps (cities from OpenStreetMap: blocks of buildings between streets).
// Scale s = the map's shorter side / 256 (at least 1). The map is split recursively: a region
// longer than its block size (12s to 40s cells, drawn per region) is cut across its longer side,
// at 30-70% of it, by a street (2s + 2 to 3s + 2 cells wide for the first two cuts, s to 2s
// after). Each leaf block holds a building set back s to 2s cells from each of its sides (the
// same share of a block at every scale), sometimes cut by an alley across it or with a corner
// notched away (L shapes), or, one block in 12, is a park with trees on some cells of odd x and
// odd y. Last, two avenues 2s + 1 cells wide cross the map in straight lines at random angles,
// through buildings. About half the cells end blocked (46-53% at 256^2-2048^2, seed 7). One
// region under every corner rule: every building keeps a free ring inside its block, each ring
// touches a street or is the whole map, alleys and notches open onto the ring, a park's cells
// with an even coordinate are never trees and join every park cell to its edge, and the avenues
// are 4-connected bands that only free cells. Blocks wait on an explicit stack.
void generate_streets(GridMap& map, Rng& rng) {
    const int W = map.width(), H = map.height();
    const int s = std::max(1, std::min(W, H) / 256);
    auto draw = [&](int lo, int hi) { return lo + int(rng.below(std::uint64_t(hi - lo + 1))); };  // [lo, hi]
    struct Region {
        int x0, y0, x1, y1, depth;  // exclusive ends
    };
    std::vector<Region> stack{{0, 0, W, H, 0}};
    while (!stack.empty()) {
        const Region r = stack.back();
        stack.pop_back();
        const int w = r.x1 - r.x0, h = r.y1 - r.y0;
        const int street = r.depth < 2 ? 2 + 2 * s + draw(0, s) : draw(s, 2 * s);
        const int longer = std::max(w, h), block = draw(12 * s, 40 * s);
        if (longer > block && longer >= street + 2 * 6 * s) {
            // The street starts at 30-70% of the longer side, each side keeping at least 6s cells
            // (lo <= hi: the widest street, 3s + 2 cells, is below 8s).
            const int lo = std::max(6 * s, longer * 3 / 10), hi = std::min(longer - street - 6 * s, longer * 7 / 10);
            const int at = draw(lo, hi);
            if (w >= h) {
                stack.push_back({r.x0, r.y0, r.x0 + at, r.y1, r.depth + 1});
                stack.push_back({r.x0 + at + street, r.y0, r.x1, r.y1, r.depth + 1});
            } else {
                stack.push_back({r.x0, r.y0, r.x1, r.y0 + at, r.depth + 1});
                stack.push_back({r.x0, r.y0 + at + street, r.x1, r.y1, r.depth + 1});
            }
            continue;
        }
        if (rng.below(12) == 0) {  // a park: trees on odd x and odd y only
            for (int y = r.y0 | 1; y < r.y1; y += 2)
                for (int x = r.x0 | 1; x < r.x1; x += 2)
                    if (rng.below(3) == 0) map.set_passable(x, y, false);
            continue;
        }
        const int bx0 = r.x0 + draw(s, 2 * s), by0 = r.y0 + draw(s, 2 * s);
        const int bx1 = r.x1 - draw(s, 2 * s), by1 = r.y1 - draw(s, 2 * s);
        const int bw = bx1 - bx0, bh = by1 - by0;
        if (bw < 1 || bh < 1) continue;
        fill_rect(map, bx0, by0, bw, bh, false);
        // Each draw in a declaration of its own: the order of a call's arguments is unspecified,
        // and the map must not depend on the compiler. An alley's width is drawn before its place.
        auto alley = [&](int length) {
            const int width = std::min(1 + draw(0, s - 1), 2);
            return std::pair{draw(3, length - 4), width};
        };
        if (bw >= 8 && rng.below(3) == 0) {  // an alley from the north ring to the south one
            const auto [at, width] = alley(bw);
            fill_rect(map, bx0 + at, by0, width, bh, true);
        }
        if (bh >= 8 && rng.below(3) == 0) {  // and from the west ring to the east one
            const auto [at, width] = alley(bh);
            fill_rect(map, bx0, by0 + at, bw, width, true);
        }
        if (bw >= 4 && bh >= 4 && rng.below(3) == 0) {  // a corner notched away
            const int nw = draw(1, bw / 2), nh = draw(1, bh / 2);
            const bool top = rng.below(2) != 0, left = rng.below(2) != 0;
            fill_rect(map, left ? bx0 : bx1 - nw, top ? by0 : by1 - nh, nw, nh, true);
        }
    }
    // Two avenues: a disc of radius s (at least a plus of five cells) swept along a straight line
    // between two random border points, in steps of at most half a cell along each axis. Rounded
    // centres one step apart differ by at most a cell along each axis, so in any row the discs'
    // spans join into one interval: a row's lowest and highest cell are all the sweep needs (on a
    // 30000^2 map, 117-cell discs at 60,000 centres would be 3.3e9 cell writes).
    if (std::min(W, H) < 32) return;
    const int radius = s;
    std::vector<int> half(std::size_t(2 * radius + 1));  // a disc's half width in row dy
    for (int dy = -radius; dy <= radius; ++dy) {
        int w = 0;
        while ((w + 1) * (w + 1) + dy * dy <= radius * radius) ++w;
        half[std::size_t(dy + radius)] = w;
    }
    std::vector<int> lo(static_cast<std::size_t>(H)), hi(static_cast<std::size_t>(H));  // per avenue
    for (int avenue = 0; avenue < 2; ++avenue) {
        std::fill(lo.begin(), lo.end(), W);
        std::fill(hi.begin(), hi.end(), -1);
        const double ax = double(draw(0, W - 1)), bx = double(draw(0, W - 1));
        const bool down = avenue == 0;  // the first runs top to bottom, the second left to right
        const double ay = down ? 0.0 : double(draw(0, H - 1)), by = down ? double(H - 1) : double(draw(0, H - 1));
        const double x0 = down ? ax : 0.0, x1 = down ? bx : double(W - 1);
        const int steps = 2 * int(std::max(std::abs(x1 - x0), std::abs(by - ay))) + 1;
        for (int i = 0; i <= steps; ++i) {
            const double t = double(i) / double(steps);
            const int cx = int(std::lround(x0 + t * (x1 - x0))), cy = int(std::lround(ay + t * (by - ay)));
            for (int dy = -radius; dy <= radius; ++dy) {
                const int y = cy + dy;
                if (y < 0 || y >= H) continue;
                const int w = half[std::size_t(dy + radius)];
                lo[std::size_t(y)] = std::min(lo[std::size_t(y)], std::max(0, cx - w));
                hi[std::size_t(y)] = std::max(hi[std::size_t(y)], std::min(W - 1, cx + w));
            }
        }
        for (int y = 0; y < H; ++y)
            if (lo[std::size_t(y)] <= hi[std::size_t(y)])
                fill_rect(map, lo[std::size_t(y)], y, hi[std::size_t(y)] - lo[std::size_t(y)] + 1, 1, true);
    }
}

// MovingAI's rooms maps: R x R rooms behind one-cell walls, with doors. A randomized depth-first
// search over the room graph opens one door per tree edge, so every room is reachable; then each
// other wall between two rooms gets a door with probability 1 - density. A door is a gap of 1 to
// R/2 cells (at most the wall's length) at a random place in the wall between the two rooms; the
// posts where wall lines cross are never opened. Door cells have room cells on both sides in a
// straight line and rooms are free rectangles, so the map is one region under every corner rule.
// Scratch memory: one byte per room for the search's visited and door flags and one for its
// stack, about 2 / 9 byte per cell at most (R >= 2).
void generate_rooms(GridMap& map, const GeneratorParams& p, Rng& rng) {
    const RoomAxis ax(map.width(), p.room_size), ay(map.height(), p.room_size);
    for (int i = 0; i + 1 < ax.n; ++i) fill_rect(map, ax.wall(i), 0, 1, map.height(), false);
    for (int j = 0; j + 1 < ay.n; ++j) fill_rect(map, 0, ay.wall(j), map.width(), 1, false);
    const std::size_t rooms = std::size_t(ax.n) * std::size_t(ay.n);
    if (rooms == 1) return;

    // Opens a door in the wall east of room (i, j), or south of it.
    auto open_door = [&](int i, int j, bool south) {
        const RoomAxis& along = south ? ax : ay;  // the wall runs along the other axis
        const int k = south ? i : j;
        const int length = along.end(k) - along.begin(k);
        const int widest = std::max(1, std::min(p.room_size / 2, length));
        const int gap = 1 + int(rng.below(std::uint64_t(widest)));
        const int first = along.begin(k) + int(rng.below(std::uint64_t(length - gap + 1)));
        if (south)
            fill_rect(map, first, ay.wall(j), gap, 1, true);
        else
            fill_rect(map, ax.wall(i), first, 1, gap, true);
    };

    enum : std::uint8_t { kVisited = 1, kEastDoor = 2, kSouthDoor = 4 };
    std::vector<std::uint8_t> state(rooms, 0);
    auto at = [&](int i, int j) -> std::uint8_t& { return state[std::size_t(j) * std::size_t(ax.n) + std::size_t(i)]; };
    random_depth_first_tree(
        ax.n, ay.n, rng, [&](int i, int j) { return (at(i, j) & kVisited) != 0; },
        [&](int i, int j, int d) {
            if (d >= 0) {
                // The wall between two rooms belongs to the one west or north of it.
                const int wi = kLatticeDx[d] < 0 ? i - 1 : i;
                const int wj = kLatticeDy[d] < 0 ? j - 1 : j;
                const bool south = kLatticeDy[d] != 0;
                open_door(wi, wj, south);
                at(wi, wj) |= south ? kSouthDoor : kEastDoor;
                i += kLatticeDx[d];
                j += kLatticeDy[d];
            }
            at(i, j) |= kVisited;
        });

    const double open = 1.0 - p.density;
    for (int rj = 0; rj < ay.n; ++rj)
        for (int ri = 0; ri < ax.n; ++ri) {
            const std::uint8_t s = at(ri, rj);
            if (ri + 1 < ax.n && !(s & kEastDoor) && rng.uniform() < open) open_door(ri, rj, false);
            if (rj + 1 < ay.n && !(s & kSouthDoor) && rng.uniform() < open) open_door(ri, rj, true);
        }
}

// Fractal (fBm) value or gradient noise hashed from (seed, octave, lattice point): nothing is
// stored per cell, and any cell can be evaluated on its own, which the quantile sampling needs.
class NoiseField {
public:
    explicit NoiseField(const GeneratorParams& p) : m_type(p.noise), m_octaves(p.noise_octaves) {
        double freq = p.noise_frequency;
        double amp = 1.0;
        for (int o = 0; o < m_octaves; ++o) {
            // Each octave gets its own lattice so that octaves do not line up at the origin.
            m_oct[o].seed = mix64(p.seed ^ mix64(0xA0761D6478BD642Full + std::uint64_t(o)));
            m_oct[o].freq = freq;
            m_oct[o].amp = amp;
            freq *= 2.0;
            amp *= 0.5;
        }
    }

    // Evaluates cells of one row left to right; lattice hashes are cached while x stays in the
    // same lattice column (about 1 / frequency cells), which keeps hashing off the hot path.
    // Values depend only on (x, y), never on the order of calls.
    class Row {
    public:
        Row(const NoiseField& field, int y) : m_field(field) {
            for (int o = 0; o < field.m_octaves; ++o) {
                const Octave& oct = field.m_oct[o];
                RowOctave& r = m_r[o];
                const double fy = (double(y) + 0.5) * oct.freq;
                // Coordinates are positive, so truncation is floor; std::floor is a library call
                // on baseline x86-64 (no SSE4.1) and dominated the per-cell cost.
                const auto iy = std::int64_t(fy);
                r.ty = fy - double(iy);
                r.v = fade(r.ty);
                r.hy0 = mix64(oct.seed + std::uint64_t(iy) * kRowMul);
                r.hy1 = mix64(oct.seed + std::uint64_t(iy + 1) * kRowMul);
                r.ix = std::numeric_limits<std::int64_t>::min();
            }
        }

        double at(int x) {
            double sum = 0.0;
            for (int o = 0; o < m_field.m_octaves; ++o) {
                const Octave& oct = m_field.m_oct[o];
                RowOctave& r = m_r[o];
                const double fx = (double(x) + 0.5) * oct.freq;
                const auto ix = std::int64_t(fx);
                const double fix = double(ix);
                if (ix != r.ix) {
                    r.ix = ix;
                    const std::uint64_t c0 = std::uint64_t(ix) * kColMul;
                    const std::uint64_t c1 = std::uint64_t(ix + 1) * kColMul;
                    r.h00 = mix64(r.hy0 + c0);
                    r.h10 = mix64(r.hy0 + c1);
                    r.h01 = mix64(r.hy1 + c0);
                    r.h11 = mix64(r.hy1 + c1);
                }
                const double tx = fx - fix;
                const double u = fade(tx);
                double n00, n10, n01, n11;
                if (m_field.m_type == NoiseType::Value) {
                    n00 = lattice_value(r.h00);
                    n10 = lattice_value(r.h10);
                    n01 = lattice_value(r.h01);
                    n11 = lattice_value(r.h11);
                } else {
                    n00 = gradient_dot(r.h00, tx, r.ty);
                    n10 = gradient_dot(r.h10, tx - 1.0, r.ty);
                    n01 = gradient_dot(r.h01, tx, r.ty - 1.0);
                    n11 = gradient_dot(r.h11, tx - 1.0, r.ty - 1.0);
                }
                const double top = n00 + (n10 - n00) * u;
                const double bottom = n01 + (n11 - n01) * u;
                sum += oct.amp * (top + (bottom - top) * r.v);
            }
            return sum;
        }

    private:
        struct RowOctave {
            double ty = 0, v = 0;
            std::uint64_t hy0 = 0, hy1 = 0;
            std::int64_t ix = 0;
            std::uint64_t h00 = 0, h10 = 0, h01 = 0, h11 = 0;
        };
        const NoiseField& m_field;
        RowOctave m_r[kMaxOctaves];
    };

    double at(int x, int y) const { return Row(*this, y).at(x); }

private:
    static constexpr std::uint64_t kRowMul = 0xC2B2AE3D27D4EB4Full;
    static constexpr std::uint64_t kColMul = 0x9E3779B97F4A7C15ull;

    // Quintic fade: continuous second derivative, so no grid-aligned creases in the blobs.
    static double fade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }
    static double lattice_value(std::uint64_t h) { return double(h >> 11) * 0x1.0p-52 - 1.0; }
    static double gradient_dot(std::uint64_t h, double dx, double dy) {
        static constexpr double r = 0.70710678118654752440;
        static constexpr double g[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {r, r}, {-r, r}, {r, -r}, {-r, -r}};
        const auto& v = g[h >> 61];
        return v[0] * dx + v[1] * dy;
    }

    struct Octave {
        std::uint64_t seed = 0;
        double freq = 0, amp = 0;
    };
    NoiseType m_type;
    int m_octaves;
    Octave m_oct[kMaxOctaves];
};

// Runs f(begin, end) over [0, n) split into contiguous ranges on several threads. Used only
// where each item is a pure function of its index, so the result never depends on the thread
// count. Falls back to the calling thread when threads cannot be started.
template <class F>
void parallel_ranges(std::size_t n, std::size_t min_per_thread, F&& f) {
    const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threads =
        std::clamp<std::size_t>(n / std::max<std::size_t>(1, min_per_thread), 1, std::min<std::size_t>(hw, 64));
    const std::size_t per = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    pool.reserve(threads);  // emplace_back must not reallocate (and throw) with threads running
    for (std::size_t t = 1; t < threads; ++t) {
        const std::size_t b = t * per;
        const std::size_t e = std::min(n, b + per);
        if (b >= e) break;
        try {
            pool.emplace_back([&f, b, e] { f(b, e); });
        } catch (const std::system_error&) {
            f(b, e);
        }
    }
    f(0, std::min(n, per));
    for (auto& th : pool) th.join();
}

void generate_noise(GridMap& map, const GeneratorParams& p) {
    const NoiseField field(p);
    const int w = map.width();
    const std::size_t cells = map.cell_count();
    if (p.density <= 0.0) return;  // nothing blocked; the map starts passable

    // The blocked fraction is a quantile of the noise values; estimate it from a sample rather
    // than storing a value per cell (a 30000^2 map would need 3.6 GB of floats).
    const bool sample_all = cells <= kNoiseSamples;
    std::vector<double> samples(sample_all ? cells : kNoiseSamples);
    const std::uint64_t sample_seed = mix64(p.seed ^ 0x6E6F697365ull);
    parallel_ranges(samples.size(), 1 << 16, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            if (sample_all) {
                samples[i] = field.at(int(i % std::size_t(w)), int(i / std::size_t(w)));
                continue;
            }
            // Positions hashed from the sample index, so any thread can produce any sample; the
            // multiply-shift bias (below w / 2^32) is irrelevant for a quantile estimate.
            const std::uint64_t r = mix64(sample_seed + i);
            const auto x = int(((r >> 32) * std::uint64_t(w)) >> 32);
            const auto y = int(((r & 0xFFFFFFFFull) * std::uint64_t(map.height())) >> 32);
            samples[i] = field.at(x, y);
        }
    });
    // Exactly k sampled values lie below samples[k] (ties aside), so `value < threshold` blocks
    // a fraction `density` of the sample and, up to sampling error, of the map.
    const auto k = std::size_t(std::llround(p.density * double(samples.size())));
    if (k == 0) return;
    std::nth_element(samples.begin(), samples.begin() + std::ptrdiff_t(k), samples.end());
    const double threshold = samples[k];
    samples = {};

    parallel_ranges(std::size_t(map.height()), std::max<std::size_t>(1, (std::size_t(1) << 18) / std::size_t(w)),
                    [&](std::size_t y0, std::size_t y1) {
                        for (std::size_t y = y0; y < y1; ++y) {
                            NoiseField::Row row(field, int(y));
                            auto* out = map.cells().data() + y * std::size_t(w);
                            for (int x = 0; x < w; ++x) out[x] = row.at(x) < threshold ? 0 : 1;
                        }
                    });
}

Expected<void> in_range(const char* what, double value, double lo, double hi, bool hi_inclusive) {
    // Written so that NaN fails every comparison and is rejected.
    const bool ok = value >= lo && (hi_inclusive ? value <= hi : value < hi);
    if (ok) return {};
    return Error{std::string(what) + " " + std::to_string(value) + " is out of range: it must be in [" +
                 std::to_string(lo) + ", " + std::to_string(hi) + (hi_inclusive ? "]" : ")")};
}

// Only the parameters the chosen kind uses are checked, so a user interface may keep stale
// values for the others.
Expected<void> validate(const GeneratorParams& p) {
    if (auto ok = GridMap::validate_dimensions(p.width, p.height); !ok) return ok;
    switch (p.kind) {
    case GeneratorKind::Empty:
    case GeneratorKind::Division:
    case GeneratorKind::Streets:
        break;
    case GeneratorKind::Random:
    case GeneratorKind::Rectangles:
        return in_range("density", p.density, 0.0, 1.0, false);
    case GeneratorKind::BlockedCentre:
        return in_range("blocked centre fraction", p.blocked_centre_fraction, 0.0, 1.0, true);
    case GeneratorKind::Maze: {
        if (p.corridor_width < 1)
            return Error{"corridor width " + std::to_string(p.corridor_width) + " is invalid: it must be at least 1"};
        const MazeLattice l = MazeLattice::fit(p.width, p.height, p.corridor_width);
        // An error rather than an empty map: a "maze" without walls would silently mislead.
        if (l.nx < 1 || l.ny < 1)
            return Error{"a " + std::to_string(p.width) + "x" + std::to_string(p.height) +
                         " map is too small for a maze with corridor width " + std::to_string(p.corridor_width) +
                         ": it needs at least " + std::to_string(3 * p.corridor_width) + " cells in each direction"};
        break;
    }
    case GeneratorKind::Rooms:
        // Up to the largest map side, so that R + 1 never overflows.
        if (p.room_size < 2 || p.room_size > 65535)
            return Error{"room size " + std::to_string(p.room_size) + " is out of range: it must be 2 to 65535 cells"};
        return in_range("density", p.density, 0.0, 1.0, true);
    case GeneratorKind::Noise: {
        if (auto ok = in_range("density", p.density, 0.0, 1.0, false); !ok) return ok;
        if (!(p.noise_frequency > 0.0 && p.noise_frequency <= kMaxNoiseFrequency))
            return Error{"noise frequency " + std::to_string(p.noise_frequency) +
                         " is out of range: it must be greater than 0 and at most 1 (features per cell)"};
        if (p.noise_octaves < 1 || p.noise_octaves > kMaxOctaves)
            return Error{"noise octaves " + std::to_string(p.noise_octaves) + " is out of range: it must be 1 to " +
                         std::to_string(kMaxOctaves)};
        break;
    }
    }
    return {};
}

Expected<GridMap> generate_impl(const GeneratorParams& p) {
    Rng rng(p.seed);
    GridMap map(p.width, p.height, p.kind != GeneratorKind::Maze);
    switch (p.kind) {
    case GeneratorKind::Empty:
        break;
    case GeneratorKind::Random:
        generate_random(map, p.density, rng);
        break;
    case GeneratorKind::Rectangles:
        generate_rectangles(map, p.density, rng);
        break;
    case GeneratorKind::BlockedCentre:
        generate_blocked_centre(map, p.blocked_centre_fraction);
        break;
    case GeneratorKind::Maze:
        generate_maze(map, MazeLattice::fit(p.width, p.height, p.corridor_width), rng);
        break;
    case GeneratorKind::Noise:
        generate_noise(map, p);
        break;
    case GeneratorKind::Division:
        generate_division(map, rng);
        break;
    case GeneratorKind::Rooms:
        generate_rooms(map, p, rng);
        break;
    case GeneratorKind::Streets:
        generate_streets(map, rng);
        break;
    }
    map.name = std::string(to_string(p.kind)) + "-" + std::to_string(p.width) + "x" + std::to_string(p.height) + "-s" +
               std::to_string(p.seed);
    map.start = nearest_passable(map, Cell{0, 0});
    if (map.start) map.goal = nearest_passable(map, Cell{map.width() - 1, map.height() - 1});
    return map;
}

}  // namespace

Expected<GridMap> generate_map(const GeneratorParams& params) {
    if (auto ok = validate(params); !ok) return ok.error();
    try {
        return generate_impl(params);
    } catch (const std::bad_alloc&) {
        return Error{"not enough memory to generate a " + std::to_string(params.width) + "x" +
                     std::to_string(params.height) + " map"};
    }
}

void add_terrain_costs(GridMap& map, int max_cost, std::uint64_t seed) {
    if (map.empty() || max_cost < 2) return;
    const int w = map.width(), h = map.height();
    const int spacing = std::max(8, std::min(w, h) / 8);
    const int lw = w / spacing + 2, lh = h / spacing + 2;
    Rng rng(seed ^ 0x7465727261696eull);  // "terrain": a stream apart from the map's own
    std::vector<double> lattice(std::size_t(lw) * std::size_t(lh));
    for (auto& v : lattice) v = rng.uniform();
    auto at = [&](int lx, int ly) { return lattice[std::size_t(ly) * std::size_t(lw) + std::size_t(lx)]; };
    for (int y = 0; y < h; ++y) {
        const int ly = y / spacing;
        const double fy = double(y % spacing) / spacing;
        for (int x = 0; x < w; ++x) {
            if (!map.passable(x, y)) continue;
            const int lx = x / spacing;
            const double fx = double(x % spacing) / spacing;
            const double v = (at(lx, ly) * (1 - fx) + at(lx + 1, ly) * fx) * (1 - fy) +
                             (at(lx, ly + 1) * (1 - fx) + at(lx + 1, ly + 1) * fx) * fy;
            // Bilinear values cluster around 0.5: its upper half becomes 2..max_cost.
            const int cost = v < 0.5 ? 1 : std::min(max_cost, 2 + int((v - 0.5) * 2.0 * (max_cost - 1)));
            map.set_cost(x, y, std::uint8_t(cost));
        }
    }
}

}  // namespace ps
