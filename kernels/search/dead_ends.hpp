// Dead-end forest of a grid graph: per-map preprocessing that answers maze queries without
// searching the corridors. Vertices of degree <= 1 are peeled off until none is left (a dead
// end, then the corridor cell it hung from, ...). What is peeled forms trees hanging from the
// surviving core (or whole trees where a component has no cycle: every perfect maze); each
// peeled cell keeps its parent, its depth and its distance to its tree's root, counted in
// orthogonal and diagonal steps so that both metrics stay exact.
//
// Why queries stay exact: a tree hangs from the rest of the graph by its root only, so every
// path out of a cell of the tree passes through the root, and two cells of one tree are joined
// by their tree path (leaving it means passing the root twice). So
//   same tree: cost = tree path through the lowest common ancestor;
//   different trees with core roots r_s, r_g: cost = d(s, r_s) + core(r_s, r_g) + d(g, r_g),
//   where core() is a search on the core alone (the map with every peeled cell blocked);
//   otherwise the two cells lie in different components.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/map/grid_map.hpp"

namespace ps {

struct TreeSteps {
    std::uint32_t orthogonal = 0;
    std::uint32_t diagonal = 0;
    double cost(CostMode mode) const {
        return double(orthogonal) * step_cost(mode, false) + double(diagonal) * step_cost(mode, true);
    }
};

// The lowest common ancestor of nodes a and b of a forest given by parent and depth arrays
// (the two must share a tree; the dead-end forest's cells, the gate forest's nodes).
template <class Node>
Node lowest_common_ancestor(const std::vector<Node>& parent, const std::vector<std::uint32_t>& depth, Node a, Node b) {
    while (depth[a] > depth[b]) a = parent[a];
    while (depth[b] > depth[a]) b = parent[b];
    while (a != b) {
        a = parent[a];
        b = parent[b];
    }
    return a;
}

struct DeadEndForest {
    std::vector<Vertex> parent;        // kNoVertex: a core cell, a blocked cell or a tree's last cell
    std::vector<Vertex> root;          // the core cell (or last cell) a peeled cell's tree hangs from
    std::vector<std::uint32_t> depth;  // steps to the root
    std::vector<TreeSteps> to_root;    // the steps of the tree path to the root
    std::vector<std::uint8_t> core;    // 1: survived the peeling
    GridMap core_map;                  // the map with every peeled cell blocked
    std::size_t peeled = 0;
    std::size_t core_cells = 0;
};

DeadEndForest build_dead_end_forest(const GridMap& map, MoveRules rules);

// A query seen through the forest: answered by the trees alone, or reduced to a core search.
struct ForestQuery {
    enum class Kind { TreePath, CoreSearch, Unreachable } kind = Kind::Unreachable;
    TreeSteps steps;                // TreePath: the whole path; CoreSearch: s -> r_s plus r_g -> g
    Vertex core_start = kNoVertex;  // CoreSearch: r_s and r_g
    Vertex core_goal = kNoVertex;
};

ForestQuery forest_query(const DeadEndForest& forest, Vertex start, Vertex goal);

// The cells from `from` up its tree to `to` (an ancestor, or from itself), both included.
std::vector<Vertex> climb(const DeadEndForest& forest, Vertex from, Vertex to);

// The tree path of a TreePath query, start .. goal.
std::vector<Vertex> tree_path(const DeadEndForest& forest, Vertex start, Vertex goal);

// The whole path of a reachable query, start .. goal: its tree path, or for a CoreSearch the
// climb to r_s, `core_path` (r_s .. r_g, found on the core map) and the descent from r_g.
std::vector<Vertex> forest_path(const DeadEndForest& forest, Vertex start, Vertex goal, const ForestQuery& query,
                                const std::vector<Vertex>& core_path);

}  // namespace ps
