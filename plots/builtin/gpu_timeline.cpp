// GPU timeline: ranks × streams as lanes, kernels coloured by Strobe category, steps, gpu_user_annotation
// ranges, training phases (forward / backward / optimizer, vLLM prefill / decode) and transformer layers (from
// core/analysis/phases: annotations, else repeated attention + GEMM kernel patterns) as bands. Zoom/pan through the drawing parameters of plots/timeline_view.h.
//
// Level of detail: prepare() builds, per lane, arrays sorted by start with a running maximum of ends, so that
// draw() finds the visible items with two binary searches (overlapping items included). Items narrower than a
// pixel are merged into one rect per pixel column (coloured by the longest item in it); wider items are drawn
// one by one. Kernels that overlap on one stream go to sub-lanes, so none is hidden behind another.
//
// Several runs: each run's time starts at its own origin; `align` (none | first step | step N) shifts each run so
// that the chosen ProfilerStep starts at 0 (times before it are negative), says so in a subtitle and marks 0 with a
// dashed line; a run without that step keeps its origin and the subtitle names it.

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <regex>
#include <set>

#include <QFontMetricsF>
#include <QPainterPath>

#include <fmt/format.h>

#include "core/analysis/columns.h"
#include "core/analysis/phases.h"
#include "plots/builtin/timeline_find.h"
#include "plots/builtin/timeline_model.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"
#include "plots/timeline_view.h"

namespace strobe::plots {
namespace {

using namespace timeline;

const BoolParam kIncludeMemory{"include_memory", "Memcpy/memset", "Show memcpy and memset activities next to kernels",
                               true};
const EnumParam kColorBy =
    EnumParam{"color_by", "Colour by", "Kernel category (Strobe classification) or kernel name", "category"}
        .choices({"category", "name"})
        .drawOnly();
const EnumParam kLanesBy =
    EnumParam{"lanes_by", "GPU lanes by",
              "rocprof sources: one lane per agent and HSA queue (what the GPU runs in order, whatever HIP stream "
              "submitted it) or one per HIP stream. Sources without queues (Kineto, nsys) lane by stream either way",
              "queue"}
        .choices({"queue", "stream"});
const DoubleParam kOverlapTolerance =
    DoubleParam{"overlap_tolerance_us", "Overlap tolerance",
                "Consecutive activities of one stream or queue whose timestamps overlap by at most this stay in its "
                "lane (an in-order stream's clock jitter), and the timeline's messages say how many; longer overlaps "
                "(concurrent kernels) open sub-lanes",
                1.0}
        .bounded(0.0, 1000.0, 0.1)
        .unit("µs");
const BoolParam kShowSteps = BoolParam{"show_steps", "Steps", "Show ProfilerStep#N bands", true}.drawOnly();
const BoolParam kShowAnnotations =
    BoolParam{"show_annotations", "GPU annotations", "Show gpu_user_annotation ranges as bands", true}.drawOnly();
// Choices and default from the data (telemetryMetrics): the metrics the loaded runs hold, shown by default.
const StringListParam kTelemetry{
    "telemetry", "Telemetry lanes",
    "Telemetry metrics drawn as lanes under the ranks of their host (power_w, sclk_mhz, temp_c, util_pct, "
    "cpu.util_pct, mem_used_mib, ...; empty: none), from nvidia-smi, amd-smi, rocm-smi or Strobe's sampler opened "
    "with the traces. Offered: the metrics the runs hold; shown by default: Strobe's metrics and the host-wide ones",
    {}};
const BoolParam kShowPhases =
    BoolParam{"show_phases", "Phases and layers",
              "Show forward / backward / optimizer (or vLLM prefill / decode) and transformer layers as bands", true}
        .drawOnly();
const BoolParam kMemoryLanes{"memory_lanes", "Memory lanes",
                             "Allocated and reserved bytes per device under each rank's streams, from the [memory] "
                             "events of a trace recorded with profile_memory=True",
                             false};
const BoolParam kCpuLanes{"cpu_lanes", "CPU lanes",
                          "Show each rank's CPU threads under its GPU lanes: operators, annotations, python functions "
                          "and runtime calls at their nesting depth",
                          true};
const StringListParam kExpandedThreads =
    StringListParam{"expanded_threads", "Expanded CPU threads",
                    "CPU threads shown with every nesting depth (others: depth 0 only); click a thread's label to "
                    "toggle",
                    {}}
        .drawOnly();
const StringListParam kCollapsedRanks =
    StringListParam{"collapsed_ranks", "Collapsed ranks",
                    "Ranks drawn as one summary row of all their streams (\"rank 0\", or \"<run> / rank 0\" when "
                    "comparing); click a rank's first label to toggle",
                    {}}
        .drawOnly();

const EnumParam kAlign =
    EnumParam{"align", "Time zero",
              "What t = 0 is on each run's axis: the run's first event of any source (CPU or GPU), or the start of a "
              "ProfilerStep (compared runs recorded at different wall-clock times line up); a run without that step "
              "keeps its first event",
              "first event"}
        .formerChoice("none", "first event");

// The telemetry lanes parameter of `runs`: the metrics they hold, offered and shown by default (a metric the data
// lacks is neither offered nor kept ticked: Param::specFromData).
ParamSpec timelineTelemetrySpec(const RunSet& runs) {
    TelemetryMetrics m = telemetryMetrics(runs);
    return kTelemetry.specFromData(std::move(m.all), std::move(m.shown));
}

// The align choices for `runs`: none, first step, and "step N" for every step number the runs have.
std::vector<std::string> alignChoices(const RunSet& runs) {
    std::set<int64_t> numbers;
    for (const auto& run : runs)
        if (run.dataset)
            for (const auto& r : run.dataset->ranks)
                if (r)
                    for (size_t k = 0; k < r->steps.size(); ++k) numbers.insert(r->steps.number[k]);
    std::vector<std::string> out{"first event", "first step"};
    for (int64_t n : numbers) out.push_back(fmt::format("step {}", n));
    return out;
}

constexpr double kMinGutter = 110;  // lane labels: as wide as the longest, at least this, at most 40 % of the width
constexpr double kOverviewH = 16;   // the overview strip of the whole run, above the axis
constexpr double kAxisH = 22;
constexpr double kLegendH = 22;
constexpr double kNoteH = 18;  // the alignment subtitle
constexpr double kMaxFillLaneH = 48;  // lane height when few lanes fill the view

class GpuTimelinePlot final : public TypedPlot<TimelinePrepared>, public TimelineNavigation {
public:
    GpuTimelinePlot()
        : TypedPlot(
              {"gpu-timeline", "GPU timeline",
               "Kernels, memcpy and memset of every rank and stream on a time axis, coloured by category, with steps "
               "and GPU annotations as bands. Wheel zooms, drag pans, hover shows the kernel.",
               10}) {}
    const TimelineNavigation* timeline() const override { return this; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        std::vector<ParamSpec> s{ranksSpec(runs, "Ranks to show (empty: all)"),
                                 kIncludeMemory.spec(),
                                 kNameFilter.spec(),
                                 kColorBy.spec(),
                                 kShowSteps.spec(),
                                 kShowAnnotations.spec(),
                                 kShowPhases.spec(),
                                 kLaneHeight.spec(),
                                 timelineTelemetrySpec(runs),
                                 kCpuLanes.spec(),
                                 kMemoryLanes.spec(),
                                 kLanesBy.spec(),
                                 kOverlapTolerance.spec(),
                                 kExpandedThreads.spec(),
                                 kCollapsedRanks.spec(),
                                 kLegend.withDefault("full").spec()};
        s.push_back(kAlign.spec(alignChoices(runs)));
        for (auto& v : timelineViewSpecs()) s.push_back(v);
        return s;
    }

    core::Result<std::shared_ptr<TimelinePrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                 const core::CancelToken& cancel,
                                                                 const core::ProgressFn& progress) const override {
        LaneOptions o{kRanks(values), kIncludeMemory(values), kNameFilter(values), kTelemetry(values),
                      kCpuLanes(values), parseStepAlign(kAlign(values))};
        o.byQueue = kLanesBy(values) != "stream";
        o.memoryLanes = kMemoryLanes(values);
        o.overlapToleranceNs = std::llround(std::max(0.0, kOverlapTolerance(values)) * 1000.0);
        return buildTimelineLanes(runs, o, cancel, progress);
    }

    struct Layout {
        QRectF area;      // plot area (time runs left to right), below the axis
        QRectF axis;
        QRectF legend;
        QRectF overview;  // empty when there is nothing to show in it
        QRectF note;      // the alignment subtitle (empty height when the runs are not aligned)
        double gutter = kMinGutter;
        double laneH = 18;
        std::vector<int> visibleLanes;  // lane indices drawn, top to bottom
        std::vector<int> rowOf;         // per lane: the row (among all, not only visible) that shows it, -1 hidden
        int totalLanes = 0;
        int first = 0;
        int fits = 0;
        TimelineGeometry geo;
    };

    static bool listed(const std::vector<std::string>& list, const std::string& key) {
        return !key.empty() && std::find(list.begin(), list.end(), key) != list.end();
    }
    // Whether lane `li` is the first of its rank (the row whose label toggles the rank's collapse).
    static bool firstOfRank(const TimelinePrepared& p, size_t li) {
        return li == 0 || p.lanes[li - 1].group != p.lanes[li].group || p.lanes[li - 1].run != p.lanes[li].run;
    }
    // Whether a lane's kind is switched off by the band parameters.
    static bool kindHidden(LaneKind k, const ParamValues& v) {
        return (k == LaneKind::Steps && !kShowSteps(v)) || (k == LaneKind::Annotation && !kShowAnnotations(v)) ||
               ((k == LaneKind::Phases || k == LaneKind::Layers) && !kShowPhases(v));
    }

    // The lanes whose items are shown (a collapsed thread: depth 0 only), for search and the measured range.
    static std::vector<int> shownLanes(const TimelinePrepared& p, const ParamValues& v) {
        const auto expanded = kExpandedThreads(v);
        std::vector<int> out;
        for (size_t i = 0; i < p.lanes.size(); ++i) {
            const auto& l = p.lanes[i];
            if (kindHidden(l.kind, v) || (l.kind == LaneKind::Cpu && l.sub > 0 && !listed(expanded, l.thread)))
                continue;
            out.push_back(int(i));
        }
        return out;
    }

    // The rows, top to bottom (the lane each draws; a collapsed rank: its first lane, drawn as a summary of all its
    // streams), and for each lane the row that shows it: its own, its thread's depth-0 row when the thread is
    // collapsed, its rank's summary row when the rank is.
    struct Rows {
        std::vector<int> lanes;
        std::vector<int> rowOf;
    };
    static Rows shownRows(const TimelinePrepared& p, const ParamValues& v) {
        const auto expanded = kExpandedThreads(v);
        const auto collapsed = kCollapsedRanks(v);
        Rows out;
        out.rowOf.assign(p.lanes.size(), -1);
        int threadRow = -1;  // the row of the current thread's depth-0 lane
        for (size_t i = 0; i < p.lanes.size(); ++i) {
            const Lane& l = p.lanes[i];
            if (listed(collapsed, l.group)) {
                if (firstOfRank(p, i)) out.lanes.push_back(int(i));
                out.rowOf[i] = int(out.lanes.size()) - 1;
                continue;
            }
            const bool sameThread = threadRow >= 0 && l.kind == LaneKind::Cpu &&
                                    p.lanes[size_t(out.lanes[size_t(threadRow)])].thread == l.thread;
            if (l.kind == LaneKind::Cpu && l.sub > 0 && sameThread && !listed(expanded, l.thread)) {
                out.rowOf[i] = threadRow;
                continue;
            }
            if (kindHidden(l.kind, v)) continue;
            out.lanes.push_back(int(i));
            out.rowOf[i] = int(out.lanes.size()) - 1;
            if (l.kind == LaneKind::Cpu && !sameThread) threadRow = out.rowOf[i];
        }
        return out;
    }
    static bool isSummaryRow(const TimelinePrepared& p, const ParamValues& v, size_t li) {
        return firstOfRank(p, li) && listed(kCollapsedRanks(v), p.lanes[li].group);
    }

    static Layout layout(const TimelinePrepared& p, const ParamValues& v, const QRectF& rect) {
        Layout L;
        L.laneH = double(kLaneHeight(v));
        // A legend row at the bottom when colouring by category.
        // A legend at the bottom when colouring by category: one row, or every entry in the rows they need.
        double legendH = 0;
        if (kColorBy(v) == "category" && !p.legend.empty()) {
            const QFontMetricsF fm{QFont()};
            const auto rows = legendFit(fm, rect.width(), p.legend, legendMode(v), 1).rows;
            legendH = std::max(kLegendH, double(rows) * legendRowHeight(fm) + 6);
        }
        const double noteH = p.alignNote.empty() && p.clockNote.empty() ? 0 : kNoteH;
        L.note = QRectF(rect.left() + 4, rect.top() + 2, rect.width() - 8, noteH);
        QRectF inner = rect.adjusted(0, noteH, -4, -2 - legendH);
        L.legend = QRectF(rect.left(), inner.bottom(), rect.width(), legendH);
        auto rows = shownRows(p, v);
        const auto& shown = rows.lanes;
        L.gutter = gutterWidth(p, shown, rect.width());
        const double overviewH = p.overview.empty() ? 0 : kOverviewH;
        L.overview = QRectF(inner.left() + L.gutter, inner.top() + 4, inner.width() - L.gutter, overviewH);
        L.axis = QRectF(inner.left() + L.gutter, inner.top() + 4 + overviewH, inner.width() - L.gutter, kAxisH);
        L.area = QRectF(L.axis.left(), L.axis.bottom(), L.axis.width(), std::max(0.0, inner.bottom() - L.axis.bottom()));
        L.totalLanes = int(shown.size());
        // Few lanes fill the view: each grows to its share of the height, up to kMaxFillLaneH (taller bars read
        // no better); many lanes keep the set height and scroll.
        if (L.totalLanes > 0)
            L.laneH = std::max(L.laneH, std::min(kMaxFillLaneH, std::floor(L.area.height() / L.totalLanes)));
        L.fits = std::max(1, int(L.area.height() / L.laneH));
        int first = int(std::clamp<long long>(kLaneScroll(v), 0, std::max(0, L.totalLanes - L.fits)));
        L.first = first;
        for (int i = first; i < L.totalLanes && i < first + L.fits; ++i) L.visibleLanes.push_back(shown[size_t(i)]);
        L.rowOf = std::move(rows.rowOf);
        auto view = effectiveView(v, p.fullStart, p.fullEnd);
        L.geo.plotArea = L.area;
        L.geo.originNs = p.runOrigin.empty() ? 0 : p.runOrigin[0];
        L.geo.viewStart = view.start;
        L.geo.viewEnd = view.end;
        L.geo.fullStart = p.fullStart;
        L.geo.fullEnd = p.fullEnd;
        L.geo.laneCount = L.totalLanes;
        L.geo.visibleLanes = L.fits;
        L.geo.laneHeight = L.laneH;
        L.geo.axisRect = L.axis;
        L.geo.overviewRect = L.overview;
        L.geo.legendRect = L.legend;
        return L;
    }

    // The lane-label gutter: the widest label of the shown lanes (with the font the labels are drawn with) plus
    // padding, at least kMinGutter, at most 40 % of the width (longer labels are elided).
    static double gutterWidth(const TimelinePrepared& p, const std::vector<int>& shown, double width) {
        const QFontMetricsF fm{QFont()};
        double widest = fm.horizontalAdvance(QStringLiteral("0 = first GPU activity"));  // the axis gutter's note
        size_t longest = 0;
        for (int i : shown) longest = std::max(longest, p.lanes[size_t(i)].label.size());
        for (int i : shown) {
            const auto& label = p.lanes[size_t(i)].label;
            if (label.size() + 8 < longest) continue;  // cannot be the widest by far: skip measuring it
            widest = std::max(widest, fm.horizontalAdvance(QString::fromStdString(label)));
        }
        widest += fm.horizontalAdvance(QStringLiteral("\u25BE "));  // the collapse / expand glyph
        return std::min(labelGutterWidth(widest, width, 14, 0.4, kMinGutter), std::max(kMinGutter, width * 0.4));
    }

    static void drawOverview(QPainter& painter, const Theme& t, const TimelinePrepared& p, const Layout& L) {
        if (L.overview.isEmpty() || p.overview.empty()) return;
        const QRectF& r = L.overview;
        painter.fillRect(r, QColor(t.grid.red(), t.grid.green(), t.grid.blue(), 90));
        const int W = std::max(1, int(r.width()));
        const double binsPerPx = double(p.overview.size()) / double(W);
        QColor bar = t.muted;
        bar.setAlpha(200);
        for (int x = 0; x < W; ++x) {
            auto b0 = size_t(double(x) * binsPerPx);
            auto b1 = std::max(b0 + 1, size_t(double(x + 1) * binsPerPx));
            float v = 0;
            for (size_t b = b0; b < b1 && b < p.overview.size(); ++b) v = std::max(v, p.overview[b]);
            if (v <= 0) continue;
            const double h = std::max(1.0, double(v) * (r.height() - 2));
            painter.fillRect(QRectF(r.left() + x, r.bottom() - 1 - h, 1, h), bar);
        }
        // Where the view is.
        const double full = double(std::max<int64_t>(1, L.geo.fullEnd - L.geo.fullStart));
        double x0 = r.left() + double(L.geo.viewStart - L.geo.fullStart) / full * r.width();
        double x1 = r.left() + double(L.geo.viewEnd - L.geo.fullStart) / full * r.width();
        x0 = std::clamp(x0, r.left(), r.right());
        x1 = std::clamp(std::max(x1, x0 + 3), r.left(), r.right());
        QColor fill = t.highlight;
        fill.setAlpha(45);
        painter.fillRect(QRectF(x0, r.top(), x1 - x0, r.height()), fill);
        painter.setPen(QPen(t.highlight, 1.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRectF(x0, r.top() + 0.5, x1 - x0, r.height() - 1));
    }

    std::optional<TimelineGeometry> geometry(const Prepared& prepared, const ParamValues& values,
                                             const QRectF& rect) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return std::nullopt;
        return layout(*p, values, rect).geo;
    }

    std::optional<std::string> emptyMessageTyped(const TimelinePrepared& p, const ParamValues&) const override {
        if (p.items > 0) return std::nullopt;
        // Telemetry lanes alone are worth drawing, and so are CPU threads (a CPU-only run: the legacy torch trace of
        // a machine without a GPU, or a run with the GPU tracer off).
        for (const auto& l : p.lanes)
            if (l.kind == LaneKind::Telemetry || (l.kind == LaneKind::Cpu && !l.start.empty())) return std::nullopt;
        return emptyReason(p.messages, "no GPU activities in the selection");
    }

    void drawTyped(Canvas& c, const TimelinePrepared& p, const ParamValues& values) const override {
        auto& painter = c.painter;
        Theme t = c.theme();
        if (p.items == 0 && p.lanes.empty()) {
            drawMessage(c, c.rect, p.messages.empty() ? "nothing to show" : p.messages.front());
            return;
        }
        Layout L = layout(p, values, c.rect);
        const auto& geo = L.geo;
        bool byName = kColorBy(values) == "name";
        painter.setRenderHint(QPainter::Antialiasing, false);
        QFontMetricsF fm(painter.font());

        // Time axis (relative to the first activity): one unit, labels inside the axis (plots/chart.h).
        double span = double(geo.viewEnd - geo.viewStart);
        for (const auto& tick : timeAxisTicks(double(geo.viewStart), double(geo.viewEnd), L.axis.width(), fm)) {
            double x = L.axis.left() + tick.x;
            painter.setPen(QPen(t.grid, 0));
            painter.drawLine(QPointF(x, L.area.top()), QPointF(x, L.area.bottom()));
            if (tick.label.empty()) continue;
            painter.setPen(t.muted);
            painter.drawText(QRectF(L.axis.left() + tick.left, L.axis.top(), tick.labelWidth + 1, L.axis.height()),
                             Qt::AlignCenter, QString::fromStdString(tick.label));
        }
        painter.setPen(QPen(t.foreground, 0));
        painter.drawLine(L.axis.bottomLeft(), L.axis.bottomRight());
        drawOverview(painter, t, p, L);
        if (!p.alignNote.empty() || !p.clockNote.empty()) {
            // The subtitle says what was aligned and which ranks are left off the axis.
            const std::string note = p.alignNote.empty() ? p.clockNote
                : p.clockNote.empty()                    ? p.alignNote
                                                         : p.alignNote + " · " + p.clockNote;
            painter.setPen(t.muted);
            painter.drawText(L.note, Qt::AlignLeft | Qt::AlignVCenter, elided(painter, note, L.note.width()));
        }
        if (!p.alignNote.empty()) {
            // A dashed line marks t = 0, where the aligned steps start.
            if (geo.viewStart <= 0 && geo.viewEnd >= 0 && span > 0) {
                const double x0 = L.area.left() + double(-geo.viewStart) / span * L.area.width();
                painter.setPen(QPen(t.highlight, 1, Qt::DashLine));
                painter.drawLine(QPointF(x0, L.axis.top()), QPointF(x0, L.area.bottom()));
            }
        }

        const double scale = L.area.width() / std::max(1.0, span);
        const double left = L.area.left();
        painter.setClipRect(L.area.united(QRectF(c.rect.left(), L.area.top(), L.gutter, L.area.height())));
        ItemPainter items(c, L, byName, fm);

        int prevRank = INT32_MIN;
        size_t prevRun = SIZE_MAX;
        for (size_t row = 0; row < L.visibleLanes.size(); ++row) {
            const auto li = size_t(L.visibleLanes[row]);
            const Lane& lane = p.lanes[li];
            double y = L.area.top() + double(row) * L.laneH;
            QRectF laneRect(L.area.left(), y, L.area.width(), L.laneH);
            // Rank separator and lane label.
            if (lane.rankNumber != prevRank || lane.run != prevRun) {
                if (row > 0) {
                    painter.setPen(QPen(t.foreground, 0));
                    painter.drawLine(QPointF(c.rect.left(), y), QPointF(L.area.right(), y));
                }
                prevRank = lane.rankNumber;
                prevRun = lane.run;
            }
            if (row % 2 == 1) painter.fillRect(laneRect, QColor(t.grid.red(), t.grid.green(), t.grid.blue(), 60));
            const bool summary = isSummaryRow(p, values, li);
            painter.setPen(lane.kind == LaneKind::Stream || summary ? t.foreground : t.muted);
            painter.drawText(QRectF(c.rect.left() + 4, y, L.gutter - 8, L.laneH), Qt::AlignLeft | Qt::AlignVCenter,
                             elided(painter, rowLabel(p, li, values), L.gutter - 8));

            auto [a, b] = visibleRange(lane, geo.viewStart, geo.viewEnd);
            double pad = L.laneH > 8 ? 2 : 1;
            double top = y + pad, h = L.laneH - 2 * pad;
            if (summary) {  // a collapsed rank: every stream of it in one row
                items.begin(top, h);
                for (size_t k = li; k < p.lanes.size() && p.lanes[k].group == lane.group && p.lanes[k].run == lane.run;
                     ++k)
                    if (p.lanes[k].kind == LaneKind::Stream) items.add(p.lanes[k]);
                items.finish();
            } else if (lane.kind == LaneKind::Telemetry) {
                drawTelemetryLane(c, lane, a, b, left, L.area.right(), top, h, geo.viewStart, scale);
            } else if (lane.kind != LaneKind::Stream && lane.kind != LaneKind::Cpu) {
                drawBands(c, p, lane, a, b, L, top, h);
            } else {
                items.begin(top, h);
                items.add(lane);
                items.finish();
            }
        }
        painter.setClipping(false);
        // Scroll hint.
        {
            // The axis gutter says what 0 is, or which lanes are shown when they do not all fit.
            painter.setPen(t.muted);
            const std::string text = L.totalLanes > L.fits
                ? fmt::format("lanes {}–{} of {}", L.first + 1, L.first + int(L.visibleLanes.size()), L.totalLanes)
                : p.zeroLabel;
            painter.drawText(QRectF(c.rect.left() + 4, L.axis.top(), L.gutter - 8, L.axis.height()),
                             Qt::AlignLeft | Qt::AlignVCenter, elided(painter, text, L.gutter - 8));
        }
        if (!byName && L.legend.height() > 0) drawLegend(c, L.legend, p.legend, legendMode(values));
    }

    // Draws the kernels (or CPU slices) of one or more lanes into one row with the level of detail: items wider
    // than 1.5 px one by one (named when there is room), narrower ones merged per pixel column, coloured by the
    // longest item in the column, then one rect per run of columns of one colour.
    class ItemPainter {
    public:
        ItemPainter(Canvas& c, const Layout& L, bool byName, const QFontMetricsF& fm)
            : m_c(c), m_L(L), m_byName(byName), m_fm(fm), m_W(std::max(1, int(std::ceil(L.area.width())))),
              m_best(size_t(m_W) + 1), m_color(size_t(m_W) + 1),
              m_scale(L.area.width() / std::max(1.0, double(L.geo.viewEnd - L.geo.viewStart))) {}
        void begin(double top, double h) {
            m_top = top;
            m_h = h;
            std::fill(m_best.begin(), m_best.end(), -1);
        }
        void add(const Lane& lane) {
            auto [a, b] = visibleRange(lane, m_L.geo.viewStart, m_L.geo.viewEnd);
            const bool cpu = lane.kind == LaneKind::Cpu;
            const double left = m_L.area.left();
            auto nameOf = [&](size_t k) { return cpu ? lane.rank->slices.name[lane.src[k]] : lane.rank->gpu.name[lane.src[k]]; };
            auto colorAt = [&](size_t k) {
                return cpu ? int(lane.cat[k]) + kCpuColorBase : m_byName ? int(nameOf(k)) : int(lane.cat[k]);
            };
            const int64_t vs = m_L.geo.viewStart;
            for (size_t k = a; k < b; ++k) {
                // A whole block of items narrower than a pixel starting in one column: its longest item stands for
                // it (the same pick as item by item, in a step, without reading the items).
                if (k % kLodBlock == 0 && k + kLodBlock <= b) {
                    const auto& blk = lane.blocks[k / kLodBlock];
                    if (blk.maxDur != UINT32_MAX && double(blk.maxDur) * m_scale < 1.4) {
                        const auto col = size_t(std::clamp(double(blk.first - vs) * m_scale, 0.0, double(m_W)));
                        const double xl = double(blk.first + int64_t(blk.span) - vs) * m_scale;
                        if (size_t(std::clamp(xl, 0.0, double(m_W))) == col) {
                            if (int64_t(blk.maxDur) > m_best[col]) {
                                m_best[col] = int64_t(blk.maxDur);
                                m_color[col] = cpu ? int(blk.cat) + kCpuColorBase
                                                   : m_byName ? int(nameOf(blk.arg)) : int(blk.cat);
                            }
                            k += kLodBlock - 1;
                            continue;
                        }
                    }
                }
                const double x0 = double(lane.start[k] - vs) * m_scale;
                const double x1 = double(lane.end[k] - m_L.geo.viewStart) * m_scale;
                const int color = colorAt(k);
                if (x1 - x0 >= 1.5) {
                    QRectF r(left + std::max(x0, -1.0), m_top, std::min(x1, double(m_W) + 1) - std::max(x0, -1.0), m_h);
                    m_c.painter.fillRect(r, colorOf(color));
                    if (r.width() > 40 && m_h >= m_fm.height() - 2) {
                        m_c.painter.setPen(Qt::white);
                        auto nm = lane.rank->strings.view(nameOf(k));
                        m_c.painter.drawText(r.adjusted(2, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                                             elided(m_c.painter, std::string(nm), r.width() - 4));
                    }
                } else {
                    const auto col = size_t(std::clamp(x0, 0.0, double(m_W)));
                    const int64_t d = lane.end[k] - lane.start[k];
                    if (d > m_best[col]) {
                        m_best[col] = d;
                        m_color[col] = color;
                    }
                }
            }
        }
        void finish() {
            int x = 0;
            while (x <= m_W) {
                if (m_best[size_t(x)] < 0) {
                    ++x;
                    continue;
                }
                int x2 = x + 1;
                while (x2 <= m_W && m_best[size_t(x2)] >= 0 && m_color[size_t(x2)] == m_color[size_t(x)]) ++x2;
                m_c.painter.fillRect(QRectF(m_L.area.left() + x, m_top, x2 - x, m_h), colorOf(m_color[size_t(x)]));
                x = x2;
            }
        }

    private:
        static constexpr int kCpuColorBase = 1 << 30;  // CPU slice colours (by kind) apart from kernel colours
        QColor colorOf(int color) const {
            if (color >= kCpuColorBase) return cpuKindColor(core::EventKind(color - kCpuColorBase));
            return m_byName ? hashColor(uint32_t(color)) : categoryColor(core::KernelCategory(color));
        }
        Canvas& m_c;
        const Layout& m_L;
        bool m_byName;
        const QFontMetricsF& m_fm;
        int m_W;
        std::vector<int64_t> m_best;
        std::vector<int> m_color;
        double m_scale;
        double m_top = 0, m_h = 0;
    };

    // Bands (steps, annotations, phases, layers): drawn one by one with their names; many narrower than a pixel
    // (thousands of layers at full zoom-out) share one rect per pixel column, so the cost is bounded by the width.
    static void drawBands(Canvas& c, const TimelinePrepared& p, const Lane& lane, size_t a, size_t b, const Layout& L,
                          double top, double h) {
        auto& painter = c.painter;
        const double left = L.area.left();
        const double scale = L.area.width() / std::max(1.0, double(L.geo.viewEnd - L.geo.viewStart));
        double lastColumn = -1e300;
        for (size_t k = a; k < b; ++k) {
            double x0 = left + double(lane.start[k] - L.geo.viewStart) * scale;
            double x1 = left + double(lane.end[k] - L.geo.viewStart) * scale;
            x0 = std::max(x0, left - 1);
            x1 = std::min(x1, L.area.right() + 1);
            if (x1 - x0 < 1.0) {
                if (std::floor(x0) == lastColumn) continue;
                lastColumn = std::floor(x0);
            }
            QRectF r(x0, top, std::max(1.0, x1 - x0), h);
            std::string name;
            QColor col;
            if (lane.kind == LaneKind::Steps) {
                int64_t num = lane.rank->steps.number[lane.src[k]];
                name = fmt::format("step {}", num);
                col = (num % 2) ? QColor(120, 144, 156, 150) : QColor(176, 190, 197, 150);
            } else if (lane.kind == LaneKind::Phases || lane.kind == LaneKind::Layers) {
                name = p.bandNames[lane.src[k]];
                col = phaseColor(PhaseKind(lane.cat[k]), k);
            } else {
                uint32_t nid = lane.rank->slices.name[lane.src[k]];
                name = std::string(lane.rank->strings.view(nid));
                col = hashColor(nid);
                col.setAlpha(150);
            }
            painter.fillRect(r, col);
            if (r.width() > 30) {
                painter.setPen(c.theme().foreground);
                painter.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                                 elided(painter, name, r.width() - 5));
            }
        }
    }

    // A row's label: ▸/▾ before a rank's first row (collapsed: the rank's name and how many lanes it holds) and
    // before a CPU thread with nested depths.
    static std::string rowLabel(const TimelinePrepared& p, size_t li, const ParamValues& v) {
        const Lane& lane = p.lanes[li];
        if (lane.group.empty() || !firstOfRank(p, li)) return cpuLabel(lane, v);
        if (isSummaryRow(p, v, li)) {
            size_t n = 0;
            for (size_t k = li; k < p.lanes.size() && p.lanes[k].group == lane.group && p.lanes[k].run == lane.run; ++k) ++n;
            return fmt::format("\u25B8 {} ({} lanes)", lane.group, n);
        }
        return "\u25BE " + lane.label;
    }

    // A telemetry lane: the value as a step line over a light fill, scaled to the lane's own range (written at the
    // right edge). Samples narrower than a pixel share their column's highest value, so the cost is bounded by the
    // width.
    static void drawTelemetryLane(Canvas& c, const Lane& lane, size_t a, size_t b, double left, double right,
                                  double top, double h, int64_t viewStart, double scale) {
        if (a >= b) return;
        auto& painter = c.painter;
        const Theme t = c.theme();
        const double span = lane.vmax > lane.vmin ? lane.vmax - lane.vmin : 1.0;
        const double base = lane.vmax > lane.vmin ? lane.vmin : lane.vmin - 0.5;
        auto yOf = [&](double v) { return top + h - (v - base) / span * (h - 1); };
        QPainterPath path;
        double lastX = -1e300, colMax = 0;
        bool open = false;
        auto flush = [&](double x0, double x1, double v) {
            const double y = yOf(v);
            if (!open) {
                path.moveTo(x0, top + h);
                path.lineTo(x0, y);
                open = true;
            } else {
                path.lineTo(x0, y);
            }
            path.lineTo(x1, y);
        };
        for (size_t k = a; k < b; ++k) {
            const double x0 = std::max(left, left + double(lane.start[k] - viewStart) * scale);
            const double x1 = std::min(right, left + double(lane.end[k] - viewStart) * scale);
            if (x1 - x0 < 1.0 && std::floor(x0) == std::floor(lastX)) {
                colMax = std::max(colMax, lane.value[k]);
                continue;
            }
            if (lastX > -1e300) flush(lastX, std::max(lastX + 1, x0), colMax);
            lastX = x0;
            colMax = lane.value[k];
            if (x1 - x0 >= 1.0) {
                flush(x0, x1, lane.value[k]);
                lastX = -1e300;
            }
        }
        if (lastX > -1e300) flush(lastX, lastX + 1, colMax);
        if (!open) return;
        QPainterPath fill = path;
        fill.lineTo(path.currentPosition().x(), top + h);
        fill.closeSubpath();
        const QColor col = hashColor(uint32_t(std::hash<std::string>()(lane.metric)));
        QColor light = col;
        light.setAlpha(60);
        painter.fillPath(fill, light);
        painter.setPen(QPen(col, 1.2));
        painter.drawPath(path);
        if (h >= 12) {
            painter.setPen(t.muted);
            painter.drawText(QRectF(right - 160, top, 156, h), Qt::AlignRight | Qt::AlignTop,
                             QString::fromStdString(fmt::format("{:.4g}–{:.4g}", lane.vmin, lane.vmax)));
        }
    }

    std::optional<HitInfo> hitTestTyped(const TimelinePrepared& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        Layout L = layout(p, values, rect);
        auto picked = pickAt(p, values, L, pt);
        if (!picked) return std::nullopt;
        const size_t row = picked->row, pick = picked->index;
        const Lane& lane = p.lanes[picked->lane];
        const auto& geo = L.geo;
        const auto& r = *lane.rank;
        HitInfo h;
        double y = L.area.top() + double(row) * L.laneH;
        double x0 = geo.xForTime(lane.start[pick]), x1 = geo.xForTime(lane.end[pick]);
        h.itemRect = QRectF(x0, y, std::max(1.0, x1 - x0), L.laneH);
        int64_t dur = lane.end[pick] - lane.start[pick];
        int64_t absStart = lane.start[pick] + p.runOrigin[lane.run];
        if (lane.kind == LaneKind::Steps) {
            h.title = fmt::format("ProfilerStep#{}", r.steps.number[lane.src[pick]]);
            h.fields = {{"rank", std::to_string(r.rank)}, {"duration", formatDuration(double(dur))}};
            return h;
        }
        if (lane.kind == LaneKind::Phases || lane.kind == LaneKind::Layers) {
            h.title = p.bandNames[lane.src[pick]];
            h.fields = {{"rank", std::to_string(r.rank)},
                        {"duration", formatDuration(double(dur))},
                        {"start", fmt::format("{} (absolute {} ns)", formatDuration(double(lane.start[pick])), absStart)},
                        {"from", lane.kind == LaneKind::Layers ? "layer detection (annotations or kernel patterns)"
                                                               : "CPU-side annotations"}};
            return h;
        }
        if (lane.kind == LaneKind::Telemetry) {
            h.title = lane.metric;
            h.fields = {{"value", fmt::format("{:.6g}", lane.value[pick])},
                        {"device", lane.device >= 0 ? std::to_string(lane.device) : std::string("host")},
                        {"sampled at", fmt::format("{} (+{})", absStart, formatDuration(double(lane.start[pick])))},
                        {"until", formatDuration(double(dur)) + " later (next sample)"},
                        {"lane range", fmt::format("{:.6g} – {:.6g}", lane.vmin, lane.vmax)},
                        {"source", r.info.format.empty() ? r.path : r.info.format}};
            return h;
        }
        if (lane.kind == LaneKind::Cpu) return cpuHit(h, lane, lane.src[pick], dur, absStart, lane.start[pick]);
        if (lane.kind == LaneKind::Annotation) {
            h.title = r.strings.str(r.slices.name[lane.src[pick]]);
            h.fields = {{"rank", std::to_string(r.rank)}, {"duration", formatDuration(double(dur))},
                        {"kind", "gpu_user_annotation"}};
            return h;
        }
        const auto& g = r.gpu;
        size_t i = lane.src[pick];
        h.title = r.strings.str(g.name[i]);
        h.fields.push_back({"duration", formatDuration(double(dur))});
        h.fields.push_back({"start", fmt::format("{} (absolute {} ns)", formatDuration(double(lane.start[pick])), absStart)});
        h.fields.push_back({"category", std::string(core::toString(activityCategory(r, i)))});
        h.fields.push_back({"rank", std::to_string(r.rank)});
        h.fields.push_back({"stream", std::to_string(g.stream.size() == g.size() ? g.stream[i] : lane.stream)});
        if (g.queue.size() == g.size() && g.queue[i] >= 0) h.fields.push_back({"queue", std::to_string(g.queue[i])});
        if (g.device.size()) h.fields.push_back({"device", std::to_string(g.device[i])});
        int64_t step = activityStep(r, i);
        h.fields.push_back({"step", step >= 0 ? std::to_string(step) : "-"});
        if (g.cpuOp.size() == g.size() && g.cpuOp[i] >= 0 && size_t(g.cpuOp[i]) < r.slices.size())
            h.fields.push_back({"launched by", r.strings.str(r.slices.name[size_t(g.cpuOp[i])])});
        if (g.runtime.size() == g.size() && g.runtime[i] >= 0 && size_t(g.runtime[i]) < r.slices.size())
            h.fields.push_back({"runtime call", r.strings.str(r.slices.name[size_t(g.runtime[i])])});
        if (g.gridX.size() == g.size() && g.gridX[i] > 0)
            h.fields.push_back({"grid / block", fmt::format("[{},{},{}] / [{},{},{}]", g.gridX[i], g.gridY[i], g.gridZ[i],
                                                            g.blockX[i], g.blockY[i], g.blockZ[i])});
        return h;
    }

    // A click on a rank's first label collapses or expands the rank; on a CPU thread's label (any of its rows), the
    // thread.
    std::optional<ParamValues> gutterClick(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                           QPointF pt) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return std::nullopt;
        Layout L = layout(*p, values, rect);
        if (pt.y() < L.area.top() || pt.x() >= L.area.left()) return std::nullopt;
        const auto row = size_t((pt.y() - L.area.top()) / L.laneH);
        if (row >= L.visibleLanes.size()) return std::nullopt;
        const auto li = size_t(L.visibleLanes[row]);
        const Lane& lane = p->lanes[li];
        ParamValues out = values;
        auto toggle = [](std::vector<std::string> list, const std::string& key) {
            const auto it = std::find(list.begin(), list.end(), key);
            if (it == list.end())
                list.push_back(key);
            else
                list.erase(it);
            return list;
        };
        if (!lane.group.empty() && firstOfRank(*p, li)) {
            kCollapsedRanks.set(out, toggle(kCollapsedRanks(values), lane.group));
            return out;
        }
        if (lane.kind != LaneKind::Cpu) return std::nullopt;
        // The thread's depth-0 lane says how many depths it has.
        size_t first = li;
        while (first > 0 && p->lanes[first - 1].kind == LaneKind::Cpu && p->lanes[first - 1].thread == lane.thread) --first;
        if (p->lanes[first].depths < 2) return std::nullopt;
        kExpandedThreads.set(out, toggle(kExpandedThreads(values), lane.thread));
        return out;
    }

    std::vector<FlowLink> flows(const Prepared& prepared, const ParamValues&, const ItemRef& item,
                                size_t cap) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return {};
        return flowsThrough(*p, item, cap);
    }

    // The lane label of a CPU thread: ▸ collapsed / ▾ expanded (when it has more than one depth).
    static std::string cpuLabel(const Lane& lane, const ParamValues& v) {
        if (lane.kind != LaneKind::Cpu || lane.sub != 0 || lane.depths < 2) return lane.label;
        const auto expanded = kExpandedThreads(v);
        const bool open = std::find(expanded.begin(), expanded.end(), lane.thread) != expanded.end();
        return (open ? "\u25BE " : "\u25B8 ") + lane.label;
    }

    static HitInfo cpuHit(HitInfo h, const Lane& lane, size_t i, int64_t dur, int64_t absStart, int64_t relStart) {
        const auto& r = *lane.rank;
        const auto& s = r.slices;
        h.title = r.strings.str(s.name[i]);
        h.fields = {{"duration", formatDuration(double(dur))},
                    {"start", fmt::format("{} (absolute {} ns)", formatDuration(double(relStart)), absStart)},
                    {"kind", std::string(core::toString(s.kind[i]))},
                    {"thread", lane.thread},
                    {"depth", std::to_string(lane.sub)}};
        if (s.correlation.size() == s.size() && s.correlation[i] != core::kNone)
            h.fields.push_back({"correlation", std::to_string(s.correlation[i])});
        return h;
    }

    // The row, lane and item under `pt`: an item that contains the point, else the longest within 2 px (on a
    // collapsed rank's row, over all its streams).
    struct Pick {
        size_t row, lane, index;
    };
    static std::optional<Pick> pickAt(const TimelinePrepared& p, const ParamValues& v, const Layout& L, QPointF pt) {
        if (!L.area.contains(pt)) return std::nullopt;
        auto row = size_t((pt.y() - L.area.top()) / L.laneH);
        if (row >= L.visibleLanes.size()) return std::nullopt;
        const auto li = size_t(L.visibleLanes[row]);
        std::vector<size_t> lanes{li};
        if (isSummaryRow(p, v, li)) {
            lanes.clear();
            for (size_t k = li; k < p.lanes.size() && p.lanes[k].group == p.lanes[li].group && p.lanes[k].run == p.lanes[li].run; ++k)
                if (p.lanes[k].kind == LaneKind::Stream) lanes.push_back(k);
        }
        const auto& geo = L.geo;
        int64_t tNs = geo.timeForX(pt.x());
        double nsPerPx = double(geo.viewEnd - geo.viewStart) / std::max(1.0, L.area.width());
        auto tol = int64_t(std::ceil(2 * nsPerPx));
        std::optional<Pick> best;
        auto contains = [&](const Pick& q) {
            const Lane& l = p.lanes[q.lane];
            return l.start[q.index] <= tNs && tNs < l.end[q.index];
        };
        auto length = [&](const Pick& q) { return p.lanes[q.lane].end[q.index] - p.lanes[q.lane].start[q.index]; };
        for (size_t lane : lanes) {
            auto [a, b] = visibleRange(p.lanes[lane], tNs - tol, tNs + tol + 1);
            for (size_t k = a; k < b; ++k) {
                const Pick q{row, lane, k};
                if (!best || (contains(q) && !contains(*best)) ||
                    (contains(q) == contains(*best) && length(q) > length(*best)))
                    best = q;
            }
        }
        return best;
    }

    core::Result<std::vector<ItemRef>> findItems(const Prepared& prepared, const ParamValues& values,
                                                 const FindQuery& query) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return std::vector<ItemRef>{};
        return findInLanes(*p, shownLanes(*p, values), query);
    }

    std::optional<ItemRef> itemAt(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                  QPointF pt) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return std::nullopt;
        Layout L = layout(*p, values, rect);
        auto picked = pickAt(*p, values, L, pt);
        if (!picked) return std::nullopt;
        const Lane& lane = p->lanes[picked->lane];
        return ItemRef{picked->lane, picked->index, lane.start[picked->index], lane.end[picked->index]};
    }

    std::vector<std::optional<QRectF>> itemRects(const Prepared& prepared, const ParamValues& values,
                                                 const QRectF& rect, const std::vector<ItemRef>& items) const override {
        std::vector<std::optional<QRectF>> out(items.size());
        const TimelinePrepared* p = typed(prepared);
        if (!p) return out;
        Layout L = layout(*p, values, rect);
        for (size_t i = 0; i < items.size(); ++i) {
            const auto& it = items[i];
            // The row that shows the item's lane (its thread's or rank's row when collapsed), if scrolled into view.
            const int row = it.lane < L.rowOf.size() ? L.rowOf[it.lane] - L.first : -1;
            if (row < 0 || row >= int(L.visibleLanes.size()) || it.end < L.geo.viewStart || it.start > L.geo.viewEnd)
                continue;
            const double x0 = std::max(L.geo.xForTime(it.start), L.area.left());
            const double x1 = std::min(L.geo.xForTime(it.end), L.area.right());
            out[i] = QRectF(x0, L.area.top() + double(row) * L.laneH, std::max(1.0, x1 - x0), L.laneH);
        }
        return out;
    }

    std::string itemName(const Prepared& prepared, const ItemRef& item) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p || item.lane >= p->lanes.size()) return {};
        return laneItemName(*p, p->lanes[item.lane], item.index);
    }

    // Zooms to the item (three times its length) unless the view's span already suits it (the item takes between
    // 1/200 and 4/5 of it), then only centres it; scrolls its lane into view.
    ParamValues revealItem(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                           const ItemRef& item) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return values;
        ParamValues in = values;
        if (item.lane < p->lanes.size()) {  // expand the rank and the thread that hide the item
            const Lane& lane = p->lanes[item.lane];
            auto ranks = kCollapsedRanks(in);
            std::erase(ranks, lane.group);
            kCollapsedRanks.set(in, ranks);
            auto threads = kExpandedThreads(in);
            if (lane.kind == LaneKind::Cpu && lane.sub > 0 && !listed(threads, lane.thread)) {
                threads.push_back(lane.thread);
                kExpandedThreads.set(in, threads);
            }
        }
        Layout L = layout(*p, in, rect);
        const int64_t dur = std::max<int64_t>(1, item.end - item.start);
        int64_t span = L.geo.viewEnd - L.geo.viewStart;
        if (double(dur) > 0.8 * double(span) || double(dur) * 200 < double(span)) span = std::max<int64_t>(3 * dur, 1000);
        const int64_t mid = item.start + (item.end - item.start) / 2;
        ParamValues out = setView(in, mid - span / 2, mid - span / 2 + span);
        if (item.lane < L.rowOf.size() && L.rowOf[item.lane] >= 0) {
            const int idx = L.rowOf[item.lane];
            if (idx < L.first || idx >= L.first + L.fits)
                kLaneScroll.set(out, std::clamp(idx - L.fits / 2, 0, std::max(0, L.totalLanes - L.fits)));
        }
        return out;
    }

    std::optional<NameStats> nameStats(const Prepared& prepared, const ParamValues&, const ItemRef& item) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return std::nullopt;
        return statsOfName(*p, item);
    }

    std::optional<RangeSummary> summarizeRange(const Prepared& prepared, const ParamValues& values, int64_t start,
                                               int64_t end, size_t topN) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return std::nullopt;
        return summarize(*p, shownLanes(*p, values), start, end, topN);
    }

    std::vector<ItemRef> itemsInRange(const Prepared& prepared, const ParamValues& values, int64_t start,
                                      int64_t end) const override {
        const TimelinePrepared* p = typed(prepared);
        if (!p) return {};
        return itemsIntersecting(*p, shownLanes(*p, values), start, end);
    }

    std::vector<EventRow> eventRows(const Prepared& prepared, const std::vector<ItemRef>& items) const override {
        std::vector<EventRow> out;
        const TimelinePrepared* p = typed(prepared);
        if (!p) return out;
        out.reserve(items.size());
        for (const auto& it : items) out.push_back(eventRowOf(*p, it));
        return out;
    }

    core::Table tableTyped(const TimelinePrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", "rank", "stream", "name", "category", "start_ns", "dur_ns", "step"};
        auto view = effectiveView(values, p.fullStart, p.fullEnd);
        for (const auto& lane : p.lanes) {
            if (lane.kind != LaneKind::Stream) continue;
            auto [a, b] = visibleRange(lane, view.start, view.end);
            const auto& r = *lane.rank;
            for (size_t k = a; k < b; ++k) {
                size_t i = lane.src[k];
                t.rows.push_back(
                    {p.runLabels[lane.run], int64_t(r.rank), int64_t(lane.stream), r.strings.str(r.gpu.name[i]),
                     std::string(core::toString(core::KernelCategory(lane.cat[k]))),
                     lane.start[k] + p.runOrigin[lane.run], lane.end[k] - lane.start[k], activityStep(r, i)});
            }
        }
        t.messages = p.messages;
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(GpuTimelinePlot)

}  // namespace strobe::plots
