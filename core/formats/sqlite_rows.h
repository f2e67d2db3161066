#pragma once
// Row builders shared by the SQLite-based loaders (nsys, RPD, rocpd, rocprof results.db, rocprof-compute): append
// one slice or GPU activity with every raw column filled (derived columns are left to the merge), and find or add
// the track of a (pid, tid) pair.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>
#include <unordered_map>
#include <utility>

#include "core/formats/source_format.h"
#include "core/io/huge_pages.h"
#include "core/io/sqlite_db.h"
#include "core/model/dataset.h"

namespace strobe::core::sqlrows {

struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
        return std::hash<int64_t>()(p.first) * 1000003u ^ std::hash<int64_t>()(p.second);
    }
};

class Tracks {
public:
    uint32_t get(RankData& r, int64_t pid, int64_t tid) {
        // Consecutive rows mostly share their track (a stream's kernels, a thread's calls): no hash for those.
        if (pid == m_lastPid && tid == m_lastTid && m_last != UINT32_MAX) return m_last;
        auto [it, added] = m_index.try_emplace({pid, tid}, static_cast<uint32_t>(r.tracks.size()));
        if (added) r.tracks.push_back(Track{pid, tid, kEmptyStr, kEmptyStr});
        m_lastPid = pid, m_lastTid = tid, m_last = it->second;
        return it->second;
    }

private:
    std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> m_index;
    int64_t m_lastPid = 0, m_lastTid = 0;
    uint32_t m_last = UINT32_MAX;
};

// A StrId interned on first use, in the order the rows first need it (so that a rank's string pool is the same as
// when every row interned its strings).
struct LazyStr {
    static constexpr StrId kUnset = UINT32_MAX;
    StrId id = kUnset;
    StrId get(StringPool& pool, std::string_view s) {
        if (id == kUnset) id = pool.intern(s);
        return id;
    }
};

// A string table (nsys StringIds, rocpd_string) read once: id → text. The usual ids (0..N or 1..N, in rowid order)
// index a vector; others (negative, or far past the rows seen) go to a hash map, so that hostile ids cannot make
// the vector grow past twice the strings read plus a constant.
class StringTable {
public:
    void add(int64_t id, std::string_view s) {
        ++m_count;
        if (id >= 0 && id < static_cast<int64_t>(2 * m_count + 65536)) {
            const auto i = static_cast<size_t>(id);
            if (i >= m_dense.size()) {
                m_dense.resize(std::max(i + 1, m_dense.size() * 3 / 2));
                m_present.resize(m_dense.size(), 0);
            }
            m_dense[i].assign(s);
            m_present[i] = 1;
            return;
        }
        m_sparse[id] = std::string(s);
    }
    // nullptr when the table has no such id.
    const std::string* find(int64_t id) const {
        if (id >= 0 && static_cast<uint64_t>(id) < m_dense.size() && m_present[static_cast<size_t>(id)])
            return &m_dense[static_cast<size_t>(id)];
        if (m_sparse.empty()) return nullptr;
        auto it = m_sparse.find(id);
        return it == m_sparse.end() ? nullptr : &it->second;
    }
    bool has(int64_t id) const { return find(id) != nullptr; }
    std::string_view view(int64_t id) const {
        const std::string* s = find(id);
        return s ? std::string_view(*s) : std::string_view();
    }
    size_t denseSize() const { return m_dense.size(); }

private:
    std::vector<std::string> m_dense;
    std::vector<uint8_t> m_present;
    std::unordered_map<int64_t, std::string> m_sparse;
    size_t m_count = 0;
};

// One rank's StrId of each string-table id, interned on first use (`make()` gives the text then): every later row
// with that id costs an array read.
class IdStrings {
public:
    explicit IdStrings(size_t denseSize = 0) : m_dense(denseSize, kUnset) {}
    template <class Make>
    StrId get(int64_t id, Make&& make) {
        if (id >= 0 && static_cast<uint64_t>(id) < m_dense.size()) {
            StrId& s = m_dense[static_cast<size_t>(id)];
            if (s == kUnset) s = make();
            return s;
        }
        auto [it, added] = m_sparse.try_emplace(id, kEmptyStr);
        if (added) it->second = make();
        return it->second;
    }

private:
    static constexpr StrId kUnset = UINT32_MAX;
    std::vector<StrId> m_dense;
    std::unordered_map<int64_t, StrId> m_sparse;
};

// Reserves room for `n` rows in every column of `table` (a loader's tables, before its first row). Large columns are
// marked for transparent huge pages where the kernel offers them on request (Linux, THP "madvise"): filling a
// column then takes one page fault per 2 MiB instead of one per 4 KiB, which is most of the cost of writing fresh
// memory on a virtual machine. Only pages that rows reach become resident, so an over-estimate costs address space.
template <class Table>
void reserveRows(Table& table, size_t n) {
    table.visitColumns([&](const char*, auto& c) {
        reserveHuge(c.mut(), n);
    });
}

using GpuRow = GpuRecord;
using SliceRow = SliceRecord;
inline size_t appendGpu(RankData& r, const GpuRow& row) { return r.gpu.appendRaw(row); }
inline size_t appendSlice(RankData& r, const SliceRow& row) { return r.slices.appendRaw(row); }

// Times as the loaders accept them: start within ±kMaxTimeNs, 0 <= end - start <= kMaxDurationNs. False otherwise
// (the caller reports the row).
inline bool validSpan(int64_t start, int64_t end) {
    if (start < -kMaxTimeNs || start > kMaxTimeNs || end < start) return false;
    if (end - start > kMaxDurationNs) return false;
    return end - start <= kMaxTimeNs - start;
}

inline int32_t clampI32(int64_t v) {
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : static_cast<int32_t>(v);
}
inline int16_t clampI16(int64_t v) {
    return v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : static_cast<int16_t>(v);
}

// A JSON string literal of `s` (quotes included), for the args column.
inline std::string jsonString(std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20) {
                static const char* hex = "0123456789abcdef";
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
    return out;
}

using Ranks = std::vector<std::unique_ptr<RankData>>;

// Opens the group's primary file read-only (cancellable) and hands it to `load`.
template <class Fn>
Result<Ranks> openAndLoad(const SourceGroup& group, const CancelToken& cancel, Fn&& load) {
    const std::string& path = group.files.empty() ? group.path : group.files.front();
    SqliteOpenOptions o;
    o.cancel = cancel;
    auto db = SqliteDb::open(path, o);
    if (!db) return db.error();
    return load(*db);
}

// Reading a database's two largest independent parts side by side (nsys, RPD, rocpd): the second part on another
// connection and thread, into a reader of its own whose rows are then appended (appendRankPart).
//
// The function that opens another connection to `db` (read-only, with the load's cancel token), for a reader that
// reads a part on a second thread.
inline std::function<Result<SqliteDb>()> reopener(const SqliteDb& db, const CancelToken& cancel) {
    return [&db, cancel]() {
        SqliteOpenOptions o;
        o.cancel = cancel;
        return SqliteDb::open(db.path(), o);
    };
}

// A part being read on its own connection and thread; join() before reading `reader` or `status`.
template <class Reader>
struct SidePart {
    SqliteDb db;
    std::unique_ptr<Reader> reader;
    Status status = Ok{};
    std::thread thread;
    explicit SidePart(SqliteDb d) : db(std::move(d)) {}
    SidePart(const SidePart&) = delete;
    SidePart& operator=(const SidePart&) = delete;
    ~SidePart() { join(); }
    void join() {
        if (thread.joinable()) thread.join();
    }
};

// Opens a connection with `reopen`, makes the part's reader with `make(db)` and runs `read(reader)` (a Status) on a
// new thread. Null when `reopen` is empty or any step fails: the caller then reads the part on its own thread.
template <class Reader, class Make, class Read>
std::unique_ptr<SidePart<Reader>> startSidePart(const std::function<Result<SqliteDb>()>& reopen, Make&& make,
                                                Read&& read) {
    if (!reopen) return nullptr;
    auto db = reopen();
    if (!db) return nullptr;
    auto part = std::make_unique<SidePart<Reader>>(std::move(db.value()));
    part->reader = make(part->db);
    try {
        SidePart<Reader>& p = *part;
        part->thread = std::thread([&p, read] { p.status = read(*p.reader); });
    } catch (const std::system_error&) {
        return nullptr;
    }
    return part;
}

// Visits every row of `SELECT cols FROM table tail`; `fn(statement)` returns a Status (an Error stops the walk).
template <class Fn>
Status eachRow(const SqliteDb& db, std::string_view table, const std::vector<std::string>& cols, Fn&& fn,
               std::string_view tail = {}) {
    auto st = db.selectColumns(table, cols, tail);
    if (!st) return st.error();
    for (;;) {
        auto more = st->step();
        if (!more) return more.error();
        if (!*more) return Ok{};
        if (Status s = fn(*st); !s) return s;
    }
}

inline bool hasTable(const SniffInput& in, std::string_view name) {
    return std::find(in.sqliteTables.begin(), in.sqliteTables.end(), name) != in.sqliteTables.end();
}

// Table names starting with `prefix` (rocpd's UUID-suffixed tables).
inline bool hasTablePrefix(const SniffInput& in, std::string_view prefix) {
    for (const auto& t : in.sqliteTables)
        if (std::string_view(t).substr(0, prefix.size()) == prefix) return true;
    return false;
}

inline uint64_t fileSize(const std::string& path) {
    std::error_code ec;
    auto n = std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<uint64_t>(n);
}

}  // namespace strobe::core::sqlrows
