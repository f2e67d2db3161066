// Launch overhead CDF (analysis `launch`, view cdf): per rank and kernel category, the distribution of
// kernel start − launching runtime call start, as cumulative curves (quantiles every 5 %).

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/analysis/launch.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

const StringParam kCategory =
    StringParam{"category", "Category",
                "Kernel category to show (\"all\": every kernel; \"*\": one curve per category)", "all"}
        .drawOnly();
const BoolParam kLaunchOverheadCdfLogScale =
    BoolParam{"log_scale", "Log scale", "Logarithmic launch-delay axis", true}.drawOnly();

struct LaunchOverheadCdfCurve {
    std::string label;
    int rank = 0;
    std::string category;
    std::vector<std::pair<double, double>> points;  // (launch_ns, quantile_pct), by quantile
};

// What drawing and hit tests share: the chart and the curves drawn on it.
struct LaunchOverheadCdfFrame {
    ChartLayout g;
    std::vector<LaunchOverheadCdfCurve> curves;
};

class LaunchOverheadCdfPlot final : public ChartPlot<AnalysisTables, LaunchOverheadCdfFrame, AnalysisPlot> {
public:
    LaunchOverheadCdfPlot()
        : ChartPlot(
              {"launch-overhead-cdf", "Launch overhead CDF",
               "Cumulative distribution of kernel start − launching runtime call start, per rank and kernel category.",
               70}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        auto s = analysisWindowSpecs(runs, "all");
        s.push_back(kCategory.spec());
        s.push_back(ranksSpec(runs, "Ranks to draw (empty: all)", false));
        s.push_back(kLaunchOverheadCdfLogScale.spec());
        s.push_back(kLegend.spec());
        return s;
    }

    std::optional<std::string> nothingToDraw(const AnalysisTables& p, const ParamValues& values) const override {
        if (!curves(p, values).empty()) return std::nullopt;
        return emptyReason(p.combined.messages, "no launched kernels match the selection");
    }

    std::optional<ChartData> chartOf(const AnalysisTables& p, const ParamValues& values) const override {
        auto cs = curves(p, values);
        ChartData d;
        d.kind = ChartData::Kind::Lines;
        d.title = title();
        d.subtitle = subtitle(p, values);
        d.valueUnit = ChartData::Unit::Percent;
        d.valueLabel = "share of kernels ≤ x";
        d.xUnit = ChartData::Unit::Duration;
        d.xLabel = "launch delay";
        d.logX = kLaunchOverheadCdfLogScale(values);
        for (size_t i = 0; i < cs.size(); ++i) {
            ChartData::Series s{cs[i].label, seriesColor(int(i)), {}, {}};
            for (auto [x, q] : cs[i].points) s.points.push_back({x, q});
            d.series.push_back(std::move(s));
        }
        return d;
    }

    LaunchOverheadCdfFrame frame(Canvas& c, const AnalysisTables& p, const ParamValues& values) const override {
        LaunchOverheadCdfFrame f;
        f.curves = curves(p, values);
        f.g = layout(c, p, f.curves, values);
        return f;
    }

    void drawMarks(Canvas& c, const LaunchOverheadCdfFrame& f, const AnalysisTables&,
                   const ParamValues&) const override {
        const ChartLayout& g = f.g;
        const auto& cs = f.curves;
        drawAxes(c, g);
        auto& painter = c.painter;
        painter.setRenderHint(QPainter::Antialiasing, true);
        for (size_t i = 0; i < cs.size(); ++i) {
            QPolygonF line;
            for (auto [x, q] : cs[i].points) line << QPointF(g.xAt(x), g.yAt(q));
            painter.setPen(QPen(seriesColor(int(i)), 2, seriesPenStyle(int(i))));
            painter.drawPolyline(line);
        }
    }

    std::optional<HitInfo> hitMarks(const LaunchOverheadCdfFrame& f, const AnalysisTables&, const ParamValues&,
                                    QPointF pt) const override {
        const ChartLayout& g = f.g;
        const auto& cs = f.curves;
        double best = 8;  // pixels
        std::optional<HitInfo> hit;
        for (const auto& cv : cs)
            for (auto [x, q] : cv.points) {
                double d = std::hypot(g.xAt(x) - pt.x(), g.yAt(q) - pt.y());
                if (d < best) {
                    best = d;
                    HitInfo h;
                    h.title = cv.label;
                    h.fields = {{"quantile", formatPercent(q)}, {"launch delay", formatDuration(x)},
                                {"category", cv.category}};
                    hit = h;
                }
            }
        return hit;
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues&) const override {
        return core::launchOverhead(ctx, w, true);
    }

private:
    static std::string subtitle(const AnalysisTables& p, const ParamValues& v) {
        return fmt::format("kernel start − launching runtime call start; category {}; window: {}",
                           kCategory(v), p.window);
    }

    static std::vector<LaunchOverheadCdfCurve> curves(const AnalysisTables& p, const ParamValues& v) {
        std::string cat = kCategory(v);
        auto ranks = kRanks(v);
        std::vector<LaunchOverheadCdfCurve> out;
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const auto& t = p.perRun[ri];
            std::map<std::pair<int, std::string>, size_t> index;
            for (size_t row = 0; row < t.rows.size(); ++row) {
                int rank = int(cellNumber(t, row, col::kRank, -1));
                std::string c = cellText(t, row, col::kCategory);
                if (!rankSelected(ranks, rank)) continue;
                if (cat != "*" && c != cat) continue;
                if (cat == "*" && c == "all") continue;
                auto [it, added] = index.try_emplace({rank, c}, out.size());
                if (added) {
                    LaunchOverheadCdfCurve cv;
                    cv.rank = rank;
                    cv.category = c;
                    std::string rl = p.rankLabel(ri, rank);
                    cv.label = cat == "*" ? rl + " " + c : rl;
                    out.push_back(std::move(cv));
                }
                out[it->second].points.push_back({cellNumber(t, row, col::kLaunchNs), cellNumber(t, row, col::kQuantilePct)});
            }
        }
        for (auto& c : out)
            std::sort(c.points.begin(), c.points.end(), [](auto& a, auto& b) { return a.second < b.second; });
        return out;
    }

    // Title, legend and axes as draw() lays them out.
    ChartLayout layout(Canvas& c, const AnalysisTables& p, const std::vector<LaunchOverheadCdfCurve>& cs,
                       const ParamValues& v) const {
        QRectF area = drawTitle(c, c.rect, title(), subtitle(p, v));
        std::vector<LegendEntry> legend;
        for (size_t i = 0; i < cs.size(); ++i)
            legend.push_back({cs[i].label, seriesColor(int(i)), true, seriesPenStyle(int(i))});
        area = drawLegend(c, area, legend, legendMode(v));
        double mn = INFINITY, mx = 0;
        for (const auto& cv : cs)
            for (auto [x, q] : cv.points) {
                mn = std::min(mn, x);
                mx = std::max(mx, x);
            }
        if (!std::isfinite(mn)) mn = 1, mx = 10;
        auto x = kLaunchOverheadCdfLogScale(v)
            ? ChartAxis::log(mn, mx, TickUnit::Duration, "launch delay (log scale)")
            : ChartAxis::linear(std::min(0.0, mn), std::max(1.0, mx * 1.05), TickUnit::Duration, "launch delay");
        return layoutChart(QFontMetricsF(c.painter.font()), area, x,
                           ChartAxis::linear(0, 100, TickUnit::Percent, "share of kernels ≤ x"));
    }
};

}  // namespace

STROBE_REGISTER_PLOT(LaunchOverheadCdfPlot)

}  // namespace strobe::plots
