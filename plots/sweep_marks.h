#pragma once
// What the distribution plots of a sweep share (step-time-box, group-time-dist): placing one mark per
// configuration in x bands, dodged by colour; facet panels with one y scale; box and violin marks.

#include <optional>
#include <string>
#include <vector>

#include "plots/density.h"

#include <QColor>
#include <QPainter>
#include <QRectF>

#include "plots/chart.h"

namespace strobe::plots {

// One mark to place: a configuration with its values on the x, colour and facet roles (sweep_axes.h).
struct MarkKey {
    std::string x, color, facet;
    std::string label;  // the configuration
};

// Where each mark goes: its facet panel, its x band, its slot among the marks of that band (dodged, in colour then
// label order) and its colour index (the colour value's position; without a colour role the x band's).
struct MarkPlace {
    size_t facet = 0, band = 0, slot = 0, slots = 1;
    int color = 0;
};
struct MarkPlan {
    std::vector<std::string> facets;  // facet values in order ({""} without a facet role)
    std::vector<std::string> bands;   // x values in order
    std::vector<std::string> colors;  // colour values in order (empty without a colour role)
    std::vector<MarkPlace> place;     // one per key, in the keys' order
    size_t maxSlots = 1;              // the most marks in one band of one facet (every band is split this many ways)
};
MarkPlan planMarks(const std::vector<MarkKey>& keys, bool colorRole);
// The colour legend of a plan: one entry "axis=value" per colour value, in the plan's colours.
std::vector<LegendEntry> colorLegend(const std::string& colorAxis, const MarkPlan& plan);

// The panels of `facets` facets in `area`: a grid of about square cells, row by row.
std::vector<QRectF> facetPanels(const QRectF& area, size_t facets);

// Left and right edge of a mark's slot within its band of `layout` (x bands), with a small gap around it.
std::pair<double, double> slotSpan(const ChartLayout& layout, const MarkPlace& place, size_t maxSlots);

// Numbers of one sorted sample (linear-interpolation percentiles, as core::stats::quantile).
struct Spread {
    double min = 0, p5 = 0, p25 = 0, median = 0, p75 = 0, p95 = 0, max = 0, mean = 0, cv = 0;
};
Spread spreadOf(const std::vector<double>& sorted);

// A box (p25–p75) with a median line, a mean dot and min–max whiskers, `half` px either side of `cx`.
void drawBoxMark(QPainter& p, const Theme& t, const ChartLayout& layout, double cx, double half,
                 const std::vector<double>& sorted, const QColor& fill);
// A violin: the kernel density of the sample (Gaussian kernel, Silverman's bandwidth) over [min, max], mirrored
// about `cx`, its widest point `half` px either side; the median marked with a line.
void drawViolinMark(QPainter& p, const Theme& t, const ChartLayout& layout, double cx, double half,
                    const std::vector<double>& sorted, const QColor& fill);


// Colour scales of the heatmap: sequential (light to dark blue) for t in [0, 1]; diverging (blue, white, red)
// for t in [-1, 1].
QColor sequentialColor(double t);
QColor divergingColor(double t);
// Black or white, whichever reads better on `background`.
QColor textColorOn(const QColor& background);

// Lines of notes (muted, each elided to the width) under a title; returns the area below them.
QRectF drawNotes(Canvas& c, const QRectF& area, const std::vector<std::string>& lines);

}  // namespace strobe::plots
