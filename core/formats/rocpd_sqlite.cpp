#include "core/formats/rocpd_sqlite.h"

#include <fmt/format.h>

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <unordered_map>

#include "core/formats/rank_builder.h"
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

using sqlrows::LazyStr;

struct RocpdRegionCat {
    StrId cat = LazyStr::kUnset;
    EventKind kind = EventKind::Unknown;
};

struct ProcState {
    std::unique_ptr<RankData> rank;
    sqlrows::Tracks tracks;
    // Interned once per id (rocpd_string, kernel symbol, pmc ids), not per row:
    sqlrows::IdStrings kernelNames, regionNames, copyNames, pmcNames;
    std::unordered_map<int64_t, RocpdRegionCat> regionCats;  // by category string id
    LazyStr kernelCat, copyCat;
};

// The rocpd_pmc_event rows with a numeric value, as read (the join to the dispatches comes after every dispatch is
// read): 16 bytes a row. The values become the counter table's value column as they are (compacted where a row
// matches no dispatch); the event and pmc ids share a word (event << 24 | pmc), or, where either does not fit, the
// word is kWide and the ids are kept aside.
struct RocpdCounterRows {
    static constexpr uint64_t kWide = ~uint64_t{0};
    std::vector<double> value;
    std::vector<uint64_t> key;
    std::unordered_map<size_t, std::pair<int64_t, int64_t>> wide;  // row → (event, pmc)

    void add(int64_t event, int64_t pmc, double v) {
        if (event >= 0 && event < (int64_t{1} << 40) && pmc >= 0 && pmc < (int64_t{1} << 24)) {
            key.push_back(static_cast<uint64_t>(event) << 24 | static_cast<uint64_t>(pmc));
        } else {
            wide.emplace(key.size(), std::make_pair(event, pmc));
            key.push_back(kWide);
        }
        value.push_back(v);
    }
    std::pair<int64_t, int64_t> ids(size_t i) const {
        if (key[i] != kWide) return {static_cast<int64_t>(key[i] >> 24), static_cast<int64_t>(key[i] & 0xFFFFFF)};
        return wide.at(i);
    }
};

// An event's GPU row for the counters' join: the dispatch of the lowest process row id holding that event (its last
// row when several), as the walk over the processes in order found it.
struct RocpdEventRow {
    int64_t proc = INT64_MAX;
    uint32_t row = 0;
};

// What the rows refer to, read once (readLookups) and then only read, by the readers of both threads.
struct RocpdLookups {
    sqlrows::StringTable strings;
    // rocpd_event by id: ids 1..N in rowid order index a vector; others a map.
    std::vector<Event> eventsDense;
    std::vector<uint8_t> eventPresent;
    std::unordered_map<int64_t, Event> events;
    std::unordered_map<int64_t, KernelSymbol> symbols;
    std::unordered_map<int64_t, int16_t> agentIndex;  // agent row id → GPU index
    std::unordered_map<int64_t, int64_t> processes;   // process row id → OS pid
    std::unordered_map<int64_t, std::string> commands;
    std::unordered_map<int64_t, int64_t> threads;     // thread row id → OS tid
};

class RocpdReader {
public:
    // `reopen` opens another connection to the same database (for reading a table on a second thread), or is empty.
    RocpdReader(const SqliteDb& db, const SourceLoadOptions& opt, std::function<Result<SqliteDb>()> reopen = {})
        : m_db(db), m_opt(opt), m_reopen(std::move(reopen)), m_tables(db.tables()),
          m_look(std::make_shared<RocpdLookups>()) {}
    Result<sqlrows::Ranks> run();

private:
    // The counter values, copies and regions (API calls, markers), read on a second connection and thread while
    // this one reads the lookups and then the dispatches (a large database with SourceLoadOptions::threads >= 2):
    // the counter values first (they need no lookup), then, once this thread has read the lookups (`ready` says
    // whether it could), the copies and regions into ranks of their own. Their rows are appended to these ranks
    // and the counter values joined to the dispatches here, in one thread's order.
    using RegionsPart = sqlrows::SidePart<RocpdReader>;
    // Below this many regions one thread reads everything (a connection and a thread cost more than they save).
    static constexpr int64_t kParallelRegions = 50'000;
    std::unique_ptr<RegionsPart> startRegionsPart(std::shared_future<bool> ready);
    void appendRegionsPart(RocpdReader& part);
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
    Status readCounterRows();                            // rocpd_pmc_event into m_counterValues
    Status joinCounters(RocpdCounterRows& rows);  // to the dispatches read
    ProcState* proc(int64_t processRow) {
        if (m_lastProc && processRow == m_lastProcRow) return m_lastProc;
        m_lastProcRow = processRow;
        m_lastProc = newProc(processRow);
        return m_lastProc;
    }
    ProcState* newProc(int64_t processRow);
    void reserve(RankData& r) const;
    int64_t maxRowid(std::string_view base) const;
    std::string_view str(int64_t id) const { return m_look->strings.view(id); }
    Event event(int64_t id) const {
        if (id >= 0 && static_cast<uint64_t>(id) < m_look->eventsDense.size()) {
            if (m_look->eventPresent[static_cast<size_t>(id)]) return m_look->eventsDense[static_cast<size_t>(id)];
        }
        if (m_look->events.empty()) return Event{};
        auto it = m_look->events.find(id);
        return it == m_look->events.end() ? Event{} : it->second;
    }
    void noteEventRow(int64_t eventId, int64_t procRow, uint32_t row);
    int16_t device(int64_t agent) const {
        auto it = m_look->agentIndex.find(agent);
        return it == m_look->agentIndex.end() ? clampI16(agent) : it->second;
    }
    int64_t osTid(int64_t threadRow) const {
        auto it = m_look->threads.find(threadRow);
        return it == m_look->threads.end() ? threadRow : it->second;
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
    std::function<Result<SqliteDb>()> m_reopen;
    std::vector<std::string> m_tables;
    TraceInfo m_info;
    std::shared_ptr<RocpdLookups> m_look;
    // For the counters: each event's dispatch row. Dense event ids index m_eventSlot (1 + position in m_eventRows,
    // 0 for none: 4 bytes an event, where most events are regions and copies), others m_eventRowsSparse.
    std::vector<uint32_t> m_eventSlot;
    std::vector<RocpdEventRow> m_eventRows;
    RocpdCounterRows m_counterValues;  // read by readCounterRows, not yet joined
    std::unordered_map<int64_t, RocpdEventRow> m_eventRowsSparse;
    bool m_hasCounters = false;
    ProcState* m_lastProc = nullptr;
    int64_t m_lastProcRow = 0;
    std::map<int64_t, ProcState> m_procs;               // by process row id
    int64_t m_skipped = 0, m_counterRows = 0, m_counterJoined = 0;
    Location m_firstSkipped;
};

Status RocpdReader::readLookups() {
    Status s = each("rocpd_string", {"id", "string"}, [&](SqliteStatement& st) -> Status {
        m_look->strings.add(st.intOr(0, -1), st.text(1));
        return Ok{};
    });
    if (!s) return s;
    const int64_t events = maxRowid("rocpd_event");
    reserveHuge(m_look->eventsDense, static_cast<size_t>(events) + 1);
    reserveHuge(m_look->eventPresent, static_cast<size_t>(events) + 1);
    s = each("rocpd_event", {"id", "correlation_id", "category_id"}, [&](SqliteStatement& st) -> Status {
        const int64_t id = st.intOr(0, -1);
        const Event e{st.intOr(1, kNone), st.intOr(2, -1)};
        // Dense when the id is at most a constant past twice the rows read: hostile ids go to the map.
        if (id >= 0 && static_cast<uint64_t>(id) < 2 * static_cast<uint64_t>(st.row()) + 65536) {
            const auto i = static_cast<size_t>(id);
            if (i >= m_look->eventsDense.size()) {
                m_look->eventsDense.resize(i + 1);
                m_look->eventPresent.resize(i + 1, 0);
            }
            m_look->eventsDense[i] = e;
            m_look->eventPresent[i] = 1;
            if (!m_look->events.empty()) m_look->events.erase(id);
        } else {
            m_look->events[id] = e;
        }
        return Ok{};
    });
    if (!s) return s;
    s = each("rocpd_info_kernel_symbol", {"id", "kernel_name", "display_name", "arch_vgpr_count"},
             [&](SqliteStatement& st) -> Status {
                 std::string_view n = st.text(1);
                 if (n.empty()) n = st.text(2);
                 m_look->symbols[st.intOr(0, -1)] = KernelSymbol{std::string(n), clampI32(st.intOr(3, 0))};
                 return Ok{};
             });
    if (!s) return s;
    s = each("rocpd_info_process", {"id", "pid", "command"}, [&](SqliteStatement& st) -> Status {
        m_look->processes[st.intOr(0, -1)] = st.intOr(1, 0);
        m_look->commands[st.intOr(0, -1)] = std::string(st.text(2));
        return Ok{};
    });
    if (!s) return s;
    s = each("rocpd_info_thread", {"id", "tid"}, [&](SqliteStatement& st) -> Status {
        m_look->threads[st.intOr(0, -1)] = st.intOr(1, 0);
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
                    m_look->agentIndex[st.intOr(0, -1)] = clampI16(d.id);
                    m_info.devices.push_back(std::move(d));
                    return Ok{};
                });
}

ProcState* RocpdReader::newProc(int64_t processRow) {
    auto& p = m_procs[processRow];
    if (!p.rank) {
        p.rank = std::make_unique<RankData>();
        p.rank->path = m_db.path();
        p.rank->info = m_info;
        p.kernelNames = sqlrows::IdStrings(m_look->symbols.size() * 2 + 64);
        p.regionNames = sqlrows::IdStrings(m_look->strings.denseSize());
        p.copyNames = sqlrows::IdStrings(m_look->strings.denseSize());
        if (m_procs.size() == 1) reserve(*p.rank);
    }
    return &p;
}

// The row count (largest rowid) of a rocpd table: its UUID-suffixed tables (the unsuffixed name is a view).
int64_t RocpdReader::maxRowid(std::string_view base) const {
    const auto cap = static_cast<int64_t>(m_info.fileSize / 8 + 1024);
    int64_t n = 0;
    for (const auto& t : m_tables)
        if (t.size() > base.size() + 1 && std::string_view(t).substr(0, base.size()) == base && t[base.size()] == '_')
            n += m_db.maxRowid(t, cap);
    return std::min(n, cap);
}

// Room for the first process's rows.
void RocpdReader::reserve(RankData& r) const {
    const auto gpu = static_cast<size_t>(maxRowid("rocpd_kernel_dispatch") + maxRowid("rocpd_memory_copy"));
    const auto slices = static_cast<size_t>(maxRowid("rocpd_region"));
    sqlrows::reserveRows(r.gpu, gpu);
    sqlrows::reserveRows(r.slices, slices);
}

void RocpdReader::noteEventRow(int64_t eventId, int64_t procRow, uint32_t row) {
    if (!m_hasCounters || eventId < 0) return;
    RocpdEventRow* e = nullptr;
    if (static_cast<uint64_t>(eventId) < m_look->eventsDense.size()) {
        if (m_eventSlot.size() < m_look->eventsDense.size()) {
            assignHuge(m_eventSlot, m_look->eventsDense.size(), 0u);
            reserveHuge(m_eventRows, static_cast<size_t>(maxRowid("rocpd_kernel_dispatch")));  // one a dispatch
        }
        uint32_t& slot = m_eventSlot[static_cast<size_t>(eventId)];
        if (slot == 0) {
            m_eventRows.emplace_back();
            slot = static_cast<uint32_t>(m_eventRows.size());
        }
        e = &m_eventRows[slot - 1];
    } else {
        e = &m_eventRowsSparse[eventId];
    }
    if (procRow <= e->proc) *e = RocpdEventRow{procRow, row};
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
                    const int64_t kernelId = st.intOr(2, -1);
                    auto sym = m_look->symbols.find(kernelId);
                    g.name = p->kernelNames.get(kernelId, [&] {
                        return r.strings.intern(sym == m_look->symbols.end() ? fmt::format("<kernel {}>", kernelId)
                                                                       : sym->second.name);
                    });
                    if (sym != m_look->symbols.end()) g.registers = sym->second.vgpr;
                    g.cat = p->kernelCat.get(r.strings, "kernel");
                    g.device = device(st.intOr(1, 0));
                    g.stream = clampI32(st.intOr(4, 0));
                    g.queue = g.stream;
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
                    noteEventRow(eventId, m_lastProcRow, row);
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
                    const int64_t nameId = st.intOr(3, -1);
                    g.name = p->copyNames.get(nameId, [&] { return r.strings.intern(copyName(str(nameId))); });
                    g.cat = p->copyCat.get(r.strings, "gpu_memcpy");
                    const int64_t dst = st.intOr(4, -1), src = st.intOr(5, -1);
                    g.device = device(m_look->agentIndex.count(dst) ? dst : src);
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
                    sqlrows::SliceRow s;
                    s.ts = start;
                    s.dur = end - start;
                    const int64_t nameId = st.intOr(4, -1);
                    s.name = p->regionNames.get(nameId, [&] { return r.strings.intern(str(nameId)); });
                    RocpdRegionCat& rc = p->regionCats[ev.category];
                    if (rc.cat == LazyStr::kUnset) {
                        const std::string_view cat = str(ev.category);
                        const bool marker = cat.find("MARKER") != std::string_view::npos;
                        const bool api = !marker && (cat.find("HIP") != std::string_view::npos ||
                                                     cat.find("HSA") != std::string_view::npos ||
                                                     cat.find("RCCL") != std::string_view::npos);
                        rc.kind = marker ? EventKind::UserAnnotation : api ? EventKind::Runtime : EventKind::Unknown;
                        rc.cat = r.strings.intern(cat);
                    }
                    s.kind = rc.kind;
                    s.cat = rc.cat;
                    auto pid = m_look->processes.find(m_lastProcRow);
                    s.track = p->tracks.get(r, pid != m_look->processes.end() ? pid->second : 0, osTid(st.intOr(1, 0)));
                    s.correlation = ev.correlation;
                    sqlrows::appendSlice(r, s);
                    return Ok{};
                });
}

Status RocpdReader::readCounterRows() {
    const auto rows = static_cast<size_t>(maxRowid("rocpd_pmc_event"));
    reserveHuge(m_counterValues.value, rows);
    reserveHuge(m_counterValues.key, rows);
    return each("rocpd_pmc_event", {"event_id", "pmc_id", "value"}, [&](SqliteStatement& st) -> Status {
        ++m_counterRows;
        if (auto v = st.optReal(2)) m_counterValues.add(st.intOr(0, -1), st.intOr(1, -1), *v);
        return Ok{};
    });
}

Status RocpdReader::joinCounters(RocpdCounterRows& rows) {
    std::unordered_map<int64_t, std::string> pmcNames;
    Status s = each("rocpd_info_pmc", {"id", "name"}, [&](SqliteStatement& st) -> Status {
        pmcNames[st.intOr(0, -1)] = std::string(st.text(1));
        return Ok{};
    });
    if (!s) return s;
    // One process (the usual database): its counter columns sized once, and the values column is the rows' own,
    // compacted in place.
    ProcState* only = m_procs.size() == 1 && m_procs.begin()->second.rank->kernelCounters.size() == 0
                          ? &m_procs.begin()->second
                          : nullptr;
    if (only) {
        sqlrows::reserveRows(only->rank->kernelCounters, rows.key.size());
        only->rank->kernelCounters.value = Column<double>();
    }
    size_t kept = 0;
    for (size_t i = 0; i < rows.key.size(); ++i) {
        const std::pair<int64_t, int64_t> ids = rows.ids(i);
        const int64_t event = ids.first, pmc = ids.second;  // clang 14: a lambda cannot capture a structured binding
        const RocpdEventRow* e = nullptr;
        if (event >= 0 && static_cast<uint64_t>(event) < m_eventSlot.size()) {
            if (const uint32_t slot = m_eventSlot[static_cast<size_t>(event)]) e = &m_eventRows[slot - 1];
        } else if (auto it = m_eventRowsSparse.find(event); it != m_eventRowsSparse.end()) {
            e = &it->second;
        }
        if (!e || e->proc == INT64_MAX) continue;
        ProcState& p = m_procs.at(e->proc);
        RankData& r = *p.rank;
        r.kernelCounters.gpuRow.push_back(e->row);
        r.kernelCounters.name.push_back(p.pmcNames.get(pmc, [&] {
            auto n = pmcNames.find(pmc);
            return r.strings.intern(n == pmcNames.end() ? fmt::format("pmc {}", pmc) : n->second);
        }));
        if (only)
            rows.value[kept++] = rows.value[i];
        else
            r.kernelCounters.value.push_back(rows.value[i]);
        ++m_counterJoined;
    }
    if (only) {
        rows.value.resize(kept);
        only->rank->kernelCounters.value = Column<double>(std::move(rows.value));
    }
    return Ok{};
}

std::unique_ptr<RocpdReader::RegionsPart> RocpdReader::startRegionsPart(std::shared_future<bool> ready) {
    if (m_opt.threads < 2 || maxRowid("rocpd_region") < kParallelRegions) return nullptr;
    return sqlrows::startSidePart<RocpdReader>(
        m_reopen,
        [&](const SqliteDb& db) {
            auto r = std::make_unique<RocpdReader>(db, m_opt);
            r->m_info = m_info;
            r->m_look = m_look;  // filled by this thread before `ready`, then only read by both
            r->m_hasCounters = m_hasCounters;
            return r;
        },
        [ready](RocpdReader& r) {
            const Status counters = r.m_hasCounters ? r.readCounterRows() : Status(Ok{});
            if (!ready.get()) return Status(Error("the lookups could not be read"));  // this thread reports why
            // One thread meets the copies and regions first.
            if (Status copies = r.readCopies(); !copies) return copies;
            if (Status regions = r.readRegions(); !regions) return regions;
            return counters;
        });
}

void RocpdReader::appendRegionsPart(RocpdReader& part) {
    for (auto& [row, ps] : part.m_procs) {
        ProcState* p = newProc(row);
        appendRankPart(*p->rank, *ps.rank, [p](const Track& t) { return p->tracks.get(*p->rank, t.pid, t.tid); });
    }
    if (part.m_skipped > 0 && m_skipped == 0) m_firstSkipped = part.m_firstSkipped;
    m_skipped += part.m_skipped;
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
    m_hasCounters = !table("rocpd_pmc_event").empty();
    // The lookups and dispatches here, the counter values, copies and regions beside them (or after them, on this
    // thread); the ranks, strings and tracks are the same either way. The counters joined last, to the dispatches.
    std::promise<bool> lookupsRead;
    std::unique_ptr<RegionsPart> part = startRegionsPart(lookupsRead.get_future().share());
    // Declared after `part`: on an early return the part's thread is told before it is joined.
    struct Tell {
        std::promise<bool>& p;
        bool told = false;
        void operator()(bool ok) {
            if (!told) p.set_value(ok);
            told = true;
        }
        ~Tell() { (*this)(false); }
    } tell{lookupsRead};
    const Status looked = readLookups();
    tell(static_cast<bool>(looked));
    if (!looked) return looked.error();
    Status gpu = readDispatches();
    if (gpu && !part) gpu = readCopies();
    if (part) part->join();
    if (!gpu) return gpu.error();
    if (part) {
        if (!part->status) return part->status.error();
        appendRegionsPart(*part->reader);
        m_counterRows = part->reader->m_counterRows;
        m_counterValues = std::move(part->reader->m_counterValues);
    } else {
        if (Status s = readRegions(); !s) return s.error();
        if (m_hasCounters)
            if (Status s = readCounterRows(); !s) return s.error();
    }
    // Every table that looks events up is read and the part's thread has ended: the event lookups (16 bytes an
    // event) are freed before the counters' join adds its columns, the event → dispatch map after it. (`v = {}`
    // would keep a vector's memory: an empty braced list picks the initializer_list assignment.)
    std::vector<Event>().swap(m_look->eventsDense);
    std::vector<uint8_t>().swap(m_look->eventPresent);
    std::unordered_map<int64_t, Event>().swap(m_look->events);
    if (m_hasCounters)
        if (Status s = joinCounters(m_counterValues); !s) return s.error();
    m_counterValues = {};
    std::vector<uint32_t>().swap(m_eventSlot);
    std::vector<RocpdEventRow>().swap(m_eventRows);
    std::unordered_map<int64_t, RocpdEventRow>().swap(m_eventRowsSparse);
    if (m_procs.empty())
        return m_db.error(table("rocpd_kernel_dispatch"), "no kernel dispatch, memory copy or region rows");
    sqlrows::Ranks out;
    for (auto& [row, p] : m_procs) {
        RankData& r = *p.rank;
        r.rank = static_cast<int>(out.size());
        ProcessMeta meta;
        meta.pid = m_look->processes.count(row) ? m_look->processes[row] : row;
        meta.name = r.strings.intern(m_look->commands[row]);
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
    return sqlrows::openAndLoad(group, cancel, [&](const SqliteDb& db) {
        RocpdReader reader(db, opt, sqlrows::reopener(db, cancel));
        return reader.run();
    });
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
