#include "core/analysis/memory_timeline.h"
#include "core/analysis/columns.h"

#include <simdjson.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
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
    return fmt::format("type{}", t);
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
    const std::optional<StrId> found = rank.strings.find("[memory]");
    if (!found) return out;
    const StrId memName = *found;
    simdjson::dom::parser parser;
    std::map<std::pair<int64_t, int64_t>, MemoryDevice> byDevice;
    for (uint32_t i = 0; i < s.size(); ++i) {
        if (s.name[i] != memName || (s.phase[i] != 'i' && s.phase[i] != 'I')) continue;
        MemoryArgs a;
        const std::string why = readMemoryArgs(parser, rank.strings.view(s.args[i]), a);
        if (!why.empty()) {
            if (out.unreadable++ == 0) out.firstUnreadable = fmt::format("ts {} ns: {}", s.ts[i], why);
            continue;
        }
        MemoryDevice& d = byDevice[{a.type, a.device}];
        d.deviceType = a.type;
        d.device = a.device;
        d.events.push_back({s.ts[i], i, a.addr, a.bytes, a.allocated, a.reserved});
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

namespace {

const EnumParam kMtView = EnumParam{"view", "view",
                                    "devices (peaks per device), live (blocks live at each peak), steps (churn per "
                                    "ProfilerStep) or series (every event's allocated and reserved bytes)",
                                    "devices"}
                              .choices({"devices", "live", "steps", "series"});

std::vector<std::string> memoryTimelineColumns(std::string_view view) {
    using namespace col;
    if (view == "live")
        return columnNames({kRank, kMtDeviceType, kMtDevice, kMtAddr, kMtBytes, kMtTs, kMtOp, kMtTopOp});
    if (view == "steps")
        return columnNames({kRank, kMtDeviceType, kMtDevice, kMtStep, kMtAllocs, kMtAllocBytes, kMtFrees,
                            kMtFreeBytes, kMtPeakInStep});
    if (view == "series") return columnNames({kRank, kMtDeviceType, kMtDevice, kMtTs, kMtBytes, kMtAllocated, kMtReserved});
    return columnNames({kRank, kMtDeviceType, kMtDevice, kMtPeakAllocated, kMtPeakReserved, kMtPeakTs, kMtEvents,
                        kMtAllocs, kMtFrees, kMtAllocBytes, kMtFreeBytes, kMtRunningSumPeak, kMtLiveBlocks,
                        kMtLiveBytes, kMtPreTraceBytes, kMtFinalAllocated});
}

std::string opName(const RankData& r, int32_t slice) {
    return slice < 0 ? std::string() : std::string(r.strings.view(r.slices.name[size_t(slice)]));
}

void addDeviceRows(Table& t, std::string_view view, const RankData& r, int rankNo, const MemoryDevice& d) {
    const Cell rank = int64_t{rankNo}, type = memoryDeviceTypeName(d.deviceType), dev = d.device;
    if (view == "series") {
        for (const MemoryEvent& e : d.events) t.addRow({rank, type, dev, e.ts, e.bytes, e.allocated, e.reserved});
        return;
    }
    if (view == "steps") {
        for (const MemoryStepChurn& c : memoryChurnPerStep(r, d))
            t.addRow({rank, type, dev, c.step, c.allocs, c.allocBytes, c.frees, c.freeBytes, c.peakAllocated});
        return;
    }
    const LiveAtPeak live = liveAtPeak(r, d);
    if (view == "live") {
        for (const LiveBlock& b : live.blocks)
            t.addRow({rank, type, dev, b.addr, b.bytes, b.ts, opName(r, b.op), opName(r, b.topOp)});
        return;
    }
    const MemoryEvent& p = d.peakEvent();
    t.addRow({rank, type, dev, p.allocated, d.peakReserved, p.ts, int64_t(d.events.size()), d.allocs, d.frees,
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
    for (size_t ri = 0; ri < ctx.rankCount(); ++ri) {
        const RankData& r = *ctx.dataset().ranks[ri];
        const int rankNo = ctx.rankNumber(ri);
        const MemoryTimeline tl = memoryTimeline(r);
        if (tl.unreadable > 0)
            t.messages.push_back(fmt::format("memory-timeline: rank {}: {} [memory] event(s) skipped (first at {})",
                                             rankNo, tl.unreadable, tl.firstUnreadable));
        if (tl.devices.empty()) {
            t.messages.push_back(fmt::format("memory-timeline: rank {} has no [memory] events (the profiler records "
                                             "them with profile_memory=True)",
                                             rankNo));
            continue;
        }
        for (const MemoryDevice& d : tl.devices) addDeviceRows(t, view, r, rankNo, d);
    }
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
