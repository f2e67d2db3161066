#include "core/formats/rocprofv3_csv.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/formats/rank_builder.h"
#include "core/io/csv_reader.h"
#include "core/io/huge_pages.h"

namespace strobe::core {

namespace {

bool hasRocprofv3Csv(const std::vector<std::string>& h, std::string_view name) {
    return std::find(h.begin(), h.end(), name) != h.end();
}

// "Agent 4" (ROCm 6.3+) or "4": the agent's number, -1 when neither.
int64_t agentNumber(std::string_view s) {
    if (s.substr(0, 6) == "Agent ") s.remove_prefix(6);
    if (s.empty() || s.size() > 9) return -1;
    int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}

void appendJsonEscaped(std::string& out, std::string_view s) {
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned char>(c));
            continue;
        }
        out += c;
    }
}

std::string jsonEscaped(std::string_view s) {
    std::string out;
    appendJsonEscaped(out, s);
    return out;
}

// Dispatch_Id → gpu row without a node per kernel (an unordered_map allocated one per row, and a hash table's
// random probes missed the cache on every row). rocprofv3 numbers dispatches 1, 2, 3... per process: ids up to
// about twice the count seen so far index a vector directly (sequential writes); others go to a map. The first row
// of an id is kept, as map emplace did.
class DispatchIndex {
public:
    bool empty() const { return m_count == 0; }
    // The row of `id`, or nullptr.
    const uint32_t* find(int64_t id) const {
        if (id >= 0 && static_cast<uint64_t>(id) < m_dense.size() && m_dense[static_cast<size_t>(id)] != kNoRow)
            return &m_dense[static_cast<size_t>(id)];
        if (m_sparse.empty()) return nullptr;
        auto it = m_sparse.find(id);
        return it == m_sparse.end() ? nullptr : &it->second;
    }
    void reserve(size_t n) { m_dense.reserve(m_dense.size() + n + 1); }
    // Adds id → row unless id is present; returns the row stored for id.
    uint32_t emplace(int64_t id, uint32_t row) {
        if (const uint32_t* had = find(id)) return *had;
        ++m_count;
        if (id >= 0 && static_cast<uint64_t>(id) < 2 * m_count + 65536) {
            const auto i = static_cast<size_t>(id);
            if (i >= m_dense.size()) m_dense.resize(i + 1, kNoRow);
            return m_dense[i] = row;
        }
        return m_sparse.emplace(id, row).first->second;
    }

private:
    static constexpr uint32_t kNoRow = UINT32_MAX;
    std::vector<uint32_t> m_dense;
    std::map<int64_t, uint32_t> m_sparse;
    size_t m_count = 0;
};

class Rocprofv3Loader {
public:
    Rocprofv3Loader(RankData& r, int threads) : m_b(r), m_threads(threads) {}

    Status load(Rocprofv3CsvKind kind, CsvReader& in);
    void finish();

private:
    struct KernelColumns {
        int name = -1, agent = -1, stream = -1, queue = -1, dispatch = -1, corr = -1, vgpr = -1, lds = -1;
        std::array<int, 3> grid{}, block{};
    };
    struct KernelPart;
    // Below this a kernel trace is read on one thread (a second one's start and the append cost more than it saves).
    static constexpr size_t kParallelBytes = size_t{16} << 20;
    static KernelColumns kernelColumns(const CsvReader& in);
    GpuRow kernelRow(const CsvReader& in, const KernelColumns& c, int64_t ts, int64_t dur) const;
    Status agents(CsvReader& in);
    Status kernels(CsvReader& in);
    Status counters(CsvReader& in);
    Status copies(CsvReader& in);
    Status memoryOps(CsvReader& in, std::string_view cat);
    Status apis(CsvReader& in);
    Status stats(CsvReader& in);
    int16_t device(std::string_view agent) const;
    Error missing(const CsvReader& in, std::string_view column) const {
        return Error(Location{in.fileName()}, fmt::format("no column {} in the header", column));
    }
    // Calls row(ts, dur) for every row of a table timed by Start_Timestamp / End_Timestamp (ns); a table without
    // them, or a time that is not an integer, is an error naming the file and row.
    // `reserve(n)` is called once, after the first rows, with the rows the whole file will likely hold.
    template <class Reserve, class Row>
    Status eachTimedRow(CsvReader& in, Reserve&& reserve, Row&& row) const {
        const int start = in.column("Start_Timestamp"), end = in.column("End_Timestamp");
        if (start < 0 || end < 0) return missing(in, "Start_Timestamp/End_Timestamp");
        const size_t firstRow = in.position();
        for (size_t rows = 0;; ++rows) {
            if (rows == kSampleRows) reserve(expectedRows(in, firstRow, rows));
            auto more = in.next();
            if (!more) return more.error();
            if (!*more) return Ok{};
            auto s = in.toInt(start), e = in.toInt(end);
            if (!s || !e) return in.error("Start_Timestamp/End_Timestamp is not an integer");
            row(*s, *e - *s);
        }
    }
    // The rows of the whole text, from the bytes the first `rows` took (5% over): the columns are reserved once
    // instead of doubling, which copies each column and faults its pages in again every time (a 300 MB kernel
    // trace spent a fifth of its load there). Untouched capacity is address space, not resident memory.
    static constexpr size_t kSampleRows = 1024;
    static size_t expectedRows(const CsvReader& in, size_t firstRow, size_t rows) {
        const size_t used = in.position() - firstRow;
        if (used == 0 || in.textSize() <= firstRow) return rows;
        return static_cast<size_t>(static_cast<double>(in.textSize() - firstRow) / static_cast<double>(used) *
                                   static_cast<double>(rows) * 1.05) + 16;
    }
    template <class Table>
    static void reserveTable(Table& t, size_t rows) {
        t.visitColumns([rows](const char*, auto& column) {
            auto& v = column.mut();
            v.reserve(rows);
            adviseHugePages(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(v[0]));
        });
    }

    RankBuilder m_b;
    int m_threads = 1;
    std::map<int64_t, int16_t> m_agentToDevice;  // from agent_info: agent number → GPU index
    std::map<int64_t, bool> m_agentIsGpu;
    DispatchIndex m_byDispatch;  // Dispatch_Id → gpu row
    uint64_t m_counterRows = 0, m_counterMatched = 0;
    std::map<std::string, uint64_t, std::less<>> m_unmatched;
};

int16_t Rocprofv3Loader::device(std::string_view agent) const {
    const int64_t n = agentNumber(agent);
    auto it = m_agentToDevice.find(n);
    if (it != m_agentToDevice.end()) return it->second;
    return static_cast<int16_t>(std::clamp<int64_t>(n, -1, INT16_MAX));
}

Status Rocprofv3Loader::agents(CsvReader& in) {
    const int node = in.column({"Logical_Node_Id", "Node_Id", "Agent_Id"});
    const int type = in.column({"Agent_Type", "Type"});
    const int name = in.column({"Name", "Gfx_Name"});
    const int product = in.column({"Product_Name", "Marketing_Name"});
    const int wave = in.column({"Wave_Front_Size", "Wavefront_Size"});
    const int cus = in.column({"Cu_Count", "Compute_Unit_Count"});
    if (node < 0) return missing(in, "Logical_Node_Id");
    std::vector<std::pair<int64_t, DeviceProperties>> gpus;
    for (;;) {
        auto more = in.next();
        if (!more) return more.error();
        if (!*more) break;
        const int64_t id = agentNumber(in.field(node));
        const std::string_view t = in.field(type);
        const bool gpu = t == "GPU" || t == "2" || t.find("GPU") != std::string_view::npos;
        m_agentIsGpu[id] = gpu;
        if (!gpu) continue;
        DeviceProperties d;
        d.name = std::string(product >= 0 && !in.field(product).empty() ? in.field(product) : in.field(name));
        d.warpSize = static_cast<int>(in.toInt(wave).value_or(0));
        d.numSms = static_cast<int>(in.toInt(cus).value_or(0));
        d.rawJson = fmt::format("{{\"arch\":\"{}\",\"agent\":{}}}", jsonEscaped(in.field(name)), id);
        gpus.emplace_back(id, std::move(d));
    }
    std::sort(gpus.begin(), gpus.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < gpus.size(); ++i) {
        m_agentToDevice[gpus[i].first] = static_cast<int16_t>(i);
        gpus[i].second.id = static_cast<int>(i);
        m_b.rank().info.devices.push_back(std::move(gpus[i].second));
    }
    return Ok{};
}

Rocprofv3Loader::KernelColumns Rocprofv3Loader::kernelColumns(const CsvReader& in) {
    KernelColumns c;
    c.name = in.column({"Kernel_Name", "Kernel-Name"});
    c.agent = in.column("Agent_Id");
    c.stream = in.column("Stream_Id");
    c.queue = in.column("Queue_Id");
    c.dispatch = in.column("Dispatch_Id");
    c.corr = in.column("Correlation_Id");
    c.grid = {in.column({"Grid_Size_X", "Grid_Size"}), in.column("Grid_Size_Y"), in.column("Grid_Size_Z")};
    c.block = {in.column({"Workgroup_Size_X", "Workgroup_Size"}), in.column("Workgroup_Size_Y"),
               in.column("Workgroup_Size_Z")};
    c.vgpr = in.column({"VGPR_Count", "Arch_VGPR_Count"});
    c.lds = in.column("LDS_Block_Size");
    return c;
}

GpuRow Rocprofv3Loader::kernelRow(const CsvReader& in, const KernelColumns& c, int64_t ts, int64_t dur) const {
    GpuRow g;
    g.ts = ts;
    g.dur = dur;
    g.name = in.field(c.name);
    g.cat = "KERNEL_DISPATCH";
    g.kind = EventKind::Kernel;
    g.device = device(in.field(c.agent));
    g.stream = static_cast<int32_t>(in.toInt(c.stream >= 0 ? c.stream : c.queue).value_or(0));
    g.queue = static_cast<int32_t>(in.toInt(c.queue).value_or(-1));
    g.correlation = in.toInt(c.corr).value_or(kNone);
    for (int k = 0; k < 3; ++k) {
        g.grid[k] = static_cast<int32_t>(std::clamp<int64_t>(in.toInt(c.grid[k]).value_or(k ? 1 : 0), 0, INT32_MAX));
        g.block[k] = static_cast<int32_t>(std::clamp<int64_t>(in.toInt(c.block[k]).value_or(k ? 1 : 0), 0, INT32_MAX));
    }
    g.registers = static_cast<int32_t>(std::clamp<int64_t>(in.toInt(c.vgpr).value_or(0), 0, INT32_MAX));
    g.sharedMemory = static_cast<int32_t>(std::clamp<int64_t>(in.toInt(c.lds).value_or(0), 0, INT32_MAX));
    return g;
}

// The second half of a large kernel trace, read on its own thread into its own rank, then appended.
struct Rocprofv3Loader::KernelPart {
    explicit KernelPart(CsvReader reader) : in(std::move(reader)), b(rank) {}
    CsvReader in;
    RankData rank;
    RankBuilder b;
    std::vector<std::optional<int64_t>> dispatch;  // each row's Dispatch_Id
    Status status = Ok{};
};

Status Rocprofv3Loader::kernels(CsvReader& in) {
    const KernelColumns c = kernelColumns(in);
    if (c.name < 0) return missing(in, "Kernel_Name");
    auto reserve = [&](size_t rows) {
        reserveTable(m_b.rank().gpu, m_b.rank().gpu.size() + rows);
        m_byDispatch.reserve(rows);
    };
    auto row = [&](int64_t ts, int64_t dur) {
        const uint32_t r = m_b.addGpu(kernelRow(in, c, ts, dur));
        if (auto d = in.toInt(c.dispatch)) m_byDispatch.emplace(*d, r);
    };
    // A large trace is read in two halves side by side (the run loader gives a lone source two threads): this
    // reader stops where the second half starts, the other thread reads from there into a rank of its own.
    std::unique_ptr<KernelPart> part;
    std::thread worker;
    size_t split = 0;
    if (m_threads >= 2 && in.textSize() - in.position() >= kParallelBytes) {
        split = in.lineStartAfter(in.position() + (in.textSize() - in.position()) / 2);
        if (split < in.textSize()) {
            part = std::make_unique<KernelPart>(in.continuation(split));
            KernelPart& p = *part;
            try {
                worker = std::thread([this, &p, &c] {
                    p.status = eachTimedRow(
                        p.in,
                        [&](size_t rows) {
                            reserveTable(p.rank.gpu, rows);
                            p.dispatch.reserve(rows);
                        },
                        [&](int64_t ts, int64_t dur) {
                            p.b.addGpu(kernelRow(p.in, c, ts, dur));
                            p.dispatch.push_back(p.in.toInt(c.dispatch));
                        });
                });
                in.stopAt(split);
            } catch (const std::system_error&) {
                part.reset();  // no thread: one reader reads it all
            }
        }
    }
    Status st = eachTimedRow(in, reserve, row);
    if (!part) return st;
    worker.join();

    in.stopAt(SIZE_MAX);
    if (!st) return st;
    if (in.position() == split && part->status) {
        const uint32_t first = m_b.appendPart(part->rank);
        for (size_t k = 0; k < part->dispatch.size(); ++k)
            if (part->dispatch[k]) m_byDispatch.emplace(*part->dispatch[k], first + static_cast<uint32_t>(k));
        return Ok{};
    }
    // The split fell inside a quoted field, or the second half has an error: read on from here, on this thread,
    // so that what is loaded and every error is exactly what one reader gives.
    return eachTimedRow(in, reserve, row);
}

Status Rocprofv3Loader::counters(CsvReader& in) {
    const int dispatch = in.column("Dispatch_Id"), cname = in.column("Counter_Name");
    const int value = in.column("Counter_Value"), kname = in.column("Kernel_Name");
    const int start = in.column("Start_Timestamp"), end = in.column("End_Timestamp");
    const int agent = in.column("Agent_Id"), queue = in.column("Queue_Id"), corr = in.column("Correlation_Id");
    const int grid = in.column("Grid_Size"), block = in.column("Workgroup_Size");
    if (dispatch < 0) return missing(in, "Dispatch_Id");
    if (cname < 0 || value < 0) return missing(in, "Counter_Name/Counter_Value");
    const bool joins = !m_byDispatch.empty();  // else the counters' own dispatches are the kernels
    const size_t firstRow = in.position();
    for (size_t rows = 0;; ++rows) {
        if (rows == kSampleRows)
            reserveTable(m_b.rank().kernelCounters,
                         m_b.rank().kernelCounters.size() + expectedRows(in, firstRow, rows));
        auto more = in.next();
        if (!more) return more.error();
        if (!*more) break;
        auto id = in.toInt(dispatch);
        auto v = in.toDouble(value);
        if (!id) return in.error("Dispatch_Id is not an integer");
        if (!v) return in.error("Counter_Value is not a number");
        const uint32_t* found = m_byDispatch.find(*id);
        uint32_t gpuRow = found ? *found : 0;
        if (!found && !joins) {
            GpuRow g;
            g.ts = in.toInt(start).value_or(0);
            g.dur = in.toInt(end).value_or(g.ts) - g.ts;
            g.name = in.field(kname);
            g.cat = "KERNEL_DISPATCH";
            g.device = device(in.field(agent));
            g.stream = static_cast<int32_t>(in.toInt(queue).value_or(0));
            g.queue = static_cast<int32_t>(in.toInt(queue).value_or(-1));
            g.correlation = in.toInt(corr).value_or(kNone);
            g.grid[0] = static_cast<int32_t>(std::clamp<int64_t>(in.toInt(grid).value_or(0), 0, INT32_MAX));
            g.block[0] = static_cast<int32_t>(std::clamp<int64_t>(in.toInt(block).value_or(0), 0, INT32_MAX));
            g.grid[1] = g.grid[2] = g.block[1] = g.block[2] = 1;
            gpuRow = m_byDispatch.emplace(*id, m_b.addGpu(g));
            found = &gpuRow;
        }
        if (joins) ++m_counterRows;
        if (!found) {
            ++m_unmatched[std::string(in.field(kname))];
            continue;
        }
        if (joins) ++m_counterMatched;
        m_b.addCounter(gpuRow, in.field(cname), *v);
    }
    return Ok{};
}

Status Rocprofv3Loader::copies(CsvReader& in) {
    const int dir = in.column("Direction"), src = in.column("Source_Agent_Id"), dst = in.column("Destination_Agent_Id");
    const int stream = in.column("Stream_Id"), corr = in.column("Correlation_Id");
    const int bytes = in.column({"Copy_Bytes", "Bytes", "Size"});
    auto reserve = [&](size_t rows) { reserveTable(m_b.rank().gpu, m_b.rank().gpu.size() + rows); };
    return eachTimedRow(in, reserve, [&](int64_t ts, int64_t dur) {
        const std::string_view d = in.field(dir);
        std::string_view name = "Memcpy";
        if (d.find("HOST_TO_DEVICE") != std::string_view::npos) name = "Memcpy HtoD";
        else if (d.find("DEVICE_TO_HOST") != std::string_view::npos) name = "Memcpy DtoH";
        else if (d.find("DEVICE_TO_DEVICE") != std::string_view::npos) name = "Memcpy DtoD";
        else if (d.find("HOST_TO_HOST") != std::string_view::npos) name = "Memcpy HtoH";
        const int64_t dstAgent = agentNumber(in.field(dst));
        const bool dstGpu = m_agentIsGpu.count(dstAgent) ? m_agentIsGpu[dstAgent] : d.find("TO_DEVICE") != std::string_view::npos;
        GpuRow g;
        g.ts = ts;
        g.dur = dur;
        g.name = name;
        g.cat = "MEMORY_COPY";
        g.kind = EventKind::Memcpy;
        g.device = device(in.field(dstGpu ? dst : src));
        g.stream = static_cast<int32_t>(in.toInt(stream).value_or(0));
        g.correlation = in.toInt(corr).value_or(kNone);
        g.bytes = std::max<int64_t>(0, in.toInt(bytes).value_or(0));
        m_b.addGpu(g);
    });
}

Status Rocprofv3Loader::memoryOps(CsvReader& in, std::string_view cat) {
    const int op = in.column({"Operation", "Kind"}), agent = in.column("Agent_Id"), size = in.column("Allocation_Size");
    const int tid = in.column("Thread_Id"), corr = in.column("Correlation_Id"), address = in.column("Address");
    auto reserve = [&](size_t rows) { reserveTable(m_b.rank().slices, m_b.rank().slices.size() + rows); };
    std::string args;  // one buffer for every row's args text
    return eachTimedRow(in, reserve, [&](int64_t ts, int64_t dur) {
        args.assign("{\"agent\":\"");
        appendJsonEscaped(args, in.field(agent));
        fmt::format_to(std::back_inserter(args), "\",\"size\":{}", in.toInt(size).value_or(0));
        if (address >= 0) {
            // The block's address and its device for the memory timeline (core/analysis/memory_timeline.h): a GPU
            // agent → hip and its GPU index, a CPU agent → cpu -1, an agent agent_info does not name → "agent" (-1)
            // and its number; a free names no agent (the allocation's is used).
            args += ",\"address\":\"";
            appendJsonEscaped(args, in.field(address));
            args += '"';
            const int64_t n = agentNumber(in.field(agent));
            if (n >= 0) {
                auto gpu = m_agentIsGpu.find(n);
                const int type = gpu == m_agentIsGpu.end() ? -1 : gpu->second ? 6 : 0;
                fmt::format_to(std::back_inserter(args), ",\"device_type\":{},\"device\":{}", type,
                               type == 6 ? int64_t{device(in.field(agent))} : type == 0 ? int64_t{-1} : n);
            }
        }
        args += '}';
        SliceRow sl;
        sl.ts = ts;
        sl.dur = dur;
        sl.name = in.field(op);
        sl.cat = cat;
        sl.pid = 0;
        sl.tid = in.toInt(tid).value_or(0);
        sl.correlation = in.toInt(corr).value_or(kNone);
        sl.args = args;
        m_b.addSlice(sl);
    });
}

EventKind apiKind(std::string_view domain) {
    if (domain.rfind("HIP_RUNTIME", 0) == 0 || domain.rfind("HIP_API", 0) == 0) return EventKind::Runtime;
    if (domain.rfind("HIP", 0) == 0) return EventKind::Runtime;
    if (domain.rfind("HSA", 0) == 0) return EventKind::Driver;
    if (domain.rfind("MARKER", 0) == 0 || domain.rfind("ROCTX", 0) == 0) return EventKind::UserAnnotation;
    if (domain.rfind("RCCL", 0) == 0) return EventKind::CpuOp;
    return EventKind::Unknown;
}

Status Rocprofv3Loader::apis(CsvReader& in) {
    const int domain = in.column("Domain"), fn = in.column("Function");
    const int pid = in.column("Process_Id"), tid = in.column("Thread_Id"), corr = in.column("Correlation_Id");
    auto reserve = [&](size_t rows) { reserveTable(m_b.rank().slices, m_b.rank().slices.size() + rows); };
    return eachTimedRow(in, reserve, [&](int64_t ts, int64_t dur) {
        SliceRow sl;
        sl.ts = ts;
        sl.dur = dur;
        sl.name = in.field(fn);
        sl.cat = in.field(domain);
        sl.kind = apiKind(sl.cat);
        sl.pid = in.toInt(pid).value_or(0);
        sl.tid = in.toInt(tid).value_or(0);
        sl.correlation = in.toInt(corr).value_or(kNone);
        m_b.addSlice(sl);
    });
}

Status Rocprofv3Loader::stats(CsvReader& in) {
    const int name = in.column("Name"), total = in.column("TotalDurationNs");
    uint64_t rows = 0;
    std::string top;
    int64_t topNs = -1;
    for (;;) {
        auto more = in.next();
        if (!more) return more.error();
        if (!*more) break;
        ++rows;
        // An integer, else a finite number clamped to ±9.2e18 (a double past int64 cannot be converted).
        int64_t ns = 0;
        if (auto i = in.toInt(total)) ns = *i;
        else if (auto d = in.toDouble(total); d && std::isfinite(*d))
            ns = static_cast<int64_t>(std::clamp(*d, -9.2e18, 9.2e18));
        if (ns > topNs) {
            topNs = ns;
            top = std::string(in.field(name));
        }
    }
    m_b.rank().diagnostics.push_back(Diagnostic{
        Severity::Info, Location{in.fileName()},
        fmt::format("rocprofv3 statistics listed, not loaded: {} rows; largest total: {} ({} ns)", rows, top, topNs)});
    return Ok{};
}

Status Rocprofv3Loader::load(Rocprofv3CsvKind kind, CsvReader& in) {
    switch (kind) {
    case Rocprofv3CsvKind::AgentInfo: return agents(in);
    case Rocprofv3CsvKind::KernelTrace: return kernels(in);
    case Rocprofv3CsvKind::CounterCollection: return counters(in);
    case Rocprofv3CsvKind::MemoryCopy: return copies(in);
    case Rocprofv3CsvKind::MemoryAllocation: return memoryOps(in, "MEMORY_ALLOCATION");
    case Rocprofv3CsvKind::ScratchMemory: return memoryOps(in, "SCRATCH_MEMORY");
    case Rocprofv3CsvKind::ApiTrace: return apis(in);
    case Rocprofv3CsvKind::Stats: return stats(in);
    case Rocprofv3CsvKind::None: break;
    }
    return Error(Location{in.fileName()}, "not a rocprofv3 CSV output (unknown header)");
}

void Rocprofv3Loader::finish() {
    RankData& r = m_b.rank();
    if (m_counterRows > 0) {
        r.stats.joinMatchRate = static_cast<double>(m_counterMatched) / static_cast<double>(m_counterRows);
        if (!m_unmatched.empty()) {
            std::string names;
            size_t shown = 0;
            for (const auto& [n, c] : m_unmatched) {
                if (shown++ == 5) break;
                names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", n, c);
            }
            m_b.warn(Location{r.path}, fmt::format("{} of {} counter rows name a Dispatch_Id absent from the kernel "
                                                   "trace (not stored); kernels: {}{}",
                                                   m_counterRows - m_counterMatched, m_counterRows, names,
                                                   m_unmatched.size() > 5 ? fmt::format(" and {} more",
                                                                                        m_unmatched.size() - 5)
                                                                          : std::string()));
        }
    }
    r.stats.events = r.gpu.size() + r.slices.size();
}

std::unique_ptr<RankData> newRankRocprofv3Csv(const std::string& path, const SourceLoadOptions& options) {
    auto r = std::make_unique<RankData>();
    r->path = path;
    r->info.path = path;
    r->info.format = "rocprofv3-csv";
    r->info.platform = Platform::Amd;
    r->info.clock.domain = ClockDomain::Boottime;
    applyClockOptions(r->info.clock, options);
    return r;
}

int sniffRocprofv3Csv(const SniffInput& in) {
    if (in.isDirectory || !in.sqliteTables.empty()) return 0;
    return rocprofv3CsvKind(in.head) == Rocprofv3CsvKind::None ? 0 : 70;
}

Result<std::vector<std::unique_ptr<RankData>>> loadGroupRocprofv3Csv(const SourceGroup& g, const SourceLoadOptions& o,
                                                                     const CancelToken& cancel) {
    return loadRocprofv3Csv(g, o, cancel);
}

}  // namespace

Rocprofv3CsvKind rocprofv3CsvKind(std::string_view head) {
    const std::vector<std::string> h = csvHeaderOf(head);
    if (h.empty()) return Rocprofv3CsvKind::None;
    const bool times = hasRocprofv3Csv(h, "Start_Timestamp") && hasRocprofv3Csv(h, "End_Timestamp");
    if (hasRocprofv3Csv(h, "Counter_Name") && hasRocprofv3Csv(h, "Counter_Value") && hasRocprofv3Csv(h, "Dispatch_Id"))
        return Rocprofv3CsvKind::CounterCollection;
    if (times && hasRocprofv3Csv(h, "Dispatch_Id") && hasRocprofv3Csv(h, "Kernel_Name"))
        return Rocprofv3CsvKind::KernelTrace;
    if ((hasRocprofv3Csv(h, "Logical_Node_Id") || hasRocprofv3Csv(h, "Node_Id")) &&
        (hasRocprofv3Csv(h, "Agent_Type") || hasRocprofv3Csv(h, "Wave_Front_Size")))
        return Rocprofv3CsvKind::AgentInfo;
    if (times && hasRocprofv3Csv(h, "Direction") && hasRocprofv3Csv(h, "Source_Agent_Id"))
        return Rocprofv3CsvKind::MemoryCopy;
    if (times && hasRocprofv3Csv(h, "Allocation_Size") && hasRocprofv3Csv(h, "Operation"))
        return Rocprofv3CsvKind::MemoryAllocation;
    if (times && hasRocprofv3Csv(h, "Alloc_Flags") && hasRocprofv3Csv(h, "Operation"))
        return Rocprofv3CsvKind::ScratchMemory;
    if (times && hasRocprofv3Csv(h, "Domain") && hasRocprofv3Csv(h, "Function") && hasRocprofv3Csv(h, "Correlation_Id"))
        return Rocprofv3CsvKind::ApiTrace;
    if (hasRocprofv3Csv(h, "Name") && hasRocprofv3Csv(h, "Calls") && hasRocprofv3Csv(h, "TotalDurationNs") &&
        hasRocprofv3Csv(h, "MinNs") && hasRocprofv3Csv(h, "MaxNs"))
        return Rocprofv3CsvKind::Stats;
    return Rocprofv3CsvKind::None;
}

int rocprofv3CsvKindOrder(std::string_view head) {
    switch (rocprofv3CsvKind(head)) {
    case Rocprofv3CsvKind::KernelTrace: return 0;
    case Rocprofv3CsvKind::AgentInfo: return 1;
    case Rocprofv3CsvKind::CounterCollection: return 2;
    case Rocprofv3CsvKind::MemoryCopy: return 3;
    case Rocprofv3CsvKind::MemoryAllocation: return 4;
    case Rocprofv3CsvKind::ScratchMemory: return 5;
    case Rocprofv3CsvKind::ApiTrace: return 6;
    case Rocprofv3CsvKind::Stats: return 7;
    case Rocprofv3CsvKind::None: break;
    }
    return 8;
}

std::string rocprofv3CsvPrefix(std::string_view fileName) {
    const size_t slash = fileName.find_last_of('/');
    if (slash != std::string_view::npos) fileName.remove_prefix(slash + 1);
    std::string_view stem = fileName;
    if (stem.size() >= 4 && stem.substr(stem.size() - 4) == ".csv") stem.remove_suffix(4);
    // Longest first, so that "hip_api_trace" wins over "api_trace" would-be matches.
    static const char* const kSuffixes[] = {
        "memory_allocation_trace", "scratch_memory_trace", "hsa_amd_ext_api_trace", "hsa_image_ext_api_trace",
        "hsa_finalize_ext_api_trace", "counter_collection", "hsa_core_api_trace", "hip_runtime_trace",
        "memory_copy_trace", "marker_api_trace", "rocdecode_api_trace", "rocjpeg_api_trace", "rccl_api_trace",
        "hip_api_trace", "hsa_api_trace", "kernel_trace", "domain_stats", "hip_api_stats", "hsa_api_stats",
        "memory_copy_stats", "memory_allocation_stats", "marker_api_stats", "rccl_api_stats", "kernel_stats",
        "agent_info", "rccl_trace", "hip_trace", "hsa_trace", "marker_trace", "kernel_names", "stats"};
    for (const char* suffix : kSuffixes) {
        const std::string_view s(suffix);
        if (stem.size() < s.size() || stem.substr(stem.size() - s.size()) != s) continue;
        const size_t at = stem.size() - s.size();
        if (at == 0) return "";
        if (stem[at - 1] == '_') return std::string(stem.substr(0, at - 1));
    }
    return std::string(stem);
}

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofv3Csv(const SourceGroup& group,
                                                                const SourceLoadOptions& options,
                                                                const CancelToken& cancel) {
    if (group.files.empty()) return Error(Location{group.path}, "no file to load");
    std::vector<std::pair<std::unique_ptr<CsvFile>, Rocprofv3CsvKind>> files;
    for (const std::string& f : group.files) {
        auto opened = CsvFile::open(f);
        if (!opened) return opened.error();
        const Rocprofv3CsvKind kind = rocprofv3CsvKind((*opened)->text().substr(0, 64 * 1024));
        if (kind == Rocprofv3CsvKind::None) return Error(Location{f}, "not a rocprofv3 CSV output (unknown header)");
        files.emplace_back(std::move(opened.value()), kind);
    }
    // Agents before kernels (device numbers), kernels before counters (the Dispatch_Id join).
    std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
        auto rank = [](Rocprofv3CsvKind k) { return k == Rocprofv3CsvKind::AgentInfo ? 0 : k == Rocprofv3CsvKind::KernelTrace ? 1 : 2; };
        return rank(a.second) < rank(b.second);
    });
    auto r = newRankRocprofv3Csv(group.files.front(), options);
    Rocprofv3Loader loader(*r, options.threads);
    for (auto& [file, kind] : files) {
        if (cancel.cancelled()) return Error("cancelled");
        CsvReader& in = file->reader();  // CsvFile::open has read the header
        if (Status s = loader.load(kind, in); !s) return s.error();
    }
    loader.finish();
    for (const std::string& f : group.files) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(f, ec);
        if (!ec) r->info.fileSize += size;
    }
    std::vector<std::unique_ptr<RankData>> out;
    out.push_back(std::move(r));
    return out;
}

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofv3CsvText(std::string_view text, const std::string& name) {
    const Rocprofv3CsvKind kind = rocprofv3CsvKind(text.substr(0, 64 * 1024));
    if (kind == Rocprofv3CsvKind::None) return Error(Location{name}, "not a rocprofv3 CSV output (unknown header)");
    auto r = newRankRocprofv3Csv(name, {});
    Rocprofv3Loader loader(*r, 1);
    CsvReader in(text, name);
    if (Status h = in.readHeader(); !h) return h.error();
    if (Status s = loader.load(kind, in); !s) return s.error();
    loader.finish();
    std::vector<std::unique_ptr<RankData>> out;
    out.push_back(std::move(r));
    return out;
}

const SourceFormat kRocprofv3CsvFormat = {
    "rocprofv3-csv",
    "rocprofv3",
    "rocprofv3 CSV outputs of one prefix: kernel trace, counters, agents, copies, API traces, stats",
    false,
    sniffRocprofv3Csv,
    loadGroupRocprofv3Csv};

}  // namespace strobe::core
