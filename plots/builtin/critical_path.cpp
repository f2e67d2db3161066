// The critical path (issue 26; core/analysis/critical_path.h) in the workbench:
// - "critical-path": the longest path's length split by bound-by class (analysis `critical-path`), one bar per
//   class, a series per run; the subtitle says the definition, the window and the path's length.
// - "what-if": the what-if table (analysis `what-if`): the path recomputed with the user's own scaling
//   (`scale`, GROUP=FACTOR items as strobe-cli analyze what-if --scale takes them, separated by ';') first, then per group the time a 2x
//   speed-up saves, most first: where optimisation pays. A sortable table on screen; a table picture in exports.
// Both take the analyses' own options (rank, step, definition) and no analysis window: the path's window is the
// step (or the whole trace), as on the command line.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/analysis/registry.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/table_picture.h"

namespace strobe::plots {
namespace {

// The analyses' option keys and kinds (core/analysis/critical_path.cpp), so a plot's values are its request.
const IntParam kPathRank = IntParam{"rank", "Rank", "Only this rank (-1: every rank; hta: the first)", -1}.bounded(
    -1, 1'000'000, 1);
const IntParam kPathStep =
    IntParam{"step", "Step", "The ProfilerStep#N the path spans (-1: the whole trace)", -1}.bounded(-1, 1LL << 40, 1);
const EnumParam kPathDefinition =
    EnumParam{"definition", "Definition",
              "strobe: wall time across ranks (waits recomputed from the dependencies); hta: Holistic Trace "
              "Analysis' lightweight path on one rank (its length is not wall time)",
              "strobe"}
        .choices({"strobe", "hta"});
const StringParam kPathScale{"scale", "Scale",
                             "GROUP=FACTOR items scaled together, separated by ';' (GROUP: category:NAME, op:NAME, "
                             "kernel:REGEX or comm; FACTOR 0.5 = half the time), e.g. category:gemm=0.5; comm=0.8",
                             ""};

// "a=0.5; b=2" -> {"a=0.5", "b=2"} (items trimmed, empty ones dropped).
std::vector<std::string> scaleItems(const std::string& text) {
    std::vector<std::string> out;
    size_t from = 0;
    while (from <= text.size()) {
        size_t to = text.find(';', from);
        if (to == std::string::npos) to = text.size();
        std::string item = text.substr(from, to - from);
        const auto first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
        if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
        from = to + 1;
    }
    return out;
}

core::Result<core::Table> pathAnalysis(core::AnalysisContext& ctx, const char* name, const ParamValues& values,
                                       bool scales) {
    core::AnalysisRequest req;
    for (const auto* key : {"rank", "step", "definition"})
        if (auto it = values.find(key); it != values.end()) req.values[key] = it->second;
    if (scales) req.values["scale"] = scaleItems(kPathScale(values));
    return core::runAnalysis(ctx, name, req);
}

// The path's length: its classes add up to it.
double pathLengthNs(const core::Table& t) {
    double ns = 0;
    for (size_t row = 0; row < t.rows.size(); ++row) ns += cellNumber(t, row, "ns");
    return ns;
}

class CriticalPathPlot final : public AnalysisBarPlot {
public:
    CriticalPathPlot()
        : AnalysisBarPlot({"critical-path", "Critical path",
                           "What bounds the step: the longest path through the trace's dependencies (launches, "
                           "streams, syncs, collectives across ranks) split by what each part of it waits on.",
                           56}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override {
        std::vector<ParamSpec> s{kPathRank.spec(), kPathStep.spec(), kPathDefinition.spec()};
        for (auto& spec : barStyleSpecs("Show each class as a share of the path's length", false, true))
            s.push_back(spec);
        return s;
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec&,
                                      const ParamValues& values) const override {
        return pathAnalysis(ctx, "critical-path", values, false);
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const override {
        BarChart c = styledChart(v);
        const bool pct = c.percentAxis;
        c.valueLabel = pct ? "share of the path" : "time on the path";
        std::map<std::string, size_t> bar;
        std::vector<std::string> windows;
        std::vector<double> lengths;
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const core::Table& t = p.perRun[ri];
            c.series.push_back(p.runLabels[ri]);
            for (auto& values : c.values) values.resize(c.series.size(), 0.0);
            for (size_t row = 0; row < t.rows.size(); ++row) {
                const std::string cls = cellText(t, row, "bound_by");
                auto [it, added] = bar.try_emplace(cls, c.bars.size());
                if (added) {
                    c.bars.push_back(cls);
                    c.values.push_back(std::vector<double>(c.series.size(), 0.0));
                }
                c.values[it->second][ri] = pct ? 100.0 * cellNumber(t, row, "share") : cellNumber(t, row, "ns");
            }
            if (!t.windowText.empty()) windows.push_back(t.windowText);
            lengths.push_back(pathLengthNs(t));
        }
        c.subtitle = fmt::format("{} definition; window: {}{}", kPathDefinition(v),
                                 windows.empty() ? std::string("—") : windows.front(),
                                 lengths.size() == 1 ? fmt::format("; the path lasts {:.3f} ms", lengths.front() / 1e6)
                                                     : std::string());
        if (c.series.size() == 1) c.series = {"on the path"};
        for (size_t i = 0; i < c.series.size(); ++i) c.colors.push_back(seriesColor(static_cast<int>(i)));
        addMessages(c, p, "no event of the window is on a path (no CPU operator or GPU activity in it)");
        return c;
    }
};

// The what-if table: "scaled" (the user's scaling), then the 2x ranking.
class WhatIfPlot final : public AnalysisPlot {
public:
    WhatIfPlot()
        : AnalysisPlot({"what-if", "What-if: where optimisation pays",
                        "The critical path recomputed with scaled durations (waits and idle recomputed from the "
                        "dependencies): your scaling first, then per group the time a 2x speed-up saves.",
                        57}) {}
    bool isTable() const override { return true; }

    std::vector<ParamSpec> parameters(const RunSet&) const override {
        return {kPathRank.spec(), kPathStep.spec(), kPathDefinition.spec(), kPathScale.spec()};
    }

    // Nothing to project without a path: no rows, or only a base of length 0 (no CPU operator or GPU activity).
    std::optional<std::string> emptyMessageTyped(const AnalysisTables& p, const ParamValues&) const override {
        const core::Table& t = p.combined;
        for (size_t row = 0; row < t.rows.size(); ++row)
            if (cellNumber(t, row, "length_ns") > 0) return std::nullopt;
        return emptyReason(t.messages, "no CPU operator or GPU activity in the window: no critical path to project");
    }

    void drawTyped(Canvas& c, const AnalysisTables& p, const ParamValues& values) const override {
        const core::Table& t = p.combined;
        std::vector<size_t> rows(t.rows.size());
        for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
        const std::string window = p.perRun.empty() ? std::string() : p.perRun.front().windowText;
        const QRectF area = drawTitle(c, c.rect, title(),
                                      fmt::format("{} definition; window: {}; saved_ns = base length − length with "
                                                  "the group scaled",
                                                  kPathDefinition(values), window.empty() ? "—" : window));
        if (rows.empty()) {
            drawMessage(c, area, t.messages.empty() ? "no critical path" : t.messages.front());
            return;
        }
        drawTablePicture(c, area, t, rows, picture(t));
    }

    std::optional<HitInfo> hitTestTyped(const AnalysisTables& p, const ParamValues&, const QRectF& rect,
                                        QPointF pt) const override {
        LayoutCanvas lc(rect);
        const QRectF area = drawTitle(lc.canvas, rect, title(), "x");
        const auto how = picture(p.combined);
        const auto k = tablePictureRowAt(area, pt, p.combined.rows.size(), how);
        if (!k) return std::nullopt;
        return tablePictureHit(p.combined, *k, how);
    }

    // The analysis' rows with the figures before the group (a kernel group's regex runs long): kind, saved_ns,
    // length_ns, factor, group (and run first over several runs).
    core::Table tableTyped(const AnalysisTables& p, const ParamValues&) const override {
        const core::Table& t = p.combined;
        core::Table out;
        out.messages = t.messages;
        out.windowText = t.windowText;
        std::vector<size_t> order;
        for (const char* k : {"run", "kind", "saved_ns", "length_ns", "factor", "group"})
            for (size_t c = 0; c < t.columns.size(); ++c)
                if (t.columns[c] == k) order.push_back(c);
        for (size_t c : order) out.columns.push_back(t.columns[c]);
        for (const auto& row : t.rows) {
            std::vector<core::Cell> r;
            for (size_t c : order) r.push_back(c < row.size() ? row[c] : core::Cell{});
            out.rows.push_back(std::move(r));
        }
        return out;
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec&,
                                      const ParamValues& values) const override {
        return pathAnalysis(ctx, "what-if", values, true);
    }

private:
    static TablePicture picture(const core::Table& t) {
        TablePicture how;
        const auto shown = displayColumns(t);
        for (const char* k : {"run", "kind", "saved_ns", "length_ns", "factor", "group"})
            if (std::find(shown.begin(), shown.end(), k) != shown.end()) how.columns.push_back(k);
        how.nameColumn = "group";
        how.maxRows = 40;
        return how;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(CriticalPathPlot)
STROBE_REGISTER_PLOT(WhatIfPlot)

}  // namespace strobe::plots
