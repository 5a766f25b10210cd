// Registers jps.gpu.block: Jump Point Search of one query in one thread block
// (kernels/astar/jps/jps_gpu.hpp); the CPU's is jps.cpu (kernels/search/jps.hpp). astar.gpu.block
// runs a query through it where the map suits jump points (its `jump` parameter).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "kernels/astar/jps/jps_gpu.hpp"
#include "kernels/run/variant.hpp"

namespace ps {

void add_jps_gpu_variant(Registry& registry);

// Why GPU JPS cannot run this problem (move rules other than MovingAI's, a heuristic other than
// octile), or nullopt.
std::optional<std::string> jps_gpu_refusal(const Problem& problem);
// The map's two bitmaps and its jump point share, made once for every copy of the problem.
struct JpsMap {
    gpu::JpsBits bits;
    double share = 0;
    double scattered = 0;  // gpu::scattered_obstacle_share
    double ms = 0;         // to make them (host)
};
// *built: this call made them (its preprocess_ms counter then says how long it took).
std::shared_ptr<const JpsMap> jps_map(const Problem& problem, bool* built = nullptr);
// The map's jump distances (kernels/astar/jps/jps_jumps.hpp), made once for every copy of the
// problem on first use (null for maps too large); *ms: how long this call took to make them (0
// where an earlier one did).
std::shared_ptr<const gpu::JpsJumps> jps_jump_table(const Problem& problem, const JpsMap& map, double* ms = nullptr);
// One query of `problem` through GPU JPS with `options` on `map` (jps_map's; `built`: this run
// made it, which preprocess_ms reports), reading the jump distances where `jump_table` (made on
// first use, preprocess_ms too), in the variant's NVTX compute range: the result with its path,
// cost, phases and counters.
RunResult run_jps_query(const std::string& id, const Problem& problem, const RunContext& context,
                        gpu::JpsGpuOptions options, const JpsMap& map, bool built, bool jump_table = true);

}  // namespace ps
