// The merge: derives, once per load, what the raw columns only imply.
//
//   1. slices.byTrack, parent, depth — per track, slices sorted by (ts asc, dur desc, index) and one stack pass.
//      A slice that starts inside the stack top but ends after it (partial overlap, a malformed trace) is not
//      nested in it: the top is closed and the slice attaches to the nearest slice that wholly contains it.
//      Every slice is pushed and popped once: O(n) after the sort. Partial overlaps are counted and warned.
//   2. gpu.byTrack — GPU activities per track (device stream) in ts order.
//   3. gpu.runtime — by correlation id (GPU row ↔ Runtime/Driver slice with the same id, sort + merge join).
//      When an id is on several runtime/driver slices (a warning), the link is the candidate that starts last
//      at or before the GPU activity's start; if none starts before it, the earliest candidate; ties: the lower
//      slice index. GPU rows left unlinked (no correlation, or one no runtime call carries) are linked through
//      ac2g / async_cpu_to_gpu flows: the 'f' event binds to the activity on its track that contains its ts,
//      the 's' event with the same id to the innermost runtime/driver slice containing its ts on its thread.
//   4. gpu.cpuOp — walking up from the runtime call on its thread: the innermost enclosing CPU op / user
//      annotation whose External id equals the runtime call's; else the innermost enclosing CPU op; else the
//      innermost enclosing user annotation that is not a ProfilerStep. -1 without a runtime link.
//   5. steps — CPU-side slices named exactly ProfilerStep#N (core/model/profiler_step.h), sorted by (start, N, slice).
//      gpu.step: the step containing the start of the launching runtime call; without a runtime link, the step
//      containing the GPU activity's own start (Kineto puts GPU and CPU times on one clock per rank). -1 when
//      no step contains that time.
//   6. gpu.annotation — the innermost gpu_user_annotation on the activity's own track (same device and
//      stream) that contains the activity's start. Activities on other streams are never attached.
//   7. classification (one rule match per distinct name) and, for communication kernels whose name does not
//      say the collective (ncclDevKernel_Generic), the collective named by the launching CPU op chain
//      (nccl:all_reduce, c10d::allreduce_, record_param_comms' "Collective name").
#include "core/merge/merge.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/io/huge_pages.h"
#include "core/merge/annotation_index.h"
#include "core/model/collective_text.h"
#include "core/model/profiler_step.h"

namespace strobe::core {

namespace {

struct SortKey {
    TimeNs ts;
    TimeNs negDur;
    uint32_t row;
    bool operator<(const SortKey& o) const {
        if (ts != o.ts) return ts < o.ts;
        if (negDur != o.negDur) return negDur < o.negDur;
        return row < o.row;
    }
};

// Rows sorted by (track, ts, -dur, row): a counting pass by track (stable), then each track's run sorted by
// time unless it already is (loaders usually emit a thread's events in order).
std::vector<uint32_t> orderByTrack(const Column<uint32_t>& trackCol, const Column<TimeNs>& tsCol,
                                   const Column<TimeNs>* durCol, uint32_t trackCount) {
    const size_t n = trackCol.size();
    const uint32_t* track = trackCol.data();
    const TimeNs* ts = tsCol.data();
    const TimeNs* dur = durCol ? durCol->data() : nullptr;
    std::vector<uint32_t> begin(static_cast<size_t>(trackCount) + 1, 0);
    for (size_t i = 0; i < n; ++i) ++begin[track[i] + 1];
    for (size_t k = 0; k < trackCount; ++k) begin[k + 1] += begin[k];
    std::vector<uint32_t> order;
    assignHuge<uint32_t>(order, n, 0);
    {
        std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
        for (size_t i = 0; i < n; ++i) order[next[track[i]]++] = static_cast<uint32_t>(i);
    }
    auto keyOf = [&](uint32_t row) {
        TimeNs d = dur ? std::max<TimeNs>(dur[row], 0) : 0;
        return SortKey{ts[row], -d, row};
    };
    std::vector<SortKey> keys, late;
    for (size_t k = 0; k < trackCount; ++k) {
        uint32_t* b = order.data() + begin[k];
        uint32_t* e = order.data() + begin[k + 1];
        bool sorted = true;
        for (ptrdiff_t j = 1; j < e - b; ++j) {  // indices: p + 1 on an empty track's null pointer is UB
            if (keyOf(b[j]) < keyOf(b[j - 1])) {
                sorted = false;
                break;
            }
        }
        if (sorted) continue;
        // Nearly in order, as a tracer that writes each call when it ends leaves its calls (the nested one first):
        // the rows in order are kept, the few that come early are sorted apart and merged in. Rows out of order
        // in more than one in nine: one sort of them all.
        keys.clear();
        late.clear();
        reserveHuge(keys, static_cast<size_t>(e - b));  // a large track's keys (RPD: 3.9 M calls on few threads)
        for (uint32_t* p = b; p != e; ++p) {
            const SortKey key = keyOf(*p);
            if (!keys.empty() && key < keys.back())
                late.push_back(key);
            else
                keys.push_back(key);
        }
        if (late.size() > keys.size() / 8) {
            keys.insert(keys.end(), late.begin(), late.end());
            std::sort(keys.begin(), keys.end());
            for (size_t j = 0; j < keys.size(); ++j) b[j] = keys[j].row;
            continue;
        }
        std::sort(late.begin(), late.end());
        size_t x = 0, y = 0;
        for (uint32_t* p = b; p != e; ++p)
            *p = y == late.size() || (x < keys.size() && keys[x] < late[y]) ? keys[x++].row : late[y++].row;
    }
    return order;
}

bool isRuntimeKind(EventKind k) { return k == EventKind::Runtime || k == EventKind::Driver; }

// "Collective name": "all_reduce" inside an args JSON text.
std::string_view collectiveNameArg(std::string_view args) {
    constexpr std::string_view key = "\"Collective name\"";
    auto k = args.find(key);
    if (k == std::string_view::npos) return {};
    auto q1 = args.find('"', k + key.size());
    if (q1 == std::string_view::npos) return {};
    auto q2 = args.find('"', q1 + 1);
    if (q2 == std::string_view::npos) return {};
    return args.substr(q1 + 1, q2 - q1 - 1);
}

bool consistent(const RankData& r) {
    const auto& s = r.slices;
    const size_t ns = s.size();
    const auto& g = r.gpu;
    const size_t ng = g.size();
    return s.dur.size() == ns && s.name.size() == ns && s.kind.size() == ns && s.track.size() == ns &&
           s.externalId.size() == ns && s.correlation.size() == ns && g.dur.size() == ng && g.name.size() == ng &&
           g.kind.size() == ng && g.track.size() == ng && g.correlation.size() == ng &&
           g.externalId.size() == ng && r.flows.ts.size() == r.flows.size() && r.flows.track.size() == r.flows.size() &&
           r.flows.phase.size() == r.flows.size() && r.flows.cat.size() == r.flows.size();
}

uint32_t trackCountOf(const RankData& rank) {
    uint32_t trackCount = static_cast<uint32_t>(rank.tracks.size());
    for (uint32_t t : rank.slices.track) trackCount = std::max(trackCount, t + 1);
    for (uint32_t t : rank.gpu.track) trackCount = std::max(trackCount, t + 1);
    for (uint32_t t : rank.flows.track) trackCount = std::max(trackCount, t + 1);
    return trackCount;
}

// 1. Slice hierarchy: parent and depth of every slice, one stack pass per track over slices.byTrack.
void buildSliceHierarchy(RankData& rank) {
    SliceTable& s = rank.slices;
    const size_t ns = s.size();
    auto& parent = s.parent.mut();
    auto& depth = s.depth.mut();
    assignHuge(parent, ns, -1);
    assignHuge<uint16_t>(depth, ns, 0);
    const uint32_t* order = s.byTrack.data();
    const uint32_t* track = s.track.data();
    const TimeNs* ts = s.ts.data();
    const TimeNs* dur = s.dur.data();
    std::vector<uint32_t> stack;
    std::vector<TimeNs> stackEnd;
    size_t partial = 0;
    int64_t partialExample = -1;
    uint32_t prevTrack = UINT32_MAX;
    for (size_t pos = 0; pos < ns; ++pos) {
        const uint32_t i = order[pos];
        if (track[i] != prevTrack) {
            stack.clear();
            stackEnd.clear();
            prevTrack = track[i];
        }
        const TimeNs start = ts[i];
        const TimeNs end = start + std::max<TimeNs>(dur[i], 0);
        while (!stack.empty() && stackEnd.back() <= start) {
            stack.pop_back();
            stackEnd.pop_back();
        }
        while (!stack.empty() && stackEnd.back() < end) {  // partial overlap: not nested in the top
            ++partial;
            if (partialExample < 0) partialExample = i;
            stack.pop_back();
            stackEnd.pop_back();
        }
        parent[i] = stack.empty() ? -1 : static_cast<int32_t>(stack.back());
        depth[i] = static_cast<uint16_t>(std::min<size_t>(stack.size(), UINT16_MAX));
        stack.push_back(i);
        stackEnd.push_back(end);
    }
    if (partial > 0) {
        // A note, not a warning: real PyTorch traces have them (times rounded to whole µs leave a child 1 µs past
        // its parent; Python stack events straddle ProfilerStep annotations), so it is no sign of bad input.
        const auto ex = static_cast<size_t>(partialExample);
        rank.diagnostics.push_back(
            {Severity::Info, Location{rank.path},
             fmt::format("{} slice(s) partially overlap an enclosing slice on the same thread (e.g. '{}' at "
                         "ts {} ns); each was attached to the nearest slice that wholly contains it",
                         partial, rank.strings.view(s.name[ex]), s.ts[ex])});
    }
}

// 5 (first part). Steps: the CPU-side ProfilerStep#N user annotations, sorted by (start, N, slice).
void buildSteps(RankData& rank) {
    const SliceTable& s = rank.slices;
    const size_t ns = s.size();
    std::unordered_map<StrId, int64_t> stepOfName;
    struct StepRow {
        TimeNs start, end;
        int64_t number;
        int32_t slice;
    };
    std::vector<StepRow> rows;
    for (size_t i = 0; i < ns; ++i) {
        if (!isProfilerStepKind(s.kind[i])) continue;
        auto [it, fresh] = stepOfName.try_emplace(s.name[i], -1);
        if (fresh) it->second = profilerStepNumber(rank.strings.view(s.name[i]));
        if (it->second < 0) continue;
        rows.push_back({s.ts[i], s.ts[i] + std::max<TimeNs>(s.dur[i], 0), it->second, static_cast<int32_t>(i)});
    }
    std::sort(rows.begin(), rows.end(), [](const StepRow& a, const StepRow& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.number != b.number) return a.number < b.number;
        return a.slice < b.slice;
    });
    StepTable steps;
    for (const auto& r : rows) {
        steps.number.push_back(r.number);
        steps.start.push_back(r.start);
        steps.end.push_back(r.end);
        steps.slice.push_back(r.slice);
    }
    rank.steps = std::move(steps);
}

// The runtime/driver calls by correlation id: a direct table when the ids are dense (Kineto numbers them
// consecutively, so lookups are O(1)), else sorted (id, slice) pairs. Ids found on several calls keep all
// their candidates in `multi`.
struct CorrelationIndex {
    using Cand = std::pair<int64_t, uint32_t>;  // (correlation, slice)
    std::vector<Cand> rt;  // (id, slice) sorted: only where the ids are sparse
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool dense = false;
    std::vector<int32_t> table;  // correlation - lo → slice; -1 none; -2 several (all of them in `multi`)
    std::vector<Cand> multi;     // every candidate of the ids seen on several calls, sorted
    size_t calls = 0;  // runtime/driver slices with a correlation id

    // Two passes over the slices: the ids' count and range first, then either the dense table straight from the
    // slices, or the (id, slice) list reserved to its size. No list grows by doubling into fresh memory: on a VM
    // the fresh pages of a 1.5 M-call rank were half the merge's page faults.
    explicit CorrelationIndex(const SliceTable& s) {
        const size_t ns = s.size();
        const EventKind* kind = s.kind.data();
        const int64_t* scorr = s.correlation.data();
        auto isCall = [&](size_t i) { return isRuntimeKind(kind[i]) && scorr[i] != kNone; };
        for (size_t i = 0; i < ns; ++i) {
            if (isCall(i)) {
                ++calls;
                lo = std::min(lo, scorr[i]);
                hi = std::max(hi, scorr[i]);
            }
        }
        dense = calls > 0 && hi - lo < static_cast<int64_t>(4 * calls + 4096);
        if (dense) {
            assignHuge(table, static_cast<size_t>(hi - lo + 1), -1);
            for (size_t i = 0; i < ns; ++i)
                if (isCall(i)) addToTable(scorr[i], static_cast<uint32_t>(i));
            std::sort(multi.begin(), multi.end());
            return;
        }
        reserveHuge(rt, calls);
        for (size_t i = 0; i < ns; ++i)
            if (isCall(i)) rt.emplace_back(scorr[i], static_cast<uint32_t>(i));
        collectSorted();
    }

    void addToTable(int64_t c, uint32_t i) {
        int32_t& slot = table[static_cast<size_t>(c - lo)];
        if (slot == -1) {
            slot = static_cast<int32_t>(i);
            return;
        }
        if (slot >= 0) {
            multi.emplace_back(c, static_cast<uint32_t>(slot));
            slot = -2;
        }
        multi.emplace_back(c, i);
    }

    void collectSorted() {
        if (!std::is_sorted(rt.begin(), rt.end())) std::sort(rt.begin(), rt.end());
        for (size_t i = 0; i < rt.size();) {
            size_t j = i + 1;
            while (j < rt.size() && rt[j].first == rt[i].first) ++j;
            if (j - i > 1) {
                multi.insert(multi.end(), rt.begin() + static_cast<std::ptrdiff_t>(i),
                             rt.begin() + static_cast<std::ptrdiff_t>(j));
            }
            i = j;
        }
    }

    // Among several calls with one id: the one starting last at or before the GPU activity at `k`; if none
    // does, the earliest; ties: the lower slice index (candidates come in index order).
    static uint32_t choose(const Cand* first, const Cand* last, TimeNs k, const TimeNs* sts) {
        int64_t before = -1;
        uint32_t earliest = first->second;
        for (const Cand* c = first; c != last; ++c) {
            const uint32_t cand = c->second;
            if (sts[cand] <= k && (before < 0 || sts[cand] > sts[static_cast<size_t>(before)])) before = cand;
            if (sts[cand] < sts[earliest]) earliest = cand;
        }
        return before >= 0 ? static_cast<uint32_t>(before) : earliest;
    }

    int32_t inMulti(int64_t corr, TimeNs k, const TimeNs* sts) const {
        auto range = std::equal_range(multi.begin(), multi.end(), Cand{corr, 0},
                                      [](const Cand& x, const Cand& y) { return x.first < y.first; });
        if (range.first == range.second) return -1;
        return static_cast<int32_t>(choose(&*range.first, &*range.first + (range.second - range.first), k, sts));
    }

    // Whether `corr` is on more than one runtime call.
    bool isShared(int64_t corr) const {
        if (corr == kNone) return false;
        if (dense) return corr >= lo && corr <= hi && table[static_cast<size_t>(corr - lo)] == -2;
        return std::binary_search(multi.begin(), multi.end(), Cand{corr, 0},
                                  [](const Cand& x, const Cand& y) { return x.first < y.first; });
    }

    // The runtime slice that launched a GPU activity with correlation `corr` starting at `k`, or -1.
    int32_t find(int64_t corr, TimeNs k, const TimeNs* sts) const {
        if (corr == kNone || calls == 0) return -1;
        if (dense) {
            if (corr < lo || corr > hi) return -1;
            const int32_t v = table[static_cast<size_t>(corr - lo)];
            return v >= 0 ? v : v == -2 ? inMulti(corr, k, sts) : -1;
        }
        auto it = std::lower_bound(rt.begin(), rt.end(), Cand{corr, 0});
        if (it == rt.end() || it->first != corr) return -1;
        const bool several = it + 1 != rt.end() && (it + 1)->first == corr;
        return several ? inMulti(corr, k, sts) : static_cast<int32_t>(it->second);
    }
};

// 3. Runtime links by correlation id. Returns how many GPU activities were linked.
size_t linkByCorrelation(RankData& rank) {
    const SliceTable& s = rank.slices;
    GpuTable& g = rank.gpu;
    const size_t ng = g.size();
    auto& runtime = g.runtime.mut();
    assignHuge(runtime, ng, -1);
    const CorrelationIndex calls(s);
    const TimeNs* sts = s.ts.data();
    const int64_t* gcorr = g.correlation.data();
    const TimeNs* gts = g.ts.data();
    size_t linked = 0;
    // Ids on several calls that a GPU activity carries: only there is the link a choice. An id shared by calls that
    // launched nothing (rocpd gives correlation id 0 to every call outside a dispatch) is valid input, not a warning.
    std::vector<int64_t> ambiguous;
    for (size_t row = 0; row < ng; ++row) {
        if (!calls.multi.empty() && calls.isShared(gcorr[row])) ambiguous.push_back(gcorr[row]);
        const int32_t link = calls.find(gcorr[row], gts[row], sts);
        if (link >= 0) {
            runtime[row] = link;
            ++linked;
        }
    }
    if (!ambiguous.empty()) {
        std::sort(ambiguous.begin(), ambiguous.end());
        ambiguous.erase(std::unique(ambiguous.begin(), ambiguous.end()), ambiguous.end());
        rank.diagnostics.push_back(
            {Severity::Warning, Location{rank.path},
             fmt::format("{} correlation id(s) of GPU activities appear on more than one runtime/driver call (e.g. "
                         "{}); each GPU activity was linked to the call that starts last at or before it",
                         ambiguous.size(), ambiguous.front())});
    }
    return linked;
}

// 3b. Flow links for what correlation left unlinked. Returns how many GPU activities were linked.
size_t linkByFlows(RankData& rank, const AnnotationIndex& index, uint32_t trackCount) {
    const SliceTable& s = rank.slices;
    GpuTable& g = rank.gpu;
    auto& runtime = g.runtime.mut();
    const auto& f = rank.flows;
    const StrId ac2g = rank.strings.find("ac2g").value_or(UINT32_MAX);
    const StrId async = rank.strings.find("async_cpu_to_gpu").value_or(UINT32_MAX);
    // One sweep per track over the flows in time order, next to that track's slices and GPU activities
    // (also in time order): 's' binds to the innermost runtime/driver call containing it, 'f' to the GPU
    // activity containing (or starting at) it.
    const std::vector<uint32_t> order = orderByTrack(f.track, f.ts, nullptr, trackCount);
    std::vector<std::pair<int64_t, int32_t>> startCall;  // (flow id, runtime slice)
    std::vector<std::pair<int64_t, uint32_t>> endGpu;    // (flow id, GPU row)
    const TimeNs* sts = s.ts.data();
    const TimeNs* sdur = s.dur.data();
    const int32_t* parent = s.parent.data();
    const EventKind* kind = s.kind.data();
    const TimeNs* gts = g.ts.data();
    const TimeNs* gdur = g.dur.data();
    size_t pos = 0;
    while (pos < order.size()) {
        const uint32_t track = f.track[order[pos]];
        auto sl = index.slicesOn(track);
        auto on = index.gpuOn(track);
        size_t p = 0, q = 0;
        for (; pos < order.size() && f.track[order[pos]] == track; ++pos) {
            const uint32_t i = order[pos];
            if (f.cat[i] != ac2g && f.cat[i] != async) continue;
            const TimeNs t = f.ts[i];
            if (f.phase[i] == 's') {
                while (p < sl.size() && sts[sl[p]] <= t) ++p;
                for (int32_t c = p ? static_cast<int32_t>(sl[p - 1]) : -1; c >= 0; c = parent[c]) {
                    if (isRuntimeKind(kind[c]) && t < sts[c] + sdur[c]) {
                        startCall.emplace_back(f.id[i], c);
                        break;
                    }
                }
            } else if (f.phase[i] == 'f') {
                while (q < on.size() && gts[on[q]] <= t) ++q;
                if (q == 0) continue;
                const uint32_t row = on[q - 1];
                if (t == gts[row] || t < gts[row] + gdur[row]) endGpu.emplace_back(f.id[i], row);
            }
        }
    }
    // Join by id (both sorted; the first start of an id wins when a trace repeats one).
    if (!std::is_sorted(startCall.begin(), startCall.end())) std::sort(startCall.begin(), startCall.end());
    if (!std::is_sorted(endGpu.begin(), endGpu.end())) std::sort(endGpu.begin(), endGpu.end());
    size_t linked = 0;
    size_t a = 0;
    for (const auto& [id, row] : endGpu) {
        while (a < startCall.size() && startCall[a].first < id) ++a;
        if (a == startCall.size()) break;
        if (startCall[a].first != id || runtime[row] >= 0) continue;
        runtime[row] = startCall[a].second;
        ++linked;
    }
    return linked;
}

// slices.launchedGpu: the GPU activity each runtime call launched (the first one when it launched several).
void fillLaunchedGpu(RankData& rank) {
    const auto& runtime = rank.gpu.runtime;
    auto& launched = rank.slices.launchedGpu.mut();
    assignHuge(launched, rank.slices.size(), -1);
    for (size_t i = rank.gpu.size(); i-- > 0;) {
        if (runtime[i] >= 0) launched[static_cast<size_t>(runtime[i])] = static_cast<int32_t>(i);
    }
}

// 4. CPU ops: only ancestors of the launching call on its own thread. (A global External id lookup is not
// used: in some PyTorch versions a runtime call's "External id" is its correlation id, a number that can
// collide with an unrelated op's External id.)
void attachCpuOps(RankData& rank) {
    const SliceTable& s = rank.slices;
    GpuTable& g = rank.gpu;
    const size_t ng = g.size();
    const auto& runtime = g.runtime;
    auto& cpuOp = g.cpuOp.mut();
    assignHuge(cpuOp, ng, -1);
    std::vector<uint8_t> isStepSlice(s.size(), 0);
    for (int32_t sl : rank.steps.slice) isStepSlice[static_cast<size_t>(sl)] = 1;
    const int32_t* parent = s.parent.data();
    const EventKind* kind = s.kind.data();
    const int64_t* ext = s.externalId.data();
    for (size_t row = 0; row < ng; ++row) {
        const int32_t r = runtime[row];
        if (r < 0) continue;
        int32_t byExt = -1, innermostOp = -1, innermostAnnotation = -1;
        for (int32_t p = parent[r]; p >= 0; p = parent[p]) {
            const bool isOp = kind[p] == EventKind::CpuOp;
            const bool isAnnotation = kind[p] == EventKind::UserAnnotation && !isStepSlice[static_cast<size_t>(p)];
            if (!isOp && !isAnnotation) continue;
            if (ext[r] != kNone && ext[p] == ext[r]) {
                byExt = p;
                break;
            }
            if (isOp && innermostOp < 0) innermostOp = p;
            if (isAnnotation && innermostAnnotation < 0) innermostAnnotation = p;
        }
        cpuOp[row] = byExt >= 0 ? byExt : innermostOp >= 0 ? innermostOp : innermostAnnotation;
    }
}

// 5 (second part). Step of each GPU activity: the step containing its launching call, else its own start.
void assignGpuSteps(RankData& rank, const AnnotationIndex& index) {
    const SliceTable& s = rank.slices;
    GpuTable& g = rank.gpu;
    const size_t ng = g.size();
    const auto& runtime = g.runtime;
    auto& step = g.step.mut();
    assignHuge(step, ng, -1);
    if (rank.steps.start.empty()) return;
    for (size_t row = 0; row < ng; ++row) {
        const int32_t r = runtime[row];
        const TimeNs t = r >= 0 ? s.ts[static_cast<size_t>(r)] : g.ts[row];
        step[row] = index.stepAt(t);
    }
}

// 6. GPU user annotations: a sweep per track over the stream's activities and the track's slices.
void attachGpuAnnotations(RankData& rank, const AnnotationIndex& index, uint32_t trackCount) {
    const SliceTable& s = rank.slices;
    GpuTable& g = rank.gpu;
    auto& annotation = g.annotation.mut();
    assignHuge(annotation, g.size(), -1);
    for (uint32_t k = 0; k < trackCount; ++k) {
        auto sl = index.slicesOn(k);
        if (sl.empty()) continue;
        auto on = index.gpuOn(k);
        size_t p = 0;
        for (uint32_t row : on) {
            const TimeNs t = g.ts[row];
            while (p < sl.size() && s.ts[sl[p]] <= t) ++p;
            if (p == 0) continue;
            for (auto i = static_cast<int32_t>(sl[p - 1]); i >= 0; i = s.parent[static_cast<size_t>(i)]) {
                const auto u = static_cast<size_t>(i);
                if (s.kind[u] == EventKind::GpuUserAnnotation && t < s.ts[u] + s.dur[u]) {
                    annotation[row] = i;
                    break;
                }
            }
        }
    }
}

// 7 (second part). Communication kernels whose name leaves the collective open: the collective named by the
// launching CPU op chain.
void resolveCollectives(RankData& rank) {
    const SliceTable& s = rank.slices;
    GpuTable& g = rank.gpu;
    auto& collective = g.collective.mut();
    const auto& cpuOp = g.cpuOp;
    const auto& runtime = g.runtime;
    std::unordered_map<StrId, Collective> byName;
    auto fromSlice = [&](size_t i) {
        StrId name = s.name[i];
        auto [it, fresh] = byName.try_emplace(name, Collective::None);
        if (fresh) it->second = collectiveFromText(rank.strings.view(name));
        if (it->second != Collective::None) return it->second;
        auto arg = collectiveNameArg(rank.strings.view(s.args[i]));
        return arg.empty() ? Collective::None : collectiveFromText(arg);
    };
    for (size_t row = 0; row < g.size(); ++row) {
        if (g.category[row] != KernelCategory::Communication || collective[row] != Collective::Other) continue;
        int32_t start = cpuOp[row] >= 0 ? cpuOp[row] : runtime[row];
        for (int32_t p = start; p >= 0; p = s.parent[static_cast<size_t>(p)]) {
            Collective c = fromSlice(static_cast<size_t>(p));
            if (c != Collective::None) {
                collective[row] = c;
                break;
            }
        }
    }
}

}  // namespace

Status mergeRank(RankData& rank, const ClassificationRules& rules, const CancelToken& cancel) {
    using Clock = std::chrono::steady_clock;
    auto phaseStart = Clock::now();
    std::string timings;
    auto phase = [&](const char* name) {
        auto now = Clock::now();
        timings += fmt::format(" {} {:.1f} ms", name, std::chrono::duration<double, std::milli>(now - phaseStart).count());
        phaseStart = now;
    };
    auto cancelled = [&] { return cancel.cancelled(); };
    auto stop = [&] { return Error(Location{rank.path}, "merge cancelled"); };
    if (!consistent(rank)) return Error(Location{rank.path}, "merge: the loaded columns have inconsistent lengths");

    const uint32_t trackCount = trackCountOf(rank);
    SliceTable& s = rank.slices;
    s.byTrack = Column<uint32_t>(orderByTrack(s.track, s.ts, &s.dur, trackCount));
    buildSliceHierarchy(rank);
    phase("hierarchy");
    if (cancelled()) return stop();

    rank.gpu.byTrack = Column<uint32_t>(orderByTrack(rank.gpu.track, rank.gpu.ts, nullptr, trackCount));
    phase("gpu-order");
    buildSteps(rank);  // needed by the index below
    phase("steps");
    const AnnotationIndex index(rank);

    const size_t linkedByCorrelation = linkByCorrelation(rank);
    if (cancelled()) return stop();
    phase("correlation");
    size_t linkedByFlow = 0;
    if (linkedByCorrelation < rank.gpu.size() && rank.flows.size() > 0)
        linkedByFlow = linkByFlows(rank, index, trackCount);
    phase("flows");
    fillLaunchedGpu(rank);
    if (cancelled()) return stop();
    phase("launched");

    attachCpuOps(rank);
    if (cancelled()) return stop();
    phase("cpu-ops");
    assignGpuSteps(rank, index);
    phase("gpu-steps");
    attachGpuAnnotations(rank, index, trackCount);
    if (cancelled()) return stop();
    phase("annotations");

    classifyGpuTable(rules, rank.strings, rank.gpu);
    resolveCollectives(rank);
    phase("classify");
    spdlog::debug("merge {}: {} slices, {} GPU activities ({} linked by correlation, {} by flow), {} steps;{}",
                  rank.path, rank.slices.size(), rank.gpu.size(), linkedByCorrelation, linkedByFlow,
                  rank.steps.size(), timings);
    return Ok{};
}

}  // namespace strobe::core
