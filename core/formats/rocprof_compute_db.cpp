#include "core/formats/rocprof_compute_db.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <map>
#include <set>
#include <unordered_map>

#include "core/formats/sqlite_rows.h"

namespace strobe::core {
namespace {

using sqlrows::clampI16;

// Devices from the workload's sys_info_extdata JSON: one entry per GPU id the dispatches use.
void readDevices(const SqliteDb& db, const std::set<int>& gpuIds, TraceInfo& info) {
    std::string json;
    (void)sqlrows::eachRow(db, "compute_workload", {"sys_info_extdata"}, [&](SqliteStatement& st) -> Status {
        if (json.empty()) json = std::string(st.text(0));
        return Ok{};
    });
    DeviceProperties d;
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (!json.empty() && !parser.parse(json).get(root) && root.is_object()) {
        auto str = [&](const char* k) {
            std::string_view v;
            return root[k].get_string().get(v) ? std::string() : std::string(v);
        };
        auto num = [&](const char* k) {
            int64_t v = 0;
            return root[k].get_int64().get(v) ? int64_t{0} : v;
        };
        d.name = str("gpu_model");
        if (d.name.empty()) d.name = str("gpu_series");
        d.numSms = static_cast<int>(num("cu_per_gpu"));
        d.warpSize = static_cast<int>(num("wave_size"));
        d.maxThreadsPerBlock = static_cast<int>(num("workgroup_max_size"));
        d.totalGlobalMem = num("gpu_memory") * 1024;  // KiB in rocprof-compute's sysinfo
        d.rawJson = json;
    }
    for (int id : gpuIds) {
        d.id = id;
        info.devices.push_back(d);
    }
}

Status readDispatches(const SqliteDb& db, RankData& r, std::unordered_map<int64_t, uint32_t>& firstRow,
                      std::set<int>& gpuIds) {
    std::unordered_map<int64_t, StrId> names;
    Status s = sqlrows::eachRow(db, "compute_kernel", {"kernel_uuid", "kernel_name"}, [&](SqliteStatement& st) {
        auto id = st.requireInt(0);
        if (!id) return Status(id.error());
        names[*id] = r.strings.intern(st.text(1));
        return Status(Ok{});
    });
    if (!s) return s;
    sqlrows::Tracks tracks;
    const StrId cat = r.strings.intern("kernel");
    return sqlrows::eachRow(
        db, "compute_dispatch", {"dispatch_id", "kernel_uuid", "gpu_id", "start_timestamp", "end_timestamp"},
        [&](SqliteStatement& st) -> Status {
            auto kernel = st.requireInt(1), start = st.requireInt(3), end = st.requireInt(4);
            if (!kernel) return kernel.error();
            if (!start) return start.error();
            if (!end) return end.error();
            if (!sqlrows::validSpan(*start, *end)) return st.error("end_timestamp before start_timestamp, or out of range");
            sqlrows::GpuRow g;
            g.ts = *start;
            g.dur = *end - *start;
            auto n = names.find(*kernel);
            g.name = n == names.end() ? r.strings.intern(fmt::format("<kernel {}>", *kernel)) : n->second;
            g.cat = cat;
            g.device = clampI16(st.intOr(2, 0));
            gpuIds.insert(g.device);
            g.track = tracks.get(r, g.device, 0);
            g.correlation = st.intOr(0, kNone);
            const auto row = static_cast<uint32_t>(sqlrows::appendGpu(r, g));
            auto [it, added] = firstRow.try_emplace(*kernel, row);
            if (!added && r.gpu.ts[it->second] > g.ts) it->second = row;
            return Ok{};
        },
        "ORDER BY start_timestamp");
}

Status readMetrics(const SqliteDb& db, RankData& r, const std::unordered_map<int64_t, uint32_t>& firstRow) {
    std::unordered_map<int64_t, std::string> metrics;
    Status s = sqlrows::eachRow(db, "compute_metric_definition", {"metric_uuid", "metric_id", "name"},
                                [&](SqliteStatement& st) -> Status {
                                    auto id = st.requireInt(0);
                                    if (!id) return id.error();
                                    metrics[*id] = fmt::format("{} {}", st.text(1), st.text(2));
                                    return Ok{};
                                });
    if (!s) return s;
    std::map<std::string, StrId> counterNames;
    int64_t nulls = 0, orphans = 0;
    s = sqlrows::eachRow(db, "compute_kernel_metric_value", {"metric_uuid", "kernel_uuid", "value_name", "value"},
                         [&](SqliteStatement& st) -> Status {
                             auto v = st.optReal(3);
                             if (!v) {
                                 nulls += st.isNull(3);
                                 if (!st.isNull(3)) return st.error("column value: not a number");
                                 return Ok{};
                             }
                             auto row = firstRow.find(st.intOr(1, -1));
                             auto m = metrics.find(st.intOr(0, -1));
                             if (row == firstRow.end() || m == metrics.end()) {
                                 ++orphans;
                                 return Ok{};
                             }
                             std::string key = fmt::format("{}: {}", m->second, st.text(2));
                             auto [it, added] = counterNames.try_emplace(std::move(key), kEmptyStr);
                             if (added) it->second = r.strings.intern(it->first);
                             r.kernelCounters.gpuRow.push_back(row->second);
                             r.kernelCounters.name.push_back(it->second);
                             r.kernelCounters.value.push_back(*v);
                             return Ok{};
                         });
    if (!s) return s;
    Location where{db.path()};
    where.table = "compute_kernel_metric_value";
    if (nulls)
        r.diagnostics.push_back({Severity::Info, where, fmt::format("{} metric value(s) are NULL (not measured)", nulls)});
    if (orphans) {
        r.diagnostics.push_back({Severity::Warning, where,
                                 fmt::format("{} metric value(s) name a kernel without dispatches or an unknown "
                                             "metric: not joined", orphans)});
    }
    const double total = static_cast<double>(r.kernelCounters.size() + orphans);
    r.stats.joinMatchRate = total > 0 ? static_cast<double>(r.kernelCounters.size()) / total : 1.0;
    return Ok{};
}

Result<sqlrows::Ranks> loadRocprofCompute(const SourceGroup& group, const SourceLoadOptions& opt,
                                          const CancelToken& cancel) {
    return sqlrows::openAndLoad(group, cancel, [&](const SqliteDb& db) { return loadRocprofComputeDb(db, opt); });
}

}  // namespace

int sniffRocprofComputeDb(const SniffInput& in) {
    if (sqlrows::hasTable(in, "compute_dispatch") && sqlrows::hasTable(in, "compute_kernel") &&
        sqlrows::hasTable(in, "compute_workload"))
        return 90;
    return 0;
}

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofComputeDb(const SqliteDb& db, const SourceLoadOptions& opt) {
    for (const char* t : {"compute_workload", "compute_kernel", "compute_dispatch"})
        if (!db.hasTable(t)) return db.error(t, "table is missing: not a rocprof-compute analysis database");
    auto rank = std::make_unique<RankData>();
    RankData& r = *rank;
    r.rank = 0;
    r.path = db.path();
    TraceInfo& info = r.info;
    info.format = "rocprof-compute-db";
    info.path = db.path();
    info.fileSize = sqlrows::fileSize(db.path());
    info.platform = Platform::Amd;
    info.clock.domain = ClockDomain::Boottime;
    applyClockOptions(info.clock, opt);
    if (db.hasTable("compute_metadata"))
        (void)sqlrows::eachRow(db, "compute_metadata", {"compute_version"}, [&](SqliteStatement& st) -> Status {
            info.toolVersion = std::string(st.text(0));
            return Ok{};
        });
    std::unordered_map<int64_t, uint32_t> firstRow;  // kernel_uuid → its first dispatch's GPU row
    std::set<int> gpuIds;
    if (Status s = readDispatches(db, r, firstRow, gpuIds); !s) return s.error();
    readDevices(db, gpuIds, info);
    if (db.hasTable("compute_kernel_metric_value") && db.hasTable("compute_metric_definition"))
        if (Status s = readMetrics(db, r, firstRow); !s) return s.error();
    r.stats.events = r.gpu.size();
    r.stats.bytesRead = info.fileSize;
    sqlrows::Ranks out;
    out.push_back(std::move(rank));
    return out;
}

const SourceFormat kRocprofComputeDbFormat = {"rocprof-compute-db", "rocprof-compute",
                                              "rocprof-compute (Omniperf) analysis database (SQLite)", false,
                                              &sniffRocprofComputeDb, &loadRocprofCompute};

}  // namespace strobe::core
