// strobe-sqlite-floor: the raw floor of a SQLite reader — sqlite3_step over the tables and columns that Strobe's
// reader of FORMAT reads, in the same order, summing every value (integers as int64, text by its length), storing
// nothing. Opens the file as the readers do (read-only, immutable, no mutex). Prints one line:
//   FORMAT rows=N sum=S seconds=T MBps=M
// Usage: strobe-sqlite-floor nsys|rocpd|rpd FILE
// The column lists follow core/formats/{nsys,rocpd,rpd}_sqlite.cpp; a column the table lacks is left out (the
// reader selects it as NULL).
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Read {
    std::string table;  // exact name, or a prefix ending in '_' for rocpd's UUID-suffixed tables
    std::vector<std::string> columns;
};

const std::vector<Read>& readsOf(std::string_view format) {
    static const std::vector<Read> nsys = {
        {"StringIds", {"id", "value"}},
        {"CUPTI_ACTIVITY_KIND_KERNEL",
         {"start", "end", "globalPid", "deviceId", "streamId", "correlationId", "demangledName", "shortName",
          "mangledName", "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
          "staticSharedMemory", "dynamicSharedMemory"}},
        {"CUPTI_ACTIVITY_KIND_MEMCPY",
         {"start", "end", "globalPid", "deviceId", "streamId", "correlationId", "bytes", "copyKind"}},
        {"CUPTI_ACTIVITY_KIND_MEMSET",
         {"start", "end", "globalPid", "deviceId", "streamId", "correlationId", "bytes", "memKind"}},
        {"CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "globalTid", "correlationId", "nameId"}},
        {"NVTX_EVENTS", {"start", "end", "eventType", "text", "textId", "globalTid"}},
    };
    static const std::vector<Read> rocpd = {
        {"rocpd_string_", {"id", "string"}},
        {"rocpd_event_", {"id", "correlation_id", "category_id"}},
        {"rocpd_info_kernel_symbol_", {"id", "kernel_name", "display_name", "arch_vgpr_count"}},
        {"rocpd_kernel_dispatch_",
         {"pid", "agent_id", "kernel_id", "dispatch_id", "queue_id", "start", "end", "group_segment_size",
          "workgroup_size_x", "workgroup_size_y", "workgroup_size_z", "grid_size_x", "grid_size_y", "grid_size_z",
          "event_id"}},
        {"rocpd_memory_copy_",
         {"pid", "start", "end", "name_id", "dst_agent_id", "src_agent_id", "size", "queue_id", "event_id"}},
        {"rocpd_region_", {"pid", "tid", "start", "end", "name_id", "event_id"}},
        {"rocpd_pmc_event_", {"event_id", "pmc_id", "value"}},
    };
    static const std::vector<Read> rpd = {
        {"rocpd_string", {"id", "string"}},
        {"rocpd_api_ops", {"api_id", "op_id"}},
        {"rocpd_kernelapi",
         {"api_ptr_id", "gridX", "gridY", "gridZ", "workgroupX", "workgroupY", "workgroupZ", "groupSegmentSize",
          "kernelName_id"}},
        {"rocpd_copyapi", {"api_ptr_id", "size"}},
        {"rocpd_api", {"id", "pid", "tid", "start", "end", "apiName_id", "args_id"}},
        {"rocpd_op", {"id", "gpuId", "queueId", "start", "end", "description_id", "opType_id"}},
        {"rocpd_monitor", {"deviceId", "monitorType", "start", "value"}},
    };
    static const std::vector<Read> none;
    return format == "nsys" ? nsys : format == "rocpd" ? rocpd : format == "rpd" ? rpd : none;
}

std::string quoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + "\"";
}

std::vector<std::string> query(sqlite3* db, const std::string& sql, const std::string& bind = {}) {
    std::vector<std::string> out;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return out;
    if (!bind.empty()) sqlite3_bind_text(st, 1, bind.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    return out;
}

// The table a Read names: the exact name, else (prefix ending in '_') the first table starting with it, or the
// bare name without the '_'.
std::string resolve(const std::vector<std::string>& tables, const std::string& name) {
    const std::string bare = name.back() == '_' ? name.substr(0, name.size() - 1) : name;
    for (const auto& t : tables)
        if (t == bare) return t;
    if (name.back() == '_')
        for (const auto& t : tables)
            if (t.compare(0, name.size(), name) == 0) return t;
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 || readsOf(argv[1]).empty()) {
        std::fprintf(stderr, "usage: strobe-sqlite-floor nsys|rocpd|rpd FILE\n");
        return 2;
    }
    const std::string format = argv[1], path = argv[2];
    const auto t0 = std::chrono::steady_clock::now();
    sqlite3* db = nullptr;
    const std::string uri = "file:" + path + "?mode=ro&immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
        std::fprintf(stderr, "%s: cannot open: %s\n", path.c_str(), sqlite3_errmsg(db));
        return 1;
    }
    const auto tables = query(db, "SELECT name FROM sqlite_master WHERE type IN ('table','view')");
    int64_t rows = 0;
    uint64_t sum = 0;
    for (const Read& r : readsOf(format)) {
        const std::string table = resolve(tables, r.table);
        if (table.empty()) continue;
        const auto have = query(db, "SELECT name FROM pragma_table_info(?1)", table);
        std::string sql;
        for (const auto& c : r.columns) {
            bool present = false;
            for (const auto& h : have) present |= h == c;
            if (!present) continue;
            sql += sql.empty() ? "SELECT " : ", ";
            sql += quoted(c);
        }
        if (sql.empty()) continue;
        sql += " FROM " + quoted(table);
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
            std::fprintf(stderr, "%s: %s: %s\n", path.c_str(), table.c_str(), sqlite3_errmsg(db));
            return 1;
        }
        const int n = sqlite3_column_count(st);
        while (sqlite3_step(st) == SQLITE_ROW) {
            ++rows;
            for (int c = 0; c < n; ++c) {
                sqlite3_value* v = sqlite3_column_value(st, c);  // the cheapest access: one column lookup
                switch (sqlite3_value_type(v)) {
                case SQLITE_INTEGER: sum += static_cast<uint64_t>(sqlite3_value_int64(v)); break;
                case SQLITE_FLOAT: sum += static_cast<uint64_t>(sqlite3_value_double(v)); break;
                case SQLITE_TEXT:
                    sqlite3_value_text(v);
                    sum += static_cast<uint64_t>(sqlite3_value_bytes(v));
                    break;
                default: break;
                }
            }
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::error_code ec;
    const double bytes = static_cast<double>(std::filesystem::file_size(path, ec));
    std::printf("%s rows=%lld sum=%llu seconds=%.3f MBps=%.1f\n", format.c_str(), static_cast<long long>(rows),
                static_cast<unsigned long long>(sum), secs, bytes / 1e6 / secs);
    return 0;
}
