// astar.gpu.tile behind the variant interface (kernels/astar/tile/tile_astar_gpu.hpp).
#include "kernels/astar/tile/tile_astar_variant.hpp"

#include <chrono>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/astar/tile/tile_astar_gpu.hpp"
#include "kernels/search/grid_astar_params.hpp"

namespace ps {
namespace {

class TileAStar final : public GpuVariant {
public:
    TileAStar() {
        m_info.id = "astar.gpu.tile";
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Gpu;
        m_info.description =
            "A* over 8x8 tiles in one thread block: a warp settles a tile exactly inside, so the chain of barriers "
            "is about a tile per step of the path (octile heuristic; every movement rule)";
        m_info.reference_id = "dijkstra.cpu";
        m_info.params = {
            choice_param("block", "1024", "threads: a warp processes a tile an iteration",
                         {"128", "256", "512", "1024"}),
            choice_param("band", "4",
                         "open tiles whose key (the lowest f of their lowered cells) is within this many orthogonal "
                         "steps of the lowest key are processed in the same iteration; auto: from 8, doubled (up to "
                         "band_max) after an iteration with fewer candidates than warps, halved (down to 1) after "
                         "one with more than twice as many as it takes",
                         {"auto", "0", "1", "2", "4", "8", "16", "32", "64"}),
            choice_param("band_max", "64", "the ceiling of band=auto, in orthogonal steps",
                         {"8", "16", "32", "64", "128", "256"}),
            choice_param("tiles_per_warp", "1", "tiles a warp may take an iteration, one after another",
                         {"1", "2", "4"}),
            flag_param("meta_on_chip", "1",
                       "1: the tiles' keys and the open list in shared memory where they fit (12 bytes a tile)"),
        };
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        const ParamValues params(m_info, problem);
        gpu::TileAStarOptions options;
        options.block_threads = int(params.integer("block"));
        options.band = params.text("band") == "auto" ? -1 : int(params.integer("band"));
        options.band_max = int(params.integer("band_max"));
        options.tiles_per_warp = int(params.integer("tiles_per_warp"));
        options.meta_on_chip = params.flag("meta_on_chip");
        return run_tile_query(m_info.id, problem, context, options);
    }

private:
    VariantInfo m_info;
};

}  // namespace

RunResult run_tile_query(const std::string& id, const Problem& problem, const RunContext& context,
                         gpu::TileAStarOptions options) {
    if (problem.heuristic != Heuristic::Octile)
        return failed_run("uses the octile heuristic only (its tiles' keys rely on it being consistent)");
    options.want_path = true;
    options.cancel = context.cancel;
    const auto t0 = std::chrono::steady_clock::now();
    bool built = false;
    const auto bits = map_bits(problem, &built);
    const double bits_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    options.bits = bits.get();
    gpu::TileAStarOutput out;
    {
        nvtx::ScopedRange range(nvtx::Phase::Compute, id);
        out = gpu::run_tile_astar_gpu(*problem.map, problem.rules, problem.cost_mode, problem.start, problem.goal,
                                      options);
    }
    if (auto ended = gpu_run_outcome(out)) return *ended;
    RunResult result;
    result.phases = out.phases;
    result.found = out.cost >= 0;
    result.cost = result.found ? out.cost : 0.0;
    result.path = std::move(out.path);
    result.expanded = out.lowered;
    auto& c = result.counters;
    c["gpu_compute_ms"] = out.gpu_compute_ms;
    c["iterations"] = double(out.iterations);
    c["tiles"] = double(out.tiles);
    c["lowered"] = double(out.lowered);
    c["sweeps_per_tile"] = out.tiles ? double(out.sweeps) / double(out.tiles) : 0.0;
    c["tiles_per_iteration"] = out.iterations ? double(out.tiles) / double(out.iterations) : 0.0;
    c["band_mean_steps"] = out.iterations ? double(out.band_steps) / double(out.iterations) : 0.0;
    c["open_peak"] = double(out.open_peak);
    c["meta_on_chip"] = out.meta_on_chip ? 1.0 : 0.0;
    c["block_threads"] = double(out.block_threads);
    c["preprocess_ms"] = built ? bits_ms : 0.0;  // the bitmap, once per map
    // Where the last launch's time went (tile_astar_gpu.hpp: TileCycles), in microseconds.
    const gpu::TileCycles& k = out.cycles;
    const auto us = [&](double cycles) { return out.clock_khz > 0 ? cycles / out.clock_khz * 1e3 : 0.0; };
    if (out.clock_khz > 0) {
        c["us_setup"] = us(double(k.setup));
        c["us_walk"] = us(double(k.walk));
        if (out.iterations > 0) c["us_per_iteration"] = us(double(k.select + k.process) / double(out.iterations));
        c["us_select"] = us(double(k.select));
        c["us_process"] = us(double(k.process));
        if (k.own_tiles > 0) {  // per tile of warp 0
            const double n = double(k.own_tiles);
            c["us_tile_load"] = us(double(k.load) / n);
            c["us_tile_relax"] = us(double(k.relax) / n);
            c["us_tile_write_back"] = us(double(k.write_back) / n);
            c["us_tile_ring"] = us(double(k.ring) / n);
        }
    }
    return result;
}

void add_tile_astar_variant(Registry& registry) { registry.add(std::make_unique<TileAStar>()); }

}  // namespace ps
