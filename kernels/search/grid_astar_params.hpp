// The parameters of the block A* variants (astar.gpu.block, batch.gpu.grid), declared once for
// both, and the options they ask for.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/run/variant.hpp"
#include "kernels/search/grid_astar_gpu.hpp"

namespace ps {

// `block`, `slots`: the default threads and on-chip hash slots per query (a lone query has a
// whole SM: 16384 slots; a batch fits two queries per SM with 8192).
std::vector<ParamSpec> grid_astar_params(const char* block, const char* slots);
gpu::GridAStarOptions grid_astar_options(const VariantInfo& info, const Problem& problem);
// The map's bitmap, made once for every copy of the problem (a scenario file's queries) and
// shared by the GPU grid searches; *built: this call made it.
std::shared_ptr<const gpu::GridBits> map_bits(const Problem& problem, bool* built = nullptr);
// gate_width=auto's decision, made once per map and rules: the gate forest's width where the map
// is worth one (a maze), else 0. Its shares go to `counters`, and where this call decided, the
// time it took as preprocess_ms.
int auto_gate_width(const Problem& problem, std::map<std::string, double>& counters);
// Why block A* cannot run this problem (a heuristic other than octile), or nullopt.
std::optional<std::string> grid_astar_refusal(const Problem& problem);

// Runs `queries` under the variant's options (in its NVTX compute range) and fills what both
// variants report: status, error, phases, and the counters of the tables (queries moved into a
// pool table or started over, iterations, launches, blocks, bytes). The caller adds its own
// result (one path, or every agent's cost). `out` keeps the engine's per-query arrays.
RunResult run_grid_astar(const VariantInfo& info, const Problem& problem, const RunContext& context,
                         const std::vector<gpu::GridQuery>& queries, bool want_path, gpu::GridAStarOutput& out);

}  // namespace ps
