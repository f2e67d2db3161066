#include "core/analysis/critical_path.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <regex>
#include <tuple>
#include <unordered_map>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>  // madvise (huge pages for the graph's arrays)
#endif

#include <fmt/format.h>

#include "core/analysis/collectives.h"
#include "core/io/huge_pages.h"
#include "core/model/clock_shifts.h"

namespace strobe::core {

namespace {

// The graph's large arrays (hundreds of MB for a step of 1 M kernels) are aligned to 2 MiB and ask for transparent
// huge pages when STROBE_HUGE_PAGES=1 (core/io/huge_pages.h says when they pay: not on a VM whose host takes back the
// memory its guest frees). Where the kernel does not offer them on request (THP "never"), the pages stay small.
template <class T>
struct CpAlloc {
    using value_type = T;
    static constexpr size_t kHuge = size_t{2} << 20;
    CpAlloc() = default;
    template <class U>
    CpAlloc(const CpAlloc<U>&) {}  // NOLINT(google-explicit-constructor): allocators convert implicitly
    T* allocate(size_t n) {
        const size_t bytes = n * sizeof(T);
        if (bytes < 2 * kHuge) return static_cast<T*>(::operator new(bytes));
        const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
        void* p = std::aligned_alloc(kHuge, rounded);
        if (!p) throw std::bad_alloc();
        adviseHugePages(p, rounded);
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t n) {
        if (n * sizeof(T) < 2 * kHuge) ::operator delete(p);
        else std::free(p);
    }
    template <class U>
    bool operator==(const CpAlloc<U>&) const { return true; }
};
template <class T>
using CpVec = std::vector<T, CpAlloc<T>>;

enum class CpEdgeType : uint8_t { Span, Dependency, Idle, Launch, KernelKernel, Sync, SyncResidual, Comm, Wake };

// 32 bytes: the graph of a step of 1 M kernels holds about 4 M events.
struct CpEvent {
    TimeNs ts = 0, end = 0;
    uint32_t row = 0;
    int32_t parent = -1;  // enclosing selected CPU event on its thread
    int32_t launch = -1;  // GPU: the launching call's event
    uint32_t rankPos : 31 = 0;
    uint32_t gpu : 1 = 0;
};

// 16 bytes; its weight lives beside it (CpGraph::w), which is also the base weights of a what-if.
struct CpEdge {
    uint32_t from = 0, to = 0;
    int32_t ev = -1;  // attributed event
    CpEdgeType type = CpEdgeType::Dependency;
};

// Per-name facts of a rank, found once per string id rather than per event.
enum CpNameFlag : uint8_t { kCpKnown = 1, kCpBlocking = 2, kCpLock = 4, kCpGraphLaunch = 8 };

struct CpGraph {
    CpDefinition def = CpDefinition::Strobe;
    std::vector<const RankData*> ranks;  // by dataset rank index (null: not in scope)
    std::vector<int> rankNumbers;
    CpVec<CpEvent> events;  // node 2i: start of event i, 2i+1: its end
    CpVec<CpEdge> edges;
    CpVec<TimeNs> w;              // per edge: its weight
    std::vector<std::string> messages;
    std::vector<std::vector<int32_t>> sliceEv, gpuEv;  // per rank index: row -> event, -1
    std::vector<std::vector<uint8_t>> nameFlags;       // per rank index, per string id: CpNameFlag
    std::unordered_map<uint32_t, TimeNs> syncSource;   // per blocking call's event: latest sync source feeding its end
    std::vector<int32_t> spanEdge;                     // per GPU event: its start -> end edge (several ranks only)
    std::vector<TimeNs> shift;                         // per rank index: ns added to its raw times (clockShifts)
    std::string clock;                                 // the clock alignment, in words
    std::string window;
    size_t negative = 0, broken = 0;

    // What only the build needs, freed before the graph is kept for the path's listing.
    void dropBuildState() {
        std::vector<std::vector<int32_t>>().swap(sliceEv);
        std::vector<std::vector<int32_t>>().swap(gpuEv);
        std::vector<std::vector<uint8_t>>().swap(nameFlags);
        std::unordered_map<uint32_t, TimeNs>().swap(syncSource);
        std::vector<int32_t>().swap(spanEdge);
    }
    uint32_t startNode(size_t e) const { return static_cast<uint32_t>(2 * e); }
    uint32_t endNode(size_t e) const { return static_cast<uint32_t>(2 * e + 1); }
    size_t nodeCount() const { return 2 * events.size(); }
    TimeNs nodeTs(uint32_t n) const {
        const CpEvent& e = events[n / 2];
        return (n & 1) ? e.end : e.ts;
    }
    std::string_view name(size_t e) const {
        const CpEvent& ev = events[e];
        const RankData& r = *ranks[ev.rankPos];
        return r.strings.view(ev.gpu ? r.gpu.name[ev.row] : r.slices.name[ev.row]);
    }
    StrId nameId(size_t e) const {
        const CpEvent& ev = events[e];
        const RankData& r = *ranks[ev.rankPos];
        return ev.gpu ? r.gpu.name[ev.row] : r.slices.name[ev.row];
    }
    uint8_t flags(size_t rankPos, StrId id);
    bool hasFlag(size_t e, CpNameFlag f) { return flags(events[e].rankPos, nameId(e)) & f; }
    void add(uint32_t from, uint32_t to, TimeNs weight, CpEdgeType t, int32_t ev) {
        if (from == to) return;
        if (weight < 0) {
            ++negative;
            weight = 0;
        }
        edges.push_back({from, to, ev, t});
        w.push_back(weight);
    }
};

bool isOneOf(std::string_view s, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), s) != names.end();
}

// "cudaStreamSynchronize_v3020" (nsys) -> "cudaStreamSynchronize".
std::string_view stripVersion(std::string_view s) {
    auto p = s.rfind("_v");
    if (p != std::string_view::npos && p + 2 < s.size() &&
        std::all_of(s.begin() + static_cast<long>(p) + 2, s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return s.substr(0, p);
    return s;
}

bool isBlockingCall(std::string_view name, CpDefinition def) {
    if (def == CpDefinition::Hta)
        return isOneOf(name, {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
                              "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyAsync"});
    name = stripVersion(name);
    return isOneOf(name, {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy",
                          "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "hipMemcpy",
                          "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuMemcpy",
                          "cuMemcpyDtoH", "cuMemcpyHtoD", "hipMemcpyWithStream"});
}

bool isLockCall(std::string_view name) { return isOneOf(name, {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"}); }

uint8_t CpGraph::flags(size_t rankPos, StrId id) {
    auto& f = nameFlags[rankPos];
    if (f.size() <= id) f.resize(std::max<size_t>(ranks[rankPos]->strings.size(), size_t{id} + 1), 0);
    if (!(f[id] & kCpKnown)) {
        const std::string_view s = ranks[rankPos]->strings.view(id);
        f[id] = kCpKnown | (isBlockingCall(s, def) ? kCpBlocking : 0) | (isLockCall(s) ? kCpLock : 0) |
                (s.find("GraphLaunch") != std::string_view::npos ? kCpGraphLaunch : 0);
    }
    return f[id];
}

// ---- the window ----

struct CpSpan {
    TimeNs from = 0, to = 0;
    bool ok = false;
};

CpSpan rankSpan(AnalysisContext& ctx, size_t ri, const CpRequest& req, std::string& what) {
    const RankData& r = *ctx.dataset().ranks[ri];
    CpSpan s;
    if (req.step >= 0) {
        for (const auto& st : ctx.steps(ri))
            if (st.number == req.step) return {st.start, st.end, true};
        what = fmt::format("rank {} has no ProfilerStep#{}", ctx.rankNumber(ri), req.step);
        return s;
    }
    if (!req.annotation.empty()) {
        std::vector<uint8_t> match(r.strings.size(), 0);
        for (size_t id = 0; id < match.size(); ++id)
            match[id] = r.strings.view(static_cast<StrId>(id)).find(req.annotation) != std::string_view::npos;
        std::vector<std::pair<TimeNs, uint32_t>> hits;
        for (uint32_t i = 0; i < r.slices.size(); ++i)
            if (match[r.slices.name[i]] && r.slices.phase[i] == 'X') hits.emplace_back(r.slices.ts[i], i);
        std::sort(hits.begin(), hits.end());
        if (req.instance < 0 || static_cast<size_t>(req.instance) >= hits.size()) {
            what = fmt::format("rank {} has {} instance(s) of an annotation containing '{}', not instance {}",
                               ctx.rankNumber(ri), hits.size(), req.annotation, req.instance);
            return s;
        }
        const uint32_t i = hits[static_cast<size_t>(req.instance)].second;
        return {r.slices.ts[i], r.slices.ts[i] + r.slices.dur[i], true};
    }
    s.from = INT64_MAX;
    s.to = INT64_MIN;
    for (size_t i = 0; i < r.slices.size(); ++i) {
        s.from = std::min(s.from, r.slices.ts[i]);
        s.to = std::max(s.to, r.slices.ts[i] + r.slices.dur[i]);
    }
    for (size_t i = 0; i < r.gpu.size(); ++i) {
        s.from = std::min(s.from, r.gpu.ts[i]);
        s.to = std::max(s.to, r.gpu.ts[i] + r.gpu.dur[i]);
    }
    s.ok = s.from <= s.to;
    if (!s.ok) what = fmt::format("rank {} holds no event", ctx.rankNumber(ri));
    return s;
}

// Events of one rank in the window (HTA's clip: CPU operators and runtime/driver calls starting in the window with
// a duration; GPU activities whose launching call is one of them, or, strobe, that start in it without one).
void selectRankEvents(AnalysisContext& ctx, CpGraph& g, size_t ri, const CpSpan& span) {
    const RankData& r = *ctx.dataset().ranks[ri];
    const TimeNs shift = ri < g.shift.size() ? g.shift[ri] : 0;
    auto& sliceEv = g.sliceEv[ri];
    auto& gpuEv = g.gpuEv[ri];
    sliceEv.assign(r.slices.size(), -1);
    gpuEv.assign(r.gpu.size(), -1);
    for (uint32_t i = 0; i < r.slices.size(); ++i) {
        const EventKind k = r.slices.kind[i];
        if (k != EventKind::CpuOp && k != EventKind::Runtime && k != EventKind::Driver) continue;
        const TimeNs ts = r.slices.ts[i], dur = r.slices.dur[i];
        if (r.slices.phase[i] != 'X' || dur <= 0 || ts < span.from || ts > span.to) continue;
        sliceEv[i] = static_cast<int32_t>(g.events.size());
        g.events.push_back({ts + shift, ts + dur + shift, i, -1, -1, static_cast<uint32_t>(ri), 0});
    }
    const auto& runtime = ctx.runtimeOf(ri);
    size_t graphKernels = 0, linkedRows = 0;
    for (uint32_t i = 0; i < r.gpu.size(); ++i) {
        const int32_t rt = i < runtime.size() ? runtime[i] : -1;
        linkedRows += rt >= 0;
        int32_t launch = rt >= 0 && static_cast<size_t>(rt) < sliceEv.size() ? sliceEv[static_cast<size_t>(rt)] : -1;
        const TimeNs ts = r.gpu.ts[i];
        if (launch < 0) {
            if (g.def == CpDefinition::Hta || rt >= 0 || ts < span.from || ts > span.to) continue;
        }
        gpuEv[i] = static_cast<int32_t>(g.events.size());
        g.events.push_back({ts + shift, ts + shift + std::max<TimeNs>(0, r.gpu.dur[i]), i, -1, launch,
                            static_cast<uint32_t>(ri), 1});
        if (launch >= 0 && (g.flags(ri, r.slices.name[static_cast<size_t>(rt)]) & kCpGraphLaunch)) ++graphKernels;
    }
    // What the source links (rocpd, RPD and nsys exports keep correlation ids; a kernel-trace CSV does not): without
    // the launch links a GPU activity joins the path only through its stream's order and the host's syncs.
    size_t calls = 0;
    for (size_t i = 0; i < r.slices.size(); ++i)
        calls += r.slices.kind[i] == EventKind::Runtime || r.slices.kind[i] == EventKind::Driver;
    if (r.gpu.size() && !calls)
        g.messages.push_back(fmt::format("rank {}: the source has no runtime or driver API calls: no launch -> GPU "
                                         "edge and no host sync; GPU activities are linked by stream order only{}",
                                         ctx.rankNumber(ri), g.def == CpDefinition::Hta ? " (hta: none joins)" : ""));
    else if (r.gpu.size() && !linkedRows)
        g.messages.push_back(fmt::format("rank {}: no GPU activity is linked to its launching call (no shared "
                                         "correlation id): no launch -> GPU edge; GPU activities are linked by stream "
                                         "order and host syncs only",
                                         ctx.rankNumber(ri)));
    if (graphKernels)
        g.messages.push_back(fmt::format("rank {}: {} GPU activities launched through graph launches hang off them",
                                         ctx.rankNumber(ri), graphKernels));
}


// ---- event record / wait (Kineto's cuda_sync events, joined as HTA does) ----

int64_t syncCorrelation(const RankData& r, uint32_t i) {
    if (r.slices.correlation[i] != kNone) return r.slices.correlation[i];
    const std::string c = argValue(r.strings.view(r.slices.args[i]), "correlation");
    return c.empty() ? kNone : std::atoll(c.c_str());
}

struct EventLinks {
    std::unordered_map<int64_t, uint32_t> callByCorrelation;          // runtime calls of the rank
    std::unordered_map<int32_t, std::vector<std::tuple<TimeNs, uint32_t, uint32_t>>> launches;  // stream -> (call ts, gpu row, call's track)
};

EventLinks eventLinks(AnalysisContext& ctx, size_t ri) {
    const RankData& r = *ctx.dataset().ranks[ri];
    EventLinks l;
    // Only the profiler's cuda_sync events (Stream Wait Event, Event Sync) follow these links: none, no links.
    if (std::find(r.slices.kind.begin(), r.slices.kind.end(), EventKind::Sync) == r.slices.kind.end()) return l;
    for (uint32_t i = 0; i < r.slices.size(); ++i)
        if ((r.slices.kind[i] == EventKind::Runtime || r.slices.kind[i] == EventKind::Driver) &&
            r.slices.correlation[i] != kNone)
            l.callByCorrelation[r.slices.correlation[i]] = i;
    const auto& runtime = ctx.runtimeOf(ri);
    for (uint32_t i = 0; i < r.gpu.size() && i < runtime.size(); ++i)
        if (runtime[i] >= 0)
            l.launches[r.gpu.stream[i]].emplace_back(r.slices.ts[static_cast<size_t>(runtime[i])], i,
                                                     r.slices.track[static_cast<size_t>(runtime[i])]);
    for (auto& [s, v] : l.launches) std::sort(v.begin(), v.end());
    return l;
}

// The GPU activity an event record stands for: the last launch on the recorded stream before the record call.
int32_t recordedKernel(const CpGraph& g, const EventLinks& l, const RankData& r, size_t ri, uint32_t syncSlice) {
    const std::string_view args = r.strings.view(r.slices.args[syncSlice]);
    const std::string corr = argValue(args, "wait_on_cuda_event_record_corr_id");
    const std::string stream = argValue(args, "wait_on_stream");
    if (corr.empty() || stream.empty()) return -1;
    auto rec = l.callByCorrelation.find(std::atoll(corr.c_str()));
    auto ls = l.launches.find(static_cast<int32_t>(std::atoll(stream.c_str())));
    if (rec == l.callByCorrelation.end() || ls == l.launches.end()) return -1;
    const TimeNs t = r.slices.ts[rec->second];
    auto it = std::lower_bound(ls->second.begin(), ls->second.end(), std::make_tuple(t, uint32_t{0}, uint32_t{0}));
    if (it == ls->second.begin()) return -1;
    return g.gpuEv[ri][std::get<1>(*std::prev(it))];
}

// Stream Wait Event: the next activity launched on the waiting stream from the thread of the cudaStreamWaitEvent
// call waits for the recorded one. Returns destination event -> source event.
std::unordered_map<int32_t, int32_t> streamWaits(const CpGraph& g, const EventLinks& l, const RankData& r, size_t ri) {
    std::unordered_map<int32_t, int32_t> waits;
    for (uint32_t i = 0; i < r.slices.size(); ++i) {
        if (r.slices.kind[i] != EventKind::Sync || r.strings.view(r.slices.name[i]) != "Stream Wait Event") continue;
        const int32_t src = recordedKernel(g, l, r, ri, i);
        auto call = l.callByCorrelation.find(syncCorrelation(r, i));
        const std::string stream = argValue(r.strings.view(r.slices.args[i]), "stream");
        if (src < 0 || call == l.callByCorrelation.end() || stream.empty()) continue;
        auto ls = l.launches.find(static_cast<int32_t>(std::atoll(stream.c_str())));
        if (ls == l.launches.end()) continue;
        const TimeNs t = r.slices.ts[call->second];
        const uint32_t track = r.slices.track[call->second];
        const auto& runtime = ls->second;
        auto it = std::upper_bound(runtime.begin(), runtime.end(), std::make_tuple(t, UINT32_MAX, UINT32_MAX));
        while (it != runtime.end() && std::get<2>(*it) != track) ++it;
        if (it == runtime.end()) continue;
        const int32_t dest = g.gpuEv[ri][std::get<1>(*it)];
        if (dest >= 0 && dest != src) waits[dest] = src;
    }
    return waits;
}

// ---- GPU side: launch, stream order, HTA's queue ----

uint64_t streamKey(const RankData& r, uint32_t row) {
    return (static_cast<uint64_t>(static_cast<uint16_t>(r.gpu.device[row])) << 32) |
           static_cast<uint32_t>(r.gpu.stream[row]);
}

// HTA's queue length per GPU row over the whole rank: +1 at each launch, -1 at each activity's start, per stream;
// the value after the launch's step (atLaunch) and after the activity's (atKernel).
void htaQueueLengths(AnalysisContext& ctx, size_t ri, std::vector<int32_t>& atLaunch, std::vector<int32_t>& atKernel) {
    const RankData& r = *ctx.dataset().ranks[ri];
    const auto& runtime = ctx.runtimeOf(ri);
    struct Step {
        TimeNs ts;
        int order;  // launches before activities at the same time (HTA concatenates them first)
        uint32_t row;
    };
    std::unordered_map<uint64_t, std::vector<Step>> byStream;
    for (uint32_t i = 0; i < r.gpu.size(); ++i) {
        if (i >= runtime.size() || runtime[i] < 0) continue;
        auto& v = byStream[streamKey(r, i)];
        v.push_back({r.slices.ts[static_cast<size_t>(runtime[i])], 0, i});
        v.push_back({r.gpu.ts[i], 1, i});
    }
    atLaunch.assign(r.gpu.size(), -1);
    atKernel.assign(r.gpu.size(), -1);
    for (auto& [key, v] : byStream) {
        std::sort(v.begin(), v.end(), [](const Step& a, const Step& b) {
            return a.ts != b.ts ? a.ts < b.ts : a.order != b.order ? a.order < b.order : a.row < b.row;
        });
        int32_t q = 0;
        for (const auto& s : v) {
            q += s.order == 0 ? 1 : -1;
            (s.order == 0 ? atLaunch : atKernel)[s.row] = q;
        }
    }
}

// The activity of another stream of the same device that ended last before `e` started, when it ended after
// `after` and at most 10 µs before `e` started; -1 otherwise.
// `upper` is the position of the first activity in `byEnd` that ended after `e` started.
int32_t implicitBlocker(const CpGraph& g, const std::vector<std::pair<TimeNs, uint32_t>>& byEnd, size_t upper,
                        uint32_t e, TimeNs after) {
    const CpEvent& k = g.events[e];
    const RankData& r = *g.ranks[k.rankPos];
    auto it = byEnd.begin() + static_cast<std::ptrdiff_t>(upper);
    for (int steps = 0; it != byEnd.begin() && steps < 8; ++steps) {
        --it;
        if (it->first <= after || k.ts - it->first > 10'000) return -1;
        const CpEvent& o = g.events[it->second];
        if (it->second != e && r.gpu.device[o.row] == r.gpu.device[k.row] && r.gpu.stream[o.row] != r.gpu.stream[k.row])
            return static_cast<int32_t>(it->second);
    }
    return -1;
}

// A small map stream key -> last event, for lookups that mostly hit the stream of the previous one.
struct StreamSlots {
    std::unordered_map<uint64_t, int32_t> map;
    uint64_t lastKey = UINT64_MAX;
    int32_t* lastSlot = nullptr;
    int32_t& at(uint64_t key) {
        if (key != lastKey || !lastSlot) {
            lastSlot = &map.try_emplace(key, -1).first->second;  // references into an unordered_map stay valid
            lastKey = key;
        }
        return *lastSlot;
    }
};

// The rank's GPU events by start (stable: equal starts in row order).
std::vector<uint32_t> gpuByStart(const CpGraph& g, size_t ri) {
    std::vector<uint32_t> evs;
    evs.reserve(g.gpuEv[ri].size());
    for (int32_t e : g.gpuEv[ri])
        if (e >= 0) evs.push_back(static_cast<uint32_t>(e));
    auto byTs = [&](uint32_t a, uint32_t b) { return g.events[a].ts < g.events[b].ts; };
    if (!std::is_sorted(evs.begin(), evs.end(), byTs)) std::stable_sort(evs.begin(), evs.end(), byTs);
    return evs;
}

void gpuEdges(AnalysisContext& ctx, CpGraph& g, size_t ri, const EventLinks& links) {
    const RankData& r = *ctx.dataset().ranks[ri];
    const auto waits = streamWaits(g, links, r, ri);
    std::vector<int32_t> qLaunch, qKernel;
    if (g.def == CpDefinition::Hta) htaQueueLengths(ctx, ri, qLaunch, qKernel);
    const std::vector<uint32_t> evs = gpuByStart(g, ri);
    StreamSlots last;                                // stream -> last event
    std::vector<std::pair<TimeNs, uint32_t>> byEnd;  // the rank's activities by end (implicit dependencies)
    if (g.def == CpDefinition::Strobe) {
        byEnd.reserve(evs.size());
        for (uint32_t e : evs) byEnd.emplace_back(g.events[e].end, e);
        if (!std::is_sorted(byEnd.begin(), byEnd.end())) std::sort(byEnd.begin(), byEnd.end());
    }
    size_t endCursor = 0;  // byEnd's first activity that ended after the current one started (starts only grow)
    constexpr TimeNs kKernelKernelMax = 1'500'000;  // HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US
    for (uint32_t e : evs) {
        const CpEvent& k = g.events[e];
        const auto ie = static_cast<int32_t>(e);
        if (!g.spanEdge.empty()) g.spanEdge[e] = static_cast<int32_t>(g.edges.size());
        g.add(g.startNode(e), g.endNode(e), k.end - k.ts, CpEdgeType::Span, ie);
        int32_t& lastOfStream = last.at(streamKey(r, k.row));
        const int32_t prev = lastOfStream;
        const TimeNs prevEnd = prev >= 0 ? g.events[static_cast<size_t>(prev)].end : INT64_MIN;
        const TimeNs launchTs = k.launch >= 0 ? g.events[static_cast<size_t>(k.launch)].ts : INT64_MIN;
        const auto wait = waits.empty() ? waits.end() : waits.find(ie);
        const int32_t src = wait == waits.end() ? -1 : wait->second;
        while (endCursor < byEnd.size() && byEnd[endCursor].first <= k.ts) ++endCursor;
        const TimeNs syncEnd = src >= 0 ? g.events[static_cast<size_t>(src)].end : INT64_MIN;
        if (g.def == CpDefinition::Hta) {
            if (src >= 0) g.add(g.endNode(static_cast<size_t>(src)), g.startNode(e), 0, CpEdgeType::Sync, -1);
            if (k.launch >= 0 && qLaunch[k.row] == 1 && qKernel[k.row] == 0 && prevEnd < launchTs && syncEnd < launchTs)
                g.add(g.startNode(static_cast<size_t>(k.launch)), g.startNode(e), k.ts - launchTs, CpEdgeType::Launch, ie);
            else if (prev >= 0 && k.ts - prevEnd < kKernelKernelMax && (src < 0 || syncEnd < prevEnd))
                g.add(g.endNode(static_cast<size_t>(prev)), g.startNode(e), k.ts - prevEnd, CpEdgeType::KernelKernel,
                      prev);
        } else if (src >= 0 && syncEnd > std::max(prevEnd, launchTs)) {  // it waited for another stream's event
            g.add(g.endNode(static_cast<size_t>(src)), g.startNode(e), std::max<TimeNs>(0, k.ts - syncEnd),
                  CpEdgeType::KernelKernel, src);
            if (k.launch >= 0) g.add(g.startNode(static_cast<size_t>(k.launch)), g.startNode(e), 0, CpEdgeType::Launch, ie);
            if (prev >= 0) g.add(g.endNode(static_cast<size_t>(prev)), g.startNode(e), 0, CpEdgeType::KernelKernel, prev);
        } else {
            if (src >= 0) g.add(g.endNode(static_cast<size_t>(src)), g.startNode(e), 0, CpEdgeType::Sync, -1);
            // An activity that started right after another stream's activity ended, long after its launch and its
            // own stream's previous one, waited for it (the null stream, a shared hardware queue): an implicit
            // dependency rather than launch latency.
            const int32_t other = implicitBlocker(g, byEnd, endCursor, e, std::max(prevEnd, launchTs));
            if (other >= 0) {
                g.add(g.endNode(static_cast<size_t>(other)), g.startNode(e),
                      k.ts - g.events[static_cast<size_t>(other)].end, CpEdgeType::KernelKernel, other);
                if (k.launch >= 0)
                    g.add(g.startNode(static_cast<size_t>(k.launch)), g.startNode(e), 0, CpEdgeType::Launch, ie);
                if (prev >= 0) g.add(g.endNode(static_cast<size_t>(prev)), g.startNode(e), 0, CpEdgeType::KernelKernel, prev);
                lastOfStream = ie;
                continue;
            }
            const bool queued = prev >= 0 && (k.launch < 0 || prevEnd >= launchTs);
            if (k.launch >= 0)
                g.add(g.startNode(static_cast<size_t>(k.launch)), g.startNode(e), queued ? 0 : k.ts - launchTs,
                      CpEdgeType::Launch, ie);
            if (prev >= 0)
                g.add(g.endNode(static_cast<size_t>(prev)), g.startNode(e), queued ? std::max<TimeNs>(0, k.ts - prevEnd) : 0,
                      CpEdgeType::KernelKernel, prev);
        }
        lastOfStream = ie;
    }
}

// ---- host synchronisation ----

struct StreamIndex {
    std::unordered_map<uint64_t, std::vector<uint32_t>> byStream;  // events by start
    bool built = false;
    void build(const CpGraph& g, const RankData& r, const std::vector<int32_t>& gpuEv) {
        built = true;
        uint64_t lastKey = UINT64_MAX;
        std::vector<uint32_t>* v = nullptr;
        for (int32_t e : gpuEv) {
            if (e < 0) continue;
            const uint64_t key = streamKey(r, g.events[static_cast<size_t>(e)].row);
            if (!v || key != lastKey) v = &byStream[key];
            lastKey = key;
            v->push_back(static_cast<uint32_t>(e));
        }
        auto byTs = [&](uint32_t a, uint32_t b) { return g.events[a].ts < g.events[b].ts; };
        for (auto& [k, evs] : byStream)
            if (!std::is_sorted(evs.begin(), evs.end(), byTs)) std::stable_sort(evs.begin(), evs.end(), byTs);
    }
    // The last activity of a stream that started by `t` (strobe: and ended by `t` + 1 µs), -1 when none.
    int32_t lastBefore(const CpGraph& g, const std::vector<uint32_t>& v, TimeNs t) const {
        auto it = std::upper_bound(v.begin(), v.end(), t, [&](TimeNs x, uint32_t e) { return x < g.events[e].ts; });
        while (it != v.begin()) {
            --it;
            if (g.def == CpDefinition::Hta || g.events[*it].end <= t + 1000) return static_cast<int32_t>(*it);
        }
        return -1;
    }
};

void noteSyncSource(CpGraph& g, uint32_t callEv, TimeNs end) {
    TimeNs& s = g.syncSource.try_emplace(callEv, INT64_MIN).first->second;
    s = std::max(s, end);
}

// The blocking call's end after GPU activity k, one of those it waited for, the last of which ended at `awaited`.
// Strobe: the call returns after both its own start (the CPU edge into its end) and the awaited work; each such
// edge weighs the part of the call after both, max(awaited, the call's start) -> the call's end, clamped at 0 (the
// work may end after the return on a skewed clock). A path that reaches the call's end through the GPU carries the
// return too, never more than the call lasted (a stream whose last activity ended long before the call gains
// nothing through it), and no stream's edge more than the one that ended last (the call waited for all of them).
// HTA: a zero-weight dependency.
void syncEdge(CpGraph& g, uint32_t k, uint32_t callEv, TimeNs awaited) {
    const CpEvent& call = g.events[callEv];
    if (g.def == CpDefinition::Strobe)
        g.add(g.endNode(k), g.endNode(callEv), std::max<TimeNs>(0, call.end - std::max(awaited, call.ts)),
              CpEdgeType::SyncResidual, static_cast<int32_t>(callEv));
    else
        g.add(g.endNode(k), g.endNode(callEv), 0, CpEdgeType::Sync, -1);
    noteSyncSource(g, callEv, g.events[k].end);
}

void syncTo(CpGraph& g, const StreamIndex& idx, uint32_t callEv, int64_t stream, bool allStreams) {
    const TimeNs t = g.events[callEv].end;
    std::vector<uint32_t> awaited;  // per stream, the last activity the call waited for
    TimeNs last = INT64_MIN;
    for (const auto& [key, v] : idx.byStream) {
        if (!allStreams && static_cast<int64_t>(static_cast<int32_t>(key & 0xffffffffu)) != stream) continue;
        const int32_t k = idx.lastBefore(g, v, t);
        if (k < 0) continue;
        awaited.push_back(static_cast<uint32_t>(k));
        last = std::max(last, g.events[static_cast<size_t>(k)].end);
    }
    for (uint32_t k : awaited) syncEdge(g, k, callEv, last);
}

void syncEdges(AnalysisContext& ctx, CpGraph& g, size_t ri, const EventLinks& links) {
    const RankData& r = *ctx.dataset().ranks[ri];
    StreamIndex idx;  // built at the first sync
    if (g.def == CpDefinition::Strobe) {
        for (uint32_t i = 0; i < r.slices.size(); ++i) {
            const int32_t e = g.sliceEv[ri][i];
            if (e < 0 || !(g.flags(ri, r.slices.name[i]) & kCpBlocking)) continue;
            if (!idx.built) idx.build(g, r, g.gpuEv[ri]);
            syncTo(g, idx, static_cast<uint32_t>(e), -1, true);
        }
        return;
    }
    // HTA: the profiler's cuda_sync events (Context Sync, Stream Sync, Event Sync), joined to their runtime call
    // by correlation.
    const size_t syncs = static_cast<size_t>(std::count(r.slices.kind.begin(), r.slices.kind.end(), EventKind::Sync));
    std::unordered_map<int64_t, int32_t> byCorrelation;
    for (uint32_t i = 0; i < r.slices.size() && syncs; ++i)
        if (g.sliceEv[ri][i] >= 0 && r.slices.correlation[i] != kNone)
            byCorrelation[r.slices.correlation[i]] = g.sliceEv[ri][i];
    if (syncs) idx.build(g, r, g.gpuEv[ri]);
    for (uint32_t i = 0; i < r.slices.size(); ++i) {
        if (r.slices.kind[i] != EventKind::Sync) continue;
        auto it = byCorrelation.find(syncCorrelation(r, i));
        if (it == byCorrelation.end()) continue;
        const std::string_view name = r.strings.view(r.slices.name[i]);
        const std::string_view args = r.strings.view(r.slices.args[i]);
        if (name == "Context Sync") {
            syncTo(g, idx, static_cast<uint32_t>(it->second), -1, true);
        } else if (name == "Stream Sync") {
            const std::string s = argValue(args, "stream");
            if (!s.empty()) syncTo(g, idx, static_cast<uint32_t>(it->second), std::atoll(s.c_str()), false);
        } else if (name == "Event Sync") {
            const int32_t k = recordedKernel(g, links, r, ri, i);
            const auto call = static_cast<uint32_t>(it->second);
            if (k >= 0) syncEdge(g, static_cast<uint32_t>(k), call, g.events[static_cast<size_t>(k)].end);
        }
    }
    if (syncs == 0)
        g.messages.push_back(fmt::format("rank {}: no cuda_sync events, so (as in HTA) no GPU->CPU sync edge: a kernel "
                                         "joins the path only through launch and kernel-kernel edges",
                                         ctx.rankNumber(ri)));
}

// ---- CPU side: call stacks, HTA's runtime lock ----

void callStackEdges(CpGraph& g, const std::vector<uint32_t>& evs) {
    const bool hta = g.def == CpDefinition::Hta;
    auto isLock = [&](uint32_t node) { return hta && g.hasFlag(node / 2, kCpLock); };
    auto sharesLock = [&](uint32_t a, uint32_t b) {
        return isLock(a) && isLock(b) && ((a % 2 == 0) || (b % 2 == 1));
    };
    std::vector<uint32_t> stack;
    int64_t last = -1;
    int32_t lastParent = -1;
    auto edge = [&](uint32_t to, bool enter, uint32_t e) {
        if (last < 0 || sharesLock(static_cast<uint32_t>(last), to)) return;
        const auto from = static_cast<uint32_t>(last);
        int32_t attributed = (from % 2 == 0) ? static_cast<int32_t>(from / 2) : (to % 2 == 1) ? static_cast<int32_t>(to / 2) : lastParent;
        const TimeNs gap = g.nodeTs(to) - g.nodeTs(from);
        if (enter && stack.empty()) {
            g.add(from, to, hta ? 0 : gap, hta ? CpEdgeType::Dependency : CpEdgeType::Idle, -1);
        } else if (!enter && g.hasFlag(e, kCpBlocking)) {
            const auto src = g.syncSource.find(e);
            const TimeNs residue = g.nodeTs(to) - std::max(g.nodeTs(from), src == g.syncSource.end() ? INT64_MIN : src->second);
            g.add(from, to, hta ? 0 : std::max<TimeNs>(0, residue), hta ? CpEdgeType::Span : CpEdgeType::SyncResidual,
                  attributed);
        } else {
            g.add(from, to, gap, CpEdgeType::Span, attributed);
        }
    };
    auto exitTop = [&]() {
        const uint32_t e = stack.back();
        stack.pop_back();
        edge(g.endNode(e), false, e);
        last = g.endNode(e);
        lastParent = g.events[e].parent;
    };
    for (uint32_t e : evs) {
        while (!stack.empty() && (g.events[stack.back()].end <= g.events[e].ts ||
                                  g.events[e].end > g.events[stack.back()].end))
            exitTop();
        g.events[e].parent = stack.empty() ? -1 : static_cast<int32_t>(stack.back());
        edge(g.startNode(e), true, e);
        last = g.startNode(e);
        lastParent = g.events[e].parent;
        stack.push_back(e);
    }
    while (!stack.empty()) exitTop();
}

// HTA's CUDA runtime lock: lock calls of every thread, their nodes in (time, event) order.
void runtimeLockEdges(CpGraph& g, size_t ri) {
    std::vector<uint32_t> nodes;
    for (int32_t e : g.sliceEv[ri])
        if (e >= 0 && g.hasFlag(static_cast<size_t>(e), kCpLock)) {
            nodes.push_back(g.startNode(static_cast<size_t>(e)));
            nodes.push_back(g.endNode(static_cast<size_t>(e)));
        }
    std::sort(nodes.begin(), nodes.end(), [&](uint32_t a, uint32_t b) {
        const CpEvent &ea = g.events[a / 2], &eb = g.events[b / 2];
        if (g.nodeTs(a) != g.nodeTs(b)) return g.nodeTs(a) < g.nodeTs(b);
        return ea.row != eb.row ? ea.row < eb.row : a < b;
    });
    std::vector<uint32_t> starts;
    int64_t last = -1;
    for (uint32_t n : nodes) {
        if (n % 2 == 0) {
            starts.push_back(n);
        } else {
            while (!starts.empty()) {
                const uint32_t s = starts.back();
                starts.pop_back();
                if (s / 2 == n / 2)
                    g.add(s, n, g.nodeTs(n) - g.nodeTs(s), CpEdgeType::Span, static_cast<int32_t>(n / 2));
                else
                    g.add(s, n, 0, CpEdgeType::Dependency, -1);
            }
            if (last >= 0 && last % 2 == 1) g.add(static_cast<uint32_t>(last), n, 0, CpEdgeType::Dependency, -1);
        }
        last = n;
    }
}


// Forward -> backward (Kineto's fwdbwd flows, strobe): the backward operator starts after its forward one ended,
// which links the autograd thread to the main thread.
int32_t enclosingEvent(const CpGraph& g, const std::vector<uint32_t>& evs, TimeNs t) {
    auto it = std::upper_bound(evs.begin(), evs.end(), t, [&](TimeNs x, uint32_t e) { return x < g.events[e].ts; });
    int32_t best = -1;
    for (int steps = 0; it != evs.begin() && steps < 64; ++steps) {
        --it;
        const CpEvent& e = g.events[*it];
        if (e.ts <= t && t <= e.end) {
            best = static_cast<int32_t>(*it);
            break;
        }
    }
    return best;
}

void flowEdges(CpGraph& g, size_t ri, const std::unordered_map<uint32_t, std::vector<uint32_t>>& byTrack) {
    const RankData& r = *g.ranks[ri];
    const auto fwdbwd = r.strings.find("fwdbwd");
    if (!fwdbwd) return;
    std::unordered_map<int64_t, int32_t> from;
    size_t linked = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < r.flows.size(); ++i) {
            if (r.flows.cat[i] != *fwdbwd || (pass == 0) != (r.flows.phase[i] == 's')) continue;
            auto t = byTrack.find(r.flows.track[i]);
            if (t == byTrack.end()) continue;
            const int32_t e = enclosingEvent(g, t->second, r.flows.ts[i] + (ri < g.shift.size() ? g.shift[ri] : 0));
            if (e < 0) continue;
            if (pass == 0) {
                from[r.flows.id[i]] = e;
            } else if (auto f = from.find(r.flows.id[i]); f != from.end() && f->second != e) {
                const auto a = static_cast<size_t>(f->second), b = static_cast<size_t>(e);
                if (g.events[a].end <= g.events[b].ts) {
                    g.add(g.endNode(a), g.startNode(b), 0, CpEdgeType::Sync, -1);
                    ++linked;
                }
            }
        }
    }
    if (linked) g.messages.push_back(fmt::format("rank {}: {} forward->backward link(s) (fwdbwd flows)", g.rankNumbers[ri], linked));
}

// A thread idle between two top-level events resumes, at the latest, when the last event of another thread of the
// rank that ended in its gap ended (strobe): the main thread waiting for the autograd thread, a data loader...
// The edge weighs the rest of the gap; on equal lengths the path prefers it to the thread's own idle edge.
void wakeEdges(CpGraph& g, const std::unordered_map<uint32_t, std::vector<uint32_t>>& byTrack) {
    if (byTrack.size() < 2) return;
    std::vector<std::pair<TimeNs, uint32_t>> ends;  // top-level events of every thread by end
    for (const auto& [track, evs] : byTrack)
        for (uint32_t e : evs)
            if (g.events[e].parent < 0) ends.emplace_back(g.events[e].end, e);
    std::sort(ends.begin(), ends.end());
    const RankData& r = *g.ranks[g.events[ends.front().second].rankPos];
    for (const auto& [track, evs] : byTrack) {
        int64_t prev = -1;
        for (uint32_t e : evs) {
            if (g.events[e].parent >= 0) continue;
            {  // a thread's first event: woken by the last event that ended before it
                const TimeNs g0 = prev >= 0 ? g.events[static_cast<size_t>(prev)].end : INT64_MIN, g1 = g.events[e].ts;
                auto it = std::upper_bound(ends.begin(), ends.end(), std::make_pair(g1, UINT32_MAX));
                for (int steps = 0; it != ends.begin() && steps < 16; ++steps) {
                    --it;
                    if (it->first < g0) break;
                    if (r.slices.track[g.events[it->second].row] == track) continue;
                    g.add(g.endNode(it->second), g.startNode(e), g1 - it->first, CpEdgeType::Wake, -1);
                    break;
                }
            }
            prev = e;
        }
    }
}

// A thread's events in call order: by start, the longer (enclosing) first, then by row. A natural merge sort: a
// thread's events come as a few runs already in order (a trace's slices by depth, say), merged pass by pass with
// sequential reads of the events rather than a sort's scattered ones.
void sortCallOrder(const CpGraph& g, std::vector<uint32_t>& evs) {
    auto before = [&](uint32_t a, uint32_t b) {
        const CpEvent &x = g.events[a], &y = g.events[b];
        if (x.ts != y.ts) return x.ts < y.ts;
        if (x.end != y.end) return x.end > y.end;
        return x.row < y.row;
    };
    std::vector<size_t> runs{0};  // starts of the ascending runs
    for (size_t i = 1; i < evs.size(); ++i)
        if (before(evs[i], evs[i - 1])) runs.push_back(i);
    if (runs.size() == 1) return;
    if (runs.size() > evs.size() / 8) {  // little order to use
        std::sort(evs.begin(), evs.end(), before);
        return;
    }
    runs.push_back(evs.size());
    std::vector<uint32_t> out(evs.size());
    while (runs.size() > 2) {
        std::vector<size_t> next;
        for (size_t k = 0; k + 1 < runs.size(); k += 2) {
            const size_t lo = runs[k], mid = runs[k + 1], hi = k + 2 < runs.size() ? runs[k + 2] : mid;
            std::merge(evs.begin() + static_cast<std::ptrdiff_t>(lo), evs.begin() + static_cast<std::ptrdiff_t>(mid),
                       evs.begin() + static_cast<std::ptrdiff_t>(mid), evs.begin() + static_cast<std::ptrdiff_t>(hi),
                       out.begin() + static_cast<std::ptrdiff_t>(lo), before);
            next.push_back(lo);
        }
        next.push_back(evs.size());
        evs.swap(out);
        runs.swap(next);
    }
}

void cpuEdges(CpGraph& g, size_t ri) {
    const RankData& r = *g.ranks[ri];
    std::unordered_map<uint32_t, std::vector<uint32_t>> byTrack;
    uint32_t lastTrack = UINT32_MAX;
    std::vector<uint32_t>* v = nullptr;
    for (int32_t e : g.sliceEv[ri]) {
        if (e < 0) continue;
        const uint32_t track = r.slices.track[g.events[static_cast<size_t>(e)].row];
        if (!v || track != lastTrack) v = &byTrack[track];
        lastTrack = track;
        v->push_back(static_cast<uint32_t>(e));
    }
    for (auto& [track, evs] : byTrack) {
        sortCallOrder(g, evs);
        callStackEdges(g, evs);
    }
    if (g.def == CpDefinition::Hta) runtimeLockEdges(g, ri);
    else {
        flowEdges(g, ri, byTrack);
        wakeEdges(g, byTrack);
    }
}

// ---- collectives across ranks (strobe) ----

void collectiveEdges(AnalysisContext& ctx, CpGraph& g) {
    size_t inScope = 0;
    for (const auto* r : g.ranks) inScope += r != nullptr;
    if (inScope < 2) return;
    auto sel = ctx.select(WindowSpec{});
    if (!sel) return;
    size_t matched = 0;
    for (const auto& [key, hits] : matchCollectiveKernels(sel.value()->ranks)) {
        std::vector<uint32_t> evs;
        for (const auto& h : hits) {
            const size_t ri = sel.value()->ranks[h.rankPos].rankIndex;
            if (ri < g.gpuEv.size() && h.row < g.gpuEv[ri].size() && g.gpuEv[ri][h.row] >= 0)
                evs.push_back(static_cast<uint32_t>(g.gpuEv[ri][h.row]));
        }
        if (evs.size() < 2) continue;
        ++matched;
        TimeNs lastStart = INT64_MIN;
        for (uint32_t e : evs) lastStart = std::max(lastStart, g.events[e].ts);
        for (uint32_t e : evs) {
            const TimeNs transfer = std::max<TimeNs>(0, g.events[e].end - lastStart);
            if (e < g.spanEdge.size() && g.spanEdge[e] >= 0) {  // the kernel's own span becomes its transfer time
                g.w[static_cast<size_t>(g.spanEdge[e])] = transfer;
                g.edges[static_cast<size_t>(g.spanEdge[e])].type = CpEdgeType::Comm;
            }
            for (uint32_t q : evs)
                if (q != e) g.add(g.startNode(q), g.endNode(e), transfer, CpEdgeType::Comm, static_cast<int32_t>(e));
        }
    }
    if (matched) g.messages.push_back(fmt::format("{} collective(s) matched across ranks: each ends when its last "
                                                  "rank has arrived",
                                                  matched));
}

// ---- the graph ----

std::string windowName(const CpRequest& req) {
    if (req.step >= 0) return fmt::format("ProfilerStep#{}", req.step);
    if (!req.annotation.empty()) return fmt::format("annotation '{}' instance {}", req.annotation, req.instance);
    return "all";
}

Result<std::vector<size_t>> cpScope(AnalysisContext& ctx, const CpRequest& req, std::vector<std::string>& messages) {
    std::vector<size_t> scope;
    if (req.rank >= 0) {
        for (size_t ri = 0; ri < ctx.rankCount(); ++ri)
            if (ctx.rankNumber(ri) == req.rank) scope.push_back(ri);
        if (scope.empty()) return Error(fmt::format("the run has no rank {}", req.rank));
    } else if (req.definition == CpDefinition::Hta) {
        if (ctx.rankCount() > 0) scope.push_back(0);
        if (ctx.rankCount() > 1)
            messages.push_back(fmt::format("hta: one rank at a time; rank {} (--rank chooses another)", ctx.rankNumber(0)));
    } else {
        for (size_t ri = 0; ri < ctx.rankCount(); ++ri) scope.push_back(ri);
    }
    return scope;
}

Result<CpGraph> buildGraph(AnalysisContext& ctx, const CpRequest& req) {
    CpGraph g;
    g.def = req.definition;
    const size_t n = ctx.rankCount();
    g.ranks.assign(n, nullptr);
    g.sliceEv.resize(n);
    g.gpuEv.resize(n);
    g.nameFlags.resize(n);
    for (size_t ri = 0; ri < n; ++ri) g.rankNumbers.push_back(ctx.rankNumber(ri));
    g.shift = clockShifts(ctx.dataset());
    g.clock = clockAlignmentText(ctx.dataset(), g.shift);
    auto scope = cpScope(ctx, req, g.messages);
    if (!scope) return scope.error();
    std::vector<size_t> used;
    size_t cpuRows = 0, gpuRows = 0;  // upper bounds of the events, to reserve the graph once
    for (size_t ri : scope.value()) {
        cpuRows += ctx.dataset().ranks[ri]->slices.size();
        gpuRows += ctx.dataset().ranks[ri]->gpu.size();
    }
    g.events.reserve(cpuRows + gpuRows);
    for (size_t ri : scope.value()) {
        std::string what;
        const CpSpan span = rankSpan(ctx, ri, req, what);
        if (!span.ok) {
            g.messages.push_back(what);
            continue;
        }
        g.ranks[ri] = ctx.dataset().ranks[ri].get();
        selectRankEvents(ctx, g, ri, span);
        used.push_back(ri);
    }
    g.window = windowName(req);
    if (g.events.empty()) {  // an empty result that says why (not an error: the analyses' convention)
        g.messages.push_back(fmt::format("no event in the window ({}): nothing to analyse", g.window));
        return g;
    }
    // Edges: about two per CPU event (call-stack order) and three per GPU activity (span, launch, stream order).
    // Reserving more than is used costs address space only: untouched pages are never faulted in.
    size_t gpuEvents = 0;
    for (const auto& e : g.events) gpuEvents += e.gpu;
    const size_t edgeBound = 3 * (g.events.size() - gpuEvents) + 4 * gpuEvents + 1024;
    g.edges.reserve(edgeBound);
    g.w.reserve(edgeBound);
    if (g.def == CpDefinition::Strobe && used.size() > 1) g.spanEdge.assign(g.events.size(), -1);
    for (size_t ri : used) {
        const EventLinks links = eventLinks(ctx, ri);
        gpuEdges(ctx, g, ri, links);
        syncEdges(ctx, g, ri, links);
        cpuEdges(g, ri);
    }
    if (g.def == CpDefinition::Strobe) collectiveEdges(ctx, g);
    if (used.size() == 1 && n > 1) g.window += fmt::format(", rank {}", ctx.rankNumber(used.front()));
    else if (used.size() > 1) g.window += fmt::format(", {} ranks", used.size());
    return g;
}

// Topological order (Kahn). When no node is free while some remain (a cycle), the earliest remaining node is
// placed anyway: the edges into it from nodes not yet placed are broken (never relaxed).
constexpr uint32_t kBrokenEdge = UINT32_MAX;

struct CpOrder {
    CpVec<uint32_t> order;
    CpVec<uint32_t> outStart, outEdges;  // CSR of out-edges by node, in edge order; kBrokenEdge: broken
    CpVec<uint8_t> state;                     // per node: kPlaced, kHasPred (an edge that is not broken ends there)
    size_t brokenCount = 0;
    TimeNs origin = 0;                         // the graph's earliest node
    static constexpr uint8_t kPlaced = 1, kHasPred = 2;
};

// The CSR of the out-edges: counts, their prefix sums, a fill that advances each node's start to its end, and a
// shift back (no second array of cursors).
void outEdgesCsr(const CpGraph& g, CpOrder& o, CpVec<int32_t>& indeg) {
    const size_t n = g.nodeCount();
    o.outStart.assign(n + 1, 0);
    indeg.assign(n, 0);
    for (const auto& e : g.edges) {  // one pass for both counts
        ++o.outStart[e.from + 1];
        ++indeg[e.to];
    }
    for (size_t i = 0; i < n; ++i) o.outStart[i + 1] += o.outStart[i];
    o.outEdges.resize(g.edges.size());
    for (uint32_t i = 0; i < g.edges.size(); ++i) o.outEdges[o.outStart[g.edges[i].from]++] = i;
    for (size_t i = n; i > 0; --i) o.outStart[i] = o.outStart[i - 1];
    o.outStart[0] = 0;
}

// Per-node arrays of longestPath, kept across the runs of a what-if (pred first serves topoOrder's in-degrees:
// memory already touched is cheaper than new pages).
struct CpScratch {
    CpVec<TimeNs> dist;
    CpVec<int32_t> pred;
};

CpOrder topoOrder(const CpGraph& g, CpScratch& s) {
    const auto n = static_cast<uint32_t>(g.nodeCount());
    CpOrder o;
    CpVec<int32_t>& indeg = s.pred;
    outEdgesCsr(g, o, indeg);
    o.origin = INT64_MAX;
    for (const auto& e : g.events) o.origin = std::min({o.origin, e.ts, e.end});
    std::vector<uint32_t> byTime;  // every node by time: made only when a cycle is met
    o.state.assign(n, 0);
    std::vector<uint32_t> ready;
    for (uint32_t i = n; i-- > 0;)
        if (indeg[i] == 0) ready.push_back(i);
    size_t cursor = 0;
    o.order.reserve(n);
    while (o.order.size() < n) {
        if (ready.empty()) {
            if (byTime.empty()) {
                byTime.resize(n);
                for (uint32_t i = 0; i < n; ++i) byTime[i] = i;
                std::stable_sort(byTime.begin(), byTime.end(),
                                 [&](uint32_t a, uint32_t b) { return g.nodeTs(a) < g.nodeTs(b); });
            }
            while (o.state[byTime[cursor]] & CpOrder::kPlaced) ++cursor;
            ready.push_back(byTime[cursor]);
        }
        const uint32_t u = ready.back();
        ready.pop_back();
        if (o.state[u] & CpOrder::kPlaced) continue;
        o.state[u] |= CpOrder::kPlaced;
        o.order.push_back(u);
        for (uint32_t k = o.outStart[u]; k < o.outStart[u + 1]; ++k) {
            const uint32_t v = g.edges[o.outEdges[k]].to;
            if (o.state[v] & CpOrder::kPlaced) {
                o.outEdges[k] = kBrokenEdge;
                ++o.brokenCount;
                continue;
            }
            o.state[v] |= CpOrder::kHasPred;
            if (--indeg[v] == 0) ready.push_back(v);
        }
    }
    return o;
}

struct CpRun {
    TimeNs length = 0;
    CpVec<uint32_t> edges;  // the path's edges in order
    TimeNs startOffset = 0;       // strobe: from the window's first event to the path's first node
    uint32_t first = 0;           // the path's first node
    TimeNs origin = 0;
};

// Longest path by dynamic programming in topological order. Strobe (wall time on the run's clock): a node without
// predecessors starts at its time after the earliest node of the graph, so that ranks and threads whose window
// begins later are not favoured by having started counting earlier.
CpRun longestPath(const CpGraph& g, const CpOrder& o, const CpVec<TimeNs>& w, CpScratch& s) {
    const size_t n = g.nodeCount();
    CpVec<TimeNs>& dist = s.dist;
    CpVec<int32_t>& pred = s.pred;
    dist.assign(n, 0);
    pred.assign(n, -1);
    const bool strobe = g.def == CpDefinition::Strobe;
    uint32_t best = 0;
    TimeNs bestDist = INT64_MIN;
    for (uint32_t u : o.order) {
        // Nothing has relaxed into a node without predecessors: it starts at its time (strobe) or 0.
        if (strobe && !(o.state[u] & CpOrder::kHasPred)) dist[u] = g.nodeTs(u) - o.origin;
        const TimeNs du = dist[u];  // final: every predecessor came before
        if (du > bestDist || (du == bestDist && u < best)) {  // the first node of the longest distance
            best = u;
            bestDist = du;
        }
        for (uint32_t k = o.outStart[u]; k < o.outStart[u + 1]; ++k) {
            const uint32_t ei = o.outEdges[k];
            if (ei == kBrokenEdge) continue;
            const uint32_t v = g.edges[ei].to;
            const TimeNs d = du + w[ei];
            // On equal lengths a dependency is preferred to the thread's own idle time (it explains the wait).
            const bool better = d > dist[v] || (pred[v] < 0 && d == dist[v]) ||
                                (d == dist[v] && g.edges[static_cast<size_t>(pred[v])].type == CpEdgeType::Idle &&
                                 g.edges[ei].type != CpEdgeType::Idle);
            if (better) {
                dist[v] = d;
                pred[v] = static_cast<int32_t>(ei);
            }
        }
    }
    CpRun run;
    run.length = dist[best];
    for (int32_t ei = pred[best]; ei >= 0; ei = pred[g.edges[static_cast<size_t>(ei)].from]) {
        run.edges.push_back(static_cast<uint32_t>(ei));
        if (run.edges.size() > g.edges.size()) break;  // cannot happen on a DAG; never loop
    }
    std::reverse(run.edges.begin(), run.edges.end());
    run.first = run.edges.empty() ? best : g.edges[run.edges.front()].from;
    run.startOffset = pred[run.first] < 0 ? dist[run.first] : 0;
    run.origin = o.origin;
    return run;
}

bool isCommEvent(const CpGraph& g, const std::vector<std::vector<HtaType>>& types, size_t e) {
    const CpEvent& ev = g.events[e];
    if (!ev.gpu) return false;
    const RankData& r = *g.ranks[ev.rankPos];
    if (r.gpu.category.size() == r.gpu.size() && r.gpu.category[ev.row] == KernelCategory::Communication) return true;
    const auto& t = types[ev.rankPos];
    const StrId id = r.gpu.name[ev.row];
    return id < t.size() && t[id] == HtaType::Communication;
}

// "kernel:<category>" for every category, made once (the path's classes are views of static text).
std::string_view kernelClassName(KernelCategory c) {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (size_t i = 0; i < static_cast<size_t>(KernelCategory::Count); ++i)
            v.push_back(fmt::format("kernel:{}", toString(static_cast<KernelCategory>(i))));
        return v;
    }();
    const auto i = static_cast<size_t>(c);
    return i < names.size() ? std::string_view(names[i]) : std::string_view("kernel:other");
}

// The bound-by classes as small ids (the path's edges are counted per id, the names made at the end).
enum CpClass : uint8_t {
    kClsNone, kClsIdle, kClsLaunchLatency, kClsSyncWait, kClsCommunication, kClsCpuOp, kClsCpuBound,
    kClsGpuCompute, kClsGpuComm, kClsGpuKernelKernel, kClsGpuLaunch, kClsKernel0  // + KernelCategory
};
constexpr size_t kClsCount = kClsKernel0 + static_cast<size_t>(KernelCategory::Count);

std::string_view className(size_t c) {
    static constexpr std::string_view fixed[] = {"",
                                                 "idle",
                                                 "launch_latency",
                                                 "sync_wait",
                                                 "communication",
                                                 "cpu_op",
                                                 "cpu_bound",
                                                 "gpu_compute_bound",
                                                 "gpu_communication_bound",
                                                 "gpu_kernel_kernel_overhead",
                                                 "gpu_kernel_launch_overhead"};
    if (c < kClsKernel0) return fixed[c];
    return kernelClassName(static_cast<KernelCategory>(c - kClsKernel0));
}

size_t edgeClass(const CpGraph& g, const std::vector<std::vector<HtaType>>& types, const CpEdge& e) {
    const bool hta = g.def == CpDefinition::Hta;
    switch (e.type) {
    case CpEdgeType::Dependency:
    case CpEdgeType::Sync: return kClsNone;
    case CpEdgeType::Idle:
    case CpEdgeType::Wake: return kClsIdle;
    case CpEdgeType::Launch: return hta ? kClsGpuLaunch : kClsLaunchLatency;
    case CpEdgeType::KernelKernel: return hta ? kClsGpuKernelKernel : kClsIdle;
    case CpEdgeType::SyncResidual: return kClsSyncWait;
    case CpEdgeType::Comm: return hta ? kClsGpuComm : kClsCommunication;
    case CpEdgeType::Span: break;
    }
    if (e.ev < 0 || !g.events[static_cast<size_t>(e.ev)].gpu) return hta ? kClsCpuBound : kClsCpuOp;
    if (isCommEvent(g, types, static_cast<size_t>(e.ev))) return hta ? kClsGpuComm : kClsCommunication;
    if (hta) return kClsGpuCompute;
    const CpEvent& ev = g.events[static_cast<size_t>(e.ev)];
    const RankData& r = *g.ranks[ev.rankPos];
    const KernelCategory c = r.gpu.category.size() == r.gpu.size() ? r.gpu.category[ev.row] : KernelCategory::Other;
    const size_t k0 = kClsKernel0;
    return static_cast<size_t>(c) < static_cast<size_t>(KernelCategory::Count) ? k0 + static_cast<size_t>(c) : k0;
}

std::vector<std::vector<HtaType>> rankTypes(AnalysisContext& ctx, const CpGraph& g) {
    std::vector<std::vector<HtaType>> t(g.ranks.size());
    for (size_t ri = 0; ri < g.ranks.size(); ++ri)
        if (g.ranks[ri]) t[ri] = ctx.htaTypeByName(ri);
    return t;
}

// Per class: ns on the path, and whether the path met it at all (a class met at 0 ns is listed too).
struct CpClassSums {
    std::array<TimeNs, kClsCount> ns{};
    std::array<bool, kClsCount> met{};
    void add(size_t c, TimeNs v) {
        ns[c] += v;
        met[c] = true;
    }
    // bound_by -> ns, largest first; equal ones by name.
    std::vector<std::pair<std::string, TimeNs>> sorted() const {
        std::vector<std::pair<std::string, TimeNs>> v;
        for (size_t c = 1; c < kClsCount; ++c)
            if (met[c]) v.emplace_back(std::string(className(c)), ns[c]);
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        return v;
    }
};

// The path's segments, made from the graph at the first look (CpPathSource).
struct CpListing final : CpPathSource {
    std::shared_ptr<const CpGraph> g;
    std::shared_ptr<const CpVec<TimeNs>> w;
    std::shared_ptr<const std::vector<std::vector<HtaType>>> types;
    CpVec<uint32_t> edges;  // the path's edges in order
    TimeNs startOffset = 0, origin = 0;
    uint32_t first = 0;
    size_t edgeCount() const override { return edges.size(); }
    void list(std::vector<CpSegment>& out) const override;
};

// Classes and kinds are views of static text, names views of the dataset's strings: a path of millions of edges
// allocates no string per edge.
void CpListing::list(std::vector<CpSegment>& out) const {
    const CpGraph& gr = *g;
    if (startOffset > 0) {  // the path begins after the window's first event: idle until then
        const CpEvent& ev = gr.events[first / 2];
        out.push_back({gr.rankNumbers[ev.rankPos], "idle", "", "idle", origin, gr.nodeTs(first), startOffset});
    }
    out.reserve(edges.size() + 1);  // at most one segment per edge (address space only)
    adviseHugePages(out.data(), out.capacity() * sizeof(CpSegment));
    for (uint32_t ei : edges) {
        const CpEdge& e = gr.edges[ei];
        const TimeNs wi = (*w)[ei];
        if (wi == 0 && e.type != CpEdgeType::Span) continue;
        const int32_t evi = e.ev >= 0 ? e.ev : static_cast<int32_t>(e.from / 2);
        const CpEvent& ev = gr.events[static_cast<size_t>(evi)];
        const RankData& r = *gr.ranks[ev.rankPos];
        const std::string_view cls = className(edgeClass(gr, *types, e));
        const std::string_view kind = e.type == CpEdgeType::Span || e.type == CpEdgeType::Comm
                                          ? toString(ev.gpu ? r.gpu.kind[ev.row] : r.slices.kind[ev.row])
                                          : cls;
        const std::string_view name = e.ev >= 0 ? gr.name(static_cast<size_t>(e.ev)) : std::string_view();
        const TimeNs from = gr.nodeTs(e.from), to = gr.nodeTs(e.to);
        if (!out.empty()) {
            CpSegment& back = out.back();
            if (back.name.data() == name.data() && back.boundBy == cls && back.kind == kind && back.end == from) {
                back.end = to;
                back.weight += wi;
                continue;
            }
        }
        out.push_back({gr.rankNumbers[ev.rankPos], kind, name, cls, from, to, wi});
    }
}

// The length, the classes and the messages at once; the segments at the first look (CpListing).
CriticalPathResult summarize(std::shared_ptr<const CpGraph> gp,
                             std::shared_ptr<const std::vector<std::vector<HtaType>>> types, CpRun&& run,
                             std::shared_ptr<const CpVec<TimeNs>> wp) {
    const CpGraph& g = *gp;
    const CpVec<TimeNs>& w = *wp;
    CriticalPathResult res;
    res.definition = g.def;
    res.window = g.window;
    res.clock = g.clock;
    res.lengthNs = run.length;
    res.nodes = g.nodeCount();
    res.edges = g.edges.size();
    res.messages = g.messages;
    CpClassSums byClass;
    if (run.startOffset > 0) byClass.add(kClsIdle, run.startOffset);
    bool lateLaunch = false;
    for (uint32_t ei : run.edges) {
        const CpEdge& e = g.edges[ei];
        if (w[ei] == 0 && e.type != CpEdgeType::Span) continue;
        const size_t clsId = edgeClass(g, *types, e);
        if (clsId == kClsNone) continue;
        byClass.add(clsId, w[ei]);
        // w > length / 10: w * 10 > length for lengths >= 0, without the product (a hostile file's weights reach 2^63).
        if (clsId == kClsLaunchLatency && !lateLaunch && w[ei] > 1'000'000 && w[ei] > run.length / 10) {
            lateLaunch = true;
            res.messages.push_back(fmt::format("{} started {:.1f} ms after its launch with nothing before it on the GPU: "
                                               "work outside the trace, or GPU and CPU clocks not aligned",
                                               g.name(static_cast<size_t>(e.ev)), static_cast<double>(w[ei]) / 1e6));
        }
    }
    res.classes = byClass.sorted();
    if (g.negative)
        res.messages.push_back(fmt::format("{} edge(s) with a negative weight (an event ending after its parent, "
                                           "clock skew): set to 0",
                                           g.negative));
    auto listing = std::make_shared<CpListing>();
    listing->g = std::move(gp);
    listing->w = std::move(wp);
    listing->types = std::move(types);
    listing->edges = std::move(run.edges);
    listing->startOffset = run.startOffset;
    listing->origin = run.origin;
    listing->first = run.first;
    res.path = CpPath(std::move(listing));
    return res;
}

void noteBroken(CriticalPathResult& res, const CpOrder& o) {
    if (o.brokenCount)
        res.messages.push_back(fmt::format("{} edge(s) closed a cycle and were dropped", o.brokenCount));
}

CriticalPathResult emptyResult(const CpGraph& g) {
    CriticalPathResult res;
    res.definition = g.def;
    res.window = g.window;
    res.clock = g.clock;
    res.messages = g.messages;
    return res;
}

}  // namespace

bool cpIsGap(std::string_view kind) {
    return isOneOf(kind, {"idle", "launch_latency", "sync_wait", "gpu_kernel_kernel_overhead",
                          "gpu_kernel_launch_overhead"});
}

const std::vector<CpSegment>& CpPathSource::segments() const {
    std::call_once(once_, [this] { list(segments_); });
    return segments_;
}

const std::vector<CpSegment>& CpPath::empty_() {
    static const std::vector<CpSegment> none;
    return none;
}

Result<CriticalPathResult> criticalPath(AnalysisContext& ctx, const CpRequest& req) {
    auto g = buildGraph(ctx, req);
    if (!g) return g.error();
    if (g->events.empty()) return emptyResult(g.value());
    auto gp = std::make_shared<CpGraph>(std::move(g.value()));
    gp->dropBuildState();
    CpScratch scratch;
    const CpOrder o = topoOrder(*gp, scratch);
    CpRun run = longestPath(*gp, o, gp->w, scratch);
    auto types = std::make_shared<const std::vector<std::vector<HtaType>>>(rankTypes(ctx, *gp));
    std::shared_ptr<const CpVec<TimeNs>> w(gp, &gp->w);
    CriticalPathResult res = summarize(std::move(gp), std::move(types), std::move(run), std::move(w));
    noteBroken(res, o);
    return res;
}

// ---- what-if ----

Result<CpScale> parseScale(const std::string& item) {
    const auto eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0)
        return Error(fmt::format("--scale '{}': expected GROUP=FACTOR (category:NAME, op:NAME, kernel:REGEX or comm)", item));
    CpScale s;
    s.group = item.substr(0, eq);
    const std::string f = item.substr(eq + 1);
    char* endp = nullptr;
    s.factor = std::strtod(f.c_str(), &endp);
    if (f.empty() || *endp != '\0' || !std::isfinite(s.factor) || s.factor < 0)
        return Error(fmt::format("--scale '{}': the factor '{}' is not a number >= 0", item, f));
    const bool known = s.group == "comm" || s.group.rfind("category:", 0) == 0 || s.group.rfind("op:", 0) == 0 ||
                       s.group.rfind("kernel:", 0) == 0;
    if (!known)
        return Error(fmt::format("--scale '{}': unknown group '{}' (category:NAME, op:NAME, kernel:REGEX or comm)", item,
                                 s.group));
    if (s.group.rfind("category:", 0) == 0) {
        KernelCategory c;
        if (!parseKernelCategory(s.group.substr(9), c))
            return Error(fmt::format("--scale '{}': unknown kernel category '{}'", item, s.group.substr(9)));
    }
    if (s.group.rfind("kernel:", 0) == 0) {
        try {
            std::regex re(s.group.substr(7));
        } catch (const std::regex_error& e) {
            return Error(fmt::format("--scale '{}': bad regex: {}", item, e.what()));
        }
    }
    return s;
}

namespace {

// Factor per event for a set of scales: an operator's factor applies to the operators nested in it too.
std::vector<double> eventFactors(const CpGraph& g, const std::vector<std::vector<HtaType>>& types,
                                 const std::vector<CpScale>& scales) {
    std::vector<double> f(g.events.size(), 1.0);
    for (const auto& s : scales) {
        std::vector<uint8_t> hit(g.events.size(), 0);
        std::optional<std::regex> re;
        KernelCategory cat = KernelCategory::Other;
        const bool isCat = s.group.rfind("category:", 0) == 0, isOp = s.group.rfind("op:", 0) == 0;
        if (s.group.rfind("kernel:", 0) == 0) re.emplace(s.group.substr(7));
        if (isCat) parseKernelCategory(s.group.substr(9), cat);
        for (size_t e = 0; e < g.events.size(); ++e) {
            const CpEvent& ev = g.events[e];
            const RankData& r = *g.ranks[ev.rankPos];
            if (s.group == "comm") hit[e] = isCommEvent(g, types, e);
            else if (isCat) hit[e] = ev.gpu && r.gpu.category.size() == r.gpu.size() && r.gpu.category[ev.row] == cat;
            else if (isOp) hit[e] = !ev.gpu && g.name(e) == std::string_view(s.group).substr(3);
            else if (re) {
                const std::string_view nm = g.name(e);
                hit[e] = ev.gpu && std::regex_search(nm.begin(), nm.end(), *re);
            }
        }
        for (size_t e = 0; e < g.events.size(); ++e) {
            bool h = hit[e];
            for (int32_t p = g.events[e].parent; !h && isOp && p >= 0; p = g.events[static_cast<size_t>(p)].parent)
                h = hit[static_cast<size_t>(p)];
            if (h) f[e] *= s.factor;
        }
    }
    return f;
}

CpVec<TimeNs> scaledWeights(const CpGraph& g, const std::vector<double>& f) {
    CpVec<TimeNs> w = g.w;
    for (size_t i = 0; i < w.size(); ++i) {
        const CpEdge& e = g.edges[i];
        if (e.ev >= 0 && (e.type == CpEdgeType::Span || e.type == CpEdgeType::Comm) && f[static_cast<size_t>(e.ev)] != 1.0)
            w[i] = static_cast<TimeNs>(std::llround(static_cast<double>(w[i]) * f[static_cast<size_t>(e.ev)]));
    }
    return w;
}

std::string regexEscape(std::string_view s) {
    std::string out = "^";
    for (char c : s) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out + "$";
}

// The candidate groups of the ranking: what the base path spends time in.
std::vector<std::string> rankingGroups(const CpGraph& g, const std::vector<std::vector<HtaType>>& types,
                                       const CpRun& run) {
    std::map<std::string, TimeNs> ops, kernels, cats;
    bool comm = false;
    for (uint32_t ei : run.edges) {
        const CpEdge& e = g.edges[ei];
        if (e.ev < 0 || (e.type != CpEdgeType::Span && e.type != CpEdgeType::Comm) || g.w[ei] == 0) continue;
        const auto ev = static_cast<size_t>(e.ev);
        const CpEvent& x = g.events[ev];
        const RankData& r = *g.ranks[x.rankPos];
        if (!x.gpu) {
            ops[std::string(g.name(ev))] += g.w[ei];
            continue;
        }
        kernels[std::string(g.name(ev))] += g.w[ei];
        if (isCommEvent(g, types, ev)) comm = true;
        if (r.gpu.category.size() == r.gpu.size()) cats[std::string(toString(r.gpu.category[x.row]))] += g.w[ei];
    }
    std::vector<std::string> groups;
    if (comm) groups.push_back("comm");
    for (const auto& [c, t] : cats) groups.push_back("category:" + c);
    auto top = [&](const std::map<std::string, TimeNs>& m, const char* prefix, bool escape) {
        std::vector<std::pair<TimeNs, std::string>> v;
        for (const auto& [k, t] : m) v.emplace_back(t, k);
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (size_t i = 0; i < v.size() && i < 10; ++i)
            groups.push_back(prefix + (escape ? regexEscape(v[i].second) : v[i].second));
    };
    top(ops, "op:", false);
    top(kernels, "kernel:", true);
    return groups;
}

}  // namespace

Result<WhatIfResult> whatIf(AnalysisContext& ctx, const CpRequest& req) {
    auto gr = buildGraph(ctx, req);
    if (!gr) return gr.error();
    WhatIfResult res;
    if (gr->events.empty()) {
        res.base = res.scaled = emptyResult(gr.value());
        return res;
    }
    auto gp = std::make_shared<CpGraph>(std::move(gr.value()));
    gp->dropBuildState();
    const CpGraph& g = *gp;
    const auto types = std::make_shared<const std::vector<std::vector<HtaType>>>(rankTypes(ctx, g));
    // One graph, one order: each projection reruns only the longest path on its weights.
    CpScratch scratch;
    const CpOrder o = topoOrder(g, scratch);
    CpRun base = longestPath(g, o, g.w, scratch);
    const TimeNs baseLength = base.length;
    const auto groups = rankingGroups(g, *types, base);
    auto w1 = std::make_shared<const CpVec<TimeNs>>(scaledWeights(g, eventFactors(g, *types, req.scales)));
    CpRun scaled = longestPath(g, o, *w1, scratch);
    for (const auto& group : groups) {
        const auto w = scaledWeights(g, eventFactors(g, *types, {CpScale{group, 0.5}}));
        const TimeNs len = longestPath(g, o, w, scratch).length;
        res.ranking.push_back({group, len, baseLength - len});
    }
    std::stable_sort(res.ranking.begin(), res.ranking.end(),
                     [](const WhatIfGroup& a, const WhatIfGroup& b) { return a.savedNs > b.savedNs; });
    res.scaled = summarize(gp, types, std::move(scaled), std::move(w1));
    std::shared_ptr<const CpVec<TimeNs>> w0(gp, &gp->w);
    res.base = summarize(std::move(gp), types, std::move(base), std::move(w0));
    noteBroken(res.base, o);
    return res;
}

// ---- registry ----

namespace {

const IntParam kCpRank{"rank", "Rank", "Only this rank (-1: every rank; hta: the first)", -1};
const IntParam kCpStep{"step", "Step", "The ProfilerStep#N window (-1: none)", -1};
const StringParam kCpAnnotation{"annotation", "Annotation", "Window: an annotation whose name contains this", ""};
const IntParam kCpInstance{"instance", "Instance", "Which instance of the annotation, from 0 in trace order", 0};
const EnumParam kCpDefinition =
    EnumParam{"definition", "Definition", "strobe (wall time, across ranks) or hta (HTA's lightweight path)", "strobe"}
        .choices({"strobe", "hta"});
const StringListParam kCpScale{"scale", "Scale", "GROUP=FACTOR: category:NAME, op:NAME, kernel:REGEX or comm", {}};

Result<CpRequest> cpRequest(const AnalysisRequest& r, bool scales) {
    CpRequest req;
    req.definition = r.get(kCpDefinition) == "hta" ? CpDefinition::Hta : CpDefinition::Strobe;
    req.rank = static_cast<int>(r.get(kCpRank));
    req.step = r.get(kCpStep);
    req.annotation = r.get(kCpAnnotation);
    req.instance = r.get(kCpInstance);
    if (req.step >= 0 && !req.annotation.empty()) return Error("--step and --annotation exclude each other");
    if (scales) {
        for (const auto& item : r.get(kCpScale)) {
            auto s = parseScale(item);
            if (!s) return s.error();
            req.scales.push_back(s.value());
        }
    }
    return req;
}

std::string pathJson(const CriticalPathResult& r) {
    std::string s = fmt::format("\"definition\": \"{}\", \"length_ns\": {}, \"graph_nodes\": {}, \"graph_edges\": {},\n"
                                "\"clock\": {},\n\"path\": [",
                                r.definition == CpDefinition::Hta ? "hta" : "strobe", r.lengthNs, r.nodes, r.edges,
                                jsonQuote(r.clock));
    // A path of millions of segments is a string of a gigabyte: sized once (growing it copies it again and again,
    // into fresh pages each time) and written in place.
    size_t bytes = s.size() + 2;
    for (const auto& p : r.path) bytes += 160 + p.kind.size() + p.name.size() + p.boundBy.size();
    s.reserve(bytes);
    adviseHugePages(s.data(), s.capacity());
    auto out = std::back_inserter(s);
    for (size_t i = 0; i < r.path.size(); ++i) {
        const auto& p = r.path[i];
        fmt::format_to(out,
                       "{}{{\"rank\": {}, \"kind\": {}, \"name\": {}, \"bound_by\": {}, \"start_ns\": {}, \"end_ns\": {}, "
                       "\"ns\": {}}}",
                       i ? ",\n " : "", p.rank, jsonQuote(std::string(p.kind)), jsonQuote(std::string(p.name)),
                       jsonQuote(std::string(p.boundBy)), p.start, p.end, p.weight);
    }
    s += ']';
    return s;
}

Result<Table> criticalPathTable(AnalysisContext& ctx, const AnalysisRequest& r) {
    auto req = cpRequest(r, false);
    if (!req) return req.error();
    auto res = criticalPath(ctx, req.value());
    if (!res) return res.error();
    Table t;
    t.columns = {"bound_by", "ns", "share"};
    const CriticalPathResult& c = res.value();
    for (const auto& [cls, ns] : c.classes)
        t.addRow({cls, ns, c.lengthNs > 0 ? static_cast<double>(ns) / static_cast<double>(c.lengthNs) : 0.0});
    t.messages = c.messages;
    t.messages.push_back(fmt::format("critical path ({}): {} ns over {} segment(s); graph of {} nodes, {} edges",
                                     c.definition == CpDefinition::Hta ? "hta" : "strobe", c.lengthNs, c.path.size(),
                                     c.nodes, c.edges));
    t.windowText = c.window;
    t.extraJson = pathJson(c);
    return t;
}

Result<Table> whatIfTable(AnalysisContext& ctx, const AnalysisRequest& r) {
    auto req = cpRequest(r, true);
    if (!req) return req.error();
    auto res = whatIf(ctx, req.value());
    if (!res) return res.error();
    const WhatIfResult& w = res.value();
    Table t;
    t.columns = {"kind", "group", "factor", "length_ns", "saved_ns"};
    t.addRow({std::string("base"), std::string(), 1.0, w.base.lengthNs, int64_t{0}});
    std::vector<std::string> groups;
    for (const auto& s : req.value().scales) groups.push_back(fmt::format("{}={}", s.group, s.factor));
    if (!groups.empty())
        t.addRow({std::string("scaled"), fmt::format("{}", fmt::join(groups, " ")),
                  // Several groups scaled at once have no one factor: null (their factors are in the group).
                  req.value().scales.size() == 1 ? Cell(req.value().scales[0].factor) : Cell(), w.scaled.lengthNs,
                  w.base.lengthNs - w.scaled.lengthNs});
    for (const auto& g : w.ranking) t.addRow({std::string("2x"), g.group, 0.5, g.lengthNs, g.savedNs});
    t.messages = w.base.messages;
    if (groups.empty()) t.messages.push_back("no --scale GROUP=FACTOR given: the 2x ranking only");
    t.windowText = w.base.window;
    t.extraJson = fmt::format("\"length_ns\": {}, \"scaled_length_ns\": {}", w.base.lengthNs, w.scaled.lengthNs);
    return t;
}

}  // namespace

AnalysisInfo criticalPathAnalysisInfo() {
    return AnalysisInfo("critical-path",
                        "Critical path of a step, annotation instance or the whole trace, by bound-by class "
                        "(--definition strobe: wall time across ranks; hta: HTA's lightweight path)",
                        {kCpRank.spec(), kCpStep.spec(), kCpAnnotation.spec(), kCpInstance.spec(), kCpDefinition.spec()},
                        {"bound_by", "ns", "share"}, criticalPathTable);
}

AnalysisInfo whatIfAnalysisInfo() {
    return AnalysisInfo("what-if",
                        "The critical path recomputed with scaled durations (--scale GROUP=FACTOR), and per group the "
                        "step time a 2x speed-up saves",
                        {kCpRank.spec(), kCpStep.spec(), kCpAnnotation.spec(), kCpInstance.spec(), kCpDefinition.spec(),
                         kCpScale.spec()},
                        {"kind", "group", "factor", "length_ns", "saved_ns"}, whatIfTable);
}

}  // namespace strobe::core
