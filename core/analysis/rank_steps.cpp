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

Result<Table> rankStepsTable(const std::map<int64_t, std::map<int64_t, StepSpan>>& spans, const WindowSpec& window,
                             size_t rankCount, const RankStepCellsFn& cellsOf) {
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
        auto cells = cellsOf(step);
        if (!cells) return cells.error();
        for (const auto& [rank, s] : byRank) {
            RankStepCells c;
            if (auto it = cells->find(rank); it != cells->end()) c = it->second;
            const bool matched = Table::number(c.collectives) > 0;
            t.addRow({rank, step, s.start, s.end, s.end - s.start, c.idle, c.collectives, matched ? c.wait : Cell{},
                      matched ? c.caused : Cell{}, c.lag});
        }
    }
    if (!wanted.empty() && t.rows.empty())
        t.messages.push_back(fmt::format("rank-steps: no rank has the steps {}", fmt::join(wanted, ",")));
    if (rankCount < 2) t.messages.push_back("rank-steps: one rank: waits in collectives need two or more ranks (null)");
    return t;
}

Result<Table> rankStepsAnalysis(AnalysisContext& ctx, const WindowSpec& window) {
    // (step, rank) → the rank's ProfilerStep#N span.
    std::map<int64_t, std::map<int64_t, StepSpan>> spans;
    const auto& ranks = ctx.dataset().ranks;
    for (size_t ri = 0; ri < ctx.rankCount(); ++ri)
        for (const StepSpan& s : ctx.steps(ri)) spans[s.number].emplace(ranks[ri]->rank, s);
    return rankStepsTable(spans, window, ctx.rankCount(),
                          [&](int64_t step) -> Result<std::map<int64_t, RankStepCells>> {
                              const WindowSpec w = WindowSpec::stepList({step});
                              auto temporal = temporalBreakdown(ctx, w);
                              if (!temporal) return temporal.error();
                              auto straggler = stragglerAnalysis(ctx, w, "summary");
                              if (!straggler) return straggler.error();
                              std::map<int64_t, RankStepCells> out;
                              for (const auto& [rank, row] : rowsByRank(*temporal))
                                  out[rank].idle = temporal->at(row, col::kIdleNs);
                              for (const auto& [rank, row] : rowsByRank(*straggler)) {
                                  RankStepCells& c = out[rank];
                                  c.collectives = straggler->at(row, col::kCollectives);
                                  c.wait = straggler->at(row, col::kWaitNs);
                                  c.caused = straggler->at(row, col::kCausedWaitNs);
                                  c.lag = straggler->at(row, col::kMeanStartLagNs);
                              }
                              return out;
                          });
}

AnalysisInfo rankStepsAnalysisInfo() {
    return AnalysisInfo("rank-steps",
                        "Per rank and ProfilerStep: duration, GPU idle, and time waited in / caused to collectives",
                        {}, kRankStepColumns, windowOnly(rankStepsAnalysis));
}

}  // namespace strobe::core
