#include "core/formats/nsys_sqlite.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "core/formats/rank_builder.h"
#include "core/formats/sqlite_rows.h"

namespace strobe::core {
namespace {

using sqlrows::clampI16;
using sqlrows::clampI32;

constexpr const char* kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kNvtx = "NVTX_EVENTS";

int64_t pidOf(int64_t globalId) { return (globalId >> 24) & 0xFFFFFF; }
int64_t tidOf(int64_t globalTid) { return globalTid & 0xFFFFFF; }

// CUpti_ActivityMemcpyKind (stable across CUPTI releases; nsys adds the unified-memory kinds 11..13).
std::string memcpyName(int64_t kind) {
    static constexpr const char* kNames[] = {"Memcpy Unknown", "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
                                             "Memcpy AtoH",    "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
                                             "Memcpy DtoD",    "Memcpy HtoH", "Memcpy PtoP", "Memcpy HtoD (Unified)",
                                             "Memcpy DtoH (Unified)", "Memcpy DtoD (Unified)"};
    if (kind >= 0 && kind < static_cast<int64_t>(std::size(kNames))) return kNames[kind];
    return fmt::format("Memcpy kind {}", kind);
}

using sqlrows::LazyStr;

struct NsysRuntimeName {
    StrId name = LazyStr::kUnset;
    bool driver = false;
};

struct RankState {
    std::unique_ptr<RankData> rank;
    sqlrows::Tracks tracks;
    sqlrows::IdStrings names;  // StringIds id → this rank's StrId
    std::vector<NsysRuntimeName> runtimeNames;  // by StringIds id (dense ids), else computed per row
    LazyStr kernelCat, unnamedKernel, memcpyCat, memsetCat, memsetName, driverCat, runtimeCat, nvtxCat, osrtCat;
    LazyStr memAllocName, memFreeName, memCat;
    LazyStr copyNames[14];  // by copyKind (memcpyName)
};

class NsysReader {
public:
    // `reopen` opens another connection to the same database (for reading a table on a second thread), or is empty.
    NsysReader(const SqliteDb& db, const SourceLoadOptions& opt, std::function<Result<SqliteDb>()> reopen = {})
        : m_db(db), m_opt(opt), m_reopen(std::move(reopen)) {}
    Result<sqlrows::Ranks> run();

private:
    // The runtime calls, read on a second connection and thread while this one reads the GPU tables (a large
    // export with SourceLoadOptions::threads >= 2), into ranks of their own that are then appended to these. When
    // the kernel table outweighs the runtime calls, the two threads share it too: this one reads its rows up to a
    // rowid, the part the rows after it, then the copies and the runtime calls — in the order one thread reads
    // them, so that appending the part gives one thread's strings, tracks and rows.
    using RuntimePart = sqlrows::SidePart<NsysReader>;
    // Below this many runtime rows one thread reads them (a connection and a thread cost more than they save).
    static constexpr int64_t kParallelRuntimeRows = 50'000;
    std::unique_ptr<RuntimePart> startRuntimePart();
    void appendRuntimePart(NsysReader& part);
    // The part's reading: the kernel table's tail and the copies when the kernel table is shared, the runtime calls.
    Status readPart();
    // Where the kernel table is split so that each thread reads about as much (0: not split).
    int64_t kernelSplit() const;

    Status readStrings();
    void readInfo();
    Status readKernels();
    Status readMemcpy();
    Status readRuntime();
    Status readOsRuntime();
    Status readNvtx();
    Status readMemoryUsage();
    void readNames();
    RankState& rankFor(int64_t pid) {
        if (m_lastRank && pid == m_lastPid) return *m_lastRank;
        m_lastPid = pid;
        m_lastRank = &newRank(pid);
        return *m_lastRank;
    }
    RankState& newRank(int64_t pid);
    // Reserved room for the first process's rows: the tables' row counts (their largest rowid).
    void reserve(RankData& r) const;
    StrId name(RankState& r, int64_t id);
    // Columns 0, 1, 2 of an activity or runtime row (start, end, globalPid/globalTid): the span and the owner id.
    // The span is nullopt (and the row counted as skipped) when its times are unusable.
    struct Span {
        int64_t ts = 0, dur = 0, owner = 0;
    };
    Result<std::optional<Span>> readSpan(const char* table, const SqliteStatement& st);
    NsysRuntimeName runtimeName(RankState& r, int64_t nameId);
    // A row whose times are unusable: counted per table, reported once.
    void skip(const char* table, int64_t row) {
        auto& s = m_skipped[table];
        if (s.first++ == 0) s.second = row;
    }

    const SqliteDb& m_db;
    const SourceLoadOptions& m_opt;
    std::function<Result<SqliteDb>()> m_reopen;
    sqlrows::StringTable m_strings;
    std::map<int64_t, RankState> m_ranks;  // by pid
    RankState* m_lastRank = nullptr;       // the rank of the last row (rows come in runs of one process)
    int64_t m_lastPid = 0;
    TraceInfo m_info;
    std::map<std::string, std::pair<int64_t, int64_t>> m_skipped;  // table → (count, first row)
    int64_t m_nvtxOther = 0;
    int64_t m_memOtherKinds = 0;  // CUDA_GPU_MEMORY_USAGE_EVENTS rows of host or managed memory kinds: not read
    // A shared kernel table: the rowid that the first reader reads up to (0: the whole table, one reader), whether
    // this reader reads the rows after it, and the rows readKernels read (the tail's row numbers follow the head's).
    int64_t m_kernelSplit = 0;
    bool m_kernelTail = false;
    int64_t m_kernelRows = 0;
};

Status NsysReader::readStrings() {
    auto st = m_db.selectColumns("StringIds", {"id", "value"});
    if (!st) return st.error();
    for (;;) {
        auto more = st->step();
        if (!more) return more.error();
        if (!*more) break;
        auto id = st->requireInt(0);
        if (!id) return id.error();
        m_strings.add(*id, st->text(1));
    }
    return Ok{};
}

void NsysReader::readInfo() {
    m_info.format = "nsys-sqlite";
    m_info.path = m_db.path();
    m_info.fileSize = sqlrows::fileSize(m_db.path());
    m_info.platform = Platform::Nvidia;
    m_info.clock.domain = ClockDomain::SessionRelative;
    if (m_db.hasTable("META_DATA_EXPORT")) {
        if (auto st = m_db.selectColumns("META_DATA_EXPORT", {"name", "value"})) {
            while (true) {
                auto more = st->step();
                if (!more || !*more) break;
                if (st->text(0) == "EXPORT_PRODUCT_VERSION") m_info.toolVersion = std::string(st->text(1));
            }
        }
    }
    if (m_db.hasTable("TARGET_INFO_SESSION_START_TIME")) {
        if (auto st = m_db.selectColumns("TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"})) {
            auto more = st->step();
            if (more && *more && st->optInt(0)) {
                m_info.clock.anchored = true;
                m_info.clock.toRealtimeNs = *st->optInt(0);
                m_info.clock.anchor = "nsys TARGET_INFO_SESSION_START_TIME";
            }
        }
    }
    applyClockOptions(m_info.clock, m_opt);  // its own session start first
    if (!m_db.hasTable("TARGET_INFO_GPU")) return;
    auto st = m_db.selectColumns("TARGET_INFO_GPU", {"id", "name", "totalMemory", "smCount", "computeMajor",
                                                     "computeMinor", "threadsPerWarp", "maxThreadsPerBlock",
                                                     "maxRegistersPerBlock", "maxShmemPerBlock", "maxWarpsPerSm"});
    if (!st) return;
    while (true) {
        auto more = st->step();
        if (!more || !*more) break;
        DeviceProperties d;
        d.id = static_cast<int>(st->intOr(0, -1));
        d.name = std::string(st->text(1));
        d.totalGlobalMem = st->intOr(2, 0);
        d.numSms = static_cast<int>(st->intOr(3, 0));
        d.computeMajor = static_cast<int>(st->intOr(4, 0));
        d.computeMinor = static_cast<int>(st->intOr(5, 0));
        d.warpSize = static_cast<int>(st->intOr(6, 0));
        d.maxThreadsPerBlock = static_cast<int>(st->intOr(7, 0));
        d.regsPerBlock = static_cast<int>(st->intOr(8, 0));
        d.sharedMemPerBlock = static_cast<int>(st->intOr(9, 0));
        d.maxThreadsPerMultiprocessor = static_cast<int>(st->intOr(10, 0) * std::max(d.warpSize, 0));
        m_info.devices.push_back(std::move(d));
    }
    std::sort(m_info.devices.begin(), m_info.devices.end(),
              [](const DeviceProperties& a, const DeviceProperties& b) { return a.id < b.id; });
}

RankState& NsysReader::newRank(int64_t pid) {
    auto& r = m_ranks[pid];
    if (!r.rank) {
        r.rank = std::make_unique<RankData>();
        r.rank->path = m_db.path();
        r.rank->info = m_info;
        r.names = sqlrows::IdStrings(m_strings.denseSize());
        if (m_ranks.size() == 1) reserve(*r.rank);
    }
    return r;
}

void NsysReader::reserve(RankData& r) const {
    // A row takes some bytes of the file: a bound that a corrupt file's rowids cannot pass.
    const auto cap = static_cast<int64_t>(m_info.fileSize / 8 + 1024);
    int64_t gpu = 0, slices = 0;
    for (const char* t : {kKernel, kMemcpy, kMemset})
        if (m_db.hasTable(t)) gpu += m_db.maxRowid(t, cap);
    for (const char* t : {kRuntime, kNvtx})
        if (m_db.hasTable(t)) slices += m_db.maxRowid(t, cap);
    sqlrows::reserveRows(r.gpu, static_cast<size_t>(std::min(gpu, cap)));
    sqlrows::reserveRows(r.slices, static_cast<size_t>(std::min(slices, cap)));
}

StrId NsysReader::name(RankState& r, int64_t id) {
    return r.names.get(id, [&] {
        const std::string* s = m_strings.find(id);
        return s ? r.rank->strings.intern(*s) : r.rank->strings.intern(fmt::format("<string {}>", id));
    });
}

NsysRuntimeName NsysReader::runtimeName(RankState& r, int64_t nameId) {
    auto make = [&] {
        NsysRuntimeName n;
        n.name = name(r, nameId);
        const std::string_view v = r.rank->strings.view(n.name);
        n.driver = v.substr(0, 2) == "cu" && v.substr(0, 4) != "cuda";
        return n;
    };
    if (nameId < 0 || static_cast<uint64_t>(nameId) >= m_strings.denseSize()) return make();
    if (r.runtimeNames.empty()) r.runtimeNames.resize(m_strings.denseSize());
    NsysRuntimeName& n = r.runtimeNames[static_cast<size_t>(nameId)];
    if (n.name == LazyStr::kUnset) n = make();
    return n;
}

Result<std::optional<NsysReader::Span>> NsysReader::readSpan(const char* table, const SqliteStatement& st) {
    auto start = st.requireInt(0), end = st.requireInt(1), owner = st.requireInt(2);
    if (!start) return start.error();
    if (!end) return end.error();
    if (!owner) return owner.error();
    if (!sqlrows::validSpan(*start, *end)) {
        skip(table, st.row());
        return std::optional<Span>();
    }
    return std::optional<Span>(Span{*start, *end - *start, *owner});
}

Status NsysReader::readKernels() {
    if (!m_db.hasTable(kKernel)) return Ok{};
    const std::string range = m_kernelSplit <= 0 ? std::string()
                              : fmt::format("WHERE rowid {} {}", m_kernelTail ? ">" : "<=", m_kernelSplit);
    auto st = m_db.selectColumns(kKernel, {"start", "end", "globalPid", "deviceId", "streamId", "correlationId",
                                           "demangledName", "shortName", "mangledName", "registersPerThread",
                                           "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                                           "staticSharedMemory", "dynamicSharedMemory"},
                                 range);
    if (!st) return st.error();
    for (;;) {
        auto more = st->step();
        if (!more) return more.error();
        if (!*more) break;
        ++m_kernelRows;
        auto span = readSpan(kKernel, *st);
        if (!span) return span.error();
        if (!*span) continue;
        RankState& r = rankFor(pidOf((*span)->owner));
        sqlrows::GpuRow g;
        g.ts = (*span)->ts;
        g.dur = (*span)->dur;
        int64_t nameId = -1;
        for (int c : {6, 7, 8})
            if (auto v = st->optInt(c); v && m_strings.has(*v)) {
                nameId = *v;
                break;
            }
        g.name = nameId >= 0 ? name(r, nameId) : r.unnamedKernel.get(r.rank->strings, "<unnamed kernel>");
        g.cat = r.kernelCat.get(r.rank->strings, "kernel");
        g.kind = EventKind::Kernel;
        g.device = clampI16(st->intOr(3, 0));
        g.stream = clampI32(st->intOr(4, 0));
        g.track = r.tracks.get(*r.rank, g.device, g.stream);
        g.correlation = st->intOr(5, kNone);
        g.registers = clampI32(st->intOr(9, 0));
        for (int i = 0; i < 3; ++i) {
            g.grid[i] = clampI32(st->intOr(10 + i, 0));
            g.block[i] = clampI32(st->intOr(13 + i, 0));
        }
        g.sharedMemory = clampI32(st->intOr(16, 0) + st->intOr(17, 0));
        sqlrows::appendGpu(*r.rank, g);
    }
    return Ok{};
}

// Memcpy and memset share their columns but for the name.
Status NsysReader::readMemcpy() {
    for (const char* table : {kMemcpy, kMemset}) {
        if (!m_db.hasTable(table)) continue;
        const bool copy = table == kMemcpy;
        auto st = m_db.selectColumns(table, {"start", "end", "globalPid", "deviceId", "streamId", "correlationId",
                                             "bytes", copy ? "copyKind" : "memKind"});
        if (!st) return st.error();
        for (;;) {
            auto more = st->step();
            if (!more) return more.error();
            if (!*more) break;
            auto span = readSpan(table, *st);
            if (!span) return span.error();
            if (!*span) continue;
            RankState& r = rankFor(pidOf((*span)->owner));
            sqlrows::GpuRow g;
            g.ts = (*span)->ts;
            g.dur = (*span)->dur;
            if (copy) {
                const int64_t kind = st->intOr(7, 0);
                g.name = kind >= 0 && kind < static_cast<int64_t>(std::size(r.copyNames))
                             ? r.copyNames[kind].get(r.rank->strings, memcpyName(kind))
                             : r.rank->strings.intern(memcpyName(kind));
                g.cat = r.memcpyCat.get(r.rank->strings, "gpu_memcpy");
            } else {
                g.name = r.memsetName.get(r.rank->strings, "Memset (Device)");
                g.cat = r.memsetCat.get(r.rank->strings, "gpu_memset");
            }
            g.kind = copy ? EventKind::Memcpy : EventKind::Memset;
            g.device = clampI16(st->intOr(3, 0));
            g.stream = clampI32(st->intOr(4, 0));
            g.track = r.tracks.get(*r.rank, g.device, g.stream);
            g.correlation = st->intOr(5, kNone);
            g.bytes = std::max<int64_t>(0, st->intOr(6, 0));
            sqlrows::appendGpu(*r.rank, g);
        }
    }
    return Ok{};
}

Status NsysReader::readRuntime() {
    if (!m_db.hasTable(kRuntime)) return Ok{};
    auto st = m_db.selectColumns(kRuntime, {"start", "end", "globalTid", "correlationId", "nameId"});
    if (!st) return st.error();
    for (;;) {
        auto more = st->step();
        if (!more) return more.error();
        if (!*more) break;
        auto span = readSpan(kRuntime, *st);
        if (!span) return span.error();
        if (!*span) continue;
        const int64_t gtid = (*span)->owner;
        RankState& r = rankFor(pidOf(gtid));
        sqlrows::SliceRow s;
        s.ts = (*span)->ts;
        s.dur = (*span)->dur;
        const NsysRuntimeName n = runtimeName(r, st->intOr(4, -1));
        s.name = n.name;
        s.kind = n.driver ? EventKind::Driver : EventKind::Runtime;
        s.cat = n.driver ? r.driverCat.get(r.rank->strings, "cuda_driver")
                         : r.runtimeCat.get(r.rank->strings, "cuda_runtime");
        s.track = r.tracks.get(*r.rank, pidOf(gtid), tidOf(gtid));
        s.correlation = st->intOr(3, kNone);
        sqlrows::appendSlice(*r.rank, s);
    }
    return Ok{};
}

// OS runtime calls (OSRT_API: pthread, ioctl, poll, ...) of the processes that have CUDA or NVTX rows, so that
// the CPU work before the first kernel (initialisation, data loading) is on the timeline. Processes with OS calls
// only (the nsys launcher) get no rank.
Status NsysReader::readOsRuntime() {
    static constexpr const char* kOsrt = "OSRT_API";
    if (!m_db.hasTable(kOsrt) || m_ranks.empty()) return Ok{};
    auto st = m_db.selectColumns(kOsrt, {"start", "end", "globalTid", "nameId"});
    if (!st) return st.error();
    for (;;) {
        auto more = st->step();
        if (!more) return more.error();
        if (!*more) break;
        auto span = readSpan(kOsrt, *st);
        if (!span) return span.error();
        if (!*span) continue;
        const int64_t gtid = (*span)->owner;
        auto it = m_ranks.find(pidOf(gtid));
        if (it == m_ranks.end()) continue;
        RankState& r = it->second;
        sqlrows::SliceRow s;
        s.ts = (*span)->ts;
        s.dur = (*span)->dur;
        s.name = name(r, st->intOr(3, -1));
        s.kind = EventKind::OsRuntime;
        s.cat = r.osrtCat.get(r.rank->strings, "osrt");
        s.track = r.tracks.get(*r.rank, pidOf(gtid), tidOf(gtid));
        sqlrows::appendSlice(*r.rank, s);
    }
    return Ok{};
}

Status NsysReader::readNvtx() {
    if (!m_db.hasTable(kNvtx)) return Ok{};
    // Event types by name where the export has its enum table (ids have been stable: 34 mark, 59 push/pop,
    // 60 start/end).
    std::unordered_map<int64_t, std::string> types = {{34, "NvtxMark"}, {59, "NvtxPushPopRange"},
                                                      {60, "NvtxStartEndRange"}};
    if (m_db.hasTable("ENUM_NSYS_EVENT_TYPE"))
        if (auto e = m_db.selectColumns("ENUM_NSYS_EVENT_TYPE", {"id", "name"}))
            while (true) {
                auto more = e->step();
                if (!more || !*more) break;
                if (auto id = e->optInt(0)) types[*id] = std::string(e->text(1));
            }
    auto st = m_db.selectColumns(kNvtx, {"start", "end", "eventType", "text", "textId", "globalTid"});
    if (!st) return st.error();
    for (;;) {
        auto more = st->step();
        if (!more) return more.error();
        if (!*more) break;
        auto type = types.find(st->intOr(2, -1));
        const std::string_view typeName = type == types.end() ? std::string_view() : type->second;
        const bool mark = typeName == "NvtxMark";
        if (!mark && typeName != "NvtxPushPopRange" && typeName != "NvtxStartEndRange") {
            ++m_nvtxOther;  // domain/category/registration records: no time span
            continue;
        }
        auto start = st->requireInt(0), gtid = st->requireInt(5);
        if (!start) return start.error();
        if (!gtid) return gtid.error();
        const int64_t end = mark ? *start : st->intOr(1, INT64_MIN);
        if (!sqlrows::validSpan(*start, end)) {
            skip(kNvtx, st->row());
            continue;
        }
        RankState& r = rankFor(pidOf(*gtid));
        sqlrows::SliceRow s;
        s.ts = *start;
        s.dur = end - *start;
        if (auto id = st->optInt(4)) s.name = name(r, *id);
        else s.name = r.rank->strings.intern(st->text(3));
        s.kind = mark ? EventKind::CpuInstant : EventKind::UserAnnotation;
        s.phase = mark ? 'i' : 'X';
        s.cat = r.nvtxCat.get(r.rank->strings, "nvtx");
        s.track = r.tracks.get(*r.rank, pidOf(*gtid), tidOf(*gtid));
        sqlrows::appendSlice(*r.rank, s);
    }
    return Ok{};
}

// CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage=true): one row per allocation or deallocation, with start,
// globalPid, deviceId, address, bytes, memKind and memoryOperationType (documented schema; no real export with this
// table was at hand: tests build one from the documented columns). Operation 0 is Allocation and 1 Deallocation,
// memKind 2 Device, 3 Array, 5 Device Static (device-resident; 0 Pageable, 1 Pinned, 4 Managed, 6 Managed Static,
// 7 Unknown are not); both read by name from ENUM_CUDA_DEV_MEM_EVENT_OPER / ENUM_CUDA_MEM_KIND when the export has
// them. Each device-resident row becomes an instant slice of cat kNsysMemoryCategory on the process's track (pid, 0),
// named "Allocation" or "Deallocation", args "address" (hex), "size", "device_type" 1 (cuda), "device" and
// "mem_kind": what the memory timeline (core/analysis/memory_timeline.h) reads.
Status NsysReader::readMemoryUsage() {
    static constexpr const char* kTable = "CUDA_GPU_MEMORY_USAGE_EVENTS";
    if (!m_db.hasTable(kTable)) return Ok{};
    auto enumNames = [&](const char* table, std::unordered_map<int64_t, std::string> names) {
        if (m_db.hasTable(table))
            if (auto e = m_db.selectColumns(table, {"id", "name"}))
                while (true) {
                    auto more = e->step();
                    if (!more || !*more) break;
                    if (auto id = e->optInt(0)) names[*id] = std::string(e->text(1));
                }
        return names;
    };
    const auto kinds = enumNames("ENUM_CUDA_MEM_KIND", {{0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE"},
                                                        {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED"},
                                                        {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE"},
                                                        {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY"},
                                                        {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED"},
                                                        {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC"},
                                                        {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC"},
                                                        {7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN"}});
    const auto ops = enumNames("ENUM_CUDA_DEV_MEM_EVENT_OPER",
                               {{0, "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION"}, {1, "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION"}});
    auto st = m_db.selectColumns(kTable, {"start", "globalPid", "deviceId", "address", "bytes", "memKind",
                                          "memoryOperationType", "correlationId"});
    if (!st) return st.error();
    std::string args;
    for (;;) {
        auto more = st->step();
        if (!more) return more.error();
        if (!*more) break;
        auto start = st->requireInt(0), gpid = st->requireInt(1);
        if (!start) return start.error();
        if (!gpid) return gpid.error();
        if (!sqlrows::validSpan(*start, *start)) {
            skip(kTable, st->row());
            continue;
        }
        const auto kind = kinds.find(st->intOr(5, -1));
        const std::string_view kindName = kind == kinds.end() ? std::string_view() : kind->second;
        const size_t at = kindName.rfind("_KIND_");
        const std::string_view kindTail = at == std::string_view::npos ? kindName : kindName.substr(at + 6);
        if (kindTail != "DEVICE" && kindTail != "ARRAY" && kindTail != "DEVICE_STATIC") {
            ++m_memOtherKinds;
            continue;
        }
        const auto op = ops.find(st->intOr(6, -1));
        const std::string_view opName = op == ops.end() ? std::string_view() : op->second;
        const bool isFree = opName.ends_with("_DEALLOCATION");
        if (!isFree && !opName.ends_with("_ALLOCATION")) {
            skip(kTable, st->row());
            continue;
        }
        RankState& r = rankFor(pidOf(*gpid));
        args = fmt::format("{{\"address\":\"0x{:x}\",\"size\":{},\"device_type\":1,\"device\":{},\"mem_kind\":\"{}\"}}",
                           static_cast<uint64_t>(st->intOr(3, 0)), std::max<int64_t>(0, st->intOr(4, 0)),
                           st->intOr(2, 0), kindTail);
        sqlrows::SliceRow s;
        s.ts = *start;
        s.dur = 0;
        s.name = isFree ? r.memFreeName.get(r.rank->strings, "Deallocation")
                        : r.memAllocName.get(r.rank->strings, "Allocation");
        s.kind = EventKind::CpuInstant;
        s.phase = 'i';
        s.cat = r.memCat.get(r.rank->strings, kNsysMemoryCategory);
        s.track = r.tracks.get(*r.rank, pidOf(*gpid), 0);
        s.correlation = st->intOr(7, kNone);
        s.args = r.rank->strings.intern(args);
        sqlrows::appendSlice(*r.rank, s);
    }
    return Ok{};
}

// Process names (PROCESSES) and thread names (ThreadNames) of the tracks that hold events.
void NsysReader::readNames() {
    std::unordered_map<int64_t, std::string> procs;
    if (m_db.hasTable("PROCESSES"))
        if (auto st = m_db.selectColumns("PROCESSES", {"globalPid", "name"}))
            while (true) {
                auto more = st->step();
                if (!more || !*more) break;
                if (auto g = st->optInt(0)) procs[pidOf(*g)] = std::string(st->text(1));
            }
    std::unordered_map<int64_t, int64_t> threadNames;  // (pid << 24 | tid) → nameId
    if (m_db.hasTable("ThreadNames"))
        if (auto st = m_db.selectColumns("ThreadNames", {"globalTid", "nameId"}))
            while (true) {
                auto more = st->step();
                if (!more || !*more) break;
                // Keyed by (pid, tid): a globalTid's top bits (the hardware and VM ids) are not part of the match.
                if (auto g = st->optInt(0); g && st->optInt(1)) threadNames[(pidOf(*g) << 24) | tidOf(*g)] = *st->optInt(1);
            }
    for (auto& [pid, r] : m_ranks) {
        ProcessMeta p;
        p.pid = pid;
        auto it = procs.find(pid);
        p.name = r.rank->strings.intern(it == procs.end() ? std::string() : it->second);
        r.rank->processes.push_back(p);
        for (uint32_t t = 0; t < r.rank->tracks.size(); ++t) {
            const Track& tr = r.rank->tracks[t];
            if (tr.pid != pid) continue;
            auto n = threadNames.find((pid << 24) | tr.tid);
            if (n == threadNames.end()) continue;
            ThreadMeta m;
            m.track = t;
            m.name = name(r, n->second);
            r.rank->threads.push_back(m);
        }
    }
}

int64_t NsysReader::kernelSplit() const {
    // A row takes some bytes of the file: a bound that a corrupt file's rowids cannot pass.
    const auto cap = static_cast<int64_t>(m_info.fileSize / 8 + 1024);
    if (!m_db.hasTable(kKernel) || m_db.hasColumn(kKernel, "rowid")) return 0;
    const int64_t kernels = m_db.maxRowid(kKernel, cap);
    int64_t copies = 0;
    for (const char* t : {kMemcpy, kMemset})
        if (m_db.hasTable(t)) copies += m_db.maxRowid(t, cap);
    const int64_t runtime = m_db.maxRowid(kRuntime, cap);
    // A row's cost is about its columns read: 18 for a kernel, 8 for a copy, 5 for a runtime call (on
    // bench/gen_nsys_sqlite.py's export the two threads then end within a tenth of a second of each other; a
    // runtime call's own time was 0.2-0.4 of a kernel's from run to run). The head is half of everything the two
    // threads read, in kernel rows.
    const double head = (static_cast<double>(kernels) + copies * (8.0 / 18) + runtime * (5.0 / 18)) / 2;
    if (head >= 0.95 * static_cast<double>(kernels)) return 0;  // the runtime calls alone balance the kernels
    return static_cast<int64_t>(head);
}

std::unique_ptr<NsysReader::RuntimePart> NsysReader::startRuntimePart() {
    if (m_opt.threads < 2 || !m_db.hasTable(kRuntime)) return nullptr;
    const auto cap = static_cast<int64_t>(m_info.fileSize / 8 + 1024);
    if (m_db.maxRowid(kRuntime, cap) < kParallelRuntimeRows) return nullptr;
    const int64_t split = kernelSplit();
    auto part = sqlrows::startSidePart<NsysReader>(
        m_reopen,
        [&](const SqliteDb& db) {
            auto r = std::make_unique<NsysReader>(db, m_opt);
            r->m_strings = m_strings;
            r->m_info = m_info;
            r->m_kernelSplit = split;
            r->m_kernelTail = true;
            return r;
        },
        [](NsysReader& r) { return r.readPart(); });
    if (part) m_kernelSplit = split;
    return part;
}

Status NsysReader::readPart() {
    if (m_kernelSplit > 0) {
        if (Status s = readKernels(); !s) return s;
        if (Status s = readMemcpy(); !s) return s;
    }
    return readRuntime();
}

void NsysReader::appendRuntimePart(NsysReader& part) {
    for (auto& [pid, ps] : part.m_ranks) {
        RankState& r = newRank(pid);
        appendRankPart(*r.rank, *ps.rank, [&r](const Track& t) { return r.tracks.get(*r.rank, t.pid, t.tid); });
    }
    for (const auto& [table, s] : part.m_skipped) {
        auto& m = m_skipped[table];
        // The tail of a shared kernel table: its rows are numbered after the head's.
        if (m.first == 0) m.second = s.second + (table == kKernel ? m_kernelRows : 0);
        m.first += s.first;
    }
}

Result<sqlrows::Ranks> NsysReader::run() {
    if (!m_db.hasTable("StringIds")) return m_db.error("StringIds", "table is missing: not an nsys export");
    if (auto s = readStrings(); !s) return s.error();
    readInfo();
    // Kernels and copies here, the runtime calls beside them (or after them, on this thread); the ranks, strings
    // and tracks are the same either way.
    std::unique_ptr<RuntimePart> part = startRuntimePart();
    Status gpu = readKernels();
    if (gpu && m_kernelSplit <= 0) gpu = readMemcpy();  // else the part reads them, after the kernel table's tail
    if (part) part->join();
    if (!gpu) return gpu.error();
    if (part) {
        if (!part->status) {
            Error e = part->status.error();
            if (e.where.table == kKernel && e.where.row > 0) e.where.row += m_kernelRows;
            return e;
        }
        appendRuntimePart(*part->reader);
    } else if (auto s = readRuntime(); !s) {
        return s.error();
    }
    for (auto step : {&NsysReader::readNvtx, &NsysReader::readMemoryUsage})
        if (auto s = (this->*step)(); !s) return s.error();
    if (m_ranks.empty())
        return m_db.error(kKernel, "no CUDA kernel, memcpy, memset, runtime or NVTX rows in this export");
    if (auto s = readOsRuntime(); !s) return s.error();
    readNames();
    sqlrows::Ranks out;
    for (auto& [pid, r] : m_ranks) {
        RankData& rank = *r.rank;
        rank.rank = static_cast<int>(out.size());
        rank.rankSource = RankSource::FileOrder;
        rank.stats.events = rank.gpu.size() + rank.slices.size();
        rank.stats.bytesRead = m_info.fileSize;
        for (const auto& [table, s] : m_skipped) {
            Location where{m_db.path()};
            where.table = table;
            where.row = s.second;
            rank.diagnostics.push_back({Severity::Warning, where,
                                        fmt::format("{} row(s) skipped: end before start or times out of range "
                                                    "(first shown)", s.first)});
        }
        if (m_nvtxOther > 0) {
            Location where{m_db.path()};
            where.table = kNvtx;
            rank.diagnostics.push_back({Severity::Info, where,
                                        fmt::format("{} NVTX record(s) without a time span (domains, categories, "
                                                    "registered strings) not shown", m_nvtxOther)});
        }
        if (m_memOtherKinds > 0) {
            Location where{m_db.path()};
            where.table = "CUDA_GPU_MEMORY_USAGE_EVENTS";
            rank.diagnostics.push_back({Severity::Info, where,
                                        fmt::format("{} memory usage row(s) of host or managed memory (pageable, "
                                                    "pinned, managed, unknown kinds) not on the device memory "
                                                    "timeline", m_memOtherKinds)});
        }
        out.push_back(std::move(r.rank));
    }
    return out;
}

Result<sqlrows::Ranks> loadNsys(const SourceGroup& group, const SourceLoadOptions& opt, const CancelToken& cancel) {
    return sqlrows::openAndLoad(group, cancel, [&](const SqliteDb& db) {
        NsysReader reader(db, opt, sqlrows::reopener(db, cancel));
        return reader.run();
    });
}

}  // namespace

int sniffNsysSqlite(const SniffInput& in) {
    if (!sqlrows::hasTable(in, "StringIds")) return 0;
    if (sqlrows::hasTablePrefix(in, "CUPTI_ACTIVITY_KIND_") || sqlrows::hasTable(in, kNvtx)) return 90;
    if (sqlrows::hasTable(in, "TARGET_INFO_SESSION_START_TIME")) return 60;
    return 0;
}

Result<std::vector<std::unique_ptr<RankData>>> loadNsysSqliteDb(const SqliteDb& db, const SourceLoadOptions& opt) {
    NsysReader reader(db, opt);
    return reader.run();
}

const SourceFormat kNsysSqliteFormat = {
    "nsys-sqlite", "nsys", "Nsight Systems SQLite export (nsys export --type sqlite)", false, &sniffNsysSqlite,
    &loadNsys};

}  // namespace strobe::core
