// Remote targets through the protocol (kernels/remote): a local-subprocess target (the built
// pathscope-cli serve) runs CPU variants end to end, and what comes back equals a local run of
// the same request, recordings, levels and timeline included, stored in the local history; a
// cancel stops the remote run; a server killed mid-run is a clear error with nothing stored;
// malformed, unknown, oversize and wrong-version requests get error replies and the server goes
// on serving; a target speaking another version is refused naming both.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/remote/target.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

std::shared_ptr<remote::RemoteTarget> local_target(const std::string& prefix = "") {
    remote::TargetSpec spec;
    spec.prefix = prefix;
    spec.remote_cli = PATHSCOPE_CLI;
    remote::ConnectOptions options;
    options.client_build = "test";
    auto t = remote::RemoteTarget::connect(spec, options);
    EXPECT_TRUE(t) << (t ? "" : t.error().message);
    return t ? *t : nullptr;
}

RunRequest request_for(const std::string& variant, std::shared_ptr<const GridMap> map, bool eight = true) {
    RunRequest r;
    r.variant_id = variant;
    r.problem.map = std::move(map);
    r.problem.rules.connectivity = eight ? Connectivity::Eight : Connectivity::Four;
    r.problem.start = r.problem.map->index(0, 0);
    r.problem.goal = r.problem.map->index(r.problem.map->width() - 1, r.problem.map->height() - 1);
    r.repeat = 2;
    r.context.record = true;
    r.context.trace = trace::TraceLevel::Light;
    return r;
}

std::shared_ptr<const GridMap> open_map(int n) {
    GeneratorParams p;
    p.kind = GeneratorKind::Empty;
    p.width = p.height = n;
    return std::make_shared<const GridMap>(generate_map(p).value());
}

std::size_t count_kind(const trace::Timeline& t, trace::EventKind kind) {
    std::size_t n = 0;
    for (const auto& e : t.events) n += e.kind == kind;
    return n;
}

TEST(RemoteTarget, LocalSubprocessRunsEqualALocalRun) {
    const auto target = local_target();
    ASSERT_TRUE(target);
    EXPECT_FALSE(target->site().host.empty());
    EXPECT_EQ(target->hello().protocol, remote::kProtocolVersion);
    EXPECT_TRUE(target->variant("astar.cpu"));
    EXPECT_FALSE(target->variant("no.such.variant"));

    const auto map = test::shared_map({
        "..........",
        ".######...",
        "......#...",
        "..#...#...",
        "..#.......",
    });
    std::vector<RunRequest> requests = {request_for("astar.cpu", map), request_for("astar.cpu.bidir", map),
                                        request_for("bfs.cpu.queue", map, false), request_for("flowfield.cpu", map)};
    RunRequest batch = request_for("batch.cpu", map);
    batch.problem.agents = {{map->index(0, 0), map->index(9, 4)}, {map->index(3, 3), map->index(9, 0)}};
    // One worker on both sides: with two, a worker's track appears only where it took an agent,
    // which the scheduler decides (3 tracks here and 4 there failed a CI run).
    batch.problem.params["threads"] = "1";
    requests.push_back(batch);
    for (RunRequest local : requests) {
        SCOPED_TRACE(local.variant_id);
        const RunReport here = run_variant(local);
        RunRequest there_request = local;
        there_request.executor = target;
        double last_progress = -1;
        struct Progress final : RunObserver {
            double* last;
            explicit Progress(double* l) : last(l) {}
            void on_progress(double f) override { *last = f; }
        } progress(&last_progress);
        const RunReport there = run_variant(there_request, &progress);
        ASSERT_EQ(there.result.status, RunStatus::Ok) << there.result.message;
        EXPECT_EQ(last_progress, 1.0);
        EXPECT_EQ(there.info.id, local.variant_id);
        EXPECT_EQ(there.result.validation, here.result.validation);
        EXPECT_EQ(there.result.found, here.result.found);
        EXPECT_EQ(there.result.cost, here.result.cost);
        EXPECT_EQ(there.result.path, here.result.path);
        EXPECT_EQ(there.result.expanded, here.result.expanded);
        EXPECT_EQ(there.result.levels, here.result.levels);
        EXPECT_EQ(there.result.bfs_levels, here.result.bfs_levels);
        EXPECT_EQ(there.result.flow_dirs, here.result.flow_dirs);
        EXPECT_EQ(there.result.agent_costs, here.result.agent_costs);
        EXPECT_EQ(there.result.agent_steps, here.result.agent_steps);
        EXPECT_EQ(there.samples.size(), 2u);
        EXPECT_EQ(there.stats.total.n, 2u);
        ASSERT_EQ(bool(there.result.recording), bool(here.result.recording));
        if (here.result.recording) {
            ASSERT_EQ(there.result.recording->events.size(), here.result.recording->events.size());
            for (std::size_t i = 0; i < here.result.recording->events.size(); ++i) {
                const auto &a = there.result.recording->events[i], &b = here.result.recording->events[i];
                ASSERT_TRUE(a.vertex == b.vertex && a.step == b.step && a.kind == b.kind && a.direction == b.direction)
                    << "event " << i;
            }
            EXPECT_EQ(there.result.recording->steps, here.result.recording->steps);
        }
        for (const auto& [name, value] : here.result.counters)
            if (name.find("_ms") == std::string::npos) {
                EXPECT_EQ(there.result.counters.count(name), 1u) << name;
            }
        // Traced there: the same phases on the same tracks as here.
        ASSERT_TRUE(there.timeline && here.timeline);
        EXPECT_EQ(count_kind(*there.timeline, trace::EventKind::HostPhase),
                  count_kind(*here.timeline, trace::EventKind::HostPhase));
        EXPECT_EQ(there.timeline->tracks.size(), here.timeline->tracks.size());
        EXPECT_EQ(bool(there.agent_load), bool(here.agent_load));
        EXPECT_EQ(there.result.agent_spans.start_ns.size(), here.result.agent_spans.start_ns.size());
    }
    // The map crossed once: the target keeps it by hash for the next requests.
}

TEST(RemoteTarget, WeightedTerrainTravelsWithItsCosts) {
    const auto target = local_target();
    ASSERT_TRUE(target);
    // Through the 9 costs 10, around it 2 sqrt2: a target that lost the costs would go straight.
    const auto map = test::shared_map({"191", "...", "..."});
    ASSERT_TRUE(target->variant("astar.cpu")->cell_costs);
    EXPECT_FALSE(target->variant("bfs.cpu.queue")->cell_costs);
    RunRequest local = request_for("astar.cpu", map);
    local.problem.goal = map->index(2, 0);
    const RunReport here = run_variant(local);
    RunRequest there_request = local;
    there_request.executor = target;
    const RunReport there = run_variant(there_request);
    ASSERT_EQ(there.result.status, RunStatus::Ok) << there.result.message;
    EXPECT_DOUBLE_EQ(there.result.cost, 2 * kSqrt2);
    EXPECT_EQ(there.result.cost, here.result.cost);
    EXPECT_EQ(there.result.path, here.result.path);
    // The target refuses what ignores costs, as a local run does.
    RunRequest bfs = request_for("bfs.cpu.queue", map, false);
    bfs.executor = target;
    const RunReport refused = run_variant(bfs);
    EXPECT_NE(refused.result.message.find("ignores cell costs"), std::string::npos) << refused.result.message;
}

TEST(RemoteTarget, RunsAreStoredInTheLocalHistoryWithTheTargetsHost) {
    const auto target = local_target();
    ASSERT_TRUE(target);
    const std::string path = test::temp_path("remote.sqlite");
    std::remove(path.c_str());
    auto history = db::History::open(path);
    ASSERT_TRUE(history) << history.error().message;
    db::HistoryRecorder recorder(*history);
    RunRequest r = request_for("bfs.cpu.queue", open_map(40), false);
    r.executor = target;
    const RunReport report = run_variant(r, &recorder);
    recorder.record(r, report);
    ASSERT_FALSE(recorder.error()) << recorder.error()->message;
    auto runs = history->list_runs();
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ((*runs)[0].info.host, target->site().host);
    EXPECT_EQ((*runs)[0].info.variant, "bfs.cpu.queue");
    EXPECT_EQ((*runs)[0].summary.status, "ok");
    auto levels = history->load_recording((*runs)[0].id, db::kBfsLevelsKind);
    ASSERT_TRUE(levels) << levels.error().message;
    EXPECT_EQ(db::decode_bfs_levels(*levels).value(), report.result.bfs_levels);
    auto details = history->load_run((*runs)[0].id);
    ASSERT_TRUE(details);
    EXPECT_GT(details->event_count, 0u);  // the timeline traced there
}

TEST(RemoteTarget, CancelStopsTheRemoteRunAndTheTargetServesOn) {
    const auto target = local_target();
    ASSERT_TRUE(target);
    RunRequest r = request_for("bfs.cpu", open_map(1024), false);
    r.repeat = 100000;  // minutes of work
    r.context.record = false;
    r.context.trace = trace::TraceLevel::Off;
    std::atomic<bool> cancel{false};
    r.context.cancel = &cancel;
    r.executor = target;
    const auto t0 = std::chrono::steady_clock::now();
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancel = true;
    });
    const RunReport report = run_variant(r);
    stopper.join();
    EXPECT_EQ(report.result.status, RunStatus::Cancelled) << report.result.message;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    RunRequest next = request_for("astar.cpu", open_map(20));
    next.executor = target;
    EXPECT_EQ(run_variant(next).result.status, RunStatus::Ok);
}

TEST(RemoteTarget, ServerKilledMidRunIsAClearErrorAndNothingIsStored) {
    // The prefix kills the server one second in, as a dropped ssh session would end it.
    const auto target = local_target("timeout -s KILL 1");
    ASSERT_TRUE(target);
    const std::string path = test::temp_path("remote-killed.sqlite");
    std::remove(path.c_str());
    auto history = db::History::open(path);
    ASSERT_TRUE(history);
    db::HistoryRecorder recorder(*history);
    RunRequest r = request_for("bfs.cpu", open_map(1024), false);
    r.repeat = 100000;
    r.context.trace = trace::TraceLevel::Off;
    r.executor = target;
    const RunReport report = run_variant(r, &recorder);
    recorder.record(r, report);
    EXPECT_EQ(report.result.status, RunStatus::Error);
    EXPECT_TRUE(report.connection_failed);
    EXPECT_NE(report.result.message.find("lost mid-run"), std::string::npos) << report.result.message;
    EXPECT_EQ(history->list_runs()->size(), 0u);
    // The target is unusable now, and says so.
    const RunReport again = run_variant(r);
    EXPECT_TRUE(again.connection_failed);
    EXPECT_NE(again.result.message.find("not connected"), std::string::npos) << again.result.message;
}

// A serve process spoken to byte by byte.
struct RawServer {
    pid_t pid = -1;
    int to = -1, from = -1;
    explicit RawServer(const std::string& extra = "") {
        int a[2], b[2];
        EXPECT_EQ(::pipe(a), 0);
        EXPECT_EQ(::pipe(b), 0);
        pid = ::fork();
        if (pid == 0) {
            ::dup2(a[0], 0);
            ::dup2(b[1], 1);
            ::close(a[1]);
            ::close(b[0]);
            const std::string cmd = std::string(PATHSCOPE_CLI) + " serve " + extra;
            ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(a[0]);
        ::close(b[1]);
        to = a[1];
        from = b[0];
    }
    ~RawServer() {
        ::close(to);
        int status = 0;
        ::waitpid(pid, &status, 0);
        ::close(from);
    }
    void write(const std::string& bytes) const {
        ASSERT_EQ(::write(to, bytes.data(), bytes.size()), ssize_t(bytes.size()));
    }
};

TEST(ServeProtocol, BadRequestsGetErrorRepliesAndTheServerServesOn) {
    std::signal(SIGPIPE, SIG_IGN);
    RawServer server("--max-request-mb 1");
    remote::MessageReader in(server.from, {}, false);
    auto reply = [&] {
        auto r = in.next();
        EXPECT_EQ(r.status, remote::MessageReader::Status::Ok) << r.error;
        return r.message;
    };
    auto code_of = [](const remote::Message& m) { return m.field("code") ? m.field("code")->string_or("") : ""; };
    auto text_of = [](const remote::Message& m) { return m.field("message") ? m.field("message")->string_or("") : ""; };

    server.write("this is not json\n");
    auto m = reply();
    EXPECT_EQ(m.type(), "error");
    EXPECT_EQ(code_of(m), "malformed");

    server.write("{\"type\":\"format-disk\"}\n");
    m = reply();
    EXPECT_EQ(code_of(m), "unknown");

    server.write(std::string(2 << 20, 'x') + "\n");  // a 2 MiB line: over the 1 MiB header limit
    m = reply();
    EXPECT_EQ(code_of(m), "too_large");

    // Blobs over the request limit (1 MiB here) are read and dropped: the stream stays in step.
    server.write("{\"type\":\"run\",\"id\":7,\"blobs\":[{\"name\":\"cells\",\"bytes\":2097152}]}\n" +
                 std::string(2 << 20, '\0'));
    m = reply();
    EXPECT_EQ(code_of(m), "too_large");

    server.write("{\"type\":\"hello\",\"protocol\":99}\n");
    m = reply();
    EXPECT_EQ(code_of(m), "version");
    EXPECT_NE(text_of(m).find("protocol 1"), std::string::npos) << text_of(m);
    EXPECT_NE(text_of(m).find("99"), std::string::npos) << text_of(m);

    server.write(
        "{\"type\":\"run\",\"id\":8,\"variant\":\"astar.cpu\",\"map\":{\"width\":70000,\"height\":2,\"hash\":\"x\"}}"
        "\n");
    m = reply();
    EXPECT_EQ(code_of(m), "bad_request");
    EXPECT_NE(text_of(m).find("65535"), std::string::npos) << text_of(m);

    server.write(
        "{\"type\":\"run\",\"id\":9,\"variant\":\"astar.cpu\",\"map\":{\"width\":4,\"height\":4,\"hash\":\"nope\"}}\n");
    m = reply();
    EXPECT_EQ(code_of(m), "map_unknown");

    server.write(
        "{\"type\":\"run\",\"id\":10,\"variant\":\"rm -rf\",\"map\":{\"width\":1,\"height\":1},"
        "\"blobs\":[{\"name\":\"cells\",\"bytes\":1}]}\n" +
        std::string(1, '\1'));
    m = reply();
    EXPECT_EQ(code_of(m), "unknown_variant");

    // Still serving.
    server.write("{\"type\":\"hello\",\"protocol\":1}\n");
    m = reply();
    EXPECT_EQ(m.type(), "hello");
    auto hello = remote::read_hello(m);
    ASSERT_TRUE(hello);
    EXPECT_FALSE(hello->variants.empty());
    server.write("{\"type\":\"bye\"}\n");
}

TEST(RemoteTarget, ATargetOfAnotherVersionIsRefusedNamingBoth) {
    // A stand-in for a newer pathscope-cli: says hello in protocol 99, then waits.
    const std::string script = test::temp_path("newer-cli.sh");
    {
        std::ofstream f(script);
        f << "#!/bin/sh\nprintf '{\"type\":\"hello\",\"protocol\":99,\"build\":\"f00d\"}\\n'\ncat >/dev/null\n";
    }
    ::chmod(script.c_str(), 0755);
    remote::TargetSpec spec;
    spec.remote_cli = script;
    remote::ConnectOptions options;
    options.client_build = "c0ffee";
    auto t = remote::RemoteTarget::connect(spec, options);
    ASSERT_FALSE(t);
    const std::string& text = t.error().message;
    EXPECT_NE(text.find("protocol 99 (build f00d)"), std::string::npos) << text;
    EXPECT_NE(text.find("this side 1 (build c0ffee)"), std::string::npos) << text;

    // A command that is not there: its exit status says so.
    spec.remote_cli = "/nonexistent/pathscope-cli";
    auto missing = remote::RemoteTarget::connect(spec, options);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("not found"), std::string::npos) << missing.error().message;
}

// A sweep split across two targets: each job runs its share of the bench there, and every run
// lands in the one history, under the one bench id, as if the sweep had run in one piece.
TEST(RemoteTarget, ABenchSweepSplitAcrossTargetsMergesIntoOneHistory) {
    const std::string path = test::temp_path("sweep.sqlite");
    std::remove(path.c_str());
    const std::string cli = PATHSCOPE_CLI;
    const auto r = test::run_cli(
        "bench --family astar --sizes 24,40 --grids random --repeat 1 --warmup 0 "
        "--variant astar.cpu,dijkstra.cpu,astar.cpu.bidir --target '' --target '' "
        "--remote-cli " +
        cli + " --db " + path);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("job 1/2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("job 2/2"), std::string::npos) << r.out;
    auto history = db::History::open(path);
    ASSERT_TRUE(history);
    auto runs = history->list_runs();
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 6u);  // 2 sizes x 3 variants, each once
    std::set<std::string> benches, points;
    for (const auto& run : *runs) {
        benches.insert(run.info.bench_id);
        points.insert(run.info.variant + "@" + std::to_string(run.map_width));
        EXPECT_EQ(run.summary.status, "ok");
    }
    EXPECT_EQ(benches.size(), 1u);
    EXPECT_EQ(points.size(), 6u);
}

}  // namespace
}  // namespace ps
