#pragma once
// What the sweep report and the one-run report share (plots/report/sweep_report.h, run_report.h): the one HTML
// escaper, tables as HTML, the GUI's plots as inline SVG figures (or PNG bytes for the Markdown form) and the page's
// style. Drawing needs a QGuiApplication (plots::makeHeadlessGuiApplication()).

#include <string>
#include <string_view>

#include <QByteArray>
#include <QSize>

#include "core/analysis/table.h"
#include "core/model/run_set.h"
#include "plots/plot.h"

namespace strobe::plots::report {

std::string esc(std::string_view s);                    // &, <, >, " as entities
std::string shorten(const std::string& s, size_t n);    // at most n bytes, "…" when cut

// Registered plot `id` on `runs` with `set` (the plot's other parameters at their defaults; keys it does not take are
// dropped), as an inline <figure><svg> of `size` CSS pixels whose ids carry the prefix `figureId`; nothing to draw:
// one <p> with the plot's reason. `table`: the plot's table.
std::string plotFigure(const core::RunSet& runs, const std::string& id, const ParamValues& set, QSize size,
                       const std::string& figureId, core::Table* table = nullptr);
// The same plot as PNG bytes; empty with `why` set when there is nothing to draw.
QByteArray plotPng(const core::RunSet& runs, const std::string& id, const ParamValues& set, QSize size,
                   std::string& why);

std::string cellHtml(const std::string& column, const core::Cell& c);
// The table with units in its headers; a link to `csvName` below it unless that is empty.
std::string htmlTable(const core::Table& t, const std::string& csvName);
std::string csvOf(const core::Table& t);

extern const char* const kStyle;

}  // namespace strobe::plots::report
