#include "core/analysis/straggler.h"
#include "core/analysis/collectives.h"
#include "core/analysis/columns.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

namespace strobe::core {

namespace {
struct Hit {
    size_t rankPos;
    TimeNs start, end;
};

struct RegionAcc {
    int64_t regions = 0;
    TimeNs regionLagMax = 0;
    long double regionLag = 0;
};

// One row per collective seen on two ranks or more (the rule: addMatchedCollective).
Table matchCollectives(const std::map<CollectiveKey, std::vector<CollectiveHit>>& coll,
                       const std::vector<RankWindow>& ranks, std::vector<CollectiveWaitTotals>& acc) {
    Table collTable;
    collTable.columns = kStragglerCollectiveColumns;
    for (const auto& [key, hits] : coll) {
        if (hits.size() < 2) continue;
        const MatchedCollective m = addMatchedCollective(hits, acc);
        collTable.addRow({std::get<0>(key), std::get<1>(key), std::get<2>(key), static_cast<int64_t>(hits.size()),
                          int64_t{ranks[hits[m.last].rankPos].rank}, m.maxWait, m.totalWait, m.startSpread});
    }
    return collTable;
}

// CPU user annotations (ProfilerStep#N included) matched across ranks by name and occurrence.
std::map<std::pair<std::string, int64_t>, std::vector<Hit>> collectRegions(const std::vector<RankWindow>& ranks,
                                                                           const WindowSpec& spec) {
    const size_t nr = ranks.size();
    std::map<std::pair<std::string, int64_t>, std::vector<Hit>> regions;
    for (size_t rp = 0; rp < nr; ++rp) {
        const RankData& r = *ranks[rp].data;
        std::unordered_map<StrId, int64_t> occ;
        std::vector<size_t> idx;
        for (size_t i = 0; i < r.slices.size(); ++i)
            if (r.slices.kind[i] == EventKind::UserAnnotation && r.slices.dur[i] > 0) idx.push_back(i);
        std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return r.slices.ts[a] < r.slices.ts[b]; });
        for (size_t i : idx) {
            TimeNs s = r.slices.ts[i], e = s + r.slices.dur[i];
            if (spec.kind == WindowKind::Range && (e <= spec.from || s >= spec.to)) continue;
            StrId id = r.slices.name[i];
            regions[{r.strings.str(id), occ[id]++}].push_back({rp, s, e});
        }
    }
    return regions;
}

// One row per region seen on two ranks or more; the rank that ends it last is the slowest.
Table matchRegions(const std::map<std::pair<std::string, int64_t>, std::vector<Hit>>& regions,
                   const std::vector<RankWindow>& ranks, std::vector<RegionAcc>& acc) {
    Table regTable;
    regTable.columns = kStragglerRegionColumns;
    for (const auto& [key, hits] : regions) {
        if (hits.size() < 2) continue;
        TimeNs minEnd = INT64_MAX, maxEnd = INT64_MIN;
        size_t slow = hits[0].rankPos;
        long double durSum = 0;
        for (const auto& h : hits) {
            minEnd = std::min(minEnd, h.end);
            if (h.end > maxEnd) {
                maxEnd = h.end;
                slow = h.rankPos;
            }
            durSum += static_cast<long double>(h.end - h.start);
        }
        for (const auto& h : hits) {
            RegionAcc& a = acc[h.rankPos];
            a.regions += 1;
            a.regionLag += static_cast<long double>(h.end - minEnd);
            a.regionLagMax = std::max(a.regionLagMax, h.end - minEnd);
        }
        regTable.addRow({key.first, key.second, static_cast<int64_t>(hits.size()), int64_t{ranks[slow].rank},
                         maxEnd - minEnd, static_cast<double>(durSum / static_cast<long double>(hits.size()))});
    }
    return regTable;
}

}  // namespace

Result<Table> stragglerAnalysis(AnalysisContext& ctx, const WindowSpec& window, const std::string& view) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    const auto& ranks = sel.value()->ranks;
    Table t;
    const size_t nr = ranks.size();

    std::vector<CollectiveWaitTotals> acc(nr);
    std::vector<RegionAcc> reg(nr);
    Table collTable = matchCollectives(matchCollectiveKernels(ranks), ranks, acc);
    Table regTable = matchRegions(collectRegions(ranks, sel.value()->spec), ranks, reg);

    if (nr < 2) t.messages.push_back("straggler: the run has one rank; matching across ranks needs two or more");
    size_t withoutInfo = 0;
    for (const auto& w : ranks)
        if (!w.data->info.distributed.present) ++withoutInfo;
    if (withoutInfo > 0)
        t.messages.push_back(fmt::format("straggler: {} of {} ranks have no distributedInfo: ranks come from file names "
                                         "or order, process groups are unknown",
                                         withoutInfo, nr));
    if (collTable.rows.empty() && nr >= 2)
        t.messages.push_back("straggler: no communication kernel is matched across ranks in the window");

    if (view == "collectives") {
        collTable.messages = t.messages;
        return collTable;
    }
    if (view == "regions") {
        regTable.messages = t.messages;
        return regTable;
    }
    t.columns = kStragglerColumns;
    size_t worst = nr;
    for (size_t rp = 0; rp < nr; ++rp) {
        const CollectiveWaitTotals& a = acc[rp];
        const RegionAcc& g = reg[rp];
        Cell meanWait, meanLag, meanReg, maxReg;
        if (a.collectives > 0) {
            meanWait = static_cast<double>(a.wait) / static_cast<double>(a.collectives);
            meanLag = a.meanStartLagNs();
        }
        if (g.regions > 0) {
            meanReg = static_cast<double>(g.regionLag / static_cast<long double>(g.regions));
            maxReg = g.regionLagMax;
        }
        t.addRow({int64_t{ranks[rp].rank}, a.collectives, a.wait, meanWait, a.timesLast, a.caused, meanLag, g.regions,
                  meanReg, maxReg});
        if (a.caused > 0 && (worst == nr || a.caused > acc[worst].caused)) worst = rp;
    }
    if (worst < nr) {
        t.messages.push_back(fmt::format(
            "straggler: rank {} makes the others wait most: last to arrive in {} of {} matched collectives, "
            "causing {} ns of waiting on the other ranks",
            ranks[worst].rank, acc[worst].timesLast, collTable.rows.size(), acc[worst].caused));
    } else if (!regTable.rows.empty()) {
        size_t slow = 0;
        for (size_t rp = 1; rp < nr; ++rp)
            if (reg[rp].regionLag > reg[slow].regionLag) slow = rp;
        t.messages.push_back(fmt::format("straggler: no collective to judge by; rank {} ends its annotated regions "
                                         "latest on average",
                                         ranks[slow].rank));
    }
    return t;
}

namespace {
const EnumParam kStragglerView =
    EnumParam{"view", "view", "summary per rank, or one row per collective or region", "summary"}.choices(
        {"summary", "collectives", "regions"});
}  // namespace

AnalysisInfo stragglerAnalysisInfo() {
    return AnalysisInfo(
        "straggler", "Collectives and annotated regions matched across ranks: who waits, who makes others wait",
        {kStragglerView.spec()}, kStragglerColumns, [](AnalysisContext& ctx, const AnalysisRequest& req) {
            return stragglerAnalysis(ctx, req.window, req.get(kStragglerView));
        });
}

}  // namespace strobe::core
