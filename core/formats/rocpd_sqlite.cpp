#include "core/formats/rocpd_sqlite.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "core/formats/sqlite_rows.h"

namespace strobe::core {

std::string rocpdTable(const std::vector<std::string>& tables, std::string_view base) {
    for (const auto& t : tables)
        if (t == base) return t;
    for (const auto& t : tables)
        if (t.size() > base.size() + 1 && std::string_view(t).substr(0, base.size()) == base && t[base.size()] == '_')
            return t;
    return {};
}

namespace {

using sqlrows::clampI16;
using sqlrows::clampI32;

struct Event {
    int64_t correlation = kNone;
    int64_t category = -1;  // rocpd_string id
};

struct KernelSymbol {
    std::string name;
    int32_t vgpr = 0;
};

struct ProcState {
    std::unique_ptr<RankData> rank;
    sqlrows::Tracks tracks;
    std::unordered_map<int64_t, uint32_t> gpuRowByEvent;
};

class RocpdReader {
public:
    RocpdReader(const SqliteDb& db, const SourceLoadOptions& opt) : m_db(db), m_opt(opt), m_tables(db.tables()) {}
    Result<sqlrows::Ranks> run();

private:
    std::string table(std::string_view base) const { return rocpdTable(m_tables, base); }
    template <class Fn>
    Status each(std::string_view base, const std::vector<std::string>& cols, Fn&& fn) {
        const std::string t = table(base);
        if (t.empty()) return Ok{};  // optional table absent
        return sqlrows::eachRow(m_db, t, cols, std::forward<Fn>(fn));
    }
    Status readLookups();
    Status readDispatches();
    Status readCopies();
    Status readRegions();
    Status readCounters();
    ProcState* proc(int64_t processRow);
    std::string_view str(int64_t id) const {
        auto it = m_strings.find(id);
        return it == m_strings.end() ? std::string_view() : std::string_view(it->second);
    }
    Event event(int64_t id) const {
        auto it = m_events.find(id);
        return it == m_events.end() ? Event{} : it->second;
    }
    int16_t device(int64_t agent) const {
        auto it = m_agentIndex.find(agent);
        return it == m_agentIndex.end() ? clampI16(agent) : it->second;
    }
    int64_t osTid(int64_t threadRow) const {
        auto it = m_threads.find(threadRow);
        return it == m_threads.end() ? threadRow : it->second;
    }
    bool span(SqliteStatement& st, int startCol, int64_t& start, int64_t& end, Status& err) {
        auto s = st.requireInt(startCol), e = st.requireInt(startCol + 1);
        if (!s || !e) {
            err = !s ? s.error() : e.error();
            return false;
        }
        start = *s, end = *e;
        if (sqlrows::validSpan(start, end)) return true;
        if (m_skipped++ == 0) m_firstSkipped = st.error("").where;
        return false;
    }

    const SqliteDb& m_db;
    const SourceLoadOptions& m_opt;
    std::vector<std::string> m_tables;
    TraceInfo m_info;
    std::unordered_map<int64_t, std::string> m_strings;
    std::unordered_map<int64_t, Event> m_events;
    std::unordered_map<int64_t, KernelSymbol> m_symbols;
    std::unordered_map<int64_t, int16_t> m_agentIndex;  // agent row id → GPU index
    std::unordered_map<int64_t, int64_t> m_processes;   // process row id → OS pid
    std::unordered_map<int64_t, std::string> m_commands;
    std::unordered_map<int64_t, int64_t> m_threads;     // thread row id → OS tid
    std::map<int64_t, ProcState> m_procs;               // by process row id
    int64_t m_skipped = 0, m_counterRows = 0, m_counterJoined = 0;
    Location m_firstSkipped;
};

Status RocpdReader::readLookups() {
    Status s = each("rocpd_string", {"id", "string"}, [&](SqliteStatement& st) -> Status {
        m_strings[st.intOr(0, -1)] = std::string(st.text(1));
        return Ok{};
    });
    if (!s) return s;
    s = each("rocpd_event", {"id", "correlation_id", "category_id"}, [&](SqliteStatement& st) -> Status {
        m_events[st.intOr(0, -1)] = Event{st.intOr(1, kNone), st.intOr(2, -1)};
        return Ok{};
    });
    if (!s) return s;
    s = each("rocpd_info_kernel_symbol", {"id", "kernel_name", "display_name", "arch_vgpr_count"},
             [&](SqliteStatement& st) -> Status {
                 std::string_view n = st.text(1);
                 if (n.empty()) n = st.text(2);
                 m_symbols[st.intOr(0, -1)] = KernelSymbol{std::string(n), clampI32(st.intOr(3, 0))};
                 return Ok{};
             });
    if (!s) return s;
    s = each("rocpd_info_process", {"id", "pid", "command"}, [&](SqliteStatement& st) -> Status {
        m_processes[st.intOr(0, -1)] = st.intOr(1, 0);
        m_commands[st.intOr(0, -1)] = std::string(st.text(2));
        return Ok{};
    });
    if (!s) return s;
    s = each("rocpd_info_thread", {"id", "tid"}, [&](SqliteStatement& st) -> Status {
        m_threads[st.intOr(0, -1)] = st.intOr(1, 0);
        return Ok{};
    });
    if (!s) return s;
    return each("rocpd_info_agent", {"id", "type", "type_index", "logical_index", "product_name", "model_name", "name"},
                [&](SqliteStatement& st) -> Status {
                    if (st.text(1) != "GPU") return Ok{};
                    DeviceProperties d;
                    d.id = static_cast<int>(st.intOr(2, st.intOr(3, 0)));
                    for (int c : {4, 5, 6})
                        if (d.name.empty()) d.name = std::string(st.text(c));
                    m_agentIndex[st.intOr(0, -1)] = clampI16(d.id);
                    m_info.devices.push_back(std::move(d));
                    return Ok{};
                });
}

ProcState* RocpdReader::proc(int64_t processRow) {
    auto& p = m_procs[processRow];
    if (!p.rank) {
        p.rank = std::make_unique<RankData>();
        p.rank->path = m_db.path();
        p.rank->info = m_info;
    }
    return &p;
}

Status RocpdReader::readDispatches() {
    Status err = Ok{};
    return each("rocpd_kernel_dispatch",
                {"pid", "agent_id", "kernel_id", "dispatch_id", "queue_id", "start", "end", "group_segment_size",
                 "workgroup_size_x", "workgroup_size_y", "workgroup_size_z", "grid_size_x", "grid_size_y",
                 "grid_size_z", "event_id"},
                [&](SqliteStatement& st) -> Status {
                    int64_t start = 0, end = 0;
                    if (!span(st, 5, start, end, err)) return err;
                    ProcState* p = proc(st.intOr(0, 0));
                    RankData& r = *p->rank;
                    sqlrows::GpuRow g;
                    g.ts = start;
                    g.dur = end - start;
                    auto sym = m_symbols.find(st.intOr(2, -1));
                    g.name = r.strings.intern(sym == m_symbols.end() ? fmt::format("<kernel {}>", st.intOr(2, -1))
                                                                     : sym->second.name);
                    if (sym != m_symbols.end()) g.registers = sym->second.vgpr;
                    g.cat = r.strings.intern("kernel");
                    g.device = device(st.intOr(1, 0));
                    g.stream = clampI32(st.intOr(4, 0));
                    g.track = p->tracks.get(r, g.device, g.stream);
                    const int64_t eventId = st.intOr(14, -1);
                    const Event ev = event(eventId);
                    g.correlation = ev.correlation != kNone ? ev.correlation : st.intOr(3, kNone);
                    g.sharedMemory = clampI32(st.intOr(7, 0));
                    for (int i = 0; i < 3; ++i) {
                        g.block[i] = clampI32(st.intOr(8 + i, 0));
                        g.grid[i] = clampI32(st.intOr(11 + i, 0));
                    }
                    const auto row = static_cast<uint32_t>(sqlrows::appendGpu(r, g));
                    if (eventId >= 0) p->gpuRowByEvent[eventId] = row;
                    return Ok{};
                });
}

std::string copyName(std::string_view raw) {
    static const std::pair<std::string_view, std::string_view> kDirs[] = {
        {"HOST_TO_DEVICE", "HtoD"}, {"DEVICE_TO_HOST", "DtoH"}, {"DEVICE_TO_DEVICE", "DtoD"},
        {"HOST_TO_HOST", "HtoH"},   {"PEER_TO_PEER", "PtoP"}};
    for (const auto& [k, v] : kDirs)
        if (raw.find(k) != std::string_view::npos) return fmt::format("Memcpy {} ({})", v, raw);
    return fmt::format("Memcpy ({})", raw);
}

Status RocpdReader::readCopies() {
    Status err = Ok{};
    return each("rocpd_memory_copy",
                {"pid", "start", "end", "name_id", "dst_agent_id", "src_agent_id", "size", "queue_id", "event_id"},
                [&](SqliteStatement& st) -> Status {
                    int64_t start = 0, end = 0;
                    if (!span(st, 1, start, end, err)) return err;
                    ProcState* p = proc(st.intOr(0, 0));
                    RankData& r = *p->rank;
                    sqlrows::GpuRow g;
                    g.ts = start;
                    g.dur = end - start;
                    g.kind = EventKind::Memcpy;
                    g.name = r.strings.intern(copyName(str(st.intOr(3, -1))));
                    g.cat = r.strings.intern("gpu_memcpy");
                    const int64_t dst = st.intOr(4, -1), src = st.intOr(5, -1);
                    g.device = device(m_agentIndex.count(dst) ? dst : src);
                    g.stream = clampI32(st.intOr(7, 0));
                    g.track = p->tracks.get(r, g.device, g.stream);
                    g.bytes = std::max<int64_t>(0, st.intOr(6, 0));
                    const Event ev = event(st.intOr(8, -1));
                    g.correlation = ev.correlation;
                    sqlrows::appendGpu(r, g);
                    return Ok{};
                });
}

Status RocpdReader::readRegions() {
    Status err = Ok{};
    return each("rocpd_region", {"pid", "tid", "start", "end", "name_id", "event_id"},
                [&](SqliteStatement& st) -> Status {
                    int64_t start = 0, end = 0;
                    if (!span(st, 2, start, end, err)) return err;
                    ProcState* p = proc(st.intOr(0, 0));
                    RankData& r = *p->rank;
                    const Event ev = event(st.intOr(5, -1));
                    const std::string_view cat = str(ev.category);
                    sqlrows::SliceRow s;
                    s.ts = start;
                    s.dur = end - start;
                    s.name = r.strings.intern(str(st.intOr(4, -1)));
                    const bool marker = cat.find("MARKER") != std::string_view::npos;
                    const bool api = !marker && (cat.find("HIP") != std::string_view::npos ||
                                                 cat.find("HSA") != std::string_view::npos ||
                                                 cat.find("RCCL") != std::string_view::npos);
                    s.kind = marker ? EventKind::UserAnnotation : api ? EventKind::Runtime : EventKind::Unknown;
                    s.cat = r.strings.intern(cat);
                    s.track = p->tracks.get(r, m_processes.count(st.intOr(0, 0)) ? m_processes[st.intOr(0, 0)] : 0,
                                            osTid(st.intOr(1, 0)));
                    s.correlation = ev.correlation;
                    sqlrows::appendSlice(r, s);
                    return Ok{};
                });
}

Status RocpdReader::readCounters() {
    std::unordered_map<int64_t, std::string> pmcNames;
    Status s = each("rocpd_info_pmc", {"id", "name"}, [&](SqliteStatement& st) -> Status {
        pmcNames[st.intOr(0, -1)] = std::string(st.text(1));
        return Ok{};
    });
    if (!s) return s;
    return each("rocpd_pmc_event", {"event_id", "pmc_id", "value"}, [&](SqliteStatement& st) -> Status {
        ++m_counterRows;
        auto v = st.optReal(2);
        if (!v) return Ok{};
        const int64_t eventId = st.intOr(0, -1);
        for (auto& [id, p] : m_procs) {
            auto row = p.gpuRowByEvent.find(eventId);
            if (row == p.gpuRowByEvent.end()) continue;
            auto n = pmcNames.find(st.intOr(1, -1));
            RankData& r = *p.rank;
            r.kernelCounters.gpuRow.push_back(row->second);
            r.kernelCounters.name.push_back(
                r.strings.intern(n == pmcNames.end() ? fmt::format("pmc {}", st.intOr(1, -1)) : n->second));
            r.kernelCounters.value.push_back(*v);
            ++m_counterJoined;
            break;
        }
        return Ok{};
    });
}

Result<sqlrows::Ranks> RocpdReader::run() {
    if (table("rocpd_string").empty()) return m_db.error("rocpd_string", "table is missing: not a rocpd database");
    m_info.format = "rocpd";
    m_info.path = m_db.path();
    m_info.fileSize = sqlrows::fileSize(m_db.path());
    m_info.platform = Platform::Amd;
    m_info.clock.domain = ClockDomain::Boottime;
    applyClockOptions(m_info.clock, m_opt);
    (void)each("rocpd_metadata", {"tag", "value"}, [&](SqliteStatement& st) -> Status {
        if (st.text(0) == "schema_version") m_info.toolVersion = "rocpd schema " + std::string(st.text(1));
        return Ok{};
    });
    for (auto step : {&RocpdReader::readLookups, &RocpdReader::readDispatches, &RocpdReader::readCopies,
                      &RocpdReader::readRegions, &RocpdReader::readCounters})
        if (Status s = (this->*step)(); !s) return s.error();
    if (m_procs.empty())
        return m_db.error(table("rocpd_kernel_dispatch"), "no kernel dispatch, memory copy or region rows");
    sqlrows::Ranks out;
    for (auto& [row, p] : m_procs) {
        RankData& r = *p.rank;
        r.rank = static_cast<int>(out.size());
        ProcessMeta meta;
        meta.pid = m_processes.count(row) ? m_processes[row] : row;
        meta.name = r.strings.intern(m_commands[row]);
        r.processes.push_back(meta);
        r.stats.events = r.gpu.size() + r.slices.size();
        r.stats.bytesRead = m_info.fileSize;
        if (m_counterRows > 0)
            r.stats.joinMatchRate = static_cast<double>(m_counterJoined) / static_cast<double>(m_counterRows);
        if (m_counterRows > m_counterJoined)
            r.diagnostics.push_back({Severity::Warning, Location{m_db.path()},
                                     fmt::format("{} of {} counter values (rocpd_pmc_event) match no kernel dispatch",
                                                 m_counterRows - m_counterJoined, m_counterRows)});
        if (m_skipped)
            r.diagnostics.push_back({Severity::Warning, m_firstSkipped,
                                     fmt::format("{} row(s) skipped: end before start or times out of range "
                                                 "(first shown)", m_skipped)});
        out.push_back(std::move(p.rank));
    }
    return out;
}

Result<sqlrows::Ranks> loadRocpd(const SourceGroup& group, const SourceLoadOptions& opt, const CancelToken& cancel) {
    return sqlrows::openAndLoad(group, cancel, [&](const SqliteDb& db) { return loadRocpdSqliteDb(db, opt); });
}

}  // namespace

int sniffRocpdSqlite(const SniffInput& in) {
    if (!rocpdTable(in.sqliteTables, "rocpd_string").empty() &&
        (!rocpdTable(in.sqliteTables, "rocpd_kernel_dispatch").empty() ||
         !rocpdTable(in.sqliteTables, "rocpd_region").empty()))
        return 85;
    return 0;
}

Result<std::vector<std::unique_ptr<RankData>>> loadRocpdSqliteDb(const SqliteDb& db, const SourceLoadOptions& opt) {
    RocpdReader reader(db, opt);
    return reader.run();
}

const SourceFormat kRocpdSqliteFormat = {"rocpd", "rocprofv3",
                                         "rocpd SQLite database (rocprofv3 default output, schema 3)", true,
                                         &sniffRocpdSqlite, &loadRocpd};

}  // namespace strobe::core
