// Roadmaps: sparse weighted graphs with node positions that many agents search at once (the
// Batch family). Generated from a grid map as a waypoint graph, or read from a simple text
// format or from DIMACS .gr/.co files (9th DIMACS Implementation Challenge).
//
// Text format ("pathscope-roadmap 1"), one item per line, '#' starts a comment, blank lines
// are ignored, numbers are decimal (integers or reals):
//
//     pathscope-roadmap 1
//     map 512 512          # optional: made on a 512x512 grid map; node x y are then its cells
//     nodes 3
//     0 0                  # node 0: x y [z]
//     4 0
//     4 3 0.5
//     edges 2              # undirected: stored both ways in the CSR graph
//     0 1 4                # u v [w]; w omitted = Euclidean distance between the nodes
//     1 2
//     arcs 1               # optional: one-way edges u -> v [w]
//     2 0 5
//
// Node ids are 0-based, in the order listed. Sections come in the order header, map, nodes,
// edges, arcs; edges and arcs are both optional. Errors read "file:line: reason".
//
// DIMACS: `p sp N M` and `a u v w` lines (1-based node ids, one arc per line) in F.gr, and
// `p aux sp co N` and `v id x y` lines in F.co beside it (same name with .co instead of .gr),
// optional; `c` lines are comments. The writer emits integral weights as integers and others as
// shortest round-trip decimals (an extension the challenge's integer-only readers reject).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps {

struct WaypointOptions {
    int spacing = 8;      // lattice step in cells between candidate waypoints
    double max_edge = 0;  // longest edge in cells; 0 = 2.5 * spacing
    MoveRules rules;      // line-of-sight test honours these (8-connected, no corner cutting by default)
    // Join components the grid connects: where nodes in nearby blocks share a grid region but
    // not a roadmap component (no straight line between them, e.g. around a corner), a grid path
    // between them inside the box around both becomes an edge weighted by its length.
    bool connect = true;
};

// A sparse waypoint roadmap of a grid map: nodes at passable lattice cells (coords = cell x, y,
// z = 0), edges between nodes that see each other (straight line through passable cells)
// within max_edge, weight = Euclidean length in cells; every node id maps to a cell.
struct Roadmap {
    CsrGraph graph;                  // weighted, coords set
    std::vector<Vertex> node_cells;  // cell id per node when generated from a map, else empty
    // Size of the grid map the roadmap was made on (node_cells index it), 0 when unknown.
    int map_width = 0;
    int map_height = 0;
};

// One candidate per spacing x spacing block of the map: the block's centre cell, or, when that
// is blocked, the passable cell of the block nearest to it (so narrow corridors off the lattice
// still get a waypoint). With `connect`, straight edges are followed by path edges that join
// components the grid connects (random512-10-0 at spacing 8: 204 components -> 1, so MovingAI
// scenarios snap to connected nodes). Error for an empty map, a map without passable cells, spacing < 1,
// max_edge < 0, or more edges than 32-bit offsets hold.
Expected<Roadmap> waypoint_roadmap(const GridMap& map, const WaypointOptions& options);

// True when the straight segment between the centres of cells a and b crosses only passable
// cells. Where it passes exactly through a cell corner (a diagonal step), the two cells beside
// the corner follow the grid's own rule for diagonal moves: both passable under
// CornerRule::None, one under CornerRule::One (and on 4-connected grids), none under Any.
bool line_of_sight(const GridMap& map, MoveRules rules, Cell a, Cell b);

// By extension: .gr (DIMACS, with the .co beside it when present) or anything else (text).
// Files that cannot be read or written fail with ErrorKind::Io, malformed ones with Invalid.
Expected<Roadmap> read_roadmap(const std::filesystem::path& path);
Expected<void> write_roadmap(const Roadmap& roadmap, const std::filesystem::path& path);

// The text format; `source` names the input in messages.
Expected<Roadmap> parse_roadmap_text(std::string_view text, const std::string& source);
std::string format_roadmap_text(const Roadmap& roadmap);
// DIMACS; `co` may be empty (no coordinates). N in 'p sp N M' must be justified by the input:
// at most twice the arcs listed, or at most the coordinate lines of the .co file.
Expected<Roadmap> read_dimacs(const std::filesystem::path& gr, const std::filesystem::path& co);
// The same from memory; `co_text` nullopt = no coordinate file. Sources name them in messages.
Expected<Roadmap> parse_dimacs(std::string_view gr_text, const std::string& gr_source,
                               std::optional<std::string_view> co_text, const std::string& co_source);
// Writes F.gr and, when the graph has coords, F.co beside it.
Expected<void> write_dimacs(const Roadmap& roadmap, const std::filesystem::path& gr);

// Nearest node to a point (Euclidean on x, y of the coords; ties: lowest id), for snapping
// agents placed on the map. kNoVertex for a roadmap without nodes or coords.
Vertex nearest_node(const Roadmap& roadmap, double x, double y);

// Connected components with every edge taken as undirected (weak components).
struct Components {
    std::vector<std::uint32_t> label;  // per vertex, 0 .. count-1
    std::uint32_t count = 0;
    std::uint32_t largest = 0;  // vertices in the largest component
};
Components connected_components(const CsrGraph& graph);

// The largest s such that s * (Euclidean distance between coords) is a consistent heuristic
// for the edge weights: min over edges of weight / length (edges of zero length skipped).
// 1 for waypoint roadmaps (weights are lengths); road graphs in DIMACS have weights in other
// units (distance, travel time), where plain Euclidean on coords would overestimate.
// 0 when the graph has no coords or no edge of positive length.
double euclidean_heuristic_scale(const CsrGraph& graph);

}  // namespace ps
