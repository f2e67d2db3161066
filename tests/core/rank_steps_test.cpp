// The rank × step table (core/analysis/rank_steps.h, issue 29) on real traces against a Python computation with
// the json module only (tests/data/expected/rank_steps/rank_steps.py; its header has the commands): the bundled
// 8-rank DLRM sample (one step, collectives across ranks) and a one-rank ResNet-50 trace of six steps.
#include "core/analysis/rank_steps.h"

#include <map>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "core/analysis/columns.h"
#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

struct Expected {
    int64_t dur = 0;
    std::optional<int64_t> idle, wait, caused;
};

std::optional<int64_t> intOrNull(simdjson::dom::element e) {
    if (e.is_null()) return std::nullopt;
    return int64_t(e.get_int64());
}

// (rank, step) → what rank_steps.py wrote.
std::map<std::pair<int64_t, int64_t>, Expected> expected(const std::string& name) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/rank_steps/" + name);
    std::map<std::pair<int64_t, int64_t>, Expected> out;
    for (auto [file, v] : doc.get_object()) {
        int64_t rank = v["rank"].get_int64();
        if (rank < 0) rank = 0;  // a trace without distributedInfo is rank 0
        for (auto [step, s] : v["steps"].get_object()) {
            Expected e;
            e.dur = s["dur_ns"].get_int64();
            e.idle = intOrNull(s["idle_ns"]);
            if (simdjson::dom::element w; s["wait_ns"].get(w) == simdjson::SUCCESS) e.wait = intOrNull(w);
            if (simdjson::dom::element c; s["caused_wait_ns"].get(c) == simdjson::SUCCESS) e.caused = intOrNull(c);
            out[{rank, std::stoll(std::string(step))}] = e;
        }
    }
    return out;
}

std::optional<int64_t> cellInt(const Table& t, size_t row, ColumnKey c) {
    const Cell& v = t.at(row, c);
    if (const auto* i = std::get_if<int64_t>(&v)) return *i;
    return std::nullopt;
}

void checkAgainstPython(const std::vector<std::string>& paths, const std::string& expectedName, size_t rows,
                        bool waits) {
    RunLoadOptions options;
    options.useCache = false;
    auto run = loadRun(paths, options);
    ASSERT_TRUE(run.ok()) << run.error().toString();
    auto ctx = AnalysisContext::of(*run);
    auto t = rankStepsAnalysis(*ctx, WindowSpec{});
    ASSERT_TRUE(t.ok()) << t.error().toString();
    const auto want = expected(expectedName);
    ASSERT_EQ(t->rows.size(), rows);
    ASSERT_EQ(want.size(), rows);
    for (size_t r = 0; r < t->rows.size(); ++r) {
        const auto key = std::pair(*cellInt(*t, r, col::kRank), *cellInt(*t, r, col::kStep));
        SCOPED_TRACE("rank " + std::to_string(key.first) + " step " + std::to_string(key.second));
        ASSERT_TRUE(want.count(key));
        const Expected& e = want.at(key);
        EXPECT_EQ(cellInt(*t, r, col::kDurNs), e.dur);
        EXPECT_EQ(cellInt(*t, r, col::kIdleNs), e.idle);
        if (waits) {
            EXPECT_EQ(cellInt(*t, r, col::kWaitNs), e.wait);
            EXPECT_EQ(cellInt(*t, r, col::kCausedWaitNs), e.caused);
        } else {
            EXPECT_EQ(cellInt(*t, r, col::kWaitNs), std::nullopt);  // one rank: nothing to match, null, never 0
        }
    }
}

TEST(RankSteps, DlrmSampleEqualsPython) {
    checkAgainstPython({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}, "dlrm_sample.json", 8, true);
}

TEST(RankSteps, ResNetStepsEqualPython) {
    checkAgainstPython({std::string(STROBE_TEST_DATA_DIR) +
                        "/kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"},
                       "resnet50_num_workers_0.json", 6, false);
}

TEST(RankSteps, AStepListWindowLimitsTheSteps) {
    RunLoadOptions options;
    options.useCache = false;
    auto run = loadRun({std::string(STROBE_TEST_DATA_DIR) +
                        "/kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"},
                       options);
    ASSERT_TRUE(run.ok());
    auto ctx = AnalysisContext::of(*run);
    auto t = rankStepsAnalysis(*ctx, WindowSpec::stepList({7, 9}));
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(t->rows.size(), 2u);
    EXPECT_EQ(cellInt(*t, 0, col::kStep), 7);
    EXPECT_EQ(cellInt(*t, 1, col::kStep), 9);
    auto none = rankStepsAnalysis(*ctx, WindowSpec::stepList({99}));
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->rows.empty());
    ASSERT_FALSE(none->messages.empty());
    EXPECT_NE(none->messages.front().find("no rank has the steps 99"), std::string::npos);
}

// By hand: median 10, deviations {0,0,0,1,1,90} → MAD 0.5, scale max(0.741, 0.5) = 0.741; 100 is 121 scales
// above, 11 is 1.35 (kept); below the median never counts (one-sided); fewer than three values: none.
TEST(RankSteps, HighOutliersIsTheWindowRuleOneSided) {
    EXPECT_EQ(highOutliers({10, 10, 11, 9, 100, 10}), std::vector<size_t>{4});
    EXPECT_EQ(highOutliers({10, 10, 10, 10, 0.1}), std::vector<size_t>{});
    EXPECT_EQ(highOutliers({1, 100}), std::vector<size_t>{});
    // The 5 % floor: identical values but one 4 % higher is not an outlier (MAD 0 would make any difference one).
    EXPECT_EQ(highOutliers({100, 100, 100, 104}), std::vector<size_t>{});
}

}  // namespace
}  // namespace strobe::core
