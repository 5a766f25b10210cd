// Batched CPU search: one A* (or Dijkstra) per agent on a weighted CSR graph, agents spread
// over worker threads that pull the next agent from an atomic counter. The reference for every
// batch.* variant; also the heuristic choice, counters and step histogram all batch variants
// share, so that GPU variants report the same numbers.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/graph/graph.hpp"
#include "kernels/run/variant.hpp"

namespace ps {

// The heuristic of a batch search, chosen once per graph:
//  Grid:   graphs built by grid_to_csr (grid_width set): octile distance in the graph's own
//          metric (1/sqrt2, 1000/1414, or 1/1 when unweighted), recognised from its weights as
//          astar_graph does; consistent on 4- and 8-connected grids.
//  Coords: graphs with coords: scale * Euclidean distance, scale from
//          euclidean_heuristic_scale() (1 for waypoint roadmaps), so it never overestimates.
//  Zero:   Dijkstra (asked for, or nothing else is admissible).
struct BatchHeuristic {
    enum class Kind : std::uint8_t { Zero, Grid, Coords };
    Kind kind = Kind::Zero;
    int grid_width = 0;             // Grid
    double orth = 1.0, diag = 1.0;  // Grid: step costs of the metric
    double scale = 0.0;             // Coords
};
BatchHeuristic choose_batch_heuristic(const CsrGraph& graph, bool dijkstra);
std::string describe(const BatchHeuristic& h);
// h(v) towards t; exposed for tests and for GPU variants that want the same numbers.
double batch_heuristic_value(const BatchHeuristic& h, const CsrGraph& graph, Vertex v, Vertex t);

struct BatchCpuOptions {
    unsigned threads = 0;  // 0 = std::thread::hardware_concurrency()
    bool dijkstra = false;
    const std::atomic<bool>* cancel = nullptr;
    bool record_spans = false;  // tracing: every agent's start/end (steady clock) and worker index
};

struct BatchCpuOutput {
    std::vector<double> costs;         // per agent; -1 when the goal is unreachable
    std::vector<std::uint32_t> steps;  // per agent: vertices expanded (closed)
    unsigned threads = 0;              // worker threads used
    BatchHeuristic heuristic;
    double allocate_ms = 0;        // per-thread working sets
    unsigned reused_sets = 0;      // of them, kept from an earlier run on as many vertices
    double compute_ms = 0;         // the parallel part: workers woken (or started), searched, done
    unsigned started_threads = 0;  // threads this run started (0: the process's pool had them parked)
    bool cancelled = false;
    std::string error;  // non-empty when the search could not run (memory)
    // With record_spans: per agent, when its search ran (now_ns(), instrumentation/capture/clock.hpp)
    // and on which worker thread (0 = the calling thread).
    std::vector<std::uint64_t> span_start_ns, span_end_ns;
    std::vector<std::uint32_t> span_worker;
};

// Agents' ids must be vertices of the graph (Problem::check does this for runs). Every
// thread owns one working set (g and a search stamp per vertex, a heap) reused for all its
// agents: nothing is allocated or cleared per agent. The sets stay in the process for the next
// run on a graph of as many vertices (up to 256 MiB of them).
BatchCpuOutput batch_search_cpu(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
                                const BatchCpuOptions& options);

// From result.agent_costs / agent_steps, sets the summary every batch variant reports:
// counters agents, agents_unreachable, expanded_total, steps_mean, steps_max, steps_p50,
// steps_p95, steps_imbalance (max / mean); result.expanded = total expansions, result.found =
// at least one agent reached its goal, result.cost = sum of the reached agents' costs (a
// checksum that the history can compare between runs).
void add_batch_counters(RunResult& result);

// Nearest-rank percentile (p in [0, 100]) of unsorted values; 0 for none.
std::uint32_t percentile(std::vector<std::uint32_t> values, double p);

// Log-scaled histogram of per-agent steps (the load imbalance): about `bins` bins with integer
// bounds [lo, hi], the first starting at the smallest value, the last ending at the largest.
struct HistogramBin {
    std::uint64_t lo = 0, hi = 0;
    std::size_t count = 0;
};
std::vector<HistogramBin> log_histogram(const std::vector<std::uint32_t>& values, int bins = 10);

}  // namespace ps
