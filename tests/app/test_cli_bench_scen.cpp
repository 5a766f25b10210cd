// pathscope-cli bench --family scen as a user runs it, on a small open map whose optimal lengths
// are the octile distance (no wall to go around): rows, CSV columns, validation against the
// scenario lengths and against astar.cpu, the stored runs, and the options it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_test_support.hpp"
#include "tests/support/history_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::run_cli;

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// One CSV record (RFC 4180: quoted fields may hold commas and doubled quotes).
std::vector<std::string> csv_record(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

// The CSV as rows of column name -> value, checking every row has the header's width.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& path, std::vector<std::string>* header) {
    std::ifstream in(path);
    std::string line;
    std::vector<std::map<std::string, std::string>> rows;
    if (!std::getline(in, line)) return rows;
    *header = csv_record(line);
    while (std::getline(in, line)) {
        const auto fields = csv_record(line);
        EXPECT_EQ(fields.size(), header->size()) << line;
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < fields.size() && i < header->size(); ++i) row[(*header)[i]] = fields[i];
        rows.push_back(std::move(row));
    }
    return rows;
}

// The open 12x9 map and ten scenarios on it. With no walls the optimal 8-connected length is the
// octile distance: min(dx, dy) diagonals and |dx - dy| straight steps. `wrong_line`, when given,
// gets its length one too long.
struct OpenScen {
    std::string map, scen;
    std::vector<double> lengths;
};

OpenScen open_scen(const std::string& name, int wrong_line = 0) {
    OpenScen out;
    out.map = test::temp_path(name + ".map");
    std::string rows;
    for (int y = 0; y < 9; ++y) rows += "............\n";
    write_file(out.map, "type octile\nheight 9\nwidth 12\nmap\n" + rows);
    const int ends[10][4] = {{0, 0, 11, 8}, {3, 2, 3, 7},  {11, 0, 0, 8}, {5, 5, 5, 5}, {1, 8, 10, 1},
                             {6, 0, 7, 1},  {2, 4, 11, 4}, {0, 8, 4, 0},  {9, 3, 1, 6}, {7, 7, 0, 0}};
    std::string text = "version 1\n";
    for (int i = 0; i < 10; ++i) {
        const int dx = std::abs(ends[i][2] - ends[i][0]), dy = std::abs(ends[i][3] - ends[i][1]);
        double length = std::min(dx, dy) * std::sqrt(2.0) + std::abs(dx - dy);
        out.lengths.push_back(length);
        if (i + 2 == wrong_line) length += 1.0;  // scenario i is on line i + 2
        char line[160];
        std::snprintf(line, sizeof line, "0\t%s.map\t12\t9\t%d\t%d\t%d\t%d\t%.8f\n", name.c_str(), ends[i][0],
                      ends[i][1], ends[i][2], ends[i][3], length);
        text += line;
    }
    out.scen = out.map + ".scen";
    write_file(out.scen, text);
    return out;
}

const std::vector<std::string> kColumns = {"map",
                                           "variant",
                                           "status",
                                           "note",
                                           "queries",
                                           "repetitions",
                                           "total_median_ms",
                                           "total_min_ms",
                                           "total_max_ms",
                                           "compute_median_ms",
                                           "compute_min_ms",
                                           "compute_max_ms",
                                           "wall_median_ms",
                                           "queries_per_s",
                                           "speedup_vs_astar_cpu_compute",
                                           "speedup_vs_astar_cpu_total",
                                           "speedup_vs_batch_cpu_compute",
                                           "speedup_vs_batch_cpu_total",
                                           "validation",
                                           "failures",
                                           "first_failure",
                                           "iterations",
                                           "us_per_iteration",
                                           "queries_moved"};

double number(const std::map<std::string, std::string>& row, const std::string& column) {
    return std::stod(row.at(column));
}

TEST(CliBenchScen, CpuRowsMatchTheScenarioLengths) {
    const OpenScen s = open_scen("bench-scen-open");
    const std::string csv = test::temp_path("bench-scen-open.csv");
    const std::string db = test::fresh_db("bench-scen-open.sqlite");
    auto r = run_cli("bench --family scen --scen " + s.scen +
                     " --variant astar.cpu,batch.cpu --threads 2 --repeat 2 --warmup 0 --csv " + csv + " --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::vector<std::string> header;
    const auto rows = read_csv(csv, &header);
    EXPECT_EQ(header, kColumns);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at("variant"), "astar.cpu");
    EXPECT_EQ(rows[1].at("variant"), "batch.cpu[threads=2]");
    for (const auto& row : rows) {
        EXPECT_EQ(row.at("map"), "bench-scen-open.map");
        EXPECT_EQ(row.at("status"), "ok") << row.at("note");
        EXPECT_EQ(row.at("queries"), "10");
        EXPECT_EQ(row.at("repetitions"), "2");
        EXPECT_EQ(row.at("validation"), "passed") << row.at("first_failure");
        EXPECT_EQ(row.at("failures"), "0");
        EXPECT_GT(number(row, "total_median_ms"), 0.0);
        EXPECT_GE(number(row, "total_median_ms"), number(row, "compute_median_ms"));
        EXPECT_NEAR(number(row, "queries_per_s"), 10.0 / (number(row, "total_median_ms") / 1000.0),
                    1e-3 * number(row, "queries_per_s"));
    }
    // Speed-ups are baseline medians over the row's: 1 for the baseline itself.
    EXPECT_EQ(rows[0].at("speedup_vs_astar_cpu_compute"), "1.0000");
    EXPECT_EQ(rows[1].at("speedup_vs_batch_cpu_total"), "1.0000");
    EXPECT_NEAR(number(rows[1], "speedup_vs_astar_cpu_total"),
                number(rows[0], "total_median_ms") / number(rows[1], "total_median_ms"),
                1e-3 * number(rows[1], "speedup_vs_astar_cpu_total") + 1e-4);
    EXPECT_NEAR(number(rows[0], "speedup_vs_batch_cpu_compute"),
                number(rows[1], "compute_median_ms") / number(rows[0], "compute_median_ms"),
                1e-3 * number(rows[0], "speedup_vs_batch_cpu_compute") + 1e-4);

    // One stored run per row, with a sample per repetition: what the bench plots read.
    test::RawDb raw(db);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM runs WHERE bench_id LIKE 'scen-%'"), 2);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM runs WHERE validation = 'passed' AND status = 'ok'"), 2);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM samples"), 4);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM runs r JOIN maps m ON m.id = r.map_id WHERE m.width = 12"), 2);

    // Every 3rd query: scenarios 0, 3, 6 and 9.
    auto every = run_cli("bench --family scen --scen " + s.scen +
                         " --variant astar.cpu --every 3 --repeat 1 --warmup 0 --csv " + csv);
    ASSERT_EQ(every.exit_code, 0) << every.out << every.err;
    const auto thinned = read_csv(csv, &header);
    ASSERT_EQ(thinned.size(), 1u);
    EXPECT_EQ(thinned[0].at("queries"), "4");
}

TEST(CliBenchScen, ParamGoesToTheVariantsThatTakeItAndNamesTheRow) {
    const OpenScen s = open_scen("bench-scen-param");
    const std::string csv = test::temp_path("bench-scen-param.csv");
    auto r = run_cli("bench --family scen --scen " + s.scen +
                     " --variant astar.cpu,batch.cpu --param threads=3 --repeat 1 --warmup 0 --csv " + csv);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::vector<std::string> header;
    const auto rows = read_csv(csv, &header);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at("variant"), "astar.cpu");  // it has no thread count
    EXPECT_EQ(rows[1].at("variant"), "batch.cpu[threads=3]");
    EXPECT_EQ(rows[1].at("validation"), "passed");
}

TEST(CliBenchScen, VariantRowsCarryTheirOwnParameters) {
    // The same variant twice with other parameters: two rows, each named by its own, each
    // validated, the row's value winning over --param's.
    const OpenScen s = open_scen("bench-scen-rows");
    const std::string csv = test::temp_path("bench-scen-rows.csv");
    auto r = run_cli("bench --family scen --scen " + s.scen +
                     " --variant astar.cpu,batch.cpu:threads=1,batch.cpu --param threads=2 --repeat 1 --warmup 0 "
                     "--csv " +
                     csv);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::vector<std::string> header;
    const auto rows = read_csv(csv, &header);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1].at("variant"), "batch.cpu[threads=1]");
    EXPECT_EQ(rows[2].at("variant"), "batch.cpu[threads=2]");
    for (const std::size_t i : {1u, 2u}) EXPECT_EQ(rows[i].at("validation"), "passed") << i;
}

TEST(CliBenchScen, AWrongOptimalLengthFailsTheRowThatFindsTheTrueOne) {
    const OpenScen s = open_scen("bench-scen-wrong", 5);  // line 5: scenario 3, (5,5) -> (5,5)
    const std::string csv = test::temp_path("bench-scen-wrong.csv");
    auto r = run_cli("bench --family scen --scen " + s.scen +
                     " --variant astar.cpu,batch.cpu --repeat 1 --warmup 0 --csv " + csv);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    std::vector<std::string> header;
    const auto rows = read_csv(csv, &header);
    ASSERT_EQ(rows.size(), 2u);
    for (const auto& row : rows) {
        EXPECT_EQ(row.at("status"), "ok");
        EXPECT_EQ(row.at("validation"), "failed");
        EXPECT_EQ(row.at("failures"), "1");
        EXPECT_EQ(row.at("first_failure").rfind(s.scen + ":5: ", 0), 0u) << row.at("first_failure");
        EXPECT_NE(row.at("first_failure").find("optimal 1.00000000"), std::string::npos) << row.at("first_failure");
    }
    EXPECT_NE(r.out.find("failed"), std::string::npos) << r.out;

    // The integer metric has no published lengths: astar.cpu is the truth, so the wrong line no
    // longer matters and astar.cpu's row is the reference.
    auto integer = run_cli("bench --family scen --metric integer --scen " + s.scen +
                           " --variant astar.cpu,batch.cpu --repeat 1 --warmup 0 --csv " + csv);
    EXPECT_EQ(integer.exit_code, 0) << integer.out << integer.err;
    const auto exact = read_csv(csv, &header);
    ASSERT_EQ(exact.size(), 2u);
    EXPECT_EQ(exact[0].at("validation"), "reference");
    EXPECT_EQ(exact[1].at("validation"), "passed") << exact[1].at("first_failure");
}

// A map name longer than the table's first column and a variant named with its parameters: the
// columns widen, and every row's query count still stands under the header's "queries".
TEST(CliBenchScen, LongNamesKeepTheTableInLine) {
    const OpenScen s = open_scen("bench-scen-a-rather-long-map-name");
    auto r = run_cli("bench --family scen --scen " + s.scen +
                     " --variant astar.cpu,batch.cpu:threads=1,batch.cpu:threads=2 --repeat 1 --warmup 0");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::istringstream lines(r.out);
    std::string line, header;
    std::vector<std::string> rows;
    while (std::getline(lines, line)) {
        if (line.rfind("map ", 0) == 0) header = line;
        if (line.rfind("bench-scen-a-rather-long-map-name.map ", 0) == 0) rows.push_back(line);
    }
    ASSERT_FALSE(header.empty()) << r.out;
    ASSERT_EQ(rows.size(), 3u) << r.out;
    const std::size_t variant = header.find("variant"), queries = header.find("queries");
    ASSERT_NE(queries, std::string::npos);
    for (const std::string& row : rows) {
        ASSERT_GT(row.size(), variant) << row;
        EXPECT_TRUE(row[variant - 1] == ' ' && row[variant] != ' ') << header << "\n" << row;
        ASSERT_GE(row.size(), queries + 7) << row;
        EXPECT_EQ(row.substr(queries, 7), "     10") << header << "\n" << row;
    }
}

TEST(CliBenchScen, BadLinesAreLeftOutAndTheRestRun) {
    const OpenScen s = open_scen("bench-scen-bad");
    std::string text = test::file_bytes(s.scen);
    text += "0\tbench-scen-bad.map\t12\t9\t0\t0\t12\t0\t12\n";  // line 12: goal outside
    text += "0\tbench-scen-bad.map\t12\t9\n";                   // line 13: 4 fields
    write_file(s.scen, text);
    const std::string csv = test::temp_path("bench-scen-bad.csv");
    auto r =
        run_cli("bench --family scen --scen " + s.scen + " --variant astar.cpu --repeat 1 --warmup 0 --csv " + csv);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("2 of 12 scenario lines left out"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(s.scen + ":12: goal (12, 0) is outside the 12x9 map"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(s.scen + ":13: expected 9 fields"), std::string::npos) << r.out;
    std::vector<std::string> header;
    const auto rows = read_csv(csv, &header);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].at("queries"), "10");
    EXPECT_EQ(rows[0].at("validation"), "passed");
}

TEST(CliBenchScen, DefaultVariantsRunOrSayWhyNot) {
    const OpenScen s = open_scen("bench-scen-default");
    const std::string csv = test::temp_path("bench-scen-default.csv");
    auto r = run_cli("bench --family scen --scen " + s.scen + " --repeat 1 --warmup 0 --csv " + csv);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::vector<std::string> header;
    const auto rows = read_csv(csv, &header);
    ASSERT_GE(rows.size(), 4u);
    EXPECT_EQ(rows[0].at("variant"), "astar.cpu");
    EXPECT_EQ(rows[1].at("variant").rfind("batch.cpu", 0), 0u);
    bool single_gpu = false, many_gpu = false, block_ran = false;
    for (const auto& row : rows) {
        const std::string& variant = row.at("variant");
        single_gpu = single_gpu || variant.rfind("astar.gpu.", 0) == 0;
        many_gpu = many_gpu || variant.rfind("batch.gpu.", 0) == 0;
        // Without a GPU (or, in the real metric, for the integer-only kernels): skipped, with why.
        if (row.at("status") == "skipped") {
            EXPECT_FALSE(row.at("note").empty()) << variant;
        } else {
            EXPECT_EQ(row.at("status"), "ok") << variant << ": " << row.at("note");
            EXPECT_EQ(row.at("validation"), "passed") << variant << ": " << row.at("first_failure");
        }
        // The GPU's account: the CPU rows count no iterations; block A* counts them and, on this
        // open 12x9 map, moves no query out of its on-chip table.
        if (variant == "astar.cpu" || variant.rfind("batch.cpu", 0) == 0) {
            EXPECT_EQ(row.at("iterations"), "") << variant;
            EXPECT_EQ(row.at("queries_moved"), "") << variant;
        }
        if ((variant == "astar.gpu.block" || variant == "batch.gpu.grid") && row.at("status") == "ok") {
            block_ran = true;
            EXPECT_GT(std::stod(row.at("iterations")), 0.0) << variant;
            EXPECT_GT(std::stod(row.at("us_per_iteration")), 0.0) << variant;
            // astar.gpu.block's jump=auto may search by jump points, which keep no on-chip table
            if (variant == "batch.gpu.grid" || !row.at("queries_moved").empty()) {
                EXPECT_EQ(row.at("queries_moved"), "0") << variant;
            }
        }
    }
    EXPECT_TRUE(single_gpu);
    EXPECT_TRUE(many_gpu);
    EXPECT_EQ(r.out.find("where the GPU compute goes") != std::string::npos, block_ran) << r.out;
    if (block_ran) {
        EXPECT_NE(r.out.find("  astar.gpu.block: "), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("0 of 10 queries moved into global tables"), std::string::npos) << r.out;  // the batch
    }
}

TEST(CliBenchScen, GpuAccountCountsTheQueriesThatMoved) {
    // A 64x64 map split by a wall at x = 32 with a gap in the last two rows: a query from one
    // side to the other floods its side (about 2,000 cells) before it goes round, more than an
    // on-chip table of 1024 slots holds (3/4 of it, less an iteration's inserts), so it moves into
    // a global table; a short query on one side and start == goal do not.
    const std::string map = test::temp_path("bench-scen-moved.map");
    std::string rows;
    for (int y = 0; y < 64; ++y) rows += std::string(32, '.') + (y < 62 ? "@" : ".") + std::string(31, '.') + "\n";
    write_file(map, "type octile\nheight 64\nwidth 64\nmap\n" + rows);
    const int ends[6][4] = {{2, 2, 61, 2}, {5, 10, 60, 20},  {10, 0, 40, 5},
                            {3, 3, 8, 7},  {20, 20, 20, 20}, {1, 30, 63, 0}};
    std::string scen = "version 1\n";
    for (const auto& e : ends)
        scen += "0\tbench-scen-moved.map\t64\t64\t" + std::to_string(e[0]) + "\t" + std::to_string(e[1]) + "\t" +
                std::to_string(e[2]) + "\t" + std::to_string(e[3]) + "\t0\n";  // integer metric: astar.cpu is the truth
    write_file(map + ".scen", scen);
    const std::string csv = test::temp_path("bench-scen-moved.csv");
    auto r = run_cli("bench --family scen --scen " + map + ".scen" +
                     " --metric integer --variant astar.cpu,astar.gpu.block:shared_slots=1024:jump=0,"
                     "batch.gpu.grid:shared_slots=1024 --repeat 1 --warmup 0 --csv " +
                     csv);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::vector<std::string> header;
    const auto csv_rows = read_csv(csv, &header);
    ASSERT_EQ(csv_rows.size(), 3u);
    if (csv_rows[1].at("status") == "skipped") GTEST_SKIP() << "block A* did not run: " << csv_rows[1].at("note");
    for (const std::size_t i : {1u, 2u}) {
        const auto& row = csv_rows[i];
        ASSERT_EQ(row.at("status"), "ok") << row.at("variant") << ": " << row.at("note");
        EXPECT_EQ(row.at("validation"), "passed") << row.at("variant") << ": " << row.at("first_failure");
        const int moved = std::stoi(row.at("queries_moved"));
        EXPECT_GE(moved, 3) << row.at("variant");  // the four that cross the wall, at least three of them
        EXPECT_LE(moved, 4) << row.at("variant");
    }
    EXPECT_NE(r.out.find("queries moved into global tables: "), std::string::npos) << r.out;
}

TEST(CliBenchScen, RefusesWhatItCannotRun) {
    const OpenScen s = open_scen("bench-scen-refuse");
    const std::string base = "bench --family scen --repeat 1 ";
    struct Case {
        std::string args, message;
    };
    const Case cases[] = {
        {base + "--variant astar.cpu", "needs --scen"},
        {base + "--scen " + s.scen + " --variant bfs.cpu", "bfs.cpu is a bfs variant"},
        {base + "--scen " + s.scen + " --metric octile", "--metric takes real or integer"},
        {base + "--scen " + s.scen + " --every 0", "--every"},
        {base + "--scen " + s.scen + " --sizes 16", "--sizes is an option of bench --family"},
        {base + "--scen " + test::temp_path("no-such.scen"), "no-such.scen"},
        {"bench --family astar --sizes 16 --every 2", "--every is an option of bench --family scen"},
        {base + "--scen " + s.scen + " --variant astar.cpu --param dead_ends=1", "--param dead_ends: no variant"},
        {base + "--scen " + s.scen + " --variant batch.cpu --param threads", "--param expects name=value"},
        {base + "--scen " + s.scen + " --variant batch.cpu:threads", "parameters are name=value, got 'threads'"},
        {base + "--scen " + s.scen + " --variant astar.cpu:gate_width=4", "astar.cpu has no gate_width"},
    };
    for (const auto& c : cases) {
        auto r = run_cli(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
    }
}

}  // namespace
}  // namespace ps
