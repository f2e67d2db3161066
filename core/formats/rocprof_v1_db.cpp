#include "core/formats/rocprof_v1_db.h"

#include <fmt/format.h>

#include <map>

#include "core/formats/sqlite_rows.h"

namespace strobe::core {
namespace {

using sqlrows::clampI16;
using sqlrows::clampI32;

struct PidState {
    std::unique_ptr<RankData> rank;
    sqlrows::Tracks tracks;
    sqlrows::LazyStr kernelCat;  // interned once, not per row
};

Result<sqlrows::Ranks> loadV1(const SourceGroup& group, const SourceLoadOptions& opt, const CancelToken& cancel) {
    return sqlrows::openAndLoad(group, cancel, [&](const SqliteDb& db) { return loadRocprofV1Db(db, opt); });
}

}  // namespace

int sniffRocprofV1Db(const SniffInput& in) {
    if (!sqlrows::hasTable(in, "KERN")) return 0;
    return 70;
}

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofV1Db(const SqliteDb& db, const SourceLoadOptions& opt) {
    if (!db.hasTable("KERN")) return db.error("KERN", "table is missing: not a rocprof results.db");
    TraceInfo info;
    info.format = "rocprof-v1-db";
    info.path = db.path();
    info.fileSize = sqlrows::fileSize(db.path());
    info.platform = Platform::Amd;
    info.clock.domain = ClockDomain::Boottime;
    applyClockOptions(info.clock, opt);
    std::map<int64_t, PidState> pids;
    int64_t skipped = 0;
    Location firstSkipped;
    Status s = sqlrows::eachRow(
        db, "KERN",
        {"Index", "KernelName", "gpu-id", "queue-id", "pid", "grd", "wgr", "lds", "arch_vgpr", "BeginNs", "EndNs"},
        [&](SqliteStatement& st) -> Status {
            auto begin = st.requireInt(9), end = st.requireInt(10);
            if (!begin) return begin.error();
            if (!end) return end.error();
            if (!sqlrows::validSpan(*begin, *end)) {
                if (skipped++ == 0) firstSkipped = st.error("").where;
                return Ok{};
            }
            auto& p = pids[st.intOr(4, 0)];
            if (!p.rank) {
                p.rank = std::make_unique<RankData>();
                p.rank->info = info;
                p.rank->path = db.path();
            }
            RankData& r = *p.rank;
            sqlrows::GpuRow g;
            g.ts = *begin;
            g.dur = *end - *begin;
            g.name = r.strings.intern(st.text(1));
            g.cat = p.kernelCat.get(r.strings, "kernel");
            g.device = clampI16(st.intOr(2, 0));
            g.stream = clampI32(st.intOr(3, 0));
            g.track = p.tracks.get(r, g.device, g.stream);
            g.correlation = st.intOr(0, kNone);
            g.grid[0] = clampI32(st.intOr(5, 0));
            g.block[0] = clampI32(st.intOr(6, 0));
            g.grid[1] = g.grid[2] = g.block[1] = g.block[2] = 1;
            g.sharedMemory = clampI32(st.intOr(7, 0));
            g.registers = clampI32(st.intOr(8, 0));
            sqlrows::appendGpu(r, g);
            return Ok{};
        });
    if (!s) return s.error();
    if (pids.empty()) return db.error("KERN", "no kernel rows");
    sqlrows::Ranks out;
    for (auto& [pid, p] : pids) {
        RankData& r = *p.rank;
        r.rank = static_cast<int>(out.size());
        ProcessMeta meta;
        meta.pid = pid;
        r.processes.push_back(meta);
        r.stats.events = r.gpu.size();
        r.stats.bytesRead = info.fileSize;
        if (skipped)
            r.diagnostics.push_back({Severity::Warning, firstSkipped,
                                     fmt::format("{} row(s) skipped: EndNs before BeginNs or out of range (first "
                                                 "shown)", skipped)});
        out.push_back(std::move(p.rank));
    }
    return out;
}

const SourceFormat kRocprofV1DbFormat = {"rocprof-v1-db", "rocprof (v1)", "rocprof v1 results.db (SQLite kernel trace)",
                                         false, &sniffRocprofV1Db, &loadV1};

}  // namespace strobe::core
