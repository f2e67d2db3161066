// Kernel duration distribution: box plots and violins (QPainter) of kernel durations grouped by Strobe category
// or by kernel name (optionally only names matching a regex), pooled across the selected ranks and steps, or
// split per rank / per run.
//
// Statistics: percentiles by linear interpolation between closest ranks (numpy's default), standard deviation
// with n−1 (sample), cv = stddev / mean. Box = p25..p75, whiskers = p5..p95, line = median. The violin is a
// Gaussian kernel density (Silverman's bandwidth) on the linear or the log10 axis, both computed in prepare().

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/sweep_axes.h"

namespace strobe::plots {
namespace {

// The shared group_by (plots/sweep_axes.h), one distribution per group; by category unless told.
const StringParam kKernelDurationsGroupBy = kSweepGroupBy.withDefault("category");
const RegexParam kNameRegex{"name_regex", "Kernel name regex",
                            "Only kernels whose name matches (ECMAScript, searched anywhere in the name; empty: all)", ""};
const EnumParam kSplitBy =
    EnumParam{"split_by", "Split by", "Pool every rank, or one distribution per rank or per run within each group",
              "none"}
        .choices({"none", "rank", "run"});
const IntParam kKernelDurationsTopN =
    IntParam{"top_n", "Max groups", "Show the groups with the most total time, at most this many", 12}.bounded(1, 64,
                                                                                                               1);
const StringListParam kDurationSteps{"steps", "Steps",
                                     "ProfilerStep numbers to include (empty: every kernel, inside steps or not)", {}};
const EnumParam kKernelDurationsStyle = kDistributionStyle.withDefault("both");
const BoolParam kKernelDurationsLogScale =
    BoolParam{"log_scale", "Log scale", "Logarithmic duration axis", true}.drawOnly();

constexpr int kDensityPoints = 64;

struct KernelDurationsGroup {
    std::string label;
    QColor color;
    std::vector<int64_t> dur;  // sorted
    int64_t total = 0;
    double mean = 0, stddev = 0;
    double p5 = 0, p25 = 0, median = 0, p75 = 0, p95 = 0;
    std::vector<double> densityLin, densityLog;  // kDensityPoints samples over [min,max] (lin) / [log min, log max]
};

struct DurationsPrepared final : Prepared {
    std::vector<KernelDurationsGroup> groups;
    std::string subtitle;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& g : groups) b += g.dur.capacity() * 8 + 2 * kDensityPoints * 8 + 128;
        return b;
    }
};

double percentile(const std::vector<int64_t>& sorted, double q) {
    if (sorted.empty()) return 0;
    double pos = q * double(sorted.size() - 1);
    auto lo = size_t(std::floor(pos));
    size_t hi = std::min(sorted.size() - 1, lo + 1);
    double f = pos - double(lo);
    return double(sorted[lo]) + (double(sorted[hi]) - double(sorted[lo])) * f;
}

// Gaussian KDE of `xs` evaluated at kDensityPoints points spanning [lo, hi], scaled to max 1. Uses binning into
// 512 bins first so that a million values cost O(n + bins × points).
std::vector<double> density(const std::vector<double>& xs, double lo, double hi) {
    std::vector<double> out(kDensityPoints, 0.0);
    if (xs.empty()) return out;
    if (hi <= lo) {
        std::fill(out.begin(), out.end(), 1.0);
        return out;
    }
    double mean = 0;
    for (double x : xs) mean += x;
    mean /= double(xs.size());
    double var = 0;
    for (double x : xs) var += (x - mean) * (x - mean);
    double sd = xs.size() > 1 ? std::sqrt(var / double(xs.size() - 1)) : 0;
    double bw = 1.06 * std::max(sd, (hi - lo) / 100.0) * std::pow(double(xs.size()), -0.2);
    bw = std::max(bw, (hi - lo) / 200.0);
    constexpr int kBins = 512;
    std::vector<double> bins(kBins, 0.0);
    for (double x : xs) {
        int b = int((x - lo) / (hi - lo) * (kBins - 1) + 0.5);
        bins[size_t(std::clamp(b, 0, kBins - 1))] += 1;
    }
    double mx = 0;
    for (int k = 0; k < kDensityPoints; ++k) {
        double at = lo + (hi - lo) * k / (kDensityPoints - 1);
        double d = 0;
        for (int b = 0; b < kBins; ++b) {
            if (bins[size_t(b)] == 0) continue;
            double c = lo + (hi - lo) * b / (kBins - 1);
            double z = (at - c) / bw;
            if (z > 6 || z < -6) continue;
            d += bins[size_t(b)] * std::exp(-0.5 * z * z);
        }
        out[size_t(k)] = d;
        mx = std::max(mx, d);
    }
    if (mx > 0)
        for (auto& d : out) d /= mx;
    return out;
}

class KernelDurationsPlot final : public ChartPlot<DurationsPrepared> {
public:
    KernelDurationsPlot()
        : ChartPlot({"kernel-durations", "Kernel duration distribution",
                     "Box and violin plots of kernel durations by category or by kernel name (regex), across ranks and "
                     "steps.",
                     80}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kKernelDurationsGroupBy.spec(),
                kNameRegex.spec(),
                kSplitBy.spec(),
                kKernelDurationsTopN.spec(),
                ranksSpec(runs),
                kDurationSteps.spec(stepChoices(runs)),
                kKernelDurationsStyle.spec(),
                kKernelDurationsLogScale.spec()};
    }

    core::Result<std::shared_ptr<DurationsPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                  const core::CancelToken& cancel,
                                                                  const core::ProgressFn& progress) const override {
        auto out = std::make_shared<DurationsPrepared>();
        core::SweepGroupBy by{};
        std::string groupRegex;
        if (auto st = sweepGroupBy(values, by, groupRegex, kKernelDurationsGroupBy); !st) return st.error();
        const bool byCategory = by == core::SweepGroupBy::Category;
        const bool byName = by == core::SweepGroupBy::Name;
        // op, normalized and regex:R: core's grouper names each kernel's group.
        std::optional<core::KernelGrouper> grouper;
        if (!byName && !byCategory) grouper.emplace(by, groupRegex);
        std::string split = kSplitBy(values);
        auto selected = kRanks(values);
        auto topN = size_t(kKernelDurationsTopN(values));
        std::set<int64_t> steps;
        for (const auto& s : kDurationSteps(values)) {
            try {
                steps.insert(std::stoll(s));
            } catch (...) {
                return core::Error(fmt::format("parameter 'steps': '{}' is not a step number", s));
            }
        }
        std::string re = kNameRegex(values);
        std::optional<std::regex> filter;
        if (!re.empty()) filter.emplace(re, std::regex::ECMAScript | std::regex::optimize);

        std::map<std::string, KernelDurationsGroup> groups;  // key "group\x1fsplit"
        auto collectRank = [&](size_t ri, const core::RankData& r) {
            const auto& g = r.gpu;
            std::vector<int8_t> nameOk(filter ? r.strings.size() : 0, -1);
            std::string suffix = split == "rank" ? rankLabel(runs, ri, r.rank)
                : split == "run"                 ? runs[ri].label
                                                 : std::string();
            std::map<uint32_t, KernelDurationsGroup*> cache;
            std::map<const std::string*, KernelDurationsGroup*> groupCache;  // grouper's labels
            for (size_t i = 0; i < g.size(); ++i) {
                if (g.kind[i] != core::EventKind::Kernel) continue;
                if (filter) {
                    auto id = g.name[i];
                    if (id >= nameOk.size()) continue;
                    if (nameOk[id] < 0) {
                        auto v = r.strings.view(id);
                        nameOk[id] = std::regex_search(v.begin(), v.end(), *filter) ? 1 : 0;
                    }
                    if (!nameOk[id]) continue;
                }
                if (!steps.empty() && !steps.count(activityStep(r, i))) continue;
                if (grouper) {
                    const std::string& label = grouper->of(r, i);
                    auto& grp = groupCache[&label];
                    if (!grp) {
                        grp = &groups[label + '\x1f' + suffix];
                        if (grp->label.empty()) {
                            grp->label = suffix.empty() ? label : label + " — " + suffix;
                            grp->color = seriesColor(int(groups.size()) - 1);
                        }
                    }
                    grp->dur.push_back(std::max<int64_t>(0, g.dur[i]));
                    continue;
                }
                uint32_t gk = byName ? g.name[i] : uint32_t(activityCategory(r, i));
                auto it = cache.find(gk);
                KernelDurationsGroup* grp;
                if (it == cache.end()) {
                    std::string label =
                        byName ? r.strings.str(gk) : std::string(core::toString(core::KernelCategory(gk)));
                    std::string key = label + '\x1f' + suffix;
                    grp = &groups[key];
                    if (grp->label.empty()) {
                        grp->label = suffix.empty() ? label : label + " — " + suffix;
                        grp->color =
                            byName ? seriesColor(int(groups.size()) - 1) : categoryColor(core::KernelCategory(gk));
                    }
                    cache[gk] = grp;
                } else {
                    grp = it->second;
                }
                grp->dur.push_back(std::max<int64_t>(0, g.dur[i]));
            }
        };
        if (!forEachSelectedRank(runs, selected, cancel, progress, "collect", 0, 0.5, collectRank))
            return cancelledError();
        std::vector<KernelDurationsGroup> all;
        for (auto& [k, grp] : groups) {
            for (auto d : grp.dur) grp.total += d;
            all.push_back(std::move(grp));
        }
        std::stable_sort(all.begin(), all.end(), [](const KernelDurationsGroup& a, const KernelDurationsGroup& b) {
            return a.total > b.total;
        });
        if (all.size() > topN) {
            out->messages.push_back(fmt::format("{} of {} groups shown (most total time first)", topN, all.size()));
            all.resize(topN);
        }
        for (size_t k = 0; k < all.size(); ++k) {
            if (cancel.cancelled()) return cancelledError();
            auto& grp = all[k];
            if (!byCategory) grp.color = seriesColor(int(k));
            std::sort(grp.dur.begin(), grp.dur.end());
            double n = double(grp.dur.size());
            grp.mean = double(grp.total) / n;
            double var = 0;
            for (auto d : grp.dur) var += (double(d) - grp.mean) * (double(d) - grp.mean);
            grp.stddev = grp.dur.size() > 1 ? std::sqrt(var / (n - 1)) : 0;
            grp.p5 = percentile(grp.dur, 0.05);
            grp.p25 = percentile(grp.dur, 0.25);
            grp.median = percentile(grp.dur, 0.5);
            grp.p75 = percentile(grp.dur, 0.75);
            grp.p95 = percentile(grp.dur, 0.95);
            std::vector<double> xs(grp.dur.begin(), grp.dur.end());
            grp.densityLin = density(xs, double(grp.dur.front()), double(grp.dur.back()));
            for (auto& x : xs) x = std::log10(std::max(1.0, x));
            grp.densityLog = density(xs, std::log10(std::max<double>(1, double(grp.dur.front()))),
                                     std::log10(std::max<double>(1, double(grp.dur.back()))));
            if (progress) progress({"statistics", "", 0.5 + 0.5 * double(k + 1) / double(all.size()), k + 1, all.size()});
        }
        out->groups = std::move(all);
        out->subtitle = fmt::format("kernels by {}{}{}",
                                    byName       ? std::string("name")
                                    : byCategory ? std::string("category")
                                                 : kKernelDurationsGroupBy(values),
                                    re.empty() ? "" : fmt::format(" matching /{}/", re),
                                    split == "none" ? "" : fmt::format(", split by {}", split));
        if (out->groups.empty()) out->messages.insert(out->messages.begin(), "no kernels match the selection");
        return out;
    }

    std::optional<std::string> nothingToDraw(const DurationsPrepared& p, const ParamValues&) const override {
        if (!p.groups.empty()) return std::nullopt;
        return emptyReason(p.messages, "no kernels match the selection");
    }

    std::optional<ChartData> chartOf(const DurationsPrepared& p, const ParamValues&) const override {
        ChartData d;
        d.kind = ChartData::Kind::Boxes;
        d.title = title();
        d.subtitle = p.subtitle;
        d.valueUnit = ChartData::Unit::Duration;
        d.valueLabel = "kernel duration (whiskers p5–p95)";
        for (const auto& g : p.groups) {
            d.categories.push_back(g.label);
            d.boxes.push_back({g.p5, g.p25, g.median, g.p75, g.p95, g.color});
        }
        return d;
    }

    void drawMarks(Canvas& c, const ChartLayout& g, const DurationsPrepared& p, const ParamValues& values) const override {
        drawAxes(c, g);
        std::string style = kKernelDurationsStyle(values);
        bool box = style != "violin", violin = style != "box";
        auto& painter = c.painter;
        Theme t = c.theme();
        bool log = g.x.kind == ChartAxis::Kind::Log;
        double band = g.bandSize(false);
        painter.setRenderHint(QPainter::Antialiasing, true);
        for (size_t k = 0; k < p.groups.size(); ++k) {
            const auto& grp = p.groups[k];
            double cy = g.bandStart(false, k) + band / 2;
            double half = band * 0.42;
            if (violin) {
                // The density was sampled evenly over [min, max] on the axis' own scale (log10 or linear).
                const auto& dens = log ? grp.densityLog : grp.densityLin;
                double lo = log ? std::log10(std::max<double>(1, double(grp.dur.front()))) : double(grp.dur.front());
                double hi = log ? std::log10(std::max<double>(1, double(grp.dur.back()))) : double(grp.dur.back());
                auto xOf = [&](int i) {
                    double v = lo + (hi - lo) * i / (kDensityPoints - 1);
                    return g.xAt(log ? std::pow(10.0, v) : v);
                };
                QPolygonF poly;
                for (int i = 0; i < kDensityPoints; ++i) poly << QPointF(xOf(i), cy - dens[size_t(i)] * half);
                for (int i = kDensityPoints - 1; i >= 0; --i) poly << QPointF(xOf(i), cy + dens[size_t(i)] * half);
                QColor fill = grp.color;
                fill.setAlpha(box ? 90 : 170);
                painter.setPen(QPen(grp.color.darker(120), 1));
                painter.setBrush(fill);
                painter.drawPolygon(poly);
            }
            if (box) {
                auto xOf = [&](double ns) { return g.xAt(log ? std::max(1.0, ns) : ns); };
                double bh = violin ? half * 0.35 : half * 0.7;
                double x5 = xOf(grp.p5), x25 = xOf(grp.p25), x50 = xOf(grp.median), x75 = xOf(grp.p75),
                       x95 = xOf(grp.p95);
                painter.setPen(QPen(t.foreground, 1));
                painter.drawLine(QPointF(x5, cy), QPointF(x25, cy));
                painter.drawLine(QPointF(x75, cy), QPointF(x95, cy));
                painter.drawLine(QPointF(x5, cy - bh / 2), QPointF(x5, cy + bh / 2));
                painter.drawLine(QPointF(x95, cy - bh / 2), QPointF(x95, cy + bh / 2));
                QColor fill = grp.color;
                fill.setAlpha(violin ? 220 : 160);
                painter.setBrush(fill);
                painter.drawRect(QRectF(x25, cy - bh, std::max(1.0, x75 - x25), 2 * bh));
                painter.setPen(QPen(t.foreground, 2));
                painter.drawLine(QPointF(x50, cy - bh), QPointF(x50, cy + bh));
            }
        }
        painter.setBrush(Qt::NoBrush);
    }

    // The group under the point, on its row or on its (possibly elided) label.
    std::optional<HitInfo> hitMarks(const ChartLayout& g, const DurationsPrepared& p, const ParamValues&,
                                    QPointF pt) const override {
        auto k = g.bandAt(false, pt);
        if (!k) return std::nullopt;
        const auto& grp = p.groups[*k];
        HitInfo h;
        h.title = grp.label;
        h.fields = {{"count", std::to_string(grp.dur.size())},
                    {"total", formatDuration(double(grp.total))},
                    {"mean", formatDuration(grp.mean)},
                    {"median", formatDuration(grp.median)},
                    {"p5 / p95", formatDuration(grp.p5) + " / " + formatDuration(grp.p95)},
                    {"stddev", formatDuration(grp.stddev)},
                    {"cv", fmt::format("{:.3f}", grp.mean > 0 ? grp.stddev / grp.mean : 0.0)}};
        return h;
    }

    core::Table tableTyped(const DurationsPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"group", "count", "total_ns", "mean_ns", "median_ns", "p5_ns", "p25_ns", "p75_ns", "p95_ns",
                     "min_ns", "max_ns", "stddev_ns", "cv"};
        for (const auto& g : p.groups)
            t.rows.push_back({g.label, int64_t(g.dur.size()), g.total, g.mean, g.median, g.p5, g.p25, g.p75, g.p95,
                              g.dur.front(), g.dur.back(), g.stddev, g.mean > 0 ? g.stddev / g.mean : 0.0});
        t.messages = p.messages;
        return t;
    }

private:
    // Title and axes as draw() lays them out: one row per group, durations along x.
    ChartLayout frame(Canvas& c, const DurationsPrepared& p, const ParamValues& v) const override {
        bool box = kKernelDurationsStyle(v) != "violin";
        QRectF area =
            drawTitle(c, c.rect, title(), p.subtitle + (box ? "; box: p25–p75, whiskers: p5–p95, line: median" : ""));
        double mn = INFINITY, mx = -INFINITY;
        for (const auto& grp : p.groups) {
            mn = std::min(mn, double(grp.dur.front()));
            mx = std::max(mx, double(grp.dur.back()));
        }
        if (!std::isfinite(mn)) mn = 0, mx = 1;
        auto x = kKernelDurationsLogScale(v)
            ? ChartAxis::log(mn, mx, TickUnit::Duration, "kernel duration (log scale)")
            : ChartAxis::linear(0, std::max(1.0, mx * 1.05), TickUnit::Duration, "kernel duration");
        std::vector<std::string> labels;
        for (const auto& grp : p.groups) labels.push_back(fmt::format("{} (n={})", grp.label, grp.dur.size()));
        return layoutChart(QFontMetricsF(c.painter.font()), area, x, ChartAxis::bandsOf(std::move(labels)));
    }
};

}  // namespace

STROBE_REGISTER_PLOT(KernelDurationsPlot)

}  // namespace strobe::plots
