#include "plots/render.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <QBuffer>
#include <QFile>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <fmt/format.h>

#include "plots/chart.h"

namespace strobe::plots {

std::unique_ptr<QGuiApplication> makeHeadlessGuiApplication() {
    if (QGuiApplication::instance()) return nullptr;
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 0);
    if (!std::getenv("XDG_RUNTIME_DIR")) {
        const std::string dir = fmt::format("/tmp/runtime-{}", getuid());
        struct stat st {};
        if (::mkdir(dir.c_str(), 0700) == 0 || (::stat(dir.c_str(), &st) == 0 && st.st_uid == getuid() &&
                                                 (st.st_mode & 0777) == 0700))
            setenv("XDG_RUNTIME_DIR", dir.c_str(), 0);
    }
    static int argc = 1;
    static char arg0[] = "strobe";
    static char* argv[] = {arg0, nullptr};
    return std::make_unique<QGuiApplication>(argc, argv);
}


const char* toString(ImageFormat f) {
    switch (f) {
    case ImageFormat::Png: return "png";
    case ImageFormat::Svg: return "svg";
    case ImageFormat::Pdf: return "pdf";
    }
    return "png";
}

std::optional<ImageFormat> imageFormatFromPath(const std::string& path) {
    auto dot = path.rfind('.');
    if (dot == std::string::npos) return std::nullopt;
    std::string ext = path.substr(dot + 1);
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == "png") return ImageFormat::Png;
    if (ext == "svg") return ImageFormat::Svg;
    if (ext == "pdf") return ImageFormat::Pdf;
    return std::nullopt;
}

Caption exportCaption(const Plot& plot, const std::vector<std::string>& runLabels) {
    Caption c;
    if (!plot.drawsTitle()) c.title = plot.title();
    for (size_t i = 0; i < runLabels.size(); ++i)
        c.runs += (i == 0 ? "" : runLabels.size() == 2 ? " vs " : ", ") + runLabels[i];
    if (!c.runs.empty()) c.runs = (runLabels.size() == 1 ? "run: " : "runs: ") + c.runs;
    return c;
}

namespace {

// The caption's line at the top of `rect`; returns the rect below it.
QRectF drawCaption(Canvas& canvas, const QRectF& rect, const Caption& caption) {
    if (caption.empty()) return rect;
    auto& p = canvas.painter;
    const Theme t = canvas.theme();
    const QFont f = p.font();
    QFont bold = f;
    bold.setBold(true);
    bold.setPointSizeF(f.pointSizeF() * 1.15);
    const QFontMetricsF fb(bold);
    QRectF line(rect.left() + 8, rect.top() + 4, rect.width() - 16, fb.height());
    double x = line.left();
    if (!caption.title.empty()) {
        p.setFont(bold);
        p.setPen(t.foreground);
        const QString title = elided(p, caption.title, line.width());
        p.drawText(QRectF(x, line.top(), line.width(), line.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
        x += fb.horizontalAdvance(title) + 16;
    }
    p.setFont(f);
    if (!caption.runs.empty() && x < line.right()) {
        p.setPen(t.muted);
        const QRectF rest(x, line.top(), line.right() - x, line.height());
        p.drawText(rest, Qt::AlignLeft | Qt::AlignVCenter, elided(p, caption.runs, rest.width()));
    }
    const double used = fb.height() + 6;
    return QRectF(rect.left(), rect.top() + used, rect.width(), std::max(0.0, rect.height() - used));
}

}  // namespace

void paintPlot(QPainter& painter, const QRectF& whole, const Plot& plot, const Prepared& prepared,
               const ParamValues& values, bool dark, const Caption& caption) {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    Canvas canvas{painter, whole, dark};
    painter.fillRect(whole, canvas.theme().background);
    const QRectF rect = drawCaption(canvas, whole, caption);
    canvas.rect = rect;
    painter.setClipRect(rect);
    if (auto why = plot.emptyMessage(prepared, values)) {
        QRectF area = caption.title.empty() ? drawTitle(canvas, rect, plot.title()) : rect;
        drawEmptyState(canvas, area, *why);
    } else {
        plot.draw(canvas, prepared, values);
    }
    painter.restore();
}

QImage renderToImage(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size, bool dark,
                     qreal devicePixelRatio, const Caption& caption) {
    QSize px(std::max(1, int(size.width() * devicePixelRatio)), std::max(1, int(size.height() * devicePixelRatio)));
    QImage image(px, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(devicePixelRatio);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    paintPlot(painter, QRectF(0, 0, size.width(), size.height()), plot, prepared, values, dark, caption);
    painter.end();
    return image;
}

QByteArray renderToSvg(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                       bool dark, const Caption& caption) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator gen;
    gen.setOutputDevice(&buffer);
    gen.setSize(size);
    gen.setViewBox(QRect(QPoint(0, 0), size));
    gen.setTitle(QString::fromStdString(plot.title()));
    gen.setDescription(QString::fromStdString(plot.description()));
    QPainter painter(&gen);
    paintPlot(painter, QRectF(0, 0, size.width(), size.height()), plot, prepared, values, dark, caption);
    painter.end();
    return bytes;
}

QByteArray renderToPdf(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                       bool dark, const Caption& caption) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setTitle(QString::fromStdString(plot.title()));
    writer.setCreator(QStringLiteral("Strobe"));
    writer.setResolution(96);
    // A page the size of the picture (96 dpi: one logical pixel = 1/96 inch).
    writer.setPageSize(QPageSize(QSizeF(size.width() * 72.0 / 96.0, size.height() * 72.0 / 96.0), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    QPainter painter(&writer);
    // Map our logical size onto the device's page.
    double sx = double(painter.device()->width()) / size.width();
    double sy = double(painter.device()->height()) / size.height();
    painter.scale(sx, sy);
    paintPlot(painter, QRectF(0, 0, size.width(), size.height()), plot, prepared, values, dark, caption);
    painter.end();
    return bytes;
}

namespace {
core::Status writeBytes(const std::string& path, const QByteArray& bytes) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return core::Error(core::Location{path}, fmt::format("cannot open for writing: {}", f.errorString().toStdString()));
    if (f.write(bytes) != bytes.size())
        return core::Error(core::Location{path}, fmt::format("write failed: {}", f.errorString().toStdString()));
    return core::Ok{};
}
}  // namespace

core::Status renderToFile(const Plot& plot, const Prepared& prepared, const ParamValues& values, QSize size,
                          const std::string& path, std::optional<ImageFormat> format, bool dark,
                          const Caption& caption) {
    if (!format) format = imageFormatFromPath(path);
    if (!format) return core::Error(core::Location{path}, "unknown image format (expected .png, .svg or .pdf)");
    if (size.width() < 16 || size.height() < 16 || size.width() > 20000 || size.height() > 20000)
        return core::Error(core::Location{path},
                           fmt::format("image size {}x{} out of range (16..20000)", size.width(), size.height()));
    switch (*format) {
    case ImageFormat::Png: {
        QImage img = renderToImage(plot, prepared, values, size, dark, 1.0, caption);
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!img.save(&buffer, "PNG")) return core::Error(core::Location{path}, "PNG encoding failed");
        return writeBytes(path, bytes);
    }
    case ImageFormat::Svg: return writeBytes(path, renderToSvg(plot, prepared, values, size, dark, caption));
    case ImageFormat::Pdf: return writeBytes(path, renderToPdf(plot, prepared, values, size, dark, caption));
    }
    return core::Error(core::Location{path}, "unknown image format");
}

core::Status writeTableCsv(const Plot& plot, const Prepared& prepared, const ParamValues& values,
                           const std::string& path) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) return core::Error(core::Location{path}, "cannot open for writing");
    plot.table(prepared, values).writeCsv(out);
    out.flush();
    if (!out) return core::Error(core::Location{path}, "write failed");
    return core::Ok{};
}

long long countNonBackgroundPixels(const QImage& image) {
    if (image.isNull()) return 0;
    QImage img = image.convertToFormat(QImage::Format_ARGB32);
    QRgb bg = img.pixel(0, 0);
    long long n = 0;
    for (int y = 0; y < img.height(); ++y) {
        auto* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
        for (int x = 0; x < img.width(); ++x) n += line[x] != bg;
    }
    return n;
}

}  // namespace strobe::plots
