// Gate forest: the dead-end forest (dead_ends.hpp) for corridors wider than one cell. Per-map
// preprocessing that lets a query search only the corridors it can use.
//
// A gate is a short straight cut: a maximal horizontal run of free cells (blocked or the map's
// edge at both ends) of at most `max_width` cells, or such a vertical run none of whose cells is
// already in a horizontal gate. Regions are the connected parts of the free cells that are in no
// gate. Gates and regions are the nodes of a graph (an edge wherever one move joins two nodes),
// which is peeled like the dead-end forest: a node with at most one neighbour left leaves,
// that neighbour is its parent. In a perfect maze of any corridor width every node peels.
//
// Why a search on the kept cells stays exact. A peeled subtree hangs from the rest through one
// node; two regions are never neighbours (they would be one region), so either that node or the
// subtree's own top node is a gate, and the subtree can be reached only through that gate's cells.
// A path that goes in from gate cell a and comes back out to gate cell b can be replaced by the
// straight walk from a to b along the gate: it costs the octile distance |a - b| in orthogonal
// steps, which no path between a and b undercuts under any move rule. So a query keeps:
//   - the tree path of nodes between start and goal (through their lowest common ancestor), or,
//     where they hang from different core nodes, both paths up to the core and the whole core;
//   - every gate next to a kept region (the path may cut through such a gate's cells);
// and every other node is pruned. A search on the kept cells finds the map's optimal cost, in
// both metrics and under every move rule; a search on any superset of them (the union over a
// batch's queries) does too. The map must be plain (a weighted cell would make the walk along a
// gate cost more than its length).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/map/grid_map.hpp"

namespace ps {

inline constexpr std::uint32_t kNoNode = 0xffffffffu;

struct GateForest {
    std::vector<std::uint32_t> node_of;     // per cell; kNoNode for a blocked cell
    std::vector<std::uint32_t> cell_begin;  // per node + 1: the node's cells are cells[cell_begin[k] ..]
    std::vector<Vertex> cells;
    std::vector<std::uint8_t> gate;        // per node: 1 gate, 0 region
    std::vector<std::uint32_t> adj_begin;  // per node + 1: neighbours in adj
    std::vector<std::uint32_t> adj;
    std::vector<std::uint32_t> parent;      // kNoNode: a core node or a tree's last node
    std::vector<std::uint32_t> root;        // the core node (or last node) its tree hangs from
    std::vector<std::uint32_t> depth;       // nodes to the root
    std::vector<std::uint8_t> core;         // 1: survived the peeling
    std::vector<std::uint32_t> core_nodes;  // every core node
    std::size_t gates = 0, regions = 0, core_cells = 0;

    std::size_t nodes() const { return gate.size(); }
};

// O(cells); max_width >= 1.
GateForest build_gate_forest(const GridMap& map, MoveRules rules, int max_width);

// The nodes some queries keep: a byte per node, and whether the whole core is in.
struct KeptNodes {
    std::vector<std::uint8_t> node;
    bool whole_core = false;
    explicit KeptNodes(const GateForest& forest) : node(forest.nodes(), 0) {}
};

// Adds what a search from start to goal keeps, the gates next to kept regions included. Returns
// false, adding nothing, when the forest alone shows the goal unreachable (a blocked cell, or
// two components).
bool keep_for_query(const GateForest& forest, Vertex start, Vertex goal, KeptNodes& keep);

// Whether a search from start to goal keeps the whole core (what keep_for_query would mark):
// they hang from different core nodes, or their climbs meet in a core region. Then the whole
// map's cells are nearly what it keeps, and a superset. False for unreachable pairs.
bool keeps_whole_core(const GateForest& forest, Vertex start, Vertex goal);

// The nodes from start's to goal's, in order, where the query is answered inside one tree (its
// kept set is that path and the gates beside it, without the core); empty otherwise. Every gate
// strictly inside it separates start from goal among the kept cells, so a shortest path crosses
// them in order: d(s, g) = min over cells y_i of cut gate i of d(s, y_1) + d(y_1, y_2) + ... .
std::vector<std::uint32_t> tree_node_path(const GateForest& forest, Vertex start, Vertex goal);

// The number of cells of the kept nodes.
std::size_t kept_cells(const GateForest& forest, const KeptNodes& keep);

// A tree query in pieces (the `pieces` parameter of block A*, kernels/search/grid_astar_params.cpp):
// layers of cells from its start (one cell) through the cells of each cut gate to its goal (one
// cell), and a search of every leg between consecutive layers. The least
// d(s, y_1) + d(y_1, y_2) + ... + d(y_k, g) over the layers' cells from the legs' costs (-1:
// unreachable), where layer i's legs start at first_leg[i] in leg_costs, a cell of layer i to a
// cell of layer i + 1 row-major; and the index of each layer's cell on the least chain. Cost -1
// where no chain of legs reaches the goal.
struct ThroughLayers {
    double cost = -1.0;
    std::vector<std::size_t> cell;
};
ThroughLayers least_through(const std::vector<std::size_t>& layer_sizes, const std::vector<std::size_t>& first_leg,
                            const std::vector<double>& leg_costs);

// Whether a map is worth its gate forest (gate_width=auto, kernels/search/grid_astar_params.cpp)
// is decided in two steps, the first cheap enough for any map. Both read up to 128 rows (and
// 128 columns) spread without a period (the golden-ratio sequence: a fixed stride read only the
// walls of a 2048² maze whose period divided it), O(128 (width + height)).
// 1a. The share of free cells in straight runs of at most `max_width` cells between walls: the
//     horizontal share plus the vertical share, at most 1. Every cell of a maze's corridor lies
//     in a short run across it (0.69-1.0); open ground and rooms do not (game, rooms and noise
//     maps 0.01-0.08, random512-10-0 0.47; maps of 30% random obstacles 1.0).
double short_run_share(const GridMap& map, int max_width);
// 1b. The share of blocked cells whose blocked run, along their row or their column, is 3
//     cells or longer: a maze's walls are straight and long (1.0), obstacles scattered at
//     random mostly stand alone (0.06 at 10%, 0.4 at 30%); game, rooms and noise maps are near
//     1 but fail 1a. It spares random maps the forest's build (0.83 s and 0.3 GB for a
//     4096² grid of 30% obstacles, one core). 0 when no sampled cell is blocked.
double long_wall_share(const GridMap& map);
// 2. For maps past the first step, the forest itself: the share of free cells neither in the
//    core nor in the largest node, which a query outside them can leave out (a perfect maze
//    near 1; a map of scattered obstacles keeps most cells in its core; one open region that
//    peels whole is one node a query keeps).
double pruned_share(const GateForest& forest);
inline constexpr int kAutoGateWidth = 8;         // the width auto takes
inline constexpr double kMazeRunShare = 0.5;     // step 1a passes at or above it
inline constexpr double kMazeWallShare = 0.8;    // step 1b passes at or above it
inline constexpr double kMazePrunedShare = 0.5;  // step 2 passes at or above it

}  // namespace ps
