// Rank × step heatmap (issue 29's cross-rank view, analysis `rank-steps`): one row per rank, one column per
// ProfilerStep, colour = the chosen measure (the wait a rank caused the others by arriving last at collectives,
// the time it waited, its step duration, its GPU idle, or its mean arrival lag). Beyond 64 ranks a row holds a
// block of consecutive ranks and shows the largest value among them (the hover names the rank), so 1,024 ranks
// stay readable; the Ranks parameter narrows the rows to a range to see single ranks. Ranks whose median over the
// steps stands out (robust z > 3 above the median of the ranks) are outlined in red and named in the subtitle.
// Several runs: one panel each.

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>

#include <fmt/format.h>

#include <QFontMetricsF>
#include <QImage>

#include "core/analysis/rank_steps.h"
#include "core/engine/converted_run.h"
#include "plots/analysis_plot.h"
#include "plots/heat_scale.h"
#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const EnumParam kMeasure =
    EnumParam{"cell", "Cell value",
              "caused-wait: wait the rank caused the others by arriving last at collectives; wait: time it waited in "
              "them; duration: its ProfilerStep span; idle: its GPU idle in the step; start-lag: its mean arrival "
              "lag at collectives (needs a common clock)",
              "caused-wait"}
        .choices({"caused-wait", "wait", "duration", "idle", "start-lag"})
        .drawOnly();

constexpr size_t kMaxRows = 64;

core::ColumnKey measureColumn(const std::string& m) {
    if (m == "wait") return col::kWaitNs;
    if (m == "duration") return col::kDurNs;
    if (m == "idle") return col::kIdleNs;
    if (m == "start-lag") return col::kMeanStartLagNs;
    return col::kCausedWaitNs;
}

std::string measureText(const std::string& m) {
    if (m == "wait") return "time waited in collectives";
    if (m == "duration") return "step duration";
    if (m == "idle") return "GPU idle in the step";
    if (m == "start-lag") return "mean arrival lag at collectives";
    return "wait caused to the other ranks";
}

// One run's grid for the chosen measure and ranks: rows are blocks of `perRow` consecutive ranks.
struct Grid {
    size_t run = 0;
    std::vector<int> ranks;                 // selected ranks, ascending
    std::vector<int64_t> steps;             // ascending
    size_t perRow = 1;
    std::vector<double> value;              // [row * steps + step]: the block's largest value, NaN: none
    std::vector<int> argRank;               // the rank that has it
    std::vector<int> outliers;              // ranks flagged
    std::optional<std::vector<int>> loaded; // a summary-first run: the ranks whose events are loaded
    std::set<size_t> outlierRows;
    double lo = 0, hi = 1;
    double top = std::numeric_limits<double>::quiet_NaN();  // the largest value, its rank and step
    int topRank = -1;
    int64_t topStep = -1;
    size_t rows() const { return ranks.empty() ? 0 : (ranks.size() + perRow - 1) / perRow; }
    std::vector<int> rowRanks(size_t r) const {
        return {ranks.begin() + std::ptrdiff_t(r * perRow),
                ranks.begin() + std::ptrdiff_t(std::min(ranks.size(), (r + 1) * perRow))};
    }
    // How many of the row's ranks have their events loaded (a summary-first run; else every one).
    size_t loadedIn(size_t r) const {
        const auto rr = rowRanks(r);
        if (!loaded) return rr.size();
        return size_t(std::count_if(rr.begin(), rr.end(),
                                    [&](int k) { return std::binary_search(loaded->begin(), loaded->end(), k); }));
    }
    // "rank 3", "ranks 0–15"; on a summary-first run a loaded rank's row ends in " ●", a block's in " (2 loaded)".
    std::string rowLabel(size_t r) const {
        const int a = ranks[r * perRow], b = ranks[std::min(ranks.size(), (r + 1) * perRow) - 1];
        std::string text = a == b ? fmt::format("rank {}", a) : fmt::format("ranks {}–{}", a, b);
        if (const size_t n = loaded ? loadedIn(r) : 0; n > 0) text += a == b ? " ●" : fmt::format(" ({} loaded)", n);
        return text;
    }
};

Grid gridOf(const AnalysisTables& p, size_t run, const std::vector<int>& selected, core::ColumnKey column) {
    const core::Table& t = p.perRun[run];
    Grid g;
    g.run = run;
    if (run < p.loadedRanks.size()) g.loaded = p.loadedRanks[run];
    std::map<std::pair<int, int64_t>, double> cell;
    std::set<int> ranks;
    std::set<int64_t> steps;
    for (size_t r = 0; r < t.rows.size(); ++r) {
        const int rank = int(cellNumber(t, r, col::kRank, -1));
        if (!rankSelected(selected, rank)) continue;
        const int64_t step = int64_t(cellNumber(t, r, col::kStep, -1));
        ranks.insert(rank);
        steps.insert(step);
        cell[{rank, step}] = cellNumber(t, r, column, std::numeric_limits<double>::quiet_NaN());
    }
    g.ranks.assign(ranks.begin(), ranks.end());
    g.steps.assign(steps.begin(), steps.end());
    if (g.ranks.empty()) return g;
    g.perRow = (g.ranks.size() + kMaxRows - 1) / kMaxRows;
    const size_t nRows = g.rows(), nSteps = g.steps.size();
    g.value.assign(nRows * nSteps, std::numeric_limits<double>::quiet_NaN());
    g.argRank.assign(nRows * nSteps, -1);
    std::vector<double> medians;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (size_t k = 0; k < g.ranks.size(); ++k) {
        std::vector<double> own;
        for (size_t s = 0; s < nSteps; ++s) {
            auto it = cell.find({g.ranks[k], g.steps[s]});
            if (it == cell.end() || !std::isfinite(it->second)) continue;
            const double v = it->second;
            own.push_back(v);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            if (!(g.top >= v)) std::tie(g.top, g.topRank, g.topStep) = std::tuple(v, g.ranks[k], g.steps[s]);
            const size_t i = (k / g.perRow) * nSteps + s;
            if (!(g.value[i] >= v)) {  // NaN or smaller
                g.value[i] = v;
                g.argRank[i] = g.ranks[k];
            }
        }
        std::sort(own.begin(), own.end());
        medians.push_back(own.empty() ? std::numeric_limits<double>::quiet_NaN()
                                      : core::stats::quantile(std::span<const double>(own), 0.5));
    }
    for (size_t k : core::highOutliers(medians)) {
        g.outliers.push_back(g.ranks[k]);
        g.outlierRows.insert(k / g.perRow);
    }
    if (std::isfinite(lo)) {
        g.lo = lo;
        g.hi = hi > lo ? hi : lo + 1;
    }
    return g;
}

struct Geometry {
    QRectF colorBar;
    std::vector<QRectF> labels;
    std::vector<ChartLayout> panels;
    std::vector<Grid> grids;
};

class RankStepHeatmapPlot final : public AnalysisPlot {
public:
    RankStepHeatmapPlot()
        : AnalysisPlot({"rank-step-heatmap", "Rank × step heatmap",
                        "Every rank in every ProfilerStep: who made the others wait, who waited, step time, GPU idle or "
                        "arrival lag; outlying ranks outlined. Blocks of ranks beyond 64 show their largest value.",
                        61}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        std::vector<ParamSpec> s;
        for (const auto& spec : analysisWindowSpecs(runs, "all"))
            if (spec.key == kSteps.key()) s.push_back(spec);
        s.push_back(ranksSpec(runs, "Ranks shown as rows (empty: all); a range shows single ranks", false, true));
        s.push_back(kMeasure.spec());
        return s;
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues&) const override {
        return core::rankStepsAnalysis(ctx, w);
    }
    // A summary-first run: the same table from every rank's summary (the ranks whose events are loaded included).
    std::optional<core::Result<core::Table>> analyseSummaries(const core::RunSummaries& run, const core::WindowSpec& w,
                                                              const ParamValues&) const override {
        return core::Result<core::Table>(core::rankStepsFromSummaries(run.ranks, w));
    }

    // Empty when no chosen rank has a step, or no cell has a value for the chosen measure (a CPU-only trace has
    // step durations but nothing to say about collectives or GPU idle).
    std::optional<std::string> emptyMessageTyped(const AnalysisTables& p, const ParamValues& v) const override {
        bool steps = false;
        for (size_t run = 0; run < p.perRun.size(); ++run) {
            const Grid grid = gridOf(p, run, kRanks(v), measureColumn(kMeasure(v)));
            steps = steps || grid.rows() > 0;
            if (std::isfinite(grid.top)) return std::nullopt;
        }
        std::vector<std::string> messages;
        for (const auto& t : p.perRun) messages.insert(messages.end(), t.messages.begin(), t.messages.end());
        if (steps)
            return emptyReason(messages, fmt::format("no rank has a value for {} in any step (Cell value: duration "
                                                     "shows the steps)",
                                                     measureText(kMeasure(v))));
        return emptyReason(messages, "no rank has a ProfilerStep#N among the ranks chosen");
    }

    void drawTyped(Canvas& c, const AnalysisTables& p, const ParamValues& v) const override {
        const Geometry g = geometry(c, p, v);
        auto& painter = c.painter;
        const Theme t = c.theme();
        for (size_t k = 0; k < g.grids.size(); ++k) {
            const Grid& grid = g.grids[k];
            const ChartLayout& L = g.panels[k];
            drawAxes(c, L);
            if (!g.labels[k].isEmpty()) {
                painter.setPen(t.foreground);
                painter.drawText(g.labels[k], Qt::AlignLeft | Qt::AlignVCenter,
                                 elided(painter, p.runLabels[grid.run], g.labels[k].width()));
            }
            // A rectangle per cell (vector output stays vector); past one step per pixel column, one image pixel per
            // (step, row) scaled to the plot without smoothing.
            const size_t nSteps = grid.steps.size();
            auto colour = [&](size_t r, size_t s) -> std::optional<QColor> {
                const double val = grid.value[r * nSteps + s];
                if (!std::isfinite(val)) return std::nullopt;
                return heatColor((val - grid.lo) / (grid.hi - grid.lo));
            };
            painter.save();
            if (double(nSteps) <= L.plot.width()) {
                for (size_t r = 0; r < grid.rows(); ++r)
                    for (size_t s = 0; s < nSteps; ++s)
                        if (auto col = colour(r, s))
                            painter.fillRect(QRectF(L.bandStart(true, s), L.bandStart(false, r), L.bandSize(true),
                                                    L.bandSize(false)),
                                             *col);
            } else {
                QImage img(int(nSteps), int(grid.rows()), QImage::Format_ARGB32);
                img.fill(Qt::transparent);
                for (size_t r = 0; r < grid.rows(); ++r)
                    for (size_t s = 0; s < nSteps; ++s)
                        if (auto col = colour(r, s)) img.setPixelColor(int(s), int(r), *col);
                painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
                painter.drawImage(L.plot, img);
            }
            painter.setPen(QPen(QColor(0xd6, 0x27, 0x28), 2));
            painter.setBrush(Qt::NoBrush);
            for (size_t r : grid.outlierRows)
                painter.drawRect(QRectF(L.plot.left() + 1, L.bandStart(false, r) + 1, L.plot.width() - 2,
                                        std::max(1.0, L.bandSize(false) - 2)));
            painter.restore();
        }
        if (!g.grids.empty()) drawColorBar(c, g);
    }

    std::optional<HitInfo> hitTestTyped(const AnalysisTables& p, const ParamValues& v, const QRectF& rect,
                                        QPointF pt) const override {
        LayoutCanvas lc(rect);
        const Geometry g = geometry(lc.canvas, p, v);
        for (size_t k = 0; k < g.grids.size(); ++k) {
            const ChartLayout& L = g.panels[k];
            if (!L.plot.contains(pt)) continue;
            const Grid& grid = g.grids[k];
            const auto row = L.bandAt(false, pt);
            const auto step = L.bandAt(true, pt);
            if (!row || !step || *row >= grid.rows() || *step >= grid.steps.size()) return std::nullopt;
            const size_t i = *row * grid.steps.size() + *step;
            const double val = grid.value[i];
            HitInfo info;
            info.title = fmt::format("{}, step {}", grid.rowLabel(*row), grid.steps[*step]);
            info.fields = {{"run", p.runLabels[grid.run]},
                           {measureText(kMeasure(v)), std::isfinite(val) ? formatDuration(val) : "n/a (nothing to measure)"}};
            if (grid.perRow > 1 && grid.argRank[i] >= 0)
                info.fields.push_back({"largest in the block", fmt::format("rank {}", grid.argRank[i])});
            if (grid.outlierRows.count(*row)) info.fields.push_back({"outlier", "yes (robust z > 3 over the ranks)"});
            // The ranks the cell is about: the one it shows first, then the rest of its block.
            info.run = p.runLabels[grid.run];
            if (grid.argRank[i] >= 0) info.ranks.push_back(grid.argRank[i]);
            for (int k : grid.rowRanks(*row))
                if (k != grid.argRank[i]) info.ranks.push_back(k);
            if (grid.loaded) {
                const size_t n = grid.loadedIn(*row), all = grid.rowRanks(*row).size();
                info.fields.push_back({"events", all == 1 ? (n ? "loaded" : "summary only (double-click loads them)")
                                                          : fmt::format("{} of {} ranks loaded (double-click loads rank "
                                                                        "{}; right-click: more)",
                                                                        n, all, info.ranks.front())});
            }
            // Inset by a pixel, so that the selection's outline stays inside the plot area.
            info.itemRect = QRectF(L.bandStart(true, *step), L.bandStart(false, *row), L.bandSize(true),
                                   L.bandSize(false))
                                .adjusted(1, 1, -1, -1);
            return info;
        }
        return std::nullopt;
    }

private:
    Geometry geometry(Canvas& c, const AnalysisTables& p, const ParamValues& v) const {
        Geometry g;
        for (size_t run = 0; run < p.perRun.size(); ++run) {
            Grid grid = gridOf(p, run, kRanks(v), measureColumn(kMeasure(v)));
            if (grid.rows() > 0) g.grids.push_back(std::move(grid));
        }
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;  // one colour scale for every panel
        const std::string measure = kMeasure(v);
        for (const auto& grid : g.grids) {
            lo = std::min(lo, grid.lo);
            hi = std::max(hi, grid.hi);
        }
        // Waits, idle and lag start the scale at 0 (a small wait reads as small); step durations at the shortest,
        // to show how they differ.
        if (measure != "duration" && std::isfinite(lo)) lo = std::min(lo, 0.0);
        if (!(hi > lo)) hi = lo + 1;
        for (auto& grid : g.grids) std::tie(grid.lo, grid.hi) = std::pair(lo, hi);
        std::vector<int> outliers;
        size_t perRow = 1;
        for (const auto& grid : g.grids) {
            outliers.insert(outliers.end(), grid.outliers.begin(), grid.outliers.end());
            perRow = std::max(perRow, grid.perRow);
        }
        std::string sub = measureText(measure);
        const Grid* top = nullptr;
        for (const auto& grid : g.grids)
            if (std::isfinite(grid.top) && (!top || grid.top > top->top)) top = &grid;
        if (top)
            sub += fmt::format(" (largest: {}rank {}, step {}: {})",
                               g.grids.size() > 1 ? p.runLabels[top->run] + " " : "", top->topRank, top->topStep,
                               formatDuration(top->top));
        for (const auto& grid : g.grids)
            if (grid.loaded) {  // a summary-first run: every rank from its summary
                sub += fmt::format("; from every rank's summary ({} with events loaded)", grid.loaded->size());
                break;
            }
        if (perRow > 1) sub += fmt::format("; up to {} ranks per row (their largest value)", perRow);
        if (!outliers.empty())
            sub += fmt::format("; outlying rank{}: {}", outliers.size() > 1 ? "s" : "", fmt::join(outliers, ", "));
        QRectF area = drawTitle(c, c.rect, title(), sub);
        const QFontMetricsF fm(c.painter.font());
        const double barWidth = 16 + fm.horizontalAdvance("999.999 ms") + 16;
        g.colorBar = QRectF(area.right() - barWidth + 8, area.top() + fm.height() + 8, 16,
                            std::max(0.0, area.height() - 2 * fm.height() - 24));
        area.setRight(area.right() - barWidth);
        const bool labelled = g.grids.size() > 1;
        const auto rects = panelRects(area, g.grids.size());
        for (size_t k = 0; k < g.grids.size(); ++k) {
            QRectF inner = rects[k], label;
            if (labelled) {
                label = QRectF(rects[k].left() + 8, rects[k].top(), rects[k].width() - 16, fm.height());
                inner.setTop(rects[k].top() + fm.height() + 2);
            }
            const Grid& grid = g.grids[k];
            std::vector<std::string> rows, steps;
            for (size_t r = 0; r < grid.rows(); ++r) rows.push_back(grid.rowLabel(r));
            for (int64_t s : grid.steps) steps.push_back(std::to_string(s));
            g.labels.push_back(label);
            g.panels.push_back(layoutChart(fm, inner, ChartAxis::bandsOf(steps, "ProfilerStep"),
                                           ChartAxis::bandsOf(rows)));
        }
        return g;
    }

    // The colour bar of the one scale every panel shares.
    static void drawColorBar(Canvas& c, const Geometry& g) {
        const double lo = g.grids.front().lo, hi = g.grids.front().hi;
        std::vector<std::pair<double, std::string>> ticks;
        for (int i = 0; i <= 4; ++i) ticks.emplace_back(i / 4.0, formatDuration(lo + (hi - lo) * i / 4.0));
        drawHeatColorBar(c, g.colorBar, ticks, "");
    }
};

}  // namespace

STROBE_REGISTER_PLOT(RankStepHeatmapPlot)

}  // namespace strobe::plots
