// Roofline: per kernel, arithmetic intensity (FLOP per byte of device memory) against achieved FLOP/s on log-log
// axes, under the GPU's memory roof (peak HBM bandwidth × intensity) and compute roof (peak FLOP/s of the chosen
// data type), both from resources/arch_constants.yaml; the ridge point where they meet is marked. One point per
// kernel name and run, sized by its total time. FLOPs and bytes come from hardware counters where the data has them
// (derived metrics flops and hbm_bytes); for a Kineto trace recorded with shapes, a kernel launched by a GEMM op
// (aten::mm/addmm/bmm/linear/matmul) gets the op's FLOPs and least traffic (core/analysis/gemm_flops.h), shared
// among the op's kernels by duration. Kernels with neither are listed in a message.
// With source=ops (issue 27) the points are operator instances instead: every instance the `ops` analysis models
// (core/analysis/op_efficiency.h: GEMM, attention, convolution, normalisation, softmax, embedding, element-wise...)
// at its FLOPs / bytes and FLOPs / kernel time, coloured by operator family; over several runs (a sweep's
// configurations) each run has its own marker shape. Instances without FLOPs (copies, fills) cannot sit on a log
// FLOP/s axis and are counted in a message.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "core/analysis/gemm_flops.h"
#include "core/analysis/registry.h"
#include "plots/analysis_plot.h"
#include "plots/chart.h"
#include "plots/counter_metrics.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

const EnumParam kDtype =
    EnumParam{"dtype", "Data type",
              "Data type of the compute roof (auto: the type of most GEMM FLOPs in the trace, else fp32)", "auto"}
        .choices({"auto", "fp64", "fp32", "tf32", "fp16", "bf16", "fp8"});
const EnumParam kRooflineSource =
    EnumParam{"source", "Points",
              "gemm: one point per kernel name (FLOPs from counters, else from GEMM shapes); ops: one point per "
              "operator instance the ops analysis models, coloured by operator family",
              "gemm"}
        .choices({"gemm", "ops"});

struct Point {
    size_t run = 0;
    std::string name;
    std::string source;  // "counters" or "shapes"; source=ops: the operator family
    std::string shapes, dtype;  // source=ops: the instance's input shapes and data type
    int rank = 0;
    int64_t dispatches = 0, totalNs = 0;
    double flops = 0, bytes = 0;
    double ai() const { return flops / bytes; }
    double tflops() const { return flops / double(totalNs) / 1000.0; }  // FLOP/ns = GFLOP/s
};

struct Roof {
    std::string gpu;        // arch key
    double bandwidthGbs = 0;
    double peakTflops = 0;  // 0: no number for the data type
    double ridge() const { return peakTflops * 1000.0 / bandwidthGbs; }  // FLOP/byte
};

struct RooflinePrepared final : Prepared {
    std::vector<Point> points;
    std::vector<Roof> roofs;
    std::string dtype;
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    bool ops = false;                   // points are operator instances (source=ops)
    std::vector<std::string> families;  // source=ops: the families drawn, sorted (colour = index)
    size_t bytes() const override { return sizeof(*this) + points.size() * 160; }
};

// Per kernel dispatch: FLOPs and bytes of a Kineto GEMM op shared among the kernels it launched, by duration.
std::unordered_map<uint32_t, std::pair<double, double>> shapeCosts(const core::RankData& r, std::map<std::string, double>& dtypeFlops) {
    std::unordered_map<uint32_t, std::pair<double, double>> out;
    if (r.gpu.cpuOp.size() != r.gpu.size() || r.slices.parent.size() != r.slices.size()) return out;
    auto ops = core::gemmOps(r);
    if (ops.ops.empty()) return out;
    std::unordered_map<uint32_t, size_t> opOf;  // slice → index into ops
    for (size_t i = 0; i < ops.ops.size(); ++i) opOf[ops.ops[i].slice] = i;
    std::vector<std::vector<uint32_t>> kernels(ops.ops.size());
    for (uint32_t g = 0; g < r.gpu.size(); ++g) {
        if (r.gpu.kind[g] != core::EventKind::Kernel || r.gpu.cpuOp[g] < 0) continue;
        for (int32_t s = r.gpu.cpuOp[g]; s >= 0; s = r.slices.parent[size_t(s)])
            if (auto it = opOf.find(uint32_t(s)); it != opOf.end()) {
                kernels[it->second].push_back(g);
                break;
            }
    }
    for (size_t i = 0; i < ops.ops.size(); ++i) {
        double total = 0;
        for (uint32_t g : kernels[i]) total += double(r.gpu.dur[g]);
        const auto& c = ops.ops[i].cost;
        if (!kernels[i].empty()) dtypeFlops[c.dtype] += c.flops;
        for (uint32_t g : kernels[i]) {
            const double share = total > 0 ? double(r.gpu.dur[g]) / total : 1.0 / double(kernels[i].size());
            auto& v = out[g];
            v.first += c.flops * share;
            v.second += c.bytes * share;
        }
    }
    return out;
}

std::unordered_map<uint32_t, double> counterValues(const core::RankData& r, const char* metric) {
    std::unordered_map<uint32_t, double> out;
    if (r.kernelCounters.size() == 0) return out;
    for (const auto& [row, v] : core::kernelMetricValues(r, metricLibrary().set, archOf(r), metric))
        if (std::isfinite(v)) out[row] = v;
    return out;
}

class RooflinePlot final : public ChartPlot<RooflinePrepared> {
public:
    RooflinePlot()
        : ChartPlot(
              {"roofline", "Roofline",
               "Per kernel: arithmetic intensity against achieved FLOP/s on log-log axes, under the GPU's memory and "
               "compute roofs; FLOPs and bytes from counters, else from GEMM shapes.",
               99}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {ranksSpec(runs), kRooflineSource.spec(), kDtype.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<RooflinePrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                 const core::CancelToken& cancel,
                                                                 const core::ProgressFn&) const override {
        if (kRooflineSource(values) == "ops") return prepareOps(runs, values, cancel);
        auto p = std::make_shared<RooflinePrepared>();
        const auto ranks = kRanks(values);
        std::map<std::pair<size_t, std::string>, size_t> index;
        std::map<std::string, int64_t> without, zeroTime, noWork;  // kernel name → time or dispatches
        std::map<std::string, double> dtypeFlops;
        std::map<std::string, const core::ArchConstants*> archs;
        std::set<std::string> unknownGpus;
        std::vector<size_t> kernelsOfRun(runs.size(), 0);
        for (size_t run = 0; run < runs.size(); ++run) {
            p->runLabels.push_back(runs[run].label);
            if (!runs[run].dataset) continue;
            for (const auto& rp : runs[run].dataset->ranks) {
                if (cancel.cancelled()) return cancelledError();
                const core::RankData& r = *rp;
                if (!rankSelected(ranks, r.rank)) continue;
                if (const auto* a = archOf(r)) archs[a->key] = a;
                else if (r.gpu.size() > 0) unknownGpus.insert(r.info.gpuName().empty() ? "(unnamed)" : r.info.gpuName());
                const auto flops = counterValues(r, "flops");
                const auto bytes = counterValues(r, "hbm_bytes");
                const auto shapes = shapeCosts(r, dtypeFlops);
                for (uint32_t g = 0; g < r.gpu.size(); ++g) {
                    if (r.gpu.kind[g] != core::EventKind::Kernel) continue;
                    kernelsOfRun[run] += 1;
                    std::string name(r.strings.view(r.gpu.name[g]));
                    double f = 0, b = 0;
                    std::string source;
                    auto fi = flops.find(g), bi = bytes.find(g);
                    if (fi != flops.end() && bi != bytes.end()) {
                        f = fi->second, b = bi->second, source = "counters";
                        if (f <= 0 || b <= 0) {
                            noWork[name] += 1;
                            continue;
                        }
                    } else if (auto si = shapes.find(g); si != shapes.end() && si->second.first > 0) {
                        f = si->second.first, b = si->second.second, source = "shapes";
                    } else {
                        without[name] += r.gpu.dur[g];
                        continue;
                    }
                    if (r.gpu.dur[g] <= 0) {
                        zeroTime[name] += 1;
                        continue;
                    }
                    auto [it, added] = index.try_emplace({run, name}, p->points.size());
                    if (added) {
                        Point np;
                        np.run = run, np.name = name, np.source = source;
                        p->points.push_back(std::move(np));
                    }
                    Point& pt = p->points[it->second];
                    pt.dispatches += 1;
                    pt.totalNs += r.gpu.dur[g];
                    pt.flops += f;
                    pt.bytes += b;
                    if (pt.source != source) pt.source = "counters+shapes";
                }
            }
        }
        resolveRoofs(*p, kDtype(values), dtypeFlops, archs);
        for (size_t run = 0; run < runs.size(); ++run)
            if (kernelsOfRun[run] == 0) p->messages.push_back(runs[run].label + ": no GPU kernels");
        addMessages(*p, without, zeroTime, unknownGpus);
        if (!noWork.empty()) {
            std::string names;
            for (const auto& [name, n] : noWork) names += (names.empty() ? "" : ", ") + name;
            p->messages.push_back(fmt::format("{} kernels whose counters show no floating-point work or no memory "
                                              "traffic (0 FLOPs or 0 bytes): {}",
                                              noWork.size(), names));
        }
        return p;
    }

    std::optional<std::string> nothingToDraw(const RooflinePrepared& p, const ParamValues&) const override {
        if (!p.points.empty()) return std::nullopt;
        return emptyReason(p.messages, "no kernel has FLOPs and bytes");
    }

    void drawMarks(Canvas& c, const ChartLayout& g, const RooflinePrepared& p, const ParamValues&) const override {
        drawAxes(c, g);
        auto& painter = c.painter;
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setClipRect(g.plot);
        drawRoofs(c, g, p);
        const int64_t maxNs = maxTime(p);
        // Largest first, so that small points stay visible on top.
        std::vector<size_t> order(p.points.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return p.points[a].totalNs > p.points[b].totalNs; });
        for (size_t i : order) {
            const Point& pt = p.points[i];
            QColor fill = pointColor(p, pt);
            fill.setAlpha(160);
            painter.setPen(QPen(fill.darker(140), 1));
            painter.setBrush(fill);
            drawMarker(painter, p, pt, QPointF(g.xAt(pt.ai()), g.yAt(pt.tflops())), radius(pt, maxNs));
        }
        painter.restore();
    }

    std::optional<HitInfo> hitMarks(const ChartLayout& g, const RooflinePrepared& p, const ParamValues&,
                                    QPointF at) const override {
        const int64_t maxNs = maxTime(p);
        double best = INFINITY;
        std::optional<HitInfo> hit;
        for (const Point& pt : p.points) {
            const QPointF c(g.xAt(pt.ai()), g.yAt(pt.tflops()));
            const double d = std::hypot(c.x() - at.x(), c.y() - at.y());
            if (d > std::max(6.0, radius(pt, maxNs)) || d >= best) continue;
            best = d;
            HitInfo h;
            h.title = pt.name;
            h.fields = {{"run", p.runLabels[pt.run]},
                        {"arithmetic intensity", formatNumber(pt.ai()) + " FLOP/B"},
                        {"achieved", formatNumber(pt.tflops()) + " TFLOP/s"},
                        {p.ops ? "kernels" : "dispatches", std::to_string(pt.dispatches)},
                        {p.ops ? "kernel time" : "total time", formatDuration(double(pt.totalNs))}};
            if (p.ops) {
                for (const auto& [k, v] : {std::pair<const char*, std::string>{"family", pt.source},
                                           {"shapes", pt.shapes}, {"dtype", pt.dtype}, {"rank", std::to_string(pt.rank)}})
                    h.fields.emplace_back(k, v);
            } else {
                h.fields.emplace_back("FLOPs and bytes from", pt.source);
            }
            if (const Roof* roof = roofOf(p); roof && roof->peakTflops > 0) {
                const double attainable = std::min(roof->peakTflops, pt.ai() * roof->bandwidthGbs / 1000.0);
                h.fields.emplace_back("of the roof", formatPercent(100.0 * pt.tflops() / attainable));
                h.fields.emplace_back("bound", pt.ai() < roof->ridge() ? "memory" : "compute");
            }
            h.itemRect = QRectF(c.x() - 5, c.y() - 5, 10, 10);
            hit = h;
        }
        return hit;
    }

    core::Table tableTyped(const RooflinePrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"run", "kernel", "dispatches", "total_ns", "flops", "bytes", "flop_per_byte", "tflops", "source",
                     "bound", "roof_pct"};
        if (p.ops)
            t.columns = {"run",   "rank",  "op",    "family",        "shapes", "dtype", "kernels",
                         "kernel_ns", "flops", "bytes", "flop_per_byte", "tflops", "bound", "roof_pct"};
        t.messages = p.messages;
        const Roof* roof = roofOf(p);
        for (const Point& pt : p.points) {
            std::vector<core::Cell> row{
                p.runLabels[pt.run], pt.name,  pt.dispatches, pt.totalNs, pt.flops, pt.bytes, pt.ai(),
                pt.tflops(),         pt.source};
            if (p.ops)
                row = {p.runLabels[pt.run], int64_t{pt.rank}, pt.name,  pt.source, pt.shapes,  pt.dtype,
                       pt.dispatches,       pt.totalNs,       pt.flops, pt.bytes,  pt.ai(),    pt.tflops()};
            if (roof && roof->peakTflops > 0) {
                row.emplace_back(std::string(pt.ai() < roof->ridge() ? "memory" : "compute"));
                row.emplace_back(100.0 * pt.tflops() / std::min(roof->peakTflops, pt.ai() * roof->bandwidthGbs / 1000.0));
            } else {
                row.emplace_back(std::monostate{});
                row.emplace_back(std::monostate{});
            }
            t.addRow(std::move(row));
        }
        return t;
    }

private:
    // The data type of the compute roof (auto: the one of most FLOPs, else fp32) and each GPU's roofs.
    static void resolveRoofs(RooflinePrepared& p, const std::string& dtype, const std::map<std::string, double>& dtypeFlops,
                             const std::map<std::string, const core::ArchConstants*>& archs) {
        p.dtype = dtype;
        if (p.dtype == "auto") {
            p.dtype = "fp32";
            double best = 0;
            for (const auto& [t, f] : dtypeFlops)
                if (!t.empty() && f > best) best = f, p.dtype = t;
        }
        for (const auto& [key, a] : archs) {
            auto bw = a->values.find("arch.hbm_bandwidth_gbs");
            if (bw == a->values.end()) continue;
            p.roofs.push_back({key, bw->second, core::peakTflops(*a, p.dtype).value_or(0)});
            if (p.roofs.back().peakTflops <= 0)
                p.messages.push_back(fmt::format("{}: no peak {} FLOP/s in arch_constants.yaml (no compute roof)", key, p.dtype));
        }
    }

    // source=ops: one point per operator instance of the ops analysis (window all, one row per instance).
    static core::Result<std::shared_ptr<RooflinePrepared>> prepareOps(const RunSet& runs, const ParamValues& values,
                                                                      const core::CancelToken& cancel) {
        auto p = std::make_shared<RooflinePrepared>();
        p->ops = true;
        const auto ranks = kRanks(values);
        std::map<std::string, double> dtypeFlops;
        std::map<std::string, const core::ArchConstants*> archs;
        std::set<std::string> families;
        size_t noFlops = 0, noTime = 0;
        for (size_t run = 0; run < runs.size(); ++run) {
            p->runLabels.push_back(runs[run].label);
            if (cancel.cancelled()) return cancelledError();
            if (!runs[run].dataset) continue;
            for (const auto& rp : runs[run].dataset->ranks)
                if (rankSelected(ranks, rp->rank))
                    if (const auto* a = archOf(*rp)) archs[a->key] = a;
            core::AnalysisRequest req;
            if (auto all = core::WindowSpec::parse("all", ""); all) req.window = *all;
            req.values["group-by"] = std::string("instance");
            auto ctx = core::AnalysisContext::of(runs[run].dataset);
            auto t = core::runAnalysis(*ctx, "ops", req);
            if (!t) return core::Error(t.error().where, runs[run].label + ": " + t.error().message);
            for (const auto& m : t->messages)
                if (m.find("of GPU kernel time modelled") != std::string::npos || m.find("arch_constants") != std::string::npos)
                    p->messages.push_back(runs.size() > 1 ? runs[run].label + ": " + m : m);
            for (size_t row = 0; row < t->rows.size(); ++row) {
                const int rank = int(cellNumber(*t, row, "rank"));
                if (!rankSelected(ranks, rank)) continue;
                Point pt;
                pt.run = run, pt.name = cellText(*t, row, "op"), pt.source = cellText(*t, row, "family");
                pt.dispatches = int64_t(cellNumber(*t, row, "kernels"));
                pt.totalNs = int64_t(cellNumber(*t, row, "kernel_ns"));
                pt.flops = cellNumber(*t, row, "flops"), pt.bytes = cellNumber(*t, row, "bytes");
                pt.shapes = cellText(*t, row, "shapes"), pt.dtype = cellText(*t, row, "dtype"), pt.rank = rank;
                if (pt.flops <= 0 || pt.bytes <= 0) {
                    noFlops += 1;
                    continue;
                }
                if (pt.totalNs <= 0) {
                    noTime += 1;
                    continue;
                }
                dtypeFlops[pt.dtype] += pt.flops;
                families.insert(pt.source);
                p->points.push_back(std::move(pt));
            }
        }
        p->families.assign(families.begin(), families.end());
        resolveRoofs(*p, kDtype(values), dtypeFlops, archs);
        if (noFlops > 0)
            p->messages.push_back(fmt::format("{} modelled operator instances without FLOPs or bytes (copies, fills): "
                                              "not on the roofline", noFlops));
        if (noTime > 0)
            p->messages.push_back(fmt::format("{} modelled operator instances without kernel time: not on the roofline",
                                              noTime));
        return p;
    }

    // The colour of a point: its run (source=gemm) or its operator family (source=ops).
    static QColor pointColor(const RooflinePrepared& p, const Point& pt) {
        if (!p.ops) return seriesColor(int(pt.run));
        const auto it = std::lower_bound(p.families.begin(), p.families.end(), pt.source);
        return seriesColor(int(it - p.families.begin()));
    }
    // source=ops over several runs: a marker per run (circle, square, triangle, diamond, then again).
    static void drawMarker(QPainter& painter, const RooflinePrepared& p, const Point& pt, QPointF at, double r) {
        const int shape = p.ops && p.runLabels.size() > 1 ? int(pt.run % 4) : 0;
        if (shape == 0) {
            painter.drawEllipse(at, r, r);
        } else if (shape == 1) {
            painter.drawRect(QRectF(at.x() - r, at.y() - r, 2 * r, 2 * r));
        } else if (shape == 2) {
            painter.drawPolygon(QPolygonF({QPointF(at.x(), at.y() - r), QPointF(at.x() + r, at.y() + r),
                                           QPointF(at.x() - r, at.y() + r)}));
        } else {
            painter.drawPolygon(QPolygonF({QPointF(at.x(), at.y() - r), QPointF(at.x() + r, at.y()),
                                           QPointF(at.x(), at.y() + r), QPointF(at.x() - r, at.y())}));
        }
    }
    static std::string markerName(size_t run) {
        static const char* names[] = {"●", "■", "▲", "◆"};
        return names[run % 4];
    }

    static const Roof* roofOf(const RooflinePrepared& p) { return p.roofs.empty() ? nullptr : &p.roofs.front(); }

    static int64_t maxTime(const RooflinePrepared& p) {
        int64_t m = 1;
        for (const auto& pt : p.points) m = std::max(m, pt.totalNs);
        return m;
    }
    static double radius(const Point& pt, int64_t maxNs) {
        return 3.0 + 11.0 * std::sqrt(double(pt.totalNs) / double(maxNs));
    }

    static void addMessages(RooflinePrepared& p, const std::map<std::string, int64_t>& without,
                            const std::map<std::string, int64_t>& zeroTime, const std::set<std::string>& unknownGpus) {
        for (const auto& g : unknownGpus)
            p.messages.push_back(fmt::format("no architecture constants for GPU '{}': no roofs for it", g));
        if (!without.empty()) {
            std::vector<std::pair<int64_t, std::string>> byTime;
            for (const auto& [name, ns] : without) byTime.emplace_back(-ns, name);
            std::sort(byTime.begin(), byTime.end());
            std::string names;
            for (size_t i = 0; i < std::min<size_t>(8, byTime.size()); ++i)
                names += (i ? ", " : "") + byTime[i].second;
            if (byTime.size() > 8) names += fmt::format(" (+{} more)", byTime.size() - 8);
            p.messages.push_back(fmt::format("{} kernels without FLOPs and bytes (no flops/hbm_bytes counters, not "
                                             "launched by a GEMM op with shapes): {}",
                                             without.size(), names));
        }
        if (!zeroTime.empty()) {
            std::string names;
            for (const auto& [name, n] : zeroTime) names += (names.empty() ? "" : ", ") + name;
            p.messages.push_back(fmt::format("{} kernels with FLOPs and bytes but no duration (FLOP/s unknown): {}",
                                             zeroTime.size(), names));
        }
    }

    static std::string subtitle(const RooflinePrepared& p) {
        std::string roofs;
        for (const auto& r : p.roofs)
            roofs += fmt::format("{}{}: {} GB/s, {} {} TFLOP/s, ridge {} FLOP/B", roofs.empty() ? "" : "; ", r.gpu,
                                 formatNumber(r.bandwidthGbs), formatNumber(r.peakTflops), p.dtype,
                                 r.peakTflops > 0 ? formatNumber(r.ridge()) : std::string("-"));
        std::string modelled;
        for (const auto& m : p.messages)
            if (m.find("of GPU kernel time modelled") != std::string::npos) {
                std::string s = m.substr(0, m.find("; unmodelled"));
                if (const auto at = s.find("ops: "); at != std::string::npos) s.erase(at, 5);
                modelled += s + "; ";
            }
        return fmt::format("{} {}; {}point area ∝ {} time; {}", p.points.size(),
                           p.ops ? "operator instances" : "kernels", modelled, p.ops ? "kernel" : "total",
                           roofs.empty() ? std::string("no roofs (GPU unknown)") : roofs);
    }

    ChartLayout frame(Canvas& c, const RooflinePrepared& p, const ParamValues& v) const override {
        QRectF area = drawTitle(c, c.rect, title(), subtitle(p));
        std::vector<LegendEntry> legend;
        std::set<size_t> runs;
        for (const auto& pt : p.points) runs.insert(pt.run);
        if (p.ops) {
            for (size_t i = 0; i < p.families.size(); ++i) legend.push_back({p.families[i], seriesColor(int(i)), false});
            if (p.runLabels.size() > 1)
                for (size_t r : runs) legend.push_back({markerName(r) + " " + p.runLabels[r], c.theme().muted, true, Qt::NoPen});
        } else if (p.runLabels.size() > 1) {
            for (size_t r : runs) legend.push_back({p.runLabels[r], seriesColor(int(r)), false});
        }
        for (size_t i = 0; i < p.roofs.size(); ++i)
            legend.push_back({p.roofs[i].gpu + " roofs", roofColor(c, i), true, Qt::SolidLine});
        area = drawLegend(c, area, legend, legendMode(v));
        double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
        for (const auto& pt : p.points) {
            xlo = std::min(xlo, pt.ai()), xhi = std::max(xhi, pt.ai());
            ylo = std::min(ylo, pt.tflops()), yhi = std::max(yhi, pt.tflops());
        }
        for (const auto& r : p.roofs)
            if (r.peakTflops > 0) xhi = std::max(xhi, r.ridge()), yhi = std::max(yhi, r.peakTflops);
        auto axis = [](double lo, double hi, std::string titleText) {
            ChartAxis a;
            a.kind = ChartAxis::Kind::Log;
            a.lo = std::floor(std::log10(lo / 2));
            a.hi = std::max(a.lo + 1, std::ceil(std::log10(hi * 2)));
            a.unit = TickUnit::Number;
            a.title = std::move(titleText);
            return a;
        };
        return layoutChart(QFontMetricsF(c.painter.font()), area,
                           axis(xlo, xhi, "arithmetic intensity (FLOP / byte of device memory, log)"),
                           axis(ylo, yhi, "achieved TFLOP/s (log)"));
    }

    static QColor roofColor(const Canvas& c, size_t i) {
        return i == 0 ? c.theme().foreground : seriesColor(int(7 + i));
    }

    static void drawRoofs(Canvas& c, const ChartLayout& g, const RooflinePrepared& p) {
        auto& painter = c.painter;
        const double xlo = std::pow(10.0, g.x.lo), xhi = std::pow(10.0, g.x.hi);
        for (size_t i = 0; i < p.roofs.size(); ++i) {
            const Roof& r = p.roofs[i];
            const QColor color = roofColor(c, i);
            painter.setPen(QPen(color, 1.6));
            const double bw = r.bandwidthGbs / 1000.0;  // TFLOP/s per FLOP/B
            const double ridge = r.peakTflops > 0 ? r.ridge() : xhi;
            painter.drawLine(QPointF(g.xAt(xlo), g.yAt(xlo * bw)), QPointF(g.xAt(ridge), g.yAt(ridge * bw)));
            // The label sits above the part of the memory roof in view, a quarter of the way to the ridge.
            const double visibleFrom = std::max(xlo, std::pow(10.0, g.y.lo) / bw);
            const double labelAt = std::pow(10.0, std::log10(visibleFrom) + 0.25 * (std::log10(ridge) - std::log10(visibleFrom)));
            painter.drawText(QPointF(g.xAt(labelAt) - 20, g.yAt(labelAt * bw) - 10),
                             QString::fromStdString(fmt::format("HBM {} GB/s", formatNumber(r.bandwidthGbs))));
            if (r.peakTflops <= 0) continue;
            painter.drawLine(QPointF(g.xAt(ridge), g.yAt(r.peakTflops)), QPointF(g.xAt(xhi), g.yAt(r.peakTflops)));
            const QString peak = QString::fromStdString(fmt::format("{} {} TFLOP/s", r.gpu, formatNumber(r.peakTflops)));
            const double w = QFontMetricsF(painter.font()).horizontalAdvance(peak);
            painter.drawText(QPointF(g.xAt(xhi) - w - 6, g.yAt(r.peakTflops) - 6), peak);
            // The ridge point: a dashed drop line to the intensity axis.
            painter.setPen(QPen(color, 1, Qt::DashLine));
            painter.drawLine(QPointF(g.xAt(ridge), g.yAt(r.peakTflops)), QPointF(g.xAt(ridge), g.plot.bottom()));
            painter.setBrush(color);
            painter.drawEllipse(QPointF(g.xAt(ridge), g.yAt(r.peakTflops)), 3.5, 3.5);
            painter.setBrush(Qt::NoBrush);
            painter.drawText(QPointF(g.xAt(ridge) + 5, g.plot.bottom() - 6),
                             QString::fromStdString(fmt::format("ridge {} FLOP/B", formatNumber(ridge))));
        }
    }
};

}  // namespace

STROBE_REGISTER_PLOT(RooflinePlot)

}  // namespace strobe::plots
