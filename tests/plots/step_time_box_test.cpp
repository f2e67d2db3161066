// step-time-box on the two real ResNet-50 runs (tests/data/kineto/kineto-configs) as a sweep of num_workers 0 and 4.
// Expected: the ProfilerStep#5..#10 durations in the trace JSON (Python json, by hand from
//   [e['dur'] for e in traceEvents if e['name'].startswith('ProfilerStep#')]):
//   num_workers 0: 176078 173992 176918 181259 176468 164261 us; num_workers 4: 181565 123884 126824 126272 163461
//   116146 us. One rank each, so a step's end-to-end time is its own duration.
#include <algorithm>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/plot_registry.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

RunSet resnetSweep() {
    core::RunLoadOptions o;
    o.useCache = false;
    RunSet runs;
    for (const char* w : {"0", "4"}) {
        auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/kineto-configs/resnet50_num_workers_" + w}, o);
        EXPECT_TRUE(d.ok());
        runs.push_back(RunEntry{std::string("w") + w, d.ok() ? d.value() : nullptr, {{"num_workers", w}}});
    }
    return runs;
}

TEST(StepTimeBox, OneBoxPerConfigurationOfEveryStepsTime) {
    const Plot* plot = PlotRegistry::instance().find("step-time-box");
    ASSERT_NE(plot, nullptr);
    const auto runs = resnetSweep();
    auto prepared = prepareNow(*plot, runs);
    ASSERT_TRUE(prepared.ok());
    const auto values = *core::resolveValues(plot->parameters(runs), {});
    const auto t = plot->table(**prepared, values);
    const std::map<std::string, std::vector<int64_t>> expected{
        {"num_workers=0", {176078, 173992, 176918, 181259, 176468, 164261}},
        {"num_workers=4", {181565, 123884, 126824, 126272, 163461, 116146}}};
    std::map<std::string, std::vector<int64_t>> got;
    for (const auto& row : t.rows)
        got[std::get<std::string>(row[0])].push_back(std::get<int64_t>(row[3]) / 1000);
    EXPECT_EQ(got, expected);

    // Repeats pool their steps: the same run twice under one configuration gives 12 steps.
    RunSet twice{runs[0], runs[0]};
    twice[1].label = "w0 again";
    auto pooled = prepareNow(*plot, twice);
    ASSERT_TRUE(pooled.ok());
    EXPECT_EQ(plot->table(**pooled, values).rows.size(), 12u);

    // The hover of the num_workers=4 box (the right half of the plot): its configuration and 6 steps.
    const QRectF rect(0, 0, 900, 500);
    std::optional<HitInfo> hit;
    for (double x = 800; x > 500 && !hit; x -= 10) hit = plot->hitTest(**prepared, values, rect, QPointF(x, 250));
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->title, "num_workers=4");
    auto field = [&](const std::string& k) {
        for (const auto& [name, v] : hit->fields)
            if (name == k) return v;
        return std::string();
    };
    EXPECT_EQ(field("steps"), "6");
    EXPECT_FALSE(field("median").empty());

    auto skipped = core::resolveValues(plot->parameters(runs), {{"skip_steps", int64_t(2)}});
    ASSERT_TRUE(skipped.ok());
    auto fewer = prepareNow(*plot, runs, *skipped);
    ASSERT_TRUE(fewer.ok());
    EXPECT_EQ(plot->table(**fewer, *skipped).rows.size(), 8u);  // steps #7..#10 of each run
}

}  // namespace

namespace {

// sweep-interaction on the same pair, x = num_workers, no second axis: one line of two points, the medians of the
// step durations above: num_workers 0 -> (176078 + 176468) / 2 = 176273 us; 4 -> (126272 + 126824) / 2 = 126548 us.
TEST(SweepInteraction, MedianStepTimeAgainstAnAxis) {
    const Plot* plot = PlotRegistry::instance().find("sweep-interaction");
    ASSERT_NE(plot, nullptr);
    const auto runs = resnetSweep();
    auto values = core::resolveValues(plot->parameters(runs), {});
    ASSERT_TRUE(values.ok());
    auto prepared = prepareNow(*plot, runs, *values);
    ASSERT_TRUE(prepared.ok());
    EXPECT_FALSE(plot->emptyMessage(**prepared, *values).has_value());
    const auto t = plot->table(**prepared, *values);
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(std::get<std::string>(t.rows[0][1]), "0");
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][2]), 176273000.0);
    EXPECT_EQ(std::get<std::string>(t.rows[1][1]), "4");
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[1][2]), 126548000.0);
    // Runs without sweep parameters say so.
    RunSet plain = runs;
    for (auto& r : plain) r.parameters.clear();
    auto none = prepareNow(*plot, plain, *values);
    ASSERT_TRUE(none.ok());
    ASSERT_TRUE(plot->emptyMessage(**none, *values).has_value());
    EXPECT_NE(plot->emptyMessage(**none, *values)->find("no sweep parameters"), std::string::npos);
}

}  // namespace
