// batch.gpu.grid behind the variant interface: all queries of one grid map at once (a MovingAI
// scenario file, or random agents), a thread block per query pulled from an atomic counter,
// each query's state sized by the cells it touches rather than by the grid (where
// batch.gpu.* keeps a whole-graph working set per agent: 16 MiB per query on a 1024² map).
#include "kernels/batch/batch_grid_variants.hpp"

#include "kernels/batch/batch_cpu.hpp"
#include "kernels/search/grid_astar_params.hpp"

namespace ps {
namespace {

class BatchGrid final : public GpuVariant {
public:
    BatchGrid() {
        m_info.id = "batch.gpu.grid";
        m_info.family = Family::Batch;
        m_info.device = DeviceKind::Gpu;
        m_info.description =
            "grid maps: a thread block per query, bucket A* with g values in an on-chip hash table spilling to "
            "global memory";
        m_info.reference_id = "batch.cpu";
        m_info.params = grid_astar_params("auto", "8192");
    }
    const VariantInfo& info() const override { return m_info; }

    std::optional<std::string> preview(const Problem& problem) const override {
        if (!check_params(m_info, problem) || !problem.map || problem.roadmap) return std::nullopt;
        return "memory plan: " + gpu::describe_grid_astar_plan(*problem.map, problem.cost_mode, problem.agents.size(),
                                                               grid_astar_options(m_info, problem));
    }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        if (problem.roadmap || !problem.map)
            return failed_run("searches grid maps only (the map's own cells): run roadmap batches with batch.gpu.*");
        if (auto why = grid_astar_refusal(problem)) return failed_run(*why);
        if (problem.agents.empty()) return failed_run("the batch has no agents: give (start, goal) pairs");
        std::vector<gpu::GridQuery> queries;
        queries.reserve(problem.agents.size());
        for (const auto& [s, g] : problem.agents) queries.push_back({s, g});
        gpu::GridAStarOutput out;
        RunResult result = run_grid_astar(m_info, problem, context, queries, false, out);
        if (result.status != RunStatus::Ok) return result;
        result.agent_costs = std::move(out.costs);
        result.agent_steps = std::move(out.expanded);
        add_batch_counters(result);
        result.message = out.plan;
        return result;
    }

private:
    VariantInfo m_info;
};

}  // namespace

void add_batch_grid_variant(Registry& registry) { registry.add(std::make_unique<BatchGrid>()); }

}  // namespace ps
