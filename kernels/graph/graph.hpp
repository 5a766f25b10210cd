// Graphs in CSR form: built from a grid map (4-neighbour unweighted for BFS as in the BFS
// paper, 8-neighbour weighted for A*) or loaded as a general weighted roadmap with node
// coordinates. CPU searches accept both.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps {

struct Point3 {
    double x = 0, y = 0, z = 0;
};

struct CsrGraph {
    // offsets.size() == vertex_count + 1; edges of v are targets[offsets[v] .. offsets[v+1]).
    std::vector<std::uint32_t> offsets;
    std::vector<Vertex> targets;
    // Empty for unweighted graphs (every edge costs 1).
    std::vector<double> weights;
    // Empty, or one position per vertex (heuristics on roadmaps; cell centres for grids).
    std::vector<Point3> coords;
    // Set when built from a grid: lets heuristics use the grid metric.
    int grid_width = 0;

    std::uint32_t vertex_count() const { return offsets.empty() ? 0 : std::uint32_t(offsets.size() - 1); }
    std::uint64_t edge_count() const { return targets.size(); }
    bool weighted() const { return !weights.empty(); }
    double weight(std::uint32_t edge) const { return weights.empty() ? 1.0 : weights[edge]; }
};

// Vertex ids equal cell indices (blocked cells have degree 0). With `weights` set, edges carry
// step costs in that metric; otherwise the graph is unweighted. Error when the edge count
// does not fit 32-bit offsets.
Expected<CsrGraph> grid_to_csr(const GridMap& map, MoveRules rules, std::optional<CostMode> weights);

// Structural checks for imported graphs: offsets monotone, targets in range, weights >= 0
// and finite, coords absent or one per vertex.
Expected<void> check_graph(const CsrGraph& graph);

}  // namespace ps
