// Weighted terrain in files: PathScope's costs text format (a 'costs' line, then rows of numbers)
// written and read back exactly, its malformed rows reported with line and column, MovingAI's
// swamp and water letters at asked costs, and grey-level images (PGM P5/P2, PNG) read as costs
// or as obstacles, with the cost PNG round trip.
#include <gtest/gtest.h>

#include <fstream>

#include "kernels/map/generators.hpp"
#include "kernels/map/image_map.hpp"
#include "kernels/map/map_io.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

GridMap weighted_sample() {
    GridMap map = test::map_from_rows({"1.9@", "@255", "7..1"});
    map.set_cost(3, 2, 255);
    return map;
}

TEST(WeightedMaps, CostsTextFormatIsDocumentedAndRoundTrips) {
    const GridMap map = weighted_sample();
    const std::string text = format_movingai_map(map);
    EXPECT_EQ(text, "type octile\nheight 3\nwidth 4\ncosts\n1 1 9 0\n0 2 5 5\n7 1 1 255\n");
    const auto back = parse_movingai_map(text, "w.map");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->cells(), map.cells());
    // Tabs and repeated spaces are read as separators too.
    const auto spaced = parse_movingai_map("type octile\nheight 1\nwidth 3\ncosts\n  4\t 0  12 \n", "s.map");
    ASSERT_TRUE(spaced.ok()) << spaced.error().message;
    EXPECT_EQ(spaced->cells(), (std::vector<std::uint8_t>{4, 0, 12}));
    // A plain map keeps MovingAI's letters.
    EXPECT_EQ(format_movingai_map(test::map_from_rows({".@"})), "type octile\nheight 1\nwidth 2\nmap\n.@\n");
}

TEST(WeightedMaps, GeneratedWeightedMapsRoundTripThroughFiles) {
    GeneratorParams p;
    p.kind = GeneratorKind::Rooms;
    p.width = 131;
    p.height = 77;
    p.room_size = 10;
    GridMap map = generate_map(p).value();
    add_terrain_costs(map, 255, 9);
    ASSERT_TRUE(map.weighted());
    const std::string path = test::temp_path("weighted.map");
    ASSERT_TRUE(write_movingai_map(map, path).ok());
    const auto back = read_movingai_map(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->cells(), map.cells());
    const std::string png = test::temp_path("weighted.png");
    ASSERT_TRUE(write_cost_png(map, png).ok());
    const auto image = read_image_map(png, {.costs = true});
    ASSERT_TRUE(image.ok()) << image.error().message;
    EXPECT_EQ(image->cells(), map.cells());
    EXPECT_EQ(image->name, "weighted");
    // Read as obstacles, the dark cost levels (< 128) are walls: what the flag is for.
    const auto obstacles = read_image_map(png, {});
    ASSERT_TRUE(obstacles.ok());
    for (Vertex v = 0; v < map.cell_count(); ++v) ASSERT_EQ(obstacles->passable(v), map.cost(v) >= 128) << v;
}

TEST(WeightedMaps, BadCostRowsNameLineAndColumn) {
    struct Case {
        std::string text;
        const char* reason;
    };
    const Case cases[] = {
        {"type octile\nheight 1\nwidth 3\ncosts\n1 2 256\n", "w.map:5: cell cost '256' at column 3"},
        {"type octile\nheight 1\nwidth 3\ncosts\n1 x 2\n", "w.map:5: cell cost 'x' at column 2"},
        {"type octile\nheight 1\nwidth 3\ncosts\n1 -2 2\n", "at column 2"},
        {"type octile\nheight 2\nwidth 3\ncosts\n1 2 3\n1 2\n", "w.map:6: costs row 1 has 2 numbers, expected 3"},
        {"type octile\nheight 1\nwidth 2\ncosts\n1 2 3\n", "costs row 0 has more than 2 numbers"},
        {"type octile\nheight 2\nwidth 2\ncosts\n1 2\n", "the map ends after 1 of 2 rows"},
    };
    for (const Case& c : cases) {
        const auto map = parse_movingai_map(c.text, "w.map");
        ASSERT_FALSE(map.ok()) << c.text;
        EXPECT_NE(map.error().message.find(c.reason), std::string::npos) << map.error().message;
    }
}

TEST(WeightedMaps, SwampAndWaterLettersTakeAskedCosts) {
    const std::string text = "type octile\nheight 1\nwidth 5\nmap\n.SWT@\n";
    const auto benchmark = parse_movingai_map(text, "t.map");
    ASSERT_TRUE(benchmark.ok());
    EXPECT_EQ(benchmark->cells(), (std::vector<std::uint8_t>{1, 1, 0, 0, 0}));
    EXPECT_FALSE(benchmark->weighted());
    const auto costed = parse_movingai_map(text, "t.map", TerrainCosts{5, 20});
    ASSERT_TRUE(costed.ok());
    EXPECT_EQ(costed->cells(), (std::vector<std::uint8_t>{1, 5, 20, 0, 0}));
    EXPECT_TRUE(costed->weighted());
}

TEST(WeightedMaps, PgmGreyLevelsAreCostsOrObstacles) {
    std::string p5 = "P5\n# a comment\n3 2\n255\n";
    p5 += std::string("\x00\x01\x80\xff\x10\x7f", 6);
    const auto costs = parse_pgm_map(p5, "a.pgm", {.costs = true});
    ASSERT_TRUE(costs.ok()) << costs.error().message;
    EXPECT_EQ(costs->width(), 3);
    EXPECT_EQ(costs->cells(), (std::vector<std::uint8_t>{0, 1, 128, 255, 16, 127}));
    const auto walls = parse_pgm_map(p5, "a.pgm", {.costs = false, .threshold = 100});
    ASSERT_TRUE(walls.ok());
    EXPECT_EQ(walls->cells(), (std::vector<std::uint8_t>{0, 0, 1, 1, 0, 1}));
    const auto plain = parse_pgm_map("P2 2 2 9\n0 3\n9 1\n", "b.pgm", {.costs = true});
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_EQ(plain->cells(), (std::vector<std::uint8_t>{0, 3, 9, 1}));
    // maxval 9 scales to 0..255 for the threshold: 3 -> 85 (blocked), 9 -> 255.
    const auto scaled = parse_pgm_map("P2 2 2 9\n0 3\n9 1\n", "b.pgm", {});
    EXPECT_EQ(scaled->cells(), (std::vector<std::uint8_t>{0, 0, 1, 0}));
}

TEST(WeightedMaps, BrokenImagesSayWhy) {
    const std::pair<std::string, const char*> cases[] = {
        {"P6 1 1 255\nabc", "not a grey PGM image"},
        {"P5 2 2 65535\n", "maxval 65535: only 8-bit grey levels"},
        {"P5 4 4 255\n\x01\x02", "ends before its 16 pixels"},
        {"P2 2 1 9\n3 12\n", "pixel 2 is 12, above maxval 9"},
        {"P2 2 1\n", "needs a width, a height and a maxval"},
        {"P55 2\n2\n", "not a grey PGM image"},
        {std::string("P5 2 1 2\n\x01\xff", 11), "pixel 2 is 255, above maxval 2"},
        {"P5 0 4 255\n", "map size 0x4 is invalid"},
    };
    for (const auto& [bytes, reason] : cases) {
        const auto map = parse_pgm_map(bytes, "x.pgm", {.costs = true});
        ASSERT_FALSE(map.ok()) << reason;
        EXPECT_NE(map.error().message.find(reason), std::string::npos) << map.error().message;
    }
    const std::string fake = test::temp_path("fake.png");
    std::ofstream(fake) << "not a png";
    const auto png = read_image_map(fake, {.costs = true});
    ASSERT_FALSE(png.ok());
    EXPECT_NE(png.error().message.find("fake.png"), std::string::npos) << png.error().message;
    EXPECT_FALSE(read_image_map(test::temp_path("missing.png")).ok());
    EXPECT_TRUE(is_image_map_path("A.PNG"));
    EXPECT_FALSE(is_image_map_path("a.map"));
}

}  // namespace
}  // namespace ps
