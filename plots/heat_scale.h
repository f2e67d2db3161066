#pragma once
// The sequential colour scale of the heatmaps (CPU cores × time, ranks × steps): a viridis-like ramp from dark
// violet (low) to yellow (high), and its colour bar beside a plot.

#include <string>
#include <utility>
#include <vector>

#include <QColor>
#include <QRectF>

#include "plots/plot.h"

namespace strobe::plots {

// The colour of `fraction` along the scale (clamped to 0–1).
QColor heatColor(double fraction);

// A vertical colour bar in `bar` (low at the bottom), outlined, with a tick and a label at each (fraction, label)
// and `title` above it. Nothing when the bar is under 20 px tall.
void drawHeatColorBar(Canvas& c, const QRectF& bar, const std::vector<std::pair<double, std::string>>& ticks,
                      const std::string& title);

}  // namespace strobe::plots
