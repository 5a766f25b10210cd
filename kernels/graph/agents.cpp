// Random and scenario agents for batch searches (see agents.hpp).
#include "kernels/graph/agents.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/map/generators.hpp"

namespace ps {

Expected<std::vector<Agent>> random_agents(const CsrGraph& graph, const AgentOptions& options) {
    if (options.count == 0) return Error{"the number of agents must be at least 1"};
    const Components components = connected_components(graph);
    if (components.largest < 2)
        return Error{"no two vertices of the graph are connected (" + std::to_string(graph.vertex_count()) +
                     " vertices, no edge between distinct ones): no agent can be placed"};
    // Vertices of components with at least two members, grouped by component (counting sort).
    std::vector<std::uint32_t> size(components.count, 0);
    for (std::uint32_t c : components.label) ++size[c];
    std::vector<std::uint64_t> begin(std::size_t(components.count) + 1, 0);
    for (std::uint32_t c = 0; c < components.count; ++c) begin[c + 1] = begin[c] + (size[c] >= 2 ? size[c] : 0);
    std::vector<Vertex> eligible(begin.back());
    std::vector<std::uint64_t> cursor(begin.begin(), begin.end() - 1);
    for (Vertex v = 0; v < graph.vertex_count(); ++v) {
        const std::uint32_t c = components.label[v];
        if (size[c] >= 2) eligible[cursor[c]++] = v;
    }
    Rng rng(options.seed);
    std::vector<Agent> agents;
    agents.reserve(options.count);
    for (std::size_t i = 0; i < options.count; ++i) {
        const std::uint64_t s = rng.below(eligible.size());
        const std::uint32_t c = components.label[eligible[s]];
        // Uniform over the component's other vertices: skip the start's own slot.
        std::uint64_t g = begin[c] + rng.below(size[c] - 1);
        if (g >= s) ++g;
        agents.emplace_back(eligible[s], eligible[g]);
    }
    return agents;
}

namespace {

// Candidates looked at for a visible node before falling back to the nearest one.
constexpr std::size_t kSnapCandidates = 16;

// Nodes near a cell, nearest first: the kSnapCandidates nearest that the cell sees (straight
// line through passable cells) when the roadmap's coords are cells of this map (waypoint
// roadmaps, text roadmaps with a 'map' line), followed by the nearest node overall.
std::vector<std::pair<double, Vertex>> snap_candidates(const GridMap& map, const Roadmap& roadmap, Cell c) {
    const auto& coords = roadmap.graph.coords;
    std::vector<std::pair<double, Vertex>> near;
    near.reserve(coords.size());
    for (Vertex v = 0; v < coords.size(); ++v) {
        const double dx = coords[v].x - c.x, dy = coords[v].y - c.y;
        near.emplace_back(std::sqrt(dx * dx + dy * dy), v);
    }
    const std::size_t k = std::min(kSnapCandidates, near.size());
    std::partial_sort(near.begin(), near.begin() + std::ptrdiff_t(k), near.end());
    std::vector<std::pair<double, Vertex>> out;
    if (roadmap.map_width == map.width() && roadmap.map_height == map.height())
        for (std::size_t i = 0; i < k; ++i) {
            const Point3& p = coords[near[i].second];
            if (line_of_sight(map, MoveRules{}, c, Cell{int(p.x), int(p.y)})) out.push_back(near[i]);
        }
    if (!near.empty()) out.push_back(near.front());
    return out;
}

// Start and goal of a scenario are connected on the grid, so they should land in one roadmap
// component: the pair of candidates in a common component with the least total distance,
// else the first candidate of each.
Agent snap(const GridMap& map, const Roadmap& roadmap, const Components& components, Cell start, Cell goal) {
    const auto s = snap_candidates(map, roadmap, start), g = snap_candidates(map, roadmap, goal);
    if (s.empty() || g.empty()) return {kNoVertex, kNoVertex};
    Agent best{s.front().second, g.front().second};
    double best_d = std::numeric_limits<double>::infinity();
    for (const auto& [ds, vs] : s)
        for (const auto& [dg, vg] : g)
            if (components.label[vs] == components.label[vg] && ds + dg < best_d) best_d = ds + dg, best = {vs, vg};
    return best;
}

}  // namespace

Expected<ScenarioAgents> scen_agents(ScenarioFile file, const std::string& source, const GridMap& map,
                                     const Roadmap* roadmap, std::size_t count) {
    if (roadmap && roadmap->graph.coords.empty())
        return Error{"the roadmap has no node coordinates: scenario cells cannot be snapped to its nodes"};
    check_scenarios(file, map, source);
    if (auto ok = require_scenarios(file, source); !ok) return ok.error();
    ScenarioAgents out;
    std::vector<Agent>& distinct = out.agents;
    distinct.reserve(file.scenarios.size());
    const Components components = roadmap ? connected_components(roadmap->graph) : Components{};
    for (const Scenario& s : file.scenarios) {
        if (roadmap)
            distinct.push_back(snap(map, *roadmap, components, s.start, s.goal));
        else
            distinct.emplace_back(map.index(s.start), map.index(s.goal));
    }
    if (count != 0) {
        std::vector<Agent> agents;
        agents.reserve(count);
        for (std::size_t i = 0; i < count; ++i) agents.push_back(distinct[i % distinct.size()]);
        out.agents = std::move(agents);
    }
    out.file = std::move(file);
    return out;
}

Expected<ScenarioAgents> scen_agents(const std::filesystem::path& scen, const GridMap& map, const Roadmap* roadmap,
                                     std::size_t count) {
    auto file = read_movingai_scen(scen.string());
    if (!file) return file.error();
    return scen_agents(std::move(file).value(), scen.string(), map, roadmap, count);
}

}  // namespace ps
