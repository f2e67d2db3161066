// MFU per step: achieved TFLOP/s and model FLOPs utilisation per ProfilerStep, from the GEMM shapes PyTorch's
// profiler records (aten::mm/addmm/bmm/linear/matmul with "Input Dims": core/analysis/gemm_flops.h). A step's
// FLOPs are those of the GEMM ops that started in it; its time is the step's duration; MFU = FLOPs ÷ (duration × the
// GPU's peak for the data type), the peak from resources/arch_constants.yaml for the trace's GPU (deviceProperties)
// or the peak_tflops parameter. Several ranks of a run: FLOPs summed, divided by the sum of their step times (per
// GPU). One line per run. Only GEMMs are counted (convolutions, attention kernels and element-wise work are not), so
// this is a lower bound of the model's FLOPs. A legacy torch trace (no shapes) takes its GEMMs from strobe_torch's
// op-shapes table beside it: the same average in every step, which a message says.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/analysis/gemm_flops.h"
#include "plots/analysis_plot.h"
#include "plots/counter_metrics.h"
#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const EnumParam kValue = EnumParam{"value", "Value", "Draw MFU (% of peak) or achieved TFLOP/s", "mfu"}
                             .choices({"mfu", "tflops"})
                             .drawOnly();
const EnumParam kDtype =
    EnumParam{"dtype", "Data type",
              "Data type of the peak (auto: the type of most GEMM FLOPs in the run; fp32 on NVIDIA is the CUDA-core "
              "rate, tf32 the tensor-core rate)",
              "auto"}
        .choices({"auto", "fp64", "fp32", "tf32", "fp16", "bf16", "fp8"});
const DoubleParam kPeak =
    DoubleParam{"peak_tflops", "Peak TFLOP/s", "Peak of one GPU (0: from arch_constants.yaml for the trace's GPU)", 0.0}
        .bounded(0, 1e6, 1);

struct StepRow {
    size_t run = 0;
    int64_t step = 0;
    int ranks = 0;
    size_t ops = 0;
    double flops = 0;
    int64_t ns = 0;          // summed over ranks
    double peakTimesNs = 0;  // Σ peak TFLOP/s × ns over ranks with a peak
    int ranksWithPeak = 0;
    std::string dtype, gpu;
    double tflops() const { return ns > 0 ? flops / double(ns) / 1000.0 : 0.0; }
    std::optional<double> mfuPct() const {
        if (ranksWithPeak != ranks || peakTimesNs <= 0) return std::nullopt;
        return 100.0 * flops / (peakTimesNs * 1000.0);
    }
    double peak() const { return ns > 0 ? peakTimesNs / double(ns) : 0.0; }
};

struct MfuPrepared final : Prepared {
    std::vector<StepRow> rows;  // by run, then step
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    size_t bytes() const override { return sizeof(*this) + rows.size() * sizeof(StepRow); }
};

// What drawing and hit tests share: the chart and the series drawn on it.
struct MfuFrame {
    ChartLayout g;
    std::vector<TelemetrySeries> series;
};

class MfuPerStepPlot final : public ChartPlot<MfuPrepared, MfuFrame> {
public:
    MfuPerStepPlot()
        : ChartPlot({"mfu-per-step", "MFU per step",
                     "Achieved TFLOP/s and model FLOPs utilisation per ProfilerStep from the GEMM shapes of the Kineto "
                     "trace (aten::mm/addmm/bmm/linear/matmul), against the GPU's peak; one line per run.",
                     100}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {ranksSpec(runs), kDtype.spec(), kPeak.spec(), kValue.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<MfuPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                            const core::CancelToken& cancel,
                                                            const core::ProgressFn&) const override {
        auto p = std::make_shared<MfuPrepared>();
        const auto ranks = kRanks(values);
        for (size_t run = 0; run < runs.size(); ++run) {
            p->runLabels.push_back(runs[run].label);
            if (!runs[run].dataset) continue;
            std::map<int64_t, StepRow> steps;
            size_t withoutShapes = 0, counted = 0;
            for (const auto& rp : runs[run].dataset->ranks) {
                if (cancel.cancelled()) return cancelledError();
                if (!rankSelected(ranks, rp->rank) || rp->steps.size() == 0) continue;
                // A legacy trace's GEMMs have no shapes; its op-shapes table stands in for them (and says so).
                if (!addRank(*rp, run, values, steps, p->messages)) withoutShapes += core::gemmOps(*rp).withoutShapes;
            }
            for (auto& [n, row] : steps) {
                counted += row.ops;
                p->rows.push_back(std::move(row));
            }
            if (steps.empty())
                p->messages.push_back(runs[run].label + ": no ProfilerStep ranges (profile with a schedule and call "
                                                        "prof.step())");
            else if (counted == 0)
                p->messages.push_back(runs[run].label + ": no GEMM op with \"Input Dims\" in any step (profile with "
                                                        "record_shapes=True)");
            if (withoutShapes > 0)
                p->messages.push_back(fmt::format("{}: {} GEMM ops without usable shapes were not counted",
                                                  runs[run].label, withoutShapes));
        }
        return p;
    }

    std::optional<std::string> nothingToDraw(const MfuPrepared& p, const ParamValues& values) const override {
        if (!series(p, values).empty()) return std::nullopt;
        bool anyFlops = std::any_of(p.rows.begin(), p.rows.end(), [](const StepRow& r) { return r.ops > 0; });
        if (anyFlops && kValue(values) == "mfu")
            return "no peak FLOP/s for the trace's GPU: set peak_tflops, or draw value=tflops\n" +
                emptyReason(p.messages, "");
        return emptyReason(p.messages, "no GEMM FLOPs in any ProfilerStep");
    }

    std::optional<ChartData> chartOf(const MfuPrepared& p, const ParamValues& values) const override {
        auto s = series(p, values);
        ChartData d;
        d.kind = ChartData::Kind::Lines;
        d.title = title();
        d.subtitle = subtitle(p, values);
        const bool mfu = kValue(values) == "mfu";
        d.valueUnit = mfu ? ChartData::Unit::Percent : ChartData::Unit::Number;
        d.valueLabel = mfu ? "MFU (% of peak)" : "achieved TFLOP/s per GPU";
        d.xUnit = ChartData::Unit::Number;
        d.xLabel = "ProfilerStep";
        for (size_t i = 0; i < s.size(); ++i) d.series.push_back({s[i].label, seriesColor(int(i)), {}, s[i].points});
        return d;
    }

    MfuFrame frame(Canvas& c, const MfuPrepared& p, const ParamValues& values) const override {
        MfuFrame f;
        f.series = series(p, values);
        f.g = layout(c, p, values, f.series);
        return f;
    }

    void drawMarks(Canvas& c, const MfuFrame& f, const MfuPrepared&, const ParamValues&) const override {
        const ChartLayout& g = f.g;
        const auto& s = f.series;
        drawAxes(c, g);
        auto& painter = c.painter;
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setClipRect(g.plot.adjusted(-5, -5, 5, 5));
        for (size_t i = 0; i < s.size(); ++i) {
            const QColor color = seriesColor(int(i));
            QPolygonF line;
            for (auto [x, y] : s[i].points) line << QPointF(stepX(g, x), g.yAt(y));
            painter.setPen(QPen(color, 2, seriesPenStyle(int(i))));
            painter.drawPolyline(line);
            painter.setBrush(color);
            for (const QPointF& q : line) painter.drawEllipse(q, 3.5, 3.5);
            painter.setBrush(Qt::NoBrush);
        }
        painter.restore();
    }

    std::optional<HitInfo> hitMarks(const MfuFrame& f, const MfuPrepared& p, const ParamValues& values,
                                    QPointF pt) const override {
        const ChartLayout& g = f.g;
        double best = 8;
        std::optional<HitInfo> hit;
        for (const auto& row : p.rows) {
            const auto y = valueOf(row, values);
            if (!y) continue;
            const double d = std::hypot(stepX(g, double(row.step)) - pt.x(), g.yAt(*y) - pt.y());
            if (d >= best) continue;
            best = d;
            HitInfo h;
            h.title = fmt::format("{} · ProfilerStep#{}", p.runLabels[row.run], row.step);
            h.fields = {{"GEMM FLOPs", formatNumber(row.flops)},
                        {"GEMM ops", std::to_string(row.ops)},
                        {"step time", formatDuration(double(row.ns) / std::max(1, row.ranks))},
                        {"achieved", formatNumber(row.tflops()) + " TFLOP/s per GPU"}};
            if (auto m = row.mfuPct()) {
                h.fields.emplace_back("MFU", formatPercent(*m));
                h.fields.emplace_back("peak", fmt::format("{} TFLOP/s {}", formatNumber(row.peak()), row.dtype));
            }
            hit = h;
        }
        return hit;
    }

    core::Table tableTyped(const MfuPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"run", "step", "ranks", "gemm_ops", "gemm_flops", "step_ns", "tflops", "peak_tflops", "mfu_pct",
                     "dtype", "gpu"};
        t.messages = p.messages;
        for (const auto& r : p.rows) {
            const auto mfu = r.mfuPct();
            std::vector<core::Cell> row{p.runLabels[r.run], r.step, int64_t(r.ranks), int64_t(r.ops), r.flops, r.ns,
                                        r.tflops()};
            if (mfu) {
                row.emplace_back(r.peak());
                row.emplace_back(*mfu);
            } else {
                row.emplace_back(std::monostate{});
                row.emplace_back(std::monostate{});
            }
            row.emplace_back(r.dtype);
            row.emplace_back(r.gpu);
            t.addRow(std::move(row));
        }
        return t;
    }

private:
    // The steps of one rank added into `steps` (by step number); true when their FLOPs came from the rank's
    // op-shapes table (core::gemmFlopsPerStep: the legacy trace), whose note joins the messages.
    static bool addRank(const core::RankData& r, size_t run, const ParamValues& values, std::map<int64_t, StepRow>& steps,
                        std::vector<std::string>& messages) {
        std::string note;
        const auto perStep = core::gemmFlopsPerStep(r, &note);
        if (!note.empty()) messages.push_back(note);
        std::string dtype = kDtype(values);
        if (dtype == "auto") {
            std::map<std::string, double> byType;
            for (const auto& s : perStep) byType[s.dtype] += s.flops;
            dtype = "fp32";
            double best = 0;
            for (const auto& [t, f] : byType)
                if (!t.empty() && f > best) best = f, dtype = t;
        }
        const auto* arch = archOf(r);
        std::optional<double> peak;
        if (kPeak(values) > 0) peak = kPeak(values);
        else if (arch) peak = core::peakTflops(*arch, dtype);
        if (!peak && kPeak(values) <= 0) {
            const std::string gpu = r.info.gpuName().empty() ? "(the trace names no GPU)" : r.info.gpuName();
            std::string msg = arch ? fmt::format("rank {}: arch_constants.yaml has no {} peak for {} ({}): set peak_tflops",
                                                 r.rank, dtype, arch->key, gpu)
                                   : fmt::format("rank {}: no architecture constants for GPU {}: set peak_tflops", r.rank, gpu);
            if (std::find(messages.begin(), messages.end(), msg) == messages.end()) messages.push_back(std::move(msg));
        }
        for (const auto& s : perStep) {
            StepRow& row = steps[s.step];
            row.run = run;
            row.step = s.step;
            row.ranks += 1;
            row.ops += s.ops;
            row.flops += s.flops;
            row.ns += s.end - s.start;
            row.dtype = dtype;
            row.gpu = kPeak(values) > 0 ? "peak_tflops" : arch ? arch->key : r.info.gpuName();
            if (peak) {
                row.peakTimesNs += *peak * double(s.end - s.start);
                row.ranksWithPeak += 1;
            }
        }
        return std::any_of(perStep.begin(), perStep.end(), [](const core::StepGemmFlops& s) { return s.fromOpShapes; });
    }

    static std::optional<double> valueOf(const StepRow& r, const ParamValues& v) {
        if (kValue(v) == "tflops") return r.tflops();
        return r.mfuPct();
    }

    std::vector<TelemetrySeries> series(const MfuPrepared& p, const ParamValues& v) const {
        std::vector<TelemetrySeries> out;
        std::map<size_t, size_t> index;
        for (const auto& r : p.rows) {
            const auto y = valueOf(r, v);
            if (!y) continue;
            auto [it, added] = index.try_emplace(r.run, out.size());
            if (added) out.push_back({p.runLabels[r.run], r.run, 0, {}});
            out[it->second].points.push_back({double(r.step), *y});
        }
        return out;
    }

    std::string subtitle(const MfuPrepared& p, const ParamValues& v) const {
        std::set<std::string> peaks;
        for (const auto& r : p.rows)
            if (r.mfuPct()) peaks.insert(fmt::format("{} {} {} TFLOP/s", r.gpu, r.dtype, formatNumber(r.peak())));
        std::string peakText;
        for (const auto& s : peaks) peakText += (peakText.empty() ? "" : ", ") + s;
        return fmt::format("GEMM FLOPs (aten::mm/addmm/bmm/linear/matmul shapes) ÷ step time{}{}",
                           kValue(v) == "mfu" ? " ÷ peak" : "", peakText.empty() ? "" : "; peak: " + peakText);
    }

    // One band per step number (of every run) along x, the value from 0 up.
    ChartLayout layout(Canvas& c, const MfuPrepared& p, const ParamValues& v, const std::vector<TelemetrySeries>& s) const {
        QRectF area = drawTitle(c, c.rect, title(), subtitle(p, v));
        std::vector<LegendEntry> legend;
        for (size_t i = 0; i < s.size(); ++i) legend.push_back({s[i].label, seriesColor(int(i)), true, seriesPenStyle(int(i))});
        area = drawLegend(c, area, legend, legendMode(v));
        std::set<double> steps;
        double yhi = 0;
        for (const auto& series : s)
            for (auto [x, y] : series.points) steps.insert(x), yhi = std::max(yhi, y);
        std::vector<std::string> bands;
        for (double x : steps) bands.push_back(fmt::format("{}", int64_t(x)));
        const bool mfu = kValue(v) == "mfu";
        if (yhi <= 0) yhi = mfu ? 1 : 0.001;
        return layoutChart(QFontMetricsF(c.painter.font()), area, ChartAxis::bandsOf(std::move(bands), "ProfilerStep"),
                           ChartAxis::linear(0, yhi * 1.1, mfu ? TickUnit::Percent : TickUnit::Number,
                                             mfu ? "MFU (% of peak)" : "achieved TFLOP/s per GPU"));
    }
    // The centre of a step's band.
    static double stepX(const ChartLayout& g, double step) {
        const std::string label = fmt::format("{}", int64_t(step));
        const auto it = std::find(g.x.bands.begin(), g.x.bands.end(), label);
        const size_t band = size_t(it - g.x.bands.begin());
        return g.bandStart(true, band) + g.bandSize(true) / 2;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(MfuPerStepPlot)

}  // namespace strobe::plots
