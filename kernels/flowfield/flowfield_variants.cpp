// The flow-field variants behind the variant interface: flowfield.cpu (kernels/flowfield/flowfield.cpp,
// the reference) and flowfield.gpu (kernels/flowfield/flowfield_gpu.cu). Both report every cell's
// distance (bfs_levels) and direction (flow_dirs); when the problem has a start, also the
// start's distance as the cost and the path that follows the field from it.
#include "kernels/flowfield/flowfield_variants.hpp"

#include <algorithm>

#include "instrumentation/capture/clock.hpp"
#include "instrumentation/capture/nvtx.hpp"
#include "kernels/flowfield/flowfield.hpp"
#include "kernels/flowfield/flowfield_gpu.hpp"
#include "kernels/gpu/gpu_info.hpp"

namespace ps {
namespace {

constexpr const char* kMetricNote =
    "distances in steps on plain 4-connected maps, otherwise in the integer metric weighted by the cells' costs "
    "((a+b)*500 orthogonal, (a+b)*707 diagonal: 1000/1414 on plain cells; whatever the cost mode)";

// Moves a computed field into the result and derives the summary fields from it.
void fill_result(const Problem& problem, FlowField field, RunResult& result) {
    std::int32_t max_distance = -1;
    std::uint64_t reached = 0;
    for (std::int32_t d : field.distance) {
        max_distance = std::max(max_distance, d);
        reached += d >= 0 ? 1 : 0;
    }
    result.visited = reached;
    result.expanded = reached;
    result.levels = field.levels ? max_distance + 1 : 0;
    result.counters["max_distance"] = double(max_distance);
    if (problem.start != kNoVertex && problem.start < field.cell_count() && field.distance[problem.start] >= 0) {
        result.path = follow_flow(field, problem.start);
        result.found = !result.path.empty();
        result.cost = result.found ? double(field.distance[problem.start]) : 0;
    }
    result.bfs_levels = std::move(field.distance);
    result.flow_dirs = std::move(field.dirs);
}

class FlowFieldCpu final : public Variant {
public:
    FlowFieldCpu() {
        m_info.id = "flowfield.cpu";
        m_info.family = Family::FlowField;
        m_info.device = DeviceKind::Cpu;
        m_info.description =
            std::string("flow field from the goal: BFS (plain 4-connected) or Dijkstra (8-connected or weighted), ") +
            "a direction per cell; the reference. " + kMetricNote;
        m_info.reference_id = "flowfield.cpu";
        m_info.cell_costs = true;
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        Stopwatch total;
        Expected<FlowField> field = Error{};
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id.c_str());
            Stopwatch compute;
            field = compute_flow_field(*problem.map, problem.rules, problem.goal, context.cancel);
            result.phases.compute_ms = compute.elapsed_ms();
        }
        if (!field) {
            const bool cancelled = field.error().kind == ErrorKind::Cancelled;
            return failed_run(field.error().message, cancelled ? RunStatus::Cancelled : RunStatus::Error);
        }
        fill_result(problem, std::move(field).value(), result);
        result.phases.total_ms = total.elapsed_ms();
        return result;
    }

private:
    VariantInfo m_info;
};

class FlowFieldGpu final : public GpuVariant {
public:
    FlowFieldGpu() {
        m_info.id = "flowfield.gpu";
        m_info.family = Family::FlowField;
        m_info.device = DeviceKind::Gpu;
        m_info.description = std::string(
                                 "flow field on the GPU: 32x32 tiles relaxed per warp to a fixed point, "
                                 "a persistent kernel, then a direction kernel. ") +
                             kMetricNote;
        m_info.reference_id = "flowfield.cpu";
        m_info.cell_costs = true;
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        gpu::FlowFieldGpuOptions options;
        options.cancel = context.cancel;
        options.stamp_rounds = context.trace != trace::TraceLevel::Off;
        gpu::FlowFieldGpuOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id.c_str());
            out = gpu::run_flowfield_gpu(*problem.map, problem.rules, problem.goal, options);
        }
        if (out.cancelled) return failed_run("cancelled", RunStatus::Cancelled);
        if (!out.error.empty()) return failed_run(out.error);
        RunResult result;
        result.phases = out.phases;
        FlowField field;
        field.width = problem.map->width();
        field.height = problem.map->height();
        field.rules = problem.rules;
        field.levels = out.levels;
        field.goal = problem.goal;
        field.distance = std::move(out.distance);
        field.dirs = std::move(out.dirs);
        fill_result(problem, std::move(field), result);
        result.stamps.levels = std::move(out.round_stamps);
        result.stamps.kernel = "flow_tiles";
        result.stamps.unit = "round";
        result.counters["gpu_compute_ms"] = out.gpu_compute_ms;
        result.counters["host_launches"] = double(out.host_launches);
        result.counters["global_steps"] = double(out.global_steps);
        result.counters["tile_passes"] = double(out.tile_passes);
        result.counters["sweep_iterations"] = double(out.sweep_iterations);
        result.counters["cycles_load"] = double(out.pass_cycles[0]);
        result.counters["cycles_sweep"] = double(out.pass_cycles[1]);
        result.counters["cycles_write"] = double(out.pass_cycles[2]);
        return result;
    }

private:
    VariantInfo m_info;
};

}  // namespace

void add_flowfield_variants(Registry& registry) {
    registry.add(std::make_unique<FlowFieldCpu>());
    registry.add(std::make_unique<FlowFieldGpu>());
}

}  // namespace ps
