// `bench --db F` storage shared by the bench families (bfs, astar, batch): every run of a
// sweep is stored under one bench id ("<family>-<unix seconds>"), so it can be plotted and
// compared later (GUI, `pathscope --export-speedup ID`).
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "app/cli_args.hpp"
#include "app/cli_history.hpp"
#include "kernels/runner.hpp"

namespace ps::cli {

class BenchStore {
public:
    static Expected<BenchStore> open(const Args& args, const std::string& family) {
        auto storage = RunStorage::open(args);
        if (!storage) return storage.error();
        BenchStore store(std::move(storage).value());
        if (db::HistoryRecorder* recorder = store.recorder()) {
            const auto now = std::chrono::system_clock::now().time_since_epoch();
            store.m_bench_id =
                family + "-" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now).count());
            recorder->set_bench_id(store.m_bench_id);
        }
        return store;
    }
    db::HistoryRecorder* recorder() { return m_storage.observer(); }

    // Runs one bench row (any struct with report, status and note) through the orchestrator
    // and stores it; a failed or invalid run sets `exit_code` to 1. The storage error, if any.
    template <class Row>
    std::optional<std::string> run_row(Row& row, const RunRequest& request, int& exit_code) {
        row.report = run_variant(request, recorder());
        if (db::HistoryRecorder* r = recorder()) {
            r->record(request, row.report);
            if (const auto& error = r->error()) return "storing the bench: " + error->message;
            ++m_stored;
        }
        row.status = row.report.result.status == RunStatus::Ok ? "ok" : "error";
        row.note = row.report.result.message;
        if (row.status != "ok" || row.report.result.validation == Validation::Failed) exit_code = 1;
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
