// pathscope-cli run --db and pathscope-cli history, as a user runs them: a child process,
// its exit code, stdout and stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tests/support/cli_test_support.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using test::run_cli;

std::size_t count_lines(const std::string& text) { return std::size_t(std::count(text.begin(), text.end(), '\n')); }

TEST(HistoryCli, RunDbThenListShowExportDelete) {
    const std::string db = test::fresh_db("cli-history.sqlite");
    const std::string d = " --db " + db;
    auto run = run_cli("run --gen random --size 32 --seed 2 --density 0.2 --variant bfs.cpu,astar.cpu --repeat 2" + d);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("stored as run 1 in " + db), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("stored as run 2"), std::string::npos) << run.out;

    auto json_run = run_cli("run --gen random --size 32 --seed 2 --density 0.2 --variant astar.cpu --json" + d);
    ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
    EXPECT_EQ(json_run.out.front(), '[') << "stdout stays JSON";
    EXPECT_NE(json_run.err.find("stored as run 3"), std::string::npos) << json_run.err;

    auto list = run_cli("history --json" + d);
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_EQ(list.out.front(), '[');
    EXPECT_NE(list.out.find("\"variant\": \"astar.cpu\""), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("\"status\": \"ok\""), std::string::npos);
    EXPECT_NE(list.out.find("\"repetitions\": 2"), std::string::npos);

    auto text = run_cli("history" + d + " --variant bfs");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("bfs.cpu"), std::string::npos);
    EXPECT_EQ(text.out.find("astar.cpu"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("1 run in"), std::string::npos) << text.out;
    auto since = run_cli("history" + d + " --since 2001-01-01 --until 2001-12-31");
    ASSERT_EQ(since.exit_code, 0) << since.err;
    EXPECT_NE(since.out.find("0 runs in"), std::string::npos) << since.out;

    auto show = run_cli("history show 1" + d);
    ASSERT_EQ(show.exit_code, 0) << show.err;
    EXPECT_NE(show.out.find("run 1  ok"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("variant bfs.cpu"), std::string::npos);
    EXPECT_NE(show.out.find("recording bfs_levels"), std::string::npos) << show.out;
    auto show_json = run_cli("history show 2 --json" + d);
    ASSERT_EQ(show_json.exit_code, 0) << show_json.err;
    EXPECT_NE(show_json.out.find("\"samples\": ["), std::string::npos);
    EXPECT_NE(show_json.out.find("\"event_count\": 0"), std::string::npos) << show_json.out;

    auto csv = run_cli("history export --format csv" + d);
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(count_lines(csv.out), 4u) << csv.out;  // header + 3 runs
    EXPECT_EQ(csv.out.rfind("id,created_utc,", 0), 0u);
    const std::string json_file = test::temp_path("cli-export.json");
    auto json = run_cli("history export --format json --out " + json_file + " 1 3" + d);
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const std::string exported = test::file_bytes(json_file);
    EXPECT_NE(exported.find("\"format\": \"pathscope-history\""), std::string::npos);
    EXPECT_EQ(exported.find("\"id\": 2,"), std::string::npos) << "only the runs asked for";

    auto del = run_cli("history delete 1" + d);
    ASSERT_EQ(del.exit_code, 0) << del.err;
    EXPECT_NE(del.out.find("deleted 1 run"), std::string::npos);
    EXPECT_NE(run_cli("history" + d).out.find("2 runs in"), std::string::npos);

    const std::string copy = test::fresh_db("cli-history-copy.sqlite");
    auto import = run_cli("history import " + db + " --db " + copy);
    ASSERT_EQ(import.exit_code, 0) << import.err;
    EXPECT_NE(import.out.find("imported 2 runs"), std::string::npos) << import.out;
    EXPECT_NE(run_cli("history import " + db + " --db " + copy).out.find("imported 0 runs"), std::string::npos);
    EXPECT_EQ(run_cli("history vacuum --db " + copy).exit_code, 0);
}

TEST(HistoryCli, BundleExportListImport) {
    const std::string db = test::fresh_db("cli-bundle-source.sqlite");
    auto run = run_cli("run --gen rooms --size 48 --variant astar.cpu,jps.cpu,bfs.cpu --record --db " + db);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string bundle = test::temp_path("cli-runs.psbundle");
    auto exported = run_cli("history export --format bundle --out " + bundle + " 1 2 --db " + db);
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    EXPECT_NE(exported.out.find("wrote 2 runs to " + bundle), std::string::npos) << exported.out;
    auto list = run_cli("history --db " + bundle);
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("2 runs in"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("jps.cpu"), std::string::npos);
    EXPECT_EQ(list.out.find("bfs.cpu"), std::string::npos) << "only the runs asked for";
    auto show = run_cli("history show 2 --db " + bundle);
    EXPECT_NE(show.out.find("recording path"), std::string::npos) << show.out;
    const std::string target = test::fresh_db("cli-bundle-target.sqlite");
    auto imported = run_cli("history import " + bundle + " --db " + target);
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
    EXPECT_NE(imported.out.find("imported 2 runs"), std::string::npos) << imported.out;
    // An unknown run, and a bundle without a file name, exit with 2 and say why.
    auto unknown = run_cli("history export --format bundle --out " + bundle + " 9 --db " + db);
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("no run 9"), std::string::npos) << unknown.err;
    EXPECT_EQ(run_cli("history --db " + bundle).out.find("2 runs in") != std::string::npos, true) << "kept";
    auto no_out = run_cli("history export --format bundle 1 --db " + db);
    EXPECT_EQ(no_out.exit_code, 2);
    EXPECT_NE(no_out.err.find("--out"), std::string::npos) << no_out.err;
}

TEST(HistoryCli, BadHistoriesAndArgumentsExitWithTwo) {
    const std::string text_file = test::temp_path("cli-not-a-db.txt");
    test::write_bytes(text_file, "not a database");
    const std::string db = test::fresh_db("cli-bad.sqlite");
    struct Case {
        std::string args, message;
    };
    const Case cases[] = {
        {"run --gen empty --size 8 --variant astar.cpu --db " + text_file, "not a PathScope history"},
        {"history --db " + text_file, "not a PathScope history"},
        {"history --db " + test::temp_path("missing-dir/none.sqlite"), "no history"},
        {"history show 99 --db " + db, "no run 99"},
        {"history show abc --db " + db, "not a run id"},
        {"history export --db " + db, "--format csv, json or bundle"},
        {"history export --format csv 5 --db " + db, "no run 5"},
        {"history delete --db " + db, "ids"},
        {"history delete 12 --db " + db, "matched no run"},
        {"history frobnicate --db " + db, "unknown subcommand"},
        {"history --since yesterday --db " + db, "YYYY-MM-DD"},
        {"history --bogus --db " + db, "unknown option"},
    };
    ASSERT_EQ(run_cli("history vacuum --db " + db).exit_code, 0);  // creates an empty history
    for (const auto& c : cases) {
        auto r = run_cli(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << " -> " << r.err;
    }
    EXPECT_EQ(test::file_bytes(text_file), "not a database");
}

}  // namespace
}  // namespace ps
