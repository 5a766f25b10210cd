// libFuzzer harness: MovingAI .scen text (parse_movingai_scen), then what the CLI does with the
// scenarios: checked against a map (check_scenario) and snapped to the nodes of a waypoint
// roadmap of it (scen_agents). The map is a fixed 8x8 one with walls, so scenarios that pass the
// checks reach the snapping code.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

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
    auto scenarios = ps::parse_movingai_scen(text, "in.scen");
    if (!scenarios) {
        FUZZ_CHECK(scenarios.error().message.rfind("in.scen:", 0) == 0, "error without file and line: %s",
                   scenarios.error().message.c_str());
        return 0;
    }
    // Each scenario takes a line of at least 17 bytes (nine fields, eight separators).
    FUZZ_CHECK(scenarios->size() * 17 <= size, "%zu scenarios from %zu bytes", scenarios->size(), size);
    const ps::GridMap& map = fixed_map();
    bool all_fit = true;
    for (const ps::Scenario& s : *scenarios) {
        FUZZ_CHECK(s.map_width >= 1 && s.map_height >= 1 && s.start.x >= 0 && s.start.y >= 0 && s.goal.x >= 0 &&
                       s.goal.y >= 0 && std::isfinite(s.optimal_length) && s.optimal_length >= 0 && !s.map_name.empty(),
                   "accepted a scenario with impossible fields on line %d", s.line);
        const auto ok = ps::check_scenario(s, map, "in.scen");
        if (ok) {
            FUZZ_CHECK(map.passable(s.start) && map.passable(s.goal), "check_scenario passed a blocked cell");
        } else {
            all_fit = false;
        }
    }
    for (const ps::Roadmap* roadmap : {static_cast<const ps::Roadmap*>(nullptr), &fixed_roadmap()}) {
        auto agents = ps::scen_agents(*scenarios, "in.scen", map, roadmap, scenarios->size() + 3);
        FUZZ_CHECK(bool(agents) == (all_fit && !scenarios->empty()), "scen_agents %s a list check_scenario %s",
                   agents ? "accepted" : "refused", all_fit ? "accepts" : "refuses");
        if (!agents) continue;
        FUZZ_CHECK(agents->size() == scenarios->size() + 3, "%zu agents", agents->size());
        const std::uint64_t n = roadmap ? roadmap->graph.vertex_count() : map.cell_count();
        for (const auto& [start, goal] : *agents) FUZZ_CHECK(start < n && goal < n, "agent outside the graph");
    }
    return 0;
}
