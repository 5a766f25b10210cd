// The SQLite run history (see history.hpp): the schema, opening with inspection and migrations,
// and storing, reading and deleting runs. Export and import are in history_export.cpp; the
// statement and transaction helpers both use are in history_internal.hpp.
#include "database/history.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <utility>
#include <variant>

#include "database/codec.hpp"
#include "database/history_internal.hpp"
#include "kernels/run/runner.hpp"

namespace fs = std::filesystem;

namespace ps::db {

using namespace detail;

namespace {

// ---- schema --------------------------------------------------------------------------------

// Forward migrations: kMigrations[i] takes a file from schema i to i + 1. Never edit a
// released migration; add one.
constexpr const char* kMigrations[] = {
    // 1: the initial schema.
    R"sql(
CREATE TABLE maps (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL DEFAULT '',
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    generator TEXT NOT NULL DEFAULT '',
    seed INTEGER,
    cells BLOB NOT NULL,
    created_unix_ms INTEGER NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    map_id INTEGER REFERENCES maps(id),
    created_unix_ms INTEGER NOT NULL,
    finished_unix_ms INTEGER,
    variant TEXT NOT NULL,
    family TEXT NOT NULL DEFAULT '',
    device_kind TEXT NOT NULL DEFAULT '',
    params_json TEXT NOT NULL DEFAULT '',
    start_x INTEGER NOT NULL DEFAULT -1,
    start_y INTEGER NOT NULL DEFAULT -1,
    goal_x INTEGER NOT NULL DEFAULT -1,
    goal_y INTEGER NOT NULL DEFAULT -1,
    device_name TEXT NOT NULL DEFAULT '',
    driver_version TEXT NOT NULL DEFAULT '',
    cuda_version TEXT NOT NULL DEFAULT '',
    host TEXT NOT NULL DEFAULT '',
    build_commit TEXT NOT NULL DEFAULT '',
    warmup INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'running',
    message TEXT NOT NULL DEFAULT '',
    validation TEXT NOT NULL DEFAULT 'not-run',
    validation_message TEXT NOT NULL DEFAULT '',
    found INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0,
    expanded INTEGER NOT NULL DEFAULT 0,
    levels INTEGER NOT NULL DEFAULT 0,
    visited INTEGER NOT NULL DEFAULT 0,
    counters_json TEXT NOT NULL DEFAULT '',
    repetitions INTEGER NOT NULL DEFAULT 0,
    total_mean_ms REAL NOT NULL DEFAULT 0,
    total_median_ms REAL NOT NULL DEFAULT 0,
    compute_mean_ms REAL NOT NULL DEFAULT 0,
    compute_median_ms REAL NOT NULL DEFAULT 0
);
CREATE INDEX runs_created ON runs(created_unix_ms);
CREATE INDEX runs_map ON runs(map_id, created_unix_ms);
CREATE INDEX runs_variant ON runs(variant, created_unix_ms);
CREATE TABLE samples (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    repetition INTEGER NOT NULL,
    allocate_ms REAL NOT NULL,
    upload_ms REAL NOT NULL,
    compute_ms REAL NOT NULL,
    download_ms REAL NOT NULL,
    total_ms REAL NOT NULL,
    PRIMARY KEY (run_id, repetition)
) WITHOUT ROWID;
-- Keyed by (run, sequence) without a rowid: one b-tree append per event, and the key serves
-- both loading a run's events in order and the cascading delete.
CREATE TABLE events (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    track TEXT NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    correlation_id INTEGER NOT NULL DEFAULT 0,
    payload TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
-- Large blobs belong in a rowid table (overflow pages); the unique key orders the chunks.
CREATE TABLE recordings (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    raw_size INTEGER NOT NULL,
    data BLOB NOT NULL,
    UNIQUE (run_id, kind, chunk)
);
)sql",
    // 2: runs of one `bench` sweep share an id.
    R"sql(
ALTER TABLE runs ADD COLUMN bench_id TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_bench ON runs(bench_id, created_unix_ms) WHERE bench_id <> '';
)sql",
    // 3: every run carries an id unique across histories, so import can tell runs apart that
    // share a millisecond (a bench sweep). fill_legacy_origin_ids() fills the existing rows,
    // then the unique index is made.
    R"sql(
ALTER TABLE runs ADD COLUMN origin_id TEXT NOT NULL DEFAULT '';
)sql",
    // 4: weighted terrain. A map whose cells cost more than 1 keeps every cell's cost byte
    // (compressed); NULL for plain maps, whose bits in `cells` say it all.
    R"sql(
ALTER TABLE maps ADD COLUMN costs BLOB;
)sql",
};
static_assert(std::size(kMigrations) == std::size_t(kSchemaVersion));

// The columns of a runs row in the order bind_run() writes and read_run() reads them;
// bench_id (schema 2) and origin_id (schema 3) come last so older files can be read with
// constants in their place.
constexpr const char* kRunColumns[] = {"map_id",
                                       "created_unix_ms",
                                       "finished_unix_ms",
                                       "variant",
                                       "family",
                                       "device_kind",
                                       "params_json",
                                       "start_x",
                                       "start_y",
                                       "goal_x",
                                       "goal_y",
                                       "device_name",
                                       "driver_version",
                                       "cuda_version",
                                       "host",
                                       "build_commit",
                                       "warmup",
                                       "status",
                                       "message",
                                       "validation",
                                       "validation_message",
                                       "found",
                                       "cost",
                                       "expanded",
                                       "levels",
                                       "visited",
                                       "counters_json",
                                       "repetitions",
                                       "total_mean_ms",
                                       "total_median_ms",
                                       "compute_mean_ms",
                                       "compute_median_ms"};

std::string run_select_sql(int version) {
    std::string sql = "SELECT r.id";
    for (const char* column : kRunColumns) sql += std::string(", r.") + column;
    sql += version >= 2 ? ", r.bench_id" : ", ''";
    sql += version >= 3 ? ", r.origin_id" : ", ''";
    sql += ", m.name, m.hash, m.width, m.height FROM runs r LEFT JOIN maps m ON m.id = r.map_id";
    return sql;
}

std::string run_insert_sql() {
    std::string columns, values;
    for (const char* column : kRunColumns) {
        columns += std::string(column) + ", ";
        values += "?, ";
    }
    return "INSERT INTO runs (" + columns + "bench_id, origin_id) VALUES (" + values + "?, ?)";
}

// 128 random bits as 32 hex digits: unique across machines without coordination. Drawn from
// the system's entropy on every call, never from a generator state kept in the process: a
// forked writer would otherwise make the same ids as its parent.
std::string new_origin_id() {
    std::random_device entropy;
    static const char* digits = "0123456789abcdef";
    std::string id;
    for (int word = 0; word < 4; ++word)
        for (std::uint32_t v = entropy(), i = 0; i < 8; ++i, v >>= 4) id += digits[v & 0xF];
    return id;
}

bool valid_origin_id(const std::string& id) {
    return id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Runs stored before schema 3 (or by a writer that left the id out) get one derived from what
// identified them before, plus their row id, which tells apart runs of one millisecond: a file
// read without migrating and the same file migrated give its runs the same ids.
std::string legacy_origin_id(std::int64_t id, std::int64_t created_unix_ms, const std::string& variant,
                             const std::string& host, const std::string& map_hash) {
    const std::string key = "pathscope-run\x1f" + std::to_string(id) + "\x1f" + std::to_string(created_unix_ms) +
                            "\x1f" + variant + "\x1f" + host + "\x1f" + map_hash;
    return sha256_hex({reinterpret_cast<const std::uint8_t*>(key.data()), key.size()}).substr(0, 32);
}

std::int64_t now_unix_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// ---- opening -------------------------------------------------------------------------------

Expected<std::unique_ptr<Connection>> connect(const std::string& path, int flags, int busy_timeout_ms) {
    auto c = std::make_unique<Connection>();
    c->path = path;
    // NOMUTEX: a History is used by one thread at a time, so SQLite's per-call locking is
    // pure cost on the 100,000-row insert path.
    const int rc = sqlite3_open_v2(path.c_str(), &c->db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) return c->error(rc, "open");
    sqlite3_busy_timeout(c->db, busy_timeout_ms);
    if (const int frc = c->exec("PRAGMA foreign_keys = ON"); frc != SQLITE_OK) return c->error(frc, "open");
    return c;
}

Expected<std::int64_t> query_integer(Connection& c, const char* sql, std::string_view doing) {
    PS_TRY(s, c.prepare(sql));
    Query q(s);
    const int rc = q.step();
    if (rc != SQLITE_ROW) return c.error(rc, doing);
    return q.integer(0);
}

Error newer_schema(const std::string& path, std::int64_t version) {
    return Error{path + " was written by a newer PathScope (history schema " + std::to_string(version) +
                 ", this program knows up to " + std::to_string(kSchemaVersion) +
                 "); update PathScope to open it. The file was not changed."};
}

// SQLite files start with this 16-byte string; anything else is refused before SQLite sees it.
Expected<void> check_sqlite_header(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot read " + path + " (check its permissions)", ErrorKind::Io};
    char header[16] = {};
    in.read(header, sizeof header);
    const auto got = std::size_t(in.gcount());
    if (got == 0) return {};  // an empty file becomes a new history
    static constexpr char kMagic[16] = "SQLite format 3";
    if (got < sizeof header || std::memcmp(header, kMagic, sizeof header) != 0)
        return Error{path +
                     " is not a PathScope history (not an SQLite database); refusing to touch it. Give "
                     "another path with --db, or move the file away."};
    return {};
}

struct Inspection {
    std::unique_ptr<Connection> connection;
    int version = 0;  // 0: an empty database that may become a history
};

// Reads what the file is through a read-only connection, so a refusal never writes a byte.
Expected<Inspection> inspect(const std::string& path, int busy_timeout_ms) {
    PS_TRY(c, connect(path, SQLITE_OPEN_READONLY, busy_timeout_ms));
    PS_TRY(tables, query_integer(*c, "SELECT count(*) FROM sqlite_master", "read"));
    PS_TRY(app, query_integer(*c, "PRAGMA application_id", "read"));
    PS_TRY(version, query_integer(*c, "PRAGMA user_version", "read"));
    if (app != kApplicationId) {
        if (app == 0 && tables == 0 && version == 0) return Inspection{std::move(c), 0};
        return Error{path + " is an SQLite database but not a PathScope history (it holds " + std::to_string(tables) +
                     " other table(s) or index(es)); refusing to touch it. Give another "
                     "path with --db."};
    }
    if (version > kSchemaVersion) return newer_schema(path, version);
    {
        PS_TRY(s, c->prepare("PRAGMA quick_check(1)"));
        Query q(s);
        const int rc = q.step();
        if (rc != SQLITE_ROW) return c->error(rc, "check");
        if (std::string verdict = q.text(0); verdict != "ok") {
            // SQLite prefixes the first problem with "*** in database main ***\n".
            if (const auto line = verdict.find("***\n"); line != std::string::npos) verdict.erase(0, line + 4);
            return Error{"the history " + path + " is corrupt (" + verdict +
                         "); restore a backup, or move the file away to start a new history"};
        }
    }
    return Inspection{std::move(c), int(version)};
}

Error read_only_file(const std::string& path) {
    return Error{"the history " + path +
                     " is read-only (no write permission for this user): storing runs needs write access; "
                     "listing and exporting work read-only",
                 ErrorKind::Io};
}

// Schema 3: gives every existing run its legacy origin id, then makes the ids unique.
Expected<void> fill_legacy_origin_ids(Connection& c) {
    std::vector<std::pair<std::int64_t, std::string>> ids;
    {
        PS_TRY(s, c.prepare("SELECT r.id, r.created_unix_ms, r.variant, r.host, coalesce(m.hash, '') FROM runs r "
                            "LEFT JOIN maps m ON m.id = r.map_id"));
        Query q(s);
        int rc;
        while ((rc = q.step()) == SQLITE_ROW)
            ids.emplace_back(q.integer(0),
                             legacy_origin_id(q.integer(0), q.integer(1), q.text(2), q.text(3), q.text(4)));
        if (rc != SQLITE_DONE) return c.error(rc, "upgrade to schema 3");
    }
    PS_TRY(s, c.prepare("UPDATE runs SET origin_id = ? WHERE id = ?"));
    Query q(s);
    for (const auto& [id, origin] : ids) {
        q.text(1, origin).integer(2, id);
        PS_CHECK(q.run(), c, "upgrade to schema 3");
    }
    PS_CHECK(c.exec("CREATE UNIQUE INDEX runs_origin ON runs(origin_id)"), c, "upgrade to schema 3");
    return {};
}

// Applies the migrations up to `target` inside one write transaction, which doubles as the
// lock probe of open(): a file another process is writing is reported locked up front.
Expected<int> migrate(Connection& c, int target) {
    PS_TRY(tx, Transaction::begin(c, "open"));
    PS_TRY(version, query_integer(c, "PRAGMA user_version", "read"));
    if (version > kSchemaVersion) return newer_schema(c.path, version);  // upgraded meanwhile
    for (auto v = version; v < target; ++v) {
        PS_CHECK(c.exec(kMigrations[v]), c, "upgrade to schema " + std::to_string(v + 1));
        if (v + 1 == 3)
            if (auto ok = fill_legacy_origin_ids(c); !ok) return ok.error();
    }
    if (version < target) {
        PS_CHECK(c.exec("PRAGMA application_id = " + std::to_string(kApplicationId)), c, "upgrade");
        PS_CHECK(c.exec("PRAGMA user_version = " + std::to_string(target)), c, "upgrade");
    }
    if (auto ok = tx.commit("upgrade"); !ok) return ok.error();
    return int(std::max<std::int64_t>(version, target));
}

Expected<std::unique_ptr<Connection>> open_for_writing(const std::string& path, bool create, int busy_timeout_ms) {
    if (!create && ::access(path.c_str(), W_OK) != 0) return read_only_file(path);
    PS_TRY(c, connect(path, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), busy_timeout_ms));
    // SQLite silently falls back to read-only when it cannot write.
    if (sqlite3_db_readonly(c->db, "main") == 1) return read_only_file(path);
    // 16 KiB pages (for new files; a no-op on existing ones): a fifth faster on bulk event
    // inserts than 4 KiB, and recordings need fewer overflow pages.
    PS_CHECK(c->exec("PRAGMA page_size = 16384"), *c, "open");
    // WAL: readers never block the writer and a killed writer's partial transaction is simply
    // ignored. synchronous=NORMAL is crash-safe under WAL (a power cut may lose the last
    // commits, never consistency) and saves an fsync per commit.
    PS_CHECK(c->exec("PRAGMA journal_mode = WAL"), *c, "open");
    PS_CHECK(c->exec("PRAGMA synchronous = NORMAL"), *c, "open");
    return std::move(c);
}

// ---- rows ----------------------------------------------------------------------------------

std::int64_t as_int64(std::uint64_t v) { return std::int64_t(v); }  // SQLite integers are signed
std::uint64_t as_uint64(std::int64_t v) { return std::uint64_t(v); }

// Consecutive parameters and columns, so the run's columns are written once, in kRunColumns
// order, without hand-numbered indices.
class Binder {
public:
    explicit Binder(Query& q) : m_q(q) {}
    Binder& integer(std::int64_t v) { return m_q.integer(m_next++, v), *this; }
    Binder& real(double v) { return m_q.real(m_next++, v), *this; }
    Binder& text(std::string_view v) { return m_q.text(m_next++, v), *this; }
    Binder& id_or_null(std::int64_t v) { return (v ? m_q.integer(m_next, v) : m_q.null(m_next)), ++m_next, *this; }
    int count() const { return m_next - 1; }

private:
    Query& m_q;
    int m_next = 1;
};

class Reader {
public:
    explicit Reader(const Query& q) : m_q(q) {}
    std::int64_t integer() { return m_q.integer(m_next++); }
    int small() { return int(m_q.integer(m_next++)); }
    double real() { return m_q.real(m_next++); }
    std::string text() { return m_q.text(m_next++); }

private:
    const Query& m_q;
    int m_next = 0;
};

void bind_run(Query& q, const RunRow& r) {
    const RunInfo& in = r.info;
    const RunSummary& s = r.summary;
    Binder b(q);
    b.id_or_null(in.map_id).integer(r.created_unix_ms).id_or_null(r.finished_unix_ms);
    b.text(in.variant).text(in.family).text(in.device_kind).text(in.params_json);
    b.integer(in.start_x).integer(in.start_y).integer(in.goal_x).integer(in.goal_y);
    b.text(in.device_name).text(in.driver_version).text(in.cuda_version).text(in.host);
    b.text(in.build_commit).integer(in.warmup);
    b.text(s.status).text(s.message).text(s.validation).text(s.validation_message);
    b.integer(s.found).real(s.cost).integer(as_int64(s.expanded)).integer(s.levels);
    b.integer(as_int64(s.visited)).text(s.counters_json);
    b.integer(r.repetitions).real(r.total_mean_ms).real(r.total_median_ms);
    b.real(r.compute_mean_ms).real(r.compute_median_ms);
    assert(b.count() == int(std::size(kRunColumns)));
    b.text(in.bench_id).text(r.origin_id);
}

RunRow read_run(const Query& q) {
    RunRow r;
    RunInfo& in = r.info;
    RunSummary& s = r.summary;
    Reader c(q);
    r.id = c.integer();
    in.map_id = c.integer();
    r.created_unix_ms = c.integer();
    r.finished_unix_ms = c.integer();
    in.variant = c.text();
    in.family = c.text();
    in.device_kind = c.text();
    in.params_json = c.text();
    in.start_x = c.small();
    in.start_y = c.small();
    in.goal_x = c.small();
    in.goal_y = c.small();
    in.device_name = c.text();
    in.driver_version = c.text();
    in.cuda_version = c.text();
    in.host = c.text();
    in.build_commit = c.text();
    in.warmup = c.small();
    s.status = c.text();
    s.message = c.text();
    s.validation = c.text();
    s.validation_message = c.text();
    s.found = c.integer() != 0;
    s.cost = c.real();
    s.expanded = as_uint64(c.integer());
    s.levels = c.small();
    s.visited = as_uint64(c.integer());
    s.counters_json = c.text();
    r.repetitions = c.small();
    r.total_mean_ms = c.real();
    r.total_median_ms = c.real();
    r.compute_mean_ms = c.real();
    r.compute_median_ms = c.real();
    in.bench_id = c.text();
    r.origin_id = c.text();
    r.map_name = c.text();
    r.map_hash = c.text();
    r.map_width = c.small();
    r.map_height = c.small();
    if (!valid_origin_id(r.origin_id))
        r.origin_id = legacy_origin_id(r.id, r.created_unix_ms, in.variant, in.host, r.map_hash);
    return r;
}

}  // namespace

// ---- History -------------------------------------------------------------------------------

History::History(History&&) noexcept = default;
History& History::operator=(History&&) noexcept = default;
History::~History() = default;

std::string History::default_path() {
    if (const char* env = std::getenv("PATHSCOPE_DB"); env && *env) return env;
    const std::string file = "/pathscope/history.sqlite";
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return xdg + file;
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.local/share" + file;
    return "pathscope-history.sqlite";
}

Expected<History> History::open(const std::string& path, const OpenOptions& options) {
    const bool write = options.mode == OpenMode::ReadWrite;
    if (path.empty()) return Error{"no history file given (an empty path)"};  // SQLite: a temporary database
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (fs::is_directory(status))
        return Error{path + " is a folder; give the path of a history file (e.g. " + path + "/history.sqlite)",
                     ErrorKind::Io};
    const bool exists = fs::exists(status);
    if (!exists && !write) return Error{"there is no history at " + path, ErrorKind::Io};
    if (!exists) {
        const auto parent = fs::path(path).parent_path();
        if (!parent.empty() && (fs::create_directories(parent, ec), ec))
            return Error{"cannot create the folder " + parent.string() + " for the history: " + ec.message(),
                         ErrorKind::Io};
    }

    History h;
    h.m_path = path;
    h.m_read_only = !write;
    if (exists) {
        if (auto ok = check_sqlite_header(path); !ok) return ok.error();
        PS_TRY(inspection, inspect(path, options.busy_timeout_ms));
        h.m_version = inspection.version;
        if (!write) {
            if (inspection.version == 0) return Error{path + " is empty: no PathScope history has been stored in it"};
            h.m_conn = std::move(inspection.connection);
            return h;
        }
    }
    PS_TRY(connection, open_for_writing(path, !exists, options.busy_timeout_ms));
    PS_TRY(version, migrate(*connection, kSchemaVersion));
    h.m_conn = std::move(connection);
    h.m_version = version;
    return h;
}

Expected<void> History::create_at_version(const std::string& path, int version) {
    if (version < 1 || version > kSchemaVersion) return Error{"no schema version " + std::to_string(version)};
    if (fs::exists(path)) return Error{path + " exists already"};
    PS_TRY(connection, open_for_writing(path, true, 5000));
    if (auto ok = migrate(*connection, version); !ok) return ok.error();
    return {};
}

Expected<void> History::limit_pages(std::int64_t pages) {
    PS_CHECK(m_conn->exec("PRAGMA max_page_count = " + std::to_string(pages)), *m_conn, "limit the size");
    return {};
}

Expected<void> History::check_writable(std::int64_t run_id) const {
    if (m_read_only) return read_only_mode(m_path);
    PS_TRY(s, m_conn->prepare("SELECT 1 FROM runs WHERE id = ?"));
    Query q(s);
    q.integer(1, run_id);
    const int rc = q.step();
    if (rc == SQLITE_DONE) return Error{"there is no run " + std::to_string(run_id) + " in the history " + m_path};
    if (rc != SQLITE_ROW) return m_conn->error(rc, "read the run");
    return {};
}

// ---- maps ----------------------------------------------------------------------------------

Expected<std::int64_t> History::save_map(const GridMap& map, const std::string& generator,
                                         std::optional<std::uint64_t> seed) {
    if (m_read_only) return read_only_mode(m_path);
    const auto packed = pack_cells(map.cells());
    const bool weighted = map.weighted();
    const std::span<const std::uint8_t> costs =
        weighted ? std::span<const std::uint8_t>(map.cells()) : std::span<const std::uint8_t>();
    const std::string hash = map_hash(map.width(), map.height(), packed, costs);
    PS_TRY(tx, Transaction::begin(*m_conn, "store the map"));
    {
        PS_TRY(s, m_conn->prepare("SELECT id FROM maps WHERE hash = ?"));
        Query q(s);
        q.text(1, hash);
        const int rc = q.step();
        if (rc == SQLITE_ROW) return q.integer(0);  // known map: nothing to write
        if (rc != SQLITE_DONE) return m_conn->error(rc, "store the map");
    }
    const auto cells = compress_bytes(packed);
    PS_TRY(s, m_conn->prepare("INSERT INTO maps (hash, name, width, height, generator, seed, cells, "
                              "created_unix_ms, costs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    {
        Query q(s);
        q.text(1, hash).text(2, map.name).integer(3, map.width()).integer(4, map.height()).text(5, generator);
        if (seed)
            q.integer(6, as_int64(*seed));
        else
            q.null(6);
        q.blob(7, cells).integer(8, now_unix_ms());
        const auto packed_costs = weighted ? compress_bytes(costs) : std::vector<std::uint8_t>();
        if (weighted)
            q.blob(9, packed_costs);
        else
            q.null(9);
        PS_CHECK(q.run(), *m_conn, "store the map");
    }
    const std::int64_t id = sqlite3_last_insert_rowid(m_conn->db);
    if (auto ok = tx.commit("store the map"); !ok) return ok.error();
    return id;
}

Expected<GridMap> History::load_map(std::int64_t map_id) const {
    // Files before schema 4 hold plain maps only.
    PS_TRY(s, m_conn->prepare(m_version >= 4 ? "SELECT width, height, name, cells, costs FROM maps WHERE id = ?"
                                             : "SELECT width, height, name, cells, NULL FROM maps WHERE id = ?"));
    Query q(s);
    q.integer(1, map_id);
    const int rc = q.step();
    if (rc == SQLITE_DONE) return Error{"there is no map " + std::to_string(map_id) + " in the history " + m_path};
    if (rc != SQLITE_ROW) return m_conn->error(rc, "read the map");
    const int width = int(q.integer(0)), height = int(q.integer(1));
    if (auto ok = GridMap::validate_dimensions(width, height); !ok)
        return Error{"map " + std::to_string(map_id) + " in " + m_path + " is damaged: " + ok.error().message};
    const std::size_t cells = std::size_t(width) * std::size_t(height);
    auto packed = decompress_bytes(q.blob(3), (cells + 7) / 8);
    if (!packed) return Error{"map " + std::to_string(map_id) + " in " + m_path + ": " + packed.error().message};
    GridMap map(width, height);
    if (q.is_null(4)) {
        map.cells() = unpack_cells(*packed, cells);
    } else {
        auto costs = decompress_bytes(q.blob(4), cells);
        if (!costs) return Error{"map " + std::to_string(map_id) + " in " + m_path + ": " + costs.error().message};
        map.cells() = std::move(*costs);
    }
    map.name = q.text(2);
    return map;
}

Expected<std::vector<MapInfo>> History::list_maps() const {
    PS_TRY(s, m_conn->prepare("SELECT id, hash, name, width, height, generator, seed FROM maps ORDER BY id"));
    Query q(s);
    std::vector<MapInfo> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        MapInfo m{q.integer(0), q.text(1), q.text(2), int(q.integer(3)), int(q.integer(4)), q.text(5), std::nullopt};
        if (!q.is_null(6)) m.seed = as_uint64(q.integer(6));
        out.push_back(std::move(m));
    }
    if (rc != SQLITE_DONE) return m_conn->error(rc, "list the maps");
    return out;
}

// ---- storing runs --------------------------------------------------------------------------

Expected<std::int64_t> History::insert_run(const RunRow& row) {
    PS_TRY(s, m_conn->prepare(run_insert_sql()));
    Query q(s);
    bind_run(q, row);
    PS_CHECK(q.run(), *m_conn, "store the run");
    return sqlite3_last_insert_rowid(m_conn->db);
}

Expected<std::int64_t> History::begin_run(const RunInfo& info) {
    if (m_read_only) return read_only_mode(m_path);
    RunRow row;
    row.info = info;
    row.created_unix_ms = now_unix_ms();
    row.origin_id = new_origin_id();
    row.summary.status = "running";
    PS_TRY(tx, Transaction::begin(*m_conn, "store the run"));
    PS_TRY(id, insert_run(row));
    if (auto ok = tx.commit("store the run"); !ok) return ok.error();
    return id;
}

Expected<void> History::write_samples(std::int64_t run_id, const std::vector<PhaseSample>& samples) {
    PS_TRY(s, m_conn->prepare("INSERT INTO samples (run_id, repetition, allocate_ms, upload_ms, compute_ms, "
                              "download_ms, total_ms) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    Query q(s);
    for (const auto& p : samples) {
        q.integer(1, run_id).integer(2, p.repetition).real(3, p.allocate_ms).real(4, p.upload_ms);
        q.real(5, p.compute_ms).real(6, p.download_ms).real(7, p.total_ms);
        if (const int rc = q.run(); rc != SQLITE_OK) {
            if ((rc & 0xFF) == SQLITE_CONSTRAINT)
                return Error{"run " + std::to_string(run_id) + " already has a repetition " +
                             std::to_string(p.repetition)};
            return m_conn->error(rc, "store the samples");
        }
    }
    return {};
}

Expected<void> History::add_samples(std::int64_t run_id, const std::vector<PhaseSample>& samples) {
    if (auto ok = check_writable(run_id); !ok) return ok;
    PS_TRY(tx, Transaction::begin(*m_conn, "store the samples"));
    if (auto ok = write_samples(run_id, samples); !ok) return ok;
    // The run row carries its aggregates so that listing 10,000 runs reads one table.
    PS_TRY(all, samples_of(run_id));
    const PhaseStats stats = phase_stats(all);
    PS_TRY(s, m_conn->prepare("UPDATE runs SET repetitions = ?, total_mean_ms = ?, total_median_ms = ?, "
                              "compute_mean_ms = ?, compute_median_ms = ? WHERE id = ?"));
    {
        Query q(s);
        q.integer(1, std::int64_t(all.size())).real(2, stats.total.mean).real(3, stats.total.median);
        q.real(4, stats.compute.mean).real(5, stats.compute.median).integer(6, run_id);
        PS_CHECK(q.run(), *m_conn, "store the samples");
    }
    return tx.commit("store the samples");
}

Expected<void> History::add_events(std::int64_t run_id, const std::vector<TimelineEvent>& events) {
    if (auto ok = check_writable(run_id); !ok) return ok;
    PS_TRY(tx, Transaction::begin(*m_conn, "store the events"));
    std::int64_t seq = 0;
    {
        PS_TRY(s, m_conn->prepare("SELECT coalesce(max(seq) + 1, 0) FROM events WHERE run_id = ?"));
        Query q(s);
        q.integer(1, run_id);
        if (const int rc = q.step(); rc != SQLITE_ROW) return m_conn->error(rc, "store the events");
        seq = q.integer(0);
    }
    PS_TRY(s, m_conn->prepare("INSERT INTO events (run_id, seq, kind, name, track, start_ns, end_ns, "
                              "correlation_id, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    {
        Query q(s);
        q.integer(1, run_id);  // bindings survive the resets between rows
        for (const auto& e : events) {
            q.integer(2, seq++).text(3, e.kind).text(4, e.name).text(5, e.track).integer(6, e.start_ns);
            q.integer(7, e.end_ns).integer(8, as_int64(e.correlation_id)).text(9, e.payload);
            PS_CHECK(q.run(), *m_conn, "store the events");
        }
    }
    return tx.commit("store the events");
}

Expected<void> History::add_recording(std::int64_t run_id, const std::string& kind,
                                      std::span<const std::uint8_t> bytes) {
    if (auto ok = check_writable(run_id); !ok) return ok;
    // Compressed before the write lock is taken, so other writers wait only for the inserts.
    const auto chunks = compress_chunks(bytes, kRecordingChunkBytes);
    PS_TRY(tx, Transaction::begin(*m_conn, "store the recording"));
    {
        PS_TRY(s, m_conn->prepare("DELETE FROM recordings WHERE run_id = ? AND kind = ?"));
        Query q(s);
        q.integer(1, run_id).text(2, kind);
        PS_CHECK(q.run(), *m_conn, "store the recording");
    }
    PS_TRY(s, m_conn->prepare("INSERT INTO recordings (run_id, kind, chunk, raw_size, data) VALUES (?, ?, ?, ?, ?)"));
    Query q(s);
    q.integer(1, run_id).text(2, kind);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        const std::size_t raw = std::min(kRecordingChunkBytes, bytes.size() - i * kRecordingChunkBytes);
        q.integer(3, std::int64_t(i)).integer(4, std::int64_t(raw)).blob(5, chunks[i]);
        PS_CHECK(q.run(), *m_conn, "store the recording");
    }
    return tx.commit("store the recording");
}

Expected<void> History::finish_run(std::int64_t run_id, const RunSummary& summary) {
    if (auto ok = check_writable(run_id); !ok) return ok;
    PS_TRY(tx, Transaction::begin(*m_conn, "finish the run"));
    PS_TRY(s, m_conn->prepare("UPDATE runs SET finished_unix_ms = ?, status = ?, message = ?, validation = ?, "
                              "validation_message = ?, found = ?, cost = ?, expanded = ?, levels = ?, visited = ?, "
                              "counters_json = ? WHERE id = ?"));
    {
        Query q(s);
        q.integer(1, now_unix_ms()).text(2, summary.status).text(3, summary.message).text(4, summary.validation);
        q.text(5, summary.validation_message).integer(6, summary.found).real(7, summary.cost);
        q.integer(8, as_int64(summary.expanded)).integer(9, summary.levels).integer(10, as_int64(summary.visited));
        q.text(11, summary.counters_json).integer(12, run_id);
        PS_CHECK(q.run(), *m_conn, "finish the run");
    }
    return tx.commit("finish the run");
}

// ---- reading runs --------------------------------------------------------------------------

Expected<std::vector<RunRow>> History::list_runs(const RunFilter& filter) const {
    // Only the SQL skeleton varies with the filter; every user-given value is bound.
    std::string sql = run_select_sql(m_version) + " WHERE 1";
    std::vector<std::variant<std::int64_t, std::string>> values;
    auto contains = [&](const char* column, const std::string& needle) {
        sql += std::string(" AND instr(lower(") + column + "), lower(?)) > 0";
        values.emplace_back(needle);
    };
    if (!filter.map.empty()) contains("coalesce(m.name, '')", filter.map);
    if (!filter.variant.empty()) contains("r.variant", filter.variant);
    if (!filter.device.empty()) {
        sql += " AND (instr(lower(r.device_name), lower(?)) > 0 OR instr(lower(r.device_kind), lower(?)) > 0)";
        values.emplace_back(filter.device);
        values.emplace_back(filter.device);
    }
    if (filter.from_unix_ms) {
        sql += " AND r.created_unix_ms >= ?";
        values.emplace_back(*filter.from_unix_ms);
    }
    if (filter.to_unix_ms) {
        sql += " AND r.created_unix_ms <= ?";
        values.emplace_back(*filter.to_unix_ms);
    }
    if (!filter.bench_id.empty()) {
        if (m_version < 2) return std::vector<RunRow>{};  // no bench runs before schema 2
        sql += " AND r.bench_id = ?";
        values.emplace_back(filter.bench_id);
    }
    sql += " ORDER BY r.created_unix_ms DESC, r.id DESC";
    if (filter.limit) {
        sql += " LIMIT ?";
        values.emplace_back(std::int64_t(filter.limit));
    }
    PS_TRY(s, m_conn->prepare(sql));
    Query q(s);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (const auto* n = std::get_if<std::int64_t>(&values[i]))
            q.integer(int(i + 1), *n);
        else
            q.text(int(i + 1), std::get<std::string>(values[i]));
    }
    std::vector<RunRow> rows;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) rows.push_back(read_run(q));
    if (rc != SQLITE_DONE) return m_conn->error(rc, "list the runs");
    return rows;
}

Expected<RunRow> History::run_row(std::int64_t run_id) const {
    PS_TRY(s, m_conn->prepare(run_select_sql(m_version) + " WHERE r.id = ?"));
    Query q(s);
    q.integer(1, run_id);
    const int rc = q.step();
    if (rc == SQLITE_DONE) return Error{"there is no run " + std::to_string(run_id) + " in the history " + m_path};
    if (rc != SQLITE_ROW) return m_conn->error(rc, "read the run");
    return read_run(q);
}

Expected<std::vector<PhaseSample>> History::samples_of(std::int64_t run_id) const {
    PS_TRY(s, m_conn->prepare("SELECT repetition, allocate_ms, upload_ms, compute_ms, download_ms, total_ms "
                              "FROM samples WHERE run_id = ? ORDER BY repetition"));
    Query q(s);
    q.integer(1, run_id);
    std::vector<PhaseSample> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW)
        out.push_back({int(q.integer(0)), q.real(1), q.real(2), q.real(3), q.real(4), q.real(5)});
    if (rc != SQLITE_DONE) return m_conn->error(rc, "read the samples");
    return out;
}

Expected<RunDetails> History::load_run(std::int64_t run_id, bool with_events) const {
    RunDetails d;
    PS_TRY(row, run_row(run_id));
    d.row = std::move(row);
    PS_TRY(samples, samples_of(run_id));
    d.samples = std::move(samples);
    {
        PS_TRY(s, m_conn->prepare("SELECT count(*) FROM events WHERE run_id = ?"));
        Query q(s);
        q.integer(1, run_id);
        if (const int rc = q.step(); rc != SQLITE_ROW) return m_conn->error(rc, "read the events");
        d.event_count = as_uint64(q.integer(0));
    }
    if (with_events) {
        PS_TRY(s, m_conn->prepare("SELECT kind, name, track, start_ns, end_ns, correlation_id, payload FROM events "
                                  "WHERE run_id = ? ORDER BY seq"));
        Query q(s);
        q.integer(1, run_id);
        d.events.reserve(d.event_count);
        int rc;
        while ((rc = q.step()) == SQLITE_ROW)
            d.events.push_back(
                {q.text(0), q.text(1), q.text(2), q.integer(3), q.integer(4), as_uint64(q.integer(5)), q.text(6)});
        if (rc != SQLITE_DONE) return m_conn->error(rc, "read the events");
    }
    PS_TRY(s, m_conn->prepare("SELECT kind, sum(raw_size), sum(length(data)) FROM recordings WHERE run_id = ? "
                              "GROUP BY kind ORDER BY kind"));
    Query q(s);
    q.integer(1, run_id);
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        d.recordings.push_back({q.text(0), as_uint64(q.integer(1)), as_uint64(q.integer(2))});
        d.recording_kinds.push_back(d.recordings.back().kind);
    }
    if (rc != SQLITE_DONE) return m_conn->error(rc, "read the recordings");
    return d;
}

Expected<void> History::read_recording(std::int64_t run_id, const std::string& kind,
                                       const std::function<bool(std::span<const std::uint8_t>)>& sink) const {
    PS_TRY(s, m_conn->prepare("SELECT raw_size, data FROM recordings WHERE run_id = ? AND kind = ? ORDER BY chunk"));
    Query q(s);
    q.integer(1, run_id).text(2, kind);
    int rc;
    bool any = false;
    const std::string what = "the '" + kind + "' recording of run " + std::to_string(run_id) + " in " + m_path;
    while ((rc = q.step()) == SQLITE_ROW) {
        any = true;
        // The stored size is believed only as far as the format allows (one chunk at most),
        // so a damaged file cannot make us allocate more than a chunk.
        const bool sized = q.type(0) == SQLITE_INTEGER;
        const std::int64_t raw_size = q.integer(0);
        if (!sized || raw_size < 0 || std::uint64_t(raw_size) > kRecordingChunkBytes)
            return Error{what + " is damaged (a chunk claims " + (sized ? std::to_string(raw_size) : "no") +
                         " bytes; chunks hold at most " + std::to_string(kRecordingChunkBytes) + ")"};
        auto raw = decompress_bytes(q.blob(1), std::size_t(raw_size));
        if (!raw) return Error{what + ": " + raw.error().message};
        if (!sink(*raw)) return {};
    }
    if (rc != SQLITE_DONE) return m_conn->error(rc, "read the recording");
    if (!any) return Error{"run " + std::to_string(run_id) + " has no '" + kind + "' recording"};
    return {};
}

Expected<std::vector<std::uint8_t>> History::load_recording(std::int64_t run_id, const std::string& kind) const {
    std::vector<std::uint8_t> out;
    try {
        auto ok = read_recording(run_id, kind, [&](std::span<const std::uint8_t> chunk) {
            out.insert(out.end(), chunk.begin(), chunk.end());
            return true;
        });
        if (!ok) return ok.error();
    } catch (const std::bad_alloc&) {
        return Error{"the '" + kind + "' recording of run " + std::to_string(run_id) + " in " + m_path +
                     " is too large for this machine's memory"};
    }
    return out;
}

// ---- maintenance ---------------------------------------------------------------------------

Expected<std::size_t> History::delete_runs(const std::vector<std::int64_t>& run_ids) {
    if (m_read_only) return read_only_mode(m_path);
    PS_TRY(tx, Transaction::begin(*m_conn, "delete runs"));
    PS_TRY(s, m_conn->prepare("DELETE FROM runs WHERE id = ?"));
    std::size_t deleted = 0;
    {
        Query q(s);
        for (std::int64_t id : run_ids) {
            q.integer(1, id);
            PS_CHECK(q.run(), *m_conn, "delete runs");
            deleted += std::size_t(sqlite3_changes(m_conn->db));  // the run rows, not the cascade
        }
    }
    if (auto ok = tx.commit("delete runs"); !ok) return ok.error();
    return deleted;
}

Expected<void> History::vacuum() {
    if (m_read_only) return read_only_mode(m_path);
    PS_CHECK(m_conn->exec("PRAGMA wal_checkpoint(TRUNCATE)"), *m_conn, "vacuum");
    PS_CHECK(m_conn->exec("VACUUM"), *m_conn, "vacuum");
    return {};
}

}  // namespace ps::db
