#include "plots/analysis_plot.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/engine/converted_run.h"
#include "plots/chart.h"
#include "plots/step_times.h"

namespace strobe::plots {

size_t AnalysisTables::bytes() const {
    size_t b = sizeof(*this);
    auto tableBytes = [](const core::Table& t) {
        size_t n = 0;
        for (const auto& row : t.rows) {
            n += row.capacity() * sizeof(core::Cell);
            for (const auto& c : row)
                if (const auto* s = std::get_if<std::string>(&c)) n += s->capacity();
        }
        return n + t.columns.size() * 32;
    };
    for (const auto& t : perRun) b += tableBytes(t);
    return b + tableBytes(combined);
}

std::string AnalysisTables::rankLabel(size_t run, int rank) const {
    return plots::rankLabel(run < runLabels.size() ? runLabels[run] : std::string(), perRun.size() > 1, rank);
}

std::vector<ParamSpec> analysisWindowSpecs(const RunSet& runs, const std::string& defaultWindow) {
    return {kWindow.withDefault(defaultWindow).spec(), kSteps.spec(stepChoices(runs))};
}

core::Result<std::shared_ptr<AnalysisTables>> runAnalysisOnRuns(const RunSet& runs, const ParamValues& values,
                                                                 const core::CancelToken& cancel,
                                                                 const core::ProgressFn& progress,
                                                                 const AnalysisFn& fn,
                                                                 const SummaryAnalysisFn& fromSummaries) {
    std::string stepsText;
    for (const auto& s : kSteps(values)) stepsText += (stepsText.empty() ? "" : ",") + s;
    auto spec = core::WindowSpec::parse(kWindow(values), stepsText);
    if (!spec) return spec.error();
    auto out = std::make_shared<AnalysisTables>();
    out->window = spec->toString();
    for (size_t i = 0; i < runs.size(); ++i) {
        if (cancel.cancelled()) return cancelledError();
        out->runLabels.push_back(runs[i].label);
        out->configurations.push_back(configurationLabel(runs[i]));
        if (!runs[i].dataset) {
            core::Table empty;
            empty.messages.push_back(fmt::format("run '{}' is not loaded", runs[i].label));
            out->perRun.push_back(std::move(empty));
            continue;
        }
        const core::RunSummaries* sf = runs[i].dataset->summaryFirst.get();
        out->loadedRanks.resize(i + 1);
        if (sf) out->loadedRanks[i] = sf->loaded;
        std::optional<core::Result<core::Table>> t;
        if (sf && fromSummaries) t = fromSummaries(*sf, *spec);
        if (t && *t)
            (*t)->messages.insert((*t)->messages.begin(),
                                  fmt::format("from the summaries of all {} ranks (strobe-cli convert)", sf->ranks.size()));
        if (!t && sf && sf->loaded.empty()) {
            core::Table none;
            none.messages.push_back(fmt::format("{}: this analysis needs events; pick ranks to load (the rank × step "
                                                "heatmap's menu, or the run's menu in the Runs panel)",
                                                sf->loadedText()));
            t = std::move(none);
        }
        if (!t) {
            // The dataset's own context: what an earlier preparation on this run computed (window selections,
            // steps, runtime links) is reused, and two views preparing at once share it safely.
            auto ctx = core::AnalysisContext::of(runs[i].dataset);
            t = fn(*ctx, *spec);
            if (*t && sf) {
                (*t)->messages.insert((*t)->messages.begin(),
                                      fmt::format("on the loaded ranks only: {}", sf->loadedText()));
                // Subtitles show the window: they say it too.
                out->window += fmt::format("; on the loaded ranks only ({} of {})", sf->loaded.size(), sf->ranks.size());
            }
        }
        if (!*t) return core::Error((*t).error().where, fmt::format("{}: {}", runs[i].label, (*t).error().message));
        out->perRun.push_back(std::move(t->value()));
        if (progress) progress({"analysis", runs[i].label, double(i + 1) / double(runs.size()), i + 1, runs.size()});
    }
    if (cancel.cancelled()) return cancelledError();
    // Combined table: as is for one run, else with a leading run column.
    if (out->perRun.size() == 1) {
        out->combined = out->perRun[0];
    } else {
        for (size_t i = 0; i < out->perRun.size(); ++i) {
            const auto& t = out->perRun[i];
            if (out->combined.columns.empty() && !t.columns.empty()) {
                out->combined.columns = {col::kRun.str()};
                out->combined.columns.insert(out->combined.columns.end(), t.columns.begin(), t.columns.end());
            }
            for (const auto& row : t.rows) {
                std::vector<core::Cell> r{out->runLabels[i]};
                r.insert(r.end(), row.begin(), row.end());
                out->combined.rows.push_back(std::move(r));
            }
            for (const auto& m : t.messages) out->combined.messages.push_back(out->runLabels[i] + ": " + m);
        }
    }
    return out;
}

void addConfigurationColumn(AnalysisTables& tables) {
    core::Table& t = tables.combined;
    const int run = t.columnIndex(col::kRun.str());
    if (run < 0 || t.columnIndex("configuration") >= 0) return;
    bool parameters = false;
    for (size_t i = 0; i < tables.runLabels.size() && !parameters; ++i)
        parameters = i < tables.configurations.size() && tables.configurations[i] != tables.runLabels[i];
    if (!parameters) return;
    std::map<std::string, std::string> configOf;
    for (size_t i = 0; i < tables.runLabels.size() && i < tables.configurations.size(); ++i)
        configOf.emplace(tables.runLabels[i], tables.configurations[i]);
    t.columns.insert(t.columns.begin() + run + 1, "configuration");
    for (auto& row : t.rows) {
        const auto* label = size_t(run) < row.size() ? std::get_if<std::string>(&row[size_t(run)]) : nullptr;
        const auto it = label ? configOf.find(*label) : configOf.end();
        row.insert(row.begin() + std::min<ptrdiff_t>(run + 1, ptrdiff_t(row.size())),
                   it == configOf.end() ? core::Cell{} : core::Cell{it->second});
    }
}

std::vector<std::string> configurationsOf(const AnalysisTables& tables) {
    std::vector<std::string> out;
    for (const auto& c : tables.configurations)
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    return out;
}

double cellNumber(const core::Table& t, size_t row, core::ColumnKey column, double fallback) {
    return cellNumber(t, row, column.str(), fallback);
}

std::string cellText(const core::Table& t, size_t row, core::ColumnKey column) { return cellText(t, row, column.str()); }

double cellNumber(const core::Table& t, size_t row, const std::string& column, double fallback) {
    int c = t.columnIndex(column);
    if (c < 0 || row >= t.rows.size() || size_t(c) >= t.rows[row].size()) return fallback;
    const auto& cell = t.rows[row][size_t(c)];
    if (const auto* i = std::get_if<int64_t>(&cell)) return double(*i);
    if (const auto* d = std::get_if<double>(&cell)) return *d;
    return fallback;
}

std::string cellText(const core::Table& t, size_t row, const std::string& column) {
    int c = t.columnIndex(column);
    if (c < 0 || row >= t.rows.size() || size_t(c) >= t.rows[row].size()) return {};
    const auto& cell = t.rows[row][size_t(c)];
    if (const auto* s = std::get_if<std::string>(&cell)) return *s;
    if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&cell)) return fmt::format("{}", *d);
    return {};
}

namespace {
bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::string formatCell(const core::Table& t, size_t row, const std::string& column) {
    const core::Cell& c = t.at(row, column);
    if (std::holds_alternative<std::monostate>(c)) return {};
    if (const auto* s = std::get_if<std::string>(&c)) return *s;
    const double v = core::Table::number(c);
    if (endsWith(column, "_ns")) return formatDuration(v);
    if (column == "pct" || endsWith(column, "_pct")) return formatPercent(v);
    if (column == "cv") return fmt::format("{:.3f}", v);
    if (std::holds_alternative<int64_t>(c)) return std::to_string(std::get<int64_t>(c));
    return fmt::format("{:.4g}", v);
}

std::string columnHeader(const std::string& column) {
    return endsWith(column, "_ns") ? column.substr(0, column.size() - 3) : column;
}

std::vector<std::string> displayColumns(const core::Table& t) {
    std::vector<std::string> out;
    for (const auto& c : t.columns) {
        if (c == "run" || c == "rank") {
            bool varies = false;
            for (size_t r = 1; r < t.rows.size() && !varies; ++r) varies = cellText(t, r, c) != cellText(t, 0, c);
            if (!varies && !t.rows.empty()) continue;
        }
        out.push_back(c);
    }
    return out;
}

core::Result<std::shared_ptr<AnalysisTables>> AnalysisPlot::prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                         const core::CancelToken& cancel,
                                                                         const core::ProgressFn& progress) const {
    auto p = runAnalysisOnRuns(
        runs, values, cancel, progress,
        [&](core::AnalysisContext& ctx, const core::WindowSpec& w) { return analyse(ctx, w, values); },
        [&](const core::RunSummaries& s, const core::WindowSpec& w) { return analyseSummaries(s, w, values); });
    if (p && namesConfigurations()) addConfigurationColumn(**p);
    return p;
}

core::Table AnalysisPlot::tableTyped(const AnalysisTables& tables, const ParamValues&) const { return tables.combined; }

std::vector<ParamSpec> analysisBarSpecs(const RunSet& runs, const std::vector<ParamSpec>& own,
                                        const std::string& percentTooltip, bool percentDefault,
                                        bool horizontalDefault) {
    auto s = analysisWindowSpecs(runs);
    s.insert(s.end(), own.begin(), own.end());
    for (auto& spec : barStyleSpecs(percentTooltip, percentDefault, horizontalDefault)) s.push_back(spec);
    return s;
}

BarChart AnalysisBarPlot::styledChart(const ParamValues& values) const {
    BarChart c;
    c.title = title();
    c.horizontal = kHorizontal(values);
    c.percentAxis = kPercent(values);
    c.legend = legendMode(values);
    return c;
}

void AnalysisBarPlot::addMessages(BarChart& c, const AnalysisTables& tables, const std::string& whenNoBars) {
    c.messages = tables.combined.messages;
    if (c.bars.empty()) c.messages.insert(c.messages.begin(), whenNoBars);
}

}  // namespace strobe::plots
