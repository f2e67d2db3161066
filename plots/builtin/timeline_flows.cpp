// Flows of the GPU timeline (widget-free): from a kernel to the runtime call that launched it and the CPU operator
// that made the call, and from an operator or runtime call to everything it launched. The links come from the
// loader's correlation (GpuTable::runtime, GpuTable::cpuOp); this file only finds where their ends are drawn.

#include <algorithm>
#include <optional>

#include "plots/builtin/timeline_find.h"

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

}  // namespace strobe::plots::timeline
