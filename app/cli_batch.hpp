// pathscope-cli for many-agent searches: `roadmap gen|convert|info`, `run` with batch variants
// (roadmap or waypoints, random or scenario agents) and the pieces `bench --family batch`
// shares with it (cli_bench_batch.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/cli_args.hpp"
#include "kernels/graph/agents.hpp"
#include "kernels/graph/roadmap.hpp"
#include "kernels/run/runner.hpp"

namespace ps::cli {

// What the batch commands borrow from cli_main.cpp: map loading (--map | --gen ...) and the
// common problem options (--connectivity, --corner-cutting, --cost, --param ...).
struct CliHooks {
    Expected<std::shared_ptr<const GridMap>> (*load_map)(const Args&) = nullptr;
    Expected<void> (*configure_problem)(const Args&, Problem&) = nullptr;
};

// Options `run` takes for batch variants, added to its option set.
std::set<std::string> batch_run_options(std::set<std::string> other);
// True when `run` is asked for batch variants or given batch-only options.
bool wants_batch_run(const Args& args);
int cmd_run_batch(const Args& args, const CliHooks& hooks);
// `roadmap gen|convert|info ...`: parses its own arguments (convert takes two files).
int cmd_roadmap(const std::vector<std::string>& argv, const CliHooks& hooks);

// A batch search's graph: the map (may be null for a roadmap file alone) and the roadmap (null:
// the map's grid graph), with a line describing where it came from.
struct BatchSetup {
    std::shared_ptr<const GridMap> map;
    std::shared_ptr<const Roadmap> roadmap;
    std::string graph_text;  // "waypoints spacing 8: 4096 nodes, 15000 edges" / "grid graph 512x512"
};

// --map/--gen (through hooks.load_map; optional when --roadmap is given), then --roadmap F or
// --waypoints K [--max-edge D] under `rules`; neither = the map's grid graph.
Expected<BatchSetup> load_batch_setup(const Args& args, const CliHooks& hooks, MoveRules rules);
// --agents-scen F (needs the map; --agents N repeats them, default all) or --agents N random
// connected pairs from --seed. Scenario lines left out (malformed, or not fitting the map) are
// described in `left_out` (describe_rejected: a count, then the first lines), empty when none.
Expected<std::vector<Agent>> make_agents(const Args& args, const BatchSetup& setup, const Problem& problem,
                                         std::size_t count, std::string* left_out = nullptr);
// The problem for a setup and agents: roadmap aliased from the setup.
void attach(Problem& problem, const BatchSetup& setup, std::vector<Agent> agents);

// Text histogram of per-agent steps (log-scaled bins), lines indented by `indent`.
void print_step_histogram(const std::vector<std::uint32_t>& steps, const char* indent);

}  // namespace ps::cli
