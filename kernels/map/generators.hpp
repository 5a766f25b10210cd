// Deterministic map generators: the same parameters and seed give the same map on every
// machine (own PRNG and noise, no std:: distributions whose output varies by library).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps {

// Division: the BBA* authors' recursive-division maze (see generators.cpp): connected under
// CornerRule::Any, while the MovingAI rule often has no path between its far corners.
// Rooms: MovingAI's rooms category (8room, 16room, ...): square rooms behind one-cell walls with
// doors, connected under every corner rule (see generators.cpp).
// Streets: MovingAI's street category (city maps: Berlin_0_256, Boston_1_1024, ...): blocks of
// buildings between straight streets and two diagonal avenues, one region under every corner
// rule (see generators.cpp). No parameters beyond size and seed.
enum class GeneratorKind { Empty, Random, Rectangles, BlockedCentre, Maze, Noise, Division, Rooms, Streets };
enum class NoiseType { Value, Gradient };

struct GeneratorParams {
    GeneratorKind kind = GeneratorKind::Empty;
    int width = 64;
    int height = 64;
    std::uint64_t seed = 1;
    // Random: probability a cell is blocked. Rectangles: target blocked fraction.
    // Noise: fraction of cells blocked (threshold is chosen to hit it approximately).
    // Rooms: probability that a wall between two rooms stays closed when the spanning tree does
    // not need a door in it (0: a door in every wall, 1: a tree of doors); see kRoomsDensity.
    double density = 0.2;
    int corridor_width = 1;                // Maze: width of corridors and walls in cells.
    double blocked_centre_fraction = 0.5;  // BlockedCentre: side of the centre block / side.
    NoiseType noise = NoiseType::Gradient;
    double noise_frequency = 0.02;  // Noise: features per cell (smaller = larger blobs).
    int noise_octaves = 3;
    int room_size = 16;  // Rooms: side of a room in cells (R); walls are one cell thick.
};

// The density the CLI gives rooms when --density is absent: half the walls beyond the spanning
// tree keep no door, so paths wind without being a single corridor through the rooms.
inline constexpr double kRoomsDensity = 0.5;

Expected<GridMap> generate_map(const GeneratorParams& params);

// Weighted terrain on any map: smooth patches (bilinear value noise on a lattice of about an
// eighth of the map's shorter side, at least 8 cells) where about half the passable cells keep
// cost 1 and the rest rise to `max_cost` (2..255) at the patches' hearts. Blocked cells stay
// blocked. Deterministic in `seed`.
void add_terrain_costs(GridMap& map, int max_cost, std::uint64_t seed);

std::string_view to_string(GeneratorKind kind);
std::optional<GeneratorKind> parse_generator_kind(std::string_view name);
std::vector<GeneratorKind> all_generator_kinds();
std::string_view to_string(NoiseType type);
std::optional<NoiseType> parse_noise_type(std::string_view name);

// splitmix64-seeded xoshiro256**: portable, fast, and the same everywhere.
class Rng {
public:
    explicit Rng(std::uint64_t seed);
    std::uint64_t next();
    double uniform();                      // [0, 1)
    std::uint64_t below(std::uint64_t n);  // [0, n), n > 0

private:
    std::uint64_t m_s[4];
};

}  // namespace ps
