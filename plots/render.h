#pragma once
// Rendering a plot off screen: to a QImage, PNG, SVG (QSvgGenerator) or PDF (QPdfWriter). strobe-cli plot and
// the GUI's export use the same code, so an exported file looks like the window. Needs a QGuiApplication
// (QT_QPA_PLATFORM=offscreen works) for fonts.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QByteArray>
#include <QGuiApplication>
#include <QImage>
#include <QSize>

#include "core/io/error.h"
#include "plots/plot.h"

namespace strobe::plots {

// The QGuiApplication a headless renderer (strobe-cli plot, sweep report, the Python module) needs for fonts:
// off screen unless QT_QPA_PLATFORM names a platform, with XDG_RUNTIME_DIR set to the directory Qt would fall back
// to (/tmp/runtime-<user>, made 0700) when the environment has none, so that valid use prints no warning. Null
// when an application exists already.
std::unique_ptr<QGuiApplication> makeHeadlessGuiApplication();

enum class ImageFormat { Png, Svg, Pdf };
const char* toString(ImageFormat f);
std::optional<ImageFormat> imageFormatFromPath(const std::string& path);  // by extension, case-insensitive

// What an exported picture says above the plot, so that a file read elsewhere tells what it shows: the plot's
// title in bold when its draw() has none of its own (Plot::drawsTitle; timelines), then the runs it shows, muted.
// Empty: nothing is added (the picture is the window's).
struct Caption {
    std::string title;
    std::string runs;
    bool empty() const { return title.empty() && runs.empty(); }
};
// The caption of `plot` on runs labelled `runLabels` ("a", "a vs b", "a, b, c").
Caption exportCaption(const Plot& plot, const std::vector<std::string>& runLabels);

// Fills the background of the theme, draws the caption (if any) at the top, then calls plot.draw() in the rest
// of `rect`. The painter's state is restored.
void paintPlot(QPainter& painter, const QRectF& rect, const Plot& plot, const Prepared& prepared,
               const ParamValues& values, bool dark = false, const Caption& caption = {});

QImage renderToImage(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                     bool dark = false, qreal devicePixelRatio = 1.0, const Caption& caption = {});
QByteArray renderToSvg(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                       bool dark = false, const Caption& caption = {});
QByteArray renderToPdf(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                       bool dark = false, const Caption& caption = {});

// Writes `path` in `format` (or the one its extension names). The error names the file.
core::Status renderToFile(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                          const std::string& path, std::optional<ImageFormat> format = std::nullopt,
                          bool dark = false, const Caption& caption = {});

// Writes the plot's table as CSV. The error names the file.
core::Status writeTableCsv(const Plot& plot, const Prepared& prepared, const ParamValues& values,
                           const std::string& path);

// Pixels of `image` that differ from its top-left pixel's colour (tests: "non-empty picture").
long long countNonBackgroundPixels(const QImage& image);

}  // namespace strobe::plots
