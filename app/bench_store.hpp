// `bench --db F` storage shared by the bench families (bfs, astar, batch, scen): every run of a
// sweep is stored under one bench id ("<family>-<UTC date>-<time>-<8 random hex digits>", e.g.
// astar-20250301-142501-3fa9c2d1), so it can be plotted and compared later (GUI,
// `pathscope --export-speedup ID`). Readable and sortable by time; the random part keeps two
// benches of one second apart.
#pragma once

#include <cstdio>
#include <ctime>
#include <random>
#include <optional>
#include <string>
#include <utility>

#include "app/cli_args.hpp"
#include "app/cli_history.hpp"
#include "app/cli_text.hpp"
#include "kernels/run/runner.hpp"

namespace ps::cli {

class BenchStore {
public:
    static Expected<BenchStore> open(const Args& args, const std::string& family) {
        auto storage = RunStorage::open(args);
        if (!storage) return storage.error();
        BenchStore store(std::move(storage).value());
        if (db::HistoryRecorder* recorder = store.recorder()) {
            // One job of a sweep split across targets: the sweep's id, so the jobs merge as one bench.
            if (auto given = args.get("bench-id")) {
                recorder->set_bench_id(store.m_bench_id = *given);
                return store;
            }
            // A clash with a stored bench (1 in 4 billion per pair in one second) draws again.
            for (;;) {
                store.m_bench_id = new_bench_id(family);
                db::RunFilter filter;
                filter.bench_id = store.m_bench_id;
                filter.limit = 1;
                auto taken = store.m_storage.history()->list_runs(filter);
                if (!taken) return taken.error();
                if (taken->empty()) break;
            }
            recorder->set_bench_id(store.m_bench_id);
        }
        return store;
    }

    static std::string new_bench_id(const std::string& family) {
        const std::time_t now = std::time(nullptr);
        std::tm tm{};
        gmtime_r(&now, &tm);
        char when[32];
        std::strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
        std::random_device random;
        char suffix[16];
        std::snprintf(suffix, sizeof suffix, "%08x", unsigned(random()));
        return family + "-" + when + "-" + suffix;
    }
    db::HistoryRecorder* recorder() { return m_storage.observer(); }

    // Runs one bench row (any struct with report, status and note) through the orchestrator
    // and stores it; a failed run sets `exit_code` to kBadInput (2), an invalid one to
    // kValidationFailed (1) unless a run failed. The storage error, if any.
    template <class Row>
    std::optional<std::string> run_row(Row& row, const RunRequest& request, int& exit_code) {
        row.report = run_variant(request, recorder());
        if (auto error = store(request, row.report)) return error;
        row.status = row.report.result.status == RunStatus::Ok ? "ok" : "error";
        row.note = row.report.result.message;
        if (row.status != "ok")
            exit_code = kBadInput;
        else if (row.report.result.validation == Validation::Failed && exit_code == kOk)
            exit_code = kValidationFailed;
        return std::nullopt;
    }

    // Stores a run under the bench id (one run_row made, or one the bench put together, such as
    // the sum of many single-query runs); the storage error, if any.
    std::optional<std::string> store(const RunRequest& request, const RunReport& report) {
        if (db::HistoryRecorder* r = recorder()) {
            r->record(request, report);
            if (const auto& error = r->error()) return "storing the bench: " + error->message;
            ++m_stored;
        }
        return std::nullopt;
    }

    void print_summary() const {
        if (m_storage.history())
            std::printf("\nstored %zu runs as bench %s in %s\n", m_stored, m_bench_id.c_str(),
                        m_storage.history()->path().c_str());
    }

private:
    explicit BenchStore(RunStorage storage) : m_storage(std::move(storage)) {}
    RunStorage m_storage;
    std::string m_bench_id;
    std::size_t m_stored = 0;
};

}  // namespace ps::cli
