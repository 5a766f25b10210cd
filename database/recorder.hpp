// Stores runs into the history while the orchestrator runs them: HistoryRecorder is a
// RunObserver (the CLI's `run --db`, later the GUI worker), so variants never see SQLite.
// Also the rows it writes and their inverses (a stored row back into a request and a result),
// and the byte layouts of the recordings it writes, with encoders and decoders.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "database/history.hpp"
#include "kernels/run/runner.hpp"

namespace ps::db {

// Recording kinds; their byte layouts are in kernels/base/recording.hpp (the remote protocol
// sends the same bytes).
inline constexpr const char* kBfsLevelsKind = "bfs_levels";
inline constexpr const char* kSearchEventsKind = "search_events";
inline constexpr const char* kPathKind = "path";  // stored beside a recording: the replay ends on it

using ps::decode_bfs_levels;
using ps::decode_path;
using ps::decode_search_events;
using ps::encode_bfs_levels;
using ps::encode_path;
using ps::encode_search_events;

// Timeline events as stored rows: kind and track kind by name, the rest of each event in a
// small JSON payload {"track_kind":"gpu-stream","level":3,"grid":[1,1,1],"block":[256,1,1],
// "bytes":0,"depth":0,"device_launched":false}. decode_timeline(encode_timeline(t)) == t up to
// track order.
std::vector<TimelineEvent> encode_timeline(const trace::Timeline& timeline);
trace::Timeline decode_timeline(const std::vector<TimelineEvent>& rows);

// The commit this binary was configured from (git rev-parse --short HEAD), or "unknown".
std::string build_commit();
// "model name" of /proc/cpuinfo, or "unknown CPU".
std::string cpu_model();
std::string host_name();

struct RecorderOptions {
    // Provenance of generated maps, stored with the map ("--gen noise --size 512 ...").
    std::string generator;
    std::optional<std::uint64_t> seed;
    std::string bench_id;
    // Larger recordings (raw bytes) are not stored: a 30000^2 BFS would add 3.6 GB per run.
    std::uint64_t max_recording_bytes = 64ull << 20;
};

// What begin_run stores for a request: variant, rules as JSON, endpoints, device (the GPU for
// GPU variants, else the CPU model), driver/runtime versions, host and build.
RunInfo run_info_for(const RunRequest& request, const VariantInfo& info, std::int64_t map_id,
                     const RecorderOptions& options = {});
RunSummary run_summary_for(const RunReport& report);

// The inverses, for re-running and replaying stored runs. The request a run was made with, from
// `row.info.params_json` (movement rules, cost mode, heuristic, BFS stop flag, repetitions,
// validation, recording, variant parameters), its warm-ups and endpoints, on `map` (an endpoint
// outside it, or no map, leaves the vertex unset). Missing fields, or fields of another type,
// keep the defaults, so older and newer writers' runs load; text that is not a JSON object is an
// error naming the run and what is wrong where.
Expected<RunRequest> request_from_row(const RunRow& row, std::shared_ptr<const GridMap> map);
// What the row holds of the run's result: status, message, validation, found / cost / expanded /
// levels / visited, and the median total and compute times as its phases. Paths and recordings
// are not in the row.
RunResult result_from_row(const RunRow& row);

// A stored BFS run's edges visited per expanded level (kernels/run/edges_visited.hpp), counted
// again from its map, its bfs_levels recording and its stored movement rules, as `run` counted
// them: what the per-level MTEPS of `history show`, `trace diff` and the window read beside the
// timeline. An error saying why where a run cannot tell (not a BFS run, no levels recording,
// levels of fewer cells than it visited, as a bidirectional search's half, or a count that
// disagrees with the edges visited stored with it).
Expected<std::vector<std::uint64_t>> stored_level_edges(const History& history, const RunRow& row);

class HistoryRecorder : public RunObserver {
public:
    explicit HistoryRecorder(History& history, RecorderOptions options = {});

    void set_map_provenance(std::string generator, std::optional<std::uint64_t> seed);
    // Groups the following runs as one bench sweep.
    void set_bench_id(std::string bench_id) { m_options.bench_id = std::move(bench_id); }

    // Saves the map and begins the run (status "running").
    void on_started(const RunRequest& request, const VariantInfo& info) override;
    void on_sample(int repetition, const PhaseTimes& phases, const RunResult& result) override;
    // Writes the samples, the recording and the summary.
    void on_finished(const RunRequest& request, const RunReport& report) override;

    // The runner calls on_finished only for runs that completed, and nothing at all for a run
    // refused up front (unknown variant, no GPU, bad problem): call this after every
    // run_variant so those are stored too, with their status and message. Does nothing more
    // for a run on_finished stored already.
    void record(const RunRequest& request, const RunReport& report);

    // The id of the run stored last, once begun.
    std::optional<std::int64_t> run_id() const { return m_run_id; }
    // Why storing the last run failed (a full disk, a locked file, ...); the run itself is
    // unaffected: storing never throws into the runner.
    const std::optional<Error>& error() const { return m_error; }

private:
    enum class State { Idle, Started, Finished };
    void begin(const RunRequest& request, const VariantInfo& info);
    void finish(const RunReport& report);
    bool check(Expected<void> result);

    History& m_history;
    RecorderOptions m_options;
    State m_state = State::Idle;
    std::optional<std::int64_t> m_run_id;
    std::optional<Error> m_error;
    std::vector<PhaseSample> m_samples;
    // Held, not just its address, so a later map can never reuse the pointer of a saved one.
    std::shared_ptr<const GridMap> m_saved_map;
    std::int64_t m_saved_map_id = 0;
};

}  // namespace ps::db
