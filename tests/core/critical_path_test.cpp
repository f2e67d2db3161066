// Critical path (issue 26) on real traces: HTA's definition against HTA's own outputs (commit f4d0062, run from
// source: tests/data/expected/critical_path/hta_critical_path.py), Strobe's against independent Python facts
// (tests/data/expected/critical_path/strobe_facts.py): AMD, graph launches, four merged ranks; what-if.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "analysis_test_util.h"
#include "core/analysis/critical_path.h"
#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

DatasetPtr loadCp(const std::string& path) {
    RunLoadOptions options;
    options.useCache = false;
    auto loaded = loadRun({path}, options);
    EXPECT_TRUE(static_cast<bool>(loaded)) << path;
    return loaded ? loaded.value() : nullptr;
}

std::string cpData(const std::string& rel) { return std::string(STROBE_TEST_DATA_DIR) + "/" + rel; }

TimeNs cpClass(const CriticalPathResult& r, const std::string& cls) {
    for (const auto& [k, v] : r.classes)
        if (k == cls) return v;
    return 0;
}

// Length within 1 % and every class's share within 1 point of HTA's (HTA's units: µs).
void expectLikeHta(const CriticalPathResult& r, simdjson::dom::element hta) {
    const double htaLen = static_cast<double>(hta["length_us"].get_int64().value_unsafe());
    const double len = static_cast<double>(r.lengthNs) / 1000.0;
    EXPECT_NEAR(len, htaLen, 0.01 * htaLen);
    std::set<std::string> classes;
    for (auto [k, v] : hta["share"].get_object()) {
        classes.insert(std::string(k));
        const double share = static_cast<double>(cpClass(r, std::string(k))) / static_cast<double>(r.lengthNs);
        EXPECT_NEAR(share, v.get_double().value_unsafe(), 0.01) << k;
    }
    for (const auto& [k, v] : r.classes) {
        if (!classes.count(k)) {
            EXPECT_LT(static_cast<double>(v) / static_cast<double>(r.lengthNs), 0.01) << k;
        }
    }
}

simdjson::dom::element cpExpected(simdjson::dom::parser& p, const std::string& file) {
    simdjson::dom::element e;
    const std::string path = cpData("expected/critical_path/" + file);
    EXPECT_FALSE(p.load(path).get(e)) << path;
    return e;
}

TEST(CriticalPath, HtaDefinitionMatchesHtaOnAlexnet) {
    auto ds = loadCp(cpData("kineto/hta/critical_path/alexnet"));
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    CpRequest req;
    req.definition = CpDefinition::Hta;
    req.annotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
    req.instance = 1;
    auto r = criticalPath(ctx, req);
    ASSERT_TRUE(r.ok()) << r.error().message;
    simdjson::dom::parser p;
    expectLikeHta(r.value(), cpExpected(p, "hta_alexnet.json"));
    // The window is the second instance: 36.356 ms long, and the path lies inside it.
    EXPECT_FALSE(r->path.empty());
    EXPECT_LE(r->path.back().end - r->path.front().start, 36'356'000 + 1000);
}

TEST(CriticalPath, HtaDefinitionMatchesHtaOnEveryDlrmRank) {
    auto ds = loadCp(std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank");
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    simdjson::dom::parser p;
    for (int rank = 0; rank < 8; ++rank) {
        SCOPED_TRACE(rank);
        CpRequest req;
        req.definition = CpDefinition::Hta;
        req.rank = rank;
        req.annotation = "ProfilerStep";  // its first instance: ProfilerStep#12, the sample's one step
        auto r = criticalPath(ctx, req);
        ASSERT_TRUE(r.ok()) << r.error().message;
        expectLikeHta(r.value(), cpExpected(p, "hta_dlrm_rank" + std::to_string(rank) + ".json"));
    }
}

TEST(CriticalPath, AmdTraceHasAGpuActivityOnTheStrobePath) {
    auto ds = loadCp(cpData("kineto/hta/amd_trace"));
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    simdjson::dom::parser p;
    auto facts = cpExpected(p, "strobe_facts.json")["amd_step1"]["0"];
    CpRequest req;
    req.step = 1;
    auto r = criticalPath(ctx, req);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->nodes, 2 * static_cast<size_t>(facts["cpu_events"].get_int64().value_unsafe() +
                                                 facts["gpu_events"].get_int64().value_unsafe()));
    const double span = static_cast<double>(facts["span_ns"].get_int64().value_unsafe());
    EXPECT_NEAR(static_cast<double>(r->lengthNs), span, 0.01 * span);  // wall time
    // The copy the synchronous hipMemcpyWithStream waits for is on the path (HTA's path has no GPU event here).
    const std::string copy(facts["blocking_launched"].at(0).get_string().value_unsafe());
    EXPECT_TRUE(std::any_of(r->path.begin(), r->path.end(),
                            [&](const CpSegment& s) { return s.kind == "gpu_memcpy" && s.name == copy; }));
    EXPECT_GT(cpClass(r.value(), "kernel:memcpy"), 0);

    req.definition = CpDefinition::Hta;
    auto h = criticalPath(ctx, req);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(cpClass(h.value(), "gpu_compute_bound"), 0);  // HTA's issue #219: no sync events, no kernel
    EXPECT_TRUE(std::any_of(h->messages.begin(), h->messages.end(),
                            [](const std::string& m) { return m.find("no cuda_sync") != std::string::npos; }));
}

TEST(CriticalPath, GraphLaunchedKernelsHangOffTheirLaunch) {
    auto ds = loadCp(cpData("kineto/graphs"));
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    simdjson::dom::parser p;
    auto facts = cpExpected(p, "strobe_facts.json")["graphs_all"]["0"];
    auto r = criticalPath(ctx, CpRequest{});
    ASSERT_TRUE(r.ok()) << r.error().message;
    const std::string graphs = std::to_string(facts["graph_launched"].get_int64().value_unsafe()) +
                               " GPU activities launched through graph launches";
    EXPECT_TRUE(std::any_of(r->messages.begin(), r->messages.end(),
                            [&](const std::string& m) { return m.find(graphs) != std::string::npos; }))
        << graphs;
    const double span = static_cast<double>(facts["span_ns"].get_int64().value_unsafe());
    EXPECT_NEAR(static_cast<double>(r->lengthNs), span, 0.01 * span);
    EXPECT_GT(cpClass(r.value(), "kernel:gemm"), 0);
}

TEST(CriticalPath, MergedRanksShareOnePathThroughTheirCollectives) {
    auto ds = loadCp(cpData("kineto/multirank/cifar100_ddp_4rank_tracefusion_first_quarter.json.gz"));
    ASSERT_TRUE(ds);
    ASSERT_EQ(ds->ranks.size(), 4u);
    AnalysisContext ctx(ds);
    auto all = criticalPath(ctx, CpRequest{});
    ASSERT_TRUE(all.ok()) << all.error().message;
    EXPECT_TRUE(std::any_of(all->messages.begin(), all->messages.end(),
                            [](const std::string& m) { return m.find("collective(s) matched across ranks") != std::string::npos; }));
    // Edges only add constraints: the path of all ranks is at least as long as any one rank's.
    TimeNs longest = 0;
    size_t edges = 0;
    for (int rank = 0; rank < 4; ++rank) {
        CpRequest one;
        one.rank = ctx.rankNumber(static_cast<size_t>(rank));
        auto r = criticalPath(ctx, one);
        ASSERT_TRUE(r.ok());
        longest = std::max(longest, r->lengthNs);
        edges += r->edges;
    }
    EXPECT_GE(all->lengthNs, longest);
    // The ranks' graphs plus the cross-rank edges of the 7 collectives (strobe_facts.json: 7 per rank): each
    // kernel's end waits for the 3 other ranks' starts.
    EXPECT_EQ(all->edges, edges + 7 * 4 * 3);
}

TEST(CriticalPath, DlrmPathCrossesRanksAtTheLastArrival) {
    auto ds = loadCp(std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank");
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    simdjson::dom::parser p;
    std::set<int> last;  // per collective, the rank that started it last (Python, from the raw traces)
    for (auto r : cpExpected(p, "strobe_facts.json")["dlrm_last_arrivals"].get_array())
        last.insert(static_cast<int>(r.get_int64().value_unsafe()));
    CpRequest req;
    req.step = 10;
    auto r = criticalPath(ctx, req);
    ASSERT_TRUE(r.ok()) << r.error().message;
    size_t switches = 0;
    for (size_t i = 1; i < r->path.size(); ++i) {
        if (r->path[i].rank == r->path[i - 1].rank) continue;
        ++switches;
        // A rank's work leads to another's only through a collective that it joined last.
        EXPECT_NE(r->path[i - 1].name.find("nccl"), std::string::npos) << r->path[i - 1].name;
        EXPECT_EQ(r->path[i].boundBy, "communication");
        EXPECT_TRUE(last.count(r->path[i - 1].rank)) << r->path[i - 1].rank;
    }
    EXPECT_GE(switches, 1u);
}

TEST(CriticalPath, WhatIfRecomputesThePath) {
    auto ds = loadCp(cpData("kineto/hta/critical_path/alexnet"));
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    CpRequest req;
    req.annotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
    req.instance = 1;
    req.scales = {CpScale{"category:gemm", 1.0}};
    auto same = whatIf(ctx, req);
    ASSERT_TRUE(same.ok()) << same.error().message;
    EXPECT_EQ(same->scaled.lengthNs, same->base.lengthNs);
    req.scales = {CpScale{"op:cudaMalloc", 0.0}};  // the allocator's calls dominate this window
    auto noMalloc = whatIf(ctx, req);
    ASSERT_TRUE(noMalloc.ok());
    EXPECT_LT(noMalloc->scaled.lengthNs, noMalloc->base.lengthNs / 2);
    ASSERT_FALSE(noMalloc->ranking.empty());
    EXPECT_EQ(noMalloc->ranking.front().group, "op:cudaMalloc");
    for (size_t i = 1; i < noMalloc->ranking.size(); ++i)
        EXPECT_GE(noMalloc->ranking[i - 1].savedNs, noMalloc->ranking[i].savedNs);
    // A 2x speed-up never saves more than half of what the group spends on the path.
    for (const auto& g : noMalloc->ranking) EXPECT_GE(g.savedNs, 0) << g.group;
}

bool cpHasMessage(const CriticalPathResult& r, const std::string& text) {
    return std::any_of(r.messages.begin(), r.messages.end(),
                       [&](const std::string& m) { return m.find(text) != std::string::npos; });
}

// Two ranks that ran two collectives in opposite orders (seq 1 then 2 on rank 0, 2 then 1 on rank 1): stream order
// and "a collective ends after every rank arrived" close a cycle (rank 1's seq 1 start -> rank 0's seq 1 end ->
// rank 0's seq 2 start -> rank 1's seq 2 end -> rank 1's seq 1 start). Reported and broken, never a hang.
TEST(CriticalPath, CyclesAreReportedAndBroken) {
    const std::string name = "ncclKernel_AllReduce_RING_LL_Sum_float";
    auto args = [](int seq) { return "{\"Process Group Name\": \"0\", \"Seq\": " + std::to_string(seq) + "}"; };
    testutil::RankBuilder a(0), b(1);
    a.gpu(name, 100, 100, 7, kNone, EventKind::Kernel, 0, args(1));
    a.gpu(name, 300, 100, 7, kNone, EventKind::Kernel, 0, args(2));
    b.gpu(name, 100, 100, 7, kNone, EventKind::Kernel, 0, args(2));
    b.gpu(name, 300, 100, 7, kNone, EventKind::Kernel, 0, args(1));
    AnalysisContext ctx(testutil::makeDataset({a.build(), b.build()}));
    auto r = criticalPath(ctx, CpRequest{});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(cpHasMessage(r.value(), "closed a cycle")) << ::testing::PrintToString(r->messages);
    EXPECT_GT(r->lengthNs, 0);
    EXPECT_LE(r->lengthNs, 1000);
}

// A kernel that starts before the call that launched it (clocks out of step): the negative launch edge is reported
// and weighs 0.
TEST(CriticalPath, NegativeWeightsAreReportedAndZeroed) {
    testutil::RankBuilder a(0);
    a.runtime(1000, 1, 50);
    a.gpu("ampere_sgemm_128x64_nn", 900, 300, 7, 1);
    AnalysisContext ctx(testutil::makeDataset({a.build()}));
    auto r = criticalPath(ctx, CpRequest{});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(cpHasMessage(r.value(), "negative weight")) << ::testing::PrintToString(r->messages);
    EXPECT_EQ(cpClass(r.value(), "launch_latency"), 0);
}

TEST(CriticalPath, BadScalesAndWindowsAreErrors) {
    EXPECT_FALSE(parseScale("gemm=0.5").ok());
    EXPECT_FALSE(parseScale("category:gemm").ok());
    EXPECT_FALSE(parseScale("category:nosuch=0.5").ok());
    EXPECT_FALSE(parseScale("kernel:([=0.5").ok());
    EXPECT_FALSE(parseScale("comm=-1").ok());
    EXPECT_TRUE(parseScale("kernel:^nccl.*=0.5").ok());
    auto ds = loadCp(cpData("kineto/hta/amd_trace"));
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    CpRequest req;
    req.step = 99;  // absent: an empty result that says why, as every analysis does
    auto r = criticalPath(ctx, req);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->classes.empty());
    EXPECT_TRUE(cpHasMessage(r.value(), "no ProfilerStep#99")) << ::testing::PrintToString(r->messages);
    req.step = -1;
    req.rank = 5;
    EXPECT_FALSE(criticalPath(ctx, req).ok());
}

}  // namespace
}  // namespace strobe::core
