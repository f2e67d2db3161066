// The memory timeline (issue 27; core/analysis/memory_timeline.h) in the workbench:
// - "memory-timeline": allocated and reserved bytes over time per (run, rank, device type, device), as step lines
//   (the `series` view of analysis `memory-timeline`: each [memory] event's "Total Allocated" and "Total Reserved"),
//   each device's peak marked. Time runs from each run's first [memory] event. The CPU (device -1) is left out
//   unless include_cpu is set or no GPU has events: its bytes sit on another scale.
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

// One device's curve: events in time order.
struct MemSeries {
    std::string label;
    std::vector<double> t, allocated, reserved;  // t: ns since the run's first [memory] event
    size_t peak = 0;                             // first largest allocated
};

struct MemFrame {
    ChartLayout g;
    std::vector<MemSeries> series;
};

std::vector<MemSeries> memorySeries(const AnalysisTables& p, bool includeCpu) {
    const core::Table& t = p.combined;
    const bool severalRuns = t.columnIndex("run") >= 0;
    bool anyGpu = false;
    for (size_t r = 0; r < t.rows.size() && !anyGpu; ++r) anyGpu = cellText(t, r, col::kMtDeviceType) != "cpu";
    std::map<std::tuple<std::string, int64_t, std::string, int64_t, std::string>, MemSeries> byKey;
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
        const auto rank = int64_t(cellNumber(t, r, col::kRank));
        const auto dev = int64_t(cellNumber(t, r, col::kMtDevice));
        const std::string src = cellText(t, r, col::kMtSource);
        // The source in the label when it is not Kineto's allocator (rocprofv3 allocations, smi used memory).
        const std::string tail = src == "kineto" || src.empty() ? std::string() : " (" + src + ")";
        MemSeries& s = byKey[std::make_tuple(run, rank, type, dev, tail)];
        if (s.label.empty())
            s.label = fmt::format("{}{}:{}{}", run.empty() ? "" : run + " / ", type, dev, tail);
        s.t.push_back(cellNumber(t, r, col::kMtTs) - origin[run]);
        s.allocated.push_back(cellNumber(t, r, col::kMtAllocated));
        s.reserved.push_back(cellNumber(t, r, col::kMtReserved));
    }
    // Ranks in the label only when the series span several.
    std::map<std::string, std::set<int64_t>> ranksOfRun;
    for (const auto& [key, s] : byKey) ranksOfRun[std::get<0>(key)].insert(std::get<1>(key));
    std::vector<MemSeries> out;
    for (auto& [key, s] : byKey) {
        const auto& [run, rank, type, dev, tail] = key;
        if (ranksOfRun[run].size() > 1)
            s.label = rank < 0 ? fmt::format("{}host {}:{}{}", run.empty() ? "" : run + " / ", type, dev, tail)
                               : fmt::format("{}rank {} {}:{}{}", run.empty() ? "" : run + " / ", rank, type, dev, tail);
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

class MemoryTimelinePlot final : public ChartPlot<AnalysisTables, MemFrame, AnalysisPlot> {
public:
    MemoryTimelinePlot()
        : ChartPlot({"memory-timeline", "Memory timeline",
                     "Allocated and reserved bytes over time per device, from the allocator's [memory] events "
                     "(profile_memory=True), each device's peak marked.",
                     95}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override {
        return {kMemIncludeCpu.spec(), kMemReserved.spec(), kLegend.spec()};
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec&,
                                      const ParamValues&) const override {
        return memoryView(ctx, "series");
    }

    std::optional<std::string> nothingToDraw(const AnalysisTables& p, const ParamValues&) const override {
        if (!p.combined.rows.empty()) return std::nullopt;
        return emptyReason(p.combined.messages, "no [memory] events (record with profile_memory=True)");
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
        for (size_t i = 0; i < f.series.size(); ++i) legend.push_back({f.series[i].label, seriesColor(int(i)), true});
        legend.push_back({"allocated", c.theme().foreground, true, Qt::SolidLine});
        if (kMemReserved(v)) legend.push_back({"reserved", c.theme().foreground, true, Qt::DashLine});
        area = drawLegend(c, area, legend, legendMode(v));
        double tmax = 1, ymax = 1;
        for (const auto& s : f.series) {
            tmax = std::max(tmax, s.t.back());
            for (size_t i = 0; i < s.t.size(); ++i)
                ymax = std::max({ymax, s.allocated[i], kMemReserved(v) ? s.reserved[i] : 0.0});
        }
        f.g = layoutChart(QFontMetricsF(c.painter.font()), area,
                          ChartAxis::linear(0, tmax * 1.02, TickUnit::Duration, "time since the first [memory] event"),
                          ChartAxis::linear(0, ymax * 1.08, TickUnit::Number, "bytes"));
        return f;
    }

    void drawMarks(Canvas& c, const MemFrame& f, const AnalysisTables&, const ParamValues& v) const override {
        drawAxes(c, f.g);
        auto& painter = c.painter;
        painter.save();
        painter.setClipRect(f.g.plot.adjusted(-1, -1, 1, 1));
        const double tEnd = f.g.x.hi;
        for (size_t k = 0; k < f.series.size(); ++k) {
            const MemSeries& s = f.series[k];
            const QColor color = seriesColor(int(k));
            auto steps = [&](const std::vector<double>& y) {
                QPolygonF line;
                for (size_t i = 0; i < s.t.size(); ++i) {
                    if (i > 0) line << QPointF(f.g.xAt(s.t[i]), f.g.yAt(y[i - 1]));
                    line << QPointF(f.g.xAt(s.t[i]), f.g.yAt(y[i]));
                }
                line << QPointF(f.g.xAt(tEnd), f.g.yAt(y.back()));
                return line;
            };
            if (kMemReserved(v)) {
                painter.setPen(QPen(color, 1.2, Qt::DashLine));
                painter.drawPolyline(steps(s.reserved));
            }
            painter.setPen(QPen(color, 1.6));
            painter.drawPolyline(steps(s.allocated));
            // The peak: a dot and its value.
            const QPointF at(f.g.xAt(s.t[s.peak]), f.g.yAt(s.allocated[s.peak]));
            painter.setRenderHint(QPainter::Antialiasing, true);
            painter.setBrush(color);
            painter.drawEllipse(at, 4, 4);
            painter.setBrush(Qt::NoBrush);
            const QString text = QString::fromStdString("peak " + bytesText(s.allocated[s.peak]));
            const double w = QFontMetricsF(painter.font()).horizontalAdvance(text);
            const double x = std::min(at.x() + 6, f.g.plot.right() - w - 2);
            painter.drawText(QPointF(x, at.y() - 6), text);
            painter.setRenderHint(QPainter::Antialiasing, false);
        }
        painter.restore();
    }

    std::optional<HitInfo> hitMarks(const MemFrame& f, const AnalysisTables&, const ParamValues&,
                                    QPointF at) const override {
        if (!f.g.plot.contains(at)) return std::nullopt;
        const double t = f.g.x.lo + (at.x() - f.g.plot.left()) / f.g.plot.width() * (f.g.x.hi - f.g.x.lo);
        std::optional<HitInfo> hit;
        double best = INFINITY;
        for (const MemSeries& s : f.series) {
            const auto it = std::upper_bound(s.t.begin(), s.t.end(), t);
            if (it == s.t.begin()) continue;
            const size_t i = size_t(it - s.t.begin()) - 1;
            const double d = std::fabs(f.g.yAt(s.allocated[i]) - at.y());
            if (d >= best || d > 24) continue;
            best = d;
            HitInfo h;
            h.title = s.label;
            h.fields = {{"time", formatDuration(s.t[i])},
                        {"allocated", fmt::format("{} ({} B)", bytesText(s.allocated[i]), int64_t(s.allocated[i]))},
                        {"reserved", fmt::format("{} ({} B)", bytesText(s.reserved[i]), int64_t(s.reserved[i]))},
                        {"peak", bytesText(s.allocated[s.peak])}};
            hit = h;
        }
        return hit;
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
