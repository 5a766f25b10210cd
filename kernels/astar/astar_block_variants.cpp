// astar.gpu.block behind the variant interface: a single query searched by one thread block with
// block barriers only (no grid barrier), its table on chip while it fits (kernels/search/grid_astar_gpu.hpp).
// Small searches are bounded by the iteration latency, and one SM iterates 10-100x faster
// than the whole grid can synchronise (shared/notes/gpu-facts.md).
#include "kernels/astar/astar_block_variants.hpp"

#include "kernels/astar/jps/jps_gpu_variant.hpp"
#include "kernels/astar/tile/tile_astar_variant.hpp"
#include "kernels/search/grid_astar_params.hpp"

namespace ps {
namespace {

// jump=auto: Jump Point Search below this share of free cells with forced neighbours. H100,
// integer metric, jps.gpu.block over block A* (share): rooms 512² 2.5x (0.12), rooms 1024² 5.3x
// (0.06), noise 256² 3.1x (0.04), den520d 2.0x (0.08); random 512² 0.09x (0.32), random 256²
// 0.4x (0.59), maze 512² of corridor 4 0.45x (0.27), of corridor 1 0.12x (0.65) (README).
constexpr double kJumpPointShare = 0.2;
// ... and below this share of lone obstacles (gpu::scattered_obstacle_share). H200, stop 42, 50
// random pairs each, jps.gpu.block (jump distances) and astar.gpu.tile over astar.cpu: random
// 5% 256^2 0.63x / 1.23x, 512^2 0.22x / 1.70x, 1024^2 0.17x / 3.21x, random 2% 512^2 0.17x /
// 1.05x, 1024^2 0.41x / 6.59x (jump point shares 0.18 and below, lone obstacles 0.67 and above);
// every structured map measured has at most 0.014 (rooms, streets, noise, mazes, den520d, arena).
constexpr double kScatteredObstacles = 0.2;

// tile=auto takes tile A* only for the variant's own defaults: a parameter of block A* named
// (jump=0, bidir, spread, gate_width, ...) asks for block A* itself.
bool block_params_named(const Problem& problem) {
    for (const auto& [name, value] : problem.params)
        if (name != "tile" && !(name == "jump" && value == "auto")) return true;
    return false;
}

class AStarBlock final : public GpuVariant {
public:
    AStarBlock() {
        m_info.id = "astar.gpu.block";
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Gpu;
        m_info.description =
            "one thread block per query: bucket A* with block barriers, g values in an on-chip hash table";
        m_info.reference_id = "dijkstra.cpu";
        m_info.params = grid_astar_params("auto", "16384");
        m_info.params.push_back(choice_param(
            "jump", "auto",
            "1: the query runs as Jump Point Search (jps.gpu.block with its defaults; MovingAI's rule only); "
            "auto: where the rule allows it, no gate_width or dead_ends is given, and the map's jump point share (free "
            "cells with a forced neighbour "
            "along their row or column) is below 0.2 and fewer than 0.2 of its obstacles stand alone (no blocked "
            "neighbour): open maps, rooms, streets and game maps, not random obstacles (dense or sparse) or mazes, "
            "where jump points crowd and block A* or tiles are faster",
            {"auto", "0", "1"}));
        m_info.params.push_back(choice_param(
            "tile", "auto",
            "1: the query runs as tile A* (astar.gpu.tile with its defaults: 8x8 tiles, each settled by a warp, "
            "about a barrier per tile of the path, not per cell); auto: where block A* would search the whole map "
            "itself with this variant's defaults (no jump points, no gate forest, no block A* parameter named)",
            {"auto", "0", "1"}));
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        if (auto why = grid_astar_refusal(problem)) return failed_run(*why);
        const ParamValues params(m_info, problem);
        const std::string jump = params.text("jump");
        const auto refusal = jps_gpu_refusal(problem);
        if (jump == "1" && refusal) return failed_run("jump=1: " + *refusal);
        // A pruning asked for by name (gate_width, dead_ends) is block A*'s: auto does not jump.
        const bool pruning = params.integer("gate_width") >= 0 || params.flag("dead_ends");
        // The bitmaps and the share, made once per map (preprocess_ms where this run made them).
        bool built = false;
        const auto map = (jump == "1" || (jump == "auto" && !pruning)) && !refusal ? jps_map(problem, &built) : nullptr;
        if (map && (jump == "1" || (map->share < kJumpPointShare && map->scattered < kScatteredObstacles))) {
            RunResult result = run_jps_query(m_info.id, problem, context, {}, *map, built);
            result.counters["jump"] = 1.0;
            result.counters["tile"] = 0.0;
            return result;
        }
        // Not by jump points: block A* or tiles, with the share (and the time to read it) still reported.
        const auto searched = [&](RunResult result, bool tiles) {
            result.counters["jump"] = 0.0;
            result.counters["tile"] = tiles ? 1.0 : 0.0;
            if (map) {
                result.counters["jump_point_share"] = map->share;
                result.counters["scattered_obstacle_share"] = map->scattered;
                result.counters["preprocess_ms"] += built ? map->ms : 0.0;
            }
            return result;
        };
        const std::string tile = params.text("tile");
        std::map<std::string, double> gate_counters;
        if (tile == "1" ||
            (tile == "auto" && !block_params_named(problem) && auto_gate_width(problem, gate_counters) == 0)) {
            RunResult result = searched(run_tile_query(m_info.id, problem, context, {}), true);
            for (const auto& [name, value] : gate_counters)
                result.counters[name] = name == "preprocess_ms" ? result.counters[name] + value : value;
            return result;
        }
        gpu::GridAStarOutput out;
        RunResult result = run_grid_astar(m_info, problem, context, {{problem.start, problem.goal}}, true, out);
        if (result.status != RunStatus::Ok) return result;
        result.found = out.costs[0] >= 0;
        result.cost = result.found ? out.costs[0] : 0.0;
        result.path = std::move(out.path);
        result.expanded = out.expanded[0];
        return searched(std::move(result), false);
    }

private:
    VariantInfo m_info;
};

}  // namespace

void add_astar_block_variant(Registry& registry) { registry.add(std::make_unique<AStarBlock>()); }

}  // namespace ps
