// MovingAI .map read/write and .scen read (shared/maps/movingai/FORMAT.md describes the format).
// Malformed input yields "file:line: reason" (ErrorKind::Invalid); a file that cannot be read or
// written an Error of ErrorKind::Io. A map is returned whole or not at all; a scenario file line
// by line, the bad lines set aside with their reasons.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps {

// What MovingAI's terrain letters cost: swamp 'S' and water 'W'. The default is the benchmark's
// reading (swamp passable like '.', water blocked); a user may ask for costs instead
// (`--swamp-cost 5 --water-cost 20`): then the map is weighted terrain.
struct TerrainCosts {
    std::uint8_t swamp = 1;
    std::uint8_t water = 0;
};

// `source` names the input in error messages (a path, or "<memory>"). Besides MovingAI's rows of
// letters after a 'map' line, PathScope's weighted terrain is read: the same header, a 'costs'
// line, then `height` rows of `width` numbers 0..255 (0 blocked), separated by spaces
// (docs/weighted-terrain.md).
Expected<GridMap> parse_movingai_map(std::string_view text, const std::string& source,
                                     const TerrainCosts& terrain = {});
Expected<GridMap> read_movingai_map(const std::string& path, const TerrainCosts& terrain = {});

// MovingAI letters ('.' and '@'), or the 'costs' rows when the map is weighted.
std::string format_movingai_map(const GridMap& map);
// Writes to a temporary file beside `path` and renames, so a failed write (full disk) never
// leaves a truncated map behind.
Expected<void> write_movingai_map(const GridMap& map, const std::string& path);

struct Scenario {
    int bucket = 0;
    std::string map_name;
    int map_width = 0;
    int map_height = 0;
    Cell start;
    Cell goal;
    double optimal_length = 0.0;
    int line = 0;  // line in the .scen file, for messages

    // Whether the file gives this scenario's optimal length. Every move costs at least 1, so 0
    // between two different cells is no length: tools that draw pairs without solving them
    // (tests/bench/random_scen.py among them) write 0 there. Such scenarios are checked against
    // astar.cpu's cost instead.
    bool has_length() const { return optimal_length > 0.0 || start == goal; }
};

// A scenario line left out, and why: `message` reads "file:line: reason".
struct ScenarioIssue {
    int line = 0;
    std::string message;
};

// At most this many left-out lines keep their message (a binary file read as scenarios would
// otherwise hold one per line); rejected_count counts them all.
inline constexpr std::size_t kMaxScenarioIssues = 1000;

// A scenario file as the searches take it: the usable scenarios in file order and the lines
// left out, each with its line number and reason, so that one bad query never costs the others.
struct ScenarioFile {
    std::vector<Scenario> scenarios;
    std::vector<ScenarioIssue> rejected;  // in line order, the first kMaxScenarioIssues
    std::size_t rejected_count = 0;
    void reject(int line, std::string message);
};

// Malformed lines (not numbers, a wrong field count, a negative cell) go to `rejected`
// (ErrorKind::Invalid reasons). Error only for what spoils every line: an unknown version line,
// a file that cannot be read (ErrorKind::Io).
Expected<ScenarioFile> parse_movingai_scen(std::string_view text, const std::string& source);
Expected<ScenarioFile> read_movingai_scen(const std::string& path);

// Checks a scenario against a map: same size, start and goal inside and passable. The error
// reads "source:line: start (3, 900) is outside the 256x257 map".
Expected<void> check_scenario(const Scenario& scenario, const GridMap& map, const std::string& source);
// Moves the scenarios that do not fit `map` to `rejected`, keeping line order.
void check_scenarios(ScenarioFile& file, const GridMap& map, const std::string& source);
// "2 of 5 scenario lines left out:" and the first `shown` reasons, one per line indented by two
// spaces, then "... and N more"; empty when no line was left out.
std::string describe_rejected(const ScenarioFile& file, std::size_t shown = 5);
// Error (ErrorKind::Invalid) when no scenario is usable: the file has none, or every line was
// left out (then with the first reasons).
Expected<void> require_scenarios(const ScenarioFile& file, const std::string& source);

// The map of a scenario file: the map the lines name, beside the .scen (as written, then by its
// file name alone), else the .scen's path without ".scen". Error (ErrorKind::Io) naming every
// path tried when none exists.
Expected<std::string> find_scenario_map(const std::string& scen_path, const ScenarioFile& file);

// Reads a whole file; Error (ErrorKind::Io) names the file and the OS reason.
Expected<std::string> read_text_file(const std::string& path);

}  // namespace ps
