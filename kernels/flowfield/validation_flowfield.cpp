// FlowField family validation. Self checks are a complete certificate of optimality without
// any reference: the goal is at 0; no legal step shortens any distance (d(v) <= d(w) + cost, the
// step cost of flowfield.hpp's metric, weighted by the two cells' costs on weighted terrain);
// every reached cell other than the goal has a direction that is a legal step to a cell
// exactly one step cost closer (so the distances are attained); unreached cells have no
// reached neighbour and no direction. Together these force every distance to be the exact
// shortest one. Against the reference, the distances must also be equal cell for cell.
// Directions are checked by that property, not compared: any equally short choice is valid
// (the implementations share a tie-break, and the tests compare them for equality).

#include "kernels/flowfield/flowfield.hpp"
#include "kernels/run/validation.hpp"

namespace ps {
namespace {

std::string cell_text(const GridMap& map, Vertex v) {
    const Cell c = map.cell(v);
    return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")";
}

// Empty when the field is a valid shortest-distance field with valid directions.
std::string check_field(const Problem& problem, const RunResult& result) {
    const GridMap& map = *problem.map;
    const std::size_t n = map.cell_count();
    if (result.bfs_levels.size() != n || result.flow_dirs.size() != n)
        return "the field has " + std::to_string(result.bfs_levels.size()) + " distances and " +
               std::to_string(result.flow_dirs.size()) + " directions for " + std::to_string(n) + " cells";
    const auto& dist = result.bfs_levels;
    const auto& dirs = result.flow_dirs;
    if (dist[problem.goal] != 0) return "the goal's distance is " + std::to_string(dist[problem.goal]) + ", not 0";
    if (dirs[problem.goal] != kNoDirection) return "the goal has a direction";
    const bool levels = flow_uses_levels(map, problem.rules);
    for (Vertex v = 0; v < Vertex(n); ++v) {
        const std::int32_t d = dist[v];
        const std::uint8_t dir = dirs[v];
        if (!map.passable(v)) {
            if (d != kFlowUnreached || dir != kNoDirection)
                return "blocked cell " + cell_text(map, v) + " has a distance or a direction";
            continue;
        }
        if (d < kFlowUnreached) return "cell " + cell_text(map, v) + " has a negative distance " + std::to_string(d);
        const std::uint8_t mask = flow_move_mask(map, problem.rules, v);
        const Cell c = map.cell(v);
        for (std::uint8_t k = 0; k < 8; ++k) {
            if (!(mask & (1u << k))) continue;
            const Vertex w = map.index(c.x + kGridSteps[k].dx, c.y + kGridSteps[k].dy);
            if ((d == kFlowUnreached) != (dist[w] == kFlowUnreached))
                return "cells " + cell_text(map, v) + " and " + cell_text(map, w) +
                       " are neighbours but only one of them is reached";
            const std::int64_t offer =
                std::int64_t(dist[w]) + flow_step_cost(levels, map.cost(v), map.cost(w), is_diagonal_direction(k));
            if (d != kFlowUnreached && std::int64_t(d) > offer)
                return "cell " + cell_text(map, v) + " has distance " + std::to_string(d) + " but its neighbour " +
                       cell_text(map, w) + " offers " + std::to_string(offer);
        }
        if (d == kFlowUnreached || v == problem.goal) {
            if (dir != kNoDirection) return "unreached cell " + cell_text(map, v) + " has a direction";
            continue;
        }
        if (dir >= 8 || !(mask & (1u << dir)))
            return "cell " + cell_text(map, v) + " has no legal direction (" + std::to_string(int(dir)) + ")";
        const Vertex w = map.index(c.x + kGridSteps[dir].dx, c.y + kGridSteps[dir].dy);
        if (std::int64_t(dist[w]) + flow_step_cost(levels, map.cost(v), map.cost(w), is_diagonal_direction(dir)) != d)
            return "cell " + cell_text(map, v) + " (distance " + std::to_string(d) + ") steps " +
                   kFlowDirectionNames[dir] + " to " + cell_text(map, w) + " at distance " + std::to_string(dist[w]) +
                   ", not one step closer";
    }
    if (problem.start != kNoVertex) {
        const bool reachable = dist[problem.start] >= 0;
        if (result.found != reachable)
            return reachable ? "the start is reached but no path is reported"
                             : "a path is reported from an unreached start";
        if (reachable && result.cost != double(dist[problem.start]))
            return "the reported cost is not the start's distance";
    }
    return "";
}

}  // namespace

void validate_flowfield_self(const Problem& problem, RunResult& result) {
    const std::string why = check_field(problem, result);
    result.validation = why.empty() ? Validation::Reference : Validation::Failed;
    result.validation_message =
        why.empty() ? "reference variant; field checked (optimal distances, legal directions)" : why;
}

void validate_flowfield_against_reference(const Problem& problem, RunResult& result, const RunResult& reference) {
    auto fail = [&](std::string why) {
        result.validation = Validation::Failed;
        result.validation_message = std::move(why);
    };
    if (result.bfs_levels.size() != reference.bfs_levels.size())
        return fail("the field has " + std::to_string(result.bfs_levels.size()) + " cells, the reference " +
                    std::to_string(reference.bfs_levels.size()));
    std::size_t mismatches = 0, first = 0;
    for (std::size_t v = 0; v < reference.bfs_levels.size(); ++v)
        if (result.bfs_levels[v] != reference.bfs_levels[v] && mismatches++ == 0) first = v;
    if (mismatches)
        return fail(std::to_string(mismatches) + " cells have a distance different from the reference; first " +
                    cell_text(*problem.map, Vertex(first)) + ": " + std::to_string(result.bfs_levels[first]) +
                    " instead of " + std::to_string(reference.bfs_levels[first]));
    if (const std::string why = check_field(problem, result); !why.empty()) return fail(why);
    std::size_t other_dirs = 0;
    for (std::size_t v = 0; v < reference.flow_dirs.size() && v < result.flow_dirs.size(); ++v)
        other_dirs += result.flow_dirs[v] != reference.flow_dirs[v] ? 1 : 0;
    result.validation = Validation::Passed;
    result.validation_message = "distances equal the reference; directions legal and one step closer";
    if (other_dirs)
        result.validation_message += " (" + std::to_string(other_dirs) + " cells choose another equally short step)";
}

}  // namespace ps
