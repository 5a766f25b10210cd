// Map generators and the Rng: determinism, blocked fractions, maze connectivity, the
// recursive-division maze under the three corner rules, the rooms maps' walls, doors and
// connectivity, geometry, corner start/goal and parameter validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/map/generators.hpp"

namespace ps {
namespace {

GeneratorParams params(GeneratorKind kind, int w, int h, std::uint64_t seed = 1) {
    GeneratorParams p;
    p.kind = kind;
    p.width = w;
    p.height = h;
    p.seed = seed;
    return p;
}

GridMap generate_ok(const GeneratorParams& p) {
    auto map = generate_map(p);
    EXPECT_TRUE(map.ok()) << to_string(p.kind) << ": " << (map.ok() ? "" : map.error().message);
    return map.ok() ? std::move(map).value() : GridMap();
}

// Cells reached from `from` stepping to any of the 8 neighbours whose own cell is free, with the
// orthogonal cells beside a diagonal required free as the rule says: written here from the rule's
// definition, apart from the library's neighbour code.
std::vector<std::uint8_t> reach8(const GridMap& map, Cell from, CornerRule rule) {
    std::vector<std::uint8_t> seen(map.cell_count(), 0);
    if (!map.passable(from)) return seen;
    std::vector<Cell> stack{from};
    seen[map.index(from)] = 1;
    while (!stack.empty()) {
        const Cell c = stack.back();
        stack.pop_back();
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const Cell n{c.x + dx, c.y + dy};
                if ((dx == 0 && dy == 0) || !map.passable(n) || seen[map.index(n)]) continue;
                if (dx != 0 && dy != 0) {
                    const int beside = int(map.passable(c.x + dx, c.y)) + int(map.passable(c.x, c.y + dy));
                    if ((rule == CornerRule::None && beside < 2) || (rule == CornerRule::One && beside < 1)) continue;
                }
                seen[map.index(n)] = 1;
                stack.push_back(n);
            }
    }
    return seen;
}

double blocked_fraction(const GridMap& map) { return 1.0 - double(map.passable_count()) / double(map.cell_count()); }

// 4-connected flood fill from `from`; returns the number of cells reached.
std::size_t flood_fill(const GridMap& map, Cell from) {
    std::vector<std::uint8_t> seen(map.cell_count(), 0);
    std::vector<Cell> stack{from};
    seen[map.index(from)] = 1;
    std::size_t reached = 0;
    while (!stack.empty()) {
        const Cell c = stack.back();
        stack.pop_back();
        ++reached;
        const Cell next[4] = {{c.x + 1, c.y}, {c.x - 1, c.y}, {c.x, c.y + 1}, {c.x, c.y - 1}};
        for (const Cell& n : next) {
            if (!map.passable(n) || seen[map.index(n)]) continue;
            seen[map.index(n)] = 1;
            stack.push_back(n);
        }
    }
    return reached;
}

TEST(GeneratorRng, SameSeedSameSequenceDifferentSeedDifferent) {
    Rng a(42), b(42), c(43);
    int differ = 0;
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t x = a.next();
        EXPECT_EQ(x, b.next());
        differ += x != c.next();
    }
    EXPECT_GT(differ, 990);
    // Seed 0 must not degenerate into the all-zero xoshiro state (which outputs only zeros).
    Rng z(0);
    int zeros = 0;
    for (int i = 0; i < 100; ++i) zeros += z.next() == 0;
    EXPECT_LT(zeros, 2);
}

TEST(GeneratorRng, UniformIsInRangeWithExpectedMoments) {
    Rng rng(7);
    const int n = 1'000'000;
    double sum = 0, sum_sq = 0, lo = 1, hi = 0;
    for (int i = 0; i < n; ++i) {
        const double u = rng.uniform();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
        sum_sq += u * u;
        lo = std::min(lo, u);
        hi = std::max(hi, u);
    }
    const double mean = sum / n;
    const double var = sum_sq / n - mean * mean;
    // Standard error of the mean is 0.29 / 1000; these bounds are about 7 sigma.
    EXPECT_NEAR(mean, 0.5, 0.002);
    EXPECT_NEAR(var, 1.0 / 12.0, 0.002);
    EXPECT_LT(lo, 1e-4);
    EXPECT_GT(hi, 1 - 1e-4);
}

TEST(GeneratorRng, BelowIsInRangeAndEvenlySpread) {
    Rng rng(99);
    const int n = 600'000;
    std::vector<int> counts(6, 0);
    for (int i = 0; i < n; ++i) {
        const std::uint64_t v = rng.below(6);
        ASSERT_LT(v, 6u);
        ++counts[v];
    }
    double chi2 = 0;
    for (int c : counts) chi2 += (c - n / 6.0) * (c - n / 6.0) / (n / 6.0);
    EXPECT_LT(chi2, 25.0);  // 5 degrees of freedom: p < 0.0002 for a fair generator
    EXPECT_EQ(rng.below(1), 0u);
    // A bound just above 2^63 rejects almost half the raw draws; values must still fit.
    const std::uint64_t big = (std::uint64_t(1) << 63) + 1;
    bool upper_half = false;
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t v = rng.below(big);
        ASSERT_LT(v, big);
        upper_half |= v >= (std::uint64_t(1) << 62);
    }
    EXPECT_TRUE(upper_half);
}

TEST(Generators, NamesRoundTrip) {
    ASSERT_EQ(all_generator_kinds().size(), 9u);
    EXPECT_EQ(to_string(GeneratorKind::Division), "division");
    EXPECT_EQ(to_string(GeneratorKind::Streets), "streets");
    EXPECT_EQ(parse_generator_kind("streets"), GeneratorKind::Streets);
    EXPECT_EQ(to_string(GeneratorKind::Rooms), "rooms");
    EXPECT_EQ(parse_generator_kind("rooms"), GeneratorKind::Rooms);
    for (GeneratorKind k : all_generator_kinds()) EXPECT_EQ(parse_generator_kind(to_string(k)), k);
    EXPECT_EQ(to_string(GeneratorKind::BlockedCentre), "blocked-centre");
    EXPECT_EQ(parse_generator_kind("blocked-center"), GeneratorKind::BlockedCentre);
    EXPECT_EQ(parse_generator_kind("Maze"), std::nullopt);
    EXPECT_EQ(parse_generator_kind(""), std::nullopt);
    EXPECT_EQ(parse_noise_type("value"), NoiseType::Value);
    EXPECT_EQ(parse_noise_type("gradient"), NoiseType::Gradient);
    EXPECT_EQ(parse_noise_type("perlin"), std::nullopt);
    EXPECT_EQ(to_string(NoiseType::Value), "value");
    EXPECT_EQ(to_string(NoiseType::Gradient), "gradient");
}

TEST(Generators, SameSeedSameMapDifferentSeedDifferentMap) {
    for (GeneratorKind kind : all_generator_kinds()) {
        const GridMap a = generate_ok(params(kind, 97, 61, 3));
        const GridMap b = generate_ok(params(kind, 97, 61, 3));
        EXPECT_EQ(a, b) << to_string(kind);
        EXPECT_EQ(a.start, b.start);
        EXPECT_EQ(a.goal, b.goal);
        const bool seeded = kind != GeneratorKind::Empty && kind != GeneratorKind::BlockedCentre;
        if (seeded) {
            EXPECT_NE(a, generate_ok(params(kind, 97, 61, 4))) << to_string(kind);
        }
    }
    GeneratorParams v = params(GeneratorKind::Noise, 97, 61, 3);
    v.noise = NoiseType::Value;
    EXPECT_EQ(generate_ok(v), generate_ok(v));
    EXPECT_NE(generate_ok(v), generate_ok(params(GeneratorKind::Noise, 97, 61, 3)));
}

TEST(Generators, NameStartAndGoal) {
    for (GeneratorKind kind : all_generator_kinds()) {
        const GridMap m = generate_ok(params(kind, 64, 48, 7));
        EXPECT_EQ(m.name, std::string(to_string(kind)) + "-64x48-s7");
        ASSERT_TRUE(m.start.has_value()) << to_string(kind);
        ASSERT_TRUE(m.goal.has_value()) << to_string(kind);
        EXPECT_TRUE(m.passable(*m.start)) << to_string(kind);
        EXPECT_TRUE(m.passable(*m.goal)) << to_string(kind);
        // Near their corners: the top-left and bottom-right quarters of the map.
        EXPECT_LT(m.start->x + m.start->y, (64 + 48) / 2) << to_string(kind);
        EXPECT_GT(m.goal->x + m.goal->y, (64 + 48) / 2) << to_string(kind);
    }
    const GridMap empty = generate_ok(params(GeneratorKind::Empty, 64, 48));
    EXPECT_EQ(empty.passable_count(), empty.cell_count());
    EXPECT_EQ(empty.start, (Cell{0, 0}));
    EXPECT_EQ(empty.goal, (Cell{63, 47}));
    // A maze with corridor width 1 has its first corridor cell at (1, 1) on an exact-fit map.
    const GridMap maze = generate_ok(params(GeneratorKind::Maze, 9, 9));
    EXPECT_EQ(maze.start, (Cell{1, 1}));
    EXPECT_EQ(maze.goal, (Cell{7, 7}));
}

TEST(Generators, RandomBlockedFractionMatchesDensity) {
    for (double density : {0.0, 0.05, 0.25, 0.5, 0.9}) {
        GeneratorParams p = params(GeneratorKind::Random, 256, 256, 11);
        p.density = density;
        // 65536 Bernoulli cells: standard deviation <= 0.002.
        EXPECT_NEAR(blocked_fraction(generate_ok(p)), density, 0.01) << density;
    }
}

TEST(Generators, RectanglesReachDensityWithoutMuchOvershoot) {
    for (double density : {0.0, 0.1, 0.3, 0.6}) {
        GeneratorParams p = params(GeneratorKind::Rectangles, 256, 200, 5);
        p.density = density;
        const double f = blocked_fraction(generate_ok(p));
        EXPECT_GE(f, density) << density;
        // Overshoot is at most one rectangle: 25 x 20 cells = 1% of this map.
        EXPECT_LE(f, density + 0.01) << density;
    }
}

TEST(Generators, NoiseBlockedFractionMatchesDensity) {
    for (NoiseType type : {NoiseType::Value, NoiseType::Gradient}) {
        for (double density : {0.1, 0.3, 0.5}) {
            // Every cell is sampled on the small map, so only ties separate it from exact.
            GeneratorParams p = params(GeneratorKind::Noise, 256, 256, 21);
            p.noise = type;
            p.density = density;
            EXPECT_NEAR(blocked_fraction(generate_ok(p)), density, 0.005) << to_string(type) << " " << density;
            // Over 2M cells, so the threshold comes from a sample.
            p.width = 2048;
            p.height = 1100;
            p.noise_octaves = 4;
            EXPECT_NEAR(blocked_fraction(generate_ok(p)), density, 0.02) << to_string(type) << " " << density;
        }
    }
    GeneratorParams none = params(GeneratorKind::Noise, 100, 100);
    none.density = 0.0;
    EXPECT_EQ(generate_ok(none).passable_count(), 10000u);
}

TEST(Generators, NoiseFormsBlobsNotSaltAndPepper) {
    // Spatial coherence: neighbours agree far more often than for independent cells (0.5 at
    // density 0.5), which is what distinguishes the noise map from the random map.
    GeneratorParams p = params(GeneratorKind::Noise, 200, 200, 8);
    p.density = 0.5;
    const GridMap m = generate_ok(p);
    std::size_t same = 0, pairs = 0;
    for (int y = 0; y < m.height(); ++y)
        for (int x = 0; x + 1 < m.width(); ++x, ++pairs) same += m.passable(x, y) == m.passable(x + 1, y);
    EXPECT_GT(double(same) / double(pairs), 0.9);
}

TEST(Generators, MazeIsConnectedAndPerfect) {
    for (int corridor : {1, 2, 3}) {
        for (auto [w, h] : {std::pair{64, 48}, std::pair{65, 33}, std::pair{21, 9}}) {
            GeneratorParams p = params(GeneratorKind::Maze, w, h, std::uint64_t(corridor * 100 + w));
            p.corridor_width = corridor;
            const GridMap m = generate_ok(p);
            ASSERT_TRUE(m.start.has_value());
            const std::size_t passable = m.passable_count();
            EXPECT_EQ(flood_fill(m, *m.start), passable) << "corridor " << corridor << " " << w << "x" << h;
            // A spanning tree over nx * ny maze cells opens nx * ny - 1 walls, each block c x c.
            const std::size_t nx = std::size_t((w / corridor - 1) / 2);
            const std::size_t ny = std::size_t((h / corridor - 1) / 2);
            const std::size_t c2 = std::size_t(corridor * corridor);
            EXPECT_EQ(passable, (2 * nx * ny - 1) * c2) << "corridor " << corridor << " " << w << "x" << h;
        }
    }
}

TEST(Generators, DivisionMazeEverySizeCornersFreeAndDeterministic) {
    const std::pair<int, int> sizes[] = {{1, 1}, {2, 2},  {1, 9},   {9, 1},   {2, 7},    {3, 3},  {4, 5},
                                         {5, 4}, {17, 2}, {33, 21}, {64, 64}, {101, 77}, {7, 300}};
    for (auto [w, h] : sizes) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        const GridMap m = generate_ok(params(GeneratorKind::Division, w, h, 5));
        ASSERT_EQ(m.width(), w);
        ASSERT_EQ(m.height(), h);
        EXPECT_EQ(m, generate_ok(params(GeneratorKind::Division, w, h, 5)));
        // The map's corners are corners of every chamber holding them: no wall may use them.
        EXPECT_EQ(m.start, (Cell{0, 0}));
        EXPECT_EQ(m.goal, (Cell{w - 1, h - 1}));
        EXPECT_TRUE(m.passable(w - 1, 0));
        EXPECT_TRUE(m.passable(0, h - 1));
        // Chambers thinner than 3 cells are never cut, and a wall across a chamber 1 cell wide
        // is all gap.
        if ((w < 3 && h < 3) || w == 1 || h == 1) {
            EXPECT_EQ(m.passable_count(), m.cell_count());
        }
        if (w >= 3 && h >= 3) {
            EXPECT_LT(m.passable_count(), m.cell_count());
        }
    }
    EXPECT_NE(generate_ok(params(GeneratorKind::Division, 64, 64, 5)),
              generate_ok(params(GeneratorKind::Division, 64, 64, 6)));
    // The first wall on a 3x3 is the middle row or column with one gap: 2 of 9 cells blocked.
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const GridMap m = generate_ok(params(GeneratorKind::Division, 3, 3, seed));
        EXPECT_EQ(m.passable_count(), 7u) << seed;
        const bool row = !m.passable(0, 1) || !m.passable(2, 1);
        const int walls = row ? int(!m.passable(0, 1)) + int(!m.passable(1, 1)) + int(!m.passable(2, 1))
                              : int(!m.passable(1, 0)) + int(!m.passable(1, 1)) + int(!m.passable(1, 2));
        EXPECT_EQ(walls, 2) << seed;
    }
}

// Connected under the any rule (every free cell reaches the corner); the other rules often
// leave the far corner behind walls whose gaps later walls closed.
TEST(Generators, DivisionMazeConnectsOnlyUnderTheAnyRule) {
    int apart_none = 0, apart_one = 0, runs = 0;
    for (auto [w, h] : {std::pair{64, 64}, std::pair{65, 47}, std::pair{31, 99}})
        for (std::uint64_t seed = 1; seed <= 8; ++seed, ++runs) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " seed " + std::to_string(seed));
            const GridMap m = generate_ok(params(GeneratorKind::Division, w, h, seed));
            const auto any = reach8(m, {0, 0}, CornerRule::Any);
            std::size_t reached = 0;
            for (std::uint8_t r : any) reached += r;
            ASSERT_EQ(reached, m.passable_count());
            const Vertex far = m.index(w - 1, h - 1);
            apart_none += reach8(m, {0, 0}, CornerRule::None)[far] ? 0 : 1;
            apart_one += reach8(m, {0, 0}, CornerRule::One)[far] ? 0 : 1;
            // The library's regions agree with this search.
            std::uint32_t largest = 0;
            const auto regions = grid_regions(m, {Connectivity::Eight, CornerRule::Any}, &largest);
            EXPECT_EQ(*std::max_element(regions.begin(), regions.end()), 1u);
        }
    // All 24 here; at least half, so that the claim, not this exact count, is what is held.
    EXPECT_GE(apart_none, runs / 2) << apart_none << " of " << runs;
    EXPECT_GE(apart_one, runs / 2) << apart_one << " of " << runs;
}

// The rooms along one axis as the rooms category defines them, written out from the rule (a wall
// line where (x + 1) is a multiple of R + 1, none on the last cell): [begin, end) per room.
std::vector<std::pair<int, int>> room_spans(int length, int room) {
    std::vector<std::pair<int, int>> spans;
    int begin = 0;
    for (int x = 0; x < length; ++x)
        if ((x + 1) % (room + 1) == 0 && x < length - 1) {
            spans.push_back({begin, x});
            begin = x + 1;
        }
    spans.push_back({begin, length});
    return spans;
}

struct RoomsCount {
    std::size_t walls = 0;  // wall segments between two neighbouring rooms
    std::size_t doors = 0;  // segments with a door
    int widest = 0, narrowest = 1 << 30;
};

// Checks every cell of a rooms map against the layout: room cells free, wall crossings blocked,
// and in each wall segment between two rooms either no free cell or one run of 1 to R/2 cells
// (at most the segment's length). Counts segments and doors.
RoomsCount check_rooms_layout(const GridMap& m, int room) {
    const auto xs = room_spans(m.width(), room), ys = room_spans(m.height(), room);
    std::vector<std::uint8_t> wall_x(std::size_t(m.width()), 1), wall_y(std::size_t(m.height()), 1);
    for (auto [b, e] : xs)
        for (int x = b; x < e; ++x) wall_x[std::size_t(x)] = 0;
    for (auto [b, e] : ys)
        for (int y = b; y < e; ++y) wall_y[std::size_t(y)] = 0;
    for (int y = 0; y < m.height(); ++y)
        for (int x = 0; x < m.width(); ++x) {
            if (!wall_x[std::size_t(x)] && !wall_y[std::size_t(y)]) {
                EXPECT_TRUE(m.passable(x, y)) << "room cell " << x << "," << y;
            }
            if (wall_x[std::size_t(x)] && wall_y[std::size_t(y)]) {
                EXPECT_FALSE(m.passable(x, y)) << "post " << x << "," << y;
            }
        }
    RoomsCount count;
    // One segment: the cells at(0..length-1) of a wall line; free cells must be one short run.
    auto segment = [&](int length, auto free_at) {
        ++count.walls;
        int first = -1, last = -1, free = 0;
        for (int k = 0; k < length; ++k)
            if (free_at(k)) {
                if (first < 0) first = k;
                last = k;
                ++free;
            }
        if (free == 0) return;
        ++count.doors;
        EXPECT_EQ(last - first + 1, free) << "a door is one gap";
        EXPECT_LE(free, std::max(1, std::min(room / 2, length)));
        count.widest = std::max(count.widest, free);
        count.narrowest = std::min(count.narrowest, free);
    };
    for (std::size_t i = 0; i + 1 < xs.size(); ++i)
        for (auto [b, e] : ys) {
            const int x = xs[i].second;  // the wall column right of room column i
            segment(e - b, [&](int k) { return m.passable(x, b + k); });
        }
    for (std::size_t j = 0; j + 1 < ys.size(); ++j)
        for (auto [b, e] : xs) {
            const int y = ys[j].second;
            segment(e - b, [&](int k) { return m.passable(b + k, y); });
        }
    return count;
}

GeneratorParams rooms(int w, int h, int room, double density, std::uint64_t seed) {
    GeneratorParams p = params(GeneratorKind::Rooms, w, h, seed);
    p.room_size = room;
    p.density = density;
    return p;
}

// Worked by hand: 5x5 with R = 2 has walls on row 2 and column 2 (9 cells) around four 2x2
// rooms; doors are 1 cell (R / 2). A tree over 4 rooms has 3 doors, so 6 cells stay blocked;
// with a door in all 4 walls, 5 (the post at (2, 2)). 3x3 would put its wall on the last
// row and column, which is border: no walls at all. 1x7 has 1-cell walls on rows 2 and 5, but
// a line of rooms is its own spanning tree: every wall is a door.
TEST(Generators, RoomsHandWorkedSmallMaps) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const GridMap tree = generate_ok(rooms(5, 5, 2, 1.0, seed));
        EXPECT_EQ(tree.cell_count() - tree.passable_count(), 6u) << seed;
        EXPECT_FALSE(tree.passable(2, 2));
        const GridMap all = generate_ok(rooms(5, 5, 2, 0.0, seed));
        EXPECT_EQ(all.cell_count() - all.passable_count(), 5u) << seed;
        for (auto [w, h] : {std::pair{1, 1}, std::pair{2, 2}, std::pair{3, 3}, std::pair{1, 7}, std::pair{3, 2}}) {
            const GridMap open = generate_ok(rooms(w, h, 2, 0.5, seed));
            EXPECT_EQ(open.passable_count(), open.cell_count()) << w << "x" << h;
        }
    }
    // 4 wide: a wall at column 2, the last room 1 cell wide; one door of 1 cell in a 1-row map.
    const GridMap thin = generate_ok(rooms(4, 1, 2, 1.0, 3));
    EXPECT_EQ(thin.passable_count(), 4u);
    const GridMap two = generate_ok(rooms(4, 3, 2, 1.0, 3));
    EXPECT_EQ(two.cell_count() - two.passable_count(), 2u);
    EXPECT_EQ(int(two.passable(2, 0)) + int(two.passable(2, 1)) + int(two.passable(2, 2)), 1);
}

TEST(Generators, RoomsWallsDoorsAndOneRegionAtEverySize) {
    const std::pair<int, int> sizes[] = {{1, 1},   {2, 9},   {4, 4},   {9, 9},   {10, 10},  {17, 17},
                                         {65, 65}, {64, 48}, {31, 99}, {100, 7}, {130, 67}, {512, 512}};
    int widest = 0, narrowest = 1 << 30;
    for (auto [w, h] : sizes)
        for (int room : {2, 3, 8, 16})
            for (double density : {0.0, 0.5, 1.0}) {
                if (w * h > 100000 && room < 8) continue;  // the MovingAI 8room size, for 8 and 16
                const std::uint64_t seed = std::uint64_t(w * 7 + h + room);
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " R " + std::to_string(room) + " density " +
                             std::to_string(density));
                const GridMap m = generate_ok(rooms(w, h, room, density, seed));
                ASSERT_EQ(m.width(), w);
                ASSERT_EQ(m.height(), h);
                EXPECT_EQ(m, generate_ok(rooms(w, h, room, density, seed)));
                const RoomsCount c = check_rooms_layout(m, room);
                const std::size_t room_count = room_spans(w, room).size() * room_spans(h, room).size();
                EXPECT_EQ(c.walls, 2 * room_count - room_spans(w, room).size() - room_spans(h, room).size());
                if (density == 1.0) {
                    EXPECT_EQ(c.doors, room_count - 1) << "a tree of doors";
                }
                if (density == 0.0) {
                    EXPECT_EQ(c.doors, c.walls) << "a door in every wall";
                }
                if (density == 0.5 && room == 16) {
                    widest = std::max(widest, c.widest);
                    narrowest = std::min(narrowest, c.narrowest);
                }
                // One region under the MovingAI rule: by the search written here and by the library.
                ASSERT_TRUE(m.start.has_value());
                const auto seen = reach8(m, *m.start, CornerRule::None);
                std::size_t reached = 0;
                for (std::uint8_t r : seen) reached += r;
                EXPECT_EQ(reached, m.passable_count());
                const auto regions = grid_regions(m, {Connectivity::Eight, CornerRule::None});
                EXPECT_EQ(*std::max_element(regions.begin(), regions.end()), 1u);
            }
    // Door widths are drawn from 1 to R / 2: both ends turn up over these maps.
    EXPECT_EQ(narrowest, 1);
    EXPECT_GE(widest, 6);
}

// Streets: one region under every corner rule (4-connected, by the flood fill written here),
// about half the cells blocked on city-sized maps, and the first cut's street runs from border
// to border (a free row or column across the whole map).
TEST(Generators, StreetsOneRegionHalfBlockedWithAStreetAcross) {
    const std::pair<int, int> sizes[] = {{1, 1},   {2, 9},    {8, 8},     {31, 17},   {64, 48},
                                         {100, 7}, {130, 67}, {256, 256}, {300, 700}, {600, 512}};
    for (auto [w, h] : sizes)
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " seed " + std::to_string(seed));
            const GridMap m = generate_ok(params(GeneratorKind::Streets, w, h, seed));
            ASSERT_EQ(m.width(), w);
            ASSERT_EQ(m.height(), h);
            ASSERT_TRUE(m.start.has_value());
            EXPECT_EQ(flood_fill(m, *m.start), m.passable_count());
            if (std::min(w, h) < 64) continue;
            EXPECT_GT(blocked_fraction(m), 0.3);
            EXPECT_LT(blocked_fraction(m), 0.65);
            bool across = false;
            for (int x = 0; x < w && !across; ++x) {
                int free = 0;
                for (int y = 0; y < h; ++y) free += m.passable(x, y);
                across = free == h;
            }
            for (int y = 0; y < h && !across; ++y) {
                int free = 0;
                for (int x = 0; x < w; ++x) free += m.passable(x, y);
                across = free == w;
            }
            EXPECT_TRUE(across);
        }
}

TEST(Generators, RoomsDependOnSeedRoomSizeAndDensity) {
    const GridMap a = generate_ok(rooms(96, 80, 8, 0.5, 3));
    EXPECT_EQ(a, generate_ok(rooms(96, 80, 8, 0.5, 3)));
    EXPECT_NE(a, generate_ok(rooms(96, 80, 8, 0.5, 4)));
    EXPECT_NE(a, generate_ok(rooms(96, 80, 9, 0.5, 3)));
    // Fewer closed walls, more doors: more free cells.
    EXPECT_GT(generate_ok(rooms(96, 80, 8, 0.0, 3)).passable_count(),
              generate_ok(rooms(96, 80, 8, 1.0, 3)).passable_count());
}

TEST(Generators, MazeTooSmallIsAnError) {
    GeneratorParams p = params(GeneratorKind::Maze, 8, 8);
    p.corridor_width = 3;
    const auto m = generate_map(p);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.error().message.find("too small"), std::string::npos) << m.error().message;
    p.corridor_width = 2;  // 8 / 2 = 4 units: wall, cell, wall, and one spare unit
    EXPECT_TRUE(generate_map(p).ok());
}

TEST(Generators, BlockedCentreGeometry) {
    struct Case {
        int w, h;
        double fraction;
        int side, x0, y0;  // worked out by hand
    };
    const Case cases[] = {
        {100, 60, 0.5, 30, 35, 15},
        {11, 11, 0.5, 6, 2, 2},  // round(5.5) = 6
        {10, 10, 0.0, 0, 5, 5},
        {10, 10, 1.0, 10, 0, 0},
    };
    for (const Case& c : cases) {
        GeneratorParams p = params(GeneratorKind::BlockedCentre, c.w, c.h);
        p.blocked_centre_fraction = c.fraction;
        const GridMap m = generate_ok(p);
        for (int y = 0; y < c.h; ++y)
            for (int x = 0; x < c.w; ++x) {
                const bool inside = x >= c.x0 && x < c.x0 + c.side && y >= c.y0 && y < c.y0 + c.side;
                ASSERT_EQ(m.passable(x, y), !inside) << c.w << "x" << c.h << " at " << x << "," << y;
            }
        if (c.side == c.w) {
            EXPECT_FALSE(m.start.has_value());
        }
    }
}

TEST(Generators, EightByEightMapsWork) {
    for (GeneratorKind kind : all_generator_kinds()) {
        GeneratorParams p = params(kind, 8, 8, 2);
        p.density = 0.3;
        const GridMap m = generate_ok(p);
        EXPECT_EQ(m.width(), 8);
        EXPECT_EQ(m.height(), 8);
        ASSERT_TRUE(m.start.has_value()) << to_string(kind);
        EXPECT_TRUE(m.passable(*m.start));
        EXPECT_TRUE(m.passable(*m.goal));
    }
}

TEST(Generators, InvalidParametersAreErrors) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    struct Case {
        const char* what;
        GeneratorParams p;
        const char* reason;
    };
    auto with = [](GeneratorKind kind, auto change) {
        GeneratorParams p = params(kind, 32, 32);
        change(p);
        return p;
    };
    const std::vector<Case> cases = {
        {"zero width", with(GeneratorKind::Empty, [](auto& p) { p.width = 0; }), "invalid"},
        {"huge height", with(GeneratorKind::Empty, [](auto& p) { p.height = 70000; }), "too large"},
        {"negative density", with(GeneratorKind::Random, [](auto& p) { p.density = -0.1; }), "density"},
        {"density one", with(GeneratorKind::Random, [](auto& p) { p.density = 1.0; }), "density"},
        {"NaN density", with(GeneratorKind::Rectangles, [&](auto& p) { p.density = nan; }), "density"},
        {"noise density", with(GeneratorKind::Noise, [](auto& p) { p.density = 1.5; }), "density"},
        {"corridor 0", with(GeneratorKind::Maze, [](auto& p) { p.corridor_width = 0; }), "corridor width"},
        {"frequency 0", with(GeneratorKind::Noise, [](auto& p) { p.noise_frequency = 0; }), "frequency"},
        {"negative frequency", with(GeneratorKind::Noise, [](auto& p) { p.noise_frequency = -1; }), "frequency"},
        {"NaN frequency", with(GeneratorKind::Noise, [&](auto& p) { p.noise_frequency = nan; }), "frequency"},
        {"octaves 0", with(GeneratorKind::Noise, [](auto& p) { p.noise_octaves = 0; }), "octaves"},
        {"octaves 9", with(GeneratorKind::Noise, [](auto& p) { p.noise_octaves = 9; }), "octaves"},
        {"centre fraction", with(GeneratorKind::BlockedCentre, [](auto& p) { p.blocked_centre_fraction = 1.5; }),
         "blocked centre fraction"},
        {"room size 1", with(GeneratorKind::Rooms, [](auto& p) { p.room_size = 1; }), "room size"},
        {"room size 0", with(GeneratorKind::Rooms, [](auto& p) { p.room_size = 0; }), "room size"},
        {"huge room size", with(GeneratorKind::Rooms, [](auto& p) { p.room_size = 70000; }), "room size"},
        {"rooms density", with(GeneratorKind::Rooms, [](auto& p) { p.density = 1.5; }), "density"},
        {"rooms negative density", with(GeneratorKind::Rooms, [](auto& p) { p.density = -0.5; }), "density"},
        {"rooms NaN density", with(GeneratorKind::Rooms, [&](auto& p) { p.density = nan; }), "density"},
    };
    for (const Case& c : cases) {
        const auto m = generate_map(c.p);
        ASSERT_FALSE(m.ok()) << c.what;
        EXPECT_NE(m.error().message.find(c.reason), std::string::npos) << c.what << ": " << m.error().message;
    }
    // Parameters a kind does not use are not checked.
    GeneratorParams maze = params(GeneratorKind::Maze, 32, 32);
    maze.density = 5;
    maze.room_size = 0;
    EXPECT_TRUE(generate_map(maze).ok());
    // Rooms take density 1 (every wall beyond the tree closed) and rooms larger than the map.
    GeneratorParams closed = params(GeneratorKind::Rooms, 32, 32);
    closed.density = 1.0;
    closed.room_size = 65535;
    EXPECT_TRUE(generate_map(closed).ok());
}

}  // namespace
}  // namespace ps
