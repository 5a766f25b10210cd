// pathscope-cli bench: the BFS paper's protocol as a sweep (see cli_bench.cpp), and the
// scenario-file loading the families with --scen share.
#pragma once

#include <memory>
#include <string>

#include "app/cli_args.hpp"
#include "kernels/map/map_io.hpp"

namespace ps::cli {

OptionSpec bench_options();
int cmd_bench(const Args& args);

// A MovingAI scenario file and its map (find_scenario_map: the map the lines name beside the
// .scen, else the path without ".scen"); scenarios that do not fit the map are left out with
// their reasons. Error when the file, the map or every scenario is unusable.
struct ScenarioInput {
    std::string scen_path, map_path;
    std::string name;  // the map's file name, for tables
    std::shared_ptr<const GridMap> map;
    ScenarioFile file;
};
Expected<ScenarioInput> load_scenario_input(const std::string& scen_path);
// "F.scen: 2 of 5 scenario lines left out:" and the first reasons, on stdout; nothing when none.
void print_left_out(const ScenarioInput& input);

}  // namespace ps::cli
