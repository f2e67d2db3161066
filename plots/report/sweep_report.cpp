// The sweep report: tables from core::compareSweep and the overlap analysis, each also as CSV, and the GUI's plots as
// inline SVG (no script, no external resource, so the page reads the same offline and in any browser). One function
// per section (stepSections, configurationSections, groupSections, overlapAndHeatmap, collectivesSection).
#include "plots/report/sweep_report.h"

#include "plots/report/report_html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/analysis/columns.h"
#include "core/analysis/context.h"
#include "core/analysis/collectives.h"
#include "core/analysis/findings.h"
#include "core/analysis/overlap.h"
#include "core/analysis/structural_diff.h"
#include "core/analysis/table.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "plots/step_times.h"
#include "plots/sweep_axes.h"

namespace strobe::plots {

namespace {

using core::SweepCompareRow;
using core::SweepComparison;
using core::RunEntry;
using core::Table;
using report::csvOf;
using report::esc;
using report::htmlTable;
using report::kStyle;
using report::plotFigure;
using report::shorten;

std::string paramsLabel(const std::map<std::string, std::string>& p) {
    const std::string text = core::parametersText(p);
    return text.empty() ? "(one configuration)" : text;
}

// A configuration of the sweep: runs equal but for their repeat index, in the order the runs came.
struct Config {
    std::string key;
    std::map<std::string, std::string> params;
    std::vector<const RunEntry*> runs;
    std::string label() const { return paramsLabel(params); }
};

std::vector<Config> configsOf(const core::RunSet& runs) {
    std::vector<Config> out;
    for (const auto& r : runs) {
        const std::string key = r.key();
        auto it = std::find_if(out.begin(), out.end(), [&](const Config& c) { return c.key == key; });
        if (it == out.end()) {
            out.push_back({key, core::parameterTexts(r.parameters), {}});
            it = out.end() - 1;
        }
        it->runs.push_back(&r);
    }
    return out;
}

// Configurations in axis order (core::sweepConfigurationOrder): the order of every sweep view, whose first is the
// default baseline.
void sortConfigs(std::vector<Config>& configs, const core::RunSet& runs) {
    const auto order = core::sweepConfigurationOrder(runs);
    auto rank = [&](const Config& c) { return std::find(order.begin(), order.end(), c.key) - order.begin(); };
    std::stable_sort(configs.begin(), configs.end(), [&](const Config& x, const Config& y) { return rank(x) < rank(y); });
}

// ---------------------------------------------------------------- figures: the GUI's plots

// The parameters every sweep figure shares: the report's grouping and skipped steps.
ParamValues sweepFigureValues(const SweepReportOptions& o) {
    ParamValues v;
    v["skip_steps"] = (long long)(o.skipSteps);
    std::string by = "name";
    switch (o.groupBy) {
    case core::SweepGroupBy::Category: by = "category"; break;
    case core::SweepGroupBy::Op: by = "op"; break;
    case core::SweepGroupBy::Normalized: by = "normalized"; break;
    case core::SweepGroupBy::Regex: by = "regex:" + o.groupRegex; break;
    default: break;
    }
    v["group_by"] = by;
    return v;
}
// ---------------------------------------------------------------- tables

// Per configuration: the mean over runs and ranks of the communication/computation overlap (HTA's definition),
// none when no rank has communication kernels.
std::vector<std::optional<double>> overlapOf(const std::vector<Config>& configs) {
    std::vector<std::optional<double>> out;
    for (const auto& c : configs) {
        double sum = 0;
        int n = 0;
        for (const auto* r : c.runs) {
            auto ctx = core::AnalysisContext::of(r->dataset);
            auto t = core::commCompOverlap(*ctx, core::WindowSpec{});
            if (!t) continue;
            const int col = t->columnIndex(core::col::kOverlapPct);
            for (const auto& row : t->rows)
                if (col >= 0 && !std::holds_alternative<std::monostate>(row[size_t(col)])) {
                    sum += Table::number(row[size_t(col)]);
                    ++n;
                }
        }
        out.push_back(n ? std::optional<double>(sum / n) : std::nullopt);
    }
    return out;
}

}  // namespace

namespace {

struct Sections {
    std::string html;
    std::vector<std::pair<std::string, std::string>> csv;
    const core::RunSet* runs = nullptr;
    ParamValues shared;  // sweepFigureValues: every figure's group_by and skip_steps
    int figures = 0;
    // The GUI's plot `id` as a figure (plotFigure), with the shared values and `set` on top.
    void figure(const std::string& id, const ParamValues& set, QSize size, Table* table = nullptr) {
        ParamValues v = shared;
        for (const auto& [k, x] : set) v[k] = x;
        html += plotFigure(*runs, id, v, size, fmt::format("f{}", ++figures), table);
    }
    void table(const std::string& prefix, const std::string& name, const Table& t) {
        const std::string file = prefix + "-" + name + ".csv";
        html += htmlTable(t, file);
        csv.emplace_back(file, csvOf(t));
    }
};

// "bs=4 rep1": a run by its configuration and repeat (labels alone repeat across configurations: rep0, rep1).
std::string runLabel(const RunEntry& r) {
    const std::string params = core::parametersText(core::parameterTexts(r.parameters));
    return params.empty() ? r.label : fmt::format("{} rep{}", params, r.repeat);
}

// Rows of the comparison as a table: per row its measure, configuration, sample, median and change in ms per step
// with the interval; "n/a" rows say why in `note`.
Table comparisonTable(const std::vector<const SweepCompareRow*>& rows, const char* what) {
    Table t;
    t.columns = {what, "configuration", "runs", "steps", "median_ms", "delta_ms", "ci_low_ms", "ci_high_ms",
                 "significant", "delta_pct", "ci_low_pct", "ci_high_pct", "note"};
    auto ms = [](const std::optional<double>& v) { return v ? core::Cell(*v / 1e6) : core::Cell(); };
    auto opt = [](const std::optional<double>& v) { return v ? core::Cell(*v) : core::Cell(); };
    for (const SweepCompareRow* r : rows) {
        const bool interval = r->ciLowNs.has_value();
        const std::string note = !r->reason.empty() ? r->reason : interval ? "resampled " + r->resampled : "";
        t.addRow({r->group, paramsLabel(r->parameters), int64_t(r->runs), int64_t(r->steps), r->medianNs / 1e6,
                  ms(r->deltaNs), ms(r->ciLowNs), ms(r->ciHighNs), std::string(r->significant ? "yes" : interval ? "no" : ""),
                  opt(r->deltaPct), opt(r->ciLowPct), opt(r->ciHighPct), note});
    }
    return t;
}

// The configuration table and, per configuration, the GPU time per step by category (stacked bars).
void configurationSections(Sections& s, const std::vector<Config>& configs, const SweepComparison& byCategory,
                           const std::string& prefix, std::vector<double>& totals) {
    std::set<std::string> axes;
    for (const auto& c : configs)
        for (const auto& [k, v] : c.params) axes.insert(k);
    // GPU time is kernels (by category) + memcpy + memset: the one definition of the comparison (issue 21).
    std::vector<SweepCompareRow> rows = byCategory.rows;
    for (const auto& r : byCategory.gpuRows)
        if (r.group == "memcpy" || r.group == "memset") rows.push_back(r);
    std::vector<std::string> parts;
    for (const auto& r : rows)
        if (std::find(parts.begin(), parts.end(), r.group) == parts.end()) parts.push_back(r.group);
    std::vector<std::vector<double>> value(configs.size(), std::vector<double>(parts.size(), 0.0));
    totals.assign(configs.size(), 0.0);
    for (const auto& r : rows)
        for (size_t c = 0; c < configs.size(); ++c)
            if (configs[c].key == r.config) {
                const auto p = size_t(std::find(parts.begin(), parts.end(), r.group) - parts.begin());
                value[c][p] = r.perStepNs;
                totals[c] += r.perStepNs;
            }
    Table t;
    t.columns = {"configuration"};
    for (const auto& a : axes) t.columns.push_back(a);
    for (const char* c : {"repeats", "ranks", "gpu_time_per_step_ns", "runs"}) t.columns.push_back(c);
    for (size_t c = 0; c < configs.size(); ++c) {
        std::vector<core::Cell> row{configs[c].label()};
        for (const auto& a : axes) {
            auto it = configs[c].params.find(a);
            row.push_back(it != configs[c].params.end() ? core::Cell(it->second) : core::Cell());
        }
        size_t ranks = 0;
        std::string labels;
        for (const auto* r : configs[c].runs) {
            ranks = std::max(ranks, r->dataset->ranks.size());
            labels += (labels.empty() ? "" : "; ") + runLabel(*r);
        }
        for (core::Cell x : {core::Cell(int64_t(configs[c].runs.size())), core::Cell(int64_t(ranks)),
                             core::Cell(totals[c]), core::Cell(labels)})
            row.push_back(std::move(x));
        t.addRow(std::move(row));
    }
    s.html += "<h2>Configurations</h2>";
    s.table(prefix, "configurations", t);
    s.html += "<h2>GPU time per step by category</h2>";
    if (!byCategory.gpuActivity || parts.empty()) {
        s.html += "<p>No GPU activity in these runs: nothing to break down.</p>";
        return;
    }
    s.html += "<p>Kernel time by Strobe's category, then memcpy and memset: their sum is the GPU time of the "
              "configuration table (mean per kept step).</p>";
    Table cat;  // one row per configuration, one column per category: GPU time per step
    cat.columns = {"configuration"};
    for (const auto& p : parts) cat.columns.push_back(p + "_ns");
    for (size_t c = 0; c < configs.size(); ++c) {
        std::vector<core::Cell> row{configs[c].label()};
        for (double v : value[c]) row.emplace_back(v);
        cat.addRow(std::move(row));
    }
    s.table(prefix, "categories", cat);
}

// Step time first (the ProfilerStep#N span per configuration, its change and interval, a box plot), then the GPU's
// busy and idle time per step with kernels, memcpy and memset.
void stepSections(Sections& s, const SweepComparison& cmp,
                  const std::string& prefix) {
    s.html += "<h2>Step time</h2><p>Per kept step, the ProfilerStep#N span (the latest end minus the earliest start "
              "over the ranks); median per configuration, change of the median against the baseline with its "
              "interval. No interval below 2 runs and 5 kept steps: n/a, with the reason.</p>";
    if (cmp.stepRows.empty()) {
        s.html += "<p>No run has a kept step: nothing to compare.</p>";
        return;
    }
    std::vector<const SweepCompareRow*> rows;
    for (const auto& r : cmp.stepRows) rows.push_back(&r);
    s.table(prefix, "steps", comparisonTable(rows, "measure"));
    s.figure("step-time-box", {}, QSize(1000, 380));
    s.html += "<h2>GPU busy and idle per step</h2>";
    if (!cmp.gpuActivity) {
        s.html += "<p>No GPU activity in these runs: they are compared by step time and CPU operators.</p>";
        return;
    }
    s.html += "<p>busy: the union of kernel, memcpy and memset intervals per GPU, summed over GPUs; idle: GPUs × "
              "step time − busy; kernels, memcpy, memset: their summed durations (GPU time = kernels + memcpy + "
              "memset).</p>";
    rows.clear();
    for (const auto& r : cmp.gpuRows) rows.push_back(&r);
    s.table(prefix, "gpu", comparisonTable(rows, "measure"));
}

// Per configuration with memory events, the peak allocated GPU memory per kept step (core SweepMemoryRow).
void memorySection(Sections& s, const SweepComparison& cmp, const std::string& prefix) {
    if (cmp.memoryRows.empty()) return;
    s.html += "<h2>Peak allocated memory per step</h2><p>Per configuration, the peak allocated GPU memory of each "
              "kept step (the memory timeline of Kineto's [memory] events or rocprofv3 allocations; per step the "
              "largest over the run's ranks and GPUs, memory held when the step begins included), over every "
              "repeat: median and largest.</p>";
    Table t;
    t.columns = {"configuration", "runs", "steps", "median_step_peak_bytes", "max_step_peak_bytes"};
    for (const auto& m : cmp.memoryRows)
        t.addRow({paramsLabel(m.parameters), int64_t(m.runs), int64_t(m.steps), m.medianBytes, m.maxBytes});
    s.table(prefix, "memory", t);
}

// The top groups: their comparison table and a box plot each.
void groupSections(Sections& s, const std::vector<Config>& configs, const SweepComparison& cmp,
                   const std::string& prefix, const std::string& baselineKey) {
    Table t;
    // The change, its interval and significance right after the names (visible at 1400 px), then the sample.
    t.columns = {"group", "configuration", "delta_ms", "ci_low_ms", "ci_high_ms", "significant", "delta_pct",
                 "ci_low_pct", "ci_high_pct", "median_ns", "per_step_ns", "count", "p5_ns", "p95_ns", "cv", "note"};
    auto opt = [](const std::optional<double>& v) { return v ? core::Cell(*v) : core::Cell(); };
    auto ms = [](const std::optional<double>& v) { return v ? core::Cell(*v / 1e6) : core::Cell(); };
    for (const auto& r : cmp.rows)
        t.addRow({r.group, paramsLabel(r.parameters), ms(r.deltaNs), ms(r.ciLowNs), ms(r.ciHighNs),
                  std::string(r.significant ? "yes" : (r.ciLowNs ? "no" : "")), opt(r.deltaPct), opt(r.ciLowPct),
                  opt(r.ciHighPct), r.medianNs, r.perStepNs, int64_t(r.count), r.p5Ns, r.p95Ns, r.cv,
                  r.reason == "baseline" ? std::string() : r.reason});
    s.html += cmp.gpuActivity ? "<h2>Top kernel groups</h2><p>Ranked by their largest absolute change in time per step "
                                "(Δ ms/step) against the baseline.</p>"
                              : "<h2>Top CPU operators</h2><p>No GPU activity: the outermost CPU operators of each "
                                "step, ranked by their largest absolute change in time per step.</p>";
    if (cmp.rows.empty()) {
        s.html += "<p>No group in the kept steps.</p>";
        return;
    }
    s.table(prefix, "groups", t);
    std::vector<std::string> groups;
    for (const auto& r : cmp.rows)
        if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
    const auto base = std::find_if(configs.begin(), configs.end(), [&](const Config& c) { return c.key == baselineKey; });
    if (base != configs.end()) {
        s.html += "<p>The change of each group's time per step in % of the baseline's, with its Holm-corrected "
                  "interval (delta-bars, as in the GUI): filled bars are significant.</p>";
        s.figure("delta-bars",
                 {{"baseline", configurationLabel(*base->runs.front())}, {"top", (long long)(groups.size())}},
                 QSize(1100, std::clamp(int(120 + 44 * groups.size()), 360, 1400)));
    }
    s.html += "<h2>Time per step of each top group</h2><p>Per group, its GPU time in every kept step (every "
              "repeat), one box per configuration (group-time-dist, as in the GUI): box 25th–75th percentile, line "
              "median, whiskers the smallest and largest step. The change and its interval are in the table "
              "above.</p><div class='boxes'>";
    if (std::none_of(s.runs->begin(), s.runs->end(),
                     [](const RunEntry& r) { return r.dataset && hasProfilerSteps(*r.dataset); }))
        s.html += "<p class='nochart'>No chart: no run has a ProfilerStep#N, and a group's distribution over steps "
                  "needs them (the table above compares whole runs).</p>";
    else
        for (const auto& g : groups)
            s.figure("group-time-dist", {{"group", g}, {"style", std::string("box")}}, QSize(660, 330));
    s.html += "</div>";
}

void overlapChart(Sections& s, const std::vector<Config>& configs, const std::vector<std::optional<double>>& overlap,
                  const std::string& prefix);
void heatmapSection(Sections& s, const std::vector<Config>& configs, const std::string& prefix);

// Overlap per configuration, and the heatmap over the first two axes.
void overlapAndHeatmap(Sections& s, const std::vector<Config>& configs, const std::string& prefix) {
    const auto overlap = overlapOf(configs);
    if (std::none_of(overlap.begin(), overlap.end(), [](const auto& v) { return v.has_value(); })) {
        s.html += "<h2>Communication/computation overlap</h2><p>No communication kernel in these runs: no overlap to "
                  "show.</p>";
    } else {
        overlapChart(s, configs, overlap, prefix);
    }
    heatmapSection(s, configs, prefix);
}

void overlapChart(Sections& s, const std::vector<Config>& configs, const std::vector<std::optional<double>>& overlap,
                  const std::string& prefix) {
    std::vector<std::string> bars;
    for (const auto& c : configs) bars.push_back(c.label());
    s.html += "<h2>Communication/computation overlap</h2><p>Share of each rank's communication kernel time that "
              "overlaps computation kernels (HTA's definition), averaged over ranks and repeats.</p>";
    Table ov;
    ov.columns = {"configuration", "overlap_pct"};
    for (size_t c = 0; c < configs.size(); ++c)
        ov.addRow({bars[c], overlap[c] ? core::Cell(*overlap[c]) : core::Cell()});
    s.table(prefix, "overlap", ov);
}

// The median step time over the first two axes (sweep-heatmap, as in the GUI), with its table; none with fewer
// than two axes. Runs without ProfilerStep#N (rocprof sweeps) have no step time: the cells are then the largest
// kernel group's time per run (compareSweep counts such a run as one step).
void heatmapSection(Sections& s, const std::vector<Config>& configs, const std::string& prefix) {
    std::set<std::string> axisSet;
    for (const auto& c : configs)
        for (const auto& [k, v] : c.params) axisSet.insert(k);
    if (axisSet.size() < 2) return;
    const std::vector<std::string> axes(axisSet.begin(), axisSet.end());
    const bool steps = std::any_of(s.runs->begin(), s.runs->end(),
                                   [](const RunEntry& r) { return r.dataset && hasProfilerSteps(*r.dataset); });
    s.html += fmt::format("<h2>{} over {} and {}</h2><p>One cell per pair of values (sweep-heatmap, as in the "
                          "GUI): {}{}.</p>",
                          steps ? "Median step time" : "Largest kernel group's time per run", esc(axes[0]),
                          esc(axes[1]),
                          steps ? "the median of the pooled kept steps"
                                : "no run has a ProfilerStep#N, so each run counts as one step",
                          axes.size() > 2 ? ", pooled over the other axes" : "");
    Table hm;
    s.figure("sweep-heatmap",
             {{"cell_value", std::string(steps ? "step_median" : "group_per_step")}, {"x_axis", axes[0]},
              {"y_axis", axes[1]}},
             QSize(1000, std::clamp(int(160 + 40 * configs.size()), 360, 900)), &hm);
    if (!hm.columns.empty()) s.table(prefix, "heatmap", hm);
}

// Collectives per configuration and type (core/analysis/collectives.h): count, size, latency, bandwidth, skew.
void collectivesSection(Sections& s, const core::RunSet& runs, int skipSteps, const std::string& prefix) {
    const core::CollectiveSweep c = core::collectivesBySweep(runs, skipSteps);
    s.html += "<h2>Collectives</h2><p>Communication kernels matched across ranks. Latency: the collective's kernel on "
              "the rank that arrived last (the shortest among its ranks: the transfer without waiting); algbw = bytes "
              "/ latency, busbw with nccl-tests' factors (all_reduce 2(n-1)/n; all_gather, reduce_scatter, "
              "all_to_all (n-1)/n; others 1); start skew: the latest minus the earliest start of a collective's "
              "kernels; wait: a rank's kernel minus the shortest.</p>";
    if (c.rows.empty()) {
        s.html += "<p>No communication kernel in these runs.</p>";
        return;
    }
    for (const auto& m : c.messages) s.html += "<p class='csv'>" + esc(m) + "</p>";
    Table t;
    t.columns = {"configuration", "collective", "count", "bytes", "latency_mean_ns", "latency_p50_ns",
                 "latency_p99_ns", "algbw_gbps", "busbw_gbps", "start_skew_p50_ns", "start_skew_max_ns",
                 "wait_mean_ns"};
    auto opt = [](const std::optional<double>& v) { return v ? core::Cell(*v) : core::Cell(); };
    for (const auto& r : c.rows) {
        const std::string params = core::parametersText(r.parameters);
        t.addRow({params.empty() ? (r.config.empty() ? std::string("all runs") : r.config) : params, r.collective,
                  int64_t(r.count), r.bytes ? core::Cell(int64_t(std::llround(*r.bytes))) : core::Cell(),
                  r.latencyMeanNs, r.latencyP50Ns, r.latencyP99Ns, opt(r.algbwGbps), opt(r.busbwGbps),
                  r.startSkewP50Ns, r.startSkewMaxNs, r.waitMeanNs});
    }
    s.table(prefix, "collectives", t);
}

}  // namespace

namespace {

// Structural diff (issue 22, core/analysis/structural_diff.h): each configuration against the baseline one (repeats
// pooled), as the call sites (CPU operators by normalised name path) whose GPU time per step moved most.
void structuralDiffSection(Sections& s, const std::vector<Config>& configs, const std::string& baselineKey,
                           int skipSteps, const std::string& prefix) {
    if (configs.size() < 2) return;
    const Config* base = &configs.front();
    for (const auto& c : configs)
        if (c.key == baselineKey) base = &c;
    s.html += "<h2>Structural diff against the baseline</h2><p>The tree of CPU operators by call site (names "
              "normalised across PyTorch versions and backends), with the GPU time (kernels + memcpy + memset) "
              "launched beneath each, per kept step, matched by path; as <code>strobe-cli diff --sweep</code>. "
              "The 10 call sites with the largest |Δ| per configuration; kernels below them are in the CLI's "
              "output.</p>";
    std::string csv = "configuration,path,status,count_a,count_b,per_step_ms_a,per_step_ms_b,delta_ms\n";
    core::DiffOptions options;
    options.skipSteps = skipSteps;
    for (const auto& c : configs) {
        if (&c == base) continue;
        const core::StructuralDiff d = core::structuralDiff(base->runs, c.runs, options);
        s.html += fmt::format("<h3>{} vs {}</h3><p>{} of {} and {} nodes matched, holding {:.1f} % and {:.1f} % of the "
                              "GPU time per step.{}</p>",
                              esc(c.label()), esc(base->label()), d.matched, d.a.nodes, d.b.nodes, 100 * d.timeShareA,
                              100 * d.timeShareB, d.byKernelName ? " No CPU operators: by kernel name." : "");
        std::vector<size_t> order;
        for (size_t i = 0; i < d.nodes.size(); ++i)
            if (!d.nodes[i].leaf || d.byKernelName) order.push_back(i);
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
            return std::abs(d.nodes[x].deltaNs()) > std::abs(d.nodes[y].deltaNs());
        });
        if (order.size() > 10) order.resize(10);
        s.html += "<table><tr><th>call site</th><th>status</th><th>count A</th><th>count B</th><th>A ms/step</th>"
                  "<th>B ms/step</th><th>Δ ms/step</th></tr>";
        for (size_t i : order) {
            const core::DiffNode& n = d.nodes[i];
            std::string path;
            for (const auto& part : d.path(i)) path += (path.empty() ? "" : " › ") + part;
            s.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.4g}</td><td>{:.4g}</td><td>{:.3f}</td><td>{:.3f}"
                                  "</td><td>{:+.3f}</td></tr>",
                                  esc(shorten(path, 160)), core::toString(n.status), n.countA, n.countB,
                                  n.perStepNsA / 1e6, n.perStepNsB / 1e6, n.deltaNs() / 1e6);
        }
        s.html += "</table>";
        for (size_t i = 0; i < d.nodes.size(); ++i) {
            const core::DiffNode& n = d.nodes[i];
            std::string path;
            for (const auto& part : d.path(i)) path += (path.empty() ? "" : " > ") + part;
            std::string quoted = "\"";
            for (char ch : path) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
            csv += fmt::format("\"{}\",{}\",{},{},{},{},{},{}\n", c.label(), quoted, core::toString(n.status), n.countA,
                               n.countB, n.perStepNsA / 1e6, n.perStepNsB / 1e6, n.deltaNs() / 1e6);
        }
    }
    s.csv.emplace_back(prefix + "-structural-diff.csv", csv);
}

// Findings per configuration (core/analysis/findings.h, as strobe-cli advise without the critical path): per rule,
// its ms_per_step averaged over the configuration's runs (a run where the rule did not fire counts 0) and in how many
// runs it fired; the rules whose presence differs between configurations first, then by their largest time.
void findingsChangeSection(Sections& s, const std::vector<Config>& configs, const std::string& prefix) {
    struct RuleRow {
        std::vector<double> sum;
        std::vector<int> fired;
    };
    std::map<std::string, RuleRow> rules;
    for (size_t c = 0; c < configs.size(); ++c)
        for (const auto* r : configs[c].runs) {
            auto ctx = core::AnalysisContext::of(r->dataset);
            core::FindingsOptions fo;
            fo.criticalPath = false;
            auto found = core::computeFindings(*ctx, fo);
            if (!found) continue;
            for (const auto& f : found->findings) {
                RuleRow& row = rules[f.rule];
                row.sum.resize(configs.size(), 0.0);
                row.fired.resize(configs.size(), 0);
                row.sum[c] += f.msPerStep;
                ++row.fired[c];
            }
        }
    s.html += "<h2>Findings per configuration</h2><p>The rules of <code>strobe-cli advise</code> (README, section "
              "Findings) on every run: ms per step averaged over the configuration's runs (a run where the rule did "
              "not fire counts 0), with the runs it fired in. Rules that fire in some configurations and not in "
              "others come first.</p>";
    if (rules.empty()) {
        s.html += "<p>No rule fired in any run.</p>";
        return;
    }
    std::vector<std::pair<std::string, RuleRow>> order(rules.begin(), rules.end());
    auto changed = [](const RuleRow& r) { return std::count(r.fired.begin(), r.fired.end(), 0) > 0; };
    auto largest = [&](const RuleRow& r) {
        double m = 0;
        for (size_t c = 0; c < configs.size(); ++c) m = std::max(m, r.sum[c] / double(configs[c].runs.size()));
        return m;
    };
    std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
        if (changed(x.second) != changed(y.second)) return changed(x.second);
        return largest(x.second) > largest(y.second);
    });
    Table t;
    t.columns = {"rule", "change"};
    for (const auto& c : configs) t.columns.push_back(c.label());
    for (const auto& [rule, row] : order) {
        std::vector<std::string> in, out;
        for (size_t c = 0; c < configs.size(); ++c) (row.fired[c] ? in : out).push_back(configs[c].label());
        std::string change = out.empty() ? "in every configuration"
                                         : in.size() < out.size() ? "only in " + fmt::format("{}", fmt::join(in, "; "))
                                                                  : "absent from " + fmt::format("{}", fmt::join(out, "; "));
        std::vector<core::Cell> cells{rule, change};
        for (size_t c = 0; c < configs.size(); ++c) {
            std::string cell = "–";  // not fired in any run of the configuration
            if (row.fired[c])
                cell = fmt::format("{:.3f} ({}/{} runs)", row.sum[c] / double(configs[c].runs.size()), row.fired[c],
                                   configs[c].runs.size());
            cells.emplace_back(std::move(cell));
        }
        t.addRow(std::move(cells));
    }
    s.table(prefix, "findings", t);
}

// The comparison's messages, those that say the same of several runs ("RUN: no ProfilerStep#N found; ...") as one
// line: "9 runs: no ProfilerStep#N found; ... (first: RUN)"; the others as they are, in order.
std::vector<std::string> mergedMessages(const std::vector<std::string>& messages) {
    std::vector<std::string> out;
    std::map<std::string, std::vector<std::string>> who;  // what is said -> the runs it is said of
    for (const auto& m : messages) {
        const size_t colon = m.find(": ");
        if (colon != std::string::npos && m.find(' ') > colon) who[m.substr(colon + 2)].push_back(m.substr(0, colon));
    }
    std::set<std::string> done;
    for (const auto& m : messages) {
        const size_t colon = m.find(": ");
        const std::string said = colon == std::string::npos ? std::string() : m.substr(colon + 2);
        auto it = who.find(said);
        if (it == who.end() || it->second.size() < 3 || m.find(' ') < colon) {
            out.push_back(m);
        } else if (done.insert(said).second) {
            out.push_back(fmt::format("{} runs: {} (first: {})", it->second.size(), said, it->second.front()));
        }
    }
    return out;
}

}  // namespace

SweepReport buildSweepReport(const core::RunSet& runs, const SweepReportOptions& o) {
    SweepReport out;
    auto configs = configsOf(runs);
    sortConfigs(configs, runs);
    core::SweepCompareOptions co;
    co.groupBy = o.groupBy;
    co.groupRegex = o.groupRegex;
    co.top = o.top;
    co.skipSteps = o.skipSteps;  // groups ranked by |change| (auto): the one ranking of every sweep view
    co.baseline = o.baseline;
    // The documented default (README "Comparing runs"): the first configuration in axis order, named by its first
    // run's path (labels such as rep0 repeat across configurations).
    if (co.baseline.empty()) co.baseline = core::defaultSweepBaseline(runs);
    const SweepComparison cmp = core::compareSweep(runs, co);
    core::SweepCompareOptions cats = co;
    cats.groupBy = core::SweepGroupBy::Category;
    cats.top = 0;
    cats.baseline.clear();
    const SweepComparison byCategory = core::compareSweep(runs, cats);
    const std::string baselineKey = cmp.baselineConfig;

    Sections s;
    s.runs = &runs;
    s.shared = sweepFigureValues(o);
    s.html += fmt::format("<h1>{}</h1><p>{} runs in {} configurations; generated by Strobe {}.</p>", esc(o.title),
                          runs.size(), configs.size(), STROBE_VERSION);
    s.html += "<div class='noise'><b>Noise and significance.</b> ";
    if (cmp.method) {
        std::string baselineConfig;
        for (const auto& c : configs)
            if (c.key == baselineKey) baselineConfig = c.label();
        s.html += fmt::format("Baseline: {}. Confidence {:.0f} %. Method: {}. A change is marked "
                              "significant only when its corrected interval excludes zero; below 2 runs and 5 kept "
                              "steps a configuration has no interval (n/a).",
                              esc(baselineConfig.empty() ? *cmp.baseline : baselineConfig),
                              100 * cmp.confidence.value_or(0.95),
                              esc(*cmp.method));
    }
    else
        s.html += "No baseline: nothing was tested.";
    for (const auto& m : mergedMessages(cmp.messages)) s.html += "<br>" + esc(m);
    s.html += "</div>";
    std::vector<double> totals;
    stepSections(s, cmp, o.csvPrefix);
    memorySection(s, cmp, o.csvPrefix);
    configurationSections(s, configs, byCategory, o.csvPrefix, totals);
    groupSections(s, configs, cmp, o.csvPrefix, baselineKey);
    overlapAndHeatmap(s, configs, o.csvPrefix);
    collectivesSection(s, runs, o.skipSteps, o.csvPrefix);
    structuralDiffSection(s, configs, baselineKey, o.skipSteps, o.csvPrefix);
    findingsChangeSection(s, configs, o.csvPrefix);

    out.html = fmt::format("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{}</title><style>{}"
                           "</style></head><body>\n{}\n</body></html>\n",
                           esc(o.title), kStyle, s.html);
    out.csv = std::move(s.csv);
    out.messages = cmp.messages;
    return out;
}

}  // namespace strobe::plots
