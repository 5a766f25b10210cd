// CSR graphs from grid maps, and structural checks for imported graphs.
#include "kernels/graph/graph.hpp"

#include <cmath>
#include <string>

namespace ps {

Expected<CsrGraph> grid_to_csr(const GridMap& map, MoveRules rules, std::optional<CostMode> weights) {
    CsrGraph g;
    const std::size_t n = map.cell_count();
    const int per_vertex = rules.connectivity == Connectivity::Eight ? 8 : 4;
    // Count first so the arrays are allocated once, exactly.
    std::uint64_t edges = 0;
    for (Vertex v = 0; v < n; ++v) {
        if (!map.passable(v)) continue;
        for_each_grid_neighbour(map, rules, v, [&](Vertex, bool) { ++edges; });
    }
    if (edges > 0xFFFFFFFFull)
        return Error{"the " + std::to_string(map.width()) + "x" + std::to_string(map.height()) + " map has " +
                     std::to_string(edges) + " edges with " + std::to_string(per_vertex) +
                     " neighbours: too many for a CSR graph with 32-bit offsets"};
    g.offsets.resize(n + 1);
    g.targets.resize(edges);
    if (weights) g.weights.resize(edges);
    std::uint32_t e = 0;
    for (Vertex v = 0; v < n; ++v) {
        g.offsets[v] = e;
        if (!map.passable(v)) continue;
        for_each_grid_neighbour(map, rules, v, [&](Vertex w, bool diagonal) {
            g.targets[e] = w;
            if (weights) g.weights[e] = weighted_step_cost(*weights, map.cost(v), map.cost(w), diagonal);
            ++e;
        });
    }
    g.offsets[n] = e;
    g.grid_width = map.width();
    return g;
}

Expected<void> check_graph(const CsrGraph& graph) {
    if (graph.offsets.empty()) return Error{"graph has no offset array"};
    const std::uint32_t n = graph.vertex_count();
    if (graph.offsets.front() != 0) return Error{"graph offsets must start at 0"};
    for (std::uint32_t v = 0; v < n; ++v)
        if (graph.offsets[v + 1] < graph.offsets[v])
            return Error{"graph offsets decrease at vertex " + std::to_string(v)};
    if (graph.offsets.back() != graph.targets.size())
        return Error{"graph offsets end at " + std::to_string(graph.offsets.back()) + " but there are " +
                     std::to_string(graph.targets.size()) + " edges"};
    for (std::size_t e = 0; e < graph.targets.size(); ++e)
        if (graph.targets[e] >= n)
            return Error{"edge " + std::to_string(e) + " points to vertex " + std::to_string(graph.targets[e]) +
                         " but the graph has " + std::to_string(n) + " vertices"};
    if (!graph.weights.empty()) {
        if (graph.weights.size() != graph.targets.size())
            return Error{"graph has " + std::to_string(graph.weights.size()) + " weights for " +
                         std::to_string(graph.targets.size()) + " edges"};
        for (std::size_t e = 0; e < graph.weights.size(); ++e)
            if (!std::isfinite(graph.weights[e]) || graph.weights[e] < 0)
                return Error{"edge " + std::to_string(e) + " has weight " + std::to_string(graph.weights[e]) +
                             ": weights must be finite and non-negative"};
    }
    if (!graph.coords.empty() && graph.coords.size() != n)
        return Error{"graph has " + std::to_string(graph.coords.size()) + " coordinates for " + std::to_string(n) +
                     " vertices"};
    return {};
}

}  // namespace ps
