// The chart toolkit's logic (plots/chart.h): tick values and labels, log ticks, label eliding and gutters, legend
// fitting, axis layout and bar-chart hover. Expected values are worked out by hand from the definitions; text
// widths come from a fake measure (1 px per character) or, for layouts, from the same font metrics the chart uses.
#include <cmath>

#include <gtest/gtest.h>

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/plots/plot_test_data.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

double charCount(const QString& s) { return double(s.size()); }

QString elide1px(const std::string& text, double width, qsizetype shared = 0) {
    return elideMiddle(QString::fromStdString(text), width, charCount, shared);
}

}  // namespace

// The one duration formatter (core/model/duration_text.h) that plots, the GUI and strobe-cli summary use. Expected
// values by hand: whole ns below 1 µs; four significant digits, trailing zeros dropped; a value that rounds to 1000
// of a unit is 1 of the next; whole seconds from 1000 s.
TEST(DurationText, FourSignificantDigitsInTheLargestUnit) {
    EXPECT_EQ(formatDuration(587.0), "587 ns");
    EXPECT_EQ(formatDuration(1200.0), "1.2 µs");
    EXPECT_EQ(formatDuration(19000.0), "19 µs");
    EXPECT_EQ(formatDuration(105000.0), "105 µs");
    EXPECT_EQ(formatDuration(999949.0), "999.9 µs");
    EXPECT_EQ(formatDuration(999950.0), "1 ms");       // the old three-digit form wrote "1e+03 µs"
    EXPECT_EQ(formatDuration(6832000.0), "6.832 ms");  // strobe-cli summary's "6.832 ms" of README
    EXPECT_EQ(formatDuration(176273000.0), "176.3 ms");
    EXPECT_EQ(formatDuration(1.5e9), "1.5 s");
    EXPECT_EQ(formatDuration(1234e9), "1234 s");  // the old form wrote "1.23e+03 s"
    EXPECT_EQ(formatDuration(-2500.0), "-2.5 µs");
    EXPECT_EQ(formatDuration(std::nan("")), "n/a");
}

TEST(ChartTicks, NiceTicksAreRoundSteps) {
    EXPECT_EQ(niceTicks(0, 100, 10), (std::vector<double>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
    // raw step 13/6 ≈ 2.17 → 2; from the first multiple of 2 at or above 1.
    EXPECT_EQ(niceTicks(1, 14, 6), (std::vector<double>{2, 4, 6, 8, 10, 12, 14}));
}

TEST(ChartTicks, LabelsShareUnitAndDecimals) {
    using V = std::vector<std::string>;
    // Durations in the unit of the largest tick, with the decimals the step needs.
    EXPECT_EQ(tickLabels({0, 5e5, 1e6, 1.5e6}, TickUnit::Duration), (V{"0.0 ms", "0.5 ms", "1.0 ms", "1.5 ms"}));
    EXPECT_EQ(tickLabels({0, 2e6, 4e6}, TickUnit::Duration), (V{"0 ms", "2 ms", "4 ms"}));
    EXPECT_EQ(tickLabels({0, 500, 1000}, TickUnit::Duration), (V{"0.0 µs", "0.5 µs", "1.0 µs"}));
    EXPECT_EQ(tickLabels({0, 200, 400}, TickUnit::Duration), (V{"0 ns", "200 ns", "400 ns"}));
    // Whole percent steps need no decimals; half-percent steps one.
    EXPECT_EQ(tickLabels({0, 20, 40, 60, 80, 100}, TickUnit::Percent), (V{"0%", "20%", "40%", "60%", "80%", "100%"}));
    EXPECT_EQ(tickLabels({0, 0.5, 1}, TickUnit::Percent), (V{"0.0%", "0.5%", "1.0%"}));
    // Numbers from 10 000 on in thousands.
    EXPECT_EQ(tickLabels({0, 20000, 40000}, TickUnit::Number), (V{"0k", "20k", "40k"}));
    EXPECT_EQ(tickLabels({0, 0.05, 0.1}, TickUnit::Number), (V{"0.00", "0.05", "0.10"}));
    // A single tick has no step: the unit's usual format.
    EXPECT_EQ(tickLabels({1500}, TickUnit::Duration), (V{"1.5 µs"}));
}

TEST(ChartTicks, LogTicksAddMinorsWhenDecadesAreWide) {
    auto values = [](const std::vector<LogTick>& ts) {
        std::vector<double> v;
        for (const auto& t : ts) v.push_back(t.value);
        return v;
    };
    // 30 px per decade: decades only.
    EXPECT_EQ(values(logTicks(3, 5, 30)), (std::vector<double>{1e3, 1e4, 1e5}));
    // 100 px: 2× and 5× between decades, unlabelled.
    auto mid = logTicks(0, 2, 100);
    EXPECT_EQ(values(mid), (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
    for (const auto& t : mid) {
        bool decade = t.value == 1 || t.value == 10 || t.value == 100;
        EXPECT_EQ(t.major, decade) << t.value;
        EXPECT_EQ(t.labelled, decade) << t.value;
    }
    // 250 px: the minors are labelled too.
    for (const auto& t : logTicks(0, 1, 250)) EXPECT_TRUE(t.labelled) << t.value;
}

TEST(ChartText, ElideMiddleKeepsStartAndEnd) {
    EXPECT_EQ(elide1px("abcdefghij", 10), "abcdefghij");  // fits: untouched
    // 6 px keep 5 characters and the ellipsis: 60% (3) from the start, 2 from the end.
    EXPECT_EQ(elide1px("abcdefghij", 6), QString("abc…ij"));
    EXPECT_EQ(elide1px("abcdefghij", 1), QString("…"));
    EXPECT_EQ(elide1px("abcdefghij", 0.5), QString());
}

TEST(ChartText, ElideCutsInsideASharedPrefix) {
    // Two kernels share "ns::kernel<4, ns::" (18 characters); a plain middle cut of the first to 16 px would keep
    // "ns::kerne…op(x)>" and hide "sqrt". The cut goes into the shared part: a start of 16/4 px ("ns:" and the
    // ellipsis), then from the token where it differs ("sqrt_op…", right after "::").
    std::string a = "ns::kernel<4, ns::sqrt_op(x)>";
    std::string b = "ns::kernel<4, ns::add_op(x)>";
    auto shared = sharedPrefixLengths(std::vector<std::string>{a, b});
    ASSERT_EQ(shared, (std::vector<qsizetype>{18, 18}));
    EXPECT_EQ(elide1px(a, 16, shared[0]), QString("ns:…sqrt_op(x)>"));
    EXPECT_EQ(elide1px(a, 16), QString("ns::kerne…op(x)>"));  // without the shared length: a plain middle cut
    // Narrower: the differing part is itself cut at the right: "n…" (10/4 px), then 8 px of "sqrt_op(x)>".
    EXPECT_EQ(elide1px(a, 10, shared[0]), QString("n…sqrt_op…"));
    // No token boundary in the shared part: from the first differing character.
    EXPECT_EQ(elide1px("abcdefXYZ123", 8, 6), QString("a…XYZ123"));
    // A shared part that the middle cut keeps anyway, with the first differing character, changes nothing...
    EXPECT_EQ(elide1px("abcdefghij", 6, 2), QString("abc…ij"));
    // ... but a start that ends just before the difference ("abc" of "abc|d...") does not tell it apart: the
    // differing part from 'd', cut at the right (6/4 px is too little for any start).
    EXPECT_EQ(elide1px("abcdefghij", 6, 3), QString("…defg…"));
}

TEST(ChartText, SharedPrefixLengths) {
    EXPECT_EQ(sharedPrefixLengths(std::vector<std::string>{"abcX", "zz", "abcY", "zz"}),
              (std::vector<qsizetype>{3, 0, 3, 0}));
    // Copies of one text (a kernel on several ranks) count what they share with the other texts.
    EXPECT_EQ(sharedPrefixLengths(std::vector<std::string>{"abcX", "abcX", "abYY"}),
              (std::vector<qsizetype>{2, 2, 2}));
    EXPECT_EQ(sharedPrefixLengths(std::vector<std::string>{"ab", "abc"}), (std::vector<qsizetype>{0, 2}));
    EXPECT_TRUE(sharedPrefixLengths(std::vector<std::string>{}).empty());
}

TEST(ChartText, GutterAndStride) {
    EXPECT_DOUBLE_EQ(labelGutterWidth(100, 1000), 112);  // widest + 12
    EXPECT_DOUBLE_EQ(labelGutterWidth(500, 1000), 400);  // at most 40% of the width
    EXPECT_DOUBLE_EQ(labelGutterWidth(5, 1000), 24);     // at least 24
    EXPECT_DOUBLE_EQ(labelGutterWidth(100, 50), 24);     // the minimum wins over the share
    EXPECT_EQ(labelStride(20, 16), 1u);
    EXPECT_EQ(labelStride(10, 16), 2u);
    EXPECT_EQ(labelStride(5, 16), 4u);  // 16 / 5 = 3.2 → every 4th
    EXPECT_EQ(labelStride(0, 16), 1u);
}

namespace {

double sevenPxPerChar(const QString& s) { return 7.0 * double(s.size()); }

// The invariants of a time axis: one unit suffix, labels strictly increasing in value, inside [0, width], at
// least `gap` px apart. Returns the labels.
std::vector<std::string> checkTimeAxis(double start, double end, double width, double gap = 14) {
    auto ticks = timeAxisTicks(start, end, width, sevenPxPerChar, gap);
    std::vector<std::string> labels;
    std::string unit;
    double prevValue = -1e300, prevRight = -1e300;
    for (const auto& t : ticks) {
        EXPECT_GE(t.value, start - 1e-6);
        EXPECT_LE(t.value, end + 1e-6);
        if (t.label.empty()) continue;
        const std::string u = t.label.substr(t.label.rfind(' '));
        if (unit.empty()) unit = u;
        EXPECT_EQ(u, unit) << t.label << " [" << start << ", " << end << "] at " << width << " px";
        const double number = std::stod(t.label.substr(0, t.label.rfind(' ')));
        EXPECT_GT(number, prevValue) << t.label;
        prevValue = number;
        EXPECT_GE(t.left, 0.0) << t.label;
        EXPECT_LE(t.left + t.labelWidth, width + 1e-9) << t.label << " clipped at " << width << " px";
        EXPECT_GE(t.left, prevRight + gap - 1e-9) << t.label << " overlaps its neighbour";
        prevRight = t.left + t.labelWidth;
        labels.push_back(t.label);
    }
    return labels;
}

}  // namespace

// The case: zoomed to 14.4–15.8 ms, the axis said "14400 µs … 15800" and clipped its last label.
TEST(ChartTimeAxis, OneUnitAndTheLastLabelInside) {
    using V = std::vector<std::string>;
    // 1.4 ms span → ms. 800 px: densest step ≥ 1.4e6 × 40 / 800 = 70 000 ns → 0.1 ms, whose ticks 57 px apart
    // leave no 14 px gap between labels of 7 characters (49 px); 0.2 ms: ticks 14.4 … 15.8 (8), 114 px apart,
    // fit. One decimal tells 0.2 ms steps apart.
    auto ticks = timeAxisTicks(14.4e6, 15.8e6, 800, sevenPxPerChar);
    V labels;
    for (const auto& t : ticks) labels.push_back(t.label);
    EXPECT_EQ(labels, (V{"14.4 ms", "14.6 ms", "14.8 ms", "15.0 ms", "15.2 ms", "15.4 ms", "15.6 ms", "15.8 ms"}));
    ASSERT_EQ(ticks.size(), 8u);
    EXPECT_DOUBLE_EQ(ticks.front().left, 0.0);        // centred on x = 0 it would start at -24.5 px
    EXPECT_DOUBLE_EQ(ticks.back().x, 800.0);
    EXPECT_DOUBLE_EQ(ticks.back().left, 800.0 - 49);  // shifted inside, not clipped
    // A split pane, 300 px: densest step ≥ 1.4e6 × 40 / 300 ≈ 186 667 ns → 0.2 ms, 43 px apart: too close;
    // 0.5 ms (107 px): 14.5, 15.0, 15.5.
    EXPECT_EQ(checkTimeAxis(14.4e6, 15.8e6, 300), (V{"14.5 ms", "15.0 ms", "15.5 ms"}));
    // Below a microsecond of span: ns; 200 ns of span at 600 px → step ≥ 13.3 → 20 ns, 60 px apart, too close
    // for 49 px labels and a 14 px gap; 50 ns.
    EXPECT_EQ(checkTimeAxis(1000, 1200, 600), (V{"1000 ns", "1050 ns", "1100 ns", "1150 ns", "1200 ns"}));
    // Seconds with one decimal for 0.2 s steps: 2.5 s span at 1000 px → step ≥ 0.1 s, 40 px apart, too close
    // for "0.0 s" (35 px) and the gap; 0.2 s.
    EXPECT_EQ(checkTimeAxis(0, 2.5e9, 1000).at(1), "0.2 s");
}

TEST(ChartTimeAxis, SplitPanesGetThreeLabelsAndNothingOverlaps) {
    // Spans from 300 ns to 30 s, at offsets from 0 to 2 s, in panes from 120 to 1600 px: the invariants hold
    // everywhere, and 300 px or more show at least three labels.
    for (double span : {300.0, 4.5e3, 7.7e4, 1.4e6, 2.2e7, 3.3e8, 3e10})
        for (double offset : {0.0, 1.234e6, 2e9})
            for (double width : {120.0, 200.0, 300.0, 450.0, 800.0, 1600.0}) {
                if (offset > 0 && span < 1e3 && offset / span > 1e6) continue;  // labels of 10+ digits
                auto labels = checkTimeAxis(offset, offset + span, width);
                if (width >= 300 && offset == 0) {
                    EXPECT_GE(labels.size(), 3u) << span << " ns at " << width << " px";
                }
                EXPECT_GE(labels.size(), 1u) << span << " ns at " << width << " px";
            }
    EXPECT_TRUE(timeAxisTicks(5, 5, 300, sevenPxPerChar).empty());  // no span, no ticks
    // A pane narrower than the densest spacing: 14.4–15.8 ms in 55 px would ask for a 2 ms step, with no tick
    // inside; the step stays within the span (1 ms: the tick at 15 ms) and its 5-character label (35 px) fits.
    EXPECT_EQ(checkTimeAxis(14.4e6, 15.8e6, 55), (std::vector<std::string>{"15 ms"}));
}

TEST(ChartLegend, FitsRowsAndMakesRoomForMore) {
    // 100 px rows of 40 px entries: two per row. Two rows hold four, but the "+N more" (30 px) needs the place of
    // the fourth: three shown.
    auto f = fitLegend({40, 40, 40, 40, 40}, 100, 2, 30);
    EXPECT_EQ(f.rows, 2u);
    EXPECT_EQ(f.shown, 3u);
    f = fitLegend({40, 40}, 100, 1, 30);
    EXPECT_EQ(f.rows, 1u);
    EXPECT_EQ(f.shown, 2u);
    // A 60 px entry, then another that needs a second row, which is not allowed: one shown, "+2 more" after it.
    f = fitLegend({60, 60, 60}, 100, 1, 30);
    EXPECT_EQ(f.rows, 1u);
    EXPECT_EQ(f.shown, 1u);
    f = fitLegend({150}, 100, 1, 30);  // wider than a row: capped, still shown
    EXPECT_EQ(f.shown, 1u);
    EXPECT_EQ(fitLegend({}, 100, 3, 30).rows, 0u);
}

TEST(ChartAxes, LogAxisCoversWholeDecades) {
    auto a = ChartAxis::log(3, 4500, TickUnit::Duration);
    EXPECT_EQ(a.lo, 0);  // 10^0 ≤ 3
    EXPECT_EQ(a.hi, 4);  // 4500 ≤ 10^4
    EXPECT_DOUBLE_EQ(a.fraction(100), 0.5);
    EXPECT_DOUBLE_EQ(a.fraction(-5), 0);  // non-positive values sit at the start
    auto flat = ChartAxis::log(0, 0, TickUnit::Duration);
    EXPECT_EQ(flat.lo, 0);
    EXPECT_EQ(flat.hi, 1);
    EXPECT_DOUBLE_EQ(ChartAxis::linear(10, 20, TickUnit::Number).fraction(15), 0.5);
}

TEST(ChartAxes, BandLabelsGetTheRoomTheyNeed) {
    QImage img(10, 10, QImage::Format_ARGB32);
    QPainter painter(&img);
    QFontMetricsF fm(painter.font());
    QRectF area(0, 0, 1000, 600);
    auto value = ChartAxis::linear(0, 100, TickUnit::Percent);
    // Horizontal bars: the gutter is as wide as the widest label plus 12 px of padding...
    auto l = layoutChart(fm, area, value, ChartAxis::bandsOf({"rank 0", "rank 10"}));
    EXPECT_DOUBLE_EQ(l.yLabelWidth, fm.horizontalAdvance(QStringLiteral("rank 10")) + 12);
    // ... and never more than 40% of the width, however long the label.
    l = layoutChart(fm, area, value, ChartAxis::bandsOf({std::string(400, 'x')}));
    EXPECT_DOUBLE_EQ(l.yLabelWidth, 400);
    // A point on a label belongs to its band; the second of two bands starts half-way down the plot.
    l = layoutChart(fm, area, value, ChartAxis::bandsOf({"a", "b"}));
    QPointF onSecondLabel(l.plot.left() - l.yLabelWidth / 2, l.plot.top() + l.plot.height() * 0.75);
    EXPECT_EQ(l.bandAt(false, onSecondLabel), std::optional<size_t>(1));
    EXPECT_EQ(l.bandAt(true, onSecondLabel), std::nullopt);  // x is not a band axis
    // Vertical bars: three short labels fit their bands; fifty do not, and turn vertical.
    l = layoutChart(fm, area, ChartAxis::bandsOf({"a", "b", "c"}), value);
    EXPECT_FALSE(l.xLabelsRotated);
    std::vector<std::string> many(50, "rank 00");
    l = layoutChart(fm, area, ChartAxis::bandsOf(many), value);
    EXPECT_TRUE(l.xLabelsRotated);
    EXPECT_GE(l.xLabelDepth, fm.horizontalAdvance(QStringLiteral("rank 00")));
    // The value axis leaves room for its widest tick label ("100%") on the left.
    EXPECT_GE(l.plot.left(), fm.horizontalAdvance(QStringLiteral("100%")));
}

TEST(ChartBars, LabelHoverGivesTheWholeBarWithItsFullName) {
    BarChart chart;
    chart.title = "t";
    std::string longName(300, 'k');
    chart.bars = {"short", longName};
    chart.series = {"a", "b"};
    chart.colors = {Qt::red, Qt::blue};
    chart.values = {{1000, 2000}, {3000, 4000}};
    chart.horizontal = true;
    QRectF rect(0, 0, 800, 400);
    // Find the label gutter the way the chart lays it out: a point just left of the plot on the second band.
    std::optional<HitInfo> hit;
    for (double y = 0; y < rect.height() && !hit; y += 4) {
        auto h = hitBarChart(chart, rect, QPointF(20, y));
        if (h && h->title == longName) hit = h;
    }
    ASSERT_TRUE(hit.has_value());
    ASSERT_EQ(hit->fields.size(), 2u);
    EXPECT_EQ(hit->fields[0], (std::pair<std::string, std::string>{"a", "3 µs"}));
    EXPECT_EQ(hit->fields[1], (std::pair<std::string, std::string>{"b", "4 µs"}));
}

TEST(ChartBars, KernelBreakdownHoverNamesTimeShareAndCount) {
    // Rank 1 of the small run: communication 700 ns of 960 ns, one kernel.
    const Plot* plot = PlotRegistry::instance().find("kernel-breakdown");
    ASSERT_NE(plot, nullptr);
    RunSet runs{RunEntry{"run", testdata::smallRun(), {}}};
    auto values = *resolveValues(plot->parameters(runs), {});
    auto prepared = *prepareNow(*plot, runs);
    QRectF rect(0, 0, 900, 500);
    std::optional<HitInfo> found;
    // Rank 1 is the right one of two vertical bars: scan the right half.
    for (double x = rect.width() / 2; x < rect.width() && !found; x += 10)
        for (double y = 0; y < rect.height() && !found; y += 4) {
            auto h = plot->hitTest(*prepared, values, rect, QPointF(x, y));
            if (h && h->title == "communication" && !h->fields.empty() && h->fields[0].second == "rank 1") found = h;
        }
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->fields, (BarChart::Fields{{"bar", "rank 1"}, {"time", "700 ns"}, {"share", "72.9%"},
                                                {"count", "1"}}));
}

// The legend's full mode lists every entry, in as many rows as they need; compact keeps the rows it is given and
// counts the rest. Widths from the font the chart uses: 12 entries of "category N" never fit one 300 px row.
TEST(ChartLegend, FullModeListsEveryEntry) {
    QImage image(1, 1, QImage::Format_ARGB32);
    QPainter painter(&image);
    QFontMetricsF fm(painter.font());
    std::vector<LegendEntry> entries;
    for (int i = 0; i < 12; ++i) entries.push_back({"category " + std::to_string(i), seriesColor(i)});
    const auto compact = legendFit(fm, 300, entries, LegendMode::Compact, 1);
    EXPECT_EQ(compact.rows, 1u);
    EXPECT_LT(compact.shown, entries.size());
    const auto full = legendFit(fm, 300, entries, LegendMode::Full, 1);
    EXPECT_EQ(full.shown, entries.size());
    EXPECT_GT(full.rows, 1u);
    // Each row holds at least one entry, so never more rows than entries.
    EXPECT_LE(full.rows, entries.size());
    EXPECT_EQ(legendMode({{"legend", std::string("full")}}), LegendMode::Full);
    EXPECT_EQ(legendMode({{"legend", std::string("compact")}}), LegendMode::Compact);
}

// Drawn: in full mode no "+N more" and the reserved height; in compact mode the "+N more" appears.
TEST(ChartLegend, FullModeDrawsNoMoreCounter) {
    std::vector<LegendEntry> entries;
    for (int i = 0; i < 12; ++i) entries.push_back({"category " + std::to_string(i), seriesColor(i)});
    auto svgOf = [&](LegendMode mode, double height) {
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator gen;
        gen.setOutputDevice(&buffer);
        gen.setSize(QSize(300, 400));
        QPainter p(&gen);
        Canvas c{p, QRectF(0, 0, 300, 400), false};
        drawLegend(c, QRectF(0, 400 - height, 300, height), entries, mode);
        p.end();
        return QString::fromUtf8(bytes);
    };
    const QString compact = svgOf(LegendMode::Compact, 60);
    EXPECT_TRUE(compact.contains(QStringLiteral(" more<"))) << compact.toStdString();
    const QString full = svgOf(LegendMode::Full, 400);
    EXPECT_FALSE(full.contains(QStringLiteral(" more<")));
    for (int i = 0; i < 12; ++i) EXPECT_TRUE(full.contains(QStringLiteral(">category %1<").arg(i))) << i;
}

// Tooltip lines: 60 characters at most, broken after a space or punctuation where there is one.
TEST(ChartText, WrapTextBreaksLongLines) {
    const QString name = QStringLiteral(
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)");
    const QStringList lines = wrapText(name, 60).split(QLatin1Char('\n'));
    EXPECT_GT(lines.size(), 2);
    for (const auto& l : lines) EXPECT_LE(l.size(), 60) << l.toStdString();
    // Nothing lost but the spaces at the breaks.
    EXPECT_EQ(lines.join(QString()).remove(QLatin1Char(' ')), QString(name).remove(QLatin1Char(' ')));
    // The first break: the last break character within the first 60 is the second ':' of "at::" after "<4, "
    // (characters 53–54; "native" then runs to 60 with no break character).
    EXPECT_EQ(lines[0], QStringLiteral("void at::native::vectorized_elementwise_kernel<4, at::"));
    // No break character at all: cut at 60 exactly.
    EXPECT_EQ(wrapText(QString(130, QLatin1Char('x')), 60).split(QLatin1Char('\n')).first().size(), 60);
    EXPECT_EQ(wrapText(QStringLiteral("short\nlines"), 60), QStringLiteral("short\nlines"));
}
