// The chart toolkit's logic (plots/chart.h): tick values and labels, log ticks, label eliding and gutters, legend
// fitting, axis layout and bar-chart hover. Expected values are worked out by hand from the definitions; text
// widths come from a fake measure (1 px per character) or, for layouts, from the same font metrics the chart uses.
#include <gtest/gtest.h>

#include <QImage>

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
