// The memory timeline (issue 27; core/analysis/memory_timeline.h) in the workbench:
// - "memory-timeline": bytes over time per (run, rank, device type, device, source), as step lines (the `series`
//   view of analysis `memory-timeline`): Kineto's allocated ("Total Allocated", solid) and reserved ("Total
//   Reserved", dashed); a rocprofv3 or nsys allocation trace's live allocations ("live allocations (rocprofv3)");
//   an smi sampler's used memory ("used (amd-smi)"); each series' peak marked. Time runs from each run's first
//   memory event. Over a sweep each series is named by its run's configuration (its parameter values,
//   configurationLabel; the run's own label when the configuration has repeats) and, with "panels", each
//   configuration gets its own chart (facetPanels) with its own byte scale. The CPU (device -1) is left out unless
//   include_cpu is set or no GPU has events: its bytes sit on another scale.
// - "memory-live-at-peak": the blocks allocated in the trace and still live at each device's peak, with the
//   operators that allocated them (innermost and outermost CPU op), largest first (the `live` view); the subtitle
//   gives the peak and the part allocated before the trace began.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/analysis/memory_timeline.h"
#include "core/analysis/registry.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/sweep_marks.h"
#include "plots/table_picture.h"

namespace strobe::plots {
namespace {

const BoolParam kMemIncludeCpu{"include_cpu", "Include the CPU",
                               "Also draw the CPU's allocations (device -1; drawn anyway when no GPU has [memory] "
                               "events)",
                               false};
const BoolParam kMemReserved =
    BoolParam{"reserved", "Reserved", "Draw the allocator's reserved bytes (dashed) beside the allocated", true}
        .drawOnly();

core::Result<core::Table> memoryView(core::AnalysisContext& ctx, const char* view) {
    core::AnalysisRequest req;
    if (auto all = core::WindowSpec::parse("all", ""); all) req.window = *all;
    req.values["view"] = std::string(view);
    return core::runAnalysis(ctx, "memory-timeline", req);
}

// One device's curve from one source: events in time order.
struct MemSeries {
    std::string label;
    std::string configuration;                   // the run's sweep configuration ("" for one run)
    std::vector<double> t, allocated, reserved;  // t: ns since the run's first memory event
    size_t peak = 0;                             // first largest allocated
    bool kineto = true;                          // the allocator's allocated and reserved (else one curve)
};

// One chart: every series, or (panels, several configurations) one configuration's.
struct MemPanel {
    ChartLayout g;
    QRectF caption;  // empty without panels
    std::string title;
    std::vector<size_t> series;  // indices into MemFrame::series
};

struct MemFrame {
    std::vector<MemSeries> series;
    std::vector<MemPanel> panels;
};

// What a series of `source` shows, after its device: the allocator's curves (Kineto: allocated solid, reserved
// dashed, as the legend says) need nothing; the others say what they measure and which tool wrote it.
std::string sourceTail(const std::string& source, const std::string& tool) {
    if (source == "kineto" || source.empty()) return {};
    if (source == "smi") return fmt::format(" used ({})", tool.empty() ? source : tool);
    return fmt::format(" live allocations ({})", tool.empty() ? source : tool);
}

std::vector<MemSeries> memorySeries(const AnalysisTables& p, bool includeCpu) {
    const core::Table& t = p.combined;
    const bool severalRuns = t.columnIndex("run") >= 0;
    const auto configs = configurationsOf(p);
    std::map<std::string, std::string> configOfRun;  // run label → configuration
    std::map<std::string, size_t> runsOfConfig;
    for (size_t i = 0; i < p.runLabels.size() && i < p.configurations.size(); ++i) {
        configOfRun[p.runLabels[i]] = p.configurations[i];
        runsOfConfig[p.configurations[i]] += 1;
    }
    bool anyGpu = false;
    for (size_t r = 0; r < t.rows.size() && !anyGpu; ++r) anyGpu = cellText(t, r, col::kMtDeviceType) != "cpu";
    // Keyed by (configuration's position, run, rank, device type, device, source): one configuration's series
    // together, configurations in first-run order.
    using Key = std::tuple<size_t, std::string, int64_t, std::string, int64_t, std::string>;
    std::map<Key, MemSeries> byKey;
    std::map<std::string, double> origin;  // run → first event
    for (size_t r = 0; r < t.rows.size(); ++r) {
        const std::string run = severalRuns ? cellText(t, r, col::kRun) : std::string();
        auto& o = origin.try_emplace(run, INFINITY).first->second;
        o = std::min(o, cellNumber(t, r, col::kMtTs));
    }
    for (size_t r = 0; r < t.rows.size(); ++r) {
        const std::string type = cellText(t, r, col::kMtDeviceType);
        if (type == "cpu" && anyGpu && !includeCpu) continue;
        const std::string run = severalRuns ? cellText(t, r, col::kRun) : std::string();
        const std::string config = severalRuns ? configOfRun[run] : std::string();
        const size_t configAt = size_t(std::find(configs.begin(), configs.end(), config) - configs.begin());
        const auto rank = int64_t(cellNumber(t, r, col::kRank));
        const auto dev = int64_t(cellNumber(t, r, col::kMtDevice));
        const std::string src = cellText(t, r, col::kMtSource);
        MemSeries& s = byKey[std::make_tuple(configAt, run, rank, type, dev, src)];
        if (s.t.empty()) {
            s.configuration = config;
            s.kineto = src == "kineto" || src.empty();
            s.label = fmt::format("{}:{}{}", type, dev, sourceTail(src, cellText(t, r, col::kMtTool)));
        }
        s.t.push_back(cellNumber(t, r, col::kMtTs) - origin[run]);
        s.allocated.push_back(cellNumber(t, r, col::kMtAllocated));
        s.reserved.push_back(cellNumber(t, r, col::kMtReserved));
    }
    // Ranks in the label only when a run's series span several; the run named by its configuration (its parameter
    // values), by its own label when its configuration has several runs (repeats).
    std::map<std::string, std::set<int64_t>> ranksOfRun;
    for (const auto& [key, s] : byKey) ranksOfRun[std::get<1>(key)].insert(std::get<2>(key));
    std::vector<MemSeries> out;
    for (auto& [key, s] : byKey) {
        const auto& [configAt, run, rank, type, dev, src] = key;
        if (ranksOfRun[run].size() > 1) s.label = (rank < 0 ? "host " : fmt::format("rank {} ", rank)) + s.label;
        if (!run.empty()) s.label = (runsOfConfig[s.configuration] > 1 ? run : s.configuration) + " / " + s.label;
        for (size_t i = 1; i < s.allocated.size(); ++i)
            if (s.allocated[i] > s.allocated[s.peak]) s.peak = i;
        out.push_back(std::move(s));
    }
    return out;
}

std::string bytesText(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    double v = b;
    while (std::fabs(v) >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
    return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.2f} {}", v, units[u]);
}

const BoolParam kMemPanels =
    BoolParam{"panels", "One panel per configuration",
              "With several configurations (a sweep), one chart per configuration, each with its own byte scale "
              "(else every series on one chart)",
              true}
        .drawOnly();

class MemoryTimelinePlot final : public ChartPlot<AnalysisTables, MemFrame, AnalysisPlot> {
public:
    MemoryTimelinePlot()
        : ChartPlot({"memory-timeline", "Memory timeline",
                     "Device memory over time per device, from each memory source: the allocator's allocated and "
                     "reserved bytes ([memory] events, profile_memory=True), the live allocations of rocprofv3 and "
                     "nsys allocation traces, the smi samplers' used memory; each series' peak marked. Over a sweep, "
                     "one series (and panel) per configuration, labelled with its parameter values.",
                     95}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override {
        return {kMemIncludeCpu.spec(), kMemReserved.spec(), kMemPanels.spec(), kLegend.spec()};
    }

protected:
    bool namesConfigurations() const override { return true; }

    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec&,
                                      const ParamValues&) const override {
        return memoryView(ctx, "series");
    }

    std::optional<std::string> nothingToDraw(const AnalysisTables& p, const ParamValues&) const override {
        if (!p.combined.rows.empty()) return std::nullopt;
        return emptyReason(p.combined.messages,
                           "no memory events ([memory] with profile_memory=True, a rocprofv3 or nsys allocation "
                           "trace, or smi used memory)");
    }

    MemFrame frame(Canvas& c, const AnalysisTables& p, const ParamValues& v) const override {
        MemFrame f;
        f.series = memorySeries(p, kMemIncludeCpu(v));
        std::string peaks;
        for (const auto& s : f.series)
            peaks += fmt::format("{}{} peak {} ({} B)", peaks.empty() ? "" : "; ", s.label,
                                 bytesText(s.allocated[s.peak]), int64_t(s.allocated[s.peak]));
        QRectF area = drawTitle(c, c.rect, title(), peaks);
        std::vector<LegendEntry> legend;
        bool anyKineto = false;
        for (size_t i = 0; i < f.series.size(); ++i) {
            legend.push_back({f.series[i].label, seriesColor(int(i)), true});
            anyKineto = anyKineto || f.series[i].kineto;
        }
        if (anyKineto) {
            legend.push_back({"allocated", c.theme().foreground, true, Qt::SolidLine});
            if (kMemReserved(v)) legend.push_back({"reserved", c.theme().foreground, true, Qt::DashLine});
        }
        area = drawLegend(c, area, legend, legendMode(v));
        // The panels: one per configuration when asked and there are several, else one.
        std::vector<std::string> groups;
        for (const auto& s : f.series)
            if (std::find(groups.begin(), groups.end(), s.configuration) == groups.end()) groups.push_back(s.configuration);
        const bool panels = kMemPanels(v) && groups.size() > 1;
        if (!panels) groups = {std::string()};
        const QFontMetricsF fm(c.painter.font());
        const auto rects = facetPanels(area, groups.size());
        for (size_t k = 0; k < groups.size(); ++k) {
            MemPanel panel;
            QRectF chart = rects[k];
            if (panels) {
                panel.title = groups[k];
                panel.caption = QRectF(chart.left() + 8, chart.top(), chart.width() - 16, fm.height());
                chart.setTop(chart.top() + fm.height() + 2);
            }
            double tmax = 1, ymax = 1;
            for (size_t i = 0; i < f.series.size(); ++i) {
                const MemSeries& s = f.series[i];
                if (panels && s.configuration != groups[k]) continue;
                panel.series.push_back(i);
                tmax = std::max(tmax, s.t.back());
                for (size_t j = 0; j < s.t.size(); ++j)
                    ymax = std::max({ymax, s.allocated[j], s.kineto && kMemReserved(v) ? s.reserved[j] : 0.0});
            }
            panel.g = layoutChart(fm, chart,
                                  ChartAxis::linear(0, tmax * 1.02, TickUnit::Duration,
                                                    "time since the run's first memory event"),
                                  ChartAxis::linear(0, ymax * 1.08, TickUnit::Number, "bytes"));
            f.panels.push_back(std::move(panel));
        }
        return f;
    }

    void drawMarks(Canvas& c, const MemFrame& f, const AnalysisTables&, const ParamValues& v) const override {
        auto& painter = c.painter;
        for (const MemPanel& panel : f.panels) {
            drawAxes(c, panel.g);
            if (!panel.title.empty()) {
                painter.setPen(c.theme().foreground);
                painter.drawText(panel.caption, Qt::AlignLeft | Qt::AlignVCenter,
                                 elided(painter, panel.title, panel.caption.width()));
            }
            painter.save();
            painter.setClipRect(panel.g.plot.adjusted(-1, -1, 1, 1));
            const double tEnd = panel.g.x.hi;
            for (size_t k : panel.series) {
                const MemSeries& s = f.series[k];
                const QColor color = seriesColor(int(k));
                auto steps = [&](const std::vector<double>& y) {
                    QPolygonF line;
                    for (size_t i = 0; i < s.t.size(); ++i) {
                        if (i > 0) line << QPointF(panel.g.xAt(s.t[i]), panel.g.yAt(y[i - 1]));
                        line << QPointF(panel.g.xAt(s.t[i]), panel.g.yAt(y[i]));
                    }
                    line << QPointF(panel.g.xAt(tEnd), panel.g.yAt(y.back()));
                    return line;
                };
                if (s.kineto && kMemReserved(v)) {
                    painter.setPen(QPen(color, 1.2, Qt::DashLine));
                    painter.drawPolyline(steps(s.reserved));
                }
                painter.setPen(QPen(color, 1.6));
                painter.drawPolyline(steps(s.allocated));
                // The peak: a dot and its value, kept inside the plot.
                const QPointF at(panel.g.xAt(s.t[s.peak]), panel.g.yAt(s.allocated[s.peak]));
                painter.setRenderHint(QPainter::Antialiasing, true);
                painter.setBrush(color);
                painter.drawEllipse(at, 4, 4);
                painter.setBrush(Qt::NoBrush);
                const QString text = QString::fromStdString("peak " + bytesText(s.allocated[s.peak]));
                const QFontMetricsF fm(painter.font());
                const double w = fm.horizontalAdvance(text);
                const double x = std::max(panel.g.plot.left() + 2, std::min(at.x() + 6, panel.g.plot.right() - w - 2));
                const double y = std::max(at.y() - 6, panel.g.plot.top() + fm.ascent() + 2);
                painter.drawText(QPointF(x, y), text);
                painter.setRenderHint(QPainter::Antialiasing, false);
            }
            painter.restore();
        }
    }

    std::optional<HitInfo> hitMarks(const MemFrame& f, const AnalysisTables&, const ParamValues&,
                                    QPointF at) const override {
        for (const MemPanel& panel : f.panels) {
            const ChartLayout& g = panel.g;
            if (!g.plot.contains(at)) continue;
            const double t = g.x.lo + (at.x() - g.plot.left()) / g.plot.width() * (g.x.hi - g.x.lo);
            std::optional<HitInfo> hit;
            double best = INFINITY;
            for (size_t k : panel.series) {
                const MemSeries& s = f.series[k];
                const auto it = std::upper_bound(s.t.begin(), s.t.end(), t);
                if (it == s.t.begin()) continue;
                const size_t i = size_t(it - s.t.begin()) - 1;
                const double d = std::fabs(g.yAt(s.allocated[i]) - at.y());
                if (d >= best || d > 24) continue;
                best = d;
                HitInfo h;
                h.title = s.label;
                h.fields = {{"time", formatDuration(s.t[i])},
                            {s.kineto ? "allocated" : "bytes",
                             fmt::format("{} ({} B)", bytesText(s.allocated[i]), int64_t(s.allocated[i]))}};
                if (s.kineto)
                    h.fields.push_back(
                        {"reserved", fmt::format("{} ({} B)", bytesText(s.reserved[i]), int64_t(s.reserved[i]))});
                h.fields.push_back({"peak", bytesText(s.allocated[s.peak])});
                if (!s.configuration.empty()) h.fields.push_back({"configuration", s.configuration});
                hit = h;
            }
            return hit;
        }
        return std::nullopt;
    }
};

// The live-at-peak table's messages: per device, the peak and how much of it the trace saw allocated.
void addPeakMessages(core::Table& live, const core::Table& devices) {
    std::vector<std::string> lines;
    for (size_t r = 0; r < devices.rows.size(); ++r)
        lines.push_back(fmt::format(
            "rank {} {}:{}: peak {} B at {} ns; {} blocks live ({} B), {} B allocated before the trace",
            int64_t(cellNumber(devices, r, col::kRank)), cellText(devices, r, col::kMtDeviceType),
            int64_t(cellNumber(devices, r, col::kMtDevice)), int64_t(cellNumber(devices, r, col::kMtPeakAllocated)),
            int64_t(cellNumber(devices, r, col::kMtPeakTs)), int64_t(cellNumber(devices, r, col::kMtLiveBlocks)),
            int64_t(cellNumber(devices, r, col::kMtLiveBytes)), int64_t(cellNumber(devices, r, col::kMtPreTraceBytes))));
    live.messages.insert(live.messages.begin(), lines.begin(), lines.end());
}

const RegexParam kLiveFilter =
    RegexParam{"filter", "Name filter", "Only rows whose name matches this regular expression (empty: all)", ""}
        .drawOnly();
const IntParam kLiveMaxRows =
    IntParam{"max_rows", "Rows",
             "Rows drawn in pictures and exports (the table on screen and the CSV have every row that passes the "
             "filter)",
             30}
        .bounded(1, 500, 5)
        .drawOnly();
const std::vector<std::string> kLiveSortColumns{"bytes", "ts_ns", "op", "top_op", "device", "addr"};

class MemoryLiveAtPeakPlot final : public AnalysisPlot {
public:
    MemoryLiveAtPeakPlot()
        : AnalysisPlot({"memory-live-at-peak", "Memory live at the peak",
                        "The blocks allocated in the trace and still live at each device's memory peak, with the "
                        "operators that allocated them (innermost and outermost CPU op), largest first.",
                        96}) {}
    bool isTable() const override { return true; }

    std::vector<ParamSpec> parameters(const RunSet&) const override {
        return {kSortBy.withDefault("bytes").spec(kLiveSortColumns), kDescending.spec(), kLiveFilter.spec(),
                kLiveMaxRows.spec()};
    }

    static std::vector<size_t> view(const core::Table& t, const ParamValues& v) {
        return tableView(t, kLiveFilter(v), kSortBy(v), kDescending(v), "op");
    }
    static TablePicture picture(const core::Table& t, const ParamValues& v) {
        TablePicture how;
        const auto shown = displayColumns(t);
        for (const char* k : {"run", "rank", "device_type", "device", "bytes", "op", "top_op", "ts_ns"})
            if (std::find(shown.begin(), shown.end(), k) != shown.end()) how.columns.push_back(k);
        how.nameColumn = "op";
        how.sortKey = kSortBy(v);
        how.descending = kDescending(v);
        how.maxRows = size_t(kLiveMaxRows(v));
        return how;
    }

    std::optional<std::string> emptyMessageTyped(const AnalysisTables& p, const ParamValues& values) const override {
        if (!view(p.combined, values).empty()) return std::nullopt;
        return emptyReason(p.combined.messages, "no block live at the peak");
    }

    void drawTyped(Canvas& c, const AnalysisTables& p, const ParamValues& values) const override {
        const auto& t = p.combined;
        const auto rows = view(t, values);
        std::string peaks;
        for (const auto& m : t.messages)
            if (m.find(": peak ") != std::string::npos && m.find("cpu:") == std::string::npos)
                peaks += (peaks.empty() ? "" : " | ") + m;
        const QRectF area = drawTitle(c, c.rect, title(), peaks.empty() ? "no GPU [memory] events" : peaks);
        if (rows.empty()) {
            drawMessage(c, area, t.messages.empty() ? "no block live at the peak" : t.messages.front());
            return;
        }
        drawTablePicture(c, area, t, rows, picture(t, values));
    }

    std::optional<HitInfo> hitTestTyped(const AnalysisTables& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        LayoutCanvas lc(rect);
        const QRectF area = drawTitle(lc.canvas, rect, title(), "x");
        const auto rows = view(p.combined, values);
        const auto how = picture(p.combined, values);
        const auto k = tablePictureRowAt(area, pt, rows.size(), how);
        if (!k) return std::nullopt;
        return tablePictureHit(p.combined, rows[*k], how);
    }

    core::Table tableTyped(const AnalysisTables& p, const ParamValues& values) const override {
        return tableRows(p.combined, view(p.combined, values));
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec&,
                                      const ParamValues&) const override {
        auto live = memoryView(ctx, "live");
        if (!live) return live;
        auto devices = memoryView(ctx, "devices");
        if (!devices) return devices.error();
        addPeakMessages(*live, *devices);
        return live;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(MemoryTimelinePlot)
STROBE_REGISTER_PLOT(MemoryLiveAtPeakPlot)

}  // namespace strobe::plots
