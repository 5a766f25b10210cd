// jps.gpu.block behind the variant interface (kernels/astar/jps/jps_gpu.hpp).
#include "kernels/astar/jps/jps_gpu_variant.hpp"

#include <chrono>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/astar/jps/jps_gpu.hpp"
#include "kernels/astar/jps/jps_jumps.hpp"

namespace ps {
namespace {

class JpsBlock final : public GpuVariant {
public:
    JpsBlock() {
        m_info.id = "jps.gpu.block";
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Gpu;
        m_info.description =
            "Jump Point Search in one thread block: a warp per jump point, each run read from the map's jump "
            "distances (JPS+) or scanned a word of 32 cells at a time (8-connected, no corner cutting; octile "
            "heuristic)";
        m_info.reference_id = "dijkstra.cpu";
        m_info.params = {
            choice_param("block", "512", "threads: a warp expands one jump point an iteration",
                         {"64", "128", "256", "512", "1024"}),
            choice_param("window", "auto",
                         "entries whose f is within this many orthogonal steps of the lowest may be expanded in the "
                         "same iteration (again if their g improves later); auto: from 4, doubled (up to "
                         "window_max) after an iteration with fewer candidates than warps, halved (down to 1) after "
                         "one with more than twice as many",
                         {"auto", "0", "1", "2", "4", "8", "16"}),
            choice_param("window_max", "16", "the ceiling of window=auto, in orthogonal steps",
                         {"4", "8", "16", "32", "64", "128"}),
            choice_param("open_cap", "2048",
                         "open entries per buffer on chip (two buffers); a query that overflows them runs again "
                         "with its open list in global memory",
                         {"256", "1024", "2048", "4096", "8192"}),
            choice_param("table_slots", "8192",
                         "slots of the on-chip hash table of g values (12 bytes each); a query that fills 3/4 of "
                         "them runs again with a value per cell of the map in global memory",
                         {"64", "1024", "4096", "8192"}),
            flag_param("table_on_chip", "1", "0: the g values in global memory, a word per cell (to compare)"),
            flag_param("map_on_chip", "1",
                       "1: the map's rows and columns in shared memory where they fit beside the open list"),
            flag_param("open_on_chip", "1", "0: the open list in global memory from the start (to compare)"),
            flag_param("jump_table", "1",
                       "1: each cell's jump distance in the 8 directions made once per map (16 bytes a cell, "
                       "JPS+), an expansion reads them; 0: the runs scanned in the bitmaps each time"),
        };
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        if (auto why = jps_gpu_refusal(problem)) return failed_run(*why);
        const ParamValues params(m_info, problem);
        gpu::JpsGpuOptions options;
        options.block_threads = int(params.integer("block"));
        options.window = params.text("window") == "auto" ? -1 : int(params.integer("window"));
        options.window_max = int(params.integer("window_max"));
        options.open_cap = int(params.integer("open_cap"));
        options.map_on_chip = params.flag("map_on_chip");
        options.open_on_chip = params.flag("open_on_chip");
        options.table_slots = int(params.integer("table_slots"));
        options.table_on_chip = params.flag("table_on_chip");
        bool built = false;
        const auto map = jps_map(problem, &built);
        return run_jps_query(m_info.id, problem, context, options, *map, built, params.flag("jump_table"));
    }

private:
    VariantInfo m_info;
};

}  // namespace

std::optional<std::string> jps_gpu_refusal(const Problem& problem) {
    if (problem.rules.connectivity != Connectivity::Eight || problem.rules.corners != CornerRule::None)
        return "Jump Point Search here is for 8-connected grids without corner cutting (MovingAI's rule)";
    if (problem.heuristic != Heuristic::Octile)
        return "uses the octile heuristic only (jump points rely on it being consistent)";
    return std::nullopt;
}

std::shared_ptr<const JpsMap> jps_map(const Problem& problem, bool* built) {
    return std::static_pointer_cast<const JpsMap>(problem.derived(
        "jps_bits",
        [&] {
            const auto t0 = std::chrono::steady_clock::now();
            auto m = std::make_shared<JpsMap>();
            m->bits = gpu::jps_bits(*problem.map);
            m->share = gpu::jump_point_share(m->bits);
            m->scattered = gpu::scattered_obstacle_share(m->bits);
            m->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            return std::shared_ptr<const void>(std::move(m));
        },
        built));
}

std::shared_ptr<const gpu::JpsJumps> jps_jump_table(const Problem& problem, const JpsMap& map, double* ms) {
    bool built = false;
    double took = 0;
    auto jumps = std::static_pointer_cast<const gpu::JpsJumps>(problem.derived(
        "jps_jumps",
        [&] {
            const auto t0 = std::chrono::steady_clock::now();
            auto j = gpu::jps_jumps(map.bits);
            took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            return std::shared_ptr<const void>(std::move(j));
        },
        &built));
    if (ms) *ms = built ? took : 0.0;
    return jumps;
}

RunResult run_jps_query(const std::string& id, const Problem& problem, const RunContext& context,
                        gpu::JpsGpuOptions options, const JpsMap& map, bool built, bool jump_table) {
    options.bits = &map.bits;
    double jumps_ms = 0;
    const auto jumps = jump_table ? jps_jump_table(problem, map, &jumps_ms) : nullptr;
    options.jumps = jumps.get();
    options.want_path = true;
    options.cancel = context.cancel;
    gpu::JpsGpuOutput out;
    {
        nvtx::ScopedRange range(nvtx::Phase::Compute, id);
        out = gpu::run_jps_gpu(*problem.map, problem.cost_mode, problem.start, problem.goal, options);
    }
    if (auto ended = gpu_run_outcome(out)) return *ended;
    RunResult result;
    result.phases = out.phases;
    result.found = out.cost >= 0;
    result.cost = result.found ? out.cost : 0.0;
    result.path = std::move(out.path);
    result.expanded = out.expanded;
    auto& c = result.counters;
    c["gpu_compute_ms"] = out.gpu_compute_ms;
    c["iterations"] = double(out.iterations);
    c["host_launches"] = double(out.launches);
    c["open_peak"] = double(out.open_peak);
    c["open_cap"] = double(out.open_cap);
    c["open_on_chip"] = out.open_on_chip ? 1.0 : 0.0;
    c["map_on_chip"] = out.map_on_chip ? 1.0 : 0.0;
    c["table_on_chip"] = out.table_on_chip ? 1.0 : 0.0;
    c["block_threads"] = double(out.block_threads);
    c["jump_point_share"] = map.share;
    c["scattered_obstacle_share"] = map.scattered;
    c["preprocess_ms"] = (built ? map.ms : 0.0) + jumps_ms;  // the bitmaps and jump distances, once per map
    c["jump_table"] = out.jump_table ? 1.0 : 0.0;
    // Where the last launch's time went (jps_gpu.hpp: JpsCycles).
    const gpu::JpsCycles& k = out.cycles;
    const double loop = double(k.lowest_f + k.select + k.expand);
    const auto us = [&](double cycles) { return out.clock_khz > 0 ? cycles / out.clock_khz * 1e3 : 0.0; };
    if (loop > 0 && out.iterations > 0) {
        c["us_per_iteration"] = us(loop / double(out.iterations));
        c["lowest_f_share"] = double(k.lowest_f) / loop;
        if (out.clock_khz > 0) {  // outside the loop: the setup before it, the path walk after it
            c["us_setup"] = us(double(k.setup));
            c["us_walk"] = us(double(k.walk));
        }
        c["select_share"] = double(k.select) / loop;
        c["window_mean_steps"] = double(out.window_steps) / double(out.iterations);
    }
    if (out.expanded > 0) {
        const double n = double(out.expanded);
        c["cycles_claim"] = double(k.claim) / n;  // per jump point expanded
        c["cycles_straight"] = double(k.straight) / n;
        c["cycles_diagonal"] = double(k.diagonal) / n;
        c["cycles_successors"] = double(k.successors) / n;
        c["diagonal_groups_per_expansion"] = double(k.diagonal_groups) / n;
    }
    return result;
}

void add_jps_gpu_variant(Registry& registry) { registry.add(std::make_unique<JpsBlock>()); }

}  // namespace ps
