// Result validation shared by every variant (see validation.hpp).
#include "kernels/run/validation.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ps {
namespace {

bool costs_equal(CostMode mode, double a, double b) {
    if (mode == CostMode::Integer) return a == b;
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

std::string cell_text(const Problem& problem, Vertex v) {
    const Cell c = problem.map->cell(v);
    return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")";
}

// Independent checks of a shortest-path result; empty string when fine.
std::string check_path_result(const Problem& problem, Family family, const RunResult& result) {
    if (!result.found) return result.path.empty() ? "" : "no path reported but a path is present";
    if (result.path.empty()) return "path reported found but empty";
    Problem metric = problem;
    if (family == Family::Bfs) {
        // BFS counts steps; the path runs start -> target under the BFS connectivity.
        metric.cost_mode = CostMode::Integer;
    }
    if (result.path.front() != problem.start || result.path.back() != problem.goal)
        return "path does not run from start " + cell_text(problem, problem.start) + " to goal " +
               cell_text(problem, problem.goal);
    auto cost = path_cost(metric, result.path);
    if (!cost) return cost.error().message;
    double expected = *cost;
    if (family == Family::Bfs) expected = double(result.path.size() - 1);
    if (!costs_equal(problem.cost_mode, expected, result.cost)) {
        std::ostringstream out;
        out.precision(12);
        out << "reported cost " << result.cost << " but the path's steps add up to " << expected;
        return out.str();
    }
    return "";
}

}  // namespace

Expected<double> path_cost(const Problem& problem, const std::vector<Vertex>& path) {
    double sum = 0;
    for (std::size_t i = 1; i < path.size(); ++i) {
        bool diagonal = false;
        if (!is_grid_step(*problem.map, problem.rules, path[i - 1], path[i], &diagonal))
            return Error{"illegal step " + std::to_string(i) + " from " + cell_text(problem, path[i - 1]) + " to " +
                         cell_text(problem, path[i])};
        sum +=
            weighted_step_cost(problem.cost_mode, problem.map->cost(path[i - 1]), problem.map->cost(path[i]), diagonal);
    }
    return sum;
}

void validate_self(const Problem& problem, Family family, RunResult& result) {
    if (family == Family::Batch) return validate_batch_self(problem, result);
    if (family == Family::FlowField) return validate_flowfield_self(problem, result);
    const std::string problem_text = check_path_result(problem, family, result);
    result.validation = problem_text.empty() ? Validation::Reference : Validation::Failed;
    result.validation_message = problem_text.empty() ? "reference variant; path checked" : problem_text;
}

void validate_against_reference(const Problem& problem, Family family, RunResult& result, const RunResult& reference) {
    if (family == Family::Batch) return validate_batch_against_reference(problem, result, reference);
    if (family == Family::FlowField) return validate_flowfield_against_reference(problem, result, reference);
    auto fail = [&](std::string why) {
        result.validation = Validation::Failed;
        result.validation_message = std::move(why);
    };
    // A prefix must hold the reference's levels up to its deepest one, and nothing deeper.
    std::int32_t deepest = kUnreached;
    if (family == Family::Bfs) {
        if (result.bfs_levels.size() != reference.bfs_levels.size())
            return fail("level array has " + std::to_string(result.bfs_levels.size()) + " entries, reference " +
                        std::to_string(reference.bfs_levels.size()));
        if (result.bfs_levels_prefix && !result.bfs_levels.empty())
            deepest = *std::max_element(result.bfs_levels.begin(), result.bfs_levels.end());
        auto expected = [&](std::size_t v) {
            const std::int32_t level = reference.bfs_levels[v];
            return result.bfs_levels_prefix && level > deepest ? kUnreached : level;
        };
        std::size_t mismatches = 0, first = 0;
        for (std::size_t v = 0; v < reference.bfs_levels.size(); ++v) {
            if (result.bfs_levels[v] != expected(v)) {
                if (mismatches++ == 0) first = v;
            }
        }
        if (mismatches)
            return fail(std::to_string(mismatches) + " vertices have a level different from the reference; first " +
                        cell_text(problem, Vertex(first)) + ": " + std::to_string(result.bfs_levels[first]) +
                        " instead of " + std::to_string(expected(first)));
    }
    if (result.found != reference.found)
        return fail(result.found ? "found a path where the reference finds none"
                                 : "found no path where the reference finds one");
    std::ostringstream bounded;  // a suboptimal search's cost beside the optimum
    if (result.found && result.cost_bound) {
        const double bound = *result.cost_bound, ratio = reference.cost > 0 ? result.cost / reference.cost : 1.0;
        std::ostringstream out;
        out.precision(12);
        if (result.cost < reference.cost && !costs_equal(problem.cost_mode, result.cost, reference.cost)) {
            out << "cost " << result.cost << " is below the optimum " << reference.cost;
            return fail(out.str());
        }
        // Sums in the real metric may round a little above w times the optimum.
        if (!std::isinf(bound) && result.cost > bound * reference.cost * (1 + 1e-9)) {
            out << "cost " << result.cost << " is more than w = " << bound << " times the optimum " << reference.cost;
            return fail(out.str());
        }
        bounded.precision(6);
        bounded << "cost " << result.cost << ", " << ratio << " times the optimum " << reference.cost;
        if (!std::isinf(bound)) bounded << " (at most " << bound << ")";
    } else if (result.found && !costs_equal(problem.cost_mode, result.cost, reference.cost)) {
        std::ostringstream out;
        out.precision(12);
        out << "cost " << result.cost << " differs from the reference cost " << reference.cost;
        return fail(out.str());
    }
    if (auto why = check_path_result(problem, family, result); !why.empty()) return fail(why);
    result.validation = Validation::Passed;
    result.validation_message = family == Family::Bfs ? "levels equal the reference" : "cost equals the reference";
    if (!bounded.str().empty()) result.validation_message = bounded.str();
    if (family == Family::Bfs && result.bfs_levels_prefix)
        result.validation_message = "levels equal the reference's up to level " + std::to_string(deepest) +
                                    "; visited " + std::to_string(result.visited) + " vertices, the reference " +
                                    std::to_string(reference.visited);
}

}  // namespace ps
