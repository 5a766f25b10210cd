// Problem helpers, enum names and the registry container.
#include "kernels/run/variant.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "kernels/base/text_parse.hpp"

#include "kernels/gpu/gpu_info.hpp"

namespace ps {

struct Problem::Cache {
    // Recursive: a derived datum may be made from another (gate_width=auto's choice from the
    // gate forest), whose derived() call then comes from inside the first one's.
    std::recursive_mutex mutex;
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
    struct Derived {
        std::shared_ptr<const GridMap> map;
        MoveRules rules;
        std::shared_ptr<const void> data;
    };
    std::map<std::string, Derived> derived;
};

Problem::Problem() : m_cache(std::make_shared<Cache>()) {}

Expected<std::shared_ptr<const CsrGraph>> Problem::bfs_graph() const {
    if (!map) return Error{"the problem has no map"};
    std::lock_guard lock(m_cache->mutex);
    const bool same = m_cache->graph && m_cache->map == map && m_cache->rules == rules;
    if (!same) {
        auto built = grid_to_csr(*map, rules, std::nullopt);
        if (!built) return built.error();
        m_cache->graph = std::make_shared<const CsrGraph>(std::move(built).value());
        m_cache->map = map;
        m_cache->rules = rules;
    }
    return m_cache->graph;
}

std::shared_ptr<const void> Problem::derived(const std::string& name,
                                             const std::function<std::shared_ptr<const void>()>& make,
                                             bool* built) const {
    std::lock_guard lock(m_cache->mutex);
    auto& entry = m_cache->derived[name];
    const bool same = entry.data && entry.map == map && entry.rules == rules;
    if (built) *built = !same;
    if (!same) {
        entry.data = make();
        entry.map = map;
        entry.rules = rules;
    }
    return entry.data;
}

Expected<std::shared_ptr<const CsrGraph>> Problem::batch_graph() const {
    if (roadmap) return roadmap;
    if (!map) return Error{"the problem has neither a roadmap nor a map"};
    std::lock_guard lock(m_cache->mutex);
    const bool same = m_cache->batch && m_cache->batch_map == map && m_cache->batch_cost == cost_mode &&
                      m_cache->batch_rules == rules;
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
                return Error{
                    agent + (v == kNoVertex ? std::string("is not set") : std::to_string(v) + " is not a vertex") +
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

std::optional<std::string> weighted_terrain_refusal(const VariantInfo& info, const Problem& problem) {
    if (info.cell_costs || !problem.map || problem.roadmap || !problem.map->weighted()) return std::nullopt;
    std::string takers;
    for (const auto& v : Registry::instance().all())
        if (v->info().cell_costs) takers += (takers.empty() ? "" : ", ") + v->info().id;
    const std::string why =
        info.family == Family::Bfs ? "BFS counts steps, so it ignores cell costs" : "it ignores cell costs";
    return "the map has weighted terrain (cells cost 1.." + std::to_string(int(kMaxCellCost)) + ") and " + why +
           "; the variants that search it: " + (takers.empty() ? std::string("none") : takers);
}

std::string_view to_string(Family f) {
    switch (f) {
    case Family::Bfs:
        return "bfs";
    case Family::ShortestPath:
        return "shortest-path";
    case Family::Batch:
        return "batch";
    case Family::FlowField:
        return "flow-field";
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
    case RunStatus::Ok:
        return "ok";
    case RunStatus::Error:
        return "error";
    case RunStatus::Cancelled:
        return "cancelled";
    case RunStatus::Unavailable:
        return "unavailable";
    }
    return "?";
}

std::string_view to_string(Validation v) {
    switch (v) {
    case Validation::NotRun:
        return "not-run";
    case Validation::Passed:
        return "passed";
    case Validation::Failed:
        return "failed";
    case Validation::Reference:
        return "reference";
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

namespace ps {

ParamSpec int_param(std::string name, std::string default_value, std::string description, std::int64_t min,
                    std::int64_t max, std::int64_t multiple_of) {
    ParamSpec s;
    s.name = std::move(name);
    s.default_value = std::move(default_value);
    s.description = std::move(description);
    s.kind = ParamSpec::Kind::Int;
    s.min = min;
    s.max = max;
    s.multiple_of = multiple_of;
    return s;
}

ParamSpec flag_param(std::string name, std::string default_value, std::string description) {
    ParamSpec s;
    s.name = std::move(name);
    s.default_value = std::move(default_value);
    s.description = std::move(description);
    s.kind = ParamSpec::Kind::Flag;
    return s;
}

ParamSpec choice_param(std::string name, std::string default_value, std::string description,
                       std::vector<std::string> choices) {
    ParamSpec s;
    s.name = std::move(name);
    s.default_value = std::move(default_value);
    s.description = std::move(description);
    s.kind = ParamSpec::Kind::Choice;
    s.choices = std::move(choices);
    return s;
}

std::vector<std::string> offered_values(const ParamSpec& spec) {
    switch (spec.kind) {
    case ParamSpec::Kind::Flag:
        return {"0", "1"};
    case ParamSpec::Kind::Choice:
        return spec.choices;
    case ParamSpec::Kind::Int:
        break;
    }
    return {};
}

std::optional<std::string> check_param(const ParamSpec& spec, std::string_view value) {
    const std::string got = ", got " + text::quote(value);
    switch (spec.kind) {
    case ParamSpec::Kind::Flag:
        if (value == "0" || value == "1") return std::nullopt;
        return spec.name + " must be 0 or 1" + got;
    case ParamSpec::Kind::Choice: {
        if (std::find(spec.choices.begin(), spec.choices.end(), value) != spec.choices.end()) return std::nullopt;
        std::string list;
        for (const std::string& c : spec.choices) list += (list.empty() ? "" : ", ") + c;
        return spec.name + " must be one of " + list + got;
    }
    case ParamSpec::Kind::Int: {
        const auto n = text::parse_int<std::int64_t>(value);
        if (n && *n >= spec.min && *n <= spec.max && *n % spec.multiple_of == 0) return std::nullopt;
        std::string rule =
            spec.name + " must be a whole number from " + std::to_string(spec.min) + " to " + std::to_string(spec.max);
        if (spec.multiple_of > 1) rule += ", a multiple of " + std::to_string(spec.multiple_of);
        return rule + got;
    }
    }
    return std::nullopt;
}

const ParamSpec* find_param(const VariantInfo& info, std::string_view name) {
    for (const ParamSpec& p : info.params)
        if (p.name == name) return &p;
    return nullptr;
}

Expected<void> check_params(const VariantInfo& info, const Problem& problem) {
    for (const auto& [name, value] : problem.params) {
        const ParamSpec* spec = find_param(info, name);
        if (!spec) {
            std::string known;
            for (const ParamSpec& p : info.params) known += (known.empty() ? "" : ", ") + p.name;
            return Error{"unknown parameter '" + name + "'" +
                         (known.empty() ? std::string(" (it takes none)") : " (it takes " + known + ")")};
        }
        if (auto why = check_param(*spec, value)) return Error{*why};
    }
    return {};
}

const ParamSpec& ParamValues::spec(std::string_view name) const {
    if (const ParamSpec* p = find_param(m_info, name)) return *p;
    throw std::logic_error(m_info.id + " reads a parameter it does not declare: " + std::string(name));
}

const std::string& ParamValues::text(std::string_view name) const {
    const ParamSpec& s = spec(name);
    const auto it = m_problem.params.find(s.name);
    return it != m_problem.params.end() && !check_param(s, it->second) ? it->second : s.default_value;
}

std::int64_t ParamValues::integer(std::string_view name) const {
    return text::parse_int<std::int64_t>(text(name)).value_or(0);
}

bool ParamValues::flag(std::string_view name) const { return text(name) == "1"; }

}  // namespace ps
