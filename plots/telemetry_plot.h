#pragma once
// What the telemetry plots (power-timeline, freq-vs-power, freq-temp-correlation, power-cap-distribution,
// power-freq-summary, total-power, cpu-active-cores, cpu-core-heatmap; overhead-breakdown uses the panels) share:
// samples of a metric (core SampleTable, Strobe's names: core/formats/telemetry_metrics.h) gathered per run and
// GPU, pairs of two metrics read at the same instant, Pearson's r, a scatter chart, per-core CPU utilisation from
// the sampler, grouped bars with whiskers, and small-multiple panels.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plots/chart.h"
#include "plots/plot.h"

namespace strobe::plots {

// The samples of one metric of one GPU of one run: (ns since the run's first sample, value), or for pairs
// (x metric, y metric) read at the same time.
struct TelemetrySeries {
    std::string label;  // "run · GPU 0" (the run's label alone when it has one GPU and the set one run)
    size_t run = 0;
    int device = 0;
    std::vector<std::pair<double, double>> points;
};

struct TelemetryPrepared final : Prepared {
    std::vector<TelemetrySeries> series;
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;  // why some run contributes nothing
    size_t bytes() const override;
};

// Every GPU's samples of `metric`, one series per (run, rank, device), times relative to the run's first sample
// of any metric (each run on its own clock: runs are compared by elapsed time). Polls `cancel` per rank.
core::Result<std::vector<TelemetrySeries>> metricSeries(const RunSet& runs, std::string_view metric,
                                                        const core::CancelToken& cancel);
// Samples of `xMetric` and `yMetric` with the same (rank, device, ts), one series per run (all its GPUs).
core::Result<std::vector<TelemetrySeries>> pairedSeries(const RunSet& runs, std::string_view xMetric,
                                                        std::string_view yMetric, const core::CancelToken& cancel);
// Runs that contribute no series, as messages ("run b: no power_w samples").
std::vector<std::string> missingRunMessages(const RunSet& runs, const std::vector<TelemetrySeries>& series,
                                            const std::string& what);

// The telemetry metrics the runs hold, over every sample source (core::Dataset::sampleSources: the hosts' telemetry
// and the ranks' own samples): `all` lists Strobe's vocabulary (core/formats/telemetry_metrics.h) first, in its
// order, then the other metrics in the order the sources name them; `shown` is what to show by default: every
// metric of the vocabulary and every host-wide one (device -1: the CPU sampler's cpu.util_pct, cpu<N>.util_pct,
// mem_used_mib, ...). A GPU column outside the vocabulary (nvidia-smi's query-gpu CSV carries some 200) is in
// `all`, offered but not shown.
struct TelemetryMetrics {
    std::vector<std::string> all, shown;
};
TelemetryMetrics telemetryMetrics(const RunSet& runs);

// Pearson's correlation coefficient of the points; NaN with fewer than 2 points or no variance.
double pearsonR(const std::vector<std::pair<double, double>>& points);

// A scatter chart: title, legend (one entry per series), axes fitted to the points, one dot per point.
struct ScatterChart {
    std::string title, subtitle;
    std::string xTitle, yTitle;
    TickUnit xUnit = TickUnit::Number, yUnit = TickUnit::Number;
    std::vector<std::string> legend;  // one per series (default: the series' labels)
    bool lines = false;               // connect the points (time series) instead of dots
    std::vector<QColor> colors;       // one per series (default: seriesColor(i))
    std::vector<Qt::PenStyle> styles; // lines: one per series (default: seriesPenStyle(i))
    bool yFromZero = false;           // the y axis starts at 0 (counts)
};
ChartLayout layoutScatter(Canvas& c, const ScatterChart& chart, const std::vector<TelemetrySeries>& series);
void drawScatter(Canvas& c, const ScatterChart& chart, const std::vector<TelemetrySeries>& series);
std::optional<HitInfo> hitScatter(const ScatterChart& chart, const std::vector<TelemetrySeries>& series,
                                  const QRectF& rect, QPointF pt, const std::string& xName, const std::string& yName);

// Small multiples: `n` panels filling `area`, `gap` px apart: one column of up to three panels, else two columns.
std::vector<QRectF> panelRects(const QRectF& area, size_t n, double gap = 14);

// Per-core CPU utilisation of a run from a CPU sampler (core/formats/strobe_sampler_csv.h: host-wide metrics
// "cpu<N>.util_pct", each the busy share of the interval that ends at its sample time).
struct CoreUtilisation {
    std::vector<int64_t> ts;               // sample times (ns, the sampler's clock), ascending, distinct
    std::vector<int> cores;                // core numbers, ascending
    std::vector<std::vector<double>> pct;  // [core][sample]; NaN where that core has no value at that time
    bool empty() const { return ts.empty() || cores.empty(); }
};
// The core number of a per-core metric name ("cpu12.util_pct" → 12), nullopt for any other name.
std::optional<int> coreOfMetric(std::string_view metric);
// Every host-wide (device -1) per-core sample of every rank of the run. Polls `cancel` per rank.
core::Result<CoreUtilisation> coreUtilisation(const core::Dataset& ds, const core::CancelToken& cancel);

// Bars side by side within bands of a category axis (one slot per series in every band) on a linear value axis
// from 0, with optional whiskers (p25–p75...) and the value written above a bar where it fits.
struct GroupedBars {
    std::string valueTitle;   // the value axis' title
    std::string valueSuffix;  // after a value label (" W")
    std::vector<std::string> bands;
    std::vector<std::string> series;
    std::vector<QColor> colors;                // one per series
    std::vector<std::vector<double>> values;   // [band][series]; NaN: no bar in that slot
    std::vector<std::vector<std::pair<double, double>>> whiskers;  // same shape, or empty for none
};
ChartLayout layoutGroupedBars(Canvas& c, const QRectF& area, const GroupedBars& bars);
void drawGroupedBars(Canvas& c, const QRectF& area, const GroupedBars& bars);
// The (band, series) of the bar under `pt` (its whiskers included) when drawn in `area`.
std::optional<std::pair<size_t, size_t>> groupedBarAt(const QRectF& area, const GroupedBars& bars, QPointF pt);

// A scatter of two telemetry metrics sampled together (same GPU, same instant), one series per run and GPU: the
// metrics are two string parameters; subclasses give the chart's titles and legend, and the table.
class PairedMetricScatterPlot : public TypedPlot<TelemetryPrepared> {
public:
    PairedMetricScatterPlot(PlotInfo info, const StringParam& x, const StringParam& y)
        : TypedPlot(std::move(info)), m_x(x), m_y(y) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override { return {m_x.spec(), m_y.spec()}; }

protected:
    core::Result<std::shared_ptr<TelemetryPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                  const core::CancelToken& cancel,
                                                                  const core::ProgressFn&) const override;
    std::optional<std::string> emptyMessageTyped(const TelemetryPrepared& p, const ParamValues& values) const override;
    void drawTyped(Canvas& c, const TelemetryPrepared& p, const ParamValues& values) const override;
    std::optional<HitInfo> hitTestTyped(const TelemetryPrepared& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override;

    // Titles, axis names and legend for the prepared series.
    virtual ScatterChart chart(const TelemetryPrepared& p, const ParamValues& v) const = 0;

    const StringParam& m_x;
    const StringParam& m_y;
};

}  // namespace strobe::plots
