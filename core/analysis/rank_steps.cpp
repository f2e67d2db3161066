#include "core/analysis/rank_steps.h"
#include "core/analysis/columns.h"
#include "core/analysis/straggler.h"
#include "core/analysis/temporal.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <span>

#include <fmt/format.h>

namespace strobe::core {

namespace {

// Rank → its row of a per-rank table (temporal, straggler summary).
std::map<int64_t, size_t> rowsByRank(const Table& t) {
    std::map<int64_t, size_t> out;
    const int c = t.columnIndex(col::kRank);
    if (c < 0) return out;
    for (size_t r = 0; r < t.rows.size(); ++r)
        if (const auto* v = std::get_if<int64_t>(&t.rows[r][static_cast<size_t>(c)])) out[*v] = r;
    return out;
}

Cell cellOf(const Table& t, const std::map<int64_t, size_t>& rows, int64_t rank, ColumnKey key) {
    auto it = rows.find(rank);
    if (it == rows.end()) return {};
    return t.at(it->second, key);
}

}  // namespace

std::vector<size_t> highOutliers(const std::vector<double>& values, double threshold) {
    std::vector<double> finite;
    for (double v : values)
        if (std::isfinite(v)) finite.push_back(v);
    if (finite.size() < 3) return {};
    std::sort(finite.begin(), finite.end());
    const double med = stats::quantile(std::span<const double>(finite), 0.5);
    std::vector<double> dev;
    for (double v : finite) dev.push_back(std::abs(v - med));
    std::sort(dev.begin(), dev.end());
    const double scale = std::max(1.4826 * stats::quantile(std::span<const double>(dev), 0.5), 0.05 * std::abs(med));
    std::vector<size_t> out;
    for (size_t i = 0; i < values.size(); ++i)
        if (std::isfinite(values[i]) && scale > 0 && (values[i] - med) / scale > threshold) out.push_back(i);
    return out;
}

Result<Table> rankStepsAnalysis(AnalysisContext& ctx, const WindowSpec& window) {
    // (step, rank) → the rank's ProfilerStep#N span.
    std::map<int64_t, std::map<int64_t, StepSpan>> spans;
    const auto& ranks = ctx.dataset().ranks;
    for (size_t ri = 0; ri < ctx.rankCount(); ++ri)
        for (const StepSpan& s : ctx.steps(ri)) spans[s.number].emplace(ranks[ri]->rank, s);
    Table t;
    t.columns = kRankStepColumns;
    if (spans.empty()) {
        t.messages.push_back("rank-steps: the trace has no ProfilerStep#N annotations");
        return t;
    }
    std::set<int64_t> wanted;
    if (window.kind == WindowKind::StepList) wanted.insert(window.steps.begin(), window.steps.end());
    for (const auto& [step, byRank] : spans) {
        if (!wanted.empty() && !wanted.count(step)) continue;
        const WindowSpec w = WindowSpec::stepList({step});
        auto temporal = temporalBreakdown(ctx, w);
        if (!temporal) return temporal.error();
        auto straggler = stragglerAnalysis(ctx, w, "summary");
        if (!straggler) return straggler.error();
        const auto tRows = rowsByRank(*temporal), sRows = rowsByRank(*straggler);
        for (const auto& [rank, s] : byRank) {
            Cell collectives = cellOf(*straggler, sRows, rank, col::kCollectives);
            const bool matched = Table::number(collectives) > 0;
            t.addRow({rank, step, s.start, s.end, s.end - s.start, cellOf(*temporal, tRows, rank, col::kIdleNs),
                      collectives, matched ? cellOf(*straggler, sRows, rank, col::kWaitNs) : Cell{},
                      matched ? cellOf(*straggler, sRows, rank, col::kCausedWaitNs) : Cell{},
                      cellOf(*straggler, sRows, rank, col::kMeanStartLagNs)});
        }
    }
    if (!wanted.empty() && t.rows.empty())
        t.messages.push_back(fmt::format("rank-steps: no rank has the steps {}", fmt::join(wanted, ",")));
    if (ctx.rankCount() < 2)
        t.messages.push_back("rank-steps: one rank: waits in collectives need two or more ranks (null)");
    return t;
}

AnalysisInfo rankStepsAnalysisInfo() {
    return AnalysisInfo("rank-steps",
                        "Per rank and ProfilerStep: duration, GPU idle, and time waited in / caused to collectives",
                        {}, kRankStepColumns, windowOnly(rankStepsAnalysis));
}

}  // namespace strobe::core
