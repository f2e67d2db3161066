// Kernel breakdown: GPU time by Strobe category, or by the top-N kernels (the rest as "others"), as stacked bars
// per rank, per step or for the whole window. Time is the sum of activity durations (kernels that overlap on
// different streams each count their own time), the same figure as `strobe-cli summary`'s time by category.

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "plots/chart.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

struct BreakdownPrepared final : Prepared {
    std::vector<std::string> bars;
    std::vector<std::string> series;
    std::vector<QColor> colors;
    std::vector<std::vector<int64_t>> time;   // [bar][series] ns
    std::vector<std::vector<int64_t>> count;  // [bar][series]
    std::string subtitle;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this) + bars.size() * 48 + series.size() * 64;
        for (const auto& v : time) b += v.capacity() * 16;
        return b;
    }
};

class KernelBreakdownPlot final : public Plot {
public:
    std::string id() const override { return "kernel-breakdown"; }
    std::string title() const override { return "Kernel breakdown"; }
    std::string description() const override {
        return "GPU time by kernel category or by the top-N kernels, stacked per rank, per step or for the whole "
               "window.";
    }
    int order() const override { return 20; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        std::vector<ParamSpec> s;
        ParamSpec groupBy;
        groupBy.key = "group_by";
        groupBy.label = "Group by";
        groupBy.tooltip = "Stack kernel categories or the top-N kernels by name";
        groupBy.type = ParamType::Enum;
        groupBy.choices = {"category", "kernel"};
        groupBy.defaultValue = std::string("category");
        s.push_back(groupBy);
        ParamSpec per;
        per.key = "per";
        per.label = "Bars";
        per.tooltip = "One bar per rank, per step (all selected ranks together) or one for the whole window";
        per.type = ParamType::Enum;
        per.choices = {"rank", "step", "window"};
        per.defaultValue = std::string("rank");
        s.push_back(per);
        ParamSpec topN;
        topN.key = "top_n";
        topN.label = "Top N kernels";
        topN.tooltip = "With group by kernel: how many kernels get their own colour (the rest: others)";
        topN.type = ParamType::Int;
        topN.defaultValue = 10LL;
        topN.min = 1;
        topN.max = 50;
        topN.step = 1;
        s.push_back(topN);
        ParamSpec ranks;
        ranks.key = "ranks";
        ranks.label = "Ranks";
        ranks.tooltip = "Ranks to include (empty: all)";
        ranks.type = ParamType::RankSet;
        ranks.defaultValue = std::vector<std::string>{};
        ranks.choices = rankChoices(runs);
        s.push_back(ranks);
        ParamSpec mem;
        mem.key = "include_memory";
        mem.label = "Memcpy/memset";
        mem.tooltip = "Count memcpy and memset activities too";
        mem.type = ParamType::Bool;
        mem.defaultValue = true;
        s.push_back(mem);
        ParamSpec pct;
        pct.key = "percent";
        pct.label = "Percent";
        pct.tooltip = "Show each bar as 100% (shares) instead of absolute time";
        pct.type = ParamType::Bool;
        pct.defaultValue = false;
        pct.affectsPrepare = false;
        s.push_back(pct);
        ParamSpec horiz = pct;
        horiz.key = "horizontal";
        horiz.label = "Horizontal bars";
        horiz.tooltip = "Draw bars left to right";
        s.push_back(horiz);
        return s;
    }

    core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
                                      const core::ProgressFn& progress) const override {
        auto out = std::make_shared<BreakdownPrepared>();
        bool byKernel = paramString(values, "group_by", "category") == "kernel";
        std::string per = paramString(values, "per", "rank");
        auto topN = size_t(paramInt(values, "top_n", 10));
        auto selected = paramRanks(values, "ranks");
        bool mem = paramBool(values, "include_memory", true);

        // Accumulate per (bar key, series name).
        std::vector<std::string> barLabels;
        std::map<std::pair<size_t, int64_t>, size_t> barIndex;  // (run, rank or step) → bar
        std::unordered_map<std::string, size_t> seriesIndex;
        std::vector<std::string> seriesNames;
        std::vector<std::vector<int64_t>> time, count;
        std::vector<int64_t> seriesTotal;
        auto bar = [&](size_t run, int64_t key, const std::string& label) {
            auto [it, added] = barIndex.try_emplace({run, key}, barLabels.size());
            if (added) {
                barLabels.push_back(label);
                time.emplace_back(seriesNames.size(), 0);
                count.emplace_back(seriesNames.size(), 0);
            }
            return it->second;
        };
        auto seriesOf = [&](const std::string& name) {
            auto [it, added] = seriesIndex.try_emplace(name, seriesNames.size());
            if (added) {
                seriesNames.push_back(name);
                seriesTotal.push_back(0);
                for (auto& v : time) v.push_back(0);
                for (auto& v : count) v.push_back(0);
            }
            return it->second;
        };
        if (!byKernel)
            for (size_t c = 0; c < size_t(core::KernelCategory::Count); ++c)
                seriesOf(std::string(core::toString(core::KernelCategory(c))));

        size_t nranks = 0, done = 0;
        for (const auto& run : runs)
            if (run.dataset) nranks += run.dataset->ranks.size();
        for (size_t ri = 0; ri < runs.size(); ++ri) {
            if (!runs[ri].dataset) continue;
            for (const auto& rp : runs[ri].dataset->ranks) {
                if (cancel.cancelled()) return cancelledError();
                if (!rp || !rankSelected(selected, rp->rank)) continue;
                const auto& r = *rp;
                const auto& g = r.gpu;
                // Bars are made on the first activity counted, so an empty rank adds none.
                int64_t rankBar = -1;
                auto barOfRank = [&] {
                    if (rankBar < 0)
                        rankBar = int64_t(per == "rank" ? bar(ri, r.rank, rankLabel(runs, ri, r.rank))
                                                        : bar(ri, 0, runs.size() > 1 ? runs[ri].label : "window"));
                    return size_t(rankBar);
                };
                // Series per name id, resolved once per rank.
                std::vector<int64_t> nameSeries(byKernel ? r.strings.size() : 0, -1);
                for (size_t i = 0; i < g.size(); ++i) {
                    if (!mem && g.kind[i] != core::EventKind::Kernel) continue;
                    size_t b = 0;
                    if (per != "step") {
                        b = barOfRank();
                    } else {
                        int64_t st = activityStep(r, i);
                        if (st < 0) continue;
                        b = bar(ri, st, runs.size() > 1 ? fmt::format("{} / step {}", runs[ri].label, st)
                                                        : fmt::format("step {}", st));
                    }
                    size_t s;
                    if (byKernel) {
                        auto id = g.name[i];
                        if (id < nameSeries.size()) {
                            if (nameSeries[id] < 0) nameSeries[id] = int64_t(seriesOf(r.strings.str(id)));
                            s = size_t(nameSeries[id]);
                        } else {
                            s = seriesOf(r.strings.str(id));
                        }
                    } else {
                        s = size_t(activityCategory(r, i));
                    }
                    int64_t d = std::max<int64_t>(0, g.dur[i]);
                    time[b][s] += d;
                    count[b][s] += 1;
                    seriesTotal[s] += d;
                }
                ++done;
                if (progress) progress({"sum", r.path, nranks ? double(done) / double(nranks) : 1.0, done, nranks});
            }
        }
        if (per == "step" && barLabels.size() > 1) {
            // Order step bars by (run, step).
            std::vector<std::pair<std::pair<size_t, int64_t>, size_t>> order(barIndex.begin(), barIndex.end());
            std::vector<std::string> l;
            std::vector<std::vector<int64_t>> t2, c2;
            for (auto& [k, idx] : order) {
                l.push_back(barLabels[idx]);
                t2.push_back(time[idx]);
                c2.push_back(count[idx]);
            }
            barLabels = std::move(l);
            time = std::move(t2);
            count = std::move(c2);
        }
        // Choose the series to show: categories with time, or the top-N kernels + others.
        std::vector<size_t> seriesOrder(seriesNames.size());
        for (size_t i = 0; i < seriesOrder.size(); ++i) seriesOrder[i] = i;
        std::stable_sort(seriesOrder.begin(), seriesOrder.end(),
                         [&](size_t a, size_t b) { return seriesTotal[a] > seriesTotal[b]; });
        std::vector<size_t> keep;
        bool others = false;
        for (size_t k = 0; k < seriesOrder.size(); ++k) {
            size_t s = seriesOrder[k];
            if (seriesTotal[s] == 0) continue;
            if (byKernel && keep.size() >= topN) {
                others = true;
                continue;
            }
            keep.push_back(s);
        }
        out->bars = barLabels;
        for (size_t k = 0; k < keep.size(); ++k) {
            out->series.push_back(seriesNames[keep[k]]);
            if (byKernel) out->colors.push_back(seriesColor(int(k)));
            else {
                core::KernelCategory c{};
                core::parseKernelCategory(seriesNames[keep[k]], c);
                out->colors.push_back(categoryColor(c));
            }
        }
        if (others) {
            out->series.push_back("others");
            out->colors.push_back(QColor(190, 190, 190));
        }
        out->time.assign(barLabels.size(), std::vector<int64_t>(out->series.size(), 0));
        out->count.assign(barLabels.size(), std::vector<int64_t>(out->series.size(), 0));
        std::vector<int64_t> slot(seriesNames.size(), int64_t(out->series.size()) - 1);
        for (size_t k = 0; k < keep.size(); ++k) slot[keep[k]] = int64_t(k);
        for (size_t b = 0; b < barLabels.size(); ++b)
            for (size_t s = 0; s < seriesNames.size(); ++s) {
                if (time[b][s] == 0 && count[b][s] == 0) continue;
                if (slot[s] < 0) continue;
                out->time[b][size_t(slot[s])] += time[b][s];
                out->count[b][size_t(slot[s])] += count[b][s];
            }
        out->subtitle = fmt::format("{} {}, {}", byKernel ? fmt::format("top {} kernels", topN) : "by category",
                                    per == "rank" ? "per rank" : per == "step" ? "per step" : "for the whole window",
                                    mem ? "kernels + memcpy/memset, sum of durations" : "kernels, sum of durations");
        if (out->bars.empty())
            out->messages.push_back(per == "step" ? "no GPU activity falls inside a ProfilerStep"
                                                  : "no GPU activities in the selection");
        return PreparedPtr(out);
    }

    struct Geometry {
        QRectF plot;
        bool horizontal = false;
        bool percent = false;
        double maxValue = 1;
    };

    static Geometry geometry(const BreakdownPrepared& p, const ParamValues& v, const QRectF& area) {
        Geometry g;
        g.horizontal = paramBool(v, "horizontal", false);
        g.percent = paramBool(v, "percent", false);
        g.plot = g.horizontal ? area.adjusted(160, 8, -20, -40) : area.adjusted(90, 8, -16, -28);
        double mx = 0;
        for (const auto& row : p.time) {
            int64_t s = 0;
            for (auto x : row) s += x;
            mx = std::max(mx, double(s));
        }
        g.maxValue = g.percent ? 100.0 : std::max(1.0, mx * 1.05);
        return g;
    }

    void draw(Canvas& c, const Prepared& prepared, const ParamValues& values) const override {
        const auto* p = dynamic_cast<const BreakdownPrepared*>(&prepared);
        if (!p) return;
        QRectF area = drawTitle(c, c.rect, title(), p->subtitle);
        if (p->bars.empty()) {
            drawMessage(c, area, p->messages.empty() ? "nothing to show" : p->messages.front());
            return;
        }
        std::vector<LegendEntry> legend;
        for (size_t s = 0; s < p->series.size(); ++s) legend.push_back({p->series[s], p->colors[s]});
        area = drawLegend(c, area, legend);
        Geometry g = geometry(*p, values, area);
        TickFormatter fmtFn = g.percent ? TickFormatter([](double v) { return formatPercent(v); })
                                        : TickFormatter([](double v) { return formatDuration(v); });
        drawValueAxis(c, g.plot, 0, g.maxValue, !g.horizontal, fmtFn, g.percent ? "share of bar" : "GPU time");
        drawBandLabels(c, g.plot, p->bars, !g.horizontal);
        double n = double(p->bars.size());
        double band = (g.horizontal ? g.plot.height() : g.plot.width()) / n;
        double thick = std::min(band * 0.7, 80.0);
        for (size_t b = 0; b < p->bars.size(); ++b) {
            double total = 0;
            for (auto x : p->time[b]) total += double(x);
            double acc = 0;
            for (size_t s = 0; s < p->series.size(); ++s) {
                double v = double(p->time[b][s]);
                if (g.percent) v = total > 0 ? v / total * 100.0 : 0;
                if (v <= 0) continue;
                double a0 = acc / g.maxValue, a1 = (acc + v) / g.maxValue;
                acc += v;
                QRectF r;
                if (g.horizontal) {
                    double y = g.plot.top() + band * double(b) + (band - thick) / 2;
                    r = QRectF(g.plot.left() + a0 * g.plot.width(), y, (a1 - a0) * g.plot.width(), thick);
                } else {
                    double x = g.plot.left() + band * double(b) + (band - thick) / 2;
                    r = QRectF(x, g.plot.bottom() - a1 * g.plot.height(), thick, (a1 - a0) * g.plot.height());
                }
                c.painter.fillRect(r, p->colors[s]);
            }
        }
    }

    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                   QPointF pt) const override {
        const auto* p = dynamic_cast<const BreakdownPrepared*>(&prepared);
        if (!p || p->bars.empty()) return std::nullopt;
        // Recompute the same layout as draw() (title, legend) on a scratch painter-free basis.
        QImage scratch(1, 1, QImage::Format_ARGB32);
        QPainter painter(&scratch);
        Canvas c{painter, rect, false};
        QRectF area = drawTitle(c, rect, title(), p->subtitle);
        std::vector<LegendEntry> legend;
        for (size_t s = 0; s < p->series.size(); ++s) legend.push_back({p->series[s], p->colors[s]});
        area = drawLegend(c, area, legend);
        Geometry g = geometry(*p, values, area);
        if (!g.plot.contains(pt)) return std::nullopt;
        double band = (g.horizontal ? g.plot.height() : g.plot.width()) / double(p->bars.size());
        auto b = size_t((g.horizontal ? pt.y() - g.plot.top() : pt.x() - g.plot.left()) / band);
        if (b >= p->bars.size()) return std::nullopt;
        double total = 0;
        for (auto x : p->time[b]) total += double(x);
        double pos = g.horizontal ? (pt.x() - g.plot.left()) / g.plot.width() * g.maxValue
                                  : (g.plot.bottom() - pt.y()) / g.plot.height() * g.maxValue;
        double acc = 0;
        for (size_t s = 0; s < p->series.size(); ++s) {
            double v = double(p->time[b][s]);
            if (g.percent) v = total > 0 ? v / total * 100.0 : 0;
            if (pos >= acc && pos < acc + v) {
                HitInfo h;
                h.title = p->series[s];
                h.fields = {{"bar", p->bars[b]},
                            {"time", formatDuration(double(p->time[b][s]))},
                            {"share", formatPercent(total > 0 ? double(p->time[b][s]) / total * 100 : 0)},
                            {"count", std::to_string(p->count[b][s])}};
                return h;
            }
            acc += v;
        }
        return std::nullopt;
    }

    core::Table table(const Prepared& prepared, const ParamValues&) const override {
        core::Table t;
        t.columns = {"bar", "series", "time_ns", "count", "pct"};
        const auto* p = dynamic_cast<const BreakdownPrepared*>(&prepared);
        if (!p) return t;
        for (size_t b = 0; b < p->bars.size(); ++b) {
            int64_t total = 0;
            for (auto x : p->time[b]) total += x;
            for (size_t s = 0; s < p->series.size(); ++s) {
                if (p->count[b][s] == 0) continue;
                t.rows.push_back({p->bars[b], p->series[s], p->time[b][s], p->count[b][s],
                                  total > 0 ? double(p->time[b][s]) * 100.0 / double(total) : 0.0});
            }
        }
        t.messages = p->messages;
        return t;
    }
};

}  // namespace
}  // namespace strobe::plots

using strobe::plots::KernelBreakdownPlot;
STROBE_REGISTER_PLOT(KernelBreakdownPlot)
