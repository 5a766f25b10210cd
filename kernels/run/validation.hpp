// Validation of a variant's result: against its CPU reference (costs, BFS levels) and
// independently (a path must be a chain of legal steps whose costs add up to the reported cost).
#pragma once

#include <vector>

#include "kernels/run/variant.hpp"

namespace ps {

// Cost of `path` under the problem's rules and cost metric, or an Error naming the first
// illegal step. Sums in the metric itself (integer steps add exactly).
Expected<double> path_cost(const Problem& problem, const std::vector<Vertex>& path);

// Sets result.validation and result.validation_message.
void validate_against_reference(const Problem& problem, Family family, RunResult& result, const RunResult& reference);
// For a reference variant: only the independent checks (path legality and its cost).
void validate_self(const Problem& problem, Family family, RunResult& result);

// Per-family checks, each in its own file (validation_batch.cpp, validation_flowfield.cpp);
// the two functions above dispatch to them.
void validate_batch_self(const Problem& problem, RunResult& result);
void validate_batch_against_reference(const Problem& problem, RunResult& result, const RunResult& reference);
void validate_flowfield_self(const Problem& problem, RunResult& result);
void validate_flowfield_against_reference(const Problem& problem, RunResult& result, const RunResult& reference);

}  // namespace ps
