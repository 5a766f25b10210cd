// pathscope-cli's remote targets (cli_target.hpp).
#include "app/cli_target.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app/bench_store.hpp"

#include "app/cli_text.hpp"
#include "database/history.hpp"
#include "database/recorder.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/remote/server.hpp"

namespace ps::cli {

Expected<std::shared_ptr<remote::RemoteTarget>> open_target(const Args& args) {
    const auto prefix = args.get("target");
    if (!prefix) {
        if (args.has("remote-cli")) return Error{"--remote-cli names the program on a --target"};
        return std::shared_ptr<remote::RemoteTarget>();
    }
    remote::TargetSpec spec;
    spec.prefix = *prefix;
    if (auto cli = args.get("remote-cli")) spec.remote_cli = *cli;
    remote::ConnectOptions options;
    options.client_build = db::build_commit();
    auto target = remote::RemoteTarget::connect(spec, options);
    if (!target) return target.error();
    const ExecutionSite& site = (*target)->site();
    std::fprintf(args.has("json") ? stderr : stdout, "target %s: host %s, %s, build %s\n", spec.label().c_str(),
                 site.host.c_str(),
                 site.gpu_available ? site.gpu_name.c_str() : ("no GPU (" + site.gpu_reason + ")").c_str(),
                 site.build_commit.c_str());
    return target;
}

std::string where_runs_go(const Executor* executor) {
    if (!executor) return describe(gpu_info());
    const ExecutionSite& s = executor->site();
    return "on host " + s.host + ": " + (s.gpu_available ? s.gpu_name : "no GPU (" + s.gpu_reason + ")");
}

int cmd_serve(const Args& args) {
    remote::ServeOptions options;
    auto max_mb = args.integer("max-request-mb", std::int64_t(options.limits.max_request_bytes >> 20), 1, 1 << 20);
    if (!max_mb) return bad_input(max_mb.error().message);
    options.limits.max_request_bytes = std::uint64_t(*max_mb) << 20;
    options.build_commit = db::build_commit();
    ExecutionSite& site = options.site;
    site.host = db::host_name();
    site.cpu_model = db::cpu_model();
    site.build_commit = options.build_commit;
    const GpuInfo& gpu = gpu_info();
    site.gpu_available = gpu.available;
    site.gpu_name = gpu.name;
    site.gpu_reason = gpu.reason;
    site.driver_version = gpu.driver_version;
    site.runtime_version = gpu.runtime_version;
    return remote::serve(STDIN_FILENO, STDOUT_FILENO, options);
}

Expected<Shard> shard_of(const Args& args) {
    Shard shard;
    const auto text = args.get("shard");
    if (!text) return shard;
    const auto slash = text->find('/');
    try {
        if (slash == std::string::npos) throw std::invalid_argument("no slash");
        shard.k = std::stoul(text->substr(0, slash));
        shard.n = std::stoul(text->substr(slash + 1));
    } catch (const std::exception&) {
        return Error{"--shard takes K/N (job K of N, from 0), got '" + *text + "'"};
    }
    if (shard.n < 1 || shard.k >= shard.n) return Error{"--shard K/N needs 0 <= K < N, got '" + *text + "'"};
    return shard;
}

Expected<BenchRuns> bench_runs(const Args& args) {
    BenchRuns runs;
    auto target = open_target(args);
    if (!target) return target.error();
    runs.executor = *target;
    auto shard = shard_of(args);
    if (!shard) return shard.error();
    runs.shard = *shard;
    runs.record = args.has("record");
    return runs;
}

int run_bench_across_targets(const Args& args) {
    const std::vector<std::string> targets = args.all("target");
    const auto db_path = args.get("db");
    if (!db_path) return bad_input("bench with several --target needs --db F: each job's runs are merged there");
    if (args.has("shard") || args.has("bench-id")) return bad_input("--shard and --bench-id are set per job");
    const std::string family = args.get("family").value_or("bfs");
    const std::string bench_id = BenchStore::new_bench_id(family);
    char dir_template[] = "/tmp/pathscope-sweep-XXXXXX";
    if (!::mkdtemp(dir_template)) return bad_input("cannot make a folder for the jobs' histories in /tmp");
    const std::filesystem::path dir(dir_template);

    // The same bench, minus what differs per job.
    std::vector<std::string> common = {"bench"};
    for (const std::string& name : args.names()) {
        if (name == "target" || name == "db" || name == "csv") continue;
        const auto values = args.all(name);
        if (values.empty()) common.push_back("--" + name);
        for (const std::string& v : values) {
            if (v.empty()) {
                common.push_back("--" + name);
            } else {
                common.push_back("--" + name);
                common.push_back(v);
            }
        }
    }
    if (args.has("csv"))
        std::printf("note: --csv is not written by a split sweep; export the bench from %s\n", db_path->c_str());
    std::printf("bench %s split into %zu jobs, one per target; runs merge into %s as each job ends\n", bench_id.c_str(),
                targets.size(), db_path->c_str());
    std::fflush(stdout);
    std::map<pid_t, std::size_t> running;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        std::vector<std::string> argv = common;
        for (const std::string& extra :
             {std::string("--target"), targets[i], std::string("--shard"),
              std::to_string(i) + "/" + std::to_string(targets.size()), std::string("--bench-id"), bench_id,
              std::string("--db"), (dir / ("job" + std::to_string(i) + ".sqlite")).string()})
            argv.push_back(extra);
        const std::string log = (dir / ("job" + std::to_string(i) + ".log")).string();
        const pid_t pid = ::fork();
        if (pid < 0) return bad_input("cannot start a job: " + std::string(std::strerror(errno)));
        if (pid == 0) {
            std::FILE* out = std::freopen(log.c_str(), "w", stdout);
            if (out) ::dup2(::fileno(out), 2);
            std::vector<char*> raw;
            for (std::string& a : argv) raw.push_back(a.data());
            raw.insert(raw.begin(), const_cast<char*>("pathscope-cli"));
            raw.push_back(nullptr);
            ::execv("/proc/self/exe", raw.data());
            ::_exit(127);
        }
        running[pid] = i;
    }
    int exit_code = kOk;
    while (!running.empty()) {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0) break;
        const auto it = running.find(pid);
        if (it == running.end()) continue;
        const std::size_t i = it->second;
        running.erase(it);
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
        remote::TargetSpec spec;
        spec.prefix = targets[i];
        std::printf("== job %zu/%zu on %s ended (exit %d):\n", i + 1, targets.size(), spec.label().c_str(), code);
        std::ifstream log(dir / ("job" + std::to_string(i) + ".log"));
        std::cout << log.rdbuf();
        const auto job_db = dir / ("job" + std::to_string(i) + ".sqlite");
        if (std::filesystem::exists(job_db)) {
            auto history = db::History::open(*db_path);
            auto merged = history ? history->import_from(job_db.string()) : Expected<std::size_t>(history.error());
            if (merged)
                std::printf("  merged %zu runs into %s\n", *merged, db_path->c_str());
            else
                std::printf("  its runs could not be merged: %s (they stay in %s)\n", merged.error().message.c_str(),
                            job_db.string().c_str());
            if (!merged && exit_code == kOk) exit_code = kBadInput;
        }
        std::fflush(stdout);
        if (code != kOk && (exit_code == kOk || code == kBadInput)) exit_code = code;
    }
    if (exit_code == kOk) std::filesystem::remove_all(dir);  // merged: the jobs' files are copies now
    std::printf("bench %s: every job ended; `pathscope --export-speedup %s --db %s` plots it\n", bench_id.c_str(),
                bench_id.c_str(), db_path->c_str());
    return exit_code;
}

}  // namespace ps::cli
