#include "core/formats/kineto_merged_ranks.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>

namespace strobe::core {

namespace {

// TraceFusion's pid scheme: rank × 10^8 + the raw pid.
constexpr int64_t kMergedPidStride = 100'000'000;

// The integer after "rank": in a row's args text ({"External id": 4, ..., "rank": 0, "pid_raw": 2}), -1 if none.
int rankInMergedArgs(std::string_view args) {
    constexpr std::string_view key = "\"rank\"";
    for (size_t at = args.find(key); at != std::string_view::npos; at = args.find(key, at + 1)) {
        size_t i = at + key.size();
        while (i < args.size() && (args[i] == ' ' || args[i] == '\t')) ++i;
        if (i >= args.size() || args[i] != ':') continue;
        ++i;
        while (i < args.size() && (args[i] == ' ' || args[i] == '\t')) ++i;
        int v = -1;
        auto [end, ec] = std::from_chars(args.data() + i, args.data() + args.size(), v);
        if (ec == std::errc() && end != args.data() + i && v >= 0) return v;
    }
    return -1;
}

// Keeps the rows of `table` whose `keep` is set, in every column the parser filled (the merge's are still empty).
template <class Table>
Status keepMergedRows(Table& table, const std::vector<uint8_t>& keep, const char* what) {
    const size_t n = keep.size();
    Status st = Ok{};
    table.visitColumns([&](const char* name, auto& col) {
        if (col.size() == 0 || !st) return;
        if (col.size() != n) {
            st = Error(fmt::format("{}.{} has {} rows, the table {}", what, name, col.size(), n));
            return;
        }
        using T = typename std::decay_t<decltype(col)>::value_type;
        std::vector<T> out;
        out.reserve(n);
        for (size_t i = 0; i < n; ++i)
            if (keep[i]) out.push_back(col[i]);
        col = std::move(out);
    });
    return st;
}

struct MergedRankPlan {
    std::vector<int> ranks;                // sorted
    std::vector<int> trackRank;            // per track: the rank of its pid's metadata, -1 when none
    std::map<std::pair<int64_t, StrId>, int> pidRank;
};

// The rank of a row on `track` (with its args text, kEmptyStr when the table has none).
int rowRank(const RankData& r, const MergedRankPlan& plan, uint32_t track, StrId args) {
    if (track < plan.trackRank.size() && plan.trackRank[track] >= 0) return plan.trackRank[track];
    if (args != kEmptyStr) {
        const int fromArgs = rankInMergedArgs(r.strings.view(args));
        if (std::binary_search(plan.ranks.begin(), plan.ranks.end(), fromArgs)) return fromArgs;
    }
    if (track < r.tracks.size() && r.tracks[track].pidStr == kEmptyStr && r.tracks[track].pid >= 0) {
        const int64_t byPid = r.tracks[track].pid / kMergedPidStride;
        if (byPid <= plan.ranks.back() && std::binary_search(plan.ranks.begin(), plan.ranks.end(), int(byPid)))
            return int(byPid);
    }
    return plan.ranks.front();
}

// Events per raw category of one rank's rows, and the events (a counter event's series are one event).
void countMergedRankEvents(RankData& out) {
    std::map<StrId, uint64_t> byCat;
    for (size_t i = 0; i < out.slices.size(); ++i) ++byCat[out.slices.cat[i]];
    for (size_t i = 0; i < out.gpu.size(); ++i) ++byCat[out.gpu.cat[i]];
    for (size_t i = 0; i < out.flows.size(); ++i) ++byCat[out.flows.cat[i]];
    uint64_t counterEvents = 0;
    const auto& c = out.counters;
    for (size_t i = 0; i < c.size(); ++i)
        if (i == 0 || c.ts[i] != c.ts[i - 1] || c.track[i] != c.track[i - 1] || c.name[i] != c.name[i - 1])
            ++counterEvents;
    if (counterEvents) byCat[kEmptyStr] += counterEvents;
    out.stats.eventsByCategory.assign(byCat.begin(), byCat.end());
    out.stats.events = out.slices.size() + out.gpu.size() + out.flows.size() + counterEvents;
}

}  // namespace

Result<std::vector<std::unique_ptr<RankData>>> splitMergedRanks(RankData& merged) {
    MergedRankPlan plan;
    std::set<int> ranks;
    for (const ProcessMeta& p : merged.processes)
        if (p.rank >= 0) {
            ranks.insert(p.rank);
            plan.pidRank[{p.pid, p.pidStr}] = p.rank;
        }
    if (ranks.size() < 2) return std::vector<std::unique_ptr<RankData>>{};
    plan.ranks.assign(ranks.begin(), ranks.end());
    plan.trackRank.assign(merged.tracks.size(), -1);
    for (size_t t = 0; t < merged.tracks.size(); ++t) {
        auto it = plan.pidRank.find({merged.tracks[t].pid, merged.tracks[t].pidStr});
        if (it != plan.pidRank.end()) plan.trackRank[t] = it->second;
    }

    // The rank of every row.
    const auto& s = merged.slices;
    const auto& g = merged.gpu;
    std::vector<int> sliceRank(s.size()), gpuRank(g.size()), flowRank(merged.flows.size()),
        counterRank(merged.counters.size());
    for (size_t i = 0; i < s.size(); ++i) sliceRank[i] = rowRank(merged, plan, s.track[i], s.args.size() ? s.args[i] : kEmptyStr);
    for (size_t i = 0; i < g.size(); ++i) gpuRank[i] = rowRank(merged, plan, g.track[i], g.args.size() ? g.args[i] : kEmptyStr);
    for (size_t i = 0; i < merged.flows.size(); ++i) flowRank[i] = rowRank(merged, plan, merged.flows.track[i], kEmptyStr);
    for (size_t i = 0; i < merged.counters.size(); ++i)
        counterRank[i] = rowRank(merged, plan, merged.counters.track[i], kEmptyStr);

    // One pool for all: the ranks view the merged trace's strings.
    auto pool = std::make_shared<StringPool>(std::move(merged.strings));
    merged.strings = StringPool();
    std::vector<std::string_view> views(pool->size());
    for (StrId id = 0; id < pool->size(); ++id) views[id] = pool->view(id);

    std::vector<std::unique_ptr<RankData>> out;
    for (const int rank : plan.ranks) {
        auto r = std::make_unique<RankData>();
        r->rank = rank;
        r->rankSource = RankSource::MergedTrace;
        r->path = merged.path;
        r->info = merged.info;
        r->strings = StringPool::adopt(views, pool);
        r->slices = merged.slices;
        r->gpu = merged.gpu;
        r->flows = merged.flows;
        r->counters = merged.counters;
        auto keepOf = [&](const std::vector<int>& of) {
            std::vector<uint8_t> keep(of.size());
            for (size_t i = 0; i < of.size(); ++i) keep[i] = of[i] == rank ? 1 : 0;
            return keep;
        };
        Status kept = keepMergedRows(r->slices, keepOf(sliceRank), "slices");
        if (kept) kept = keepMergedRows(r->gpu, keepOf(gpuRank), "gpu");
        if (kept) kept = keepMergedRows(r->flows, keepOf(flowRank), "flows");
        if (kept) kept = keepMergedRows(r->counters, keepOf(counterRank), "counters");
        if (!kept) return Error(Location{merged.path}, "splitting the merged ranks: " + kept.error().message);

        // The tracks its rows use, renumbered in their original order, with their processes and threads.
        std::vector<int64_t> newTrack(merged.tracks.size(), -1);
        auto use = [&](const Column<uint32_t>& tracks) {
            for (uint32_t t : tracks)
                if (t < newTrack.size()) newTrack[t] = 0;
        };
        use(r->slices.track), use(r->gpu.track), use(r->flows.track), use(r->counters.track);
        for (size_t t = 0; t < merged.tracks.size(); ++t)
            if (plan.trackRank[t] == rank) newTrack[t] = 0;  // a thread of the rank without rows keeps its name
        for (size_t t = 0; t < merged.tracks.size(); ++t)
            if (newTrack[t] == 0) {
                newTrack[t] = int64_t(r->tracks.size());
                r->tracks.push_back(merged.tracks[t]);
            } else {
                newTrack[t] = -1;
            }
        for (auto* col : {&r->slices.track, &r->gpu.track, &r->flows.track, &r->counters.track})
            for (auto& t : col->mut()) t = uint32_t(newTrack[t]);
        std::set<std::pair<int64_t, StrId>> pids;
        for (size_t t = 0; t < r->tracks.size(); ++t) pids.insert({r->tracks[t].pid, r->tracks[t].pidStr});
        for (const ProcessMeta& p : merged.processes)
            if (pids.count({p.pid, p.pidStr}) && (p.rank < 0 || p.rank == rank)) r->processes.push_back(p);
        for (const ThreadMeta& th : merged.threads)
            if (th.track < newTrack.size() && newTrack[th.track] >= 0) {
                ThreadMeta copy = th;
                copy.track = uint32_t(newTrack[th.track]);
                r->threads.push_back(copy);
            }
        if (out.empty()) {
            r->stats = merged.stats;
            r->diagnostics = merged.diagnostics;
        } else {
            r->stats.bytesRead = 0;
            r->stats.loadSeconds = merged.stats.loadSeconds;
        }
        countMergedRankEvents(*r);
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace strobe::core
