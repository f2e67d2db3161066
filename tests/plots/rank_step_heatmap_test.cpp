// The rank × step heatmap (plots/builtin/rank_step_heatmap.cpp, issue 29) at 1,024 ranks: rows are blocks of 16
// ranks showing their largest value, the slow rank is named and its block outlined, narrowing the Ranks parameter
// gives single-rank rows, and nothing is drawn outside the plot's axes area.
#include <gtest/gtest.h>

#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/plots/plot_test_data.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

// 1,024 ranks, steps 10 and 11 of 1 ms each; each step holds a 0.5 ms GEMM and a 0.1 ms all-reduce. Rank 700's
// step 11 takes 5 ms: its median step (3 ms) stands out against the others' 1 ms.
core::DatasetPtr thousandRanks() {
    using C = core::KernelCategory;
    std::vector<std::shared_ptr<core::RankData>> ranks;
    for (int r = 0; r < 1024; ++r) {
        const int64_t t0 = 1'000'000;
        const int64_t slow = r == 700 ? 4'000'000 : 0;
        std::vector<testdata::K> ks{{t0 + 1000, 500'000, "sgemm", 7, C::Gemm},
                                    {t0 + 600'000, 100'000, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 13,
                                     C::Communication},
                                    {t0 + 1'000'000 + 1000, 500'000, "sgemm", 7, C::Gemm},
                                    {t0 + 1'600'000 + slow, 100'000, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 13,
                                     C::Communication}};
        ranks.push_back(testdata::makeRank(r, ks, {{10, t0, t0 + 1'000'000}, {11, t0 + 1'000'000, t0 + 2'000'000 + slow}}));
    }
    return testdata::makeDataset(std::move(ranks));
}

TEST(RankStepHeatmap, AThousandRanksStayReadableAndTheSlowRankIsNamed) {
    const Plot* plot = PlotRegistry::instance().find("rank-step-heatmap");
    ASSERT_NE(plot, nullptr);
    RunSet runs{RunEntry{"run", thousandRanks(), {}}};
    auto values = resolveValues(plot->parameters(runs), {{"cell", std::string("duration")}});
    ASSERT_TRUE(values.ok()) << values.error().toString();
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
    EXPECT_EQ(plot->table(**prepared, *values).rows.size(), 2048u);  // the table keeps every rank and step

    const QSize size(900, 560);
    QImage img = renderToImage(*plot, **prepared, *values, size);
    EXPECT_GT(countNonBackgroundPixels(img), 20000);
    // 64 rows of 16 ranks: the block holding rank 700 (ranks 688–703) shows its 5 ms step.
    const QRectF rect(0, 0, size.width(), size.height());
    bool sawBlock = false;
    for (int y = 0; y < size.height() && !sawBlock; y += 2)
        for (int x : {size.width() * 2 / 3}) {  // the right half of the plot: step 11
            auto hit = plot->hitTest(**prepared, *values, rect, QPointF(x, y));
            if (!hit || hit->title != "ranks 688–703, step 11") continue;
            sawBlock = true;
            std::map<std::string, std::string> f(hit->fields.begin(), hit->fields.end());
            EXPECT_EQ(f["step duration"], "5 ms");
            EXPECT_EQ(f["largest in the block"], "rank 700");
            EXPECT_EQ(f["outlier"], "yes (robust z > 3 over the ranks)");
            EXPECT_TRUE(hit->itemRect && hit->itemRect->isValid());
        }
    EXPECT_TRUE(sawBlock);

    // Narrowed to four ranks, each row is one rank.
    auto narrow = resolveValues(plot->parameters(runs), {{"cell", std::string("duration")},
                                                         {"ranks", std::vector<std::string>{"699", "700", "701", "702"}}});
    ASSERT_TRUE(narrow.ok()) << narrow.error().toString();
    std::set<std::string> titles;
    for (int y = 0; y < size.height(); y += 4)
        for (int x : {size.width() / 3, size.width() * 2 / 3})
            if (auto hit = plot->hitTest(**prepared, *narrow, rect, QPointF(x, y))) titles.insert(hit->title);
    EXPECT_TRUE(titles.count("rank 700, step 11")) << titles.size();
    EXPECT_TRUE(titles.count("rank 699, step 10"));
    EXPECT_FALSE(titles.count("rank 698, step 10"));
}

}  // namespace
