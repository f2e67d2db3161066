#include "core/analysis/memory_timeline.h"
#include "core/analysis/columns.h"
#include "core/formats/nsys_sqlite.h"
#include "core/formats/source_format.h"

#include <simdjson.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace strobe::core {

std::string memoryDeviceTypeName(int64_t t) {
    // c10/core/DeviceType.h
    static constexpr std::array<std::string_view, 21> kNames{
        "cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla", "vulkan",
        "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuse1"};
    if (t >= 0 && t < int64_t(kNames.size())) return std::string(kNames[size_t(t)]);
    if (t == kMemoryAgentType) return "agent";
    return fmt::format("type{}", t);
}

std::string_view memorySourceName(MemorySource s) {
    switch (s) {
    case MemorySource::Kineto: return "kineto";
    case MemorySource::Rocprofv3: return "rocprofv3";
    case MemorySource::Smi: return "smi";
    case MemorySource::Nsys: return "nsys";
    }
    return "kineto";
}

namespace {

struct MemoryArgs {
    int64_t addr = 0, bytes = 0, allocated = 0, reserved = 0, type = 0, device = 0;
};

// The six integer fields of a "[memory]" instant's args; an empty string when all are there, else what is wrong.
std::string readMemoryArgs(simdjson::dom::parser& parser, std::string_view argsJson, MemoryArgs& out) {
    simdjson::padded_string text(argsJson);
    simdjson::dom::object obj;
    if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) return "args are not a JSON object";
    const std::array<std::pair<std::string_view, int64_t*>, 6> fields{{{"Addr", &out.addr},
                                                                       {"Bytes", &out.bytes},
                                                                       {"Total Allocated", &out.allocated},
                                                                       {"Total Reserved", &out.reserved},
                                                                       {"Device Type", &out.type},
                                                                       {"Device Id", &out.device}}};
    for (const auto& [key, dst] : fields) {
        simdjson::dom::element e;
        if (obj.at_key(key).get(e) != simdjson::SUCCESS) return fmt::format("no \"{}\"", key);
        if (e.get_int64().get(*dst) == simdjson::SUCCESS) continue;
        uint64_t u = 0;  // addresses above 2^63 (written unsigned): kept as the same 64 bits
        if (e.get_uint64().get(u) == simdjson::SUCCESS) {
            *dst = static_cast<int64_t>(u);
            continue;
        }
        return fmt::format("\"{}\" is not an integer", key);
    }
    return {};
}

void summarise(MemoryDevice& d) {
    std::stable_sort(d.events.begin(), d.events.end(), [](const MemoryEvent& a, const MemoryEvent& b) {
        return a.ts != b.ts ? a.ts < b.ts : a.slice < b.slice;
    });
    int64_t run = 0;
    for (size_t i = 0; i < d.events.size(); ++i) {
        const MemoryEvent& e = d.events[i];
        if (e.allocated > d.events[d.peak].allocated) d.peak = i;
        d.peakReserved = std::max(d.peakReserved, e.reserved);
        run += e.bytes;
        d.runningSumPeak = std::max(d.runningSumPeak, run);
        if (e.bytes > 0) d.allocs += 1, d.allocBytes += e.bytes;
        else if (e.bytes < 0) d.frees += 1, d.freeBytes -= e.bytes;
    }
}

// "0x00007ffb26354000" or a decimal: the address's 64 bits; nullopt when neither.
std::optional<int64_t> parseAddress(std::string_view t) {
    int base = 10;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) base = 16, t.remove_prefix(2);
    if (t.empty() || t.size() > 20) return std::nullopt;
    uint64_t v = 0;
    for (char c : t) {
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
        if (d >= base) return std::nullopt;
        v = v * uint64_t(base) + uint64_t(d);
    }
    return static_cast<int64_t>(v);
}

using DeviceMap = std::map<std::tuple<MemorySource, int64_t, int64_t>, MemoryDevice>;

MemoryDevice& deviceOf(DeviceMap& m, MemorySource src, int64_t type, int64_t dev) {
    MemoryDevice& d = m[{src, type, dev}];
    d.source = src;
    d.deviceType = type;
    d.device = dev;
    return d;
}

// The allocation traces that feed the model alike (see the header): rocprofv3's memory_allocation_trace and nsys's
// CUDA_GPU_MEMORY_USAGE_EVENTS, read by their loaders into slices of one category whose args hold "address", "size",
// "device_type" and "device"; the slice's name says whether it frees (`freeWord`) or allocates (`allocWord`), the
// free word tested first ("Deallocation" holds "allocation").
struct AllocationTrace {
    MemorySource source;
    const char* category;
    const char* allocWord;
    const char* freeWord;
};
constexpr AllocationTrace kAllocationTraces[] = {
    {MemorySource::Rocprofv3, "MEMORY_ALLOCATION", "ALLOCATE", "FREE"},
    {MemorySource::Nsys, kNsysMemoryCategory, "Allocation", "Deallocation"},
};

// One allocation trace's slices: allocations by address, frees matched to them; the allocated curve is the running
// sum of the live blocks per device.
void readAllocationTrace(const RankData& rank, const AllocationTrace& src, DeviceMap& byDevice, MemoryTimeline& out) {
    const SliceTable& s = rank.slices;
    const std::optional<StrId> cat = rank.strings.find(src.category);
    if (!cat) return;
    const std::string_view tool = memorySourceName(src.source);
    std::vector<uint32_t> rows;
    for (uint32_t i = 0; i < s.size(); ++i)
        if (s.cat[i] == *cat) rows.push_back(i);
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
    struct Block {
        int64_t bytes;
        std::tuple<int64_t, int64_t> device;
    };
    std::unordered_map<int64_t, Block> live;
    std::map<std::tuple<int64_t, int64_t>, int64_t> total;
    simdjson::dom::parser parser;
    for (uint32_t i : rows) {
        const std::string_view op = rank.strings.view(s.name[i]);
        const bool isFree = op.find(src.freeWord) != std::string_view::npos;
        if (!isFree && op.find(src.allocWord) == std::string_view::npos) continue;
        simdjson::padded_string text(rank.strings.view(s.args[i]));
        simdjson::dom::object obj;
        std::string_view addrText;
        std::optional<int64_t> addr;
        if (parser.parse(text).get_object().get(obj) == simdjson::SUCCESS &&
            obj["address"].get_string().get(addrText) == simdjson::SUCCESS)
            addr = parseAddress(addrText);
        if (!addr) {
            if (out.unreadable++ == 0)
                out.firstUnreadable = fmt::format("ts {} ns: a {} {} without a readable address", s.ts[i], tool, op);
            continue;
        }
        if (isFree) {
            auto it = live.find(*addr);
            if (it == live.end()) {
                ++out.unmatchedFrees;
                continue;
            }
            const auto [type, dev] = it->second.device;
            const int64_t now = total[it->second.device] -= it->second.bytes;
            deviceOf(byDevice, src.source, type, dev).events.push_back({s.ts[i], i, *addr, -it->second.bytes, now, now});
            live.erase(it);
            continue;
        }
        int64_t bytes = 0, type = kMemoryAgentType, dev = -1;
        if (obj["size"].get_int64().get(bytes) != simdjson::SUCCESS || bytes < 0) bytes = 0;
        if (obj["device_type"].get_int64().get(type) != simdjson::SUCCESS) type = kMemoryAgentType;
        if (obj["device"].get_int64().get(dev) != simdjson::SUCCESS) dev = -1;
        const std::tuple<int64_t, int64_t> key{type, dev};
        if (auto old = live.find(*addr); old != live.end()) total[old->second.device] -= old->second.bytes;  // reused
        live[*addr] = {bytes, key};
        const int64_t now = total[key] += bytes;
        deviceOf(byDevice, src.source, type, dev).events.push_back({s.ts[i], i, *addr, bytes, now, now});
    }
}

// The smi samplers' used memory (telemetry metric mem_used_mib) per device.
void readSmiUsed(const RankData& rank, DeviceMap& byDevice) {
    const SampleTable& t = rank.samples;
    const std::optional<StrId> metric = rank.strings.find("mem_used_mib");
    if (!metric) return;
    const int64_t type = rank.info.platform == Platform::Nvidia ? 1 : 6;
    for (uint32_t i = 0; i < t.size(); ++i) {
        // Device -1 is the host's RAM (Strobe's CPU sampler writes mem_used_mib too): not device memory.
        if (t.metric[i] != *metric || t.device[i] < 0 || !std::isfinite(t.value[i]) || t.value[i] < 0) continue;
        const auto bytes = static_cast<int64_t>(std::llround(t.value[i] * 1048576.0));
        deviceOf(byDevice, MemorySource::Smi, type, t.device[i]).events.push_back({t.ts[i], i, 0, 0, bytes, bytes});
    }
}

// Innermost and outermost cpu_op holding a slice (walking the merge's parent links).
std::pair<int32_t, int32_t> enclosingOps(const SliceTable& s, uint32_t slice) {
    int32_t inner = -1, outer = -1;
    if (s.parent.size() != s.size()) return {inner, outer};
    // A call stack is never deeper than 1024 and stays inside the table: a damaged chain (a cycle, an index past the
    // end: a corrupt load cache) ends the walk instead of looping.
    int steps = 0;
    for (int32_t p = s.parent[slice]; p >= 0 && size_t(p) < s.size() && steps < 1024; p = s.parent[size_t(p)], ++steps) {
        if (s.kind[size_t(p)] != EventKind::CpuOp) continue;
        if (inner < 0) inner = p;
        outer = p;
    }
    return {inner, outer};
}

}  // namespace

MemoryTimeline memoryTimeline(const RankData& rank) {
    MemoryTimeline out;
    const SliceTable& s = rank.slices;
    DeviceMap byDevice;
    for (const AllocationTrace& trace : kAllocationTraces) readAllocationTrace(rank, trace, byDevice, out);
    readSmiUsed(rank, byDevice);
    const std::optional<StrId> found = rank.strings.find("[memory]");
    simdjson::dom::parser parser;
    for (uint32_t i = 0; found && i < s.size(); ++i) {
        if (s.name[i] != *found || (s.phase[i] != 'i' && s.phase[i] != 'I')) continue;
        MemoryArgs a;
        const std::string why = readMemoryArgs(parser, rank.strings.view(s.args[i]), a);
        if (!why.empty()) {
            if (out.unreadable++ == 0) out.firstUnreadable = fmt::format("ts {} ns: {}", s.ts[i], why);
            continue;
        }
        deviceOf(byDevice, MemorySource::Kineto, a.type, a.device).events.push_back({s.ts[i], i, a.addr, a.bytes, a.allocated, a.reserved});
    }
    for (auto& [key, d] : byDevice) {
        summarise(d);
        out.devices.push_back(std::move(d));
    }
    return out;
}

LiveAtPeak liveAtPeak(const RankData& rank, const MemoryDevice& device) {
    LiveAtPeak out;
    if (device.events.empty()) return out;
    std::unordered_map<int64_t, size_t> live;  // addr → index of its allocation in device.events
    for (size_t i = 0; i <= device.peak; ++i) {
        const MemoryEvent& e = device.events[i];
        if (e.bytes > 0) {
            live[e.addr] = i;
        } else if (e.bytes < 0) {
            auto it = live.find(e.addr);
            if (it != live.end()) {
                live.erase(it);
            } else {
                out.preTraceFrees += 1;
                out.preTraceFreeBytes -= e.bytes;
            }
        }
    }
    std::vector<size_t> order;
    order.reserve(live.size());
    for (const auto& [addr, i] : live) order.push_back(i);
    std::sort(order.begin(), order.end());
    for (size_t i : order) {
        const MemoryEvent& e = device.events[i];
        LiveBlock b;
        b.addr = e.addr, b.bytes = e.bytes, b.ts = e.ts, b.slice = e.slice;
        std::tie(b.op, b.topOp) = enclosingOps(rank.slices, e.slice);
        out.liveBytes += e.bytes;
        out.blocks.push_back(b);
    }
    out.preTraceBytes = device.peakEvent().allocated - out.liveBytes;
    return out;
}

std::vector<MemoryStepChurn> memoryChurnPerStep(const RankData& rank, const MemoryDevice& device) {
    const StepTable& st = rank.steps;
    std::vector<MemoryStepChurn> out(st.size());
    for (size_t k = 0; k < st.size(); ++k) out[k].step = st.number[k];
    for (const MemoryEvent& e : device.events) {
        // The step whose [start, end) holds the event (steps are sorted by start and do not overlap).
        auto it = std::upper_bound(st.start.begin(), st.start.end(), e.ts);
        if (it == st.start.begin()) continue;
        const size_t k = size_t(it - st.start.begin()) - 1;
        if (e.ts >= st.end[k]) continue;
        MemoryStepChurn& c = out[k];
        if (e.bytes > 0) c.allocs += 1, c.allocBytes += e.bytes;
        else if (e.bytes < 0) c.frees += 1, c.freeBytes -= e.bytes;
        c.peakAllocated = std::max(c.peakAllocated, e.allocated);
    }
    return out;
}

std::vector<int64_t> memoryPeakPerStep(const RankData& rank, const MemoryDevice& device) {
    const StepTable& st = rank.steps;
    std::vector<int64_t> out(st.size(), 0);
    const auto& ev = device.events;
    for (size_t k = 0; k < st.size(); ++k) {
        // The first event at or after the step's start; the one before it is what the step begins with.
        auto it = std::lower_bound(ev.begin(), ev.end(), st.start[k],
                                   [](const MemoryEvent& e, TimeNs t) { return e.ts < t; });
        int64_t peak = it == ev.begin() ? 0 : std::prev(it)->allocated;
        for (; it != ev.end() && it->ts < st.end[k]; ++it) peak = std::max(peak, it->allocated);
        out[k] = peak;
    }
    return out;
}

namespace {

const EnumParam kMtView = EnumParam{"view", "view",
                                    "devices (peaks per device), live (blocks live at each peak), steps (churn per "
                                    "ProfilerStep) or series (every event's allocated and reserved bytes)",
                                    "devices"}
                              .choices({"devices", "live", "steps", "series"});

std::vector<std::string> memoryTimelineColumns(std::string_view view) {
    using namespace col;
    if (view == "live")
        return columnNames({kRank, kMtDeviceType, kMtDevice, kMtSource, kMtAddr, kMtBytes, kMtTs, kMtOp, kMtTopOp});
    if (view == "steps")
        return columnNames({kRank, kMtDeviceType, kMtDevice, kMtSource, kMtStep, kMtAllocs, kMtAllocBytes, kMtFrees,
                            kMtFreeBytes, kMtPeakInStep});
    if (view == "series")
        return columnNames({kRank, kMtDeviceType, kMtDevice, kMtSource, kMtTool, kMtTs, kMtBytes, kMtAllocated,
                            kMtReserved});
    return columnNames({kRank, kMtDeviceType, kMtDevice, kMtSource, kMtPeakAllocated, kMtPeakReserved, kMtPeakTs, kMtEvents,
                        kMtAllocs, kMtFrees, kMtAllocBytes, kMtFreeBytes, kMtRunningSumPeak, kMtLiveBlocks,
                        kMtLiveBytes, kMtPreTraceBytes, kMtFinalAllocated});
}

std::string opName(const RankData& r, int32_t slice) {
    return slice < 0 ? std::string() : std::string(r.strings.view(r.slices.name[size_t(slice)]));
}

void addDeviceRows(Table& t, std::string_view view, const RankData& r, int rankNo, const MemoryDevice& d) {
    const Cell rank = int64_t{rankNo}, type = memoryDeviceTypeName(d.deviceType), dev = d.device,
               src = std::string(memorySourceName(d.source));
    if (view == "series") {
        // The tool that wrote the events (the source format's tool: "amd-smi", "nvidia-smi", "rocprofv3", "nsys"...).
        const SourceFormat* format = findSourceFormat(r.info.format);
        const Cell tool = format ? std::string(format->tool) : std::string(memorySourceName(d.source));
        for (const MemoryEvent& e : d.events)
            t.addRow({rank, type, dev, src, tool, e.ts, e.bytes, e.allocated, e.reserved});
        return;
    }
    if (view == "steps") {
        for (const MemoryStepChurn& c : memoryChurnPerStep(r, d))
            t.addRow({rank, type, dev, src, c.step, c.allocs, c.allocBytes, c.frees, c.freeBytes, c.peakAllocated});
        return;
    }
    const LiveAtPeak live = liveAtPeak(r, d);
    if (view == "live") {
        for (const LiveBlock& b : live.blocks)
            t.addRow({rank, type, dev, src, b.addr, b.bytes, b.ts, opName(r, b.op), opName(r, b.topOp)});
        return;
    }
    const MemoryEvent& p = d.peakEvent();
    t.addRow({rank, type, dev, src, p.allocated, d.peakReserved, p.ts, int64_t(d.events.size()), d.allocs, d.frees,
              d.allocBytes, d.freeBytes, d.runningSumPeak, int64_t(live.blocks.size()), live.liveBytes,
              live.preTraceBytes, d.events.back().allocated});
    if (live.preTraceFrees > 0)
        t.messages.push_back(fmt::format("memory-timeline: rank {} {}:{}: {} free(s) of {} B before the peak release "
                                         "blocks allocated before the trace began",
                                         rankNo, memoryDeviceTypeName(d.deviceType), d.device, live.preTraceFrees,
                                         live.preTraceFreeBytes));
}

Result<Table> runMemoryTimeline(AnalysisContext& ctx, const AnalysisRequest& req) {
    const std::string view = req.get(kMtView);
    Table t;
    t.columns = memoryTimelineColumns(view);
    if (req.window.kind != WindowKind::All)
        t.messages.push_back("memory-timeline: the allocator's state is cumulative: every [memory] event of the trace "
                             "is read whatever the window");
    bool any = false;
    auto addSource = [&](const RankData& r, int rankNo, const std::string& what) {
        const MemoryTimeline tl = memoryTimeline(r);
        if (tl.unreadable > 0)
            t.messages.push_back(fmt::format("memory-timeline: {}: {} memory event(s) skipped (first at {})", what,
                                             tl.unreadable, tl.firstUnreadable));
        if (tl.unmatchedFrees > 0)
            t.messages.push_back(fmt::format("memory-timeline: {}: {} rocprofv3/nsys free(s) of an address the trace "
                                             "never allocated (allocated before the trace began): not drawn",
                                             what, tl.unmatchedFrees));
        for (const MemoryDevice& d : tl.devices) addDeviceRows(t, view, r, rankNo, d);
        any = any || !tl.devices.empty();
        return !tl.devices.empty();
    };
    for (size_t ri = 0; ri < ctx.rankCount(); ++ri) {
        const int rankNo = ctx.rankNumber(ri);
        if (!addSource(*ctx.dataset().ranks[ri], rankNo, fmt::format("rank {}", rankNo)))
            t.messages.push_back(fmt::format("memory-timeline: rank {} has no memory events ([memory] events are "
                                             "recorded with profile_memory=True; rocprofv3 with "
                                             "--memory-allocation-trace; nsys with --cuda-memory-usage=true)",
                                             rankNo));
    }
    // Host telemetry (smi samplers): the devices' used memory, rank -1.
    for (const HostTelemetry& h : ctx.dataset().hosts)
        for (const auto& src : h.sources)
            if (src) addSource(*src, -1, h.host.empty() ? std::string("host") : "host " + h.host);
    if (!any && ctx.rankCount() == 0)
        t.messages.push_back("memory-timeline: no memory events and no used-memory samples in the run");
    return t;
}

}  // namespace

Result<Table> memoryTimelineTable(AnalysisContext& ctx, const AnalysisRequest& request) {
    return runMemoryTimeline(ctx, request);
}

AnalysisInfo memoryTimelineAnalysisInfo() {
    return AnalysisInfo("memory-timeline",
                        "Allocated and reserved memory per device from [memory] events: peaks, blocks live at the "
                        "peak and their operators, churn per step",
                        {kMtView.spec()}, memoryTimelineColumns("devices"), runMemoryTimeline);
}

}  // namespace strobe::core
