#include "core/formats/rpd_sqlite.h"

#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <unordered_map>

#include "core/formats/rank_builder.h"
#include "core/formats/sqlite_rows.h"

namespace strobe::core {
namespace {

using sqlrows::clampI16;
using sqlrows::clampI32;

struct KernelApi {
    int32_t grid[3] = {0, 0, 0};
    int32_t block[3] = {0, 0, 0};
    int32_t lds = 0;
    int64_t nameId = -1;
};

class RpdReader {
public:
    // `reopen` opens another connection to the same database (for reading tables on a second thread), or is empty.
    RpdReader(const SqliteDb& db, const SourceLoadOptions& opt, std::function<Result<SqliteDb>()> reopen = {})
        : m_db(db), m_opt(opt), m_reopen(std::move(reopen)) {
        m_rank = std::make_unique<RankData>();
    }
    Result<sqlrows::Ranks> run();

private:
    // The link tables and the GPU ops, read on a second connection and thread while this one reads the calls (a
    // large trace with SourceLoadOptions::threads >= 2), into a rank of their own that is then appended to this one.
    // When the ops and links outweigh the calls, the two threads share the op table: the part reads the links, says
    // where the op table is split (`split`: -1 when it could not read them), and then reads the ops after that
    // rowid; this thread reads the calls and then the ops up to it, with the part's links — in one thread's order,
    // so that appending the part gives one thread's strings, tracks and rows.
    using OpsPart = sqlrows::SidePart<RpdReader>;
    // Below this many ops one thread reads everything (a connection and a thread cost more than they save).
    static constexpr int64_t kParallelOps = 50'000;
    std::unique_ptr<OpsPart> startOpsPart(std::shared_ptr<std::promise<int64_t>> split);
    void appendOpsPart(RpdReader& part);
    // Where the op table is split so that each thread reads about as much, from the links read (0: not split).
    int64_t opSplit(int64_t ops, int64_t calls) const;
    Status readStrings();
    Status readLinks();
    Status readApi();
    Status readOps();
    Status readMonitor();
    void readInfo();
    void reserve();
    StrId str(int64_t id) {
        return m_ids.get(id, [&] { return m_rank->strings.intern(m_strings.view(id)); });
    }
    std::string_view text(int64_t id) const { return m_strings.view(id); }
    // A link table by id (api → kernel launch, api → copy size, op → api): ids below `limit` (twice the linked
    // table's rows) or near the rows read index an array of positions into the values; other ids go to a map.
    template <class T>
    struct Links {
        int64_t limit = 0;
        std::vector<uint32_t> index;  // id → 1 + position in values, 0 when none
        std::vector<T> values;
        std::unordered_map<int64_t, T> sparse;
        void set(int64_t id, const T& v, int64_t rowsRead) {
            const bool dense = id >= 0 && (id < limit || static_cast<uint64_t>(id) <
                                                           2 * static_cast<uint64_t>(rowsRead) + 65536);
            if (dense && values.size() < UINT32_MAX - 1) {
                const auto i = static_cast<size_t>(id);
                if (i >= index.size()) {
                    size_t n = std::max(i + 1, index.size() * 3 / 2);
                    if (i < index.capacity()) n = std::min(n, index.capacity());  // within reserve(): no move
                    index.resize(n, 0);
                }
                if (index[i]) {
                    values[index[i] - 1] = v;
                } else {
                    values.push_back(v);
                    index[i] = static_cast<uint32_t>(values.size());
                }
                if (!sparse.empty()) sparse.erase(id);
            } else {
                sparse[id] = v;
            }
        }
        // Room for ids below `ids` and for `rows` links, from the tables' largest rowids: growing the arrays by
        // half each time moved them (6% of a 450 MB trace's load in memmove). Capacity only: nothing is touched, and
        // large arrays are advised for huge pages before it is.
        void reserve(int64_t ids, int64_t rows) {
            reserveHuge(index, static_cast<size_t>(std::max<int64_t>(0, std::min(ids, limit > 0 ? limit : ids))));
            reserveHuge(values, static_cast<size_t>(std::max<int64_t>(0, rows)));
        }
        const T* find(int64_t id) const {
            if (id >= 0 && static_cast<uint64_t>(id) < index.size() && index[static_cast<size_t>(id)])
                return &values[index[static_cast<size_t>(id)] - 1];
            if (sparse.empty()) return nullptr;
            auto it = sparse.find(id);
            return it == sparse.end() ? nullptr : &it->second;
        }
    };
    // Visits every row of a SELECT over `table`; `fn(statement)` returns a Status.
    template <class Fn>
    Status each(const char* table, const std::vector<std::string>& cols, Fn&& fn, std::string_view tail = {}) {
        auto st = m_db.selectColumns(table, cols, tail);
        if (!st) return st.error();
        for (;;) {
            auto more = st->step();
            if (!more) return more.error();
            if (!*more) return Ok{};
            if (auto s = fn(*st); !s) return s;
        }
    }

    const SqliteDb& m_db;
    const SourceLoadOptions& m_opt;
    std::function<Result<SqliteDb>()> m_reopen;
    std::unique_ptr<RankData> m_rank;
    sqlrows::Tracks m_tracks;
    sqlrows::StringTable m_strings;
    sqlrows::IdStrings m_ids;      // string id → StrId
    sqlrows::IdStrings m_argsJson;  // args string id → StrId of {"args": "..."}
    struct LinkTables {
        Links<int64_t> opApi;  // op id → api id
        Links<KernelApi> kernelApi;
        Links<int64_t> copyBytes;  // api id → bytes
    };
    // Filled by readLinks (of the part, when it reads them), then only read by both threads.
    std::shared_ptr<LinkTables> m_links = std::make_shared<LinkTables>();
    int64_t m_skipped = 0, m_firstSkipped = -1, m_apiRows = 0;
    std::string m_skippedTable;
    // A shared op table: the rowid that this thread reads up to (0: the whole table, one reader), whether this
    // reader reads the rows after it, and the rows readOps read (the tail's row numbers follow the head's).
    int64_t m_opSplit = 0;
    bool m_opTail = false;
    int64_t m_opRows = 0;
    double m_linkCost = 0;  // the links read, in the split's units (opSplit)
};

Status RpdReader::readStrings() {
    return each("rocpd_string", {"id", "string"}, [&](SqliteStatement& st) -> Status {
        auto id = st.requireInt(0);
        if (!id) return id.error();
        m_strings.add(*id, st.text(1));
        return Ok{};
    });
}

Status RpdReader::readLinks() {
    // Api ids up to twice the calls read index arrays (rpd_tracer numbers calls 1..N, and its own from 2^31).
    m_links->kernelApi.limit = m_links->copyBytes.limit = 2 * m_apiRows + 65536;
    const auto cap = static_cast<int64_t>(m_rank->info.fileSize / 8 + 1024);
    const int64_t apiIds = m_db.maxRowid("rocpd_api", cap) + 1;
    if (m_db.hasTable("rocpd_api_ops")) {
        m_links->opApi.reserve(m_db.maxRowid("rocpd_op", cap) + 1, m_db.maxRowid("rocpd_api_ops", cap));
        auto s = each("rocpd_api_ops", {"api_id", "op_id"}, [&](SqliteStatement& st) -> Status {
            auto api = st.requireInt(0), op = st.requireInt(1);
            if (!api) return api.error();
            if (!op) return op.error();
            m_links->opApi.set(*op, *api, st.row());
            m_linkCost += 3;
            return Ok{};
        });
        if (!s) return s;
    }
    if (m_db.hasTable("rocpd_kernelapi")) {
        m_links->kernelApi.reserve(apiIds, m_db.maxRowid("rocpd_kernelapi", cap));
        auto s = each("rocpd_kernelapi", {"api_ptr_id", "gridX", "gridY", "gridZ", "workgroupX", "workgroupY",
                                          "workgroupZ", "groupSegmentSize", "kernelName_id"},
                      [&](SqliteStatement& st) -> Status {
                          auto api = st.requireInt(0);
                          if (!api) return api.error();
                          KernelApi k;
                          for (int i = 0; i < 3; ++i) {
                              k.grid[i] = clampI32(st.intOr(1 + i, 0));
                              k.block[i] = clampI32(st.intOr(4 + i, 0));
                          }
                          k.lds = clampI32(st.intOr(7, 0));
                          k.nameId = st.intOr(8, -1);
                          m_links->kernelApi.set(*api, k, st.row());
                          m_linkCost += 10;
                          return Ok{};
                      });
        if (!s) return s;
    }
    if (m_db.hasTable("rocpd_copyapi")) {
        m_links->copyBytes.reserve(apiIds, m_db.maxRowid("rocpd_copyapi", cap));
        auto s = each("rocpd_copyapi", {"api_ptr_id", "size"}, [&](SqliteStatement& st) -> Status {
            auto api = st.requireInt(0);
            if (!api) return api.error();
            m_links->copyBytes.set(*api, std::max<int64_t>(0, st.intOr(1, 0)), st.row());
            m_linkCost += 3;
            return Ok{};
        });
        if (!s) return s;
    }
    return Ok{};
}

Status RpdReader::readApi() {
    const StrId runtimeCat = m_rank->strings.intern("hip_runtime");
    const StrId hsaCat = m_rank->strings.intern("hsa_api");
    const StrId markerCat = m_rank->strings.intern("user_annotation");
    const StrId otherCat = m_rank->strings.intern("rpd_api");
    return each("rocpd_api", {"id", "pid", "tid", "start", "end", "apiName_id", "args_id"},
                [&](SqliteStatement& st) -> Status {
                    m_apiRows = st.row();
                    auto id = st.requireInt(0), start = st.requireInt(3), end = st.requireInt(4);
                    if (!id) return id.error();
                    if (!start) return start.error();
                    if (!end) return end.error();
                    if (!sqlrows::validSpan(*start, *end)) {
                        if (m_skipped++ == 0) m_firstSkipped = st.row(), m_skippedTable = "rocpd_api";
                        return Ok{};
                    }
                    sqlrows::SliceRow s;
                    s.ts = *start;
                    s.dur = *end - *start;
                    const int64_t apiId = st.intOr(5, -1), argsId = st.intOr(6, -1);
                    const std::string_view api = text(apiId);
                    if (api == "UserMarker") {
                        s.kind = EventKind::UserAnnotation;
                        s.cat = markerCat;
                        s.name = str(argsId);
                    } else {
                        const bool hip = api.substr(0, 3) == "hip", hsa = api.substr(0, 3) == "hsa";
                        s.kind = hip || hsa ? EventKind::Runtime : EventKind::Unknown;
                        s.cat = hip ? runtimeCat : hsa ? hsaCat : otherCat;
                        s.name = str(apiId);
                        if (!text(argsId).empty())
                            s.args = m_argsJson.get(argsId, [&] {
                                return m_rank->strings.intern("{\"args\": " + sqlrows::jsonString(text(argsId)) + "}");
                            });
                    }
                    s.track = m_tracks.get(*m_rank, st.intOr(1, 0), st.intOr(2, 0));
                    s.correlation = *id;
                    sqlrows::appendSlice(*m_rank, s);
                    return Ok{};
                });
}

Status RpdReader::readOps() {
    std::unordered_map<int64_t, std::pair<EventKind, StrId>> kinds;  // opType string id → kind, category
    const LinkTables& links = *m_links;
    const std::string range =
        m_opSplit <= 0 ? std::string() : fmt::format("WHERE rowid {} {}", m_opTail ? ">" : "<=", m_opSplit);
    return each("rocpd_op", {"id", "gpuId", "queueId", "start", "end", "description_id", "opType_id"},
                [&](SqliteStatement& st) -> Status {
                    ++m_opRows;
                    auto id = st.requireInt(0), start = st.requireInt(3), end = st.requireInt(4);
                    if (!id) return id.error();
                    if (!start) return start.error();
                    if (!end) return end.error();
                    if (!sqlrows::validSpan(*start, *end)) {
                        if (m_skipped++ == 0) m_firstSkipped = st.row(), m_skippedTable = "rocpd_op";
                        return Ok{};
                    }
                    const int64_t typeId = st.intOr(6, -1);
                    auto [kt, added] = kinds.try_emplace(typeId);
                    if (added) {
                        const std::string_view t = text(typeId);
                        const bool copy = t.substr(0, 4) == "Copy", fill = t == "FillBuffer";
                        kt->second.first = copy ? EventKind::Memcpy : fill ? EventKind::Memset : EventKind::Kernel;
                        kt->second.second = m_rank->strings.intern(copy   ? std::string_view("gpu_memcpy")
                                                                   : fill ? std::string_view("gpu_memset")
                                                                   : t == "KernelExecution" ? std::string_view("kernel")
                                                                                            : t);
                    }
                    sqlrows::GpuRow g;
                    g.ts = *start;
                    g.dur = *end - *start;
                    g.kind = kt->second.first;
                    g.cat = kt->second.second;
                    g.device = clampI16(st.intOr(1, 0));
                    g.stream = clampI32(st.intOr(2, 0));
                    g.queue = g.stream;
                    g.track = m_tracks.get(*m_rank, g.device, g.stream);
                    const int64_t* api = links.opApi.find(*id);
                    const int64_t apiId = api ? *api : kNone;
                    g.correlation = apiId;
                    // The name's string id: the description, else the launch's kernel name, else the op type.
                    int64_t nameId = st.intOr(5, -1);
                    if (const KernelApi* k = links.kernelApi.find(apiId)) {
                        for (int i = 0; i < 3; ++i) g.grid[i] = k->grid[i], g.block[i] = k->block[i];
                        g.sharedMemory = k->lds;
                        if (text(nameId).empty()) nameId = k->nameId;
                    }
                    if (const int64_t* c = links.copyBytes.find(apiId)) g.bytes = *c;
                    g.name = str(text(nameId).empty() ? typeId : nameId);
                    sqlrows::appendGpu(*m_rank, g);
                    return Ok{};
                },
                range);
}

Status RpdReader::readMonitor() {
    if (!m_db.hasTable("rocpd_monitor")) return Ok{};
    static const std::unordered_map<std::string_view, std::string_view> kMetrics = {
        {"sclk", "sclk_mhz"}, {"mclk", "mclk_mhz"}, {"power", "power_w"}, {"temp", "temp_c"}};
    return each("rocpd_monitor", {"deviceId", "monitorType", "start", "value"}, [&](SqliteStatement& st) -> Status {
        auto start = st.requireInt(2);
        if (!start) return start.error();
        std::optional<double> v = st.optReal(3);
        if (!v) {  // declared varchar: the value is usually text
            const std::string t(st.text(3));
            char* endp = nullptr;
            const double d = std::strtod(t.c_str(), &endp);
            if (t.empty() || endp != t.c_str() + t.size())
                return st.error(fmt::format("column value: '{}' is not a number", t.substr(0, 40)));
            v = d;
        }
        if (*start < -kMaxTimeNs || *start > kMaxTimeNs) return st.error("column start: time out of range");
        const std::string_view type = st.text(1);
        auto m = kMetrics.find(type);
        m_rank->samples.ts.push_back(*start);
        m_rank->samples.device.push_back(clampI16(st.intOr(0, -1)));
        m_rank->samples.metric.push_back(m_rank->strings.intern(m == kMetrics.end() ? type : m->second));
        m_rank->samples.value.push_back(*v);
        return Ok{};
    });
}

void RpdReader::readInfo() {
    TraceInfo& info = m_rank->info;
    info.format = "rpd";
    info.path = m_db.path();
    info.fileSize = sqlrows::fileSize(m_db.path());
    info.platform = Platform::Amd;
    info.clock.domain = ClockDomain::Boottime;
    applyClockOptions(info.clock, m_opt);
    if (!m_db.hasTable("rocpd_metadata")) return;
    (void)each("rocpd_metadata", {"tag", "value"}, [&](SqliteStatement& st) -> Status {
        if (st.text(0) == "schema_version") info.toolVersion = "rocpd schema " + std::string(st.text(1));
        return Ok{};
    });
}

// Room for every row: the tables' row counts (their largest rowid).
void RpdReader::reserve() {
    const auto cap = static_cast<int64_t>(m_rank->info.fileSize / 8 + 1024);
    const auto gpu = static_cast<size_t>(m_db.maxRowid("rocpd_op", cap));
    // + 4096: rpd_tracer's own calls, numbered from 2^31 (left out of maxRowid), would otherwise move every column
    // once more at the end of the table.
    const auto slices = static_cast<size_t>(m_db.maxRowid("rocpd_api", cap)) + 4096;
    sqlrows::reserveRows(m_rank->gpu, gpu);
    sqlrows::reserveRows(m_rank->slices, slices);
}

int64_t RpdReader::opSplit(int64_t ops, int64_t calls) const {
    // A row's cost is about its columns read plus one (stepping to it): 8 for a call or an op, 3 for an op or copy
    // link, 10 for a kernel launch's link (m_linkCost). On bench/gen_rpd_sqlite.py's trace the two threads then end
    // within a few tenths of a second of each other. This thread's share of the ops, in op rows:
    const double head = (m_linkCost + 8.0 * static_cast<double>(ops) - 8.0 * static_cast<double>(calls)) / 16;
    if (head < 0.05 * static_cast<double>(ops) || head >= 0.95 * static_cast<double>(ops)) return 0;
    return static_cast<int64_t>(head);
}

std::unique_ptr<RpdReader::OpsPart> RpdReader::startOpsPart(std::shared_ptr<std::promise<int64_t>> split) {
    const auto cap = static_cast<int64_t>(m_rank->info.fileSize / 8 + 1024);
    if (m_opt.threads < 2 || m_db.maxRowid("rocpd_op", cap) < kParallelOps) return nullptr;
    // The tables' largest rowids: their rows, where ids are dense (the links' are not: they are the calls' ids).
    const int64_t ops = m_db.hasColumn("rocpd_op", "rowid") ? 0 : m_db.maxRowid("rocpd_op", cap);
    const int64_t calls = m_db.maxRowid("rocpd_api", cap);
    return sqlrows::startSidePart<RpdReader>(
        m_reopen,
        [&](const SqliteDb& db) {
            auto r = std::make_unique<RpdReader>(db, m_opt);
            r->m_rank->info = m_rank->info;
            r->m_strings = m_strings;
            r->m_ids = sqlrows::IdStrings(m_strings.denseSize());
            r->m_apiRows = calls;  // what readApi counts here: the link arrays' bound
            r->m_links = m_links;
            r->m_opTail = true;
            r->reserve();
            return r;
        },
        [split, ops, calls](RpdReader& r) {
            Status s = r.readLinks();
            r.m_opSplit = s ? r.opSplit(ops, calls) : -1;
            split->set_value(r.m_opSplit);
            return s ? r.readOps() : s;
        });
}

void RpdReader::appendOpsPart(RpdReader& part) {
    appendRankPart(*m_rank, *part.m_rank, [this](const Track& t) { return m_tracks.get(*m_rank, t.pid, t.tid); });
    if (part.m_skipped > 0 && m_skipped == 0) {
        // The tail of a shared op table: its rows are numbered after the head's.
        m_firstSkipped = part.m_firstSkipped + (part.m_skippedTable == "rocpd_op" ? m_opRows : 0);
        m_skippedTable = part.m_skippedTable;
    }
    m_skipped += part.m_skipped;
}

Result<sqlrows::Ranks> RpdReader::run() {
    for (const char* t : {"rocpd_string", "rocpd_op", "rocpd_api"})
        if (!m_db.hasTable(t)) return m_db.error(t, "table is missing: not an RPD (rocpd schema v2) database");
    readInfo();
    if (auto s = readStrings(); !s) return s.error();
    m_ids = sqlrows::IdStrings(m_strings.denseSize());
    m_argsJson = sqlrows::IdStrings(m_strings.denseSize());
    reserve();
    // The calls first: their count bounds the api ids that the link tables index by array. The links and ops
    // beside them on a second thread, or after them on this one; the rank is the same either way.
    auto splitAt = std::make_shared<std::promise<int64_t>>();
    std::future<int64_t> split = splitAt->get_future();
    std::unique_ptr<OpsPart> part = startOpsPart(splitAt);
    Status api = readApi();
    // The head of a shared op table, once the part has read the links (else its error is the one reported).
    if (api && part && (m_opSplit = std::max<int64_t>(split.get(), 0)) > 0) api = readOps();
    if (part) part->join();
    if (!api) return api.error();
    if (part) {
        if (!part->status) {
            Error e = part->status.error();
            if (m_opSplit > 0 && e.where.table == "rocpd_op" && e.where.row > 0) e.where.row += m_opRows;
            return e;
        }
        appendOpsPart(*part->reader);
    } else {
        for (auto step : {&RpdReader::readLinks, &RpdReader::readOps})
            if (auto s = (this->*step)(); !s) return s.error();
    }
    if (auto s = readMonitor(); !s) return s.error();
    m_rank->rank = 0;
    m_rank->path = m_db.path();
    m_rank->stats.events = m_rank->gpu.size() + m_rank->slices.size();
    m_rank->stats.bytesRead = m_rank->info.fileSize;
    if (m_skipped) {
        Location where{m_db.path()};
        where.table = m_skippedTable;
        where.row = m_firstSkipped;
        m_rank->diagnostics.push_back({Severity::Warning, where,
                                       fmt::format("{} row(s) skipped: end before start or times out of range "
                                                   "(first shown)", m_skipped)});
    }
    sqlrows::Ranks out;
    out.push_back(std::move(m_rank));
    return out;
}

Result<sqlrows::Ranks> loadRpd(const SourceGroup& group, const SourceLoadOptions& opt, const CancelToken& cancel) {
    return sqlrows::openAndLoad(group, cancel, [&](const SqliteDb& db) {
        RpdReader reader(db, opt, sqlrows::reopener(db, cancel));
        return reader.run();
    });
}

}  // namespace

int sniffRpdSqlite(const SniffInput& in) {
    if (sqlrows::hasTable(in, "rocpd_op") && sqlrows::hasTable(in, "rocpd_api") &&
        sqlrows::hasTable(in, "rocpd_string"))
        return 90;
    return 0;
}

Result<std::vector<std::unique_ptr<RankData>>> loadRpdSqliteDb(const SqliteDb& db, const SourceLoadOptions& opt) {
    RpdReader reader(db, opt);
    return reader.run();
}

const SourceFormat kRpdSqliteFormat = {"rpd", "rocmProfileData (rpd_tracer)",
                                       "RPD trace: rocpd schema v2 SQLite (rocmProfileData)", false,
                                       &sniffRpdSqlite, &loadRpd};

}  // namespace strobe::core
