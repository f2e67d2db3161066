// The one load job (issue 19): expand once, reserve memory once through the runner's gate, load, summarise;
// a cancelled job reports "cancelled"; several runs load through the runner side by side within its limit.

#include "core/engine/load_job.h"

#include <optional>

#include "core/engine/memory_budget.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_paths.h"

namespace strobe::core {
namespace {

namespace fs = std::filesystem;

std::string dlrmSample() { return std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"; }

RunLoadOptions noCacheJob() {
    RunLoadOptions o;
    o.useCache = false;
    return o;
}

// The bundled 8-rank sample through the job: 8 sources expanded (8 worker*.pt.trace.json files: `ls
// resources/sample/param-dlrm-8rank/*.json | wc -l`), one summary per rank, progress passed to the caller.
TEST(LoadJob, LoadsExpandsAndSummarisesARun) {
    JobRunner runner(2);
    std::vector<std::string> expanded;
    std::atomic<int> progressCalls{0};
    LoadJobEvents events;
    events.onExpanded = [&](const std::vector<std::string>& files) { expanded = files; };
    events.onProgress = [&](const ProgressInfo&) { ++progressCalls; };
    std::optional<Result<LoadJobResult>> result;
    std::mutex m;
    const uint64_t gen = submitLoadJob(runner, "load:test", "Load dlrm", {dlrmSample()}, noCacheJob(),
                                       [&](uint64_t, Result<LoadJobResult> r) {
                                           std::lock_guard lock(m);
                                           result = std::move(r);
                                       },
                                       events);
    ASSERT_GT(gen, 0u);
    runner.waitIdle();
    std::lock_guard lock(m);
    ASSERT_TRUE(result.has_value());
    ASSERT_TRUE(result->ok()) << result->error().toString();
    EXPECT_EQ(expanded.size(), 8u);
    EXPECT_EQ((*result)->files, expanded);
    ASSERT_EQ((*result)->dataset->ranks.size(), 8u);
    EXPECT_EQ((*result)->summaries.size(), 8u);
    EXPECT_GT(progressCalls.load(), 0);
    EXPECT_EQ(runner.memory().inUse(), 0u);  // the reservation was given back
}

// A job cancelled while it loads ends with "cancelled" (and nothing else), and its memory is given back.
TEST(LoadJob, ACancelledLoadReturnsCancelled) {
    JobRunner runner(1);
    runner.setMemoryLimit(uint64_t(1) << 40);
    std::atomic<bool> loading{false};
    LoadFunction slow = [&](const std::vector<std::string>&, const RunLoadOptions&, const RunCallbacks& cb)
        -> Result<DatasetPtr> {
        loading = true;
        while (!cb.cancel.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return Error("cancelled");
    };
    std::mutex m;
    std::vector<std::string> ends;
    submitLoadJob(runner, "load:slow", "Load slow", {dlrmSample()}, noCacheJob(),
                  [&](uint64_t, Result<LoadJobResult> r) {
                      std::lock_guard lock(m);
                      ends.push_back(r ? std::string("loaded") : r.error().message);
                  },
                  {}, slow);
    for (int i = 0; i < 5000 && !loading; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(loading);
    EXPECT_GT(runner.memory().inUse(), 0u);  // reserved before loading
    runner.cancel("load:slow");
    runner.waitIdle();
    std::lock_guard lock(m);
    EXPECT_EQ(ends, std::vector<std::string>{"cancelled"});
    EXPECT_EQ(runner.memory().inUse(), 0u);
}

// N runs through the runner (what every strobe-cli command does): each is one job, seen by the runner's observer,
// and with a limit that fits one run at a time they never hold more than that together. The two ResNet-50 runs
// have one trace each (`ls tests/data/kineto/kineto-configs/*/`).
TEST(LoadJob, ManyRunsLoadThroughTheRunnerWithinItsLimit) {
    const std::string base = std::string(STROBE_TEST_DATA_DIR) + "/kineto/kineto-configs/";
    const std::vector<std::vector<std::string>> runs{{base + "resnet50_num_workers_0"},
                                                     {base + "resnet50_num_workers_4"},
                                                     {base + "resnet50_num_workers_0"}};
    JobRunner runner(3);
    uint64_t largest = 0;
    for (const auto& r : runs) {
        auto files = expandRunPaths(r);
        ASSERT_TRUE(files.ok());
        largest = std::max(largest, MemoryBudget::estimateRun(*files, 1));
    }
    runner.setMemoryLimit(largest);  // one run at a time
    std::atomic<int> started{0}, finished{0};
    std::atomic<uint64_t> peak{0};
    JobObserver obs;
    obs.onStarted = [&](const std::string&, uint64_t, const std::string&) { ++started; };
    obs.onProgress = [&](const std::string&, uint64_t, const ProgressInfo&) {
        uint64_t now = runner.memory().inUse(), seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {}
    };
    obs.onFinished = [&](const std::string&, uint64_t, JobEnd) { ++finished; };
    runner.setObserver(obs);
    std::vector<size_t> order;
    auto results = loadRunsThroughJobs(runner, runs, noCacheJob(), [&](size_t i) { order.push_back(i); });
    // A job's result is handed over before the runner reports it finished and releases its memory: wait for that.
    runner.waitIdle();
    ASSERT_EQ(results.size(), 3u);
    for (const auto& r : results) {
        ASSERT_TRUE(r.ok()) << r.error().toString();
        EXPECT_EQ(r->dataset->ranks.size(), 1u);
    }
    EXPECT_EQ(started.load(), 3);
    EXPECT_EQ(finished.load(), 3);
    EXPECT_EQ(order.size(), 3u);
    EXPECT_LE(peak.load(), largest);
    EXPECT_EQ(runner.memory().inUse(), 0u);
}

}  // namespace
}  // namespace strobe::core
