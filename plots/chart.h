#pragma once
// Small QPainter chart toolkit shared by the builtin plots: colours, number/duration formatting, nice axis
// ticks, axes laid out from the font's metrics (linear, log10 or bands of labels), stacked/grouped bar charts,
// legends, label eliding, messages; and the parameter and data helpers the plots share. Widget-free; everything
// takes a Canvas or a QPainter and a Theme.

#include <QColor>
#include <QFontMetricsF>
#include <QImage>
#include <QRectF>
#include <QString>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/dataset.h"
#include "core/model/duration_text.h"
#include "plots/plot.h"

namespace strobe::plots {

QColor categoryColor(core::KernelCategory c);
QColor seriesColor(int index);           // a qualitative palette of 10 colours, cycles
Qt::PenStyle seriesPenStyle(int index);  // solid for the first 10 series, then dashed, dotted...: lines stay apart
                                         // when seriesColor repeats

using core::formatDuration;             // "850 ns", "12.345 µs", "4.567 ms", "1.235 s" (core/model/duration_text.h)
std::string formatNumber(double v);     // 3 significant digits, k/M suffixes
std::string formatPercent(double pct);  // "42.1%"

// ---- ticks ----

// About `count` round tick values (steps of 1, 2 or 5 × 10^k) covering [lo, hi].
std::vector<double> niceTicks(double lo, double hi, int count = 6);

enum class TickUnit { Number, Duration, Percent };
// Labels for evenly spaced ticks, all with the same unit and number of decimals: as many decimals as the step
// needs to tell neighbours apart, durations (ns) in the unit of the largest tick ({0, 5e5, 1e6} → "0.0 ms",
// "0.5 ms", "1.0 ms"), percentages without decimals when the step is whole ("0%", "20%").
std::vector<std::string> tickLabels(const std::vector<double>& ticks, TickUnit unit);
// One value with the unit's usual format (durations and numbers with 3 significant digits).
std::string formatValue(double v, TickUnit unit);

// Ticks of a log10 axis over the decades 10^lo .. 10^hi: a labelled major tick at every decade; with at least
// 60 px per decade also minor ticks at 2× and 5×, labelled when there are at least 200 px per decade.
struct LogTick {
    double value = 0;
    bool major = true;
    bool labelled = true;
};
std::vector<LogTick> logTicks(int lo, int hi, double pxPerDecade);

// Ticks of a time axis over [start, end] ns (relative times) drawn `width` px wide, as the timelines use: one unit
// for every label, chosen from the visible span (s when it is at least 1 s, else ms, µs or ns) with as many
// decimals as the step needs to tell neighbours apart; as many ticks as fit labels `measure`d wide with at least
// `gap` px between them (fewer, rounder steps when they do not fit). Each label sits centred on its tick, shifted
// inside [0, width] at the ends, so the last one is never clipped; a tick whose label would overlap its neighbour
// keeps its grid line without a label. `x` and `left` are px from the axis' left end.
struct TimeTick {
    double value = 0;   // ns
    double x = 0;       // px
    std::string label;  // "" when not labelled
    double left = 0;    // px, the label's left edge
    double labelWidth = 0;
};
std::vector<TimeTick> timeAxisTicks(double start, double end, double width,
                                    const std::function<double(const QString&)>& measure, double gap = 14);
std::vector<TimeTick> timeAxisTicks(double start, double end, double width, const QFontMetricsF& fm, double gap = 14);

// ---- text ----

// `text` with every line longer than `maxChars` characters broken into lines of at most that many: after the last
// space, comma, semicolon, colon, bracket or angle bracket that keeps the line short enough (a space at a break
// is dropped), else at `maxChars` exactly. Line breaks already in `text` stay. For tooltips and details, where a
// demangled kernel name would otherwise make one line 1,000 px wide.
QString wrapText(const QString& text, int maxChars = 60);
// Right-elided to `width` pixels with the painter's font.
QString elided(const QPainter& p, const std::string& text, double width);
// Elided to `width` when it does not fit: cut in the middle, keeping the start (`headShare` of the characters
// kept) and the end, joined by "…". When the text shares its first `sharedPrefix` characters with another label
// and a plain middle cut would hide where it differs, the cut goes inside that shared prefix instead: a short
// start, "…", then the text from where it differs (from the token it differs in), cut at the right when still
// too long. So long kernel names sharing a template prefix stay apart. `measure` gives a text's width.
QString elideMiddle(const QString& text, double width, const std::function<double(const QString&)>& measure,
                    qsizetype sharedPrefix = 0, double headShare = 0.6);
QString elideMiddle(const QFontMetricsF& fm, const std::string& text, double width, qsizetype sharedPrefix = 0);
// For each label, the length of the longest prefix it shares with another text of the set (copies of the same
// text do not count); 0 when it differs from all from its first character or is all the start of another.
std::vector<qsizetype> sharedPrefixLengths(const std::vector<QString>& labels);
std::vector<qsizetype> sharedPrefixLengths(const std::vector<std::string>& labels);
// Width of a gutter for labels whose widest is `widest` px: that plus `padding`, at least `minWidth`, at most
// `maxShare` of `total` (labels wider than that are elided).
double labelGutterWidth(double widest, double total, double padding = 12, double maxShare = 0.4, double minWidth = 24);
// How many bands one label spans so that labels `labelSize` px apart (along the axis) do not overlap: 1 when
// every band has room, 2 for every other label, ...
size_t labelStride(double bandSize, double labelSize);

// ---- layout and axes ----

// One axis of a chart: a value axis (linear or log10) or bands of labels (one per bar/group).
struct ChartAxis {
    enum class Kind { Linear, Log, Bands };
    Kind kind = Kind::Linear;
    double lo = 0, hi = 1;  // Linear: the value range; Log: whole decimal exponents (10^lo .. 10^hi)
    TickUnit unit = TickUnit::Number;
    std::string title;               // drawn along the axis ("" = none)
    std::vector<std::string> bands;  // Bands: one label per band, the first at the left (x) or the top (y)
    int highlight = -1;              // Bands: this label bold in the theme's highlight colour

    static ChartAxis linear(double lo, double hi, TickUnit unit, std::string title = {});
    // The whole decades around [minValue, maxValue] (values ≤ 1 count as 1).
    static ChartAxis log(double minValue, double maxValue, TickUnit unit, std::string title = {});
    static ChartAxis bandsOf(std::vector<std::string> labels, std::string title = {}, int highlight = -1);
    // Position of a value along the axis as a fraction of its length (0 = lo). Log: values ≤ 0 → lo.
    double fraction(double value) const;
};

// Where the data goes: `area` less the room for tick and band labels and the axis titles, measured with the
// font. Band labels along x turn vertical when they do not fit their bands; along y they get a gutter as wide
// as the widest label, up to 40% of the width, and are elided in the middle beyond that.
struct ChartLayout {
    QRectF plot;
    ChartAxis x, y;
    bool xLabelsRotated = false;
    double xLabelDepth = 0;  // px below the plot for x tick/band labels
    double yLabelWidth = 0;  // px left of the plot for y tick/band labels

    double xAt(double value) const;  // pixel of a value on a Linear/Log x axis
    double yAt(double value) const;  // pixel of a value on a Linear/Log y axis (lo at the bottom)
    double bandSize(bool alongX) const;
    double bandStart(bool alongX, size_t band) const;  // left (x) or top (y) edge of a band
    // The band under `pt`: inside the plot or beside it among the band labels.
    std::optional<size_t> bandAt(bool alongX, QPointF pt) const;
};
ChartLayout layoutChart(const QFontMetricsF& fm, const QRectF& area, ChartAxis x, ChartAxis y);
// Grid lines, ticks and their labels, band labels, axis lines and titles of a layout.
void drawAxes(Canvas& c, const ChartLayout& layout);

// Draws the title line at the top of `area` and returns the area below it.
QRectF drawTitle(Canvas& c, const QRectF& area, const std::string& title, const std::string& subtitle = {});
// A centred message (empty data, errors).
void drawMessage(Canvas& c, const QRectF& area, const std::string& text);
// The empty state of a plot that has nothing to draw: "Nothing to draw" and the reason below it, centred.
void drawEmptyState(Canvas& c, const QRectF& area, const std::string& reason);
// The reason a plot shows nothing, from the analysis' messages (the first three, one per line), else `fallback`.
std::string emptyReason(const std::vector<std::string>& messages, const std::string& fallback);

struct LegendEntry {
    std::string label;
    QColor color;
    bool line = false;                   // a line sample (line charts) instead of a filled square
    Qt::PenStyle style = Qt::SolidLine;  // with `line`
};
// Compact: the legend takes at most a third of the height (one row on a timeline) and counts the entries that do
// not fit in a last "+N more"; full: every entry, in as many wrapping rows as they need (the plot reserves them).
enum class LegendMode { Compact, Full };
// The drawing parameter "legend" (compact | full) of the plots with a legend; legendMode() reads it.
inline const EnumParam kLegend =
    EnumParam{"legend", "Legend",
              "compact: the rows that fit, the other entries counted in \"+N more\"; full: every entry, wrapping",
              "compact"}
        .choices({"compact", "full"})
        .drawOnly();
LegendMode legendMode(const ParamValues& values);
// Legend rows (wrapping) at the bottom of `area`; returns the area above it. An entry takes at most half the
// width (longer labels are elided, see elideMiddle). Compact: at most a third of the height, the entries that do
// not fit are counted in a last "+N more". Full: every entry, as many rows as fit in `area`.
QRectF drawLegend(Canvas& c, const QRectF& area, const std::vector<LegendEntry>& entries,
                  LegendMode mode = LegendMode::Compact);
// The same layout without drawing: how many rows (each `rowHeight` high) and how many entries are shown, for
// entries `widths` px wide (sample and padding included) in `width` px, at most `maxRows` rows; when some do not
// fit, the last row keeps room for the "+N more" of width `moreWidth`.
struct LegendFit {
    size_t rows = 0;
    size_t shown = 0;
};
LegendFit fitLegend(const std::vector<double>& widths, double width, size_t maxRows, double moreWidth);
// Height of one legend row, and the rows drawLegend() needs for `entries` across `width` px in `mode` (compact:
// at most `maxRows`): what a plot reserves for a full legend.
double legendRowHeight(const QFontMetricsF& fm);
LegendFit legendFit(const QFontMetricsF& fm, double width, const std::vector<LegendEntry>& entries, LegendMode mode,
                    size_t maxRows);

// A painter on a 1×1 image, for hit tests that redo draw()'s layout with the same font.
struct LayoutCanvas {
    explicit LayoutCanvas(const QRectF& rect);
    QImage image;
    QPainter painter;
    Canvas canvas;
};

// ---- bar charts ----

// Stacked (or grouped) bars: one bar per label, one segment per series.
struct BarChart {
    using Fields = std::vector<std::pair<std::string, std::string>>;
    std::string title, subtitle, valueLabel, bandLabel;
    std::vector<std::string> bars;
    std::vector<std::string> series;
    std::vector<QColor> colors;
    std::vector<std::vector<double>> values;  // [bar][series], ≥ 0
    bool stacked = true;                      // false: series side by side within a bar's band
    bool horizontal = false;                  // bars left to right, labels on the left
    bool percentAxis = false;                 // the values are percentages (axis 0..100)
    bool durationAxis = true;                 // format the axis as durations (ns), else as numbers
    bool valueLabels = true;                  // totals after stacked bars, values after grouped ones (where
                                              // they fit; never on a percent axis)
    int highlightBar = -1;                    // drawn with an outline and a bold label
    LegendMode legend = LegendMode::Compact;  // the series legend (kLegend)
    // Hover fields of segment (bar, series); default: bar, value and share of the bar.
    std::function<Fields(size_t bar, size_t series)> hitFields;
    std::vector<std::string> messages;
};
void drawBarChart(Canvas& c, const BarChart& chart);
// The bar chart as plain data (Plot::chartData).
ChartData toChartData(const BarChart& chart);
// Why a bar chart has nothing to draw: no bars, or every value zero or not a number (bars of no height on a
// 0–1 axis would look like data); nullopt when some bar has a value. The reason is the chart's messages.
std::optional<std::string> barChartEmptyMessage(const BarChart& chart, const std::string& fallback);
// A segment under `pt`, or the whole bar (every series) when `pt` is on the bar's label.
std::optional<HitInfo> hitBarChart(const BarChart& chart, const QRectF& rect, QPointF pt);

// A plot that is one bar chart: chart() builds it from the plot's prepared P, and drawing, hit tests, the chart
// data and the empty message all come from it. noData() says why there is nothing to chart before a chart is
// built (nullopt: build it); noBarsMessage() is the reason when the chart has no bar or only zeros. Base is
// TypedPlot<P> or a typed base of the plot's own that prepares P (AnalysisPlot).
template <class P, class Base = TypedPlot<P>>
class BarPlot : public Base {
public:
    using Base::Base;

protected:
    virtual BarChart chart(const P& prepared, const ParamValues& values) const = 0;
    virtual std::optional<std::string> noData(const P& /*prepared*/) const { return std::nullopt; }
    virtual std::string noBarsMessage() const = 0;

    void drawTyped(Canvas& c, const P& p, const ParamValues& v) const override {
        if (!noData(p)) drawBarChart(c, chart(p, v));
    }
    std::optional<HitInfo> hitTestTyped(const P& p, const ParamValues& v, const QRectF& rect,
                                        QPointF pt) const override {
        if (noData(p)) return std::nullopt;
        return hitBarChart(chart(p, v), rect, pt);
    }
    std::optional<std::string> emptyMessageTyped(const P& p, const ParamValues& v) const override {
        if (auto why = noData(p)) return why;
        return barChartEmptyMessage(chart(p, v), noBarsMessage());
    }
    std::optional<ChartData> chartDataTyped(const P& p, const ParamValues& v) const override {
        if (noData(p)) return std::nullopt;
        BarChart c = chart(p, v);
        if (barChartEmptyMessage(c, noBarsMessage())) return std::nullopt;
        return toChartData(c);
    }
};

// A plot drawn on a chart it lays out itself (lines, steps, points, boxes, violins): frame() draws the title and
// legend and lays out the axes for a canvas, keeping what drawing and hit tests both need (a ChartLayout, or a struct
// of the plot's own with panels or derived series); the adapter calls it on the real canvas to draw and on a
// LayoutCanvas of the plot's rectangle to hit-test, so both see one geometry. nothingToDraw() says why there is
// nothing to draw (nullopt: draw); it is the plot's empty message, which the renderer draws instead of the plot, and
// it keeps drawing, hit tests and the chart data off empty data. chartOf() is the plot as plain data, when it has one.
// Base is TypedPlot<P> or a typed base of the plot's own that prepares P (AnalysisPlot).
template <class P, class Frame = ChartLayout, class Base = TypedPlot<P>>
class ChartPlot : public Base {
public:
    using Base::Base;

protected:
    virtual std::optional<std::string> nothingToDraw(const P& prepared, const ParamValues& values) const = 0;
    virtual Frame frame(Canvas& canvas, const P& prepared, const ParamValues& values) const = 0;
    virtual void drawMarks(Canvas& canvas, const Frame& frame, const P& prepared, const ParamValues& values) const = 0;
    virtual std::optional<HitInfo> hitMarks(const Frame& /*frame*/, const P& /*prepared*/, const ParamValues&,
                                            QPointF /*point*/) const {
        return std::nullopt;
    }
    virtual std::optional<ChartData> chartOf(const P& /*prepared*/, const ParamValues&) const { return std::nullopt; }

    std::optional<std::string> emptyMessageTyped(const P& p, const ParamValues& v) const override {
        return nothingToDraw(p, v);
    }
    void drawTyped(Canvas& c, const P& p, const ParamValues& v) const override {
        if (nothingToDraw(p, v)) return;
        const Frame f = frame(c, p, v);
        drawMarks(c, f, p, v);
    }
    std::optional<HitInfo> hitTestTyped(const P& p, const ParamValues& v, const QRectF& rect,
                                        QPointF pt) const override {
        if (nothingToDraw(p, v)) return std::nullopt;
        LayoutCanvas lc(rect);
        return hitMarks(frame(lc.canvas, p, v), p, v, pt);
    }
    std::optional<ChartData> chartDataTyped(const P& p, const ParamValues& v) const override {
        if (nothingToDraw(p, v)) return std::nullopt;
        return chartOf(p, v);
    }
};

// ---- parameters shared by plots ----

// The RankSet parameter "ranks" (empty = all); ranksSpec() gives its choices (every rank of every run), and a
// tooltip and prepare/draw role of the plot's own.
inline const RankSetParam kRanks{"ranks", "Ranks", "Ranks to include (empty: all)", {}};
// `summaryOnly`: the choices also list the ranks of summary-first runs whose events are not loaded (a view drawn
// from every rank's summary).
ParamSpec ranksSpec(const RunSet& runs, const std::string& tooltip = "Ranks to include (empty: all)",
                    bool affectsPrepare = true, bool summaryOnly = false);
// The drawing parameters of a bar chart: "percent", "horizontal" and "legend"; barStyleSpecs() gives them with the
// plot's tooltip and defaults.
// "skip_steps": the ProfilerSteps left out at the start of every run (warm-up), in every plot over steps.
inline const IntParam kSkipSteps =
    IntParam{"skip_steps", "Skip steps", "Leave out the first N steps of every run (warm-up)", 0}.bounded(0, 1000000,
                                                                                                          1);
// "style" of the distribution plots (group-time-dist, kernel-durations): box, violin or both; each plot picks its
// default (withDefault). kernel-durations called "both" "box+violin" before issue 32: that text still reads.
inline const EnumParam kDistributionStyle =
    EnumParam{"style", "Style", "box: quartiles, median and whiskers; violin: the density; both: a box in a violin",
              "box"}
        .choices({"box", "violin", "both"})
        .formerChoice("box+violin", "both")
        .drawOnly();
// The table plots' order: "sort_by", a column of the plot's table (each plot offers its columns:
// kSortBy.spec(columns)), and "descending". The GUI's table header sets both through these handles.
inline const EnumParam kSortBy = EnumParam{"sort_by", "Sort by", "Column to sort by", "total_ns"}.drawOnly();
inline const BoolParam kDescending = BoolParam{"descending", "Descending", "Largest first", true}.drawOnly();
inline const BoolParam kPercent = BoolParam{"percent", "Percent", "Show shares instead of time", false}.drawOnly();
inline const BoolParam kHorizontal =
    BoolParam{"horizontal", "Horizontal bars", "Draw bars left to right", false}.drawOnly();
std::vector<ParamSpec> barStyleSpecs(const std::string& percentTooltip, bool percentDefault, bool horizontalDefault);
// Every ProfilerStep number of every rank of every run, ascending, as text.
std::vector<std::string> stepChoices(const RunSet& runs);

// ---- data helpers shared by plots ----

// Category of GPU activity i: the merge's column when filled, else from the kind and a name heuristic.
core::KernelCategory activityCategory(const core::RankData& r, size_t i);
// Step number containing GPU activity i (-1 if none): the merge's column when filled, else from StepTable.
int64_t activityStep(const core::RankData& r, size_t i);

// "run/rank N" when several runs, "rank N" otherwise.
std::string rankLabel(const RunSet& runs, size_t runIndex, int rank);
std::string rankLabel(const std::string& runLabel, bool severalRuns, int rank);

// The RankSet parameter "ranks" filter (empty = all); choices list every rank of every run.
bool rankSelected(const std::vector<int>& selected, int rank);
std::vector<std::string> rankChoices(const RunSet& runs, bool summaryOnly = false);

// Calls fn(run index, rank) for every loaded rank of `runs` that `selected` keeps, reporting progress as
// `stage` from `from` to `to`. False when `cancel` was seen (fn is then not called again).
bool forEachSelectedRank(const RunSet& runs, const std::vector<int>& selected, const core::CancelToken& cancel,
                         const core::ProgressFn& progress, const std::string& stage, double from, double to,
                         const std::function<void(size_t, const core::RankData&)>& fn);

}  // namespace strobe::plots
