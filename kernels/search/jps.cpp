// Jump Point Search without corner cutting (jps.hpp).
#include "kernels/search/jps.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "kernels/search/open_list.hpp"

namespace ps {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

int sign(int v) { return (v > 0) - (v < 0); }

class Jps {
public:
    Jps(const GridMap& map, CostMode mode, Cell goal) : m_map(map), m_mode(mode), m_goal(goal) {}

    bool free(int x, int y) const {
        return x >= 0 && y >= 0 && x < m_map.width() && y < m_map.height() && m_map.passable(x, y);
    }
    // A step from (x, y) by (dx, dy) is legal: its target free and, for a diagonal, both cells
    // beside it.
    bool can_step(int x, int y, int dx, int dy) const {
        if (!free(x + dx, y + dy)) return false;
        return dx == 0 || dy == 0 || (free(x + dx, y) && free(x, y + dy));
    }

    // The jump point reached from `c` going (dx, dy), if any. A straight run stops at a cell
    // with a forced neighbour: a cell beside the run that is free while the cell behind it
    // (beside the run's previous cell) is blocked, so only this cell reaches it optimally. A
    // diagonal run stops where a straight run in one of its two components finds a jump point.
    std::optional<Cell> jump(Cell c, int dx, int dy) {
        int x = c.x, y = c.y;
        for (;;) {
            if (!can_step(x, y, dx, dy)) return std::nullopt;
            x += dx;
            y += dy;
            ++m_scanned;
            if (m_recording) {
                const Vertex v = m_map.index(Cell{x, y});
                if (m_recording->wants(v)) m_recording->add(v, m_step, SearchRecording::Scanned, 0);
            }
            if (x == m_goal.x && y == m_goal.y) return Cell{x, y};
            if (dx != 0 && dy != 0) {
                if (jump({x, y}, dx, 0) || jump({x, y}, 0, dy)) return Cell{x, y};
            } else if (dx != 0) {
                if ((free(x, y - 1) && !free(x - dx, y - 1)) || (free(x, y + 1) && !free(x - dx, y + 1)))
                    return Cell{x, y};
            } else {
                if ((free(x - 1, y) && !free(x - 1, y - dy)) || (free(x + 1, y) && !free(x + 1, y - dy)))
                    return Cell{x, y};
            }
        }
    }

    // The directions to follow from `c` when it was reached going (dx, dy) ((0, 0): the start,
    // every direction). A diagonal arrival keeps its two components and itself; a straight one
    // keeps itself, the two diagonals ahead and the two sides (those the pruning may need when
    // the cells behind them are blocked; following a side that is not needed costs work only).
    template <class F>
    void directions(Cell c, int dx, int dy, F&& follow) const {
        if (dx == 0 && dy == 0) {
            for (int ddy = -1; ddy <= 1; ++ddy)
                for (int ddx = -1; ddx <= 1; ++ddx)
                    if ((ddx || ddy) && can_step(c.x, c.y, ddx, ddy)) follow(ddx, ddy);
            return;
        }
        if (dx != 0 && dy != 0) {
            if (free(c.x, c.y + dy)) follow(0, dy);
            if (free(c.x + dx, c.y)) follow(dx, 0);
            if (can_step(c.x, c.y, dx, dy)) follow(dx, dy);
            return;
        }
        // Straight: (sx, sy) is one side, (-sx, -sy) the other.
        const int sx = dy != 0 ? 1 : 0, sy = dx != 0 ? 1 : 0;
        if (free(c.x + dx, c.y + dy)) {
            follow(dx, dy);
            for (int side : {1, -1})
                if (can_step(c.x, c.y, dx + side * sx, dy + side * sy)) follow(dx + side * sx, dy + side * sy);
        }
        for (int side : {1, -1})
            if (free(c.x + side * sx, c.y + side * sy)) follow(side * sx, side * sy);
    }

    // Cost of a straight or diagonal run of `steps` cells.
    double run_cost(int steps, bool diagonal) const { return double(steps) * step_cost(m_mode, diagonal); }

    std::uint64_t scanned() const { return m_scanned; }
    // The cells jumps pass over go into `recording` as Scanned events of the current step.
    void record(SearchRecording* recording, std::uint32_t step) {
        m_recording = recording;
        m_step = step;
    }

private:
    const GridMap& m_map;
    CostMode m_mode;
    Cell m_goal;
    std::uint64_t m_scanned = 0;
    SearchRecording* m_recording = nullptr;
    std::uint32_t m_step = 0;
};

}  // namespace

Expected<JpsOutput> jps_grid(const GridMap& map, MoveRules rules, CostMode mode, Vertex start, Vertex goal,
                             SearchRecording* recording, const std::atomic<bool>* cancel) {
    if (rules.connectivity != Connectivity::Eight || rules.corners != CornerRule::None)
        return Error{"Jump Point Search here is for 8-connected grids without corner cutting (MovingAI's rule)"};
    JpsOutput result;
    SearchOutput& out = result.search;
    if (start == goal) {
        out.found = true;
        out.cost = 0;
        out.path = {start};
        return result;
    }
    const Cell s = map.cell(start), t = map.cell(goal);
    Jps jps(map, mode, t);
    const std::size_t n = map.cell_count();
    std::vector<double> g(n, kInf);
    std::vector<Vertex> parent(n, kNoVertex);
    std::vector<std::uint8_t> closed(n, 0);
    OpenList open;
    auto h = [&](Cell c) { return grid_heuristic(Heuristic::Octile, mode, c, t); };
    auto record = [&](Vertex v, std::uint64_t step, SearchRecording::Kind kind) {
        if (recording && recording->wants(v)) recording->add(v, std::uint32_t(step), kind, 0);
    };
    g[start] = 0;
    open.push({h(s), 0.0f, start});
    ++out.generated;
    record(start, 0, SearchRecording::Open);
    while (!open.empty()) {
        const Vertex u = open.top().v;
        open.pop();
        if (closed[u]) continue;
        if ((out.expanded & 1023) == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
            out.cancelled = true;
            break;
        }
        closed[u] = 1;
        const std::uint64_t step = out.expanded++;
        record(u, step, SearchRecording::Close);
        if (u == goal) {
            out.found = true;
            out.cost = g[u];
            break;
        }
        const Cell c = map.cell(u);
        jps.record(recording, std::uint32_t(step));
        int dx = 0, dy = 0;
        if (parent[u] != kNoVertex) {
            const Cell p = map.cell(parent[u]);
            dx = sign(c.x - p.x);
            dy = sign(c.y - p.y);
        }
        jps.directions(c, dx, dy, [&](int ddx, int ddy) {
            const auto next = jps.jump(c, ddx, ddy);
            if (!next) return;
            const Vertex w = map.index(*next);
            if (closed[w]) return;
            const int steps = std::max(std::abs(next->x - c.x), std::abs(next->y - c.y));
            const double ng = g[u] + jps.run_cost(steps, ddx != 0 && ddy != 0);
            if (ng < g[w]) {
                g[w] = ng;
                parent[w] = u;
                open.push({ng + h(*next), float(ng), w});
                ++out.generated;
                record(w, step, SearchRecording::Open);
            }
        });
    }
    if (recording) recording->steps = std::uint32_t(out.expanded);
    result.scanned = jps.scanned();
    if (!out.found) return result;
    // The jump points back to the start, each run filled in cell by cell.
    std::vector<Vertex> points;
    for (Vertex v = goal; v != kNoVertex; v = parent[v]) points.push_back(v);
    std::reverse(points.begin(), points.end());
    out.path.push_back(points.front());
    for (std::size_t i = 1; i < points.size(); ++i) {
        const Cell a = map.cell(points[i - 1]), b = map.cell(points[i]);
        const int sx = sign(b.x - a.x), sy = sign(b.y - a.y);
        for (Cell c = a; c.x != b.x || c.y != b.y;) {
            c.x += sx;
            c.y += sy;
            out.path.push_back(map.index(c));
        }
    }
    return result;
}

}  // namespace ps
