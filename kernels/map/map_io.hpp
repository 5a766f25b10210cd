// MovingAI .map read/write and .scen read (shared/maps/movingai/FORMAT.md describes the format).
// Every malformed input yields an Error "file:line: reason" (ErrorKind::Invalid); a file that
// cannot be read or written one of ErrorKind::Io. A map is returned whole or not at all.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps {

// `source` names the input in error messages (a path, or "<memory>").
Expected<GridMap> parse_movingai_map(std::string_view text, const std::string& source);
Expected<GridMap> read_movingai_map(const std::string& path);

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
};

Expected<std::vector<Scenario>> parse_movingai_scen(std::string_view text, const std::string& source);
Expected<std::vector<Scenario>> read_movingai_scen(const std::string& path);

// Checks a scenario against a map: same size, start and goal inside and passable.
Expected<void> check_scenario(const Scenario& scenario, const GridMap& map, const std::string& source);

// Reads a whole file; Error (ErrorKind::Io) names the file and the OS reason.
Expected<std::string> read_text_file(const std::string& path);

}  // namespace ps
