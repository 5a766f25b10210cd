// The gate forest (kernels/search/gate_forest.hpp): gates by two row-order scans, regions by a
// flood fill, each node made with its cells; the node graph from each node's cells, peeling with
// a queue. O(cells) throughout.
#include "kernels/search/gate_forest.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/search/dead_ends.hpp"

namespace ps {

namespace {

// A node is made with its cells: node ids and the cells array grow together, so each node's
// cells are cells[cell_begin[k] .. cell_begin[k + 1]) without a sort.
struct NodeMaker {
    GateForest& f;
    std::uint32_t begin(Vertex v) {  // opens a node with its first cell
        const std::uint32_t k = std::uint32_t(f.cell_begin.size() - 1);
        add(v, k);
        return k;
    }
    void add(Vertex v, std::uint32_t k) {
        f.node_of[v] = k;
        f.cells.push_back(v);
    }
    void end() { f.cell_begin.push_back(std::uint32_t(f.cells.size())); }
};

// Gates: short horizontal runs first, then the short vertical runs that meet none of them.
// The vertical runs are followed row by row (one open run per column) so that the map is read
// in memory order even on 10000² maps.
void make_gates(const GridMap& map, int max_width, NodeMaker& make) {
    const int w = map.width(), h = map.height();
    for (int y = 0; y < h; ++y) {
        int x = 0;
        while (x < w) {
            if (!map.passable(x, y)) {
                ++x;
                continue;
            }
            const int x0 = x;
            while (x < w && map.passable(x, y)) ++x;
            if (x - x0 > max_width) continue;
            const std::uint32_t k = make.begin(map.index(x0, y));
            for (int i = x0 + 1; i < x; ++i) make.add(map.index(i, y), k);
            make.end();
        }
    }
    std::vector<int> run_start(std::size_t(w), -1);
    std::vector<std::uint8_t> meets_row_gate(std::size_t(w), 0);
    auto close = [&](int x, int y_end) {  // the run of column x ends before row y_end
        const int y0 = run_start[std::size_t(x)];
        run_start[std::size_t(x)] = -1;
        if (y0 < 0 || meets_row_gate[std::size_t(x)] || y_end - y0 > max_width) return;
        const std::uint32_t k = make.begin(map.index(x, y0));
        for (int y = y0 + 1; y < y_end; ++y) make.add(map.index(x, y), k);
        make.end();
    };
    const std::vector<std::uint32_t>& node_of = make.f.node_of;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (!map.passable(x, y)) {
                close(x, y);
                continue;
            }
            if (run_start[std::size_t(x)] < 0) {
                run_start[std::size_t(x)] = y;
                meets_row_gate[std::size_t(x)] = 0;
            }
            if (node_of[map.index(x, y)] != kNoNode) meets_row_gate[std::size_t(x)] = 1;
        }
    for (int x = 0; x < w; ++x) close(x, h);
}

}  // namespace

GateForest build_gate_forest(const GridMap& map, MoveRules rules, int max_width) {
    if (max_width < 1) throw std::invalid_argument("gate forest: the gate width must be at least 1");
    const std::size_t n = map.cell_count();
    GateForest f;
    f.node_of.assign(n, kNoNode);
    f.cells.reserve(map.passable_count());
    f.cell_begin.push_back(0);
    NodeMaker make{f};
    make_gates(map, max_width, make);
    f.gates = f.cell_begin.size() - 1;

    // Regions: flood fill of the free cells in no gate, under the move rules.
    for (Vertex v = 0; v < n; ++v) {
        if (!map.passable(v) || f.node_of[v] != kNoNode) continue;
        const std::uint32_t k = make.begin(v);
        for (std::size_t i = f.cells.size() - 1; i < f.cells.size(); ++i)  // the node's cells are its queue
            for_each_grid_neighbour(map, rules, f.cells[i], [&](Vertex x, bool) {
                if (f.node_of[x] == kNoNode) make.add(x, k);
            });
        make.end();
    }
    const std::size_t nodes = f.cell_begin.size() - 1;
    f.regions = nodes - f.gates;
    f.gate.assign(nodes, 0);
    std::fill(f.gate.begin(), f.gate.begin() + std::ptrdiff_t(f.gates), std::uint8_t(1));

    // The node graph: a node's distinct neighbours, found from its cells' moves.
    f.adj_begin.assign(nodes + 1, 0);
    f.adj.reserve(nodes * 3);
    {
        std::vector<std::uint32_t> seen(nodes, kNoNode);
        for (std::uint32_t k = 0; k < nodes; ++k) {
            for (std::uint32_t i = f.cell_begin[k]; i < f.cell_begin[k + 1]; ++i)
                for_each_grid_neighbour(map, rules, f.cells[i], [&](Vertex x, bool) {
                    const std::uint32_t m = f.node_of[x];
                    if (m == k || seen[m] == k) return;
                    seen[m] = k;
                    f.adj.push_back(m);
                });
            f.adj_begin[k + 1] = std::uint32_t(f.adj.size());
        }
    }

    // Peel: a node leaves when at most one neighbour is left; that neighbour is its parent.
    // degree doubles as the mark: kNoNode once the node has left.
    f.parent.assign(nodes, kNoNode);
    std::vector<std::uint32_t> degree(nodes), queue;
    queue.reserve(nodes);
    for (std::uint32_t k = 0; k < nodes; ++k) {
        degree[k] = f.adj_begin[k + 1] - f.adj_begin[k];
        if (degree[k] <= 1) queue.push_back(k);
    }
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t k = queue[head];
        degree[k] = kNoNode;
        for (std::uint32_t i = f.adj_begin[k]; i < f.adj_begin[k + 1]; ++i) {
            const std::uint32_t m = f.adj[i];
            if (degree[m] == kNoNode) continue;
            f.parent[k] = m;
            if (--degree[m] == 1) queue.push_back(m);
        }
    }
    f.root.assign(nodes, kNoNode);
    f.depth.assign(nodes, 0);
    f.core.assign(nodes, 0);
    for (std::uint32_t k = 0; k < nodes; ++k)
        if (degree[k] != kNoNode) {
            f.core[k] = 1;
            f.root[k] = k;
            f.core_nodes.push_back(k);
            f.core_cells += f.cell_begin[k + 1] - f.cell_begin[k];
        }
    // Roots first (reverse peel order): a parent leaves after its children or never.
    for (auto it = queue.rbegin(); it != queue.rend(); ++it) {
        const std::uint32_t k = *it, p = f.parent[k];
        if (p == kNoNode) {
            f.root[k] = k;
            continue;
        }
        f.root[k] = f.root[p];
        f.depth[k] = f.depth[p] + 1;
    }
    return f;
}

namespace {

// A core region as the meeting node: a way out of it and back in through another of its gates
// may be shorter than any way across it, so the core stays.
bool needs_core(const GateForest& f, std::uint32_t lca) { return f.core[lca] && !f.gate[lca]; }

void keep_node(const GateForest& f, std::uint32_t k, KeptNodes& keep, std::vector<std::uint32_t>& regions) {
    if (keep.node[k]) return;
    keep.node[k] = 1;
    if (!f.gate[k]) regions.push_back(k);
}

// Keeps the tree path from a up to its ancestor `top` (both included).
void keep_climb(const GateForest& f, std::uint32_t a, std::uint32_t top, KeptNodes& keep,
                std::vector<std::uint32_t>& regions) {
    for (;;) {
        keep_node(f, a, keep, regions);
        if (a == top || f.parent[a] == kNoNode) return;
        a = f.parent[a];
    }
}

}  // namespace

bool keep_for_query(const GateForest& f, Vertex start, Vertex goal, KeptNodes& keep) {
    if (start >= f.node_of.size() || goal >= f.node_of.size()) return false;
    const std::uint32_t a = f.node_of[start], b = f.node_of[goal];
    if (a == kNoNode || b == kNoNode) return false;
    const std::uint32_t ra = f.root[a], rb = f.root[b];
    std::vector<std::uint32_t> regions;  // kept by this query: their gates are kept too
    bool core = false;
    if (ra == rb) {
        const std::uint32_t x = lowest_common_ancestor(f.parent, f.depth, a, b);
        keep_climb(f, a, x, keep, regions);
        keep_climb(f, b, x, keep, regions);
        core = needs_core(f, x);
    } else {
        if (!f.core[ra] || !f.core[rb]) return false;  // a tree with no core is a whole component
        keep_climb(f, a, ra, keep, regions);
        keep_climb(f, b, rb, keep, regions);
        core = true;
    }
    if (core && !keep.whole_core) {
        keep.whole_core = true;
        for (const std::uint32_t k : f.core_nodes) {
            if (!f.gate[k]) regions.push_back(k);  // again if already kept: its gates may not be
            keep.node[k] = 1;
        }
    }
    for (const std::uint32_t r : regions)
        for (std::uint32_t i = f.adj_begin[r]; i < f.adj_begin[r + 1]; ++i) keep.node[f.adj[i]] = 1;
    return true;
}

bool keeps_whole_core(const GateForest& f, Vertex start, Vertex goal) {
    if (start >= f.node_of.size() || goal >= f.node_of.size()) return false;
    const std::uint32_t a = f.node_of[start], b = f.node_of[goal];
    if (a == kNoNode || b == kNoNode) return false;
    const std::uint32_t ra = f.root[a], rb = f.root[b];
    if (ra != rb) return f.core[ra] && f.core[rb];
    return needs_core(f, lowest_common_ancestor(f.parent, f.depth, a, b));
}

std::vector<std::uint32_t> tree_node_path(const GateForest& f, Vertex start, Vertex goal) {
    if (start >= f.node_of.size() || goal >= f.node_of.size()) return {};
    const std::uint32_t a = f.node_of[start], b = f.node_of[goal];
    if (a == kNoNode || b == kNoNode || f.root[a] != f.root[b]) return {};
    const std::uint32_t x = lowest_common_ancestor(f.parent, f.depth, a, b);
    if (needs_core(f, x)) return {};
    std::vector<std::uint32_t> path, down;
    for (std::uint32_t k = a; k != x; k = f.parent[k]) path.push_back(k);
    path.push_back(x);
    for (std::uint32_t k = b; k != x; k = f.parent[k]) down.push_back(k);
    path.insert(path.end(), down.rbegin(), down.rend());
    return path;
}

std::size_t kept_cells(const GateForest& f, const KeptNodes& keep) {
    std::size_t cells = 0;
    for (std::size_t k = 0; k < f.nodes(); ++k)
        if (keep.node[k]) cells += f.cell_begin[k + 1] - f.cell_begin[k];
    return cells;
}

namespace {

// Free cells, and those in runs of at most `max_width`, along `count` cells from (x, y) in
// steps of (dx, dy).
void count_runs(const GridMap& map, int x, int y, int dx, int dy, int count, int max_width, std::size_t& free,
                std::size_t& in_short) {
    int run = 0;
    for (int i = 0; i <= count; ++i, x += dx, y += dy) {
        if (i < count && map.passable(x, y)) {
            ++run;
            continue;
        }
        free += std::size_t(run);
        if (run <= max_width) in_short += std::size_t(run);
        run = 0;
    }
}

// Line i of up to 128 spread over n lines (all of them when n <= 128), at the golden-ratio
// sequence's points (gate_forest.hpp says why).
int sampled_line(int i, int n) {
    return n <= 128 ? i : int(std::fmod(0.5 + double(i) * 0.6180339887498949, 1.0) * double(n));
}

}  // namespace

double short_run_share(const GridMap& map, int max_width) {
    const int w = map.width(), h = map.height();
    std::size_t free_h = 0, short_h = 0, free_v = 0, short_v = 0;
    for (int i = 0; i < std::min(h, 128); ++i)
        count_runs(map, 0, sampled_line(i, h), 1, 0, w, max_width, free_h, short_h);
    for (int i = 0; i < std::min(w, 128); ++i)
        count_runs(map, sampled_line(i, w), 0, 0, 1, h, max_width, free_v, short_v);
    const double share =
        (free_h ? double(short_h) / double(free_h) : 0.0) + (free_v ? double(short_v) / double(free_v) : 0.0);
    return std::min(1.0, share);
}

double long_wall_share(const GridMap& map) {
    const int w = map.width(), h = map.height();
    auto blocked = [&](int x, int y) { return map.in_bounds(x, y) && !map.passable(x, y); };
    std::size_t sampled = 0, in_long = 0;
    for (int i = 0; i < std::min(h, 128); ++i) {
        const int y = sampled_line(i, h);
        for (int x = 0; x < w;) {
            if (!blocked(x, y)) {
                ++x;
                continue;
            }
            const int x0 = x;
            while (x < w && blocked(x, y)) ++x;
            for (int c = x0; c < x; ++c) {  // along the row, else up to two cells up and down
                int up = 0, down = 0;
                while (up < 2 && blocked(c, y - up - 1)) ++up;
                while (down < 2 && blocked(c, y + down + 1)) ++down;
                ++sampled;
                in_long += (x - x0 >= 3 || up + down + 1 >= 3) ? 1 : 0;
            }
        }
    }
    return sampled == 0 ? 0.0 : double(in_long) / double(sampled);
}

double pruned_share(const GateForest& f) {
    const std::size_t free = f.cells.size();
    if (free == 0) return 0.0;
    std::size_t largest = 0;
    for (std::size_t k = 0; k < f.nodes(); ++k)
        if (!f.core[k]) largest = std::max<std::size_t>(largest, f.cell_begin[k + 1] - f.cell_begin[k]);
    return 1.0 - double(f.core_cells + largest) / double(free);
}

ThroughLayers least_through(const std::vector<std::size_t>& layers, const std::vector<std::size_t>& first_leg,
                            const std::vector<double>& leg_costs) {
    // Least cost to each cell of each layer, and the cell of the layer before it came from.
    std::vector<std::vector<double>> best(layers.size());
    std::vector<std::vector<std::size_t>> from(layers.size());
    best[0] = {0.0};
    for (std::size_t i = 0; i + 1 < layers.size(); ++i) {
        const std::size_t next = layers[i + 1];
        best[i + 1].assign(next, -1.0);
        from[i + 1].assign(next, 0);
        for (std::size_t a = 0; a < layers[i]; ++a) {
            if (best[i][a] < 0) continue;
            for (std::size_t b = 0; b < next; ++b) {
                const double leg = leg_costs[first_leg[i] + a * next + b];
                if (leg < 0) continue;
                const double c = best[i][a] + leg;
                if (best[i + 1][b] < 0 || c < best[i + 1][b]) {
                    best[i + 1][b] = c;
                    from[i + 1][b] = a;
                }
            }
        }
    }
    ThroughLayers out;
    out.cost = best.back()[0];
    if (out.cost < 0) return out;
    out.cell.assign(layers.size(), 0);
    for (std::size_t i = layers.size() - 1; i > 0; --i) out.cell[i - 1] = from[i][out.cell[i]];
    return out;
}

}  // namespace ps
