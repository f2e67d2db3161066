#include "plots/chart.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/engine/converted_run.h"

namespace strobe::plots {

QColor categoryColor(core::KernelCategory c) {
    using K = core::KernelCategory;
    switch (c) {
    case K::Gemm: return QColor(0x1f, 0x77, 0xb4);
    case K::Attention: return QColor(0x94, 0x67, 0xbd);
    case K::Communication: return QColor(0xd6, 0x27, 0x28);
    case K::Memcpy: return QColor(0xff, 0x7f, 0x0e);
    case K::Memset: return QColor(0xbc, 0xbd, 0x22);
    case K::Convolution: return QColor(0x17, 0xbe, 0xcf);
    case K::Normalization: return QColor(0xe3, 0x77, 0xc2);
    case K::Elementwise: return QColor(0x2c, 0xa0, 0x2c);
    case K::Reduction: return QColor(0x8c, 0x56, 0x4b);
    case K::Other:
    case K::Count: break;
    }
    return QColor(0x7f, 0x7f, 0x7f);
}

namespace {
constexpr int kPaletteSize = 10;
}

QColor seriesColor(int index) {
    static const QColor palette[kPaletteSize] = {
        QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
        QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f),
        QColor(0xbc, 0xbd, 0x22), QColor(0x17, 0xbe, 0xcf)};
    return palette[((index % kPaletteSize) + kPaletteSize) % kPaletteSize];
}

Qt::PenStyle seriesPenStyle(int index) {
    static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
    int round = std::max(0, index) / kPaletteSize;
    return styles[round % int(std::size(styles))];
}

std::string formatNumber(double v) {
    double a = std::fabs(v);
    if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
    if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
    if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
    return fmt::format("{:.4g}", v);
}

std::string formatPercent(double pct) { return fmt::format("{:.1f}%", pct); }

std::string formatValue(double v, TickUnit unit) {
    switch (unit) {
    case TickUnit::Duration: return formatDuration(v);
    case TickUnit::Percent: return formatPercent(v);
    case TickUnit::Number: break;
    }
    return formatNumber(v);
}

// ---- ticks ----

std::vector<double> niceTicks(double lo, double hi, int count) {
    std::vector<double> out;
    if (!std::isfinite(lo) || !std::isfinite(hi)) return out;
    if (hi < lo) std::swap(lo, hi);
    if (hi == lo) return {lo};
    double raw = (hi - lo) / std::max(1, count);
    double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double norm = raw / mag;
    double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
    double first = std::ceil(lo / step - 1e-9) * step;
    for (double v = first; v <= hi + step * 1e-9 && out.size() < 100; v += step)
        out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
    return out;
}

namespace {

// Decimals that tell values `step` apart (steps are 1, 2 or 5 × 10^k): 1 → 0, 0.5 → 1, 0.05 → 2.
int decimalsFor(double step) {
    if (!(step > 0) || !std::isfinite(step)) return 0;
    return std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 6);
}

}  // namespace

std::vector<std::string> tickLabels(const std::vector<double>& ticks, TickUnit unit) {
    std::vector<std::string> out;
    if (ticks.size() < 2) {
        for (double v : ticks) out.push_back(formatValue(v, unit));
        return out;
    }
    double step = std::fabs(ticks[1] - ticks[0]);
    double largest = 0;
    for (double v : ticks) largest = std::max(largest, std::fabs(v));
    // The first scale whose start the largest tick reaches.
    struct Scale {
        double from, divisor;
        const char* suffix;
    };
    static const std::vector<Scale> durations = {{1e9, 1e9, " s"}, {1e6, 1e6, " ms"}, {1e3, 1e3, " µs"}, {0, 1, " ns"}};
    static const std::vector<Scale> numbers = {{1e9, 1e9, "G"}, {1e6, 1e6, "M"}, {1e4, 1e3, "k"}, {0, 1, ""}};
    static const std::vector<Scale> percents = {{0, 1, "%"}};
    const auto& scales = unit == TickUnit::Duration ? durations : unit == TickUnit::Percent ? percents : numbers;
    auto scale = *std::find_if(scales.begin(), scales.end(), [&](const Scale& s) { return largest >= s.from; });
    int decimals = decimalsFor(step / scale.divisor);
    for (double v : ticks) out.push_back(fmt::format("{:.{}f}{}", v / scale.divisor, decimals, scale.suffix));
    return out;
}

std::vector<LogTick> logTicks(int lo, int hi, double pxPerDecade) {
    std::vector<LogTick> out;
    bool minors = pxPerDecade >= 60, labelMinors = pxPerDecade >= 200;
    for (int e = lo; e <= hi; ++e) {
        double v = std::pow(10.0, e);
        out.push_back({v, true, true});
        if (minors && e < hi) {
            out.push_back({2 * v, false, labelMinors});
            out.push_back({5 * v, false, labelMinors});
        }
    }
    return out;
}

namespace {

// The next round step (1, 2 or 5 × 10^k) at or above `step`.
double niceStepAtLeast(double step) {
    double mag = std::pow(10.0, std::floor(std::log10(step)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= step * (1 - 1e-9)) return m * mag;
    return 10 * mag;
}

// Places the labels of `ticks` (centred, shifted inside [0, width]); false when two would be closer than `gap`.
bool placeTimeLabels(std::vector<TimeTick>& ticks, double width, double gap) {
    bool fits = true;
    double prevRight = -1e300;
    for (auto& t : ticks) {
        t.left = std::clamp(t.x - t.labelWidth / 2, 0.0, std::max(0.0, width - t.labelWidth));
        if (t.left < prevRight + gap) fits = false;
        prevRight = t.left + t.labelWidth;
    }
    return fits;
}

}  // namespace

std::vector<TimeTick> timeAxisTicks(double start, double end, double width,
                                    const std::function<double(const QString&)>& measure, double gap) {
    std::vector<TimeTick> ticks;
    const double span = end - start;
    if (!(span > 0) || !std::isfinite(span) || !(width > 0)) return ticks;
    // One unit for the whole axis, from the visible span.
    const double divisor = span >= 1e9 ? 1e9 : span >= 1e6 ? 1e6 : span >= 1e3 ? 1e3 : 1;
    const char* suffix = span >= 1e9 ? " s" : span >= 1e6 ? " ms" : span >= 1e3 ? " µs" : " ns";
    constexpr double kMinSpacing = 40;  // px between ticks at the densest (labels must fit too)
    double step = niceStepAtLeast(std::max(span * kMinSpacing / width, 1.0));
    // At most the largest round step within the span, so that one tick at least falls inside.
    const double mag = std::pow(10.0, std::floor(std::log10(span)));
    const double widest = span >= 5 * mag ? 5 * mag : span >= 2 * mag ? 2 * mag : mag;
    step = std::min(step, std::max(widest, 1.0));
    std::vector<TimeTick> last;  // the last attempt that had ticks
    for (int attempt = 0; attempt < 40; ++attempt, step = niceStepAtLeast(step * 1.5)) {
        ticks.clear();
        const int decimals = decimalsFor(step / divisor);
        const double first = std::ceil(start / step - 1e-9) * step;
        for (double v = first; v <= end + step * 1e-9 && ticks.size() < 200; v += step) {
            TimeTick t;
            t.value = std::fabs(v) < step * 1e-9 ? 0 : v;
            t.x = (t.value - start) / span * width;
            t.label = fmt::format("{:.{}f}{}", t.value / divisor, decimals, suffix);
            t.labelWidth = measure(QString::fromStdString(t.label));
            ticks.push_back(std::move(t));
        }
        if (ticks.empty()) break;  // the step outgrew the span
        if (placeTimeLabels(ticks, width, gap)) return ticks;
        last = ticks;
    }
    ticks = std::move(last);
    // Too narrow for even two labels: keep those that do not overlap the one before.
    double prevRight = -1e300;
    for (auto& t : ticks) {
        if (t.left < prevRight + gap || t.left + t.labelWidth > width + 0.5) {
            t.label.clear();
            continue;
        }
        prevRight = t.left + t.labelWidth;
    }
    return ticks;
}

std::vector<TimeTick> timeAxisTicks(double start, double end, double width, const QFontMetricsF& fm, double gap) {
    return timeAxisTicks(
        start, end, width, [&fm](const QString& s) { return fm.horizontalAdvance(s); }, gap);
}

// ---- text ----

QString wrapText(const QString& text, int maxChars) {
    if (maxChars < 1) return text;
    const QString breakAfter = QStringLiteral(" ,;:<>()[]");
    QStringList out;
    for (QString line : text.split(QLatin1Char('\n'))) {
        while (line.size() > maxChars) {
            qsizetype cut = 0;
            for (qsizetype b = maxChars; b > maxChars / 3 && cut == 0; --b)
                if (breakAfter.contains(line[b - 1]) || line[b] == QLatin1Char(' ')) cut = b;
            if (cut == 0) cut = maxChars;
            QString head = line.left(cut);
            while (head.endsWith(QLatin1Char(' '))) head.chop(1);
            out << head;
            line = line.mid(cut);
            while (line.startsWith(QLatin1Char(' '))) line.remove(0, 1);
        }
        out << line;
    }
    return out.join(QLatin1Char('\n'));
}

QString elided(const QPainter& p, const std::string& text, double width) {
    QFontMetricsF fm(p.font());
    return fm.elidedText(QString::fromStdString(text), Qt::ElideRight, std::max(0.0, width));
}

namespace {

const QChar kEllipsis(0x2026);

// The longest start of `text` (at most `limit` characters) whose width with `suffix` after it is ≤ width.
qsizetype fittingStart(const QString& text, qsizetype limit, const QString& suffix, double width,
                       const std::function<double(const QString&)>& measure) {
    qsizetype lo = 0, hi = std::min(limit, text.size());
    while (lo < hi) {
        qsizetype mid = (lo + hi + 1) / 2;
        if (measure(text.left(mid) + suffix) <= width) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

}  // namespace

QString elideMiddle(const QString& text, double width, const std::function<double(const QString&)>& measure,
                    qsizetype sharedPrefix, double headShare) {
    if (measure(text) <= width) return text;
    const QString ellipsis(kEllipsis);
    if (measure(ellipsis) > width) return {};
    auto headOf = [&](qsizetype kept) { return qsizetype(std::lround(double(kept) * headShare)); };
    auto compose = [&](qsizetype kept) {
        return text.left(headOf(kept)) + ellipsis + text.right(kept - headOf(kept));
    };
    // The most characters that still fit, by bisection (the width grows with the characters kept).
    qsizetype lo = 0, hi = text.size() - 1;
    while (lo < hi) {
        qsizetype mid = (lo + hi + 1) / 2;
        if (measure(compose(mid)) <= width) lo = mid;
        else hi = mid - 1;
    }
    qsizetype tailFrom = text.size() - (lo - headOf(lo));
    if (sharedPrefix <= 0 || sharedPrefix < headOf(lo) || sharedPrefix >= tailFrom) return compose(lo);
    // The part that tells this label from the others would be cut away: cut inside the shared start instead.
    qsizetype from = sharedPrefix;
    while (from > 0 && !QString(" ,<(:").contains(text[from - 1])) --from;
    qsizetype head = fittingStart(text, from, ellipsis, width / 4, measure);
    if (from <= head) {  // no token boundary after the short start: from the first differing character
        from = sharedPrefix;
        head = fittingStart(text, from, ellipsis, width / 4, measure);
    }
    QString start = text.left(head) + ellipsis;
    QString rest = text.mid(from);
    if (measure(start + rest) <= width) return start + rest;
    return start + rest.left(fittingStart(rest, rest.size(), ellipsis, width - measure(start), measure)) + ellipsis;
}

QString elideMiddle(const QFontMetricsF& fm, const std::string& text, double width, qsizetype sharedPrefix) {
    return elideMiddle(
        QString::fromStdString(text), width, [&fm](const QString& s) { return fm.horizontalAdvance(s); },
        sharedPrefix);
}

std::vector<qsizetype> sharedPrefixLengths(const std::vector<QString>& labels) {
    // In sorted order, the longest common prefix of a label with any other text is the one with a neighbouring
    // text; copies of the same text are one.
    std::vector<size_t> order(labels.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return labels[a] < labels[b]; });
    std::vector<std::pair<size_t, size_t>> runs;  // [first, last) in `order` of one text
    for (size_t k = 0; k < order.size(); ++k)
        if (k == 0 || labels[order[k]] != labels[order[k - 1]]) runs.push_back({k, k + 1});
        else runs.back().second = k + 1;
    std::vector<qsizetype> out(labels.size(), 0);
    auto common = [](const QString& a, const QString& b) {
        qsizetype n = 0;
        while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
        return n;
    };
    for (size_t r = 0; r < runs.size(); ++r) {
        const QString& text = labels[order[runs[r].first]];
        qsizetype n = 0;
        if (r > 0) n = std::max(n, common(text, labels[order[runs[r - 1].first]]));
        if (r + 1 < runs.size()) n = std::max(n, common(text, labels[order[runs[r + 1].first]]));
        if (n >= text.size()) n = 0;  // all of it is the start of another label: no place tells it apart
        for (size_t k = runs[r].first; k < runs[r].second; ++k) out[order[k]] = n;
    }
    return out;
}

std::vector<qsizetype> sharedPrefixLengths(const std::vector<std::string>& labels) {
    std::vector<QString> q;
    for (const auto& l : labels) q.push_back(QString::fromStdString(l));
    return sharedPrefixLengths(q);
}

double labelGutterWidth(double widest, double total, double padding, double maxShare, double minWidth) {
    return std::clamp(widest + padding, minWidth, std::max(minWidth, total * maxShare));
}

size_t labelStride(double bandSize, double labelSize) {
    if (!(bandSize > 0)) return 1;
    return std::max<size_t>(1, size_t(std::ceil(labelSize / bandSize - 1e-9)));
}

// ---- layout and axes ----

ChartAxis ChartAxis::linear(double lo, double hi, TickUnit unit, std::string title) {
    ChartAxis a;
    a.kind = Kind::Linear;
    a.lo = lo;
    a.hi = hi;
    a.unit = unit;
    a.title = std::move(title);
    return a;
}

ChartAxis ChartAxis::log(double minValue, double maxValue, TickUnit unit, std::string title) {
    if (!std::isfinite(minValue) || !std::isfinite(maxValue)) minValue = 1, maxValue = 10;
    ChartAxis a = linear(std::floor(std::log10(std::max(1.0, minValue))),
                         std::ceil(std::log10(std::max(10.0, maxValue))), unit, std::move(title));
    a.kind = Kind::Log;
    if (a.hi <= a.lo) a.hi = a.lo + 1;
    return a;
}

ChartAxis ChartAxis::bandsOf(std::vector<std::string> labels, std::string title, int highlight) {
    ChartAxis a;
    a.kind = Kind::Bands;
    a.bands = std::move(labels);
    a.title = std::move(title);
    a.highlight = highlight;
    return a;
}

double ChartAxis::fraction(double value) const {
    if (kind == Kind::Log) {
        double e = value > 0 ? std::log10(value) : lo;
        return (e - lo) / (hi > lo ? hi - lo : 1.0);
    }
    return (value - lo) / (hi > lo ? hi - lo : 1.0);
}

double ChartLayout::xAt(double value) const { return plot.left() + x.fraction(value) * plot.width(); }
double ChartLayout::yAt(double value) const { return plot.bottom() - y.fraction(value) * plot.height(); }

double ChartLayout::bandSize(bool alongX) const {
    const auto& a = alongX ? x : y;
    return (alongX ? plot.width() : plot.height()) / double(std::max<size_t>(1, a.bands.size()));
}

double ChartLayout::bandStart(bool alongX, size_t band) const {
    return (alongX ? plot.left() : plot.top()) + bandSize(alongX) * double(band);
}

std::optional<size_t> ChartLayout::bandAt(bool alongX, QPointF pt) const {
    const auto& a = alongX ? x : y;
    if (a.kind != ChartAxis::Kind::Bands || a.bands.empty()) return std::nullopt;
    bool across = alongX ? pt.y() >= plot.top() && pt.y() <= plot.bottom() + xLabelDepth
                         : pt.x() >= plot.left() - yLabelWidth && pt.x() <= plot.right();
    double along = alongX ? pt.x() - plot.left() : pt.y() - plot.top();
    if (!across || along < 0) return std::nullopt;
    auto b = size_t(along / bandSize(alongX));
    if (b >= a.bands.size()) return std::nullopt;
    return b;
}

namespace {

constexpr double kTickGap = 6;     // between a tick label and its axis
constexpr double kMaxShare = 0.4;  // of the chart, for band labels

struct AxisTicks {
    std::vector<double> values;
    std::vector<bool> major;
    std::vector<std::string> labels;  // "" = not labelled
};

double widestOf(const QFontMetricsF& fm, const std::vector<std::string>& texts) {
    double w = 0;
    for (const auto& s : texts) w = std::max(w, fm.horizontalAdvance(QString::fromStdString(s)));
    return w;
}

// Ticks of a Linear or Log axis `length` px long; along x they are spaced so that their labels do not touch.
AxisTicks axisTicks(const ChartAxis& a, double length, const QFontMetricsF& fm, bool alongX) {
    AxisTicks t;
    if (a.kind == ChartAxis::Kind::Log) {
        int lo = int(std::lround(a.lo)), hi = int(std::lround(a.hi));
        double perDecade = length / double(std::max(1, hi - lo));
        auto ticks = logTicks(lo, hi, perDecade);
        double widest = 0;
        for (const auto& k : ticks)
            if (k.major)
                widest = std::max(widest, fm.horizontalAdvance(QString::fromStdString(formatValue(k.value, a.unit))));
        size_t stride = labelStride(perDecade, alongX ? widest + 12 : fm.height() + 2);
        size_t decade = 0;
        for (const auto& k : ticks) {
            bool labelled = k.labelled && (!k.major || decade % stride == 0) && (k.major || stride == 1);
            if (k.major) ++decade;
            t.values.push_back(k.value);
            t.major.push_back(k.major);
            t.labels.push_back(labelled ? formatValue(k.value, a.unit) : std::string());
        }
        return t;
    }
    int count = std::max(2, int(length / (alongX ? 90 : 50)));
    for (;; --count) {
        t.values = niceTicks(a.lo, a.hi, count);
        t.labels = tickLabels(t.values, a.unit);
        if (!alongX || count <= 2 || t.values.size() < 2) break;
        double spacing = length * std::fabs(t.values[1] - t.values[0]) / std::max(1e-300, a.hi - a.lo);
        if (widestOf(fm, t.labels) + 12 <= spacing) break;
    }
    t.major.assign(t.values.size(), true);
    return t;
}

}  // namespace

ChartLayout layoutChart(const QFontMetricsF& fm, const QRectF& area, ChartAxis x, ChartAxis y) {
    using Kind = ChartAxis::Kind;
    ChartLayout l;
    double h = fm.height();
    double top = y.kind == Kind::Bands ? 4 : h / 2 + 2;  // the top tick label is centred on the plot's edge
    double xTitle = x.title.empty() ? 4 : h + 4;
    if (y.kind == Kind::Bands) {
        l.yLabelWidth = labelGutterWidth(widestOf(fm, y.bands), area.width());
    } else {
        auto ticks = axisTicks(y, std::max(1.0, area.height() - top - 2 * h - xTitle), fm, false);
        l.yLabelWidth = widestOf(fm, ticks.labels) + kTickGap + 2;
    }
    double left = l.yLabelWidth + (y.title.empty() ? 8 : h + 8);
    double right = 12;
    if (x.kind != Kind::Bands) {
        // The last tick label is centred on its tick, which may be the plot's right edge.
        auto ticks = axisTicks(x, std::max(1.0, area.width() - left - right), fm, true);
        if (!ticks.labels.empty())
            right = std::max(right, fm.horizontalAdvance(QString::fromStdString(ticks.labels.back())) / 2 + 4);
    }
    double width = std::max(1.0, area.width() - left - right);
    l.xLabelDepth = h + kTickGap;
    if (x.kind == Kind::Bands && !x.bands.empty()) {
        double band = width / double(x.bands.size());
        double widest = widestOf(fm, x.bands);
        if (widest + 6 > band) {
            l.xLabelsRotated = true;
            l.xLabelDepth = std::min(widest, kMaxShare * area.height()) + kTickGap + 4;
        }
    }
    double height = std::max(1.0, area.height() - top - l.xLabelDepth - xTitle);
    l.plot = QRectF(area.left() + left, area.top() + top, width, height);
    l.x = std::move(x);
    l.y = std::move(y);
    return l;
}

namespace {

void drawBandLabels(Canvas& c, const ChartLayout& l, bool alongX) {
    auto& p = c.painter;
    Theme t = c.theme();
    QFontMetricsF fm(p.font());
    const auto& a = alongX ? l.x : l.y;
    double band = l.bandSize(alongX);
    double h = fm.height();
    size_t stride = labelStride(band, alongX && !l.xLabelsRotated ? 1.0 : h + 1);
    QFont normal = p.font(), bold = normal;
    bold.setBold(true);
    auto shared = sharedPrefixLengths(a.bands);
    for (size_t i = 0; i < a.bands.size(); ++i) {
        bool hl = int(i) == a.highlight;
        if (i % stride != 0 && !hl) continue;
        p.setFont(hl ? bold : normal);
        p.setPen(hl ? t.highlight : t.foreground);
        QFontMetricsF fmi(p.font());
        double start = l.bandStart(alongX, i);
        if (!alongX) {
            double w = l.yLabelWidth - kTickGap;
            QRectF r(l.plot.left() - l.yLabelWidth, start, w, band);
            if (band < h) r = QRectF(r.left(), start + band / 2 - h / 2, w, h);
            p.drawText(r, Qt::AlignRight | Qt::AlignVCenter, elideMiddle(fmi, a.bands[i], w, shared[i]));
        } else if (!l.xLabelsRotated) {
            p.drawText(QRectF(start, l.plot.bottom() + 3, band, h), Qt::AlignHCenter | Qt::AlignTop,
                       elideMiddle(fmi, a.bands[i], band - 2, shared[i]));
        } else {
            double len = l.xLabelDepth - kTickGap;
            p.save();
            p.translate(start + band / 2, l.plot.bottom() + 4);
            p.rotate(-90);
            p.drawText(QRectF(-len, -h / 2, len, h), Qt::AlignRight | Qt::AlignVCenter,
                       elideMiddle(fmi, a.bands[i], len, shared[i]));
            p.restore();
        }
    }
    p.setFont(normal);
}

void drawValueTicks(Canvas& c, const ChartLayout& l, bool alongX) {
    auto& p = c.painter;
    Theme t = c.theme();
    QFontMetricsF fm(p.font());
    const auto& a = alongX ? l.x : l.y;
    auto ticks = axisTicks(a, alongX ? l.plot.width() : l.plot.height(), fm, alongX);
    QColor minor = t.grid;
    minor.setAlpha(110);
    for (size_t i = 0; i < ticks.values.size(); ++i) {
        p.setPen(QPen(ticks.major[i] ? t.grid : minor, 0));
        const auto& label = ticks.labels[i];
        QString text = QString::fromStdString(label);
        if (alongX) {
            double x = l.xAt(ticks.values[i]);
            p.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
            if (label.empty()) continue;
            double w = fm.horizontalAdvance(text) + 4;
            p.setPen(t.muted);
            p.drawText(QRectF(x - w / 2, l.plot.bottom() + 3, w, fm.height()), Qt::AlignHCenter | Qt::AlignTop, text);
        } else {
            double y = l.yAt(ticks.values[i]);
            p.drawLine(QPointF(l.plot.left(), y), QPointF(l.plot.right(), y));
            if (label.empty()) continue;
            p.setPen(t.muted);
            p.drawText(
                QRectF(l.plot.left() - l.yLabelWidth, y - fm.height() / 2, l.yLabelWidth - kTickGap, fm.height()),
                Qt::AlignRight | Qt::AlignVCenter, text);
        }
    }
}

}  // namespace

void drawAxes(Canvas& c, const ChartLayout& l) {
    auto& p = c.painter;
    Theme t = c.theme();
    QFontMetricsF fm(p.font());
    using Kind = ChartAxis::Kind;
    if (l.y.kind == Kind::Bands)
        drawBandLabels(c, l, false);
    else
        drawValueTicks(c, l, false);
    if (l.x.kind == Kind::Bands)
        drawBandLabels(c, l, true);
    else
        drawValueTicks(c, l, true);
    p.setPen(QPen(t.foreground, 0));
    p.drawLine(l.plot.bottomLeft(), l.plot.topLeft());
    p.drawLine(l.plot.bottomLeft(), l.plot.bottomRight());
    p.setPen(t.muted);
    if (!l.x.title.empty())
        p.drawText(QRectF(l.plot.left(), l.plot.bottom() + l.xLabelDepth, l.plot.width(), fm.height()), Qt::AlignCenter,
                   elideMiddle(fm, l.x.title, l.plot.width()));
    if (!l.y.title.empty()) {
        p.save();
        p.translate(l.plot.left() - l.yLabelWidth - 3 - fm.height() / 2, l.plot.center().y());
        p.rotate(-90);
        p.drawText(QRectF(-l.plot.height() / 2, -fm.height() / 2, l.plot.height(), fm.height()), Qt::AlignCenter,
                   elideMiddle(fm, l.y.title, l.plot.height()));
        p.restore();
    }
}

QRectF drawTitle(Canvas& c, const QRectF& area, const std::string& title, const std::string& subtitle) {
    auto& p = c.painter;
    Theme t = c.theme();
    QFont f = p.font();
    QFont bold = f;
    bold.setBold(true);
    bold.setPointSizeF(f.pointSizeF() * 1.15);
    p.setFont(bold);
    p.setPen(t.foreground);
    QFontMetricsF fm(bold);
    QRectF line(area.left() + 8, area.top() + 4, area.width() - 16, fm.height());
    p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, elided(p, title, line.width()));
    double used = fm.height() + 6;
    p.setFont(f);
    if (!subtitle.empty()) {
        QFontMetricsF fs(f);
        p.setPen(t.muted);
        QRectF sl(area.left() + 8, area.top() + used, area.width() - 16, fs.height());
        p.drawText(sl, Qt::AlignLeft | Qt::AlignVCenter, elided(p, subtitle, sl.width()));
        used += fs.height() + 2;
    }
    return QRectF(area.left(), area.top() + used, area.width(), std::max(0.0, area.height() - used));
}

void drawMessage(Canvas& c, const QRectF& area, const std::string& text) {
    c.painter.setPen(c.theme().muted);
    c.painter.drawText(area.adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, QString::fromStdString(text));
}

void drawEmptyState(Canvas& c, const QRectF& area, const std::string& reason) {
    auto& p = c.painter;
    QFont f = p.font();
    QFont bold = f;
    bold.setBold(true);
    bold.setPointSizeF(f.pointSizeF() * 1.2);
    QFontMetricsF fb(bold);
    QRectF inner = area.adjusted(24, 16, -24, -16);
    if (inner.width() <= 0 || inner.height() <= 0) return;
    // The reason wraps at a readable width; the heading sits just above it, the pair centred in the area.
    QFontMetricsF fm(f);
    const double width = std::min(inner.width(), std::max(240.0, fm.averageCharWidth() * 100));
    const QString text = QString::fromStdString(reason);
    QRectF textBox = fm.boundingRect(QRectF(0, 0, width, 1e6), Qt::AlignHCenter | Qt::TextWordWrap, text);
    const double total = fb.height() + 8 + textBox.height();
    const double top = inner.top() + std::max(0.0, (inner.height() - total) / 2);
    const double left = inner.left() + (inner.width() - width) / 2;
    p.setFont(bold);
    p.setPen(c.theme().foreground);
    p.drawText(QRectF(left, top, width, fb.height()), Qt::AlignHCenter | Qt::AlignVCenter, QStringLiteral("Nothing to draw"));
    p.setFont(f);
    p.setPen(c.theme().muted);
    p.drawText(QRectF(left, top + fb.height() + 8, width, std::max(textBox.height(), inner.bottom() - top)),
               Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, text);
}

std::string emptyReason(const std::vector<std::string>& messages, const std::string& fallback) {
    std::string out;
    size_t shown = 0;
    for (const auto& m : messages) {
        if (m.empty()) continue;
        if (shown == 3) {
            out += fmt::format("\n(+{} more notes)", messages.size() - 3);
            break;
        }
        out += (out.empty() ? "" : "\n") + m;
        ++shown;
    }
    return out.empty() ? fallback : out;
}

// ---- legend ----

LegendFit fitLegend(const std::vector<double>& widths, double width, size_t maxRows, double moreWidth) {
    LegendFit f;
    if (widths.empty() || maxRows == 0) return f;
    f.rows = 1;
    double x = 0;
    size_t rowStart = 0, i = 0;
    for (; i < widths.size(); ++i) {
        double w = std::min(widths[i], width);
        if (x > 0 && x + w > width) {
            if (f.rows == maxRows) break;
            ++f.rows;
            x = 0;
            rowStart = i;
        }
        x += w;
    }
    f.shown = i;
    if (f.shown < widths.size())  // make room for "+N more" on the last row
        while (f.shown > rowStart && x + moreWidth > width) x -= std::min(widths[--f.shown], width);
    return f;
}

LegendMode legendMode(const ParamValues& values) {
    return kLegend(values) == "full" ? LegendMode::Full : LegendMode::Compact;
}

double legendRowHeight(const QFontMetricsF& fm) { return fm.height() + 4; }

namespace {

constexpr double kLegendSample = 14, kLegendPad = 16;

struct LegendGeometry {
    std::vector<double> widths;
    double moreWidth = 0;
    double width = 0;  // of a row
};

LegendGeometry legendGeometry(const QFontMetricsF& fm, double areaWidth, const std::vector<LegendEntry>& entries) {
    LegendGeometry g;
    g.width = areaWidth - 16;
    const double entryCap = std::max(160.0, g.width / 2);
    for (const auto& e : entries)
        g.widths.push_back(
            std::min(entryCap, kLegendSample + fm.horizontalAdvance(QString::fromStdString(e.label)) + kLegendPad));
    g.moreWidth = fm.horizontalAdvance(QString::fromStdString(fmt::format("+{} more", entries.size()))) + kLegendPad;
    return g;
}

}  // namespace

LegendFit legendFit(const QFontMetricsF& fm, double width, const std::vector<LegendEntry>& entries, LegendMode mode,
                    size_t maxRows) {
    const LegendGeometry g = legendGeometry(fm, width, entries);
    return fitLegend(g.widths, g.width, mode == LegendMode::Full ? entries.size() : maxRows, g.moreWidth);
}

QRectF drawLegend(Canvas& c, const QRectF& area, const std::vector<LegendEntry>& entries, LegendMode mode) {
    if (entries.empty()) return area;
    auto& p = c.painter;
    Theme t = c.theme();
    QFontMetricsF fm(p.font());
    const double h = legendRowHeight(fm), sample = kLegendSample, pad = kLegendPad;
    const LegendGeometry g = legendGeometry(fm, area.width(), entries);
    const double maxW = g.width, moreW = g.moreWidth;
    const auto& widths = g.widths;
    std::vector<std::string> labels;
    for (const auto& e : entries) labels.push_back(e.label);
    auto shared = sharedPrefixLengths(labels);
    auto moreText = [&](size_t hidden) { return QString::fromStdString(fmt::format("+{} more", hidden)); };
    auto maxRows = std::max<size_t>(1, size_t((mode == LegendMode::Full ? area.height() : area.height() / 3) / h));
    LegendFit fit = fitLegend(widths, maxW, maxRows, moreW);
    double top = area.bottom() - h * double(fit.rows) - 4;
    double x = 0, y = top;
    for (size_t i = 0; i < fit.shown; ++i) {
        double w = std::min(widths[i], maxW);
        if (x > 0 && x + w > maxW) x = 0, y += h;
        double xx = area.left() + 8 + x;
        const auto& e = entries[i];
        if (e.line) {
            p.setPen(QPen(e.color, 2, e.style));
            p.drawLine(QPointF(xx, y + h / 2), QPointF(xx + 11, y + h / 2));
        } else {
            p.fillRect(QRectF(xx, y + (h - 10) / 2, 10, 10), e.color);
        }
        p.setPen(t.foreground);
        p.drawText(QRectF(xx + sample, y, w - pad, h), Qt::AlignLeft | Qt::AlignVCenter,
                   elideMiddle(fm, e.label, w - pad, shared[i]));
        x += w;
    }
    if (fit.shown < entries.size()) {
        if (x > 0 && x + moreW > maxW) x = 0, y += h;
        p.setPen(t.muted);
        p.drawText(QRectF(area.left() + 8 + x, y, moreW, h), Qt::AlignLeft | Qt::AlignVCenter,
                   moreText(entries.size() - fit.shown));
    }
    return QRectF(area.left(), area.top(), area.width(), std::max(0.0, top - area.top()));
}

LayoutCanvas::LayoutCanvas(const QRectF& rect)
    : image(1, 1, QImage::Format_ARGB32), painter(&image), canvas{painter, rect, false} {}

// ---- bar charts ----

namespace {

TickUnit barUnit(const BarChart& chart) {
    return chart.percentAxis ? TickUnit::Percent : chart.durationAxis ? TickUnit::Duration : TickUnit::Number;
}

// The numbers written at the end of the bars: one per bar (stacked) or per segment (grouped); empty when the
// chart has none.
std::vector<std::vector<std::string>> valueTexts(const BarChart& chart) {
    std::vector<std::vector<std::string>> out;
    if (!chart.valueLabels || chart.percentAxis) return out;
    for (const auto& row : chart.values) {
        out.emplace_back();
        double total = 0;
        for (double v : row) {
            if (!chart.stacked) out.back().push_back(v > 0 ? formatValue(v, barUnit(chart)) : std::string());
            total += std::max(0.0, v);
        }
        if (chart.stacked) out.back().push_back(total > 0 ? formatValue(total, barUnit(chart)) : std::string());
    }
    return out;
}

struct BarGeometry {
    ChartLayout layout;
    double maxValue = 1;
    std::vector<std::vector<std::string>> texts;  // value labels that fit, else empty
};

double barThickness(const BarChart& chart, const ChartLayout& l) {
    return std::min(l.bandSize(!chart.horizontal) * 0.7, 90.0);
}

BarGeometry barLayout(Canvas& c, const BarChart& chart) {
    QRectF area = drawTitle(c, c.rect, chart.title, chart.subtitle);
    std::vector<LegendEntry> legend;
    for (size_t s = 0; s < chart.series.size(); ++s) legend.push_back({chart.series[s], chart.colors[s]});
    area = drawLegend(c, area, legend, chart.legend);
    QFontMetricsF fm(c.painter.font());
    double mx = 0;
    for (const auto& row : chart.values) {
        double s = 0;
        for (double v : row) s = chart.stacked ? s + std::max(0.0, v) : std::max(s, v);
        mx = std::max(mx, s);
    }
    auto layout = [&](double maxValue) {
        auto value = ChartAxis::linear(0, maxValue, barUnit(chart), chart.valueLabel);
        auto bands = ChartAxis::bandsOf(chart.bars, {}, chart.highlightBar);
        return chart.horizontal ? layoutChart(fm, area, value, bands) : layoutChart(fm, area, bands, value);
    };
    BarGeometry g;
    g.maxValue = chart.percentAxis ? 100.0 : (mx > 0 ? mx * 1.05 : 1.0);
    g.layout = layout(g.maxValue);
    g.texts = valueTexts(chart);
    if (g.texts.empty()) return g;
    // Value labels go after the bars: only when they fit across the bars, with room made after the longest.
    double widest = 0;
    for (const auto& row : g.texts) widest = std::max(widest, widestOf(fm, row));
    double across = chart.stacked ? g.layout.bandSize(!chart.horizontal) - 4
                                  : barThickness(chart, g.layout) / double(std::max<size_t>(1, chart.series.size()));
    double need = chart.horizontal ? widest + 8 : fm.height() + 4;
    double length = chart.horizontal ? g.layout.plot.width() : g.layout.plot.height();
    bool fits = chart.horizontal ? fm.height() <= across + 2 : widest <= across;
    if (!fits || length < 3 * need) {
        g.texts.clear();
        return g;
    }
    g.maxValue = std::max(g.maxValue, mx * length / (length - need));
    g.layout = layout(g.maxValue);
    return g;
}

QRectF segmentRect(const BarChart& chart, const BarGeometry& g, size_t b, size_t s, double acc) {
    const auto& l = g.layout;
    double band = l.bandSize(!chart.horizontal);
    double thick = barThickness(chart, l);
    size_t ns = chart.series.size();
    double v = std::max(0.0, chart.values[b][s]);
    double off = band * double(b) + (band - thick) / 2;
    double a0 = acc / g.maxValue, a1 = (acc + v) / g.maxValue;
    if (!chart.stacked) {
        thick /= double(std::max<size_t>(1, ns));
        off += thick * double(s);
        a0 = 0;
        a1 = v / g.maxValue;
    }
    const QRectF& p = l.plot;
    if (chart.horizontal) return QRectF(p.left() + a0 * p.width(), p.top() + off, (a1 - a0) * p.width(), thick);
    return QRectF(p.left() + off, p.bottom() - a1 * p.height(), thick, (a1 - a0) * p.height());
}

void drawValueText(Canvas& c, const BarChart& chart, const QRectF& bar, const std::string& text) {
    if (text.empty() || bar.isNull()) return;
    auto& p = c.painter;
    QFontMetricsF fm(p.font());
    p.setPen(c.theme().muted);
    QString s = QString::fromStdString(text);
    double w = fm.horizontalAdvance(s) + 4;
    if (chart.horizontal)
        p.drawText(QRectF(bar.right() + 4, bar.center().y() - fm.height() / 2, w, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, s);
    else
        p.drawText(QRectF(bar.center().x() - w / 2, bar.top() - fm.height() - 2, w, fm.height()),
                   Qt::AlignHCenter | Qt::AlignBottom, s);
}

}  // namespace

void drawBarChart(Canvas& c, const BarChart& chart) {
    if (chart.bars.empty()) {
        QRectF area = drawTitle(c, c.rect, chart.title, chart.subtitle);
        drawMessage(c, area, chart.messages.empty() ? "nothing to show" : chart.messages.front());
        return;
    }
    BarGeometry g = barLayout(c, chart);
    drawAxes(c, g.layout);
    Theme t = c.theme();
    for (size_t b = 0; b < chart.bars.size(); ++b) {
        double acc = 0;
        QRectF all;
        for (size_t s = 0; s < chart.series.size(); ++s) {
            QRectF r = segmentRect(chart, g, b, s, acc);
            if (chart.stacked) acc += std::max(0.0, chart.values[b][s]);
            if (r.width() <= 0 || r.height() <= 0) continue;
            c.painter.fillRect(r, chart.colors[s]);
            all = all.isNull() ? r : all.united(r);
            if (!chart.stacked && !g.texts.empty()) drawValueText(c, chart, r, g.texts[b][s]);
        }
        if (chart.stacked && !g.texts.empty()) drawValueText(c, chart, all, g.texts[b][0]);
        if (int(b) == chart.highlightBar && !all.isNull()) {
            c.painter.setPen(QPen(t.highlight, 2.5));
            c.painter.setBrush(Qt::NoBrush);
            c.painter.drawRect(all.adjusted(-2, -2, 2, 2));
        }
    }
}

ChartData toChartData(const BarChart& chart) {
    ChartData d;
    d.kind = ChartData::Kind::Bars;
    d.title = chart.title;
    d.subtitle = chart.subtitle;
    d.categories = chart.bars;
    d.stacked = chart.stacked;
    d.horizontal = chart.horizontal;
    d.valueUnit = chart.percentAxis ? ChartData::Unit::Percent
                                    : (chart.durationAxis ? ChartData::Unit::Duration : ChartData::Unit::Number);
    d.valueLabel = chart.valueLabel;
    for (size_t s = 0; s < chart.series.size(); ++s) {
        ChartData::Series series;
        series.name = chart.series[s];
        series.color = s < chart.colors.size() ? chart.colors[s] : seriesColor(int(s));
        for (const auto& bar : chart.values) series.values.push_back(s < bar.size() ? bar[s] : 0.0);
        d.series.push_back(std::move(series));
    }
    return d;
}

std::optional<std::string> barChartEmptyMessage(const BarChart& chart, const std::string& fallback) {
    for (const auto& bar : chart.values)
        for (double v : bar)
            if (std::isfinite(v) && v > 0) return std::nullopt;
    if (chart.bars.empty()) return emptyReason(chart.messages, fallback);
    return emptyReason(chart.messages, "every value is zero");
}

std::optional<HitInfo> hitBarChart(const BarChart& chart, const QRectF& rect, QPointF pt) {
    if (chart.bars.empty()) return std::nullopt;
    LayoutCanvas lc(rect);
    BarGeometry g = barLayout(lc.canvas, chart);
    auto unit = barUnit(chart);
    for (size_t b = 0; b < chart.bars.size(); ++b) {
        double acc = 0;
        double total = 0;
        for (double v : chart.values[b]) total += std::max(0.0, v);
        for (size_t s = 0; s < chart.series.size(); ++s) {
            QRectF r = segmentRect(chart, g, b, s, acc);
            if (chart.stacked) acc += std::max(0.0, chart.values[b][s]);
            if (!r.adjusted(-1, -1, 1, 1).contains(pt)) continue;
            HitInfo h;
            h.title = chart.series[s];
            if (chart.hitFields) {
                h.fields = chart.hitFields(b, s);
            } else {
                double v = chart.values[b][s];
                h.fields.push_back({"bar", chart.bars[b]});
                h.fields.push_back({"value", formatValue(v, unit)});
                if (chart.stacked && !chart.percentAxis && total > 0)
                    h.fields.push_back({"share", formatPercent(v / total * 100)});
            }
            h.itemRect = r;
            return h;
        }
    }
    // On a bar's label (which may be elided): the whole bar.
    auto b = g.layout.bandAt(!chart.horizontal, pt);
    if (!b || g.layout.plot.contains(pt)) return std::nullopt;
    HitInfo h;
    h.title = chart.bars[*b];
    for (size_t s = 0; s < chart.series.size(); ++s)
        h.fields.push_back({chart.series[s], formatValue(chart.values[*b][s], unit)});
    return h;
}

// ---- parameters shared by plots ----

ParamSpec ranksSpec(const RunSet& runs, const std::string& tooltip, bool affectsPrepare, bool summaryOnly) {
    auto s = kRanks.spec(rankChoices(runs, summaryOnly));
    s.tooltip = tooltip;
    s.affectsPrepare = affectsPrepare;
    return s;
}

std::vector<ParamSpec> barStyleSpecs(const std::string& percentTooltip, bool percentDefault, bool horizontalDefault) {
    auto percent = kPercent.withDefault(percentDefault).spec();
    percent.tooltip = percentTooltip;
    return {percent, kHorizontal.withDefault(horizontalDefault).spec(), kLegend.spec()};
}

std::vector<std::string> stepChoices(const RunSet& runs) {
    std::set<int64_t> nums;
    for (const auto& run : runs)
        if (run.dataset) {
            for (const auto& r : run.dataset->ranks)
                if (r)
                    for (auto n : r->steps.number) nums.insert(n);
            if (run.dataset->summaryFirst)  // the steps of the ranks that are summary only
                for (const auto& s : run.dataset->summaryFirst->ranks)
                    for (const auto& st : s.steps) nums.insert(st.number);
        }
    std::vector<std::string> out;
    for (auto n : nums) out.push_back(std::to_string(n));
    return out;
}

// ---- data helpers shared by plots ----

core::KernelCategory activityCategory(const core::RankData& r, size_t i) {
    const auto& g = r.gpu;
    if (g.category.size() == g.size()) return g.category[i];
    if (g.kind.size() == g.size()) {
        if (g.kind[i] == core::EventKind::Memcpy) return core::KernelCategory::Memcpy;
        if (g.kind[i] == core::EventKind::Memset) return core::KernelCategory::Memset;
    }
    // No classification yet (merge not run): a coarse guess from the name, enough to colour a picture.
    auto n = r.strings.view(g.name[i]);
    auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
    if (n.starts_with("nccl") || n.starts_with("rccl") || has("ncclKernel") || has("ncclDevKernel"))
        return core::KernelCategory::Communication;
    if (has("gemm") || has("Gemm") || has("GEMM") || has("cutlass") || has("Cijk")) return core::KernelCategory::Gemm;
    if (has("flash") || has("attention") || has("fmha")) return core::KernelCategory::Attention;
    if (has("elementwise") || has("Elementwise")) return core::KernelCategory::Elementwise;
    if (has("reduce") || has("Reduce")) return core::KernelCategory::Reduction;
    return core::KernelCategory::Other;
}

int64_t activityStep(const core::RankData& r, size_t i) {
    const auto& g = r.gpu;
    if (g.step.size() == g.size()) {
        int32_t s = g.step[i];
        return s >= 0 && size_t(s) < r.steps.size() ? r.steps.number[size_t(s)] : -1;
    }
    // Fall back on the step ranges (sorted by start): the last step starting at or before the kernel.
    const auto& st = r.steps;
    if (st.size() == 0) return -1;
    auto ts = g.ts[i];
    auto it = std::upper_bound(st.start.begin(), st.start.end(), ts);
    if (it == st.start.begin()) return -1;
    size_t k = size_t(it - st.start.begin()) - 1;
    return ts < st.end[k] ? st.number[k] : -1;
}

std::string rankLabel(const RunSet& runs, size_t runIndex, int rank) {
    return rankLabel(runs[runIndex].label, runs.size() > 1, rank);
}

std::string rankLabel(const std::string& runLabel, bool severalRuns, int rank) {
    if (severalRuns) return fmt::format("{} / rank {}", runLabel, rank);
    return fmt::format("rank {}", rank);
}

bool rankSelected(const std::vector<int>& selected, int rank) {
    return selected.empty() || std::binary_search(selected.begin(), selected.end(), rank);
}

std::vector<std::string> rankChoices(const RunSet& runs, bool summaryOnly) {
    std::set<int> ranks;
    for (const auto& run : runs)
        if (run.dataset) {
            for (const auto& r : run.dataset->ranks)
                if (r) ranks.insert(r->rank);
            if (summaryOnly && run.dataset->summaryFirst)  // the ranks that are summary only
                for (const auto& s : run.dataset->summaryFirst->ranks) ranks.insert(s.rank.rank);
        }
    std::vector<std::string> out;
    for (int r : ranks) out.push_back(std::to_string(r));
    return out;
}

bool forEachSelectedRank(const RunSet& runs, const std::vector<int>& selected, const core::CancelToken& cancel,
                         const core::ProgressFn& progress, const std::string& stage, double from, double to,
                         const std::function<void(size_t, const core::RankData&)>& fn) {
    size_t total = 0, done = 0;
    for (const auto& run : runs)
        if (run.dataset)
            for (const auto& r : run.dataset->ranks) total += r && rankSelected(selected, r->rank) ? 1 : 0;
    for (size_t ri = 0; ri < runs.size(); ++ri) {
        if (!runs[ri].dataset) continue;
        for (const auto& rp : runs[ri].dataset->ranks) {
            if (cancel.cancelled()) return false;
            if (!rp || !rankSelected(selected, rp->rank)) continue;
            fn(ri, *rp);
            ++done;
            if (progress) progress({stage, rp->path, from + (to - from) * double(done) / double(total), done, total});
        }
    }
    return !cancel.cancelled();
}

}  // namespace strobe::plots
