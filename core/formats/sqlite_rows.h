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
#include <vector>
#include <unordered_map>
#include <utility>

#include "core/formats/source_format.h"
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
        auto [it, added] = m_index.try_emplace({pid, tid}, static_cast<uint32_t>(r.tracks.size()));
        if (added) r.tracks.push_back(Track{pid, tid, kEmptyStr, kEmptyStr});
        return it->second;
    }

private:
    std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> m_index;
};

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
