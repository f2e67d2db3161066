// Launch overhead CDF (analysis `launch`, view cdf): per rank and kernel category, the distribution of
// kernel start − launching runtime call start, as cumulative curves (quantiles every 5 %).

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/analysis/launch.h"
#include "plots/analysis_plot.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

struct Curve {
    std::string label;
    int rank = 0;
    std::string category;
    std::vector<std::pair<double, double>> points;  // (launch_ns, quantile_pct), by quantile
};

class LaunchOverheadCdfPlot final : public Plot {
public:
    std::string id() const override { return "launch-overhead-cdf"; }
    std::string title() const override { return "Launch overhead CDF"; }
    std::string description() const override {
        return "Cumulative distribution of kernel start − launching runtime call start, per rank and kernel "
               "category.";
    }
    int order() const override { return 70; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        auto s = analysisWindowSpecs(runs, "all");
        ParamSpec cat;
        cat.key = "category";
        cat.label = "Category";
        cat.tooltip = "Kernel category to show (\"all\": every kernel; \"*\": one curve per category)";
        cat.type = ParamType::String;
        cat.defaultValue = std::string("all");
        cat.affectsPrepare = false;
        s.push_back(cat);
        ParamSpec ranks;
        ranks.key = "ranks";
        ranks.label = "Ranks";
        ranks.tooltip = "Ranks to draw (empty: all)";
        ranks.type = ParamType::RankSet;
        ranks.defaultValue = std::vector<std::string>{};
        ranks.choices = rankChoices(runs);
        ranks.affectsPrepare = false;
        s.push_back(ranks);
        ParamSpec logx;
        logx.key = "log_scale";
        logx.label = "Log scale";
        logx.tooltip = "Logarithmic launch-delay axis";
        logx.type = ParamType::Bool;
        logx.defaultValue = true;
        logx.affectsPrepare = false;
        s.push_back(logx);
        return s;
    }

    core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
                                      const core::ProgressFn& progress) const override {
        auto r = runAnalysisOnRuns(runs, values, cancel, progress,
                                   [](core::AnalysisContext& ctx, const core::WindowSpec& w) {
                                       return core::launchOverhead(ctx, w, true);
                                   });
        if (!r) return r.error();
        return PreparedPtr(r.value());
    }

    static std::vector<Curve> curves(const AnalysisTables& p, const ParamValues& v) {
        std::string cat = paramString(v, "category", "all");
        auto ranks = paramRanks(v, "ranks");
        std::vector<Curve> out;
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const auto& t = p.perRun[ri];
            std::map<std::pair<int, std::string>, size_t> index;
            for (size_t row = 0; row < t.rows.size(); ++row) {
                int rank = int(cellNumber(t, row, "rank", -1));
                std::string c = cellText(t, row, "category");
                if (!rankSelected(ranks, rank)) continue;
                if (cat != "*" && c != cat) continue;
                if (cat == "*" && c == "all") continue;
                auto [it, added] = index.try_emplace({rank, c}, out.size());
                if (added) {
                    Curve cv;
                    cv.rank = rank;
                    cv.category = c;
                    std::string rl = p.perRun.size() > 1 ? fmt::format("{} / rank {}", p.runLabels[ri], rank)
                                                         : fmt::format("rank {}", rank);
                    cv.label = cat == "*" ? rl + " " + c : rl;
                    out.push_back(std::move(cv));
                }
                out[it->second].points.push_back({cellNumber(t, row, "launch_ns"), cellNumber(t, row, "quantile_pct")});
            }
        }
        for (auto& c : out) std::sort(c.points.begin(), c.points.end(), [](auto& a, auto& b) { return a.second < b.second; });
        return out;
    }

    struct Geometry {
        QRectF plot;
        bool log = true;
        double lo = 0, hi = 1;
        double x(double ns) const {
            double v = log ? std::log10(std::max(1.0, ns)) : ns;
            return plot.left() + (v - lo) / (hi - lo) * plot.width();
        }
        double y(double pct) const { return plot.bottom() - pct / 100.0 * plot.height(); }
    };

    static Geometry geometry(const std::vector<Curve>& cs, const ParamValues& v, const QRectF& area) {
        Geometry g;
        g.log = paramBool(v, "log_scale", true);
        g.plot = area.adjusted(100, 8, -24, -40);
        double mn = INFINITY, mx = 0;
        for (const auto& c : cs)
            for (auto [x, q] : c.points) {
                mn = std::min(mn, x);
                mx = std::max(mx, x);
            }
        if (!std::isfinite(mn)) mn = 1, mx = 10;
        if (g.log) {
            g.lo = std::floor(std::log10(std::max(1.0, mn)));
            g.hi = std::ceil(std::log10(std::max(10.0, mx)));
            if (g.hi <= g.lo) g.hi = g.lo + 1;
        } else {
            g.lo = std::min(0.0, mn);
            g.hi = std::max(1.0, mx * 1.05);
        }
        return g;
    }

    void draw(Canvas& c, const Prepared& prepared, const ParamValues& values) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p) return;
        auto cs = curves(*p, values);
        QRectF area = drawTitle(c, c.rect, title(),
                                fmt::format("kernel start − launching runtime call start; category {}; window: {}",
                                            paramString(values, "category", "all"), p->window));
        if (cs.empty()) {
            drawMessage(c, area, p->combined.messages.empty() ? "no launched kernels match the selection"
                                                              : p->combined.messages.front());
            return;
        }
        std::vector<LegendEntry> legend;
        for (size_t i = 0; i < cs.size(); ++i) legend.push_back({cs[i].label, seriesColor(int(i))});
        area = drawLegend(c, area, legend);
        Geometry g = geometry(cs, values, area);
        auto& painter = c.painter;
        Theme t = c.theme();
        drawValueAxis(c, g.plot, 0, 100, true, [](double v) { return formatPercent(v); }, "share of kernels ≤ x");
        if (g.log) {
            for (double e = g.lo; e <= g.hi + 1e-9; e += 1) {
                double x = g.plot.left() + (e - g.lo) / (g.hi - g.lo) * g.plot.width();
                painter.setPen(QPen(t.grid, 0));
                painter.drawLine(QPointF(x, g.plot.top()), QPointF(x, g.plot.bottom()));
                painter.setPen(t.muted);
                painter.drawText(QRectF(x - 45, g.plot.bottom() + 3, 90, 16), Qt::AlignHCenter | Qt::AlignTop,
                                 QString::fromStdString(formatDuration(std::pow(10.0, e))));
            }
            painter.setPen(t.muted);
            painter.drawText(QRectF(g.plot.left(), g.plot.bottom() + 20, g.plot.width(), 16), Qt::AlignCenter,
                             QStringLiteral("launch delay (log scale)"));
        } else {
            drawValueAxis(c, g.plot, g.lo, g.hi, false, [](double v) { return formatDuration(v); }, "launch delay");
        }
        painter.setRenderHint(QPainter::Antialiasing, true);
        for (size_t i = 0; i < cs.size(); ++i) {
            QPolygonF line;
            for (auto [x, q] : cs[i].points) line << QPointF(g.x(x), g.y(q));
            painter.setPen(QPen(seriesColor(int(i)), 2));
            painter.drawPolyline(line);
        }
    }

    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                   QPointF pt) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p) return std::nullopt;
        auto cs = curves(*p, values);
        if (cs.empty()) return std::nullopt;
        QImage scratch(1, 1, QImage::Format_ARGB32);
        QPainter painter(&scratch);
        Canvas c{painter, rect, false};
        QRectF area = drawTitle(c, rect, title(), "x");
        std::vector<LegendEntry> legend;
        for (size_t i = 0; i < cs.size(); ++i) legend.push_back({cs[i].label, seriesColor(int(i))});
        area = drawLegend(c, area, legend);
        Geometry g = geometry(cs, values, area);
        double best = 8;  // pixels
        std::optional<HitInfo> hit;
        for (const auto& cv : cs)
            for (auto [x, q] : cv.points) {
                double d = std::hypot(g.x(x) - pt.x(), g.y(q) - pt.y());
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

    core::Table table(const Prepared& prepared, const ParamValues&) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        return p ? p->combined : core::Table{};
    }
};

}  // namespace
}  // namespace strobe::plots

using strobe::plots::LaunchOverheadCdfPlot;
STROBE_REGISTER_PLOT(LaunchOverheadCdfPlot)
