// MovingAI .map/.scen reading and writing: exact parsing, tolerance of line endings and
// whitespace, "file:line: reason" errors for every malformed case, atomic writes, and the
// shared benchmark maps with all their scenarios.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "kernels/map/generators.hpp"
#include "kernels/map/map_io.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

namespace fs = std::filesystem;

std::string map_text(const std::vector<std::string>& rows, int width, int height) {
    std::string text = "type octile\nheight " + std::to_string(height) + "\nwidth " + std::to_string(width) + "\nmap\n";
    for (const auto& r : rows) text += r + "\n";
    return text;
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

TEST(MapIo, ParsesCharactersAtExactPositions) {
    const std::string text = "type octile\nheight 2\nwidth 4\nmap\n.GS@\nOTW.\n";
    const auto map = parse_movingai_map(text, "<memory>");
    ASSERT_TRUE(map.ok()) << map.error().message;
    const bool expected[2][4] = {{true, true, true, false}, {false, false, false, true}};
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 4; ++x) EXPECT_EQ(map->passable(x, y), expected[y][x]) << x << "," << y;
    EXPECT_FALSE(map->start.has_value());
    EXPECT_FALSE(map->goal.has_value());
}

TEST(MapIo, AcceptsCrlfTrailingWhitespaceAndNoFinalNewline) {
    const std::string lf = "type octile\nheight 2\nwidth 3\nmap\n.@.\n@..\n";
    const std::string crlf = "type octile\r\nheight 2\r\nwidth 3\r\nmap\r\n.@.\r\n@..\r\n";
    const std::string ragged = "type octile  \nheight 2\t\nwidth   3 \r\nmap \n.@.  \r\n@..";
    const auto a = parse_movingai_map(lf, "lf.map");
    const auto b = parse_movingai_map(crlf, "crlf.map");
    const auto c = parse_movingai_map(ragged, "ragged.map");
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_TRUE(b.ok()) << b.error().message;
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(*a, *b);
    EXPECT_EQ(*a, *c);
    EXPECT_EQ(a->passable_count(), 4u);
}

TEST(MapIo, AcceptsWidthBeforeHeightAnyTypeAndTrailingBlankLines) {
    const auto a = parse_movingai_map("type octile\nwidth 3\nheight 2\nmap\n...\n.@.\n\n\n", "a.map");
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(a->width(), 3);
    EXPECT_EQ(a->height(), 2);
    EXPECT_FALSE(a->passable(1, 1));
    const auto b = parse_movingai_map("type tile\nheight 1\nwidth 1\nmap\n.", "b.map");
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(b->passable_count(), 1u);
}

TEST(MapIo, FormatIsExactMovingAiText) {
    GridMap map(3, 2, true);
    map.set_passable(1, 0, false);
    map.set_passable(2, 1, false);
    EXPECT_EQ(format_movingai_map(map), "type octile\nheight 2\nwidth 3\nmap\n.@.\n..@\n");
}

TEST(MapIo, GeneratedMapsRoundTripThroughText) {
    for (GeneratorKind kind : all_generator_kinds()) {
        GeneratorParams p;
        p.kind = kind;
        p.width = 37;
        p.height = 23;
        p.seed = 11;
        p.density = 0.3;
        p.noise_frequency = 0.1;
        const auto map = generate_map(p);
        ASSERT_TRUE(map.ok()) << to_string(kind) << ": " << map.error().message;
        const auto back = parse_movingai_map(format_movingai_map(*map), "<memory>");
        ASSERT_TRUE(back.ok()) << to_string(kind) << ": " << back.error().message;
        EXPECT_EQ(*back, *map) << to_string(kind);
    }
}

struct BadMap {
    const char* what;
    std::string text;
    int line;
    const char* reason;  // a part of the message
};

TEST(MapIo, MalformedMapsNameSourceLineAndReason) {
    const std::vector<BadMap> cases = {
        {"empty input", "", 1, "not a MovingAI map"},
        {"missing type", "height 2\nwidth 2\nmap\n..\n..\n", 3, "missing 'type'"},
        {"missing height", "type octile\nwidth 2\nmap\n..\n..\n", 3, "missing 'height'"},
        {"missing width", "type octile\nheight 2\nmap\n..\n..\n", 3, "missing 'width'"},
        {"missing map line", "type octile\nheight 2\nwidth 2\n", 4, "missing 'map'"},
        {"duplicate height", "type octile\nheight 2\nheight 2\nwidth 2\nmap\n..\n..\n", 3, "duplicate 'height'"},
        {"duplicate type", "type octile\ntype octile\nheight 1\nwidth 1\nmap\n.\n", 2, "duplicate 'type'"},
        {"non-numeric width", "type octile\nheight 2\nwidth two\nmap\n..\n..\n", 3,
         "'width' must be followed by a whole number"},
        {"width with junk", "type octile\nheight 2\nwidth 2x\nmap\n..\n..\n", 3, "whole number"},
        {"huge number", "type octile\nheight 99999999999999999999999\nwidth 2\nmap\n", 2, "whole number"},
        {"unknown header", "type octile\nheigth 2\nwidth 2\nmap\n", 2, "expected a header line"},
        {"zero height", "type octile\nheight 0\nwidth 2\nmap\n", 3, "invalid"},
        {"negative width", "type octile\nwidth -4\nheight 2\nmap\n", 3, "invalid"},
        {"too large", "type octile\nheight 70000\nwidth 2\nmap\n", 3, "too large"},
        {"short row", map_text({"...", ".", "..."}, 3, 3), 6, "map row 1 has 1 characters, expected 3"},
        {"long row", map_text({"....", "...", "..."}, 3, 3), 5, "map row 0 has 4 characters, expected 3"},
        {"blank row inside", map_text({"...", "", "..."}, 3, 3), 6, "has 0 characters"},
        {"bad character", map_text({"...", "..x", "..."}, 3, 3), 6, "unexpected character 'x' at column 3"},
        {"control character", map_text({".\x01."}, 3, 1), 5, "unexpected character byte 0x01 at column 2"},
        {"too few rows", map_text({"...", "..."}, 3, 3), 7, "the map ends after 2 of 3 rows"},
        // 3.6e9 cells is a legal size; the parser must fail on the text, not allocate 3.6 GB first.
        {"huge header, tiny body", "type octile\nheight 60000\nwidth 60000\nmap\n", 5,
         "the map ends after 0 of 60000 rows"},
        {"huge header, short row", "type octile\nheight 60000\nwidth 60000\nmap\n..\n", 5,
         "has 2 characters, expected 60000"},
        {"content after rows", map_text({"...", "...", "...", "", "..."}, 3, 3), 9,
         "unexpected content after the 3 map rows"},
        {"crlf bad character", "type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n..\r\n.?\r\n", 6, "'?' at column 2"},
    };
    for (const auto& c : cases) {
        const auto map = parse_movingai_map(c.text, "bad.map");
        ASSERT_FALSE(map.ok()) << c.what << ": parsed although malformed";
        EXPECT_EQ(map.error().kind, ErrorKind::Invalid) << c.what;
        const std::string& m = map.error().message;
        const std::string prefix = "bad.map:" + std::to_string(c.line) + ": ";
        EXPECT_EQ(m.rfind(prefix, 0), 0u) << c.what << ": '" << m << "' does not start with '" << prefix << "'";
        EXPECT_TRUE(contains(m, c.reason)) << c.what << ": '" << m << "' lacks '" << c.reason << "'";
    }
}

// Random byte edits of a valid map and scen: every result is either a whole, well-formed
// value or an error naming the source; never a crash (run under the asan preset too).
TEST(MapIo, MutatedInputsGiveMapsOrErrorsNeverCrashes) {
    const std::string map = map_text({".....", ".@@..", "..T..", "....."}, 5, 4);
    const std::string scen = "version 1\n0\tm.map\t5\t4\t0\t0\t4\t3\t5.8\n1\tm.map\t5\t4\t1\t0\t3\t3\t4\n";
    const char alphabet[] = "\n\r\t .@GSOTWxmaptypeheightwidth0123456789-+e";
    Rng rng(2024);
    for (int i = 0; i < 5000; ++i) {
        for (const std::string* original : {&map, &scen}) {
            std::string text = *original;
            const int edits = 1 + int(rng.below(3));
            for (int e = 0; e < edits; ++e) {
                const std::size_t at = rng.below(text.size() + 1);
                const char c = alphabet[rng.below(sizeof alphabet - 1)];
                switch (rng.below(3)) {
                case 0:
                    text.insert(text.begin() + std::ptrdiff_t(at), c);
                    break;
                case 1:
                    if (at < text.size()) text.erase(at, 1);
                    break;
                default:
                    if (at < text.size()) text[at] = c;
                    break;
                }
            }
            if (original == &map) {
                const auto m = parse_movingai_map(text, "fuzz.map");
                if (m.ok()) {
                    EXPECT_EQ(m->cell_count(), std::size_t(m->width()) * std::size_t(m->height()));
                } else {
                    EXPECT_EQ(m.error().message.rfind("fuzz.map:", 0), 0u) << m.error().message;
                }
            } else {
                const auto s = parse_movingai_scen(text, "fuzz.scen");
                if (!s.ok()) {
                    EXPECT_EQ(s.error().message.rfind("fuzz.scen:", 0), 0u) << s.error().message;
                } else {
                    for (const ScenarioIssue& issue : s->rejected)
                        EXPECT_EQ(issue.message.rfind("fuzz.scen:" + std::to_string(issue.line) + ": ", 0), 0u)
                            << issue.message;
                }
            }
        }
    }
}

TEST(MapIo, WriteThenReadRoundTripsAndLeavesNoTemporaryFile) {
    GeneratorParams p;
    p.kind = GeneratorKind::Random;
    p.width = 120;
    p.height = 70;
    p.seed = 5;
    const auto map = generate_map(p);
    ASSERT_TRUE(map.ok()) << map.error().message;
    const std::string path = test::temp_path("round-trip.map");
    // Overwriting must replace the old content entirely.
    { std::ofstream(path) << "stale content that is longer than nothing\n"; }
    ASSERT_TRUE(write_movingai_map(*map, path).ok());
    const auto back = read_movingai_map(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, *map);
    EXPECT_EQ(back->name, "round-trip");
    for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
        EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp-")) << entry.path();
    const auto text = read_text_file(path);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(*text, format_movingai_map(*map));
    fs::remove(path);
}

TEST(MapIo, WriteIntoMissingDirectoryFailsWithPath) {
    const std::string path = test::temp_path("no-such-dir") + "/sub/x.map";
    const auto r = write_movingai_map(GridMap(4, 4), path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Io);
    EXPECT_TRUE(contains(r.error().message, path)) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "No such file or directory")) << r.error().message;
}

// Simulates a full disk with a file size limit: writes past it fail with EFBIG (the signal
// that would normally kill the process is ignored for the duration).
TEST(MapIo, FailedWriteRemovesTemporaryAndKeepsOldFile) {
    const std::string path = test::temp_path("full-disk.map");
    { std::ofstream(path) << "old"; }
    GridMap big(300, 300, true);
    rlimit old_limit{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old_limit;
    small.rlim_cur = 4096;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    const auto r = write_movingai_map(big, path);
    setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Io);
    EXPECT_TRUE(contains(r.error().message, path)) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "File too large")) << r.error().message;
    for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
        EXPECT_FALSE(contains(entry.path().filename().string(), "full-disk.map.tmp-")) << entry.path();
    const auto text = read_text_file(path);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(*text, "old");
    fs::remove(path);
}

TEST(MapIo, ReadErrorsNameTheFileAndReason) {
    const std::string missing = test::temp_path("does-not-exist.map");
    const auto a = read_movingai_map(missing);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.error().kind, ErrorKind::Io);
    const auto scen = read_movingai_scen(test::temp_path("does-not-exist.scen"));
    ASSERT_FALSE(scen.ok());
    EXPECT_EQ(scen.error().kind, ErrorKind::Io);
    EXPECT_TRUE(contains(a.error().message, missing)) << a.error().message;
    EXPECT_TRUE(contains(a.error().message, "No such file or directory")) << a.error().message;

    const std::string dir = fs::path(test::temp_path("x")).parent_path().string();
    const auto b = read_text_file(dir);
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.error().kind, ErrorKind::Io);
    EXPECT_TRUE(contains(b.error().message, dir)) << b.error().message;
    EXPECT_TRUE(contains(b.error().message, "directory")) << b.error().message;

    const std::string bad = test::temp_path("bad-char.map");
    { std::ofstream(bad) << "type octile\nheight 1\nwidth 2\nmap\n.#\n"; }
    const auto c = read_movingai_map(bad);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().kind, ErrorKind::Invalid);  // the file was read; what it holds is wrong
    EXPECT_EQ(c.error().message.rfind(bad + ":5: ", 0), 0u) << c.error().message;
    fs::remove(bad);
}

TEST(MapIoScen, ParsesVersion1Lines) {
    const std::string text =
        "version 1\n"
        "0\tarena.map\t49\t49\t19\t26\t19\t29\t3.00000000\n"
        "\n"
        "2\tmaps/dao/arena.map\t49\t49\t44\t30\t43\t28\t2.41421356\n";
    const auto s = parse_movingai_scen(text, "a.scen");
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_EQ(s->scenarios.size(), 2u);
    EXPECT_EQ(s->rejected_count, 0u);
    const Scenario& a = s->scenarios[0];
    EXPECT_EQ(a.bucket, 0);
    EXPECT_EQ(a.map_name, "arena.map");
    EXPECT_EQ(a.map_width, 49);
    EXPECT_EQ(a.map_height, 49);
    EXPECT_EQ(a.start, (Cell{19, 26}));
    EXPECT_EQ(a.goal, (Cell{19, 29}));
    EXPECT_DOUBLE_EQ(a.optimal_length, 3.0);
    EXPECT_EQ(a.line, 2);
    const Scenario& b = s->scenarios[1];
    EXPECT_EQ(b.bucket, 2);
    EXPECT_EQ(b.map_name, "maps/dao/arena.map");
    EXPECT_EQ(b.start, (Cell{44, 30}));
    EXPECT_EQ(b.goal, (Cell{43, 28}));
    EXPECT_DOUBLE_EQ(b.optimal_length, 2.41421356);
    EXPECT_EQ(b.line, 4);
}

TEST(MapIoScen, AcceptsVersion10CrlfAndSpaceSeparatedFields) {
    const std::string text =
        "version 1.0\r\n"
        "1\tm.map\t10\t8\t0\t0\t9\t7\t12.5\r\n"
        "1   m.map 10  8 1 2   3 4   0\r\n"
        "1\tm.map\t10\t8\t5\t5\t5\t5\t0";  // no final newline, start == goal, length 0
    const auto s = parse_movingai_scen(text, "b.scen");
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_EQ(s->scenarios.size(), 3u);
    EXPECT_EQ(s->rejected_count, 0u);
    const auto& list = s->scenarios;
    EXPECT_EQ(list[0].goal, (Cell{9, 7}));
    EXPECT_DOUBLE_EQ(list[0].optimal_length, 12.5);
    EXPECT_EQ(list[1].map_name, "m.map");
    EXPECT_EQ(list[1].start, (Cell{1, 2}));
    EXPECT_EQ(list[1].goal, (Cell{3, 4}));
    EXPECT_EQ(list[1].line, 3);
    EXPECT_EQ(list[2].optimal_length, 0.0);
    EXPECT_EQ(list[2].line, 4);
}

TEST(MapIoScen, AcceptsFilesWithoutVersionLine) {
    const std::string text =
        "0\tm.map\t10\t8\t0\t0\t1\t1\t1.41421356\n"
        "0\tm.map\t10\t8\t2\t0\t3\t0\t1\n";
    const auto s = parse_movingai_scen(text, "v0.scen");
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_EQ(s->scenarios.size(), 2u);
    EXPECT_EQ(s->scenarios[0].line, 1);
    EXPECT_EQ(s->scenarios[1].line, 2);
    EXPECT_EQ(s->scenarios[1].start, (Cell{2, 0}));

    const auto empty = parse_movingai_scen("version 1\n", "e.scen");
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->scenarios.empty());
    EXPECT_EQ(empty->rejected_count, 0u);
    // Nothing to run is the caller's error, said as such.
    const auto none = require_scenarios(*empty, "e.scen");
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().kind, ErrorKind::Invalid);
    EXPECT_EQ(none.error().message, "e.scen: the scenario file has no scenarios");
}

TEST(MapIoScen, BadLinesNameSourceLineAndReason) {
    const std::string good = "0\tm.map\t10\t8\t0\t0\t1\t1\t1.5\n";
    struct Case {
        const char* what;
        std::string bad_line;
        const char* reason;
    };
    const std::vector<Case> cases = {
        {"too few fields", "0\tm.map\t10\t8\t0\t0\t1\t1", "expected 9 fields"},
        {"too many fields", "0\tm.map\t10\t8\t0\t0\t1\t1\t1.5\t7", "found 10"},
        {"non-numeric x", "0\tm.map\t10\t8\tx\t0\t1\t1\t1.5", "start x must be a whole number, found 'x'"},
        {"fractional y", "0\tm.map\t10\t8\t0\t0.5\t1\t1\t1.5", "start y must be a whole number"},
        {"negative goal", "0\tm.map\t10\t8\t0\t0\t-1\t1\t1.5", "goal x must not be negative"},
        {"zero width", "0\tm.map\t0\t8\t0\t0\t1\t1\t1.5", "map width must be at least 1"},
        {"nan length", "0\tm.map\t10\t8\t0\t0\t1\t1\tnan", "optimal length must be a finite non-negative number"},
        {"negative length", "0\tm.map\t10\t8\t0\t0\t1\t1\t-2.5", "finite non-negative"},
        {"word length", "0\tm.map\t10\t8\t0\t0\t1\t1\tfar", "optimal length must be a number"},
        {"empty map name", "0\t\t10\t8\t0\t0\t1\t1\t1.5", "map name is empty"},
    };
    for (const auto& c : cases) {
        // The bad line is line 4: version, a good line, a blank line, then it, then a good line.
        // It is left out with its reason; the good lines around it are kept.
        const std::string text = "version 1\n" + good + "\n" + c.bad_line + "\n" + good;
        const auto s = parse_movingai_scen(text, "bad.scen");
        ASSERT_TRUE(s.ok()) << c.what << ": " << s.error().message;
        ASSERT_EQ(s->scenarios.size(), 2u) << c.what;
        EXPECT_EQ(s->scenarios[0].line, 2);
        EXPECT_EQ(s->scenarios[1].line, 5);
        ASSERT_EQ(s->rejected.size(), 1u) << c.what << ": parsed although malformed";
        EXPECT_EQ(s->rejected_count, 1u);
        EXPECT_EQ(s->rejected[0].line, 4);
        const std::string& m = s->rejected[0].message;
        EXPECT_EQ(m.rfind("bad.scen:4: ", 0), 0u) << c.what << ": " << m;
        EXPECT_TRUE(contains(m, c.reason)) << c.what << ": '" << m << "' lacks '" << c.reason << "'";
        // With only the bad line there is nothing to run: an error that gives its reason.
        const auto alone = parse_movingai_scen("version 1\n" + c.bad_line + "\n", "bad.scen");
        ASSERT_TRUE(alone.ok()) << c.what;
        const auto none = require_scenarios(*alone, "bad.scen");
        ASSERT_FALSE(none.ok()) << c.what;
        EXPECT_EQ(none.error().kind, ErrorKind::Invalid);
        EXPECT_TRUE(contains(none.error().message, "bad.scen:2: ")) << none.error().message;
        EXPECT_TRUE(contains(none.error().message, c.reason)) << none.error().message;
    }
    const auto v = parse_movingai_scen("version 2\n" + good, "v.scen");
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.error().message.rfind("v.scen:1: unsupported scenario version 2", 0), 0u) << v.error().message;
}

TEST(MapIoScen, CheckScenarioAgainstMap) {
    // 4 x 3, wall at (2, 1).
    const auto map = parse_movingai_map(map_text({"....", "..@.", "...."}, 4, 3), "m.map");
    ASSERT_TRUE(map.ok());
    Scenario s;
    s.map_width = 4;
    s.map_height = 3;
    s.start = {0, 0};
    s.goal = {3, 2};
    s.line = 7;
    EXPECT_TRUE(check_scenario(s, *map, "m.scen").ok());

    auto expect_error = [&](Scenario bad, const std::string& reason) {
        const auto r = check_scenario(bad, *map, "m.scen");
        ASSERT_FALSE(r.ok()) << reason;
        EXPECT_EQ(r.error().message.rfind("m.scen:7: ", 0), 0u) << r.error().message;
        EXPECT_TRUE(contains(r.error().message, reason)) << r.error().message;
    };
    Scenario wrong_size = s;
    wrong_size.map_width = 5;
    expect_error(wrong_size, "scenario is for a 5x3 map, this map is 4x3");
    Scenario outside = s;
    outside.start = {4, 0};
    expect_error(outside, "start (4, 0) is outside the 4x3 map");
    Scenario outside_goal = s;
    outside_goal.goal = {0, 3};
    expect_error(outside_goal, "goal (0, 3) is outside");
    Scenario blocked = s;
    blocked.goal = {2, 1};
    expect_error(blocked, "goal (2, 1) is a blocked cell");
}

TEST(MapIoScen, MisfitsJoinMalformedLinesInLineOrder) {
    // 4 x 3, wall at (2, 1).
    const auto map = parse_movingai_map(map_text({"....", "..@.", "...."}, 4, 3), "m.map");
    ASSERT_TRUE(map.ok());
    const std::string text =
        "version 1\n"
        "0\tm.map\t4\t3\t0\t0\t3\t2\t3.8\n"   // 2: fits
        "0\tm.map\t4\t3\t0\t0\n"              // 3: malformed
        "0\tm.map\t4\t3\t0\t5\t3\t2\t3.8\n"   // 4: start below the map
        "0\tm.map\t4\t3\t3\t0\t0\t2\t3.8\n"   // 5: fits
        "0\tm.map\t8\t8\t0\t0\t3\t2\t3.8\n"   // 6: another map size
        "x\tm.map\t4\t3\t0\t0\t3\t2\t3.8\n";  // 7: malformed
    auto file = parse_movingai_scen(text, "m.scen");
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_EQ(file->scenarios.size(), 4u);
    check_scenarios(*file, *map, "m.scen");
    ASSERT_EQ(file->scenarios.size(), 2u);
    EXPECT_EQ(file->scenarios[0].line, 2);
    EXPECT_EQ(file->scenarios[1].line, 5);
    EXPECT_EQ(file->scenarios[1].start, (Cell{3, 0}));
    std::vector<int> lines;
    for (const ScenarioIssue& issue : file->rejected) lines.push_back(issue.line);
    EXPECT_EQ(lines, (std::vector<int>{3, 4, 6, 7}));
    EXPECT_EQ(file->rejected_count, 4u);
    EXPECT_EQ(file->rejected[1].message, "m.scen:4: start (0, 5) is outside the 4x3 map");
    EXPECT_EQ(file->rejected[2].message, "m.scen:6: scenario is for a 8x8 map, this map is 4x3");
    EXPECT_TRUE(require_scenarios(*file, "m.scen").ok());
    EXPECT_EQ(describe_rejected(*file, 1),
              "4 of 6 scenario lines left out:\n  " + file->rejected[0].message + "\n  ... and 3 more");
}

TEST(MapIoScen, KeepsTheFirstMessagesOfAHugeNumberOfBadLines) {
    std::string text = "version 1\n0\tm.map\t4\t3\t0\t0\t3\t2\t3.8\n";
    for (std::size_t i = 0; i < kMaxScenarioIssues + 500; ++i) text += "not a scenario\n";
    const auto file = parse_movingai_scen(text, "big.scen");
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(file->scenarios.size(), 1u);
    EXPECT_EQ(file->rejected_count, kMaxScenarioIssues + 500);
    ASSERT_EQ(file->rejected.size(), kMaxScenarioIssues);
    EXPECT_EQ(file->rejected.front().line, 3);
    EXPECT_EQ(file->rejected.back().line, int(kMaxScenarioIssues) + 2);
}

TEST(MapIoScen, FindsTheMapTheLinesNameBesideTheScenFile) {
    const fs::path dir = fs::path(test::temp_path("scen-find"));
    fs::remove_all(dir);
    fs::create_directories(dir / "maps" / "dao");
    const std::string scen = (dir / "runs.scen").string();
    const auto file = parse_movingai_scen("version 1\n0\tmaps/dao/arena.map\t4\t3\t0\t0\t3\t2\t3.8\n", scen);
    ASSERT_TRUE(file.ok());
    // Nothing there yet: an Io error that names every path tried.
    auto none = find_scenario_map(scen, *file);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().kind, ErrorKind::Io);
    for (const fs::path& p : {dir / "maps/dao/arena.map", dir / "arena.map", dir / "runs"})
        EXPECT_TRUE(contains(none.error().message, p.string())) << none.error().message;
    // The .scen path minus ".scen" is the last resort; the named map's file name beside the .scen
    // beats it, and the named path as written beats both.
    { std::ofstream((dir / "runs").string()) << "x"; }
    EXPECT_EQ(*find_scenario_map(scen, *file), (dir / "runs").string());
    { std::ofstream((dir / "arena.map").string()) << "x"; }
    EXPECT_EQ(*find_scenario_map(scen, *file), (dir / "arena.map").string());
    { std::ofstream((dir / "maps/dao/arena.map").string()) << "x"; }
    EXPECT_EQ(*find_scenario_map(scen, *file), (dir / "maps/dao/arena.map").string());
    // A file named F.map.scen with no usable line still finds F.map.
    { std::ofstream((dir / "den.map").string()) << "x"; }
    const ScenarioFile empty;
    EXPECT_EQ(*find_scenario_map((dir / "den.map.scen").string(), empty), (dir / "den.map").string());
    fs::remove_all(dir);
}

struct SharedMap {
    const char* name;
    int width;
    int height;
    std::size_t passable;  // counted independently with a script over the file
    std::size_t scenarios;
};

const SharedMap kSharedMaps[] = {
    {"arena", 49, 49, 2054, 130},
    {"den520d", 256, 257, 28178, 870},
    {"random512-10-0", 512, 512, 235900, 1780},
};

TEST(MapIoShared, ReadsTheBenchmarkMaps) {
    PS_REQUIRE_MOVINGAI();
    for (const auto& m : kSharedMaps) {
        const auto map = read_movingai_map((test::movingai_dir() / (std::string(m.name) + ".map")).string());
        ASSERT_TRUE(map.ok()) << map.error().message;
        EXPECT_EQ(map->name, m.name);
        EXPECT_EQ(map->width(), m.width) << m.name;
        EXPECT_EQ(map->height(), m.height) << m.name;
        EXPECT_EQ(map->passable_count(), m.passable) << m.name;
        // Only '.', '@' and 'T' occur, and every one maps to 0/1: a re-format parses back equal.
        const auto again = parse_movingai_map(format_movingai_map(*map), "<memory>");
        ASSERT_TRUE(again.ok());
        EXPECT_EQ(*again, *map) << m.name;
    }
}

TEST(MapIoShared, EveryScenarioFitsItsMap) {
    PS_REQUIRE_MOVINGAI();
    for (const auto& m : kSharedMaps) {
        const std::string map_file = std::string(m.name) + ".map";
        const std::string scen_path = (test::movingai_dir() / (map_file + ".scen")).string();
        const auto map = read_movingai_map((test::movingai_dir() / map_file).string());
        ASSERT_TRUE(map.ok()) << map.error().message;
        const auto scens = read_movingai_scen(scen_path);
        ASSERT_TRUE(scens.ok()) << scens.error().message;
        EXPECT_EQ(scens->scenarios.size(), m.scenarios) << m.name;
        EXPECT_EQ(scens->rejected_count, 0u) << m.name;
        int previous_line = 1;  // line 1 is "version 1"
        for (const Scenario& s : scens->scenarios) {
            EXPECT_EQ(s.map_name, map_file);
            EXPECT_GT(s.line, previous_line);
            previous_line = s.line;
            const auto ok = check_scenario(s, *map, scen_path);
            EXPECT_TRUE(ok.ok()) << ok.error().message;
            EXPECT_EQ(s.bucket, int(s.optimal_length / 4.0)) << scen_path << ":" << s.line;
        }
    }
}

}  // namespace
}  // namespace ps
