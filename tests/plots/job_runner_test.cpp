#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "core/engine/job_runner.h"

using namespace strobe::core;

namespace {

// Busy until cancelled or `ms` elapsed; returns whether it ran to the end.
bool work(const JobContext& ctx, int ms) {
    for (int i = 0; i < ms; ++i) {
        if (ctx.cancel.cancelled()) return false;
        ctx.progress({"step", "", double(i) / ms, uint64_t(i), uint64_t(ms)});
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace

TEST(JobRunner, NewerSubmitSupersedesOlderInSameSlot) {
    JobRunner runner(1);
    std::mutex m;
    std::vector<int> delivered;
    std::vector<std::pair<uint64_t, JobEnd>> ends;
    JobObserver obs;
    obs.onFinished = [&](const std::string&, uint64_t gen, JobEnd e) {
        std::lock_guard lock(m);
        ends.emplace_back(gen, e);
    };
    runner.setObserver(obs);
    std::vector<uint64_t> gens;
    for (int i = 0; i < 4; ++i)
        gens.push_back(runner.submit("slot", "job", [&, i](const JobContext& ctx) -> std::function<void()> {
            work(ctx, 50);
            return [&, i] {
                std::lock_guard lock(m);
                delivered.push_back(i);
            };
        }));
    runner.waitIdle();
    EXPECT_EQ(delivered, std::vector<int>{3});
    ASSERT_EQ(ends.size(), 4u);
    int completed = 0;
    for (auto [gen, e] : ends) {
        if (e == JobEnd::Completed) {
            ++completed;
            EXPECT_EQ(gen, gens.back());
        } else {
            EXPECT_EQ(e, JobEnd::Superseded);
        }
    }
    EXPECT_EQ(completed, 1);
    EXPECT_TRUE(gens[0] < gens[1] && gens[1] < gens[2] && gens[2] < gens[3]);
}

TEST(JobRunner, SlotsRunIndependently) {
    JobRunner runner(2);
    std::atomic<int> delivered{0};
    for (const char* s : {"a", "b"})
        runner.submit(s, "job", [&](const JobContext& ctx) -> std::function<void()> {
            work(ctx, 10);
            return [&] { ++delivered; };
        });
    runner.waitIdle();
    EXPECT_EQ(delivered.load(), 2);
}

TEST(JobRunner, CancelStopsRunningJobAndDeliversNothing) {
    JobRunner runner(1);
    std::atomic<bool> started{false}, finished{false}, delivered{false};
    runner.submit("s", "long", [&](const JobContext& ctx) -> std::function<void()> {
        started = true;
        finished = work(ctx, 5000);
        return [&] { delivered = true; };
    });
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(runner.busy("s"));
    runner.cancel("s");
    runner.waitIdle();
    EXPECT_FALSE(finished.load());
    EXPECT_FALSE(delivered.load());
    EXPECT_FALSE(runner.busy("s"));
}

TEST(JobRunner, ProgressIsThrottled) {
    JobRunner runner(1);
    std::atomic<int> reports{0};
    JobObserver obs;
    obs.onProgress = [&](const std::string&, uint64_t, const ProgressInfo&) { ++reports; };
    runner.setObserver(obs);
    runner.submit("s", "chatty", [](const JobContext& ctx) -> std::function<void()> {
        // 100000 reports in a tight loop (well under a second): throttled to a handful.
        for (int i = 0; i < 100000; ++i) ctx.progress({"x", "", 0.5, uint64_t(i), 100000});
        return {};
    });
    runner.waitIdle();
    EXPECT_GE(reports.load(), 1);
    EXPECT_LT(reports.load(), 1000);
}

TEST(JobRunner, ThrowingJobDoesNotKillThePool) {
    JobRunner runner(1);
    std::atomic<bool> second{false};
    runner.submit("a", "throws", [](const JobContext&) -> std::function<void()> { throw std::runtime_error("boom"); });
    runner.submit("b", "fine", [&](const JobContext&) -> std::function<void()> { return [&] { second = true; }; });
    runner.waitIdle();
    EXPECT_TRUE(second.load());
}

TEST(JobRunner, DestructorCancelsRunningWork) {
    std::atomic<bool> finished{true};
    std::atomic<bool> started{false};
    {
        JobRunner runner(1);
        runner.submit("s", "long", [&](const JobContext& ctx) -> std::function<void()> {
            started = true;
            finished = work(ctx, 10000);
            return {};
        });
        while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_FALSE(finished.load());
}
