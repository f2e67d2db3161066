// summarizeRank on small hand-built ranks. Every expected value below is worked out by hand from the rows
// written in the test (comments show the arithmetic), not taken from Strobe's output.
#include "core/analysis/summary.h"

#include <memory>

#include <gtest/gtest.h>

using namespace strobe::core;

namespace {

struct GpuRow {
    const char* name;
    EventKind kind;
    KernelCategory category;
    TimeNs ts;
    TimeNs dur;
};

void addGpu(RankData& r, const GpuRow& row, bool withCategory = true) {
    GpuTable& g = r.gpu;
    g.ts.push_back(row.ts);
    g.dur.push_back(row.dur);
    g.name.push_back(r.strings.intern(row.name));
    const char* cat = row.kind == EventKind::Kernel ? "kernel"
        : row.kind == EventKind::Memcpy             ? "gpu_memcpy"
                                                    : "gpu_memset";
    g.cat.push_back(r.strings.intern(cat));
    g.kind.push_back(row.kind);
    if (withCategory) g.category.push_back(row.category);
}

void addSlice(RankData& r, const char* name, const char* cat, TimeNs ts, TimeNs dur) {
    r.slices.ts.push_back(ts);
    r.slices.dur.push_back(dur);
    r.slices.name.push_back(r.strings.intern(name));
    r.slices.cat.push_back(r.strings.intern(cat));
    r.slices.kind.push_back(eventKindFromCategory(cat));
}

// One rank: two CPU slices, four kernels (one name twice), one memcpy, one memset, one step.
RankData makeRankSummary() {
    RankData r;
    r.rank = 3;
    r.rankSource = RankSource::DistributedInfo;
    r.path = "/traces/rank3.json";
    r.info.platform = Platform::Nvidia;
    r.info.distributed.present = true;
    r.info.distributed.rank = 3;
    r.info.distributed.worldSize = 8;
    DeviceProperties dev;
    dev.id = 0;
    dev.name = "Tesla V100-SXM2-32GB";
    r.info.devices.push_back(dev);
    r.info.devices.push_back(dev);

    addSlice(r, "ProfilerStep#3", "user_annotation", 900, 5000);  // [900, 5900]
    addSlice(r, "aten::mm", "cpu_op", 1000, 500);                 // [1000, 1500]
    addGpu(r, {"gemm_a", EventKind::Kernel, KernelCategory::Gemm, 2000, 300});
    addGpu(r, {"gemm_a", EventKind::Kernel, KernelCategory::Gemm, 2400, 100});
    addGpu(r, {"ncclDevKernel_AllReduce", EventKind::Kernel, KernelCategory::Communication, 3000, 1000});
    addGpu(r, {"elementwise_add", EventKind::Kernel, KernelCategory::Elementwise, 4500, 50});
    addGpu(r, {"Memcpy HtoD (Pinned -> Device)", EventKind::Memcpy, KernelCategory::Memcpy, 1500, 200});
    addGpu(r, {"Memset (Device)", EventKind::Memset, KernelCategory::Memset, 6000, 10});  // ends at 6010

    r.steps.number.push_back(3);
    r.steps.start.push_back(900);
    r.steps.end.push_back(5900);
    r.steps.slice.push_back(0);

    // What the loader would have recorded for these events plus two metadata events.
    r.stats.events = 10;
    r.stats.eventsByCategory = {{r.strings.intern("user_annotation"), 1}, {r.strings.intern("cpu_op"), 1},
                                {r.strings.intern("kernel"), 4},          {r.strings.intern("gpu_memcpy"), 1},
                                {r.strings.intern("gpu_memset"), 1},      {kEmptyStr, 2}};
    r.diagnostics.push_back(Diagnostic{Severity::Warning, Location{"/traces/rank3.json", 120, -1, 7}, "odd event"});
    r.diagnostics.push_back(Diagnostic{Severity::Info, Location{}, "not a warning"});
    return r;
}

}  // namespace

TEST(Summary, IdentityAndTraceFacts) {
    RankData r = makeRankSummary();
    RankSummary s = summarizeRank(r);
    EXPECT_EQ(s.rank, 3);
    EXPECT_EQ(s.worldSize, 8);
    EXPECT_EQ(s.rankSource, RankSource::DistributedInfo);
    EXPECT_EQ(s.path, "/traces/rank3.json");
    EXPECT_EQ(s.platform, Platform::Nvidia);
    EXPECT_EQ(s.gpuName, "Tesla V100-SXM2-32GB");
    EXPECT_EQ(s.gpuCount, 2u);
    EXPECT_EQ(s.events, 10u);
}

TEST(Summary, KernelsCountedApartFromMemcpyAndMemset) {
    RankSummary s = summarizeRank(makeRankSummary());
    EXPECT_EQ(s.kernelCount, 4u);
    EXPECT_EQ(s.kernelTimeNs, 1450);  // 300 + 100 + 1000 + 50
    EXPECT_EQ(s.memcpyCount, 1u);
    EXPECT_EQ(s.memcpyTimeNs, 200);
    EXPECT_EQ(s.memsetCount, 1u);
    EXPECT_EQ(s.memsetTimeNs, 10);
}

TEST(Summary, SpanCoversEveryTimedEvent) {
    RankSummary s = summarizeRank(makeRankSummary());
    EXPECT_EQ(s.spanStart, 900);  // the step slice starts first
    EXPECT_EQ(s.spanEnd, 6010);   // the memset ends last: 6000 + 10
    EXPECT_EQ(s.spanNs(), 5110);
}

TEST(Summary, TimeByCategoryInEnumOrder) {
    RankSummary s = summarizeRank(makeRankSummary());
    // Per category, in enum order: total GPU time and number of kernels.
    struct Row {
        KernelCategory cat;
        TimeNs time;
        uint64_t count;
    };
    const Row rows[] = {{KernelCategory::Gemm, 400, 2}, {KernelCategory::Communication, 1000, 1},
                        {KernelCategory::Memcpy, 200, 1}, {KernelCategory::Memset, 10, 1},
                        {KernelCategory::Elementwise, 50, 1}};
    std::vector<std::pair<KernelCategory, TimeNs>> expected;
    std::vector<std::pair<KernelCategory, uint64_t>> counts;
    for (const Row& row : rows) {
        expected.emplace_back(row.cat, row.time);
        counts.emplace_back(row.cat, row.count);
    }
    EXPECT_EQ(s.timeByCategory, expected);
    EXPECT_EQ(s.countByCategory, counts);
}

TEST(Summary, TopKernelsByTotalTime) {
    RankSummary s = summarizeRank(makeRankSummary(), 2);
    ASSERT_EQ(s.topKernels.size(), 2u);
    EXPECT_EQ(s.topKernels[0].name, "ncclDevKernel_AllReduce");
    EXPECT_EQ(s.topKernels[0].category, KernelCategory::Communication);
    EXPECT_EQ(s.topKernels[0].count, 1u);
    EXPECT_EQ(s.topKernels[0].totalNs, 1000);
    EXPECT_EQ(s.topKernels[1].name, "gemm_a");
    EXPECT_EQ(s.topKernels[1].count, 2u);
    EXPECT_EQ(s.topKernels[1].totalNs, 400);
    EXPECT_EQ(s.topKernels[1].minNs, 100);
    EXPECT_EQ(s.topKernels[1].maxNs, 300);

    // Memcpy and memset are not kernels: asking for everything still lists three names.
    EXPECT_EQ(summarizeRank(makeRankSummary(), 100).topKernels.size(), 3u);
    EXPECT_TRUE(summarizeRank(makeRankSummary(), 0).topKernels.empty());
}

TEST(Summary, TiesInTopKernelsAreOrderedByName) {
    RankData r;
    addGpu(r, {"zeta", EventKind::Kernel, KernelCategory::Other, 0, 5});
    addGpu(r, {"alpha", EventKind::Kernel, KernelCategory::Other, 10, 5});
    RankSummary s = summarizeRank(r);
    ASSERT_EQ(s.topKernels.size(), 2u);
    EXPECT_EQ(s.topKernels[0].name, "alpha");
    EXPECT_EQ(s.topKernels[1].name, "zeta");
}

TEST(Summary, StepsAndRawCategories) {
    RankSummary s = summarizeRank(makeRankSummary());
    EXPECT_EQ(s.steps, std::vector<int64_t>{3});
    ASSERT_EQ(s.stepSpans.size(), 1u);
    EXPECT_EQ(s.stepSpans[0].startNs, 900);
    EXPECT_EQ(s.stepSpans[0].endNs, 5900);
    using P = std::pair<std::string, uint64_t>;
    std::vector<P> expected = {{"", 2},           {"cpu_op", 1}, {"gpu_memcpy", 1},
                               {"gpu_memset", 1}, {"kernel", 4}, {"user_annotation", 1}};
    EXPECT_EQ(s.eventsByCategory, expected);
}

TEST(Summary, WarningsKeepFileAndPlaceButNotInfo) {
    RankSummary s = summarizeRank(makeRankSummary());
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("/traces/rank3.json"), std::string::npos);
    EXPECT_NE(s.warnings[0].find("byte 120"), std::string::npos);
    EXPECT_NE(s.warnings[0].find("odd event"), std::string::npos);
}

TEST(Summary, WithoutMergeCategoriesFallsBackToKind) {
    // Category column left empty (no merge ran): memcpy/memset still get their own categories,
    // kernels count as "other", and raw categories are counted from the tables.
    RankData r;
    addGpu(r, {"k", EventKind::Kernel, KernelCategory::Gemm, 100, 7}, false);
    addGpu(r, {"Memcpy DtoH", EventKind::Memcpy, KernelCategory::Memcpy, 200, 3}, false);
    RankSummary s = summarizeRank(r);
    using P = std::pair<KernelCategory, TimeNs>;
    std::vector<P> expected = {{KernelCategory::Other, 7}, {KernelCategory::Memcpy, 3}};
    EXPECT_EQ(s.timeByCategory, expected);
    using C = std::pair<std::string, uint64_t>;
    std::vector<C> cats = {{"gpu_memcpy", 1}, {"kernel", 1}};
    EXPECT_EQ(s.eventsByCategory, cats);
    EXPECT_EQ(s.events, 2u);
    EXPECT_EQ(s.spanStart, 100);
    EXPECT_EQ(s.spanEnd, 203);
}

TEST(Summary, NegativeDurationsCountAsZeroWithAWarning) {
    RankData r;
    r.path = "neg.json";
    addGpu(r, {"k", EventKind::Kernel, KernelCategory::Other, 100, -40});
    addGpu(r, {"k", EventKind::Kernel, KernelCategory::Other, 200, 10});
    RankSummary s = summarizeRank(r);
    EXPECT_EQ(s.kernelCount, 2u);
    EXPECT_EQ(s.kernelTimeNs, 10);
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("neg.json"), std::string::npos);
}

TEST(Summary, EmptyRankIsAllZero) {
    RankData r;
    RankSummary s = summarizeRank(r);
    EXPECT_EQ(s.kernelCount, 0u);
    EXPECT_EQ(s.kernelTimeNs, 0);
    EXPECT_EQ(s.spanNs(), 0);
    EXPECT_TRUE(s.timeByCategory.empty());
    EXPECT_TRUE(s.topKernels.empty());
    EXPECT_EQ(s.gpuName, "");
    EXPECT_EQ(s.platform, Platform::Unknown);
}

TEST(Summary, RunKeepsRankOrderAndRunWarnings) {
    auto ds = std::make_shared<Dataset>();
    auto a = std::make_shared<RankData>(makeRankSummary());
    auto b = std::make_shared<RankData>();
    b->rank = 4;
    ds->ranks = {a, b};
    ds->diagnostics.push_back(Diagnostic{Severity::Warning, Location{}, "rank 5 is missing"});
    RunSummary run = summarizeRun(*ds);
    ASSERT_EQ(run.ranks.size(), 2u);
    EXPECT_EQ(run.ranks[0].rank, 3);
    EXPECT_EQ(run.ranks[1].rank, 4);
    ASSERT_EQ(run.warnings.size(), 1u);
    EXPECT_NE(run.warnings[0].find("rank 5 is missing"), std::string::npos);
}
