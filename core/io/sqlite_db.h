#pragma once
// The one libsqlite3 wrapper: every SQLite-based format (nsys exports, RPD, rocpd, rocprof results.db,
// rocprof-compute databases) reads through it.
//
// A database is opened read-only (never modified; `immutable=1` when no -wal/-journal file lies beside it, so a
// database on a read-only medium opens too), with a busy timeout, and a progress handler that polls the
// CancelToken and an optional step budget (so that a corrupt or hostile file can neither hang nor run away).
// Tables and columns are looked up by NAME: the formats' schemas differ between tool releases.
// Errors name the file and the table, and the 1-based row when one is concerned.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"
#include "core/io/progress.h"

struct sqlite3;
struct sqlite3_stmt;

namespace strobe::core {

// True when the file starts with SQLite's 16-byte header ("SQLite format 3\0").
bool hasSqliteHeader(std::string_view head);

// Table and view names of an SQLite database (for the format sniffers); empty when `path` is not a readable
// SQLite database.
// The plain file SQLite opens for `path`. A gzip-compressed database (.sqlite.gz, .rpd.gz, .db.gz) is decompressed
// once into the user's cache directory (gunzipped/, named by the source's path, size and modification time, written
// under a temporary name and renamed) and that copy is returned; it is reused while the source is unchanged. Any
// other path is returned as it is. Errors name `path`.
Result<std::string> plainDatabasePath(const std::string& path);
std::vector<std::string> listSqliteTables(const std::string& path);

struct SqliteOpenOptions {
    CancelToken cancel;
    // Stop any statement after this many virtual-machine steps in total (0: no limit). Fuzz targets set it so
    // that a corrupt file cannot keep a query busy for long; loaders leave it unlimited.
    uint64_t maxSteps = 0;
    int busyTimeoutMs = 2000;
};

class SqliteDb;

// A prepared statement over one table (the table is named in every error). Columns by name or index.
class SqliteStatement {
public:
    SqliteStatement(SqliteStatement&&) noexcept;
    SqliteStatement& operator=(SqliteStatement&&) noexcept;
    ~SqliteStatement();

    // The next row: true when there is one, false at the end, an Error (file, table, row) when SQLite fails or
    // the load was cancelled.
    Result<bool> step();
    int64_t row() const { return m_row; }  // 1-based number of the current row, 0 before the first step

    int columnCount() const;
    int columnIndex(std::string_view name) const;  // -1 when the result has no such column
    bool isNull(int col) const;
    // Typed access: nullopt when the value is NULL or of another type (a REAL with an integral value counts as
    // an integer; an integer counts as a REAL).
    std::optional<int64_t> optInt(int col) const;
    std::optional<double> optReal(int col) const;
    std::string_view text(int col) const;  // TEXT (or the text form of a number), "" for NULL or a BLOB
    // An integer the loader cannot do without: an Error naming file, table, row and column otherwise.
    Result<int64_t> requireInt(int col) const;
    int64_t intOr(int col, int64_t fallback) const { return optInt(col).value_or(fallback); }

    Error error(std::string message) const;  // file + table + current row

private:
    friend class SqliteDb;
    SqliteStatement(const SqliteDb* db, sqlite3_stmt* stmt, std::string table);
    const SqliteDb* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_table;
    int64_t m_row = 0;
    int m_columns = 0;  // result columns, counted once (every accessor checks its index against it)
};

class SqliteDb {
public:
    static Result<SqliteDb> open(const std::string& path, const SqliteOpenOptions& options = {});
    SqliteDb(SqliteDb&&) noexcept;
    SqliteDb& operator=(SqliteDb&&) noexcept;
    ~SqliteDb();

    const std::string& path() const { return m_path; }
    std::vector<std::string> tables() const;  // tables and views, as in sqlite_master
    bool hasTable(std::string_view name) const;
    std::vector<std::string> columns(std::string_view table) const;  // declared order, empty when absent
    bool hasColumn(std::string_view table, std::string_view column) const;
    // The first of `names` that `table` has, "" when none (columns renamed between tool releases).
    std::string firstColumn(std::string_view table, std::initializer_list<std::string_view> names) const;
    // Row count of a table (for progress and reserve), -1 on error.
    int64_t rowCount(std::string_view table) const;
    // The largest rowid of a table (one b-tree descent, not a scan): the row count of a table that rows were only
    // appended to, an upper bound otherwise; for reserving. Rowids above `cap` are left out (the largest at or
    // below it is given: rpd_tracer numbers its own few calls from 2^31, and a corrupt or hostile file must not make
    // a loader reserve without bound); 0 when empty, absent, WITHOUT ROWID, or none is at or below `cap`.
    int64_t maxRowid(std::string_view table, int64_t cap) const;

    // `table` names what the statement reads, for errors.
    Result<SqliteStatement> prepare(std::string_view sql, std::string_view table) const;
    // SELECT the given columns FROM table (quoted); a column that the table lacks is selected as NULL, so that
    // loaders read optional columns by the same index whatever the release.
    Result<SqliteStatement> selectColumns(std::string_view table, const std::vector<std::string>& columns,
                                          std::string_view tail = {}) const;

    Error error(std::string_view table, std::string message, int64_t row = -1) const;
    std::string lastMessage() const;  // sqlite3_errmsg

    bool interrupted() const;  // the progress handler stopped a statement (cancel or step budget)

private:
    friend class SqliteStatement;
    SqliteDb() = default;
    static int progressHandler(void* self);
    struct State;
    std::string m_path;
    sqlite3* m_db = nullptr;
    std::unique_ptr<State> m_state;  // stable address for the progress handler
};

// Double-quoted SQL identifier.
std::string sqlIdentifier(std::string_view name);

}  // namespace strobe::core
