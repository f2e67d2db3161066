#include "core/analysis/launch.h"
#include "core/analysis/columns.h"
#include "core/analysis/kernel_stats.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace strobe::core {

namespace {
// The CPU op that issued the launch: the merge's link, else the innermost cpu_op enclosing the runtime call
// through the merge's parent column; -1 when neither is there.
int32_t cpuOpOf(const RankData& r, uint32_t g, int32_t runtime) {
    if (r.gpu.cpuOp.size() == r.gpu.size()) return r.gpu.cpuOp[g];
    if (runtime < 0 || r.slices.parent.size() != r.slices.size()) return -1;
    int32_t p = r.slices.parent[static_cast<size_t>(runtime)];
    for (int guard = 0; p >= 0 && guard < 4096; ++guard) {
        if (r.slices.kind[static_cast<size_t>(p)] == EventKind::CpuOp) return p;
        p = r.slices.parent[static_cast<size_t>(p)];
    }
    return -1;
}
}  // namespace

Result<Table> launchOverhead(AnalysisContext& ctx, const WindowSpec& window, bool cdf) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    Table t;
    if (cdf)
        t.columns = kLaunchCdfColumns;
    else
        t.columns = kLaunchColumns;
    for (const RankWindow& w : sel.value()->ranks) {
        const RankData& r = *w.data;
        std::vector<std::pair<std::vector<TimeNs>, std::vector<TimeNs>>> byCode(256);
        std::pair<std::vector<TimeNs>, std::vector<TimeNs>> all;
        size_t unlinked = 0;
        for (size_t i = 0; i < w.size(); ++i) {
            int32_t rt = w.runtime[i];
            if (rt < 0) {
                ++unlinked;
                continue;
            }
            uint32_t g = w.row[i];
            TimeNs rts = r.slices.ts[static_cast<size_t>(rt)];
            TimeNs launch = r.gpu.ts[g] - rts;
            auto& grp = byCode[static_cast<size_t>(kernelCategoryCode(r, w, i))];
            grp.first.push_back(launch);
            all.first.push_back(launch);
            int32_t op = cpuOpOf(r, g, rt);
            if (op >= 0) {
                TimeNs prep = rts - r.slices.ts[static_cast<size_t>(op)];
                grp.second.push_back(prep);
                all.second.push_back(prep);
            }
        }
        if (all.first.empty()) {
            t.messages.push_back(fmt::format(
                "launch: rank {} has no GPU activity linked to a launching runtime call in the window", w.rank));
            continue;
        }
        if (unlinked > 0)
            t.messages.push_back(fmt::format("launch: rank {}: {} of {} activities have no launching runtime call",
                                             w.rank, unlinked, w.size()));
        if (all.second.empty())
            t.messages.push_back(fmt::format("launch: rank {}: no launch is linked to its CPU op: prep times are empty",
                                             w.rank));
        // "all" first, then categories by name.
        std::map<std::string, std::pair<std::vector<TimeNs>, std::vector<TimeNs>>*> named;
        for (size_t c = 0; c < byCode.size(); ++c)
            if (!byCode[c].first.empty()) named[kernelCategoryName(static_cast<int>(c))] = &byCode[c];
        std::vector<std::pair<std::string, std::pair<std::vector<TimeNs>, std::vector<TimeNs>>*>> keys{{"all", &all}};
        for (auto& [k, v] : named) keys.emplace_back(k, v);
        for (auto& [k, grpPtr] : keys) {
            auto& [launch, prep] = *grpPtr;
            if (cdf) {
                std::sort(launch.begin(), launch.end());
                for (int q = 0; q <= 100; q += 5)
                    t.addRow({int64_t{w.rank}, k, int64_t{q}, stats::quantile(launch, q / 100.0)});
                continue;
            }
            static constexpr double kQ[] = {0.05, 0.5, 0.95, 0.99};
            static constexpr double kPrepQ[] = {0.5, 0.95};
            const double launchMean = stats::mean(launch);
            const TimeNs launchMax = *std::max_element(launch.begin(), launch.end());
            std::vector<double> lq = stats::quantilesUnsorted(launch, kQ);
            Cell prepMean, p50, p95;
            if (!prep.empty()) {
                prepMean = stats::mean(prep);
                std::vector<double> pq = stats::quantilesUnsorted(prep, kPrepQ);
                p50 = pq[0];
                p95 = pq[1];
            }
            t.addRow({int64_t{w.rank}, k, static_cast<int64_t>(launch.size()), launchMean, lq[0], lq[1], lq[2], lq[3],
                      launchMax, static_cast<int64_t>(prep.size()), prepMean, p50, p95});
        }
    }
    return t;
}

namespace {
const EnumParam kLaunchView =
    EnumParam{"view", "view", "summary: percentiles; cdf: launch-delay quantiles every 5 %", "summary"}.choices(
        {"summary", "cdf"});
}  // namespace

AnalysisInfo launchAnalysisInfo() {
    return AnalysisInfo("launch",
                        "Kernel launch delay (start − runtime call) and CPU-op preparation time, per rank and category",
                        {kLaunchView.spec()}, kLaunchColumns, [](AnalysisContext& ctx, const AnalysisRequest& req) {
                            return launchOverhead(ctx, req.window, req.get(kLaunchView) == "cdf");
                        });
}

}  // namespace strobe::core
