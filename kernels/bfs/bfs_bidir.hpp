// Bidirectional BFS on the CPU (bfs.cpu.bidir): one BFS from the target, as every BFS variant
// searches, and one from the start; each round expands one whole level of the half with the
// smaller frontier, and the search stops after the first level in which the halves meet. On a
// grid both halves together label about two discs of half the radius instead of one full disc.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/graph/graph.hpp"
#include "kernels/run/variant.hpp"

namespace ps {

struct BidirBfsOutput {
    bool found = false;
    std::int32_t distance = 0;  // steps from start to target, when found
    std::vector<Vertex> path;   // start .. target, empty when not found
    // Each half's labels: its distance for every vertex it reached, kUnreached elsewhere. Both
    // halves expand whole levels, so a half's labels are exactly the vertices at distance
    // 0 .. depth - 1 from its root: a prefix of that root's full BFS.
    std::vector<std::int32_t> target_levels, start_levels;
    std::int32_t target_depth = 0, start_depth = 0;  // levels labelled (max label + 1)
    std::uint64_t target_visited = 0, start_visited = 0;
    std::uint64_t meeting = 0;   // vertices both halves labelled
    std::uint64_t expanded = 0;  // vertices whose edges were scanned, both halves
    std::uint64_t edges = 0;     // the edges they scanned: their out-degrees summed (edges visited)
    bool cancelled = false;
};

// Bidirectional BFS between `start` and `target` on a symmetric unweighted graph (grid graphs
// are). A level in which the halves meet is finished and the distance is the minimum of
// start_level + target_level over every vertex both halves labelled; the path runs through one
// vertex attaining it. An empty frontier ends the search with found = false. Without a start
// (kNoVertex: the whole-graph BFS of the bench) the target half runs alone until its frontier is
// empty, a plain BFS. `cancel` is polled once per level and every 64k expanded vertices.
BidirBfsOutput bfs_bidir(const CsrGraph& graph, Vertex start, Vertex target, const std::atomic<bool>* cancel = nullptr);

// The variant: validated against bfs.cpu.queue through its target half's labels (a level
// prefix, RunResult::bfs_levels_prefix), its distance and its path.
std::unique_ptr<Variant> make_bfs_cpu_bidir();

}  // namespace ps
