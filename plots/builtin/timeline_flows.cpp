// Flows of the GPU timeline (widget-free): from a kernel to the runtime call that launched it and the CPU operator
// that made the call, and from an operator or runtime call to everything it launched. The links come from the
// loader's correlation (GpuTable::runtime, GpuTable::cpuOp); this file only finds where their ends are drawn.

#include <algorithm>
#include <map>
#include <string_view>
#include <optional>

#include "plots/builtin/timeline_find.h"
#include "plots/path_marks.h"

namespace strobe::plots::timeline {
namespace {

// Where slice or GPU activity `src` of `r` (run `run`) is among the lanes of `kind`: binary search on its start in
// each lane of that rank (several items may share a start).
std::optional<ItemRef> locate(const TimelinePrepared& p, LaneKind kind, size_t run, const core::RankData& r,
                              uint32_t src, int64_t absStart) {
    const int64_t t = absStart + p.shiftOf(&r) - p.runOrigin[run];
    for (size_t li = 0; li < p.lanes.size(); ++li) {
        const Lane& lane = p.lanes[li];
        if (lane.kind != kind || lane.rank != &r || lane.run != run) continue;
        auto k = size_t(std::lower_bound(lane.start.begin(), lane.start.end(), t) - lane.start.begin());
        for (; k < lane.start.size() && lane.start[k] == t; ++k)
            if (lane.src[k] == src) return ItemRef{li, k, lane.start[k], lane.end[k]};
    }
    return std::nullopt;
}

struct FlowBuilder {
    const TimelinePrepared& p;
    size_t run;
    const core::RankData& r;
    size_t cap;
    std::vector<FlowLink> out;

    std::optional<ItemRef> slice(int64_t i) const {
        if (i < 0 || size_t(i) >= r.slices.size()) return std::nullopt;
        return locate(p, LaneKind::Cpu, run, r, uint32_t(i), r.slices.ts[size_t(i)]);
    }
    std::optional<ItemRef> kernel(size_t j) const { return locate(p, LaneKind::Stream, run, r, uint32_t(j), r.gpu.ts[j]); }
    int64_t runtimeOf(size_t j) const { return r.gpu.runtime.size() == r.gpu.size() ? r.gpu.runtime[j] : -1; }
    int64_t opOf(size_t j) const { return r.gpu.cpuOp.size() == r.gpu.size() ? r.gpu.cpuOp[j] : -1; }

    void add(const std::optional<ItemRef>& from, const std::optional<ItemRef>& to, const char* what) {
        if (!from || !to || out.size() >= cap) return;
        for (const auto& f : out)
            if (f.from == *from && f.to == *to) return;
        out.push_back(FlowLink{*from, *to, what});
    }

    // Whether slice `j` is slice `i` or nested in it (its parent chain reaches `i`).
    bool within(int64_t j, size_t i) const {
        const auto& s = r.slices;
        if (j < 0 || size_t(j) >= s.size() || s.track[size_t(j)] != s.track[i]) return false;
        if (s.ts[size_t(j)] < s.ts[i] || s.ts[size_t(j)] > s.ts[i] + std::max<int64_t>(0, s.dur[i])) return false;
        const bool parents = s.parent.size() == s.size();
        for (int guard = 0; j >= 0 && guard < 4096; ++guard) {
            if (size_t(j) == i) return true;
            if (!parents) return false;
            j = s.parent[size_t(j)];
        }
        return false;
    }

    // A kernel: operator → runtime call → kernel (operator → kernel without a runtime call).
    void fromKernel(const ItemRef& item, size_t j) {
        const auto rt = slice(runtimeOf(j));
        const auto op = slice(opOf(j));
        add(rt, item, "kernel");
        add(op, rt ? rt : std::optional<ItemRef>(item), rt ? "runtime call" : "kernel");
    }

    // A CPU slice: the kernels launched by it (a runtime call) or by it and the operators nested in it, each through
    // its runtime call; a runtime call also links back to its operator.
    void fromSlice(const ItemRef& item, size_t i) {
        const auto& s = r.slices;
        const bool runtime = s.kind[i] == core::EventKind::Runtime || s.kind[i] == core::EventKind::Driver;
        bool first = true;
        for (size_t j = 0; j < r.gpu.size() && out.size() < cap; ++j) {
            const int64_t rt = runtimeOf(j);
            if (runtime ? rt != int64_t(i) : !within(opOf(j), i)) continue;
            const auto k = kernel(j);
            if (runtime) {
                if (first) add(slice(opOf(j)), item, "runtime call");
                add(item, k, "kernel");
            } else if (const auto call = slice(rt)) {
                add(item, call, "runtime call");
                add(call, k, "kernel");
            } else {
                add(item, k, "kernel");
            }
            first = false;
        }
    }
};

}  // namespace

std::vector<FlowLink> flowsThrough(const TimelinePrepared& p, const ItemRef& item, size_t cap) {
    if (item.lane >= p.lanes.size()) return {};
    const Lane& lane = p.lanes[item.lane];
    if (item.index >= lane.src.size() || !lane.rank) return {};
    FlowBuilder b{p, lane.run, *lane.rank, cap, {}};
    const uint32_t src = lane.src[item.index];
    if (lane.kind == LaneKind::Stream && src < lane.rank->gpu.size()) b.fromKernel(item, src);
    if (lane.kind == LaneKind::Cpu && src < lane.rank->slices.size()) b.fromSlice(item, src);
    return std::move(b.out);
}

namespace {

std::string_view itemNameView(const Lane& lane, size_t k) {
    const core::RankData& r = *lane.rank;
    const uint32_t src = lane.src[k];
    if (lane.kind == LaneKind::Stream) return src < r.gpu.size() ? r.strings.view(r.gpu.name[src]) : std::string_view();
    return src < r.slices.size() ? r.strings.view(r.slices.name[src]) : std::string_view();
}

// The item of `lanes` that covers [t0, t1] and is named `name`: in each lane, the last few items starting by t0
// (a CPU depth's items never overlap; a stream's only within its tolerance).
std::optional<ItemRef> coveringItem(const TimelinePrepared& p, const std::vector<size_t>& lanes, int64_t t0,
                                    int64_t t1, std::string_view name) {
    for (size_t li : lanes) {
        const Lane& lane = p.lanes[li];
        auto k = size_t(std::upper_bound(lane.start.begin(), lane.start.end(), t0) - lane.start.begin());
        for (int steps = 0; k > 0 && steps < 4; ++steps) {
            --k;
            if (lane.end[k] >= t1 && itemNameView(lane, k) == name) return ItemRef{li, k, t0, t1};
        }
    }
    return std::nullopt;
}

}  // namespace

}  // namespace strobe::plots::timeline

namespace strobe::plots {

PathMarks pathMarks(const Prepared& prepared, size_t run, const std::vector<PathSegment>& path,
                    const std::string& boundBy) {
    using namespace timeline;
    PathMarks m;
    const TimelinePrepared* tp = preparedAs<TimelinePrepared>(prepared);
    if (!tp || run >= tp->runOrigin.size()) return m;
    const TimelinePrepared& p = *tp;
    const int64_t origin = p.runOrigin[run];
    std::map<int, std::vector<size_t>> lanesOf;  // rank number -> its CPU and stream lanes
    for (size_t li = 0; li < p.lanes.size(); ++li) {
        const Lane& l = p.lanes[li];
        if (l.run == run && l.rank && (l.kind == LaneKind::Cpu || l.kind == LaneKind::Stream))
            lanesOf[l.rankNumber].push_back(li);
    }
    std::optional<std::pair<ItemRef, int>> last;  // the previous placed segment and its rank
    for (size_t i = 0; i < path.size(); ++i) {
        const PathSegment& seg = path[i];
        if (seg.name.empty() || (!boundBy.empty() && seg.boundBy != boundBy)) continue;
        ++m.events;
        const auto lanes = lanesOf.find(seg.rank);
        const std::optional<ItemRef> item =
            lanes == lanesOf.end() ? std::optional<ItemRef>()
                                   : coveringItem(p, lanes->second, seg.start - origin, seg.end - origin, seg.name);
        if (!item) {
            ++m.unplaced;
            continue;
        }
        m.items.push_back(*item);
        m.segment.push_back(i);
        if (boundBy.empty() && last && last->first.lane != item->lane) {
            const bool crossRank = last->second != seg.rank;
            m.crossRank += crossRank;
            ItemRef from = last->first;
            from.start = from.end;  // the arrow leaves where the path left that item
            m.edges.push_back(FlowLink{from, *item, crossRank ? "cross-rank" : "cross-lane"});
        }
        last = std::make_pair(*item, seg.rank);
    }
    return m;
}

}  // namespace strobe::plots
