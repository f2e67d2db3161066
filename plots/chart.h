#pragma once
// Small QPainter chart toolkit shared by the builtin plots: colours, number/duration formatting, nice axis
// ticks, axes, legends, messages. Widget-free; everything takes a Canvas or a QPainter and a Theme.

#include <functional>
#include <string>
#include <vector>

#include <QColor>
#include <QRectF>
#include <QString>

#include "core/model/dataset.h"
#include "plots/plot.h"

namespace strobe::plots {

QColor categoryColor(core::KernelCategory c);
QColor seriesColor(int index);  // a qualitative palette, cycles

std::string formatDuration(double ns);  // "850 ns", "12.3 µs", "4.56 ms", "1.23 s"
std::string formatNumber(double v);     // 3 significant digits, k/M suffixes
std::string formatPercent(double pct);  // "42.1%"

// About `count` round tick values covering [lo, hi].
std::vector<double> niceTicks(double lo, double hi, int count = 6);

// Draws the title line at the top of `area` and returns the area below it.
QRectF drawTitle(Canvas& c, const QRectF& area, const std::string& title, const std::string& subtitle = {});
// A centred message (empty data, errors).
void drawMessage(Canvas& c, const QRectF& area, const std::string& text);

using TickFormatter = std::function<std::string(double)>;
// Value axis along the left (vertical) or bottom (horizontal) edge of `plot`, with grid lines across it.
void drawValueAxis(Canvas& c, const QRectF& plot, double lo, double hi, bool vertical, const TickFormatter& fmt,
                   const std::string& label = {});
// Category labels below (vertical bars) or left of (horizontal bars) `plot`, one per band.
void drawBandLabels(Canvas& c, const QRectF& plot, const std::vector<std::string>& labels, bool alongX,
                    int highlight = -1);

struct LegendEntry {
    std::string label;
    QColor color;
};
// A legend row (wrapping) at the bottom of `area`; returns the area above it.
QRectF drawLegend(Canvas& c, const QRectF& area, const std::vector<LegendEntry>& entries);

// Elides `text` to `width` pixels with the painter's font.
QString elided(const QPainter& p, const std::string& text, double width);

// ---- data helpers shared by plots ----

// Category of GPU activity i: the merge's column when filled, else from the kind and a name heuristic.
core::KernelCategory activityCategory(const core::RankData& r, size_t i);
// Step number containing GPU activity i (-1 if none): the merge's column when filled, else from StepTable.
int64_t activityStep(const core::RankData& r, size_t i);

// "run/rank N" when several runs, "rank N" otherwise.
std::string rankLabel(const RunSet& runs, size_t runIndex, int rank);

// The RankSet parameter "ranks" filter (empty = all); choices list every rank of every run.
bool rankSelected(const std::vector<int>& selected, int rank);
std::vector<std::string> rankChoices(const RunSet& runs);

}  // namespace strobe::plots
