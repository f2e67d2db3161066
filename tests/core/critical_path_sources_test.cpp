// The critical path on rocpd, RPD and nsys SQLite sources (issue 26: "where the links exist"), against independent
// facts read with Python's sqlite3 (tests/data/expected/critical_path/sqlite_facts.py): every GPU activity on the
// path is one of the DB's, every launch edge on it runs from the call the DB's correlation names to that activity,
// the graph holds the DB's API calls and activities, and a fully linked trace's path lasts its wall span. A source
// without API calls (a rocprofv3 kernel trace alone) says that it has no launch links.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "core/analysis/context.h"
#include "core/analysis/critical_path.h"
#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

DatasetPtr loadSource(const std::string& path) {
    RunLoadOptions options;
    options.useCache = false;
    auto loaded = loadRun({path}, options);
    EXPECT_TRUE(static_cast<bool>(loaded)) << path << ": " << (loaded ? "" : loaded.error().message);
    return loaded ? loaded.value() : nullptr;
}

class CriticalPathSqlite : public ::testing::TestWithParam<const char*> {};

TEST_P(CriticalPathSqlite, LaunchEdgesFollowTheDbsCorrelation) {
    const std::string file = GetParam();
    simdjson::dom::parser parser;
    simdjson::dom::element facts;
    ASSERT_FALSE(parser.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/critical_path/sqlite_facts.json").get(facts));
    const auto f = facts[file];
    ASSERT_FALSE(f.error()) << file;
    // start -> (end, launch start or -1) of the DB's GPU activities (several may share a start).
    std::multimap<int64_t, std::pair<int64_t, int64_t>> acts;
    for (auto a : f["activities"].get_array()) {
        const auto launch = a.at(2);
        acts.emplace(a.at(0).get_int64().value_unsafe(),
                     std::make_pair(a.at(1).get_int64().value_unsafe(),
                                    launch.is_null() ? int64_t{-1} : launch.get_int64().value_unsafe()));
    }
    auto ds = loadSource(std::string(STROBE_TEST_DATA_DIR) + "/sqlite/" + file);
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    auto r = criticalPath(ctx, CpRequest{});
    ASSERT_TRUE(r.ok()) << r.error().message;
    const size_t apiCalls = static_cast<size_t>(f["api_calls"].get_int64().value_unsafe());
    EXPECT_EQ(r->nodes, 2 * (apiCalls + acts.size())) << file;  // two nodes per event
    size_t gpuOnPath = 0, launches = 0;
    for (const auto& s : r->path) {
        if (s.kind == "kernel" || s.kind == "gpu_memcpy" || s.kind == "gpu_memset") {
            ++gpuOnPath;
            // A GPU span segment: within one of the DB's activities that starts where the segment does or before.
            bool found = false;
            for (auto it = acts.begin(); it != acts.upper_bound(s.start) && !found; ++it)
                found = it->second.first >= s.end;
            EXPECT_TRUE(found) << file << ": " << s.name << " [" << s.start << ", " << s.end << "]";
        }
        if (s.boundBy == "launch_latency") {
            ++launches;
            // From the launching call's start to the activity's start: the call the DB's correlation names.
            auto [lo, hi] = acts.equal_range(s.end);
            bool found = false;
            for (auto it = lo; it != hi; ++it) found = found || it->second.second == s.start;
            EXPECT_TRUE(found) << file << ": launch of " << s.name << " at " << s.start << " -> " << s.end;
        }
    }
    // The links bring GPU work onto the path, unless the GPU was nearly idle (nsys_fuser_h200: 21 activities in a
    // 648 ms host trace) and the host's own time is the path.
    int64_t busy = 0;
    for (const auto& [start, rest] : acts) busy += rest.first - start;
    if (static_cast<double>(busy) >= 0.01 * static_cast<double>(f["span_ns"].get_int64().value_unsafe())) {
        EXPECT_GE(gpuOnPath, 1u) << file;
        EXPECT_GE(launches, 1u) << file;
    }
    const auto linked = f["linked"].get_int64().value_unsafe();
    EXPECT_EQ(linked, static_cast<int64_t>(acts.size())) << file;
    // Fully linked: the path runs from the first event to the last, its length the wall span, the returns of
    // blocking calls after what they waited for included (a path that reaches a call's end through the GPU carries
    // the rest of the call).
    EXPECT_EQ(r->lengthNs, f["span_ns"].get_int64().value_unsafe()) << file;
    for (const auto& m : r->messages) EXPECT_EQ(m.find("no launch"), std::string::npos) << m;
}

// After a blocking copy or synchronize, the call's return after the GPU work it waited for is on the path as
// sync_wait: the sum over the blocking calls that Python finds from the DB's own links (sqlite_facts.py,
// blocking_return_ns; given where each call waits for one known activity).
TEST_P(CriticalPathSqlite, BlockingCallsReturnOnThePath) {
    const std::string file = GetParam();
    simdjson::dom::parser parser;
    simdjson::dom::element facts;
    ASSERT_FALSE(parser.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/critical_path/sqlite_facts.json").get(facts));
    int64_t want = 0;
    if (facts[file]["blocking_return_ns"].get(want)) GTEST_SKIP() << file << ": no blocking_return_ns fact";
    auto ds = loadSource(std::string(STROBE_TEST_DATA_DIR) + "/sqlite/" + file);
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    auto r = criticalPath(ctx, CpRequest{});
    ASSERT_TRUE(r.ok()) << r.error().message;
    TimeNs syncWait = -1;
    for (const auto& [cls, ns] : r->classes)
        if (cls == "sync_wait") syncWait = ns;
    EXPECT_GT(want, 0) << file;
    EXPECT_EQ(syncWait, want) << file;
}

INSTANTIATE_TEST_SUITE_P(Sources, CriticalPathSqlite,
                         ::testing::Values("rocpd_doc_sample.db", "rpd_matmul.rpd", "nsys_fuser_h200.sqlite",
                                           "nsys_cloverleaf_a100.sqlite"),
                         [](const auto& info) {
                             std::string n = info.param;
                             std::replace_if(n.begin(), n.end(), [](char c) { return !std::isalnum(uint8_t(c)); }, '_');
                             return n;
                         });

TEST(CriticalPathSources, AKernelTraceWithoutApiCallsSaysItHasNoLaunchLinks) {
    // The kernel trace alone (in its directory the loader would take the API traces beside it too).
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(::testing::TempDir()) / "strobe-cp-kernels-only";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(fs::path(STROBE_TEST_DATA_DIR) / "rocprof/docs-2025/kernel_trace.csv", dir / "kernel_trace.csv");
    auto ds = loadSource((dir / "kernel_trace.csv").string());
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    auto r = criticalPath(ctx, CpRequest{});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(std::any_of(r->messages.begin(), r->messages.end(), [](const std::string& m) {
        return m.find("no runtime or driver API calls: no launch -> GPU edge") != std::string::npos;
    })) << ::testing::PrintToString(r->messages);
    // The kernels are still on a path (stream order): no launch edge on it.
    for (const auto& s : r->path) EXPECT_NE(s.boundBy, "launch_latency");
    EXPECT_GT(r->lengthNs, 0);
}

}  // namespace
}  // namespace strobe::core
