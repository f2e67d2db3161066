#include "core/io/sqlite_db.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <system_error>
#include <thread>

#include <unistd.h>

#include "core/io/file_source.h"
#include "core/io/resources.h"

namespace strobe::core {

struct SqliteDb::State {
    CancelToken cancel;
    uint64_t maxSteps = 0;
    uint64_t steps = 0;
    bool interrupted = false;
};

namespace {

constexpr int kStepsPerCallback = 4096;

// file: URI of a path: every byte outside the unreserved set is percent-encoded.
std::string fileUri(const std::string& path, bool immutable) {
    std::string uri = "file:";
    for (unsigned char c : path) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') uri += static_cast<char>(c);
        else uri += fmt::format("%{:02X}", c);
    }
    uri += "?mode=ro";
    if (immutable) uri += "&immutable=1";
    return uri;
}

bool exists(const std::string& p) {
    std::error_code ec;
    return std::filesystem::exists(p, ec);
}

}  // namespace

bool hasSqliteHeader(std::string_view head) {
    static constexpr char kMagic[] = "SQLite format 3";  // 15 characters and the terminating NUL: 16 bytes
    return head.size() >= 16 && std::memcmp(head.data(), kMagic, 16) == 0;
}

namespace {
bool gzName(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

// The first 16 decompressed bytes of `path` (gzip or plain).
std::string sqliteHeadOf(const std::string& path) {
    auto src = FileSource::open(path);
    if (!src) return {};
    std::string head(16, '\0');
    size_t have = 0;
    while (have < head.size()) {
        auto got = (*src)->read(head.data() + have, head.size() - have);
        if (!got || *got == 0) break;
        have += *got;
    }
    head.resize(have);
    return head;
}
}  // namespace

Result<std::string> plainDatabasePath(const std::string& path) {
    if (!gzName(path)) return path;
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) return Error(Location{path}, "cannot read: " + ec.message());
    const auto mtime = fs::last_write_time(path, ec).time_since_epoch().count();
    const fs::path dir = userCacheDir() / "gunzipped";
    const std::string stem = fs::path(path).stem().string();  // "report.sqlite" of "report.sqlite.gz"
    const size_t key = std::hash<std::string>()(fmt::format("{}\n{}\n{}", fs::absolute(path, ec).string(), size, mtime));
    const fs::path out = dir / fmt::format("{:016x}-{}", key, stem);
    if (fs::exists(out, ec)) return out.string();
    fs::create_directories(dir, ec);
    if (ec) return Error(Location{path}, fmt::format("cannot create {} for the decompressed database: {}", dir.string(), ec.message()));
    auto src = FileSource::open(path);
    if (!src) return src.error();
    // A name of this process and thread: two loads of one .gz at once each write their own and the rename is atomic.
    const fs::path tmp = out.string() + fmt::format(".part{}-{}", ::getpid(), std::hash<std::thread::id>()(std::this_thread::get_id()));
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) return Error(Location{path}, "cannot write the decompressed database to " + tmp.string());
        std::vector<char> buf(1 << 20);
        for (;;) {
            auto got = (*src)->read(buf.data(), buf.size());
            if (!got) {
                f.close();
                fs::remove(tmp, ec);
                return got.error();
            }
            if (*got == 0) break;
            f.write(buf.data(), static_cast<std::streamsize>(*got));
            if (!f) {
                f.close();
                fs::remove(tmp, ec);
                return Error(Location{path}, "cannot write the decompressed database to " + tmp.string() + " (disk full?)");
            }
        }
    }
    fs::rename(tmp, out, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return Error(Location{path}, "cannot place the decompressed database in " + dir.string());
    }
    return out.string();
}

std::vector<std::string> listSqliteTables(const std::string& path) {
    if (!hasSqliteHeader(sqliteHeadOf(path))) return {};
    SqliteOpenOptions opt;
    opt.maxSteps = 10'000'000;  // a sniffer must stay quick whatever the file holds
    auto db = SqliteDb::open(path, opt);
    if (!db) return {};
    return db->tables();
}

std::string sqlIdentifier(std::string_view name) {
    std::string s = "\"";
    for (char c : name) {
        if (c == '"') s += '"';
        s += c;
    }
    s += '"';
    return s;
}

// ---- SqliteDb ----

Result<SqliteDb> SqliteDb::open(const std::string& path, const SqliteOpenOptions& options) {
    SqliteDb db;
    db.m_path = path;
    db.m_state = std::make_unique<State>();
    db.m_state->cancel = options.cancel;
    db.m_state->maxSteps = options.maxSteps;
    if (!exists(path)) return Error(Location{path}, "no such file");
    auto plain = plainDatabasePath(path);  // a .gz is read through its decompressed copy; errors name `path`
    if (!plain) return plain.error();
    // immutable=1 skips locking and change detection, so that a database on a read-only medium opens; only
    // safe when no other process writes it, which a -wal or -journal file beside it would suggest.
    const bool immutable = !exists(*plain + "-wal") && !exists(*plain + "-journal");
    const std::string uri = fileUri(*plain, immutable);
    int rc = sqlite3_open_v2(uri.c_str(), &db.m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db.m_db ? sqlite3_errmsg(db.m_db) : sqlite3_errstr(rc);
        return Error(Location{path}, "cannot open as an SQLite database: " + msg);
    }
    sqlite3_extended_result_codes(db.m_db, 1);
    sqlite3_busy_timeout(db.m_db, options.busyTimeoutMs);
    sqlite3_db_config(db.m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db.m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(db.m_db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_progress_handler(db.m_db, kStepsPerCallback, &SqliteDb::progressHandler, db.m_state.get());
    // Reading the schema is what fails on a file that is not a database (or a truncated one).
    auto st = db.prepare("SELECT count(*) FROM sqlite_master", "sqlite_master");
    if (!st) return st.error();
    auto r = st->step();
    if (!r) return r.error();
    return db;
}

SqliteDb::SqliteDb(SqliteDb&& o) noexcept
    : m_path(std::move(o.m_path)), m_db(o.m_db), m_state(std::move(o.m_state)) {
    o.m_db = nullptr;
}

SqliteDb& SqliteDb::operator=(SqliteDb&& o) noexcept {
    if (this != &o) {
        if (m_db) sqlite3_close_v2(m_db);
        m_path = std::move(o.m_path);
        m_db = o.m_db;
        m_state = std::move(o.m_state);
        o.m_db = nullptr;
    }
    return *this;
}

SqliteDb::~SqliteDb() {
    if (m_db) sqlite3_close_v2(m_db);
}

int SqliteDb::progressHandler(void* p) {
    auto* s = static_cast<State*>(p);
    s->steps += kStepsPerCallback;
    if (s->cancel.cancelled() || (s->maxSteps && s->steps > s->maxSteps)) {
        s->interrupted = true;
        return 1;
    }
    return 0;
}

bool SqliteDb::interrupted() const { return m_state && m_state->interrupted; }

std::string SqliteDb::lastMessage() const { return m_db ? sqlite3_errmsg(m_db) : "not open"; }

Error SqliteDb::error(std::string_view table, std::string message, int64_t row) const {
    Location where{m_path};
    where.table = std::string(table);
    where.row = row;
    return Error(std::move(where), std::move(message));
}

std::vector<std::string> SqliteDb::tables() const {
    std::vector<std::string> out;
    auto st = prepare("SELECT name FROM sqlite_master WHERE type IN ('table','view') ORDER BY name", "sqlite_master");
    if (!st) return out;
    for (;;) {
        auto r = st->step();
        if (!r || !*r) break;
        out.emplace_back(st->text(0));
    }
    return out;
}

bool SqliteDb::hasTable(std::string_view name) const {
    auto st = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1", "sqlite_master");
    if (!st) return false;
    sqlite3_bind_text(st->m_stmt, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
    auto r = st->step();
    return r && *r;
}

std::vector<std::string> SqliteDb::columns(std::string_view table) const {
    std::vector<std::string> out;
    auto st = prepare("SELECT name FROM pragma_table_info(?1)", table);
    if (!st) return out;
    sqlite3_bind_text(st->m_stmt, 1, table.data(), static_cast<int>(table.size()), SQLITE_TRANSIENT);
    for (;;) {
        auto r = st->step();
        if (!r || !*r) break;
        out.emplace_back(st->text(0));
    }
    return out;
}

bool SqliteDb::hasColumn(std::string_view table, std::string_view column) const {
    for (const auto& c : columns(table))
        if (c == column) return true;
    return false;
}

std::string SqliteDb::firstColumn(std::string_view table, std::initializer_list<std::string_view> names) const {
    const auto cols = columns(table);
    for (std::string_view n : names)
        for (const auto& c : cols)
            if (c == n) return c;
    return {};
}

int64_t SqliteDb::maxRowid(std::string_view table, int64_t cap) const {
    auto st = prepare("SELECT max(rowid) FROM " + sqlIdentifier(table), table);
    if (!st) return 0;
    auto r = st->step();
    if (!r || !*r) return 0;
    const int64_t n = st->intOr(0, 0);
    if (n <= cap) return std::max<int64_t>(n, 0);
    // A few rows far above the rest (rpd_tracer numbers its own calls from 2^31): the largest rowid at or below
    // `cap`, still one b-tree descent (a rowid range, newest first).
    auto below = prepare(fmt::format("SELECT rowid FROM {} WHERE rowid <= {} ORDER BY rowid DESC LIMIT 1",
                                     sqlIdentifier(table), cap),
                         table);
    if (!below) return 0;
    auto b = below->step();
    if (!b || !*b) return 0;
    return std::clamp<int64_t>(below->intOr(0, 0), 0, cap);
}

int64_t SqliteDb::rowCount(std::string_view table) const {
    auto st = prepare("SELECT count(*) FROM " + sqlIdentifier(table), table);
    if (!st) return -1;
    auto r = st->step();
    if (!r || !*r) return -1;
    return st->intOr(0, -1);
}

Result<SqliteStatement> SqliteDb::prepare(std::string_view sql, std::string_view table) const {
    if (!m_db) return error(table, "database is not open");
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) {
        if (stmt) sqlite3_finalize(stmt);
        if (interrupted()) return error(table, m_state->cancel.cancelled() ? "cancelled" : "query step limit reached");
        return error(table, fmt::format("cannot read: {}", sqlite3_errmsg(m_db)));
    }
    if (!stmt) return error(table, "empty statement");
    return SqliteStatement(this, stmt, std::string(table));
}

Result<SqliteStatement> SqliteDb::selectColumns(std::string_view table, const std::vector<std::string>& columns,
                                                std::string_view tail) const {
    const auto have = this->columns(table);
    if (have.empty()) return error(table, "table is missing");
    std::string sql = "SELECT ";
    for (size_t i = 0; i < columns.size(); ++i) {
        if (i) sql += ", ";
        bool present = false;
        for (const auto& h : have) present |= h == columns[i];
        sql += present ? sqlIdentifier(columns[i]) : std::string("NULL");
    }
    sql += " FROM " + sqlIdentifier(table);
    if (!tail.empty()) {
        sql += ' ';
        sql += tail;
    }
    return prepare(sql, table);
}

// ---- SqliteStatement ----

SqliteStatement::SqliteStatement(const SqliteDb* db, sqlite3_stmt* stmt, std::string table)
    : m_db(db), m_stmt(stmt), m_table(std::move(table)), m_columns(sqlite3_column_count(stmt)) {}

SqliteStatement::SqliteStatement(SqliteStatement&& o) noexcept
    : m_db(o.m_db), m_stmt(o.m_stmt), m_table(std::move(o.m_table)), m_row(o.m_row), m_columns(o.m_columns) {
    o.m_stmt = nullptr;
}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& o) noexcept {
    if (this != &o) {
        if (m_stmt) sqlite3_finalize(m_stmt);
        m_db = o.m_db;
        m_stmt = o.m_stmt;
        m_table = std::move(o.m_table);
        m_row = o.m_row;
        m_columns = o.m_columns;
        o.m_stmt = nullptr;
    }
    return *this;
}

SqliteStatement::~SqliteStatement() {
    if (m_stmt) sqlite3_finalize(m_stmt);
}

Error SqliteStatement::error(std::string message) const {
    return m_db->error(m_table, std::move(message), m_row > 0 ? m_row : -1);
}

Result<bool> SqliteStatement::step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) {
        ++m_row;
        return true;
    }
    if (rc == SQLITE_DONE) return false;
    if (m_db->interrupted()) {
        m_db->m_state->interrupted = false;
        return m_db->error(m_table, m_db->m_state->cancel.cancelled() ? "cancelled" : "query step limit reached",
                           m_row + 1);
    }
    return m_db->error(m_table, fmt::format("cannot read: {}", m_db->lastMessage()), m_row + 1);
}

int SqliteStatement::columnCount() const { return m_columns; }

int SqliteStatement::columnIndex(std::string_view name) const {
    const int n = columnCount();
    for (int i = 0; i < n; ++i) {
        const char* c = sqlite3_column_name(m_stmt, i);
        if (c && name == c) return i;
    }
    return -1;
}

bool SqliteStatement::isNull(int col) const {
    return col < 0 || col >= m_columns || sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

std::optional<int64_t> SqliteStatement::optInt(int col) const {
    if (col < 0 || col >= m_columns) return std::nullopt;
    // One column lookup per value (sqlite3_column_type and _int64 would each look the column up again). The value
    // is "unprotected": safe here, where a connection (opened NOMUTEX) is only ever used by one thread at a time.
    sqlite3_value* v = sqlite3_column_value(m_stmt, col);
    switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return static_cast<int64_t>(sqlite3_value_int64(v));
    case SQLITE_FLOAT: {
        const double d = sqlite3_value_double(v);
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
        return std::nullopt;
    }
    default: return std::nullopt;
    }
}

std::optional<double> SqliteStatement::optReal(int col) const {
    if (col < 0 || col >= m_columns) return std::nullopt;
    switch (sqlite3_column_type(m_stmt, col)) {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: return sqlite3_column_double(m_stmt, col);
    default: return std::nullopt;
    }
}

std::string_view SqliteStatement::text(int col) const {
    if (col < 0 || col >= m_columns) return {};
    const int type = sqlite3_column_type(m_stmt, col);
    if (type == SQLITE_NULL || type == SQLITE_BLOB) return {};
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
    if (!p) return {};
    return std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, col)));
}

Result<int64_t> SqliteStatement::requireInt(int col) const {
    if (auto v = optInt(col)) return *v;
    const char* name = (col >= 0 && col < columnCount()) ? sqlite3_column_name(m_stmt, col) : nullptr;
    std::string what = "NULL";
    if (!isNull(col)) {
        const int type = sqlite3_column_type(m_stmt, col);
        what = type == SQLITE_BLOB ? std::string("a blob")
                                   : fmt::format("'{}'", std::string(text(col).substr(0, 40)));
    }
    return error(fmt::format("column {}: expected an integer, got {}", name ? name : "?", what));
}

}  // namespace strobe::core
