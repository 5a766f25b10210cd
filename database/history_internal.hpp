// The internals of the run history that history.cpp (opening, storing, reading) and
// history_export.cpp (export and import) share: the connection with its statement cache, one use
// of a statement, write transactions and the error helpers. Private to database/: history.hpp is
// the interface.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "database/history.hpp"

namespace ps::db {
namespace detail {

struct StatementDeleter {
    void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using StatementPtr = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

inline std::string explain(sqlite3* db, int rc) {
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

// The files and the disk (full, locked, unreadable, read-only) are Io; anything else SQLite
// reports comes from what a file holds (not a database, damaged, a schema it does not have).
inline ErrorKind error_kind(int rc) {
    switch (rc & 0xFF) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_NOLFS:
        return ErrorKind::Io;
    default:
        return ErrorKind::Invalid;
    }
}

}  // namespace detail

struct History::Connection {
    sqlite3* db = nullptr;
    std::string path;
    // Prepared once per SQL text: a run stores 100,000 events through one statement.
    std::unordered_map<std::string, detail::StatementPtr> statements;

    Connection() = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() {
        statements.clear();
        if (db) sqlite3_close(db);
    }

    Error error(int rc, std::string_view doing) const {
        return Error{"the history " + path + ": cannot " + std::string(doing) + ": " + detail::explain(db, rc),
                     detail::error_kind(rc)};
    }

    Expected<sqlite3_stmt*> prepare(const std::string& sql) {
        if (auto it = statements.find(sql); it != statements.end()) return it->second.get();
        sqlite3_stmt* s = nullptr;
        const int rc = sqlite3_prepare_v3(db, sql.c_str(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &s, nullptr);
        if (rc != SQLITE_OK) return error(rc, "read");
        statements.emplace(sql, detail::StatementPtr(s));
        return s;
    }

    int exec(const std::string& sql) { return sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr); }
};

namespace detail {

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

inline Error read_only_mode(const std::string& path) {
    return Error{"the history " + path + " was opened read-only; open it for writing to store or change runs"};
}

}  // namespace detail
}  // namespace ps::db

// Shorthands for the prepare-or-return pattern of every history operation.
#define PS_TRY(var, expr)                           \
    auto var##_result = (expr);                     \
    if (!var##_result) return var##_result.error(); \
    auto& var = *var##_result

#define PS_CHECK(rc_expr, conn, doing)                                                          \
    do {                                                                                        \
        if (const int ps_rc = (rc_expr); ps_rc != SQLITE_OK) return (conn).error(ps_rc, doing); \
    } while (0)
