// Internal to the GPU A* files (astar_gpu.cu, astar_gpu_baselines.cu): host-side helpers they
// share — the unreached-g sentinel, the integer octile heuristic, and the path walk along
// exact g steps after the g array is downloaded.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/search/cpu_search.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::gpu {

inline constexpr std::int32_t kUnreachedG = 0x7F7F7F7F;  // g of unreached cells (memset 0x7F)

// Integer octile distance (1000/1414), the same value the CPU searches use.
inline std::int64_t host_octile(const GridMap& map, Vertex v, Vertex t) {
    return std::int64_t(grid_heuristic(Heuristic::Octile, CostMode::Integer, map.cell(v), map.cell(t)));
}

// Walks from `to` back to the search's source along exact g steps: every vertex on a best
// path has a neighbour whose g plus the step cost (integer metric, weighted terrain included)
// equals its own (a smaller g there would give a cheaper path). Returns source .. to, or empty
// if the walk gets stuck.
inline std::vector<Vertex> walk_back(const GridMap& map, MoveRules rules, const std::vector<std::int32_t>& g,
                                     Vertex to) {
    std::vector<Vertex> path{to};
    Vertex v = to;
    while (g[v] != 0) {
        Vertex prev = kNoVertex;
        for_each_grid_neighbour(map, rules, v, [&](Vertex u, bool diagonal) {
            const auto c = std::int64_t(weighted_step_cost(CostMode::Integer, map.cost(u), map.cost(v), diagonal));
            if (prev == kNoVertex && g[u] != kUnreachedG && g[u] + c == g[v]) prev = u;
        });
        if (prev == kNoVertex || path.size() > map.cell_count()) return {};
        path.push_back(prev);
        v = prev;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

}  // namespace ps::gpu
