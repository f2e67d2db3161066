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

namespace {

// Waits (polling, at most ~20 s) until `done()`; false on timeout. Not a timing assertion: only a hang guard.
template <class F>
bool eventually(F done) {
    for (int i = 0; i < 20000; ++i) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return done();
}

}  // namespace

// Loads are keyed by their file set: loads of two runs are two slots and run at the same time (each waits until
// it has seen the other one running).
TEST(JobRunner, KeyedLoadsRunSideBySide) {
    JobRunner runner(2);
    std::atomic<int> running{0};
    std::atomic<int> sawBoth{0};
    for (const char* slot : {"load:1:/data/a", "load:2:/data/b"})
        runner.submit(slot, "load", [&](const JobContext& ctx) -> std::function<void()> {
            ++running;
            if (eventually([&] { return running.load() == 2 || ctx.cancel.cancelled(); }) && running.load() == 2)
                ++sawBoth;
            return {};
        });
    runner.waitIdle();
    EXPECT_EQ(sawBoth.load(), 2);
}

// Within the memory limit: a load whose reservation does not fit beside the one running waits until that one
// releases its memory; then it runs.
TEST(JobRunner, LoadsWaitForRoomInTheMemoryLimit) {
    JobRunner runner(2);
    runner.setMemoryLimit(100);
    std::atomic<bool> aHolds{false}, releaseA{false}, bAsking{false}, bGot{false}, bGotWhileAHeld{false};
    runner.submit("load:a", "load a", [&](const JobContext& ctx) -> std::function<void()> {
        MemoryReservation r = ctx.reserveMemory(80);
        EXPECT_TRUE(r.held());
        aHolds = true;
        eventually([&] { return releaseA.load(); });
        aHolds = false;
        return {};
    });
    ASSERT_TRUE(eventually([&] { return aHolds.load(); }));
    runner.submit("load:b", "load b", [&](const JobContext& ctx) -> std::function<void()> {
        bAsking = true;
        MemoryReservation r = ctx.reserveMemory(50);  // 80 + 50 > 100: waits for a's release
        bGotWhileAHeld = aHolds.load();
        bGot = r.held();
        return {};
    });
    ASSERT_TRUE(eventually([&] { return bAsking.load(); }));
    EXPECT_EQ(runner.memory().inUse(), 80u);
    EXPECT_FALSE(bGot.load());  // cannot have it: a still holds 80 of 100
    releaseA = true;
    runner.waitIdle();
    EXPECT_TRUE(bGot.load());
    EXPECT_FALSE(bGotWhileAHeld.load());
    EXPECT_EQ(runner.memory().inUse(), 0u);
}

// One reservation larger than the whole limit still runs when nothing else holds memory (the loader's own
// check refuses it with a message); a cancelled wait returns nothing.
TEST(JobRunner, MemoryGateAdmitsALoneLargeJobAndStopsWaitingWhenCancelled) {
    auto gate = std::make_shared<MemoryGate>(100);
    CancelToken never;
    {
        MemoryReservation big = gate->acquire(500, never);
        EXPECT_TRUE(big.held());
        EXPECT_EQ(gate->inUse(), 500u);
        CancelToken cancelled;
        cancelled.cancel();
        MemoryReservation other = gate->acquire(10, cancelled);
        EXPECT_FALSE(other.held());
        EXPECT_EQ(gate->inUse(), 500u);
    }
    EXPECT_EQ(gate->inUse(), 0u);
}

// A collector run is never superseded: a second submit to its slot is refused while it runs, and it goes on to
// deliver its result.
TEST(JobRunner, ExclusiveSlotRefusesNewerSubmitsAndDelivers) {
    JobRunner runner(2);
    std::atomic<bool> started{false}, finish{false}, delivered{false}, secondRan{false};
    JobOptions exclusive;
    exclusive.policy = SlotPolicy::Exclusive;
    const uint64_t gen = runner.submit("collect:rocprof", "collect", [&](const JobContext& ctx) -> std::function<void()> {
        started = true;
        eventually([&] { return finish.load() || ctx.cancel.cancelled(); });
        if (ctx.cancel.cancelled()) return {};
        return [&] { delivered = true; };
    }, exclusive);
    ASSERT_GT(gen, 0u);
    ASSERT_TRUE(eventually([&] { return started.load(); }));
    for (auto policy : {SlotPolicy::Supersede, SlotPolicy::Exclusive}) {
        JobOptions o;
        o.policy = policy;
        EXPECT_EQ(runner.submit("collect:rocprof", "again", [&](const JobContext&) -> std::function<void()> {
            secondRan = true;
            return {};
        }, o), 0u);
    }
    EXPECT_TRUE(runner.isCurrent("collect:rocprof", gen));  // not superseded, not cancelled
    finish = true;
    runner.waitIdle();
    EXPECT_TRUE(delivered.load());
    EXPECT_FALSE(secondRan.load());
    EXPECT_FALSE(runner.busy("collect:rocprof"));  // free again: the next run is accepted
}

// Only cancel stops a collector run: it ends as Cancelled, its onCancelled runs once, nothing is delivered.
TEST(JobRunner, ExclusiveSlotStopsOnlyOnCancel) {
    JobRunner runner(1);
    std::mutex m;
    std::vector<JobEnd> ends;
    JobObserver obs;
    obs.onFinished = [&](const std::string&, uint64_t, JobEnd e) {
        std::lock_guard lock(m);
        ends.push_back(e);
    };
    runner.setObserver(obs);
    std::atomic<bool> started{false}, delivered{false}, ranToEnd{false};
    std::atomic<int> cancelledCalls{0};
    std::atomic<uint64_t> cancelledGen{0};
    JobOptions o;
    o.policy = SlotPolicy::Exclusive;
    o.onCancelled = [&](uint64_t g) {
        ++cancelledCalls;
        cancelledGen = g;
    };
    const uint64_t gen = runner.submit("collect:x", "collect", [&](const JobContext& ctx) -> std::function<void()> {
        started = true;
        ranToEnd = work(ctx, 20000);
        return [&] { delivered = true; };
    }, o);
    ASSERT_TRUE(eventually([&] { return started.load(); }));
    runner.cancel("collect:x", gen + 1);  // another generation: not this job
    EXPECT_TRUE(runner.isCurrent("collect:x", gen));
    runner.cancel("collect:x", gen);
    runner.waitIdle();
    EXPECT_FALSE(ranToEnd.load());
    EXPECT_FALSE(delivered.load());
    EXPECT_EQ(cancelledCalls.load(), 1);
    EXPECT_EQ(cancelledGen.load(), gen);
    std::lock_guard lock(m);
    EXPECT_EQ(ends, std::vector<JobEnd>{JobEnd::Cancelled});
}

// The same work asked for again while it runs keeps the running job (same generation, one run).
TEST(JobRunner, SameDedupKeyKeepsTheRunningJob) {
    JobRunner runner(1);
    std::atomic<int> runs{0};
    std::atomic<bool> go{false};
    JobOptions o;
    o.dedupKey = "k1";
    auto job = [&](const JobContext&) -> std::function<void()> {
        ++runs;
        eventually([&] { return go.load(); });
        return {};
    };
    const uint64_t a = runner.submit("plot:v", "prepare", job, o);
    const uint64_t b = runner.submit("plot:v", "prepare", job, o);
    EXPECT_EQ(a, b);
    o.dedupKey = "k2";
    const uint64_t c = runner.submit("plot:v", "prepare", job, o);  // other work: supersedes
    EXPECT_GT(c, a);
    go = true;
    runner.waitIdle();
    EXPECT_LE(runs.load(), 2);  // k1 ran at most once (it may have been dropped before starting), k2 once
    EXPECT_GE(runs.load(), 1);
}

// The observer sees every job from its queueing on: onQueued comes first, with the name, then its end; jobs()
// lists what is queued or running.
TEST(JobRunner, ObserverSeesQueuedJobsFirst) {
    JobRunner runner(1);
    std::mutex m;
    std::vector<std::string> events;
    JobObserver obs;
    obs.onQueued = [&](const std::string& slot, uint64_t, const std::string& name) {
        std::lock_guard lock(m);
        events.push_back("queued " + slot + " " + name);
    };
    obs.onFinished = [&](const std::string& slot, uint64_t, JobEnd e) {
        std::lock_guard lock(m);
        events.push_back(std::string("finished ") + slot + " " + toString(e));
    };
    runner.setObserver(obs);
    std::atomic<bool> go{false};
    runner.submit("a", "job a", [&](const JobContext&) -> std::function<void()> {
        eventually([&] { return go.load(); });
        return {};
    });
    auto listed = runner.jobs();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].slot, "a");
    EXPECT_EQ(listed[0].name, "job a");
    go = true;
    runner.waitIdle();
    EXPECT_TRUE(runner.jobs().empty());
    std::lock_guard lock(m);
    EXPECT_EQ(events, (std::vector<std::string>{"queued a job a", "finished a completed"}));
}
