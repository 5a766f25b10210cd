// The run history's export (CSV, JSON) and import from another history file, and the run
// formats the CLI shares with them (see history.hpp).
#include "database/history.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <ctime>
#include <map>
#include <new>

#include "database/codec.hpp"
#include "database/history_internal.hpp"
#include "instrumentation/output/json.hpp"
#include "kernels/run/runner.hpp"

namespace ps::db {

using namespace detail;

// ---- export / import -----------------------------------------------------------------------

Expected<std::vector<RunRow>> History::export_rows(const std::vector<std::int64_t>& run_ids) const {
    if (run_ids.empty()) {
        PS_TRY(rows, list_runs());
        std::reverse(rows.begin(), rows.end());  // oldest first
        return std::move(rows);
    }
    std::vector<RunRow> rows;
    for (std::int64_t id : run_ids) {
        PS_TRY(row, run_row(id));
        rows.push_back(std::move(row));
    }
    return rows;
}

namespace {

std::string number(double v) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string();
}

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

void write_csv_line(std::ostream& out, const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << csv_field(fields[i]);
    out << "\r\n";  // RFC 4180
}

constexpr const char* kPhases[] = {"allocate", "upload", "compute", "download", "total"};
constexpr const char* kStatNames[] = {"mean", "median", "min", "max", "sd"};

}  // namespace

Expected<void> History::export_csv(const std::vector<std::int64_t>& run_ids, std::ostream& out) const {
    PS_TRY(rows, export_rows(run_ids));
    std::vector<std::string> header = {"id",
                                       "created_utc",
                                       "created_unix_ms",
                                       "status",
                                       "message",
                                       "variant",
                                       "family",
                                       "device_kind",
                                       "device_name",
                                       "driver_version",
                                       "cuda_version",
                                       "host",
                                       "build_commit",
                                       "bench_id",
                                       "map",
                                       "map_hash",
                                       "map_width",
                                       "map_height",
                                       "start_x",
                                       "start_y",
                                       "goal_x",
                                       "goal_y",
                                       "params_json",
                                       "warmup",
                                       "validation",
                                       "validation_message",
                                       "found",
                                       "cost",
                                       "expanded",
                                       "levels",
                                       "visited",
                                       "counters_json",
                                       "repetitions"};
    for (const char* phase : kPhases)
        for (const char* stat : kStatNames) header.push_back(std::string(phase) + "_" + stat + "_ms");
    write_csv_line(out, header);
    for (const RunRow& r : rows) {
        PS_TRY(samples, samples_of(r.id));
        const PhaseStats stats = phase_stats(samples);
        const RunInfo& in = r.info;
        const RunSummary& s = r.summary;
        auto n = [](auto v) { return std::to_string(v); };
        std::vector<std::string> f = {n(r.id),
                                      format_utc(r.created_unix_ms),
                                      n(r.created_unix_ms),
                                      std::string(display_status(s.status)),
                                      s.message,
                                      in.variant,
                                      in.family,
                                      in.device_kind,
                                      in.device_name,
                                      in.driver_version,
                                      in.cuda_version,
                                      in.host,
                                      in.build_commit,
                                      in.bench_id,
                                      r.map_name,
                                      r.map_hash,
                                      n(r.map_width),
                                      n(r.map_height),
                                      n(in.start_x),
                                      n(in.start_y),
                                      n(in.goal_x),
                                      n(in.goal_y),
                                      in.params_json,
                                      n(in.warmup),
                                      s.validation,
                                      s.validation_message,
                                      s.found ? "1" : "0",
                                      number(s.cost),
                                      n(s.expanded),
                                      n(s.levels),
                                      n(s.visited),
                                      s.counters_json,
                                      n(samples.size())};
        for (const Stats* st : {&stats.allocate, &stats.upload, &stats.compute, &stats.download, &stats.total})
            for (double v : {st->mean, st->median, st->min, st->max, st->sd}) f.push_back(number(v));
        write_csv_line(out, f);
    }
    if (!out) return Error{"cannot write the CSV export (disk full?)", ErrorKind::Io};
    return {};
}

Expected<void> History::export_json(const std::vector<std::int64_t>& run_ids, std::ostream& out) const {
    PS_TRY(rows, export_rows(run_ids));
    JsonWriter j(out);
    j.begin_object().field("format", "pathscope-history").field("schema_version", m_version);
    j.key("runs").begin_array();
    for (const RunRow& r : rows) {
        PS_TRY(samples, samples_of(r.id));
        write_run_json(j, r, &samples);
    }
    j.end_array().end_object();
    if (!out) return Error{"cannot write the JSON export (disk full?)", ErrorKind::Io};
    return {};
}

Expected<std::size_t> History::import_from(const std::string& other_path, const std::vector<std::int64_t>& run_ids) {
    if (m_read_only) return read_only_mode(m_path);
    auto other = History::open(other_path, OpenMode::ReadOnly);
    if (!other) return Error{"cannot import: " + other.error().message, other.error().kind};
    // The file may be anything that passes as a history: whatever it holds must come back as
    // a refusal, never as an exception (the transaction rolls back on the way out).
    try {
        auto added = import_runs(*other, run_ids);
        if (!added) return Error{"cannot import " + other_path + ": " + added.error().message, added.error().kind};
        return added;
    } catch (const std::bad_alloc&) {
        return Error{"cannot import " + other_path + ": out of memory (it holds more than this machine can load)"};
    } catch (const std::exception& e) {
        return Error{"cannot import " + other_path + ": " + e.what()};
    }
}

Expected<std::size_t> History::export_bundle(const std::vector<std::int64_t>& run_ids,
                                             const std::string& out_path) const {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::equivalent(out_path, m_path, ec)) return Error{"a bundle cannot overwrite the history it comes from"};
    for (const std::int64_t id : run_ids)
        if (auto row = run_row(id); !row) return row.error();
    const std::string part = out_path + ".part";
    auto remove_part = [&] {
        for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(part + suffix, ec);
    };
    remove_part();  // a stale one of an earlier, interrupted export
    std::size_t added = 0;
    {
        auto bundle = History::open(part);
        if (!bundle) return Error{"cannot write the bundle " + out_path + ": " + bundle.error().message};
        auto copied = bundle->import_from(m_path, run_ids);
        if (!copied) {
            remove_part();
            return copied.error();
        }
        added = *copied;
        // One self-contained file: the write-ahead log folded in.
        if (auto ok = bundle->vacuum(); !ok) {
            remove_part();
            return Error{"cannot write the bundle " + out_path + ": " + ok.error().message};
        }
    }
    // A bundle travels (mail, a course page, a read-only share): in rollback-journal mode a
    // reader needs no -wal / -shm files beside it, as a history in WAL mode would.
    {
        sqlite3* db = nullptr;
        const int rc = sqlite3_open_v2(part.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
        const bool ok =
            rc == SQLITE_OK && sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr) == SQLITE_OK;
        const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        if (!ok) {
            remove_part();
            return Error{"cannot write the bundle " + out_path + ": " + why};
        }
    }
    fs::rename(part, out_path, ec);
    if (ec) {
        remove_part();
        return Error{"cannot write the bundle " + out_path + ": " + ec.message()};
    }
    for (const char* suffix : {"-wal", "-shm"}) fs::remove(part + suffix, ec);
    return added;
}

namespace {

// A recording chunk as the source file holds it, checked before it is copied: the right type,
// a size within one chunk, and data that inflates to exactly that size.
Expected<void> check_chunk(const Query& q, std::int64_t run_id, std::int64_t expected_chunk) {
    const std::string where = "run " + std::to_string(run_id) + "'s '" + q.text(0) + "' recording";
    if (q.type(1) != SQLITE_INTEGER || q.type(2) != SQLITE_INTEGER || q.type(3) != SQLITE_BLOB)
        return Error{where + " is damaged (a chunk number, size or data of the wrong type)"};
    if (q.integer(1) != expected_chunk)
        return Error{where + " is damaged (chunk " + std::to_string(expected_chunk) + " is missing)"};
    const std::int64_t raw = q.integer(2);
    if (raw < 0 || std::uint64_t(raw) > kRecordingChunkBytes)
        return Error{where + " is damaged (a chunk claims " + std::to_string(raw) + " bytes)"};
    if (auto ok = decompress_bytes(q.blob(3), std::size_t(raw)); !ok)
        return Error{where + " is damaged: " + ok.error().message};
    return {};
}

}  // namespace

Expected<std::size_t> History::import_runs(const History& other, const std::vector<std::int64_t>& run_ids) {
    PS_TRY(all_rows, other.list_runs());
    std::vector<RunRow> rows;
    if (run_ids.empty()) {
        rows = std::move(all_rows);
    } else {
        for (const std::int64_t id : run_ids) {
            const auto it =
                std::find_if(all_rows.begin(), all_rows.end(), [id](const RunRow& r) { return r.id == id; });
            if (it == all_rows.end()) return Error{"no run " + std::to_string(id) + " in " + other.path()};
            if (std::none_of(rows.begin(), rows.end(), [id](const RunRow& r) { return r.id == id; }))
                rows.push_back(*it);
        }
        std::sort(rows.begin(), rows.end(), [](const RunRow& a, const RunRow& b) { return a.id > b.id; });
    }
    std::reverse(rows.begin(), rows.end());  // keep the order the runs were made in
    PS_TRY(maps, other.list_maps());
    std::map<std::int64_t, const MapInfo*> other_maps;
    for (const auto& m : maps) other_maps[m.id] = &m;
    std::map<std::int64_t, std::int64_t> map_ids;  // other's id -> ours

    const std::string doing = "import from " + other.path();
    PS_TRY(tx, Transaction::begin(*m_conn, doing));
    PS_TRY(exists, m_conn->prepare("SELECT 1 FROM runs WHERE origin_id = ?"));
    PS_TRY(copy_chunk, m_conn->prepare("INSERT INTO recordings (run_id, kind, chunk, raw_size, data) "
                                       "VALUES (?, ?, ?, ?, ?)"));
    PS_TRY(read_chunks, other.m_conn->prepare("SELECT kind, chunk, raw_size, data FROM recordings WHERE run_id = ? "
                                              "ORDER BY kind, chunk"));
    std::size_t added = 0;
    for (RunRow row : rows) {
        {
            Query q(exists);
            q.text(1, row.origin_id);
            const int rc = q.step();
            if (rc == SQLITE_ROW) continue;  // imported before, or made here
            if (rc != SQLITE_DONE) return m_conn->error(rc, doing);
        }
        if (row.info.map_id) {
            auto known = map_ids.find(row.info.map_id);
            if (known == map_ids.end()) {
                const auto info = other_maps.find(row.info.map_id);
                if (info == other_maps.end())
                    return Error{"run " + std::to_string(row.id) + " refers to map " + std::to_string(row.info.map_id) +
                                 ", which the file does not hold"};
                PS_TRY(map, other.load_map(row.info.map_id));
                PS_TRY(id, save_map(map, info->second->generator, info->second->seed));
                known = map_ids.emplace(row.info.map_id, id).first;
            }
            row.info.map_id = known->second;
        }
        PS_TRY(id, insert_run(row));
        PS_TRY(details, other.load_run(row.id, true));
        if (auto ok = write_samples(id, details.samples); !ok) return ok.error();
        if (!details.events.empty())
            if (auto ok = add_events(id, details.events); !ok) return ok.error();
        // Chunks are copied compressed, as they are, once checked.
        Query from(read_chunks);
        from.integer(1, row.id);
        int rc;
        std::string kind;
        std::int64_t next_chunk = 0;
        while ((rc = from.step()) == SQLITE_ROW) {
            if (from.text(0) != kind) kind = from.text(0), next_chunk = 0;
            if (auto ok = check_chunk(from, row.id, next_chunk++); !ok) return ok.error();
            Query to(copy_chunk);
            to.integer(1, id).text(2, kind).integer(3, from.integer(1)).integer(4, from.integer(2));
            to.blob(5, from.blob(3));
            PS_CHECK(to.run(), *m_conn, doing);
        }
        if (rc != SQLITE_DONE) return other.m_conn->error(rc, "read recordings for the import");
        ++added;
    }
    if (auto ok = tx.commit(doing); !ok) return ok.error();
    return added;
}

// ---- helpers shared with the CLI -----------------------------------------------------------

PhaseStats phase_stats(const std::vector<PhaseSample>& samples) {
    std::vector<PhaseTimes> times;
    times.reserve(samples.size());
    for (const auto& p : samples)
        times.push_back({p.allocate_ms, p.upload_ms, p.compute_ms, p.download_ms, p.total_ms});
    return compute_phase_stats(times);
}

std::string_view display_status(std::string_view status) { return status == "running" ? "incomplete" : status; }

std::string format_utc(std::int64_t unix_ms) {
    const std::time_t seconds = std::time_t(unix_ms / 1000);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
    return text;
}

namespace {

void write_run_fields(JsonWriter& j, const RunRow& r, const std::vector<PhaseSample>* samples) {
    const RunInfo& in = r.info;
    const RunSummary& s = r.summary;
    j.field("id", r.id).field("origin_id", r.origin_id).field("created_unix_ms", r.created_unix_ms);
    j.field("created_utc", format_utc(r.created_unix_ms));
    j.field("finished_unix_ms", r.finished_unix_ms).field("status", display_status(s.status));
    j.field("message", s.message);
    j.field("variant", in.variant).field("family", in.family).field("device_kind", in.device_kind);
    j.field("device_name", in.device_name).field("driver_version", in.driver_version);
    j.field("cuda_version", in.cuda_version).field("host", in.host).field("build_commit", in.build_commit);
    j.field("bench_id", in.bench_id).field("warmup", in.warmup).field("params_json", in.params_json);
    j.key("map").begin_object().field("id", in.map_id).field("name", r.map_name).field("hash", r.map_hash);
    j.field("width", r.map_width).field("height", r.map_height).end_object();
    j.key("start").begin_array().value(in.start_x).value(in.start_y).end_array();
    j.key("goal").begin_array().value(in.goal_x).value(in.goal_y).end_array();
    j.field("validation", s.validation).field("validation_message", s.validation_message);
    j.field("found", s.found).field("cost", s.cost).field("expanded", s.expanded).field("levels", s.levels);
    j.field("visited", s.visited).field("counters_json", s.counters_json).field("repetitions", r.repetitions);
    j.key("total_ms").begin_object().field("mean", r.total_mean_ms).field("median", r.total_median_ms).end_object();
    j.key("compute_ms").begin_object().field("mean", r.compute_mean_ms).field("median", r.compute_median_ms);
    j.end_object();
    if (samples) {
        j.key("samples").begin_array();
        for (const auto& p : *samples)
            j.begin_object()
                .field("repetition", p.repetition)
                .field("allocate_ms", p.allocate_ms)
                .field("upload_ms", p.upload_ms)
                .field("compute_ms", p.compute_ms)
                .field("download_ms", p.download_ms)
                .field("total_ms", p.total_ms)
                .end_object();
        j.end_array();
    }
}

}  // namespace

void write_run_json(JsonWriter& j, const RunRow& row, const std::vector<PhaseSample>* samples) {
    j.begin_object();
    write_run_fields(j, row, samples);
    j.end_object();
}

void write_run_json(JsonWriter& j, const RunDetails& details, const std::function<void(JsonWriter&)>& more) {
    j.begin_object();
    write_run_fields(j, details.row, &details.samples);
    j.field("event_count", details.event_count);
    j.key("recordings").begin_array();
    for (const auto& r : details.recordings)
        j.begin_object()
            .field("kind", r.kind)
            .field("raw_bytes", r.raw_bytes)
            .field("stored_bytes", r.stored_bytes)
            .end_object();
    j.end_array();
    if (more) more(j);
    j.end_object();
}

}  // namespace ps::db
