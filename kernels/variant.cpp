// Problem helpers, enum names and the registry container.
#include "kernels/variant.hpp"

#include <mutex>

#include "kernels/gpu_info.hpp"

namespace ps {

struct Problem::Cache {
    std::mutex mutex;
    // The graph is keyed by what it was built from, so a copy of the problem with other rules
    // or another map never gets a stale graph.
    std::shared_ptr<const GridMap> map;
    MoveRules rules;
    std::shared_ptr<const CsrGraph> graph;
    // The weighted grid graph of batch searches without a roadmap, keyed the same way.
    std::shared_ptr<const GridMap> batch_map;
    MoveRules batch_rules;
    CostMode batch_cost = CostMode::Real;
    std::shared_ptr<const CsrGraph> batch;
};

Problem::Problem() : m_cache(std::make_shared<Cache>()) {}

Expected<std::shared_ptr<const CsrGraph>> Problem::bfs_graph() const {
    if (!map) return Error{"the problem has no map"};
    std::lock_guard lock(m_cache->mutex);
    const bool same = m_cache->graph && m_cache->map == map &&
                      m_cache->rules.connectivity == rules.connectivity &&
                      m_cache->rules.corner_cutting == rules.corner_cutting;
    if (!same) {
        auto built = grid_to_csr(*map, rules, std::nullopt);
        if (!built) return built.error();
        m_cache->graph = std::make_shared<const CsrGraph>(std::move(built).value());
        m_cache->map = map;
        m_cache->rules = rules;
    }
    return m_cache->graph;
}

Expected<std::shared_ptr<const CsrGraph>> Problem::batch_graph() const {
    if (roadmap) return roadmap;
    if (!map) return Error{"the problem has neither a roadmap nor a map"};
    std::lock_guard lock(m_cache->mutex);
    const bool same = m_cache->batch && m_cache->batch_map == map && m_cache->batch_cost == cost_mode &&
                      m_cache->batch_rules.connectivity == rules.connectivity &&
                      m_cache->batch_rules.corner_cutting == rules.corner_cutting;
    if (!same) {
        auto built = grid_to_csr(*map, rules, cost_mode);
        if (!built) return built.error();
        m_cache->batch = std::make_shared<const CsrGraph>(std::move(built).value());
        m_cache->batch_map = map;
        m_cache->batch_rules = rules;
        m_cache->batch_cost = cost_mode;
    }
    return m_cache->batch;
}

namespace {

// Batch problems: agents on batch_graph() (a roadmap, or the map's grid graph), no start/goal.
Expected<void> check_batch(const Problem& p) {
    if (!p.roadmap && (!p.map || p.map->empty())) return Error{"a batch search needs a roadmap or a map"};
    if (p.agents.empty()) return Error{"a batch search needs at least one agent (start, goal)"};
    auto graph = p.batch_graph();
    if (!graph) return graph.error();
    const std::uint32_t n = (*graph)->vertex_count();
    const bool cells = !p.roadmap;  // agents are cell ids of the map
    for (std::size_t i = 0; i < p.agents.size(); ++i) {
        for (const auto& [what, v] : {std::pair{"start", p.agents[i].first}, std::pair{"goal", p.agents[i].second}}) {
            const std::string agent = "agent " + std::to_string(i) + ": " + what + " ";
            if (v >= n)
                return Error{agent + (v == kNoVertex ? std::string("is not set") : std::to_string(v) + " is not a vertex") +
                             " (the " + (cells ? "grid graph" : "roadmap") + " has " + std::to_string(n) + " vertices)"};
            if (cells && !p.map->passable(v)) {
                const Cell c = p.map->cell(v);
                return Error{agent + "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ") is a blocked cell"};
            }
        }
    }
    return {};
}

}  // namespace

Expected<void> Problem::check(Family family) const {
    if (family == Family::Batch) return check_batch(*this);
    if (!map || map->empty()) return Error{"no map loaded"};
    auto describe = [&](Vertex v) {
        const Cell c = map->cell(v);
        return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")";
    };
    if (goal == kNoVertex)
        return Error{family == Family::Bfs ? "BFS needs a target (the goal cell)" : "the search needs a goal cell"};
    if (goal >= map->cell_count()) return Error{"the goal lies outside the map"};
    if (!map->passable(goal)) return Error{"the goal " + describe(goal) + " is a blocked cell"};
    const bool needs_start = (family != Family::Bfs && family != Family::FlowField) || bfs_stop_at_start;
    if (needs_start && start == kNoVertex) return Error{"the search needs a start cell"};
    if (start != kNoVertex) {
        if (start >= map->cell_count()) return Error{"the start lies outside the map"};
        if (!map->passable(start)) return Error{"the start " + describe(start) + " is a blocked cell"};
    }
    return {};
}

std::string_view to_string(Family f) {
    switch (f) {
    case Family::Bfs: return "bfs";
    case Family::ShortestPath: return "shortest-path";
    case Family::Batch: return "batch";
    case Family::FlowField: return "flow-field";
    }
    return "?";
}
std::optional<std::string> GpuVariant::unavailable_reason() const {
    if (!gpu_info().available) return gpu_info().reason;
    return std::nullopt;
}

std::string_view to_string(DeviceKind d) { return d == DeviceKind::Gpu ? "gpu" : "cpu"; }

RunResult failed_run(std::string message, RunStatus status) {
    RunResult r;
    r.status = status;
    r.message = std::move(message);
    return r;
}

std::string_view to_string(RunStatus s) {
    switch (s) {
    case RunStatus::Ok: return "ok";
    case RunStatus::Error: return "error";
    case RunStatus::Cancelled: return "cancelled";
    case RunStatus::Unavailable: return "unavailable";
    }
    return "?";
}

std::string_view to_string(Validation v) {
    switch (v) {
    case Validation::NotRun: return "not-run";
    case Validation::Passed: return "passed";
    case Validation::Failed: return "failed";
    case Validation::Reference: return "reference";
    }
    return "?";
}

const Variant* Registry::find(std::string_view id) const {
    for (const auto& v : m_variants)
        if (v->info().id == id) return v.get();
    return nullptr;
}

void Registry::add(std::unique_ptr<Variant> variant) { m_variants.push_back(std::move(variant)); }

}  // namespace ps
