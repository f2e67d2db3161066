// The GPU timeline's search, measured-range summary and name statistics on a real trace, against
// tests/data/expected/timeline_nav.json (computed by timeline_nav.py with Python's json/gzip/re, no Strobe).
#include "plots/builtin/timeline_find.h"

#include <QFile>
#include <QFont>
#include <QFontMetricsF>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "core/params/param_spec.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_registry.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

QJsonObject expectedTimelineFind() {
    QFile f((QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/expected/timeline_nav.json")));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(f.readAll()).object();
}

struct Fixture {
    RunSet runs;
    PreparedPtr prepared;
    ParamValues values;
    const Plot* plot = nullptr;
    int64_t origin = 0;
};

Fixture prepareTrace(const ParamValues& overrides = {}) {
    Fixture fx;
    const QJsonObject e = expectedTimelineFind();
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/" + e["trace"].toString().toStdString()}, o);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().toString());
    if (!d.ok()) return fx;
    fx.runs = RunSet{RunEntry{"resnet", d.value(), {}}};
    fx.plot = PlotRegistry::instance().find("gpu-timeline");
    EXPECT_NE(fx.plot, nullptr);
    if (!fx.plot) return fx;
    auto resolved = core::resolveValues(fx.plot->parameters(fx.runs), overrides);
    EXPECT_TRUE(resolved.ok());
    if (!resolved.ok()) return fx;
    fx.values = resolved.value();
    auto p = prepareNow(*fx.plot, fx.runs, fx.values);
    EXPECT_TRUE(p.ok());
    if (!p.ok()) return fx;
    fx.prepared = p.value();
    fx.origin = preparedAs<timeline::TimelinePrepared>(*fx.prepared)->runOrigin.at(0);
    return fx;
}

}  // namespace

TEST(TimelineFind, RegexFindsEveryMatchingKernelInTimeOrder) {
    const QJsonObject e = expectedTimelineFind();
    auto fx = prepareTrace();
    ASSERT_TRUE(fx.prepared);
    auto found = fx.plot->timeline()->findItems(*fx.prepared, fx.values,
                                                FindQuery{e["regex"].toString().toStdString(), FindQuery::Mode::Regex});
    ASSERT_TRUE(found.ok());
    const auto& m = found.value();
    EXPECT_EQ(int64_t(m.size()), e["search_count"].toInteger());
    const auto firsts = e["search_first_starts_ns"].toArray();
    ASSERT_GE(m.size(), size_t(firsts.size()));
    for (qsizetype i = 0; i < firsts.size(); ++i) EXPECT_EQ(m[size_t(i)].start + fx.origin, firsts[i].toInteger());
    for (size_t i = 1; i < m.size(); ++i) EXPECT_LE(m[i - 1].start, m[i].start);
    // A substring search is case-insensitive; an invalid regex is an error, not a crash.
    auto upper =
        fx.plot->timeline()->findItems(*fx.prepared, fx.values, FindQuery{"SGEMM", FindQuery::Mode::Substring});
    ASSERT_TRUE(upper.ok());
    EXPECT_GT(upper.value().size(), 0u);
    EXPECT_FALSE(fx.plot->timeline()->findItems(*fx.prepared, fx.values, FindQuery{"(", FindQuery::Mode::Regex}).ok());
}

TEST(TimelineFind, MeasuredRangeClipsGpuTimePerCategoryAndName) {
    const QJsonObject e = expectedTimelineFind();
    auto fx = prepareTrace();
    ASSERT_TRUE(fx.prepared);
    const auto range = e["range_ns"].toArray();
    const int64_t start = range[0].toInteger() - fx.origin, end = range[1].toInteger() - fx.origin;
    auto s = fx.plot->timeline()->summarizeRange(*fx.prepared, fx.values, start, end, 10);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->busy, e["busy_ns"].toInteger());
    int64_t sum = 0, memcpy = 0, memset = 0;
    for (const auto& [cat, ns] : s->categories) {
        sum += ns;
        if (cat == "memcpy") memcpy = ns;
        if (cat == "memset") memset = ns;
    }
    EXPECT_EQ(sum, s->busy);
    EXPECT_EQ(memcpy, e["memcpy_ns"].toInteger());
    EXPECT_EQ(memset, e["memset_ns"].toInteger());
    const auto top = e["top"].toArray();
    ASSERT_EQ(s->top.size(), size_t(top.size()));
    for (size_t i = 0; i < s->top.size(); ++i) {
        const auto row = top[qsizetype(i)].toArray();
        EXPECT_EQ(s->top[i].name, row[0].toString().toStdString()) << i;
        EXPECT_EQ(s->top[i].clipped, row[1].toInteger()) << i;
        EXPECT_EQ(int64_t(s->top[i].count), row[2].toInteger()) << i;
    }
}

TEST(TimelineFind, NameStatisticsAndExactFilter) {
    const QJsonObject e = expectedTimelineFind();
    const QJsonObject st = e["stats"].toObject();
    auto fx = prepareTrace();
    ASSERT_TRUE(fx.prepared);
    const std::string name = st["name"].toString().toStdString();
    auto exact = fx.plot->timeline()->findItems(*fx.prepared, fx.values, FindQuery{name, FindQuery::Mode::Exact});
    ASSERT_TRUE(exact.ok());
    ASSERT_FALSE(exact.value().empty());
    EXPECT_EQ(int64_t(exact.value().size()), st["count"].toInteger());
    auto s = fx.plot->timeline()->nameStats(*fx.prepared, fx.values, exact.value().front());
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->name, name);
    EXPECT_EQ(int64_t(s->count), st["count"].toInteger());
    EXPECT_EQ(s->total, st["total"].toInteger());
    EXPECT_EQ(s->min, st["min"].toInteger());
    EXPECT_EQ(s->max, st["max"].toInteger());
    EXPECT_NEAR(s->mean, st["mean"].toDouble(), 1e-6);
    EXPECT_NEAR(s->median, st["median"].toDouble(), 1e-6);
    EXPECT_NEAR(s->p95, st["p95"].toDouble(), 1e-6);
    // The anchored, escaped name as name_filter keeps exactly that name's kernels (the name has <, >, *, ( and ,).
    const std::string re = timeline::exactNameRegex(name);
    EXPECT_EQ(re.front(), '^');
    EXPECT_EQ(re.back(), '$');
    auto filtered = prepareTrace({{"name_filter", re}});
    ASSERT_TRUE(filtered.prepared);
    const auto& tp = *preparedAs<timeline::TimelinePrepared>(*filtered.prepared);
    EXPECT_EQ(int64_t(tp.items), st["count"].toInteger());
}

TEST(TimelineFind, ExactNameRegexEscapesMetacharacters) {
    // By hand: every regex metacharacter gets a backslash, the rest stays.
    EXPECT_EQ(timeline::exactNameRegex("a.b*c(d)[e]{f}|g+h?i^j$k\\l"),
              "^a\\.b\\*c\\(d\\)\\[e\\]\\{f\\}\\|g\\+h\\?i\\^j\\$k\\\\l$");
    EXPECT_EQ(timeline::exactNameRegex("plain_name"), "^plain_name$");
}

TEST(TimelineLayout, GutterFitsTheLongestLaneLabelInAComparison) {
    // Two runs: labels carry the run ("num_workers_0 / rank 0 stream 7"), wider than the old fixed 170 px gutter.
    auto fx = prepareTrace();
    ASSERT_TRUE(fx.prepared);
    RunSet two{RunEntry{"resnet50_num_workers_0", fx.runs[0].dataset, {}},
               RunEntry{"resnet50_num_workers_1_compare", fx.runs[0].dataset, {}}};
    auto resolved = core::resolveValues(fx.plot->parameters(two), {});
    ASSERT_TRUE(resolved.ok());
    auto p = prepareNow(*fx.plot, two, resolved.value());
    ASSERT_TRUE(p.ok());
    const auto& tp = *preparedAs<timeline::TimelinePrepared>(*p.value());
    const QFontMetricsF fm{QFont()};
    double widest = 0;
    for (const auto& l : tp.lanes) widest = std::max(widest, fm.horizontalAdvance(QString::fromStdString(l.label)));
    ASSERT_GT(widest, 170.0);
    const QRectF rect(0, 0, 1600, 900);
    auto g = fx.plot->timeline()->geometry(*p.value(), resolved.value(), rect);
    ASSERT_TRUE(g.has_value());
    EXPECT_GE(g->plotArea.left() - rect.left() - 8, widest);  // labels are drawn gutter − 8 px wide
    // A narrow view caps the gutter at 40 % of the width.
    auto narrow = fx.plot->timeline()->geometry(*p.value(), resolved.value(), QRectF(0, 0, 400, 900));
    ASSERT_TRUE(narrow.has_value());
    EXPECT_LE(narrow->plotArea.left(), 160.0 + 1e-9);
    // The overview strip sits above the axis and spans the time axis.
    EXPECT_GT(g->overviewRect.height(), 0);
    EXPECT_LE(g->overviewRect.bottom(), g->axisRect.top() + 1e-9);
    EXPECT_DOUBLE_EQ(g->overviewRect.left(), g->axisRect.left());
    ASSERT_EQ(tp.overview.size(), timeline::kOverviewBins);
    EXPECT_FLOAT_EQ(*std::max_element(tp.overview.begin(), tp.overview.end()), 1.0f);
}
