// Grid maps from grey-level images, Qt-free (the CLI reads them on GPU machines without Qt):
// binary PGM (P5), plain PGM (P2) and PNG of any colour type (through libpng).
// Read as obstacles, a pixel darker than the threshold is blocked; read as costs, a pixel's
// grey level is its cell's cost (0 blocked, 1..255 the cost: docs/weighted-terrain.md).
#pragma once

#include <string>
#include <string_view>

#include "kernels/base/expected.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps {

struct ImageMapOptions {
    bool costs = false;   // grey levels are cell costs; otherwise obstacles by `threshold`
    int threshold = 128;  // obstacles: grey levels below it (of 0..255) are blocked
};

// True for the file names read_image_map takes (.pgm, .png; any case).
bool is_image_map_path(std::string_view path);

// Errors name the file and what is wrong ("maze.pgm: maxval 65535: only 8-bit grey levels
// (maxval 1..255) are read"); ErrorKind::Io when the file cannot be read.
Expected<GridMap> read_image_map(const std::string& path, const ImageMapOptions& options = {});
// A PGM from memory (the fuzzers and tests); `source` names it in errors.
Expected<GridMap> parse_pgm_map(std::string_view bytes, const std::string& source, const ImageMapOptions& options = {});

// An 8-bit grey PNG whose levels are the cells' costs (0 blocked), written beside `path` and
// renamed, so a failed write leaves nothing half-written. Read back with costs = true it gives
// the same map.
Expected<void> write_cost_png(const GridMap& map, const std::string& path);

}  // namespace ps
