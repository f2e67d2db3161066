// The one-run report: the page is a list of blocks (headings, paragraphs, tables, figures) built once and written
// as HTML (report_html.h's escaper, tables and inline SVG) or as Markdown (text tables, PNG pictures beside it), so
// that both forms hold the same content.
#include "plots/report/run_report.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/analysis/context.h"
#include "core/analysis/registry.h"
#include "core/analysis/summary.h"
#include "core/model/run_manifest.h"
#include "plots/chart.h"
#include "plots/report/report_html.h"

namespace strobe::plots {

namespace {

using core::Table;

struct RunBlock {
    enum Kind { Heading, Subheading, Para, TableBlock, Figure } kind = Para;
    std::string text;   // heading or paragraph; a figure's caption
    Table table;
    std::string plotId;  // Figure
    ParamValues values;
    QSize size;
    std::string name;  // Figure: file name part of its PNG
};

struct RunPage {
    std::vector<RunBlock> blocks;
    void heading(std::string t) { blocks.push_back({RunBlock::Heading, std::move(t), {}, {}, {}, {}, {}}); }
    void subheading(std::string t) { blocks.push_back({RunBlock::Subheading, std::move(t), {}, {}, {}, {}, {}}); }
    void para(std::string t) { blocks.push_back({RunBlock::Para, std::move(t), {}, {}, {}, {}, {}}); }
    void table(Table t) { blocks.push_back({RunBlock::TableBlock, {}, std::move(t), {}, {}, {}, {}}); }
    void figure(std::string id, ParamValues v, QSize size, std::string name, std::string caption) {
        blocks.push_back({RunBlock::Figure, std::move(caption), {}, std::move(id), std::move(v), size, std::move(name)});
    }
};

// The q-quantile (0–1) of sorted values, linear between neighbours (numpy's default).
double runQuantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    const double at = q * double(sorted.size() - 1);
    const size_t lo = size_t(std::floor(at));
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - double(lo));
}

Table twoColumns(const char* a, const char* b, const std::vector<std::pair<std::string, std::string>>& rows) {
    Table t;
    t.columns = {a, b};
    for (const auto& [k, v] : rows) t.addRow({k, v});
    return t;
}

void factsSection(RunPage& page, const core::RunEntry& run, const core::RunSummary& summary) {
    std::vector<std::pair<std::string, std::string>> facts;
    const auto& ranks = summary.ranks;
    facts.emplace_back("Trace", run.path());
    facts.emplace_back("Ranks", std::to_string(ranks.size()));
    if (!ranks.empty()) {
        const core::RankSummary& r0 = ranks.front();
        facts.emplace_back("Platform", std::string(core::toString(r0.platform)));
        facts.emplace_back("Format", r0.format);
        if (!r0.gpuName.empty()) facts.emplace_back("GPU", fmt::format("{} ({} per trace)", r0.gpuName, r0.gpuCount));
        facts.emplace_back("Steps", r0.steps.empty() ? std::string("none (no ProfilerStep#N)")
                                                     : fmt::format("{} (#{}–#{}, rank {})", r0.steps.size(),
                                                                   r0.steps.front(), r0.steps.back(), r0.rank));
        facts.emplace_back("Kernels (rank " + std::to_string(r0.rank) + ")",
                           fmt::format("{} in {}", r0.kernelCount, formatDuration(double(r0.kernelTimeNs))));
    }
    for (auto& f : core::runFacts(run)) facts.push_back(std::move(f));
    page.heading("The run");
    page.table(twoColumns("fact", "value", facts));
    if (run.manifest && !run.manifest->envDiff.empty()) {
        page.para("Environment differences recorded in the run's manifest.yaml (secrets redacted):");
        std::vector<std::pair<std::string, std::string>> env(run.manifest->envDiff.begin(), run.manifest->envDiff.end());
        page.table(twoColumns("variable", "value", env));
    } else if (!run.manifest) {
        page.para("No manifest.yaml beside the traces: command, environment, tools and host are not known.");
    }
}

void stepSection(RunPage& page, const core::RunSummary& summary, const core::FindingsResult& findings) {
    page.heading("Step time");
    std::vector<double> ms;
    for (const auto& r : summary.ranks)
        for (const auto& s : r.stepSpans) ms.push_back(double(s.endNs - s.startNs) / 1e6);
    if (ms.empty()) {
        page.para(fmt::format("No ProfilerStep#N: the findings take the whole trace as one step ({:.3f} ms).",
                              findings.stepMs));
        return;
    }
    std::sort(ms.begin(), ms.end());
    double sum = 0;
    for (double v : ms) sum += v;
    page.para(fmt::format("Every ProfilerStep#N of every rank ({} spans over {} ranks).", ms.size(),
                          summary.ranks.size()));
    Table t;
    t.columns = {"spans", "median (ms)", "p5 (ms)", "p95 (ms)", "mean (ms)", "min (ms)", "max (ms)"};
    t.addRow({int64_t(ms.size()), fmt::format("{:.3f}", runQuantile(ms, 0.5)), fmt::format("{:.3f}", runQuantile(ms, 0.05)),
              fmt::format("{:.3f}", runQuantile(ms, 0.95)), fmt::format("{:.3f}", sum / double(ms.size())),
              fmt::format("{:.3f}", ms.front()), fmt::format("{:.3f}", ms.back())});
    page.table(std::move(t));
    page.para("The chart is the sweep views' step time: per step, the latest end minus the earliest start over the "
              "ranks (step-time-box).");
    page.figure("step-time-box", {}, QSize(900, 340), "step-time", "Step time per step (step-time-box)");
}

// An analysis of the registry as a table; its error as a paragraph.
bool analysisTable(RunPage& page, core::AnalysisContext& ctx, const char* name, const core::AnalysisRequest& req,
                   Table& out) {
    auto t = core::runAnalysis(ctx, name, req);
    if (!t) {
        page.para(fmt::format("{}: {}", name, t.error().toString()));
        return false;
    }
    out = std::move(*t);
    return true;
}

// Rows sorted by `column` descending, the first `top` kept.
void keepTop(Table& t, const std::string& column, int top) {
    const int c = t.columnIndex(column);
    if (c < 0) return;
    std::stable_sort(t.rows.begin(), t.rows.end(), [&](const auto& x, const auto& y) {
        return Table::number(x[size_t(c)]) > Table::number(y[size_t(c)]);
    });
    if (top > 0 && t.rows.size() > size_t(top)) t.rows.resize(size_t(top));
}

// The rows of the first rank in `t` (one rank's operators stand for all in a data-parallel run), with the
// `columns` it has, in that order; other numbers than durations and percentages shown with 4 significant digits.
Table firstRankColumns(const Table& t, const std::vector<std::string>& columns) {
    Table out;
    std::vector<int> at;
    for (const auto& c : columns)
        if (int i = t.columnIndex(c); i >= 0) {
            out.columns.push_back(c);
            at.push_back(i);
        }
    const int rank = t.columnIndex("rank");
    for (const auto& row : t.rows) {
        if (rank >= 0 && !t.rows.empty() && Table::text(row[size_t(rank)]) != Table::text(t.rows[0][size_t(rank)]))
            continue;
        std::vector<core::Cell> cells;
        for (size_t k = 0; k < at.size(); ++k) {
            const core::Cell& c = row[size_t(at[k])];
            const bool plain = std::holds_alternative<double>(c) && !out.columns[k].ends_with("_ns") &&
                               !out.columns[k].ends_with("_pct");
            cells.push_back(plain ? core::Cell(fmt::format("{:.4g}", std::get<double>(c))) : c);
        }
        out.addRow(std::move(cells));
    }
    return out;
}

void breakdownSections(RunPage& page, core::AnalysisContext& ctx, const core::FindingsResult& findings, int top) {
    core::AnalysisRequest req;
    if (auto w = core::WindowSpec::parse(findings.window)) req.window = *w;
    page.heading("Temporal breakdown");
    page.para(fmt::format("Per rank, the GPU's idle, compute and non-compute time (HTA's temporal breakdown), window "
                          "'{}' (the findings' window).", findings.window));
    Table t;
    if (analysisTable(page, ctx, "temporal", req, t)) page.table(std::move(t));
    page.figure("temporal-breakdown", {}, QSize(1000, 360), "temporal", "Temporal breakdown per rank");
    page.heading("Top kernels");
    page.para(fmt::format("The {} kernel names with the most GPU time over all ranks.", top));
    core::AnalysisRequest kreq = req;
    kreq.values["across-ranks"] = true;
    Table k;
    if (analysisTable(page, ctx, "kernels", kreq, k)) {
        keepTop(k, "total_ns", top);
        page.table(std::move(k));
    }
    page.heading("Top operators");
    core::AnalysisRequest oreq;
    oreq.values["group-by"] = std::string("shape");
    Table o;
    if (analysisTable(page, ctx, "ops", oreq, o)) {
        o = firstRankColumns(o, {"rank", "op", "family", "shapes", "dtype", "flops", "bytes", "instances", "kernel_ns",
                                 "tflops_per_s", "tb_per_s", "intensity", "peak_pct", "bound"});
        keepTop(o, "kernel_ns", top);
        if (o.rows.empty())
            page.para("No operator with recorded shapes (record_shapes) and a known model: none to rank.");
        else {
            page.para(fmt::format("Operators by shape and data type with the most GPU time of their kernels (the {} "
                                  "first; FLOPs and bytes from the recorded shapes, % of the GPU's peak).", top));
            page.table(std::move(o));
        }
    }
    page.heading("MFU");
    page.para("Model FLOPs utilisation per step: the GEMM FLOPs of the step (shapes from record_shapes) over the step "
              "time at the GPU's peak for the data type; no chart when the shapes or the peak are unknown.");
    page.figure("mfu-per-step", {}, QSize(900, 340), "mfu", "MFU per step (mfu-per-step)");
}

// The plot that shows a rule's evidence.
const char* findingPlot(const std::string& rule) {
    if (rule == "exposed_comm") return "comm-comp-overlap";
    if (rule == "straggler") return "straggler";
    if (rule == "launch_bound") return "launch-overhead-cdf";
    if (rule == "gemm_below_peak") return "roofline";
    if (rule == "small_elementwise") return "kernel-durations";
    if (rule == "rank_imbalance") return "temporal-breakdown";
    return "idle-by-cause";  // host_sync, dataloader_stall, pageable_h2d, inter_step_gaps: where the GPU sat idle
}

struct TimelineZoom {
    core::FindingRange range;
    ParamValues values;
};

// gpu-timeline's values that show the finding's longest range on its rank with a margin of a fifth of its length
// each side. The timeline's view is relative to its origin: with one rank shown and the CPU lanes off, the first of
// that rank's GPU activities, steps and GPU annotations (plots/builtin/timeline_lanes.cpp naturalOrigin; the clock
// shift of the rank cancels).
std::optional<TimelineZoom> timelineZoom(const core::Dataset& ds, const core::Finding& f) {
    if (f.ranges.empty()) return std::nullopt;
    const auto longest = std::max_element(f.ranges.begin(), f.ranges.end(), [](const auto& a, const auto& b) {
        return a.end - a.start < b.end - b.start;
    });
    const core::RankData* rank = nullptr;
    for (const auto& r : ds.ranks)
        if (r && r->rank == longest->rank) rank = r.get();
    if (!rank) return std::nullopt;
    int64_t origin = INT64_MAX;
    for (auto t : rank->gpu.ts) origin = std::min<int64_t>(origin, t);
    if (rank->steps.size()) origin = std::min<int64_t>(origin, rank->steps.start[0]);
    for (size_t k = 0; k < rank->slices.size(); ++k)
        if (rank->slices.kind[k] == core::EventKind::GpuUserAnnotation)
            origin = std::min<int64_t>(origin, rank->slices.ts[k]);
    if (origin == INT64_MAX) return std::nullopt;
    const int64_t margin = std::max<int64_t>((longest->end - longest->start) / 5, 1000);
    TimelineZoom z{*longest, {}};
    z.values["ranks"] = std::vector<std::string>{std::to_string(longest->rank)};
    z.values["cpu_lanes"] = false;
    z.values["view_start_ns"] = (long long)(std::max<int64_t>(0, longest->start - origin - margin));
    z.values["view_end_ns"] = (long long)(longest->end - origin + margin);
    return z;
}

// The findings table's row text: as strobe-cli advise prints it.
Table findingsTable(const core::FindingsResult& r) {
    Table t;
    t.columns = {"#", "rule", "severity", "ms/step", "share", "ranks", "critical path"};
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const auto& f = r.findings[i];
        const std::string cp = f.onCriticalPath ? (*f.onCriticalPath ? "on" : "off") : "-";
        t.addRow({std::to_string(i + 1), f.rule, f.severity, fmt::format("{:.3f}", f.msPerStep),
                  fmt::format("{:.1f} %", 100 * f.share), fmt::format("{}", fmt::join(f.ranks, ",")), cp});
    }
    return t;
}

void findingsSection(RunPage& page, const core::Dataset& dataset, const core::FindingsResult& r) {
    page.heading("Findings");
    page.para(fmt::format("Ranked by the time at stake per step (window '{}', step {:.3f} ms, {} step(s)); as "
                          "strobe-cli advise. Findings are not additive: one idle interval can count under several "
                          "rules.",
                          r.window, r.stepMs, r.steps));
    if (r.findings.empty()) {
        page.para("No rule fired (nothing costs 1 % of the step or more).");
        return;
    }
    page.table(findingsTable(r));
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const auto& f = r.findings[i];
        page.subheading(fmt::format("{}. {} [{}]: {}", i + 1, f.rule, f.severity, f.title));
        page.para(fmt::format("{:.3f} ms per step ({:.1f} % of the step). Definition: {}", f.msPerStep, 100 * f.share,
                              f.definition));
        std::vector<std::pair<std::string, std::string>> ev;
        for (const auto& [k, v] : f.evidence) ev.emplace_back(k, fmt::format("{:.4g}", v));
        if (!f.ranges.empty()) ev.emplace_back("ranges", fmt::format("{} on ranks' clocks", f.ranges.size()));
        page.table(twoColumns("evidence", "value", ev));
        if (!f.criticalPathReason.empty()) page.para("Critical path: " + f.criticalPathReason);
        page.para("What to try: " + f.whatToTry);
        const std::string plot = findingPlot(f.rule);
        page.figure(plot, {}, QSize(900, 340), "finding-" + f.rule, fmt::format("{} ({})", f.rule, plot));
        if (auto zoom = timelineZoom(dataset, f)) {
            page.para(fmt::format("The GPU timeline of rank {} around the finding's longest range ({} to {} ns on the "
                                  "rank's clock, {}):",
                                  zoom->range.rank, zoom->range.start, zoom->range.end,
                                  formatDuration(double(zoom->range.end - zoom->range.start))));
            page.figure("gpu-timeline", zoom->values, QSize(1100, 280), "timeline-" + f.rule,
                        fmt::format("{}: GPU timeline of rank {}, zoomed", f.rule, zoom->range.rank));
        }
    }
    for (const auto& m : r.messages) page.para("Note: " + m);
}

std::string htmlOf(const RunPage& page, const core::RunSet& runs, const RunReportOptions& o) {
    std::string body = fmt::format("<h1>{}</h1><p>Generated by Strobe {}.</p>", report::esc(o.title), STROBE_VERSION);
    int figures = 0;
    for (const auto& b : page.blocks) {
        switch (b.kind) {
        case RunBlock::Heading: body += "<h2>" + report::esc(b.text) + "</h2>"; break;
        case RunBlock::Subheading: body += "<h3>" + report::esc(b.text) + "</h3>"; break;
        case RunBlock::Para: body += "<p>" + report::esc(b.text) + "</p>"; break;
        case RunBlock::TableBlock:  // name/value tables read left-aligned
            body += b.table.columns.size() == 2 ? "<div class='kv'>" + report::htmlTable(b.table, "") + "</div>"
                                                : report::htmlTable(b.table, "");
            break;
        case RunBlock::Figure:
            body += report::plotFigure(runs, b.plotId, b.values, b.size, fmt::format("f{}", ++figures));
            break;
        }
    }
    return fmt::format("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{}</title><style>{}"
                       ".kv td{{text-align:left}}</style></head><body>\n{}\n</body></html>\n",
                       report::esc(o.title), report::kStyle, body);
}

// A Markdown table cell: no pipe or line break.
std::string mdCell(const std::string& column, const core::Cell& c) {
    std::string s;
    if (std::holds_alternative<std::monostate>(c)) s = "–";
    else if (std::holds_alternative<std::string>(c)) s = std::get<std::string>(c);
    else if (column.ends_with("_ns")) s = formatDuration(Table::number(c));
    else if (std::holds_alternative<double>(c)) s = fmt::format("{:.4g}", Table::number(c));
    else s = Table::text(c);
    std::string out;
    for (char ch : s) out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
    return out;
}

std::string mdTable(const Table& t) {
    std::string out = "|";
    for (const auto& c : t.columns) out += " " + mdCell("", core::Cell(c)) + " |";
    out += "\n|";
    for (size_t i = 0; i < t.columns.size(); ++i) out += " --- |";
    out += "\n";
    for (const auto& row : t.rows) {
        out += "|";
        for (size_t i = 0; i < row.size(); ++i) out += " " + mdCell(t.columns[i], row[i]) + " |";
        out += "\n";
    }
    return out + "\n";
}

RunReport markdownOf(const RunPage& page, const core::RunSet& runs, const RunReportOptions& o) {
    RunReport out;
    out.text = fmt::format("# {}\n\nGenerated by Strobe {}.\n\n", o.title, STROBE_VERSION);
    for (const auto& b : page.blocks) {
        switch (b.kind) {
        case RunBlock::Heading: out.text += "## " + b.text + "\n\n"; break;
        case RunBlock::Subheading: out.text += "### " + b.text + "\n\n"; break;
        case RunBlock::Para: out.text += b.text + "\n\n"; break;
        case RunBlock::TableBlock: out.text += mdTable(b.table); break;
        case RunBlock::Figure: {
            std::string why;
            const QByteArray png = report::plotPng(runs, b.plotId, b.values, b.size, why);
            if (png.isEmpty()) {
                out.text += fmt::format("No chart ({}): {}.\n\n", b.plotId, why);
                break;
            }
            const std::string file = o.imagePrefix + "-" + b.name + ".png";
            if (std::none_of(out.files.begin(), out.files.end(), [&](const auto& f) { return f.first == file; }))
                out.files.emplace_back(file, png.toStdString());
            out.text += fmt::format("![{}]({})\n\n", b.text, file);
            break;
        }
        }
    }
    return out;
}

}  // namespace

RunReport buildRunReport(const core::RunEntry& run, const core::FindingsResult& findings,
                         const RunReportOptions& options) {
    RunPage page;
    const core::RunSummary summary = core::summarizeRun(*run.dataset, size_t(std::max(1, options.top)));
    factsSection(page, run, summary);
    stepSection(page, summary, findings);
    findingsSection(page, *run.dataset, findings);
    auto ctx = core::AnalysisContext::of(run.dataset);
    breakdownSections(page, *ctx, findings, options.top);
    core::RunSet runs{run};
    if (options.format == RunReportFormat::Markdown) return markdownOf(page, runs, options);
    RunReport out;
    out.text = htmlOf(page, runs, options);
    return out;
}

}  // namespace strobe::plots
