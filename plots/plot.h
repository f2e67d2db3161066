#pragma once
// The plot plugin contract (see DESIGN.md "Plot plugins"). A plot is stateless: it declares its parameters
// as data, prepares (expensive, pure, thread-safe, cancellable) and draws (cheap) onto a Canvas.
// Plots never create widgets. Register a plot with STROBE_REGISTER_PLOT (plots/plot_registry.h).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include <QColor>
#include <QPainter>
#include <QPointF>
#include <QRectF>

#include "core/analysis/table.h"
#include "core/io/error.h"
#include "core/io/progress.h"
#include "core/model/dataset.h"
#include "core/model/run_set.h"
#include "core/params/param.h"
#include "plots/chart_data.h"

namespace strobe::plots {

// The parameter vocabulary and the run set are core's (core/params, core/model/run_set.h); plots use them by
// their short names.
using core::BoolParam;
using core::ColorParam;
using core::DoubleParam;
using core::EnumParam;
using core::findSpec;
using core::IntParam;
using core::ParamSpec;
using core::ParamType;
using core::ParamValue;
using core::ParamValues;
using core::RankSetParam;
using core::RegexParam;
using core::RunEntry;
using core::RunSet;
using core::StringListParam;
using core::StringParam;

// What prepare() produced. Immutable once returned; shared between the cache, the GUI and exports.
struct Prepared {
    virtual ~Prepared() = default;
    virtual size_t bytes() const = 0;  // for the byte-budgeted prepared cache
};
using PreparedPtr = std::shared_ptr<const Prepared>;

// Colours for the light or dark palette. draw() takes every colour from here or from its parameters.
struct Theme {
    QColor background;
    QColor foreground;  // text, axes
    QColor grid;
    QColor muted;       // secondary text
    QColor highlight;   // selection, worst rank
    static Theme light();
    static Theme dark();
};

struct Canvas {
    QPainter& painter;
    QRectF rect;          // where to draw (the background is already filled)
    bool dark = false;    // follow the system palette
    Theme theme() const { return dark ? Theme::dark() : Theme::light(); }
};

// An item of a timeline (search results, the item under the cursor): its lane, its index in the lane, and its
// time span (relative ns, as the view parameters).
struct ItemRef {
    size_t lane = 0;
    size_t index = 0;
    int64_t start = 0;
    int64_t end = 0;
    bool operator==(const ItemRef&) const = default;
};
// A flow between two timeline items, in launch order: a CPU operator → the runtime call it made → the kernel that
// call launched (or operator → kernel when the trace has no runtime call). `what` names the `to` end for menus
// and the Selection dock ("runtime call", "kernel").
struct FlowLink {
    ItemRef from;
    ItemRef to;
    std::string what;
};
// A search over item names: a substring (case-insensitive), a regular expression (ECMAScript, case-insensitive)
// or an exact name.
struct FindQuery {
    enum class Mode { Substring, Regex, Exact };
    std::string text;
    Mode mode = Mode::Substring;
};
// Statistics of every item with one name in one run (durations in ns; median and p95 interpolate linearly).
struct NameStats {
    std::string name;
    std::string run;
    size_t count = 0;
    int64_t total = 0, min = 0, max = 0;
    double mean = 0, median = 0, p95 = 0;
};
// One timeline item as a row of the events list (the GUI's list of every instance of a name, a search's matches
// or what a measured range holds): the columns it sorts and filters by.
struct EventRow {
    std::string name;
    std::string kind;      // "kernel", "gpu_memcpy", "cpu_op", "runtime", "step", "phase"...
    std::string category;  // GPU activities: the kernel category; else empty
    std::string run;       // the run's label
    int rank = -1;
    std::string where;     // the lane without its rank: "stream 7", "queue 16", "python3 · thread 4037"
    int64_t stream = -1;   // GPU activities: the stream (or queue) id; else -1
    int64_t start = 0;     // relative ns (the timeline's t = 0)
    int64_t duration = 0;  // ns
    std::string grid;      // kernels: "x×y×z" grid and block ("grid 108×1×1 block 256×1×1"); else empty
    int64_t step = -1;     // the ProfilerStep number it falls in, -1: none
};
// What happened in a time range [start, end) (relative ns) of a timeline: busy time of the items clipped to the
// range, per category (largest first) and per name (the top names by clipped time).
struct RangeSummary {
    int64_t start = 0, end = 0;
    int64_t busy = 0;  // sum of the clipped durations
    size_t items = 0;  // items that intersect the range
    std::vector<std::pair<std::string, int64_t>> categories;
    struct Top {
        std::string name;
        int64_t clipped = 0;
        size_t count = 0;
    };
    std::vector<Top> top;
};

// What is under the cursor (tooltips, click details).
struct HitInfo {
    std::string title;                                        // e.g. the kernel name
    std::vector<std::pair<std::string, std::string>> fields;  // ("duration", "12.3 µs"), ("step", "12") ...
    std::optional<QRectF> itemRect;                           // where the item is drawn, for a highlight
    // The ranks the item is about, of the run labelled `run` (a rank × step heatmap's cell: its rank, or its block's
    // ranks with the one it shows first): the view offers to load their events when the run is summary-first.
    std::string run;
    std::vector<int> ranks;
    std::string toText() const;                               // title, then "field: value" lines
};

// Timelines: the horizontal axis is time. The visible range lives in two drawing parameters (see
// plots/timeline_view.h for the helpers the GUI calls on wheel, drag and box-zoom):
//   view_start_ns, view_end_ns — relative to the timeline's origin (dataRange().first); both 0 = whole range
//   lane_scroll                — index of the first visible lane
// Changing them never re-runs prepare().
struct TimelineGeometry {
    QRectF plotArea;        // the part of the canvas where time runs left to right
    int64_t originNs = 0;   // absolute time of relative 0
    int64_t viewStart = 0;  // relative ns at plotArea.left()
    int64_t viewEnd = 1;    // relative ns at plotArea.right()
    int64_t fullStart = 0;  // relative extent of the data
    int64_t fullEnd = 1;
    int laneCount = 0;      // lanes in total
    int visibleLanes = 0;   // lanes that fit
    double laneHeight = 0;  // drawn height of one lane (the set height, or more when few lanes fill the view)
    QRectF axisRect;        // the time axis above the lanes (drag there to measure a range)
    QRectF overviewRect;    // the overview strip of the whole run (click or drag there to move the view); may be empty
    QRectF legendRect;      // the legend (a click there shows the whole legend when it is compact); may be empty

    double xForTime(int64_t relNs) const;
    int64_t timeForX(double x) const;
};

// What a plot is called and where it stands in lists: a plot gives it to Plot's constructor once, or overrides
// id(), title(), description() and order().
struct PlotInfo {
    std::string id;  // stable, lower-case with dashes: "gpu-timeline"
    std::string title;
    std::string description;
    int order = 100;  // position in lists (lower first)
};

class TimelineNavigation;

// The base of every plot: what every plot has. A plot is written on TypedPlot<P> below (its prepare() returns its
// own prepared type P and draw()/table() receive it); Plot itself is the untyped face the registry, the prepared
// cache, the GUI and the exports use.
class Plot {
public:
    Plot() = default;
    explicit Plot(PlotInfo info) : m_info(std::move(info)) {}
    virtual ~Plot() = default;
    virtual std::string id() const { return m_info.id; }
    virtual std::string title() const { return m_info.title; }
    virtual std::string description() const { return m_info.description; }
    virtual int order() const { return m_info.order; }
    // Specs may depend on the data (choices of StringList, ranks for RankSet); runs may be empty. The keys and
    // types must not depend on the data, only choices and defaults of data-dependent lists.
    virtual std::vector<ParamSpec> parameters(const RunSet& runs) const = 0;
    // Pure and thread-safe; polls `cancel` at chunk boundaries and returns an Error("cancelled") if set.
    // `values` are resolved (every key present, valid).
    virtual core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values,
                                              const core::CancelToken& cancel,
                                              const core::ProgressFn& progress) const = 0;
    // Cheap. Must tolerate `prepared` made with other prepare-parameter values (the last good picture is
    // redrawn while a new one is prepared).
    virtual void draw(Canvas& canvas, const Prepared& prepared, const ParamValues& values) const = 0;
    // Why there is nothing to draw, when there is nothing (no GPU activity, one rank where matching needs two,
    // every value zero...): paintPlot() then shows the title and this reason instead of empty axes, in the GUI
    // and in every exported file alike. nullopt when the picture has something to show.
    virtual std::optional<std::string> emptyMessage(const Prepared& /*prepared*/, const ParamValues& /*values*/) const {
        return std::nullopt;
    }
    // The numbers of a bar, line or box chart as plain data, for views other than draw() (the GUI's interactive
    // chart); nullopt for plots that are not such charts (timelines, tables) or have nothing to draw.
    virtual std::optional<ChartData> chartData(const Prepared& /*prepared*/, const ParamValues& /*values*/) const {
        return std::nullopt;
    }
    // The table behind the picture (CSV export); must match the analysis it shows.
    virtual core::Table table(const Prepared& prepared, const ParamValues& values) const = 0;
    // The item under `point` when drawn in `rect`, if any.
    virtual std::optional<HitInfo> hitTest(const Prepared& /*prepared*/, const ParamValues& /*values*/,
                                           const QRectF& /*rect*/, QPointF /*point*/) const {
        return std::nullopt;
    }
    // Text for the value under the cursor: hitTest(...).toText().
    std::optional<std::string> tooltipAt(const Prepared& p, const ParamValues& v, const QRectF& rect,
                                         QPointF point) const {
        if (auto h = hitTest(p, v, rect, point)) return h->toText();
        return std::nullopt;
    }
    // Tables: the GUI shows table() in a scrollable, sortable table widget (every row, every column, cells as
    // formatCell() writes them) instead of draw()'s picture, which exports still use.
    virtual bool isTable() const { return false; }
    // Whether draw() puts the plot's title at the top (drawTitle); an exported picture adds it when not.
    virtual bool drawsTitle() const { return timeline() == nullptr; }
    // Timelines (the horizontal axis is time) offer their navigation: geometry for zoom, pan and synchronised
    // time axes, search, the item under the cursor, flows, measuring. nullptr for every other plot.
    virtual const TimelineNavigation* timeline() const { return nullptr; }
    bool isTimeline() const { return timeline() != nullptr; }

private:
    PlotInfo m_info;
};

// What a timeline offers the GUI (search, context menu, measure, zoom); Plot::timeline() returns it. Each call
// takes the Prepared the timeline's own prepare() made (another plot's gives the empty answer).
class TimelineNavigation {
public:
    virtual ~TimelineNavigation() = default;
    // Where the time axis and the lanes are when drawn in `rect` with `values`.
    virtual std::optional<TimelineGeometry> geometry(const Prepared&, const ParamValues&, const QRectF& rect) const = 0;
    // Items whose name matches `query`, ordered by start time (then lane); an Error for an invalid regex.
    virtual core::Result<std::vector<ItemRef>> findItems(const Prepared&, const ParamValues&,
                                                         const FindQuery& query) const = 0;
    // The item under `point` when drawn in `rect`.
    virtual std::optional<ItemRef> itemAt(const Prepared&, const ParamValues&, const QRectF& rect,
                                          QPointF point) const = 0;
    // Where each item is drawn in `rect` with `values` (nullopt: out of view or its lane scrolled away).
    virtual std::vector<std::optional<QRectF>> itemRects(const Prepared&, const ParamValues&, const QRectF& rect,
                                                         const std::vector<ItemRef>& items) const = 0;
    virtual std::string itemName(const Prepared&, const ItemRef& item) const = 0;
    // `values` with the view moved so that `item` is in view (zoomed to it with a margin) and its lane shown.
    virtual ParamValues revealItem(const Prepared&, const ParamValues& values, const QRectF& rect,
                                   const ItemRef& item) const = 0;
    // A click on the lane-label gutter at `pt` (e.g. expanding a CPU thread); the new values, or none when the
    // click is not on something that toggles.
    virtual std::optional<ParamValues> gutterClick(const Prepared&, const ParamValues&, const QRectF& rect,
                                                   QPointF pt) const = 0;
    // The flows through `item` (a kernel: its runtime call and operator; an operator or runtime call: what it
    // launched), at most `cap` links; items in hidden lanes (a collapsed thread or rank) are still returned.
    virtual std::vector<FlowLink> flows(const Prepared&, const ParamValues&, const ItemRef& item, size_t cap) const = 0;
    virtual std::optional<NameStats> nameStats(const Prepared&, const ParamValues&, const ItemRef& item) const = 0;
    virtual std::optional<RangeSummary> summarizeRange(const Prepared&, const ParamValues&, int64_t start, int64_t end,
                                                       size_t topN) const = 0;
    // The shown items (lanes of collapsed ranks and threads included) that intersect [start, end), by start.
    virtual std::vector<ItemRef> itemsInRange(const Prepared&, const ParamValues&, int64_t start, int64_t end) const = 0;
    // The events list's row of each item.
    virtual std::vector<EventRow> eventRows(const Prepared&, const std::vector<ItemRef>& items) const = 0;
};

// The base a plot is written on: P is the plot's own prepared type. prepareTyped() returns it, and drawTyped(),
// tableTyped() and the optional hooks receive it; the one downcast from Prepared is here (typed()). A Prepared of
// another type (never made by this plot) draws nothing and gives an empty table.
// The one downcast of the untyped prepared data the caches and the GUI hold: `prepared` as type P (a plot's prepared
// struct), or nullptr when another plot made it. TypedPlot uses it; so may a test that inspects a plot's prepared data.
template <class P>
const P* preparedAs(const Prepared& prepared) {
    return dynamic_cast<const P*>(&prepared);
}

template <class P>
class TypedPlot : public Plot {
    static_assert(std::is_base_of_v<Prepared, P>, "a plot's prepared type derives from plots::Prepared");

public:
    using Plot::Plot;
    using PreparedType = P;

    core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
                                      const core::ProgressFn& progress) const final {
        auto r = prepareTyped(runs, values, cancel, progress);
        if (!r) return r.error();
        return PreparedPtr(std::move(r.value()));
    }
    void draw(Canvas& canvas, const Prepared& prepared, const ParamValues& values) const final {
        if (const P* p = typed(prepared)) drawTyped(canvas, *p, values);
    }
    std::optional<std::string> emptyMessage(const Prepared& prepared, const ParamValues& values) const final {
        const P* p = typed(prepared);
        return p ? emptyMessageTyped(*p, values) : std::nullopt;
    }
    std::optional<ChartData> chartData(const Prepared& prepared, const ParamValues& values) const final {
        const P* p = typed(prepared);
        return p ? chartDataTyped(*p, values) : std::nullopt;
    }
    core::Table table(const Prepared& prepared, const ParamValues& values) const final {
        const P* p = typed(prepared);
        return p ? tableTyped(*p, values) : core::Table{};
    }
    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                   QPointF point) const final {
        const P* p = typed(prepared);
        return p ? hitTestTyped(*p, values, rect, point) : std::nullopt;
    }

    // `prepared` as this plot's type, or nullptr when another plot made it.
    static const P* typed(const Prepared& prepared) { return preparedAs<P>(prepared); }

protected:
    virtual core::Result<std::shared_ptr<P>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                          const core::CancelToken& cancel,
                                                          const core::ProgressFn& progress) const = 0;
    virtual void drawTyped(Canvas& canvas, const P& prepared, const ParamValues& values) const = 0;
    virtual core::Table tableTyped(const P& prepared, const ParamValues& values) const = 0;
    // The optional parts of Plot's contract, typed; the defaults say "nothing".
    virtual std::optional<std::string> emptyMessageTyped(const P&, const ParamValues&) const { return std::nullopt; }
    virtual std::optional<ChartData> chartDataTyped(const P&, const ParamValues&) const { return std::nullopt; }
    virtual std::optional<HitInfo> hitTestTyped(const P&, const ParamValues&, const QRectF&, QPointF) const {
        return std::nullopt;
    }
};

// Convenience for tests and the command line: resolve values, prepare synchronously on this thread.
core::Result<PreparedPtr> prepareNow(const Plot& plot, const RunSet& runs, const ParamValues& values = {},
                                     const core::CancelToken& cancel = {}, const core::ProgressFn& progress = {});

// The error prepare() returns when it saw the cancel token.
core::Error cancelledError();
bool isCancelledError(const core::Error& e);

}  // namespace strobe::plots
