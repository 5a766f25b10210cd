// CPU reference searches: BFS (the BFS paper's per-level sweep and a std::queue BFS), Dijkstra,
// A* and bidirectional A* (binary heaps), on grid maps (implicit neighbours, no CSR needed)
// and on CSR graphs. These are the references every GPU variant is validated against.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/graph/graph.hpp"
#include "kernels/map/grid_map.hpp"
#include "kernels/base/recording.hpp"

namespace ps {

enum class Heuristic : std::uint8_t { Zero, Manhattan, Euclidean, Octile };
std::string_view to_string(Heuristic h);
std::optional<Heuristic> parse_heuristic(std::string_view name);

inline constexpr std::int32_t kUnreached = -1;

struct BfsOutput {
    std::vector<std::int32_t> levels;  // per vertex, kUnreached where not reached
    std::int32_t depth = 0;            // number of levels (max level + 1), 0 if nothing reached
    std::uint64_t visited = 0;         // vertices given a level
    bool cancelled = false;
};

// BFS from `target` over an unweighted CSR graph. With `stop_at` != kNoVertex the search
// completes the level in which stop_at is reached and stops there, so every vertex with a
// level <= level(stop_at) is labelled and none above: both variants (and GPU level-synchronous
// ones) agree exactly. `cancel` is polled once per level (sweep) or per 64k pops (queue).
BfsOutput bfs_sweep(const CsrGraph& graph, Vertex target, Vertex stop_at, const std::atomic<bool>* cancel = nullptr);
BfsOutput bfs_queue(const CsrGraph& graph, Vertex target, Vertex stop_at, const std::atomic<bool>* cancel = nullptr);

// Path from `from` to the BFS target following strictly decreasing levels; empty if unreached.
std::vector<Vertex> bfs_path(const CsrGraph& graph, const std::vector<std::int32_t>& levels, Vertex from);
// The same on the implicit grid graph (no CSR needed: huge maps).
std::vector<Vertex> bfs_path(const GridMap& map, MoveRules rules, const std::vector<std::int32_t>& levels, Vertex from);

struct SearchOutput {
    bool found = false;
    double cost = std::numeric_limits<double>::infinity();
    std::vector<Vertex> path;     // start .. goal, empty if not found
    std::uint64_t expanded = 0;   // vertices closed (both directions for bidirectional)
    std::uint64_t generated = 0;  // heap pushes
    bool cancelled = false;
};

struct GridSearchSpec {
    MoveRules rules;
    CostMode cost_mode = CostMode::Real;
    Heuristic heuristic = Heuristic::Octile;
};

// Heuristic value between two cells in the given metric. Octile, and Euclidean scaled by
// 1414/(1000*sqrt2) in integer mode, are consistent; Manhattan is admissible on 4-connected
// grids only.
double grid_heuristic(Heuristic h, CostMode mode, Cell a, Cell b);

// Dijkstra == A* with Heuristic::Zero. `recording` may be null.
SearchOutput astar_grid(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal,
                        SearchRecording* recording = nullptr, const std::atomic<bool>* cancel = nullptr);
SearchOutput astar_bidir_grid(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal,
                              SearchRecording* recording = nullptr, const std::atomic<bool>* cancel = nullptr);
// Ordered by g + weight * h, vertices expanded once: weighted A* for weight > 1 (with a consistent
// heuristic the cost is at most weight times the optimum), greedy best-first (h alone, any path)
// for weight = infinity. weight 1 is astar_grid.
SearchOutput best_first_grid(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal, double weight,
                             SearchRecording* recording = nullptr, const std::atomic<bool>* cancel = nullptr);

// On weighted CSR graphs: heuristics use coords (Euclidean; Manhattan/Octile on x,y) when
// present, otherwise Zero. For the backward direction the graph must be symmetric (grids
// and undirected roadmaps are); astar_bidir_graph builds the reverse graph if needed.
SearchOutput astar_graph(const CsrGraph& graph, Heuristic h, Vertex start, Vertex goal,
                         SearchRecording* recording = nullptr, const std::atomic<bool>* cancel = nullptr);
SearchOutput astar_bidir_graph(const CsrGraph& graph, Heuristic h, Vertex start, Vertex goal,
                               SearchRecording* recording = nullptr, const std::atomic<bool>* cancel = nullptr);

// Reverse (transpose) of a graph, weights and coords carried along.
CsrGraph reverse_graph(const CsrGraph& graph);

}  // namespace ps
