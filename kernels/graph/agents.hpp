// Agents of a batch search: (start, goal) vertex pairs, drawn at random among connected
// vertices of a graph or taken from a MovingAI .scen file (snapped to a roadmap's nodes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/graph/roadmap.hpp"

namespace ps {

using Agent = std::pair<Vertex, Vertex>;  // (start, goal)

struct AgentOptions {
    std::size_t count = 1000;
    std::uint64_t seed = 1;
};

// Random (start, goal) pairs that are connected in the graph (same component, edges taken as
// undirected), start != goal: the start uniform over vertices of components with two or more
// vertices, the goal uniform over the rest of its component. Deterministic for a seed on every
// machine. Error when no two vertices are connected or count is 0.
Expected<std::vector<Agent>> random_agents(const CsrGraph& graph, const AgentOptions& options);

// Agents from MovingAI scenarios, and the scenario lines they come from.
struct ScenarioAgents {
    std::vector<Agent> agents;
    // The scenarios used (agents[i] is scenarios[i % scenarios.size()]) and the lines left out:
    // malformed, or not fitting the map (another size, start or goal outside or blocked).
    ScenarioFile file;
};

// From MovingAI scenarios: each scenario's start and goal cells snapped to nodes of `roadmap`,
// or used as cell ids of `map` when roadmap is null. Snapping: among the 16 nodes nearest to
// each cell, those the cell sees (line_of_sight; when the roadmap was made on this map), plus
// the nearest node (nearest_node); the start/goal pair in one component with the least total
// distance wins (scenario endpoints are connected on the grid), else the nearest of each.
// Scenarios that do not fit the map are left out with their reason (check_scenarios); the rest
// are repeated cyclically to reach `count` (0 = as many as there are). Error (ErrorKind::Invalid)
// when none is usable.
Expected<ScenarioAgents> scen_agents(ScenarioFile file, const std::string& source, const GridMap& map,
                                     const Roadmap* roadmap, std::size_t count);
// The same, reading the .scen file.
Expected<ScenarioAgents> scen_agents(const std::filesystem::path& scen, const GridMap& map, const Roadmap* roadmap,
                                     std::size_t count);

}  // namespace ps
