// Engine caching semantics with an instrumented plot: drawing parameters never prepare; quick preparation
// changes supersede each other and only the newest is delivered.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "plots/plot_engine.h"
#include "tests/plots/plot_test_data.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

struct CountingPrepared final : Prepared {
    long long bins = 0;
    size_t size = 1000;
    size_t bytes() const override { return size; }
};

// Prepares slowly (polling cancel every millisecond) and counts what it was asked to do.
class CountingPlot final : public Plot {
public:
    mutable std::atomic<int> prepareCalls{0};
    mutable std::atomic<int> prepareCompleted{0};
    mutable std::atomic<int> prepareCancelled{0};
    mutable std::mutex mutex;
    mutable std::vector<long long> completedBins;
    int prepareMs = 40;
    mutable std::atomic<bool> gateOpen{true};  // prepare() waits here (polling cancel) while closed
    size_t preparedBytes = 1000;

    std::string id() const override { return "counting"; }
    std::string title() const override { return "Counting"; }
    std::string description() const override { return "test plot"; }
    std::vector<ParamSpec> parameters(const RunSet&) const override {
        ParamSpec bins;
        bins.key = "bins";
        bins.type = ParamType::Int;
        bins.defaultValue = 10LL;
        bins.min = 1;
        bins.max = 1000;
        ParamSpec color;
        color.key = "color";
        color.type = ParamType::Color;
        color.defaultValue = std::string("#112233");
        color.affectsPrepare = false;
        return {bins, color};
    }
    core::Result<PreparedPtr> prepare(const RunSet&, const ParamValues& v, const core::CancelToken& cancel,
                                      const core::ProgressFn& progress) const override {
        ++prepareCalls;
        while (!gateOpen.load()) {
            if (cancel.cancelled()) {
                ++prepareCancelled;
                return cancelledError();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        for (int i = 0; i < prepareMs; ++i) {
            if (cancel.cancelled()) {
                ++prepareCancelled;
                return cancelledError();
            }
            if (progress) progress({"work", "", double(i) / prepareMs, uint64_t(i), uint64_t(prepareMs)});
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        auto p = std::make_shared<CountingPrepared>();
        p->bins = std::get<long long>(v.at("bins"));  // resolved: every declared key is present
        p->size = preparedBytes;
        {
            std::lock_guard lock(mutex);
            completedBins.push_back(p->bins);
        }
        ++prepareCompleted;
        return PreparedPtr(p);
    }
    void draw(Canvas&, const Prepared&, const ParamValues&) const override {}
    core::Table table(const Prepared&, const ParamValues&) const override { return {}; }
};

struct Delivered {
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<std::pair<long long, uint64_t>> ready;  // bins, request id
    int errors = 0;
    PrepareCallbacks callbacks() {
        return {[this](PreparedPtr p, uint64_t id) {
                    std::lock_guard lock(mutex);
                    ready.emplace_back(static_cast<const CountingPrepared&>(*p).bins, id);
                    cv.notify_all();
                },
                [this](const core::Error&, uint64_t) {
                    std::lock_guard lock(mutex);
                    ++errors;
                    cv.notify_all();
                },
                {}, {}, {}};
    }
};

RunSet oneRun() { return {RunEntry{"small", testdata::smallRun(), {}}}; }

}  // namespace

TEST(PlotEngine, DrawParameterChangeDoesNotPrepare) {
    core::JobRunner runner(2);
    PlotEngine engine(runner);
    CountingPlot plot;
    Delivered d;
    auto runs = oneRun();
    auto first = engine.request("view", plot, runs, {}, d.callbacks());
    ASSERT_TRUE(first.pending);
    runner.waitIdle();
    ASSERT_EQ(d.ready.size(), 1u);
    EXPECT_EQ(plot.prepareCalls.load(), 1);
    // Change only the colour (a drawing parameter) several times: served from the cache, prepare() not called.
    for (const char* c : {"#000000", "#ffffff", "#abcdef"}) {
        auto r = engine.request("view", plot, runs, {{"color", std::string(c)}}, d.callbacks());
        EXPECT_FALSE(r.pending);
        ASSERT_TRUE(r.prepared);
        EXPECT_EQ(static_cast<const CountingPrepared&>(*r.prepared).bins, 10);
        EXPECT_EQ(std::get<std::string>(r.values.at("color")), c);
    }
    runner.waitIdle();
    EXPECT_EQ(plot.prepareCalls.load(), 1);
    EXPECT_EQ(d.ready.size(), 1u);
    EXPECT_EQ(engine.prepareJobsSubmitted(), 1u);
}

TEST(PlotEngine, FiveQuickPrepareChangesDeliverOnlyTheLast) {
    core::JobRunner runner(1);
    PlotEngine engine(runner);
    CountingPlot plot;
    Delivered d;
    auto runs = oneRun();
    // Occupy the only worker so that all five requests are queued before any can start: how far a superseded
    // job gets must not depend on scheduling (under ASan on 2 busy cores a worker can start request 12 before
    // request 13 arrives).
    std::atomic<bool> release{false};
    std::atomic<bool> blockerRunning{false};
    runner.submit("blocker", "blocker", [&](const core::JobContext&) -> std::function<void()> {
        blockerRunning = true;
        while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return {};
    });
    while (!blockerRunning.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t lastId = 0;
    for (long long bins : {11LL, 12LL, 13LL, 14LL, 15LL}) {
        auto r = engine.request("view", plot, runs, {{"bins", bins}}, d.callbacks());
        ASSERT_TRUE(r.pending);
        lastId = r.requestId;
    }
    release = true;
    runner.waitIdle();
    ASSERT_EQ(d.ready.size(), 1u);
    EXPECT_EQ(d.ready[0].first, 15);
    EXPECT_EQ(d.ready[0].second, lastId);
    // The four superseded requests never started; only the newest ran, once.
    EXPECT_EQ(plot.prepareCalls.load(), 1);
    EXPECT_EQ(plot.prepareCompleted.load(), 1);
    EXPECT_EQ(plot.prepareCancelled.load(), 0);
    {
        std::lock_guard lock(plot.mutex);
        EXPECT_EQ(plot.completedBins, std::vector<long long>{15});
    }
    EXPECT_EQ(d.errors, 0);
}

TEST(PlotEngine, QuickPrepareChangesWhileOneRunsCancelItAndDeliverOnlyTheLast) {
    core::JobRunner runner(1);
    PlotEngine engine(runner);
    CountingPlot plot;
    plot.gateOpen = false;  // the first prepare blocks (polling cancel) until released
    Delivered d;
    auto runs = oneRun();
    ASSERT_TRUE(engine.request("view", plot, runs, {{"bins", 11LL}}, d.callbacks()).pending);
    while (plot.prepareCalls.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t lastId = 0;
    for (long long bins : {12LL, 13LL, 14LL, 15LL}) {
        auto r = engine.request("view", plot, runs, {{"bins", bins}}, d.callbacks());
        ASSERT_TRUE(r.pending);
        lastId = r.requestId;
    }
    plot.gateOpen = true;
    runner.waitIdle();
    ASSERT_EQ(d.ready.size(), 1u);
    EXPECT_EQ(d.ready[0].first, 15);
    EXPECT_EQ(d.ready[0].second, lastId);
    // Whatever started before being superseded was cancelled, never completed; only 15 completed.
    EXPECT_EQ(plot.prepareCompleted.load(), 1);
    EXPECT_GE(plot.prepareCancelled.load(), 1);  // the running 11 at least
    EXPECT_EQ(plot.prepareCalls.load() - 1, plot.prepareCancelled.load());
    {
        std::lock_guard lock(plot.mutex);
        EXPECT_EQ(plot.completedBins, std::vector<long long>{15});
    }
    EXPECT_EQ(d.errors, 0);
}

TEST(PlotEngine, RepeatedIdenticalRequestWhilePendingDoesNotRestart) {
    core::JobRunner runner(1);
    PlotEngine engine(runner);
    CountingPlot plot;
    Delivered d;
    auto runs = oneRun();
    plot.gateOpen = false;
    auto a = engine.request("view", plot, runs, {{"bins", 20LL}}, d.callbacks());
    auto b = engine.request("view", plot, runs, {{"bins", 20LL}, {"color", std::string("#000000")}}, d.callbacks());
    plot.gateOpen = true;
    EXPECT_TRUE(b.pending);
    EXPECT_EQ(a.requestId, b.requestId);
    runner.waitIdle();
    EXPECT_EQ(plot.prepareCalls.load(), 1);
    EXPECT_EQ(d.ready.size(), 1u);
}

TEST(PlotEngine, SlotsAreIndependentAndCacheIsShared) {
    core::JobRunner runner(2);
    PlotEngine engine(runner);
    CountingPlot plot;
    Delivered d1, d2;
    auto runs = oneRun();
    EXPECT_TRUE(engine.request("left", plot, runs, {{"bins", 3LL}}, d1.callbacks()).pending);
    EXPECT_TRUE(engine.request("right", plot, runs, {{"bins", 4LL}}, d2.callbacks()).pending);
    runner.waitIdle();
    EXPECT_EQ(d1.ready.size(), 1u);
    EXPECT_EQ(d2.ready.size(), 1u);
    // The right view now asks for what the left one prepared: a cache hit.
    auto hit = engine.request("right", plot, runs, {{"bins", 3LL}}, d2.callbacks());
    EXPECT_FALSE(hit.pending);
    ASSERT_TRUE(hit.prepared);
    EXPECT_EQ(plot.prepareCalls.load(), 2);
    // A new dataset generation is a different key.
    RunSet other{RunEntry{"small", testdata::smallRun(), {}}};
    EXPECT_TRUE(engine.request("right", plot, other, {{"bins", 3LL}}, d2.callbacks()).pending);
    runner.waitIdle();
    EXPECT_EQ(plot.prepareCalls.load(), 3);
}

TEST(PlotEngine, InvalidValuesAreReportedWithoutRunning) {
    core::JobRunner runner(1);
    PlotEngine engine(runner);
    CountingPlot plot;
    Delivered d;
    auto r = engine.request("view", plot, oneRun(), {{"bins", 0LL}}, d.callbacks());
    ASSERT_TRUE(r.error.has_value());
    EXPECT_NE(r.error->message.find("bins"), std::string::npos);
    EXPECT_FALSE(r.pending);
    runner.waitIdle();
    EXPECT_EQ(plot.prepareCalls.load(), 0);
}

TEST(PreparedCache, EvictsLeastRecentlyUsedWithinBudget) {
    auto make = [](size_t bytes) {
        auto p = std::make_shared<CountingPrepared>();
        p->size = bytes;
        return PreparedPtr(p);
    };
    // Entry cost = prepared bytes + key + bookkeeping; budget fits two 1000-byte entries, not three.
    PreparedCache cache(2900);
    cache.insert({"a"}, make(1000));
    cache.insert({"b"}, make(1000));
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_TRUE(cache.find({"a"}));  // a is now the most recent
    cache.insert({"c"}, make(1000));
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_TRUE(cache.find({"a"}));
    EXPECT_FALSE(cache.find({"b"}));
    EXPECT_TRUE(cache.find({"c"}));
    EXPECT_EQ(cache.evictions(), 1u);
    EXPECT_LE(cache.bytes(), cache.budget());
    // An entry larger than the budget is not kept.
    cache.insert({"huge"}, make(10000));
    EXPECT_FALSE(cache.find({"huge"}));
    cache.setBudget(0);
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_EQ(cache.bytes(), 0u);
}
