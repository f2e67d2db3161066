#pragma once
// Rendering a plot off screen: to a QImage, PNG, SVG (QSvgGenerator) or PDF (QPdfWriter). strobe-cli plot and
// the GUI's export use the same code, so an exported file looks like the window. Needs a QGuiApplication
// (QT_QPA_PLATFORM=offscreen works) for fonts.

#include <optional>
#include <string>

#include <QByteArray>
#include <QImage>
#include <QSize>

#include "core/io/error.h"
#include "plots/plot.h"

namespace strobe::plots {

enum class ImageFormat { Png, Svg, Pdf };
const char* toString(ImageFormat f);
std::optional<ImageFormat> imageFormatFromPath(const std::string& path);  // by extension, case-insensitive

// Fills the background of the theme, then calls plot.draw() in `rect`. The painter's state is restored.
void paintPlot(QPainter& painter, const QRectF& rect, const Plot& plot, const Prepared& prepared,
               const ParamValues& values, bool dark = false);

QImage renderToImage(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                     bool dark = false, qreal devicePixelRatio = 1.0);
QByteArray renderToSvg(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                       bool dark = false);
QByteArray renderToPdf(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                       bool dark = false);

// Writes `path` in `format` (or the one its extension names). The error names the file.
core::Status renderToFile(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                          const std::string& path, std::optional<ImageFormat> format = std::nullopt,
                          bool dark = false);

// Writes the plot's table as CSV. The error names the file.
core::Status writeTableCsv(const Plot& plot, const Prepared& prepared, const ParamValues& values,
                           const std::string& path);

// Pixels of `image` that differ from its top-left pixel's colour (tests: "non-empty picture").
long long countNonBackgroundPixels(const QImage& image);

}  // namespace strobe::plots
