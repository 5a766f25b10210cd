// Where a GPU search's compute goes, over the queries of a scenario file: the iterations its
// variant counts (a block A* iteration between two block barriers, a grid-barrier iteration of
// the bucket A*s) and the queries that outgrew their on-chip table and moved into a global-memory
// one (block A*'s `queries_moved`). An iteration's time is what one query after another costs on
// the GPU (its chain of iterations is about the path's length), and a moved query's iterations
// wait on L2 instead of shared memory: on random512-10-0, 123 of every 10th scenario's 178 queries
// moved and took 222 of 236 ms at 4.24 us an iteration, against 2.63 us on chip (README, block
// A*). bench --family scen prints this account per GPU row.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "kernels/run/variant.hpp"

namespace ps {

// One row's account: add() each query's run (single-query variants, one pass), or set it from
// one batch run (of_batch: its longest query's chain is what the batch waits for).
struct IterationAccount {
    bool batch = false;
    std::size_t queries = 0;
    double compute_ms = 0;
    double iterations = 0;  // one by one: their sum; a batch: its longest query's
    bool tables = false;    // the variant reports moves (block A*'s on-chip tables)
    // A batch with more queries than blocks on chip (counter "on_chip_blocks"): its compute is
    // not one chain of iterations, so it has no time per iteration.
    std::size_t blocks = 0;
    std::size_t moved = 0;  // queries that moved into a global-memory table
    double moved_compute_ms = 0, moved_iterations = 0;

    // A query run on its own: its compute phase and counters "iterations" and "queries_moved".
    void add(const RunResult& query);
    void add(double compute_ms, const std::map<std::string, double>& counters);
    // A batch run of `queries` queries whose compute phase took compute_ms (counters
    // "max_iterations" and "queries_moved").
    static IterationAccount of_batch(const RunResult& run, std::size_t queries, double compute_ms);

    // Whether the variant counts iterations at all (the CPU ones do not).
    bool counted() const { return iterations > 0; }
    // Compute per iteration, in microseconds: all of it, the moved queries', the others' (0
    // where there is none, and for a batch whose queries did not all run at once).
    double us_per_iteration() const;
    double moved_us_per_iteration() const;
    double on_chip_us_per_iteration() const;
    // One line: "57798 iterations, 4.09 us each; 123 of 178 queries moved into global tables:
    // 221.7 of 236.2 ms, 4.24 us an iteration (the others 2.63)" (no moves where the variant has
    // no on-chip tables). Empty where nothing is counted.
    std::string text() const;
};

}  // namespace ps
