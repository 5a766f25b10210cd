// Batch family validation: per-agent costs against the reference (batch.cpu), and independent
// sanity checks (one cost and one step count per agent, costs -1 or finite and >= 0, zero
// exactly when start == goal or along zero-weight edges, never below the admissible
// heuristic's lower bound).
#include <cmath>
#include <sstream>

#include "kernels/batch/batch_cpu.hpp"
#include "kernels/run/validation.hpp"

namespace ps {
namespace {

// GPU variants keep g in float: costs agree to about 1e-6 relative.
constexpr double kRelativeTolerance = 1e-5;

std::string agent_text(const Problem& problem, std::size_t i) {
    const auto& [s, g] = problem.agents[i];
    std::string text = "agent " + std::to_string(i) + " (";
    if (!problem.roadmap && problem.map) {
        const Cell a = problem.map->cell(s), b = problem.map->cell(g);
        text += "(" + std::to_string(a.x) + "," + std::to_string(a.y) + ") -> (" + std::to_string(b.x) + "," +
                std::to_string(b.y) + ")";
    } else {
        text += "node " + std::to_string(s) + " -> " + std::to_string(g);
    }
    return text + ")";
}

std::string number(double v) {
    std::ostringstream out;
    out.precision(10);
    out << v;
    return out.str();
}

// Empty when fine, else the first problem found.
std::string check_batch_result(const Problem& problem, const RunResult& result) {
    const std::size_t n = problem.agents.size();
    if (result.agent_costs.size() != n)
        return std::to_string(result.agent_costs.size()) + " costs for " + std::to_string(n) + " agents";
    if (result.agent_steps.size() != n)
        return std::to_string(result.agent_steps.size()) + " step counts for " + std::to_string(n) + " agents";
    auto graph = problem.batch_graph();
    if (!graph) return graph.error().message;
    const BatchHeuristic h = choose_batch_heuristic(**graph, false);
    for (std::size_t i = 0; i < n; ++i) {
        const double c = result.agent_costs[i];
        const auto [s, g] = problem.agents[i];
        if (c == -1.0) {
            if (s == g) return agent_text(problem, i) + ": unreachable although start == goal";
            continue;
        }
        if (!std::isfinite(c) || c < 0)
            return agent_text(problem, i) + ": cost " + number(c) + " (expected >= 0 or -1)";
        if (s == g && c != 0) return agent_text(problem, i) + ": cost " + number(c) + " although start == goal";
        // A consistent heuristic is a lower bound on every path's cost.
        const double bound = batch_heuristic_value(h, **graph, s, g);
        if (c < bound * (1 - kRelativeTolerance) - 1e-9)
            return agent_text(problem, i) + ": cost " + number(c) + " is below the lower bound " + number(bound);
    }
    return "";
}

}  // namespace

void validate_batch_self(const Problem& problem, RunResult& result) {
    const std::string why = check_batch_result(problem, result);
    result.validation = why.empty() ? Validation::Reference : Validation::Failed;
    result.validation_message =
        why.empty() ? "reference variant; " + std::to_string(problem.agents.size()) + " agents' costs checked" : why;
}

void validate_batch_against_reference(const Problem& problem, RunResult& result, const RunResult& reference) {
    auto fail = [&](std::string why) {
        result.validation = Validation::Failed;
        result.validation_message = std::move(why);
    };
    if (auto why = check_batch_result(problem, result); !why.empty()) return fail(why);
    if (reference.agent_costs.size() != result.agent_costs.size())
        return fail("the reference has " + std::to_string(reference.agent_costs.size()) + " agents, this run " +
                    std::to_string(result.agent_costs.size()));
    std::size_t mismatches = 0, first = 0;
    for (std::size_t i = 0; i < result.agent_costs.size(); ++i) {
        const double c = result.agent_costs[i], r = reference.agent_costs[i];
        const bool same = (c < 0) == (r < 0) && (r < 0 || std::abs(c - r) <= kRelativeTolerance * std::max(1.0, r));
        if (!same && mismatches++ == 0) first = i;
    }
    if (mismatches) {
        const double c = result.agent_costs[first], r = reference.agent_costs[first];
        auto text = [](double v) { return v < 0 ? std::string("unreachable") : number(v); };
        return fail(std::to_string(mismatches) + " of " + std::to_string(result.agent_costs.size()) +
                    " agents differ from the reference; first " + agent_text(problem, first) + ": " + text(c) +
                    " instead of " + text(r));
    }
    result.validation = Validation::Passed;
    result.validation_message =
        "all " + std::to_string(result.agent_costs.size()) + " agents' costs equal the reference";
}

}  // namespace ps
