// Flow fields for crowds (the BFS paper's motivation): one search from the goal over the whole
// map gives every cell its distance to the goal and the direction to step in, so any number of
// agents can walk to the goal by table look-ups. The metric is exact integers: BFS levels
// (steps) on plain 4-connected maps; otherwise the BBA* paper's integer metric weighted by the
// cells' costs (a step between cells costing a and b: (a + b) * 500 orthogonal, (a + b) * 707
// diagonal, so 1000/1414 on plain cells; 4- and 8-connected, all three corner rules), so the CPU
// reference and the GPU agree to the last bit. Qt-free, CUDA-free.
//
// Directions: index k into kGridSteps, the order in which for_each_grid_neighbour visits the
// neighbours (E, W, S, N, SE, SW, NE, NW); kNoDirection at the goal and on blocked or
// unreachable cells. Every implementation chooses the FIRST direction in that order whose step
// is legal and lands on a cell exactly one step cost closer (flow_direction), so CPU and GPU
// directions are equal; validation checks that property itself, not equality.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps {

inline constexpr const char* kFlowDirectionNames[8] = {"E", "W", "S", "N", "SE", "SW", "NE", "NW"};
inline constexpr std::uint8_t kNoDirection = 255;
inline constexpr std::int32_t kFlowUnreached = -1;

inline constexpr bool is_diagonal_direction(std::uint8_t d) { return d >= 4 && d < 8; }

// True when the field of `map` under `rules` counts BFS levels (a plain 4-connected map); false
// when it uses the weighted integer metric. Scans the map (GridMap::weighted): ask once per field.
inline bool flow_uses_levels(const GridMap& map, MoveRules rules) {
    return rules.connectivity == Connectivity::Four && !map.weighted();
}

// Cost of one step between cells costing `from` and `to` (1..255) in the flow-field metric: 1 in
// levels mode, else (from + to) * 500 orthogonal, (from + to) * 707 diagonal (1000/1414 on plain
// cells), weighted_step_cost's integer metric.
inline std::int64_t flow_step_cost(bool levels, std::uint8_t from, std::uint8_t to, bool diagonal) {
    if (levels) return 1;
    return (std::int64_t(from) + std::int64_t(to)) * (diagonal ? kIntHalfDiagonal : kIntHalfOrthogonal);
}

// Bit k set when the step in direction k from v is legal under `rules` (the neighbour is
// passable and, for diagonals, the corner rule holds). Zero for blocked cells. Steps are
// symmetric: a legal step v -> w has a legal step w -> v.
std::uint8_t flow_move_mask(const GridMap& map, MoveRules rules, Vertex v);

struct FlowField {
    int width = 0, height = 0;
    MoveRules rules;
    bool levels = false;  // distances in BFS levels (flow_uses_levels), else the weighted integer metric
    Vertex goal = kNoVertex;
    std::vector<std::int32_t> distance;  // per cell, kFlowUnreached where blocked or unreachable
    std::vector<std::uint8_t> dirs;      // per cell, kNoDirection where none

    std::size_t cell_count() const { return distance.size(); }
    Vertex neighbour(Vertex v, std::uint8_t d) const {
        return Vertex(std::int64_t(v) + kGridSteps[d].dy * std::int64_t(width) + kGridSteps[d].dx);
    }
};

// The distance field from `goal` over the whole map (no early exit) and its directions:
// BFS on plain 4-connected maps, Dijkstra with integer costs otherwise. Errors: the goal is
// outside the map or blocked, the distances overflow 32 bits (a path of more than ~2 million
// plain orthogonal steps, fewer on costly terrain), or `cancel` was set (ErrorKind::Cancelled).
Expected<FlowField> compute_flow_field(const GridMap& map, MoveRules rules, Vertex goal,
                                       const std::atomic<bool>* cancel = nullptr);

// The direction rule every implementation shares (see the file comment); kNoDirection when
// v is the goal, unreachable, or (in a broken field) has no exactly-closer neighbour. `levels`:
// flow_uses_levels(map, rules), asked once by the caller.
std::uint8_t flow_direction(const GridMap& map, MoveRules rules, bool levels, const std::vector<std::int32_t>& distance,
                            Vertex v);
std::vector<std::uint8_t> flow_directions(const GridMap& map, MoveRules rules,
                                          const std::vector<std::int32_t>& distance);

// Cells from `from` to the goal along the field (from first, goal last); empty when `from`
// cannot reach the goal. Stops (empty) on a cycle or an out-of-map step of a broken field.
std::vector<Vertex> follow_flow(const FlowField& field, Vertex from);

// Moves every agent `steps` cells along the field, one cell per step; agents at the goal or
// on a cell without a direction stay. Returns how many agents can still move afterwards.
std::size_t advance_agents(const FlowField& field, std::span<Vertex> positions, int steps = 1);

// `count` agents on distinct reachable cells other than the goal (all of them when fewer
// exist), chosen uniformly, the same for the same seed.
std::vector<Vertex> place_agents(const FlowField& field, std::size_t count, std::uint64_t seed);

}  // namespace ps
