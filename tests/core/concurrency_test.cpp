// Concurrency: loads, cancels, superseded jobs and runs dropped while their jobs are in flight. Built to run under
// ThreadSanitizer (ctest --preset tsan -R '[Cc]oncurren') and ASan: the assertions here check the outcomes (a full
// dataset or "cancelled", never a partial one; only the newest job delivers; no run outlives its last user), the
// sanitizers check the races, use-after-free and leaks. Every wait has a timeout so a hang fails instead of blocking.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/job_runner.h"
#include "core/engine/run_loader.h"
#include "tests/core/sample_run_suite.h"
#include "tests/with_timeout.h"

using namespace strobe::core;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using strobe::testing::withTimeout;

namespace {

using strobe::core::testing::sampleRun;

// Column sizes per rank: a load that is not partial has them all equal to a reference load's.
std::vector<size_t> shapeOf(const Dataset& ds) {
    std::vector<size_t> s;
    for (const auto& r : ds.ranks) {
        s.push_back(static_cast<size_t>(r->rank));
        s.push_back(r->slices.size());
        s.push_back(r->gpu.size());
        s.push_back(r->flows.size());
    }
    return s;
}


int64_t gpuTimeOf(const Dataset& ds, const CancelToken& cancel) {
    int64_t sum = 0;
    for (const auto& r : ds.ranks) {
        for (size_t i = 0; i < r->gpu.size(); ++i) {
            if ((i & 1023) == 0 && cancel.cancelled()) return -1;
            sum += r->gpu.dur[i];
        }
    }
    return sum;
}

class Concurrency : public strobe::core::testing::SampleRunSuite {
protected:
    static void SetUpTestSuite() { loadSample(/*useCache=*/false); }
};

}  // namespace

// Cancel a load of 8 ranks from another thread after a random short delay, many times, with and without the load
// cache: each result is the full dataset or Error "cancelled".
TEST_F(Concurrency, CancelLoadAtRandomStages) {
    const std::vector<size_t> full = shapeOf(**s_sample);
    ASSERT_EQ((*s_sample)->ranks.size(), 8u);
    // Spread the cancels over the whole load: delays up to 1.5× how long one uncancelled load takes here (measured,
    // not asserted), so every stage (expand, parse, merge, cache write/read, run diagnostics) gets hit.
    RunLoadOptions timed;
    timed.threads = 2;
    timed.useCache = false;
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(loadRun({sampleRun()}, timed).ok());
    const auto loadUs = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
    std::mt19937 rng(12345);  // fixed seed: the delays are random in spread, repeatable per run
    std::uniform_int_distribution<long> delayUs(0, std::max<long>(1000, static_cast<long>(loadUs.count()) * 3 / 2));
    constexpr int kIterations = 24;
    int completed = 0, cancelled = 0;
    for (int it = 0; it < kIterations; ++it) {
        RunLoadOptions o;
        o.threads = 2;
        o.cacheDir = s_cache->path();
        o.useCache = (it % 3) != 0;
        RunCallbacks cb;
        std::atomic<int> progressCalls{0};
        cb.onProgress = [&](const ProgressInfo&) { progressCalls.fetch_add(1); };
        const long delay = delayUs(rng);
        std::thread canceller([token = cb.cancel, delay] {
            std::this_thread::sleep_for(std::chrono::microseconds(delay));
            token.cancel();
        });
        auto r = withTimeout([&] { return loadRun({sampleRun()}, o, cb); }, 300s);
        canceller.join();
        if (r.ok()) {
            ++completed;
            EXPECT_EQ(shapeOf(*r.value()), full) << "iteration " << it << ": a partial dataset";
        } else {
            ++cancelled;
            EXPECT_EQ(r.error().message, "cancelled") << r.error().toString();
        }
    }
    EXPECT_EQ(completed + cancelled, kIterations);
    std::printf("[concurrency] %d loads: %d completed, %d cancelled\n", kIterations, completed, cancelled);
}

// Load 8 ranks in a JobRunner slot while "prepare" jobs over an already loaded run are submitted and superseded in
// another slot, and the load is cancelled and restarted: only the newest job of each slot delivers.
TEST_F(Concurrency, LoadWhilePreparingAndCancelling) {
    const DatasetPtr loaded = *s_sample;
    const int64_t expected = gpuTimeOf(*loaded, CancelToken());
    JobRunner runner(2);
    std::atomic<int> loadsDelivered{0}, preparesDelivered{0};
    std::atomic<int64_t> lastPrepareValue{-1};
    std::mutex resultMutex;
    DatasetPtr loadResult;
    for (int round = 0; round < 3; ++round) {
        runner.submit("load", "load run", [&](const JobContext& ctx) -> std::function<void()> {
            RunLoadOptions o;
            o.threads = 2;
            o.cacheDir = s_cache->path();
            o.useCache = false;
            RunCallbacks cb;
            cb.cancel = ctx.cancel;
            cb.onProgress = ctx.progress;
            auto r = loadRun({sampleRun()}, o, cb);
            if (!r.ok()) {
                EXPECT_EQ(r.error().message, "cancelled") << r.error().toString();
                return {};
            }
            DatasetPtr ds = r.value();
            return [&, ds] {
                std::lock_guard lock(resultMutex);
                loadResult = ds;
                loadsDelivered.fetch_add(1);
            };
        });
        for (int k = 0; k < 20; ++k) {
            runner.submit("plot", "prepare", [&, loaded](const JobContext& ctx) -> std::function<void()> {
                const int64_t v = gpuTimeOf(*loaded, ctx.cancel);
                if (v < 0) return {};
                const uint64_t gen = ctx.generation;
                return [&, v, gen] {
                    preparesDelivered.fetch_add(1);
                    EXPECT_GT(gen, 0u);
                    lastPrepareValue.store(v);
                };
            });
            std::this_thread::sleep_for(1ms);
        }
        if (round < 2) runner.cancel("load");  // the first two loads are cancelled wherever they are
    }
    withTimeout([&] { runner.waitIdle(); return 0; }, 300s);
    // The last load is never cancelled, so it delivers; a cancelled one delivers only if it had already finished
    // before its cancel came.
    EXPECT_GE(loadsDelivered.load(), 1);
    EXPECT_LE(loadsDelivered.load(), 3);
    {
        std::lock_guard lock(resultMutex);
        ASSERT_TRUE(loadResult);
        EXPECT_EQ(shapeOf(*loadResult), shapeOf(*loaded));
    }
    EXPECT_GE(preparesDelivered.load(), 1);
    EXPECT_EQ(lastPrepareValue.load(), expected);
    EXPECT_FALSE(runner.busy("load"));
}

// Supersede a prepare 500 times in one slot: the newest generation delivers, no older one after it.
TEST_F(Concurrency, SupersedePrepareRepeatedly) {
    const DatasetPtr ds = *s_sample;
    const int64_t expected = gpuTimeOf(*ds, CancelToken());
    JobRunner runner(2);
    std::atomic<uint64_t> delivered{0};
    std::atomic<int> deliveries{0};
    std::atomic<bool> outOfOrder{false};
    uint64_t last = 0;
    for (int k = 0; k < 500; ++k) {
        last = runner.submit("plot-view-1", "prepare", [&, ds](const JobContext& ctx) -> std::function<void()> {
            const int64_t v = gpuTimeOf(*ds, ctx.cancel);
            if (v < 0) return {};
            EXPECT_EQ(v, expected);
            const uint64_t gen = ctx.generation;
            return [&, gen] {
                if (gen < delivered.load()) outOfOrder = true;
                delivered.store(gen);
                deliveries.fetch_add(1);
            };
        });
    }
    withTimeout([&] { runner.waitIdle(); return 0; }, 300s);
    EXPECT_EQ(delivered.load(), last);
    EXPECT_FALSE(outOfOrder.load());
    EXPECT_LT(deliveries.load(), 500);  // superseded ones were dropped
}

// Close a run (drop the last user's shared_ptr) while jobs that hold it are in flight: the jobs finish on their
// own reference, and once they are done the run is freed (no leak, no use-after-free).
TEST_F(Concurrency, CloseRunWhileJobsInFlight) {
    RunLoadOptions o;
    o.threads = 2;
    o.cacheDir = s_cache->path();
    auto r = loadRun({sampleRun()}, o);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    DatasetPtr run = r.value();
    std::weak_ptr<const Dataset> watch = run;
    const int64_t expected = gpuTimeOf(*run, CancelToken());
    JobRunner runner(2);
    std::atomic<int> good{0};
    for (int k = 0; k < 8; ++k) {
        runner.submit("view-" + std::to_string(k), "prepare", [run, &good, expected](const JobContext& ctx) -> std::function<void()> {
            const int64_t v = gpuTimeOf(*run, ctx.cancel);
            if (v >= 0 && v == expected) good.fetch_add(1);
            return {};
        });
    }
    run.reset();  // the user closes the run
    r = Error("closed");
    withTimeout([&] { runner.waitIdle(); return 0; }, 300s);
    EXPECT_EQ(good.load(), 8);
    EXPECT_TRUE(watch.expired()) << "the closed run is still held after its jobs ended";

    // And when the jobs are cancelled instead of finishing.
    auto again = loadRun({sampleRun()}, o);
    ASSERT_TRUE(again.ok());
    DatasetPtr run2 = again.value();
    std::weak_ptr<const Dataset> watch2 = run2;
    again = Error("closed");
    for (int k = 0; k < 8; ++k)
        runner.submit("view-" + std::to_string(k), "prepare", [run2](const JobContext& ctx) -> std::function<void()> {
            (void)gpuTimeOf(*run2, ctx.cancel);
            return {};
        });
    run2.reset();
    runner.cancelAll();
    withTimeout([&] { runner.waitIdle(); return 0; }, 300s);
    EXPECT_TRUE(watch2.expired());
}
