// The SQLite run history (see history.hpp): opening with inspection and migrations, the
// transaction and statement helpers, and every store / load / export operation.
#include "database/history.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <unordered_map>
#include <utility>
#include <variant>

#include "database/codec.hpp"
#include "instrumentation/json.hpp"
#include "kernels/run/runner.hpp"

namespace fs = std::filesystem;

namespace ps::db {
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

// ---- statements and errors -----------------------------------------------------------------

struct StatementDeleter {
    void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using StatementPtr = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

std::string explain(sqlite3* db, int rc) {
    const std::string detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    switch (rc & 0xFF) {
    case SQLITE_FULL:
        return "the disk is full (" + detail +
               "); free some space, or delete old runs (pathscope-cli history delete, then history vacuum)";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "the file is locked: another process is writing to it; try again when it has finished";
    case SQLITE_READONLY:
        return "the file is read-only for this user (" + detail + ")";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return "the file is corrupt (" + detail + "); restore a backup, or move the file away to start a new history";
    case SQLITE_NOMEM:
        return "out of memory";
    default:
        return detail;
    }
}

}  // namespace

struct History::Connection {
    sqlite3* db = nullptr;
    std::string path;
    // Prepared once per SQL text: a run stores 100,000 events through one statement.
    std::unordered_map<std::string, StatementPtr> statements;

    Connection() = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() {
        statements.clear();
        if (db) sqlite3_close(db);
    }

    Error error(int rc, std::string_view doing) const {
        return Error{"the history " + path + ": cannot " + std::string(doing) + ": " + explain(db, rc)};
    }

    Expected<sqlite3_stmt*> prepare(const std::string& sql) {
        if (auto it = statements.find(sql); it != statements.end()) return it->second.get();
        sqlite3_stmt* s = nullptr;
        const int rc = sqlite3_prepare_v3(db, sql.c_str(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &s, nullptr);
        if (rc != SQLITE_OK) return error(rc, "read");
        statements.emplace(sql, StatementPtr(s));
        return s;
    }

    int exec(const std::string& sql) { return sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr); }
};

namespace {

using Connection = History::Connection;

// One use of a cached statement: binds by position (text and blobs are not copied: they must
// outlive the step), steps, and resets on scope exit so the statement is ready for the next
// use and releases its read snapshot.
class Query {
public:
    explicit Query(sqlite3_stmt* s) : m_s(s) {}
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;
    ~Query() {
        sqlite3_reset(m_s);
        sqlite3_clear_bindings(m_s);
    }

    Query& integer(int i, std::int64_t v) { return note(sqlite3_bind_int64(m_s, i, v)); }
    Query& real(int i, double v) { return note(sqlite3_bind_double(m_s, i, v)); }
    Query& text(int i, std::string_view v) {
        return note(sqlite3_bind_text(m_s, i, v.data() ? v.data() : "", int(v.size()), SQLITE_STATIC));
    }
    Query& blob(int i, std::span<const std::uint8_t> v) {
        // A null pointer would bind NULL, not an empty blob.
        return note(v.empty() ? sqlite3_bind_zeroblob(m_s, i, 0)
                              : sqlite3_bind_blob64(m_s, i, v.data(), v.size(), SQLITE_STATIC));
    }
    Query& null(int i) { return note(sqlite3_bind_null(m_s, i)); }

    // SQLITE_ROW, SQLITE_DONE, or the error (a failed bind included).
    int step() { return m_rc != SQLITE_OK ? m_rc : sqlite3_step(m_s); }
    // For statements without rows: SQLITE_OK or the error; ready to bind and run again.
    int run() {
        const int rc = step();
        sqlite3_reset(m_s);
        return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
    }

    std::int64_t integer(int c) const { return sqlite3_column_int64(m_s, c); }
    double real(int c) const { return sqlite3_column_double(m_s, c); }
    bool is_null(int c) const { return sqlite3_column_type(m_s, c) == SQLITE_NULL; }
    int type(int c) const { return sqlite3_column_type(m_s, c); }
    std::string text(int c) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_s, c));
        return p ? std::string(p, std::size_t(sqlite3_column_bytes(m_s, c))) : std::string();
    }
    std::span<const std::uint8_t> blob(int c) const {
        const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(m_s, c));
        return {p, p ? std::size_t(sqlite3_column_bytes(m_s, c)) : 0};
    }

private:
    Query& note(int rc) {
        if (m_rc == SQLITE_OK) m_rc = rc;
        return *this;
    }
    sqlite3_stmt* m_s;
    int m_rc = SQLITE_OK;
};

// A write transaction: rolled back unless committed. The outermost one is BEGIN IMMEDIATE,
// so the write lock is taken (waiting out the busy timeout) before anything is read: a
// deferred transaction that upgrades later can fail with SQLITE_BUSY at once. Nested ones
// (import calls save_map, add_events, ...) are savepoints.
class Transaction {
public:
    static Expected<Transaction> begin(Connection& c, std::string_view doing) {
        const bool nested = !sqlite3_get_autocommit(c.db);
        if (const int rc = c.exec(nested ? "SAVEPOINT ps_nested" : "BEGIN IMMEDIATE"); rc != SQLITE_OK)
            return c.error(rc, doing);
        return Transaction(c, nested);
    }
    Transaction(Transaction&& other) noexcept
        : m_c(other.m_c), m_nested(other.m_nested), m_open(std::exchange(other.m_open, false)) {}
    Transaction& operator=(Transaction&&) = delete;
    ~Transaction() {
        if (!m_open) return;
        if (m_nested) {
            m_c->exec("ROLLBACK TO ps_nested");
            m_c->exec("RELEASE ps_nested");
        } else if (!sqlite3_get_autocommit(m_c->db)) {  // SQLite may have rolled back already
            m_c->exec("ROLLBACK");
        }
    }

    Expected<void> commit(std::string_view doing) {
        if (const int rc = m_c->exec(m_nested ? "RELEASE ps_nested" : "COMMIT"); rc != SQLITE_OK)
            return m_c->error(rc, doing);
        m_open = false;
        return {};
    }

private:
    Transaction(Connection& c, bool nested) : m_c(&c), m_nested(nested) {}
    Connection* m_c;
    bool m_nested;
    bool m_open = true;
};

// Shorthands for the prepare-or-return pattern of every operation below.
#define PS_TRY(var, expr)                           \
    auto var##_result = (expr);                     \
    if (!var##_result) return var##_result.error(); \
    auto& var = *var##_result

#define PS_CHECK(rc_expr, conn, doing)                                                          \
    do {                                                                                        \
        if (const int ps_rc = (rc_expr); ps_rc != SQLITE_OK) return (conn).error(ps_rc, doing); \
    } while (0)

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
    if (!in) return Error{"cannot read " + path + " (check its permissions)"};
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
                 "listing and exporting work read-only"};
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

// The map's identity: its size and packed cells (names and start/goal do not count).
std::string map_hash(int width, int height, std::span<const std::uint8_t> packed) {
    Sha256 h;
    const std::uint8_t size[8] = {std::uint8_t(width),        std::uint8_t(width >> 8),  std::uint8_t(width >> 16),
                                  std::uint8_t(width >> 24),  std::uint8_t(height),      std::uint8_t(height >> 8),
                                  std::uint8_t(height >> 16), std::uint8_t(height >> 24)};
    h.update(size);
    h.update(packed);
    return h.hex();
}

Error read_only_mode(const std::string& path) {
    return Error{"the history " + path + " was opened read-only; open it for writing to store or change runs"};
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
        return Error{path + " is a folder; give the path of a history file (e.g. " + path + "/history.sqlite)"};
    const bool exists = fs::exists(status);
    if (!exists && !write) return Error{"there is no history at " + path};
    if (!exists) {
        const auto parent = fs::path(path).parent_path();
        if (!parent.empty() && (fs::create_directories(parent, ec), ec))
            return Error{"cannot create the folder " + parent.string() + " for the history: " + ec.message()};
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
    const std::string hash = map_hash(map.width(), map.height(), packed);
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
                              "created_unix_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
    {
        Query q(s);
        q.text(1, hash).text(2, map.name).integer(3, map.width()).integer(4, map.height()).text(5, generator);
        if (seed)
            q.integer(6, as_int64(*seed));
        else
            q.null(6);
        q.blob(7, cells).integer(8, now_unix_ms());
        PS_CHECK(q.run(), *m_conn, "store the map");
    }
    const std::int64_t id = sqlite3_last_insert_rowid(m_conn->db);
    if (auto ok = tx.commit("store the map"); !ok) return ok.error();
    return id;
}

Expected<GridMap> History::load_map(std::int64_t map_id) const {
    PS_TRY(s, m_conn->prepare("SELECT width, height, name, cells FROM maps WHERE id = ?"));
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
    map.cells() = unpack_cells(*packed, cells);
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
    if (!out) return Error{"cannot write the CSV export (disk full?)"};
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
    if (!out) return Error{"cannot write the JSON export (disk full?)"};
    return {};
}

Expected<std::size_t> History::import_from(const std::string& other_path) {
    if (m_read_only) return read_only_mode(m_path);
    auto other = History::open(other_path, OpenMode::ReadOnly);
    if (!other) return Error{"cannot import: " + other.error().message};
    // The file may be anything that passes as a history: whatever it holds must come back as
    // a refusal, never as an exception (the transaction rolls back on the way out).
    try {
        auto added = import_runs(*other);
        if (!added) return Error{"cannot import " + other_path + ": " + added.error().message};
        return added;
    } catch (const std::bad_alloc&) {
        return Error{"cannot import " + other_path + ": out of memory (it holds more than this machine can load)"};
    } catch (const std::exception& e) {
        return Error{"cannot import " + other_path + ": " + e.what()};
    }
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

Expected<std::size_t> History::import_runs(const History& other) {
    PS_TRY(rows, other.list_runs());
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

void write_run_json(JsonWriter& j, const RunDetails& details) {
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
    j.end_object();
}

}  // namespace ps::db
