// The run history: one SQLite file keeping maps, runs, per-repetition phase timings, result
// summaries, timeline events and animation recordings, so runs can be compared, re-run,
// plotted and exported later, and a file made on a GPU machine opens on a laptop.
// Qt-free (SQLite C API). Every fallible call returns Expected with a message that says what
// happened to which file; a failed open never modifies the file. ErrorKind::Io where the file or
// the disk failed (missing, unreadable, read-only, locked, full), Invalid where what the file
// holds is wrong (not a history, newer, damaged) or the request is (an unknown run).
//
// Schema (PRAGMA user_version = kSchemaVersion, PRAGMA application_id = kApplicationId):
//   maps(id, hash UNIQUE, name, width, height, generator, seed, cells, created_unix_ms)
//       cells: zlib of the cells packed one bit per cell (codec.hpp); hash: SHA-256 of
//       width, height and the packed cells.
//   runs(id, map_id -> maps, created_unix_ms, finished_unix_ms, every RunInfo and RunSummary
//       field, repetitions and total/compute mean/median kept up to date by add_samples,
//       bench_id (schema 2), origin_id UNIQUE (schema 3))
//   samples(run_id -> runs CASCADE, repetition, allocate/upload/compute/download/total ms)
//   events(run_id -> runs CASCADE, seq, kind, name, track, start_ns, end_ns, correlation_id,
//       payload)
//   recordings(run_id -> runs CASCADE, kind, chunk, raw_size, data): zlib chunks of
//       kRecordingChunkBytes uncompressed bytes each, so large recordings stream. A stored
//       raw_size is believed only up to one chunk, so damage cannot make a reader over-allocate.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/map/grid_map.hpp"
#include "kernels/run/runner.hpp"

namespace ps {
class JsonWriter;
}

namespace ps::db {

inline constexpr int kSchemaVersion = 4;
// "PScp": lets open() tell a PathScope history from any other SQLite file.
inline constexpr std::int32_t kApplicationId = 0x50536370;
inline constexpr std::size_t kRecordingChunkBytes = 1u << 20;

struct MapInfo {
    std::int64_t id = 0;
    std::string hash;  // content hash of width, height and cells (hex)
    std::string name;
    int width = 0, height = 0;
    std::string generator;  // e.g. "noise density=0.3 frequency=0.02", empty for files
    std::optional<std::uint64_t> seed;
};

struct PhaseSample {
    int repetition = 0;
    double allocate_ms = 0, upload_ms = 0, compute_ms = 0, download_ms = 0, total_ms = 0;
    friend bool operator==(const PhaseSample&, const PhaseSample&) = default;
};

struct TimelineEvent {
    std::string kind;  // "kernel", "memcpy", "api", "nvtx", "level", "sync", ...
    std::string name;
    std::string track;  // host thread, stream, "nvtx", "device levels"
    std::int64_t start_ns = 0, end_ns = 0;
    std::uint64_t correlation_id = 0;
    std::string payload;  // JSON text (launch config, level index, ...)
    friend bool operator==(const TimelineEvent&, const TimelineEvent&) = default;
};

// Everything known about a run when it starts.
struct RunInfo {
    std::int64_t map_id = 0;  // 0: no map (a run that failed before it had one)
    std::string variant;
    std::string family;
    std::string device_kind;  // "cpu" / "gpu"
    std::string params_json;  // rules, cost mode, heuristic, variant parameters
    int start_x = -1, start_y = -1, goal_x = -1, goal_y = -1;
    std::string device_name;  // GPU name, or the CPU model
    std::string driver_version, cuda_version;
    std::string host, build_commit;
    int warmup = 0;
    std::string bench_id;  // groups the runs of one bench sweep; empty otherwise
};

// Known when it ends.
struct RunSummary {
    // "ok", "error", "cancelled", "unavailable"; "running" while being written, and for good
    // when the writing process died (display_status() shows that as "incomplete").
    std::string status = "ok";
    std::string message;
    std::string validation = "not-run";
    std::string validation_message;
    bool found = false;
    double cost = 0;
    std::uint64_t expanded = 0;
    int levels = 0;
    std::uint64_t visited = 0;
    std::string counters_json;  // {"host_launches": 4094, ...}
};

struct RunRow {
    std::int64_t id = 0;
    // 32 hex digits naming the run across histories: 128 random bits made when the run is
    // first stored, kept by export and import. Runs stored before schema 3 get one derived
    // from their row (the same whether the file is migrated or read as it is).
    std::string origin_id;
    std::int64_t created_unix_ms = 0;
    std::int64_t finished_unix_ms = 0;  // 0 while running
    RunInfo info;
    RunSummary summary;
    std::string map_name, map_hash;
    int map_width = 0, map_height = 0;
    int repetitions = 0;
    double total_mean_ms = 0, total_median_ms = 0, compute_mean_ms = 0, compute_median_ms = 0;
};

struct RecordingInfo {
    std::string kind;
    std::uint64_t raw_bytes = 0, stored_bytes = 0;
};

struct RunDetails {
    RunRow row;
    std::vector<PhaseSample> samples;
    std::vector<TimelineEvent> events;
    std::vector<std::string> recording_kinds;
    std::vector<RecordingInfo> recordings;
    std::uint64_t event_count = 0;  // also when loaded without events
};

struct RunFilter {
    std::string map;      // substring of the map name (case-insensitive, like the others)
    std::string variant;  // substring of the variant id
    std::string device;   // substring of the device name or kind
    std::optional<std::int64_t> from_unix_ms, to_unix_ms;  // inclusive
    std::string bench_id;
    std::size_t limit = 0;  // 0 = all
};

enum class OpenMode { ReadWrite, ReadOnly };

struct OpenOptions {
    OpenMode mode = OpenMode::ReadWrite;
    // How long to wait for another process's write to finish before calling the file locked.
    int busy_timeout_ms = 5000;
};

// One History per thread: a connection is used by one thread at a time (the GUI worker opens
// its own). Several processes may write one file at once; they take turns per transaction.
class History {
public:
    // Creates the file (and its folder) when missing in ReadWrite mode; applies forward
    // migrations. Errors: not a PathScope history, newer schema, read-only, locked, corrupt.
    // The file is inspected through a read-only connection (including PRAGMA quick_check,
    // which reads the whole file) before it is ever opened for writing.
    // ReadOnly opens files of older schemas too, without migrating them.
    static Expected<History> open(const std::string& path, const OpenOptions& options);
    static Expected<History> open(const std::string& path, OpenMode mode = OpenMode::ReadWrite) {
        return open(path, OpenOptions{mode});
    }
    // $PATHSCOPE_DB, else $XDG_DATA_HOME/pathscope/history.sqlite, else ~/.local/share/...
    static std::string default_path();

    History(History&&) noexcept;
    History& operator=(History&&) noexcept;
    ~History();

    const std::string& path() const { return m_path; }
    int schema_version() const { return m_version; }
    bool read_only() const { return m_read_only; }

    // Stored once per content hash; returns the existing id for a known map.
    Expected<std::int64_t> save_map(const GridMap& map, const std::string& generator = {},
                                    std::optional<std::uint64_t> seed = std::nullopt);
    Expected<GridMap> load_map(std::int64_t map_id) const;
    Expected<std::vector<MapInfo>> list_maps() const;

    // A run is inserted with status "running" and committed at once, so a process killed
    // while storing leaves it marked incomplete, never half-visible as finished.
    Expected<std::int64_t> begin_run(const RunInfo& info);
    // Repetition numbers are unique per run. Keeps the run's repetitions and total/compute
    // mean and median up to date, so listing never aggregates samples.
    Expected<void> add_samples(std::int64_t run_id, const std::vector<PhaseSample>& samples);
    // Appends, in one transaction: a process killed meanwhile leaves none of this batch.
    Expected<void> add_events(std::int64_t run_id, const std::vector<TimelineEvent>& events);
    // Stored compressed in chunks, so a 4096^2 recording streams in and out. Replaces a
    // recording of the same kind.
    Expected<void> add_recording(std::int64_t run_id, const std::string& kind, std::span<const std::uint8_t> bytes);
    Expected<std::vector<std::uint8_t>> load_recording(std::int64_t run_id, const std::string& kind) const;
    // Streams a recording chunk by chunk (uncompressed); `sink` returns false to stop early.
    Expected<void> read_recording(std::int64_t run_id, const std::string& kind,
                                  const std::function<bool(std::span<const std::uint8_t>)>& sink) const;
    Expected<void> finish_run(std::int64_t run_id, const RunSummary& summary);

    // Newest first.
    Expected<std::vector<RunRow>> list_runs(const RunFilter& filter = {}) const;
    Expected<RunDetails> load_run(std::int64_t run_id, bool with_events = true) const;
    // Samples, events and recordings go with their runs; maps stay. Returns runs deleted.
    Expected<std::size_t> delete_runs(const std::vector<std::int64_t>& run_ids);
    // Checkpoints the write-ahead log and rebuilds the file (needs as much free space again).
    Expected<void> vacuum();

    // Empty `run_ids`: every run, oldest first. An unknown id is an error.
    // CSV: a header line, then one row per run with its summary and mean/median/min/max/sd of
    // every phase. JSON: {"format", "schema_version", "runs": [run with "samples"]}.
    Expected<void> export_csv(const std::vector<std::int64_t>& run_ids, std::ostream& out) const;
    Expected<void> export_json(const std::vector<std::int64_t>& run_ids, std::ostream& out) const;
    // Merges another history file: maps by content hash, runs by origin id, so importing twice
    // (or a run that came by way of a third history) adds nothing. Returns the number of runs
    // added. All or nothing: one transaction. Whatever the file holds (it may be crafted),
    // damage is refused with a message naming the file, never thrown; recordings are checked
    // chunk by chunk before they are copied.
    // `run_ids`: only those runs of the other file (an unknown id is an error); empty: all.
    Expected<std::size_t> import_from(const std::string& other_path, const std::vector<std::int64_t>& run_ids = {});
    // A run bundle (docs/bundle.md): a new history file at `out_path` holding only `run_ids`
    // (empty: every run) with their maps, samples, recordings and timeline events, which any
    // PathScope of this schema or newer opens (read-only) and imports. Written as "<out>.part"
    // and renamed at the end: a failure leaves an existing file at out_path as it was.
    // Returns the number of runs written.
    Expected<std::size_t> export_bundle(const std::vector<std::int64_t>& run_ids, const std::string& out_path) const;

    // For tests: writes a new history with only the first `version` migrations applied.
    static Expected<void> create_at_version(const std::string& path, int version);
    // For tests: caps the file at `pages` pages on this connection, so writes fail as on a
    // full disk (SQLITE_FULL).
    Expected<void> limit_pages(std::int64_t pages);

    struct Connection;  // sqlite3 handle and prepared-statement cache (history_internal.hpp)

private:
    History() = default;
    Expected<RunRow> run_row(std::int64_t run_id) const;
    Expected<std::vector<RunRow>> export_rows(const std::vector<std::int64_t>& run_ids) const;
    Expected<std::vector<PhaseSample>> samples_of(std::int64_t run_id) const;
    Expected<std::int64_t> insert_run(const RunRow& row);
    Expected<void> write_samples(std::int64_t run_id, const std::vector<PhaseSample>& samples);
    Expected<void> check_writable(std::int64_t run_id) const;
    Expected<std::size_t> import_runs(const History& other, const std::vector<std::int64_t>& run_ids);

    std::unique_ptr<Connection> m_conn;
    std::string m_path;
    bool m_read_only = false;
    int m_version = 0;
};

// Mean, median, min, max and SD of every phase (the runner's statistics).
PhaseStats phase_stats(const std::vector<PhaseSample>& samples);
// "running" rows whose writer is gone look the same as those still being written; users see
// both as "incomplete".
std::string_view display_status(std::string_view status);
// "2024-05-01 12:34:56" (UTC).
std::string format_utc(std::int64_t unix_ms);
// A run (and its samples when given) as one JSON object: history export and the CLI's
// `history --json` / `history show --json` share it.
void write_run_json(JsonWriter& j, const RunRow& row, const std::vector<PhaseSample>* samples);
// The same with its samples, event count and recordings (`history show --json`).
// `more`, where given, writes further fields into the run's object (the CLI's derived figures).
void write_run_json(JsonWriter& j, const RunDetails& details, const std::function<void(JsonWriter&)>& more = {});

}  // namespace ps::db
