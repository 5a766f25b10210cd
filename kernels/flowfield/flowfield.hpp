// Flow fields for crowds (the BFS paper's motivation): one search from the goal over the whole
// map gives every cell its distance to the goal and the direction to step in, so any number of
// agents can walk to the goal by table look-ups. The metric is exact integers: BFS levels
// (steps) on 4-connected grids, the BBA* paper's 1000/1414 on 8-connected ones (all three corner
// rules), so the CPU reference and the GPU agree to the last bit. Qt-free, CUDA-free.
//
// Directions: index k into kFlowSteps, the order in which for_each_grid_neighbour visits the
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

struct FlowStep {
    int dx = 0, dy = 0;
};

inline constexpr FlowStep kFlowSteps[8] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
inline constexpr const char* kFlowDirectionNames[8] = {"E", "W", "S", "N", "SE", "SW", "NE", "NW"};
inline constexpr std::uint8_t kNoDirection = 255;
inline constexpr std::int32_t kFlowUnreached = -1;

inline constexpr bool is_diagonal_direction(std::uint8_t d) { return d >= 4 && d < 8; }

// Cost of one step in the flow-field metric of `c`: 1 (4-connected, BFS levels) or 1000/1414.
inline std::int64_t flow_step_cost(Connectivity c, bool diagonal) {
    if (c == Connectivity::Four) return 1;
    return diagonal ? kIntDiagonal : kIntOrthogonal;
}

// Bit k set when the step in direction k from v is legal under `rules` (the neighbour is
// passable and, for diagonals, the corner rule holds). Zero for blocked cells. Steps are
// symmetric: a legal step v -> w has a legal step w -> v.
std::uint8_t flow_move_mask(const GridMap& map, MoveRules rules, Vertex v);

struct FlowField {
    int width = 0, height = 0;
    MoveRules rules;
    Vertex goal = kNoVertex;
    std::vector<std::int32_t> distance;  // per cell, kFlowUnreached where blocked or unreachable
    std::vector<std::uint8_t> dirs;      // per cell, kNoDirection where none

    std::size_t cell_count() const { return distance.size(); }
    Vertex neighbour(Vertex v, std::uint8_t d) const {
        return Vertex(std::int64_t(v) + kFlowSteps[d].dy * std::int64_t(width) + kFlowSteps[d].dx);
    }
};

// The distance field from `goal` over the whole map (no early exit) and its directions:
// BFS on 4-connected rules, Dijkstra with integer costs on 8-connected ones. Errors: the goal
// is outside the map or blocked, the distances overflow 32 bits (a path of more than ~2
// million orthogonal steps, 8-connected), or `cancel` was set (ErrorKind::Cancelled).
Expected<FlowField> compute_flow_field(const GridMap& map, MoveRules rules, Vertex goal,
                                       const std::atomic<bool>* cancel = nullptr);

// The direction rule every implementation shares (see the file comment); kNoDirection when
// v is the goal, unreachable, or (in a broken field) has no exactly-closer neighbour.
std::uint8_t flow_direction(const GridMap& map, MoveRules rules, const std::vector<std::int32_t>& distance, Vertex v);
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
