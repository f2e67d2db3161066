// Collectives per run and per sweep configuration (issue 9, core/analysis/collectives.h): the real 8-rank DLRM
// sample against tests/data/expected/collectives_dlrm.json (written by collectives_dlrm.py with Python's json
// module, no Strobe), and a generated 4-rank sweep with an injected straggler (tests/core/collectives_gen.h).
#include "core/analysis/collectives.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "core/analysis/straggler.h"
#include "core/engine/run_loader.h"
#include "core/sweep/sweep_discovery.h"
#include "tests/core/collectives_gen.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

RunSet loadRuns(const std::vector<std::string>& paths) {
    RunSet out;
    RunLoadOptions options;
    options.useCache = false;
    for (const auto& run : sweep::discoverSweep(paths).runs) {
        auto loaded = loadRun(run.paths, options);
        EXPECT_TRUE(static_cast<bool>(loaded)) << run.path();
        if (!loaded) continue;
        RunEntry entry = run;
        entry.dataset = *loaded;
        out.push_back(std::move(entry));
    }
    return out;
}

const CollectiveSweepRow* find(const CollectiveSweep& s, const std::string& type, const std::string& config = {}) {
    auto it = std::find_if(s.rows.begin(), s.rows.end(), [&](const CollectiveSweepRow& r) {
        return r.collective == type && (config.empty() || r.config == config);
    });
    return it == s.rows.end() ? nullptr : &*it;
}

TEST(Collectives, NcclTestsFactorsAndDtypeSizes) {
    EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllReduce, 8), 1.75);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllGather, 4), 0.75);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::ReduceScatter, 2), 0.5);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllToAll, 8), 0.875);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::Broadcast, 8), 1.0);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::SendRecv, 8), 1.0);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllReduce, 1), 1.0);
    EXPECT_EQ(dtypeBytes("Float"), 4);
    EXPECT_EQ(dtypeBytes("BFloat16"), 2);
    EXPECT_EQ(dtypeBytes("c10::Half"), 2);
    EXPECT_EQ(dtypeBytes("long int"), 8);
    EXPECT_EQ(dtypeBytes("signed char"), 1);
    EXPECT_EQ(dtypeBytes("TensorList"), 0);
}

TEST(Collectives, DlrmSampleMatchesPython) {
    simdjson::dom::parser parser;
    simdjson::dom::element expected;
    const std::string path = std::string(STROBE_TEST_DATA_DIR) + "/expected/collectives_dlrm.json";
    ASSERT_FALSE(parser.load(path).get(expected)) << path;
    const auto runs = loadRuns({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"});
    ASSERT_EQ(runs.size(), 1u);
    ASSERT_EQ(runs[0].dataset->ranks.size(), 8u);
    const CollectiveSweep s = collectivesBySweep(runs);
    // Two types: the AllReduce kernels, and the SendRecv kernels launched under nccl:all_to_all.
    ASSERT_EQ(s.rows.size(), 2u);
    for (auto [type, v] : expected["types"].get_object()) {
        SCOPED_TRACE(std::string(type));
        const CollectiveSweepRow* r = find(s, std::string(type));
        ASSERT_NE(r, nullptr);
        auto num = [&](const char* key) { return v[key].get_double().value_unsafe(); };
        EXPECT_EQ(r->count, v["count"].get_uint64().value_unsafe());
        EXPECT_EQ(r->sized, r->count);
        ASSERT_TRUE(r->bytes.has_value());
        EXPECT_NEAR(*r->bytes, num("bytes_mean"), 1e-6);
        EXPECT_NEAR(r->latencyMeanNs, num("latency_mean_ns"), 1e-6);
        EXPECT_NEAR(r->latencyP50Ns, num("latency_p50_ns"), 1e-6);
        EXPECT_NEAR(r->latencyP99Ns, num("latency_p99_ns"), 1e-6);
        ASSERT_TRUE(r->algbwGbps && r->busbwGbps);
        EXPECT_NEAR(*r->algbwGbps, num("algbw_gbps"), 1e-9);
        EXPECT_NEAR(*r->busbwGbps, num("busbw_gbps"), 1e-9);
        EXPECT_NEAR(r->startSkewP50Ns, num("start_skew_p50_ns"), 1e-6);
        EXPECT_NEAR(r->startSkewMaxNs, num("start_skew_max_ns"), 1e-6);
        EXPECT_NEAR(r->waitMeanNs, num("wait_mean_ns"), 1e-6);
    }
    // The straggler of every collective, and the same one the straggler analysis names (shared matching).
    const RunCollectives rc = runCollectives(runs[0].dataset);
    ASSERT_EQ(rc.instances.size(), expected["stragglers"].get_object().size());
    AnalysisContext ctx(runs[0].dataset);
    auto table = stragglerAnalysis(ctx, WindowSpec{}, "collectives");
    ASSERT_TRUE(static_cast<bool>(table));
    ASSERT_EQ(table->rows.size(), rc.instances.size());
    for (size_t i = 0; i < rc.instances.size(); ++i) {
        const CollectiveInstance& c = rc.instances[i];
        const std::string key = c.kernel + "#" + std::to_string(c.seq);
        int64_t want = 0;
        ASSERT_FALSE(expected["stragglers"][key].get_int64().get(want)) << key;
        EXPECT_EQ(c.ranks[c.straggler].rank, want) << key;
        EXPECT_EQ(std::get<int64_t>(table->rows[i][4]), want) << key;
    }
}

TEST(Collectives, InjectedSkewNamesTheStragglerAndItsWait) {
    test::TempDir dir("strobe-collectives-sweep");
    test::writeCollectiveSweep(dir.path());
    const auto runs = loadRuns({dir.path().string()});
    ASSERT_EQ(runs.size(), 4u);
    for (const auto& r : runs) ASSERT_EQ(r.dataset->ranks.size(), 4u) << r.label;

    // Every all_reduce: rank 3 arrives 200 us late and has the shortest kernel (X); the others wait 200 us.
    const RunCollectives rc = runCollectives(runs[0].dataset);
    ASSERT_EQ(rc.instances.size(), 3u);
    for (const auto& c : rc.instances) {
        EXPECT_EQ(c.type, Collective::AllReduce);
        EXPECT_EQ(c.ranks[c.straggler].rank, 3);
        EXPECT_EQ(c.startSpreadNs, 200000);
        EXPECT_EQ(c.groupSize, 4);
        ASSERT_TRUE(c.bytes.has_value());
        EXPECT_EQ(*c.bytes, 1048576 * 4);
    }

    const CollectiveSweep s = collectivesBySweep(runs);
    ASSERT_EQ(s.rows.size(), 2u);
    // channels=1: 3 steps x 2 repeats; X = 100 us (rep0) and 110 us (rep1): latencies {100,100,100,110,110,110} us,
    // mean and p50 105 us, p99 at rank 0.99 x 5 = 4.95 -> 110 us. algbw = 6 x 4194304 B / 630000 ns = 39.946 GB/s,
    // busbw x 2(4-1)/4 = 1.5. Start spread 200 us everywhere; wait: three ranks 200 us, one 0: mean 150 us.
    const CollectiveSweepRow* c1 = find(s, "all_reduce", "channels=1");
    ASSERT_NE(c1, nullptr);
    EXPECT_EQ(c1->count, 6u);
    EXPECT_NEAR(*c1->bytes, 4194304.0, 1e-9);
    EXPECT_NEAR(c1->latencyMeanNs, 105000.0, 1e-6);
    EXPECT_NEAR(c1->latencyP50Ns, 105000.0, 1e-6);
    EXPECT_NEAR(c1->latencyP99Ns, 110000.0, 1e-6);
    EXPECT_NEAR(*c1->algbwGbps, 6 * 4194304.0 / 630000.0, 1e-9);
    EXPECT_NEAR(*c1->busbwGbps, 1.5 * 6 * 4194304.0 / 630000.0, 1e-9);
    EXPECT_NEAR(c1->startSkewP50Ns, 200000.0, 1e-6);
    EXPECT_NEAR(c1->startSkewMaxNs, 200000.0, 1e-6);
    EXPECT_NEAR(c1->waitMeanNs, 150000.0, 1e-6);
    // Overlap with compute: none on the straggler; on the others 100 us of each (skew + X) us kernel:
    // 9 x 100 us over 3 x 3 x (300 + 310) us.
    EXPECT_EQ(c1->stragglerOverlapNs, 0.0);
    EXPECT_NEAR(c1->stragglerKernelNs, 3 * 100000.0 + 3 * 110000.0, 1e-6);
    EXPECT_NEAR(c1->othersOverlapNs, 18 * 100000.0, 1e-6);
    EXPECT_NEAR(c1->othersKernelNs, 9 * 300000.0 + 9 * 310000.0, 1e-6);
    // channels=2: X = 50 and 60 us: half the latency, the same skew.
    const CollectiveSweepRow* c2 = find(s, "all_reduce", "channels=2");
    ASSERT_NE(c2, nullptr);
    EXPECT_NEAR(c2->latencyMeanNs, 55000.0, 1e-6);
    EXPECT_NEAR(c2->startSkewMaxNs, 200000.0, 1e-6);
    EXPECT_NEAR(c2->waitMeanNs, 150000.0, 1e-6);

    // --skip-steps 1 drops ProfilerStep#0 of every run: 2 steps x 2 repeats.
    const CollectiveSweep skipped = collectivesBySweep(runs, 1);
    ASSERT_NE(find(skipped, "all_reduce", "channels=1"), nullptr);
    EXPECT_EQ(find(skipped, "all_reduce", "channels=1")->count, 4u);
}

TEST(Collectives, UnknownSizesAreSaidAndLeaveBandwidthNull) {
    // df_index_resolver: one rank of a 2-rank job, AllReduce kernels under nccl:all_reduce annotations that carry
    // no Input Dims: count and latency, no size.
    const auto runs = loadRuns({std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/df_index_resolver"});
    ASSERT_EQ(runs.size(), 1u);
    const CollectiveSweep s = collectivesBySweep(runs);
    const CollectiveSweepRow* r = find(s, "all_reduce");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->count, 2020u);  // the trace's NCCL kernel count (tests/data/SOURCES.md)
    EXPECT_FALSE(r->bytes.has_value());
    EXPECT_FALSE(r->algbwGbps.has_value());
    EXPECT_FALSE(r->busbwGbps.has_value());
    const bool said = std::any_of(s.messages.begin(), s.messages.end(), [](const std::string& m) {
        return m.find("no message size") != std::string::npos;
    });
    EXPECT_TRUE(said);
}

}  // namespace
}  // namespace strobe::core
