// Jump Point Search (Harabor and Grastien 2011; the rules without corner cutting of their 2014
// paper and of PathFinding.js): A* over jump points on 8-connected grids where a diagonal step
// needs both orthogonal cells beside it free (MovingAI's rule). From a node, each direction the
// pruning keeps is followed in a straight or diagonal run until a cell with a forced neighbour
// (or the goal), which becomes a successor at the run's octile cost; everything the run passes
// is never put on the open list. Exact with the octile heuristic.
#pragma once

#include <atomic>

#include "kernels/search/cpu_search.hpp"

namespace ps {

// Refuses (an error) anything but 8-connected movement without corner cutting. `recording`:
// jump points opened and closed (the straight runs between them are the path's segments).
// SearchOutput::expanded counts jump points, `generated` their pushes; `scanned` the cells the
// runs stepped through.
struct JpsOutput {
    SearchOutput search;
    std::uint64_t scanned = 0;
};
Expected<JpsOutput> jps_grid(const GridMap& map, MoveRules rules, CostMode mode, Vertex start, Vertex goal,
                             SearchRecording* recording = nullptr, const std::atomic<bool>* cancel = nullptr);

}  // namespace ps
