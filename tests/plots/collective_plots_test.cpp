// collective-violin and leader-straggler-overlap on the generated 4-rank sweep of tests/core/collectives_gen.h:
// channels=1 and 2, two repeats each, rank 3 arrives 200 us late at every all_reduce; transfers X of 100/110 us
// (channels=1) and 50/60 us (channels=2); on ranks 0-2 a compute kernel overlaps the first 100 us of the wait.
#include <gtest/gtest.h>

#include <map>

#include "core/engine/run_loader.h"
#include "plots/plot_registry.h"
#include "tests/core/collectives_gen.h"
#include "tests/test_files.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

RunSet channelsSweep(const std::filesystem::path& dir) {
    test::writeCollectiveSweep(dir);
    core::RunLoadOptions o;
    o.useCache = false;
    RunSet runs;
    for (const char* c : {"1", "2"})
        for (const char* r : {"rep0", "rep1"}) {
            auto d = core::loadRun({(dir / (std::string("channels=") + c) / r).string()}, o);
            EXPECT_TRUE(d.ok());
            runs.push_back(RunEntry{std::string(c) + "/" + r, d.ok() ? d.value() : nullptr, {{"channels", c}}});
        }
    return runs;
}

std::string field(const HitInfo& h, const std::string& k) {
    for (const auto& [name, v] : h.fields)
        if (name == k) return v;
    return {};
}

TEST(CollectiveViolin, LatencyPerTypeColouredByTheVaryingAxis) {
    test::TempDir dir("strobe-coll-violin");
    const RunSet runs = channelsSweep(dir.path());
    const Plot* plot = PlotRegistry::instance().find("collective-violin");
    ASSERT_NE(plot, nullptr);
    const auto values = *core::resolveValues(plot->parameters(runs), {});
    auto prepared = prepareNow(*plot, runs, values);
    ASSERT_TRUE(prepared.ok());
    // Latency: one value per collective (3 steps x 2 repeats per configuration), the straggler's kernel: X.
    std::map<std::string, std::vector<int64_t>> got;
    for (const auto& row : plot->table(**prepared, values).rows) {
        EXPECT_EQ(std::get<std::string>(row[0]), "all_reduce");
        EXPECT_EQ(std::get<int64_t>(row[3]), 3);  // the straggler rank
        got[std::get<std::string>(row[1])].push_back(std::get<int64_t>(row[4]));
    }
    for (auto& [k, v] : got) std::sort(v.begin(), v.end());
    const std::map<std::string, std::vector<int64_t>> want{
        {"1", {100000, 100000, 100000, 110000, 110000, 110000}}, {"2", {50000, 50000, 50000, 60000, 60000, 60000}}};
    EXPECT_EQ(got, want);

    // The left violin of the one band (channels=1): its median is 105 us.
    const QRectF rect(0, 0, 900, 500);
    std::optional<HitInfo> hit;
    for (double x = 150; x < 400 && !hit; x += 10) hit = plot->hitTest(**prepared, values, rect, QPointF(x, 250));
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->title, "all_reduce — 1");
    EXPECT_EQ(field(*hit, "collectives"), "6");
    EXPECT_EQ(field(*hit, "median"), "105 µs");

    // Every rank's kernel: 4 per collective, the waiting ranks' 200 us longer.
    auto kernel = core::resolveValues(plot->parameters(runs), {{"measure", std::string("kernel")}});
    ASSERT_TRUE(kernel.ok());
    auto all = prepareNow(*plot, runs, *kernel);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(plot->table(**all, *kernel).rows.size(), 48u);
}

TEST(LeaderStragglerOverlap, TheStragglerOverlapsNothingTheOthersHalfTheirWait) {
    test::TempDir dir("strobe-coll-overlap");
    const RunSet runs = channelsSweep(dir.path());
    const Plot* plot = PlotRegistry::instance().find("leader-straggler-overlap");
    ASSERT_NE(plot, nullptr);
    const auto values = *core::resolveValues(plot->parameters(runs), {});
    auto prepared = prepareNow(*plot, runs, values);
    ASSERT_TRUE(prepared.ok());
    const auto t = plot->table(**prepared, values);
    ASSERT_EQ(t.rows.size(), 4u);
    // Others: 100 us overlapped of each (200 us + X) kernel, 9 kernels per run: channels=1
    // 18 x 100 / (9 x 300 + 9 x 310) = 32.787 %; channels=2 18 x 100 / (9 x 250 + 9 x 260) = 39.216 %.
    const std::map<std::pair<std::string, std::string>, double> want{{{"channels=1", "straggler"}, 0.0},
                                                                     {{"channels=1", "others"}, 1800.0 / 54.9},
                                                                     {{"channels=2", "straggler"}, 0.0},
                                                                     {{"channels=2", "others"}, 1800.0 / 45.9}};
    for (const auto& row : t.rows) {
        const auto key = std::make_pair(std::get<std::string>(row[0]), std::get<std::string>(row[1]));
        ASSERT_TRUE(want.count(key)) << key.first << " " << key.second;
        EXPECT_NEAR(std::get<double>(row[5]), want.at(key), 1e-9) << key.first << " " << key.second;
        EXPECT_EQ(std::get<int64_t>(row[2]), 6);
    }
    EXPECT_FALSE(plot->emptyMessage(**prepared, values).has_value());
}

}  // namespace
