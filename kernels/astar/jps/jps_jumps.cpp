// Jump distances per cell and move (kernels/astar/jps/jps_jumps.hpp): each direction a sweep
// from the far side of the map, a cell's distance from its neighbour's ahead.
#include "kernels/astar/jps/jps_jumps.hpp"

#include <algorithm>

namespace ps::gpu {
namespace {

class Sweeps {
public:
    Sweeps(const JpsBits& bits, std::vector<std::int16_t>& dist)
        : m_bits(bits), m_w(bits.width), m_h(bits.height), m_dist(dist) {}

    // A cell's distance from the one ahead of it in direction d, (nx, ny): the step blocked,
    // 0; the cell ahead a jump point, 1; else one step more than its own (k > 0) or one more
    // free step (k <= 0).
    void straight(int d) {
        const int dx = kGridSteps[d].dx, dy = kGridSteps[d].dy;
        each_from_the_far_side(d, [&](int x, int y) {
            const int nx = x + dx, ny = y + dy;
            if (!free(nx, ny)) return std::int16_t(0);
            if (forced(nx, ny, dx, dy)) return std::int16_t(1);
            return further(at(nx, ny, d));
        });
    }
    // The diagonals after the straight runs: a cell ahead is a jump point where a straight run
    // along either component finds one.
    void diagonal(int d) {
        const int dx = kGridSteps[d].dx, dy = kGridSteps[d].dy;
        const int along_x = dx > 0 ? 0 : 1, along_y = dy > 0 ? 2 : 3;
        each_from_the_far_side(d, [&](int x, int y) {
            const int nx = x + dx, ny = y + dy;
            if (!free(nx, ny) || !free(nx, y) || !free(x, ny)) return std::int16_t(0);
            if (at(nx, ny, along_x) > 0 || at(nx, ny, along_y) > 0) return std::int16_t(1);
            return further(at(nx, ny, d));
        });
    }

private:
    bool free(int x, int y) const { return m_bits.free(x, y); }
    // A free cell beside the run at (x, y) whose cell behind (beside the run's previous cell) is
    // blocked, on either side.
    bool forced(int x, int y, int dx, int dy) const {
        const int sx = dy != 0 ? 1 : 0, sy = dx != 0 ? 1 : 0;  // across the run
        for (int side = -1; side <= 1; side += 2) {
            const int ax = x + side * sx, ay = y + side * sy;
            if (free(ax, ay) && !free(ax - dx, ay - dy)) return true;
        }
        return false;
    }
    std::int16_t& at(int x, int y, int d) {
        return m_dist[(std::size_t(y) * std::size_t(m_w) + std::size_t(x)) * 8 + std::size_t(d)];
    }
    static std::int16_t further(std::int16_t k) { return std::int16_t(k > 0 ? k + 1 : k - 1); }
    // Free cells in an order where the cell ahead, (x + dx, y + dy), comes first.
    template <class F>
    void each_from_the_far_side(int d, F&& value) {
        const int dx = kGridSteps[d].dx, dy = kGridSteps[d].dy;
        for (int i = 0; i < m_h; ++i) {
            const int y = dy > 0 ? m_h - 1 - i : i;
            for (int j = 0; j < m_w; ++j) {
                const int x = dx > 0 ? m_w - 1 - j : j;
                if (free(x, y)) at(x, y, d) = value(x, y);
            }
        }
    }

    const JpsBits& m_bits;
    int m_w, m_h;
    std::vector<std::int16_t>& m_dist;
};

}  // namespace

std::shared_ptr<const JpsJumps> jps_jumps(const JpsBits& bits) {
    const int width = bits.width, height = bits.height;
    const std::size_t cells = std::size_t(width) * std::size_t(height);
    if (cells == 0 || cells > kJumpTableMaxCells || std::max(width, height) > 32767) return nullptr;
    auto jumps = std::make_shared<JpsJumps>();
    jumps->width = width;
    jumps->height = height;
    jumps->dist.assign(cells * 8, 0);
    Sweeps sweeps(bits, jumps->dist);
    for (int d = 0; d < 4; ++d) sweeps.straight(d);
    for (int d = 4; d < 8; ++d) sweeps.diagonal(d);
    return jumps;
}

}  // namespace ps::gpu
