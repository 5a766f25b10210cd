// A* with a bucket queue (Dial's idea for Dijkstra, the open list of the BBA* paper's UBA*):
// in the integer metric (1000 a straight step, 1414 a diagonal) every f is an integer, and with
// a consistent heuristic a successor's f lies between its parent's f and that plus twice the
// largest step. So a ring of 2 * 1414 + 1 buckets indexed by f modulo its size holds the whole
// open list: a push is an append, a pop takes from the lowest non-empty bucket, no heap. The
// GPU's UBA* expands a whole bucket in parallel; here the bucket is expanded one vertex after
// another, which is what a lecture compares it with.
#pragma once

#include <atomic>

#include "kernels/search/cpu_search.hpp"

namespace ps {

// Refuses (an error) the real metric, whose f values are not integers, and heuristics that are
// not consistent on the grid's moves (Manhattan with diagonal moves). `buckets` counts the
// buckets emptied (distinct f values expanded).
struct BucketAStarOutput {
    SearchOutput search;
    std::uint64_t buckets = 0;
};
Expected<BucketAStarOutput> bucket_astar_grid(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal,
                                              SearchRecording* recording = nullptr,
                                              const std::atomic<bool>* cancel = nullptr);

}  // namespace ps
