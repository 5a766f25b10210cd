// libFuzzer harness: MovingAI .scen text (parse_movingai_scen: bad lines set aside with their
// file and line), then what the CLI does with the scenarios: checked against a map
// (check_scenario) and snapped to the nodes of a waypoint roadmap of it (scen_agents, which keeps
// the scenarios that fit). The map is a fixed 8x8 one with walls, so scenarios that pass the
// checks reach the snapping code.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/graph/agents.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/graph/roadmap.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

const ps::GridMap& fixed_map() {
    static const ps::GridMap map = [] {
        auto parsed = ps::parse_movingai_map(
            "type octile\nheight 8\nwidth 8\nmap\n"
            "........\n"
            ".@@@@...\n"
            ".@......\n"
            ".@.@@@@.\n"
            "...@....\n"
            "@@.@.@@.\n"
            "...@.@..\n"
            ".@...@..\n",
            "fixed.map");
        FUZZ_CHECK(parsed, "%s", parsed.error().message.c_str());
        return std::move(parsed).value();
    }();
    return map;
}

const ps::Roadmap& fixed_roadmap() {
    static const ps::Roadmap roadmap = [] {
        ps::WaypointOptions options;
        options.spacing = 3;
        auto r = ps::waypoint_roadmap(fixed_map(), options);
        FUZZ_CHECK(r, "%s", r.error().message.c_str());
        return std::move(r).value();
    }();
    return roadmap;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto file = ps::parse_movingai_scen(text, "in.scen");
    if (!file) {
        FUZZ_CHECK(file.error().message.rfind("in.scen:", 0) == 0, "error without file and line: %s",
                   file.error().message.c_str());
        return 0;
    }
    const std::vector<ps::Scenario>& scenarios = file->scenarios;
    // Each scenario takes a line of at least 17 bytes (nine fields, eight separators).
    FUZZ_CHECK(scenarios.size() * 17 <= size, "%zu scenarios from %zu bytes", scenarios.size(), size);
    FUZZ_CHECK(file->rejected.size() <= file->rejected_count && file->rejected.size() <= ps::kMaxScenarioIssues,
               "%zu messages kept for %zu lines left out", file->rejected.size(), file->rejected_count);
    for (const ps::ScenarioIssue& issue : file->rejected)
        FUZZ_CHECK(issue.message.rfind("in.scen:" + std::to_string(issue.line) + ": ", 0) == 0,
                   "a left-out line without its file and line: %s", issue.message.c_str());
    const ps::GridMap& map = fixed_map();
    std::size_t fit = 0;
    for (const ps::Scenario& s : scenarios) {
        FUZZ_CHECK(s.map_width >= 1 && s.map_height >= 1 && s.start.x >= 0 && s.start.y >= 0 && s.goal.x >= 0 &&
                       s.goal.y >= 0 && std::isfinite(s.optimal_length) && s.optimal_length >= 0 && !s.map_name.empty(),
                   "accepted a scenario with impossible fields on line %d", s.line);
        const auto ok = ps::check_scenario(s, map, "in.scen");
        if (ok) {
            FUZZ_CHECK(map.passable(s.start) && map.passable(s.goal), "check_scenario passed a blocked cell");
            ++fit;
        }
    }
    for (const ps::Roadmap* roadmap : {static_cast<const ps::Roadmap*>(nullptr), &fixed_roadmap()}) {
        auto agents = ps::scen_agents(*file, "in.scen", map, roadmap, scenarios.size() + 3);
        FUZZ_CHECK(bool(agents) == (fit > 0), "scen_agents %s a list with %zu scenarios that fit",
                   agents ? "accepted" : "refused", fit);
        if (!agents) continue;
        FUZZ_CHECK(agents->agents.size() == scenarios.size() + 3, "%zu agents", agents->agents.size());
        FUZZ_CHECK(agents->file.scenarios.size() == fit, "%zu scenarios kept, %zu fit", agents->file.scenarios.size(),
                   fit);
        FUZZ_CHECK(agents->file.rejected_count == file->rejected_count + scenarios.size() - fit, "%zu lines left out",
                   agents->file.rejected_count);
        const std::uint64_t n = roadmap ? roadmap->graph.vertex_count() : map.cell_count();
        for (const auto& [start, goal] : agents->agents) FUZZ_CHECK(start < n && goal < n, "agent outside the graph");
    }
    return 0;
}
