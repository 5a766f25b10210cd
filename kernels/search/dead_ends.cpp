// The dead-end forest (kernels/search/dead_ends.hpp): peeling with a queue, O(cells).
#include "kernels/search/dead_ends.hpp"

#include <algorithm>

namespace ps {

DeadEndForest build_dead_end_forest(const GridMap& map, MoveRules rules) {
    const std::size_t n = map.cell_count();
    DeadEndForest f;
    f.parent.assign(n, kNoVertex);
    f.root.assign(n, kNoVertex);
    f.depth.assign(n, 0);
    f.to_root.assign(n, {});
    f.core.assign(n, 0);
    std::vector<std::uint8_t> degree(n, 0), removed(n, 0);
    std::vector<Vertex> queue, order;
    for (Vertex v = 0; v < n; ++v) {
        if (!map.passable(v)) continue;
        for_each_grid_neighbour(map, rules, v, [&](Vertex, bool) { ++degree[v]; });
        if (degree[v] <= 1) queue.push_back(v);
    }
    // Peel: a vertex leaves when at most one neighbour is left; that neighbour is its parent.
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const Vertex v = queue[head];
        removed[v] = 1;
        order.push_back(v);
        for_each_grid_neighbour(map, rules, v, [&](Vertex u, bool) {
            if (removed[u]) return;
            f.parent[v] = u;
            if (--degree[u] == 1) queue.push_back(u);
        });
    }
    // Roots first (reverse peel order): a parent leaves after its children or never.
    for (Vertex v = 0; v < n; ++v)
        if (map.passable(v) && !removed[v]) {
            f.core[v] = 1;
            f.root[v] = v;
            ++f.core_cells;
        }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const Vertex v = *it;
        const Vertex p = f.parent[v];
        if (p == kNoVertex) {
            f.root[v] = v;
            continue;
        }
        bool diagonal = false;
        is_grid_step(map, rules, v, p, &diagonal);
        f.root[v] = f.root[p];
        f.depth[v] = f.depth[p] + 1;
        f.to_root[v] = f.to_root[p];
        ++(diagonal ? f.to_root[v].diagonal : f.to_root[v].orthogonal);
    }
    f.peeled = order.size();
    f.core_map = map;
    for (Vertex v : order) {
        const Cell c = map.cell(v);
        f.core_map.set_passable(c.x, c.y, false);
    }
    return f;
}

namespace {

TreeSteps minus(TreeSteps a, const TreeSteps& b) {
    a.orthogonal -= b.orthogonal;
    a.diagonal -= b.diagonal;
    return a;
}

}  // namespace

ForestQuery forest_query(const DeadEndForest& f, Vertex start, Vertex goal) {
    ForestQuery q;
    const Vertex rs = f.root[start], rg = f.root[goal];
    if (rs == kNoVertex || rg == kNoVertex) return q;  // a blocked cell
    if (rs == rg) {
        const Vertex lca = lowest_common_ancestor(f.parent, f.depth, start, goal);
        const TreeSteps up = minus(f.to_root[start], f.to_root[lca]), down = minus(f.to_root[goal], f.to_root[lca]);
        q.kind = ForestQuery::Kind::TreePath;
        q.steps = {up.orthogonal + down.orthogonal, up.diagonal + down.diagonal};
        return q;
    }
    if (!f.core[rs] || !f.core[rg]) return q;  // a tree with no core is a whole component
    q.kind = ForestQuery::Kind::CoreSearch;
    q.steps = {f.to_root[start].orthogonal + f.to_root[goal].orthogonal,
               f.to_root[start].diagonal + f.to_root[goal].diagonal};
    q.core_start = rs;
    q.core_goal = rg;
    return q;
}

std::vector<Vertex> climb(const DeadEndForest& f, Vertex from, Vertex to) {
    std::vector<Vertex> cells{from};
    while (from != to && f.parent[from] != kNoVertex) {
        from = f.parent[from];
        cells.push_back(from);
    }
    return cells;
}

std::vector<Vertex> tree_path(const DeadEndForest& f, Vertex start, Vertex goal) {
    const Vertex lca = lowest_common_ancestor(f.parent, f.depth, start, goal);
    std::vector<Vertex> path = climb(f, start, lca);
    std::vector<Vertex> down = climb(f, goal, lca);
    down.pop_back();  // the ancestor is in both
    path.insert(path.end(), down.rbegin(), down.rend());
    return path;
}

std::vector<Vertex> forest_path(const DeadEndForest& f, Vertex start, Vertex goal, const ForestQuery& query,
                                const std::vector<Vertex>& core_path) {
    if (query.kind == ForestQuery::Kind::TreePath) return tree_path(f, start, goal);
    std::vector<Vertex> path = climb(f, start, query.core_start);
    path.pop_back();  // r_s opens the core path
    path.insert(path.end(), core_path.begin(), core_path.end());
    const std::vector<Vertex> down = climb(f, goal, query.core_goal);
    path.insert(path.end(), down.rbegin() + 1, down.rend());  // r_g closes it
    return path;
}

}  // namespace ps
