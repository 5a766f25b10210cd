#include "kernels/run/iteration_account.hpp"

#include <cstdio>

namespace ps {
namespace {

bool has(const std::map<std::string, double>& counters, const char* name) { return counters.count(name) != 0; }

double us_per(double ms, double iterations) { return iterations > 0 ? ms * 1000.0 / iterations : 0.0; }

}  // namespace

void IterationAccount::add(const RunResult& query) { add(query.phases.compute_ms, query.counters); }

void IterationAccount::add(double ms, const std::map<std::string, double>& counters) {
    const double n = counter_value(counters, "iterations");
    ++queries;
    compute_ms += ms;
    iterations += n;
    tables = tables || has(counters, "queries_moved");
    if (counter_value(counters, "queries_moved") > 0) {
        ++moved;
        moved_compute_ms += ms;
        moved_iterations += n;
    }
}

IterationAccount IterationAccount::of_batch(const RunResult& run, std::size_t queries, double compute_ms) {
    IterationAccount a;
    a.batch = true;
    a.queries = queries;
    a.compute_ms = compute_ms;
    a.iterations = counter_value(run.counters, "max_iterations");
    a.blocks = std::size_t(counter_value(run.counters, "on_chip_blocks"));
    a.tables = has(run.counters, "queries_moved");
    a.moved = std::size_t(counter_value(run.counters, "queries_moved"));
    return a;
}

double IterationAccount::us_per_iteration() const {
    if (batch && blocks > 0 && queries > blocks) return 0.0;  // in waves: not one chain
    return us_per(compute_ms, iterations);
}
double IterationAccount::moved_us_per_iteration() const { return us_per(moved_compute_ms, moved_iterations); }
double IterationAccount::on_chip_us_per_iteration() const {
    return us_per(compute_ms - moved_compute_ms, iterations - moved_iterations);
}

std::string IterationAccount::text() const {
    if (!counted()) return {};
    char part[200];
    if (batch && us_per_iteration() <= 0) {
        std::snprintf(part, sizeof part, "its longest query %.0f iterations (%zu queries on %zu blocks: no one chain)",
                      iterations, queries, blocks);
    } else if (batch) {
        std::snprintf(part, sizeof part, "its longest query %.0f iterations, %.2f us of the compute each", iterations,
                      us_per_iteration());
    } else {
        std::snprintf(part, sizeof part, "%.0f iterations, %.2f us each", iterations, us_per_iteration());
    }
    std::string line = part;
    if (!tables) return line;
    std::snprintf(part, sizeof part, "; %zu of %zu queries moved into global tables", moved, queries);
    line += part;
    if (batch || moved == 0) return line;
    std::snprintf(part, sizeof part, ": %.1f of %.1f ms, %.2f us an iteration", moved_compute_ms, compute_ms,
                  moved_us_per_iteration());
    line += part;
    if (moved < queries) {
        std::snprintf(part, sizeof part, " (the others %.2f)", on_chip_us_per_iteration());
        line += part;
    }
    return line;
}

}  // namespace ps
