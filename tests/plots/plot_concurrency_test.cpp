// Concurrency of the plot engine on real data (issue 5): the 8-rank sample loads in the background while two
// views keep changing preparation parameters of real plots, some requests are cancelled, and runs are dropped
// while their prepares are in flight. Built for ThreadSanitizer (the CI selection '[Cc]oncurrency' includes this
// suite) and ASan: the assertions check outcomes (each view ends with exactly its newest request's picture, equal
// to a direct prepare with the same values; a dropped run is freed once its jobs finish), the sanitizers check
// races, use-after-free and leaks. Every wait has a timeout, so a hang fails instead of blocking CI.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/analysis/context.h"
#include "core/engine/job_runner.h"
#include "core/engine/run_loader.h"
#include "plots/plot_engine.h"
#include "plots/plot_registry.h"
#include "tests/plots/plot_test_data.h"
#include "tests/test_paths.h"
#include "tests/with_timeout.h"

using namespace strobe;
using namespace strobe::plots;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using strobe::testing::withTimeout;

namespace {


std::string csvOf(const Plot& plot, const Prepared& prepared, const ParamValues& values) {
    std::ostringstream out;
    plot.table(prepared, values).writeCsv(out);
    return out.str();
}

// What one view was last asked for and what it last received.
struct View {
    std::mutex mutex;
    uint64_t newestRequest = 0;
    uint64_t deliveredRequest = 0;
    PreparedPtr delivered;
    int deliveries = 0;
    int errors = 0;
    PrepareCallbacks callbacks() {
        return {[this](PreparedPtr p, uint64_t id) {
                    std::lock_guard lock(mutex);
                    // Deliveries of one view never go backwards: an older request never lands after a newer one.
                    EXPECT_GT(id, deliveredRequest);
                    deliveredRequest = id;
                    delivered = std::move(p);
                    ++deliveries;
                },
                [this](const core::Error& e, uint64_t) {
                    std::lock_guard lock(mutex);
                    ADD_FAILURE() << "prepare failed: " << e.toString();
                    ++errors;
                },
                {}, {}, {}};
    }
};

core::DatasetPtr loadSample(const fs::path& cacheDir, const core::CancelToken& cancel = {}, bool useCache = true) {
    core::RunLoadOptions o;
    o.threads = 2;
    o.cacheDir = cacheDir;
    o.useCache = useCache;
    core::RunCallbacks cb;
    cb.cancel = cancel;
    auto r = core::loadRun({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}, o, cb);
    if (!r.ok()) return nullptr;
    return r.value();
}

}  // namespace

TEST(PlotConcurrency, ViewsChangeParametersWhileRunsLoadAndClose) {
    const fs::path cache = fs::temp_directory_path() / ("strobe_plot_concurrency_" + std::to_string(::getpid()));
    fs::remove_all(cache);
    core::DatasetPtr first = loadSample(cache);
    ASSERT_TRUE(first);

    const Plot* breakdown = PlotRegistry::instance().find("kernel-breakdown");
    const Plot* durations = PlotRegistry::instance().find("kernel-durations");
    ASSERT_TRUE(breakdown && durations);

    core::JobRunner runner(2);
    PlotEngine engine(runner);
    View left, right;
    std::weak_ptr<const core::Dataset> dropped;
    std::atomic<int> loadsDelivered{0};
    core::DatasetPtr loaded;  // written by the load job's delivery, read after waitIdle
    std::mutex loadedMutex;
    RunSet runs{RunEntry{"sample", first, {}}};
    ParamValues lastLeft, lastRight;

    withTimeout(
        [&] {
            std::mt19937 rng(7);
            for (int round = 0; round < 24; ++round) {
                if (round % 8 == 0) {
                    // A reload in the background (cache disabled half the time so it really parses).
                    runner.submit("load", "load sample", [&, round](const core::JobContext& ctx) -> std::function<void()> {
                        auto ds = loadSample(cache, ctx.cancel, round % 16 != 0);
                        if (!ds) return {};
                        return [&, ds] {
                            std::lock_guard lock(loadedMutex);
                            loaded = ds;
                            ++loadsDelivered;
                        };
                    });
                }
                if (round == 12) {
                    // Close the run the views show while their prepares are in flight: the views move to a
                    // fresh load, the old dataset must be freed once the jobs holding it are done.
                    core::DatasetPtr fresh = loadSample(cache);
                    ASSERT_TRUE(fresh);
                    dropped = runs.front().dataset;
                    runs = RunSet{RunEntry{"sample", fresh, {}}};
                    first.reset();
                }
                lastLeft = {{"group_by", std::string(rng() % 2 ? "kernel" : "category")},
                            {"per", std::string(rng() % 2 ? "rank" : "step")},
                            {"top_n", static_cast<long long>(1 + rng() % 20)}};
                auto l = engine.request("left", *breakdown, runs, lastLeft, left.callbacks());
                ASSERT_FALSE(l.error) << l.error->toString();
                {
                    std::lock_guard lock(left.mutex);
                    left.newestRequest = l.requestId;
                }
                lastRight = {{"group_by", std::string("category")}, {"top_n", static_cast<long long>(1 + rng() % 30)}};
                auto r = engine.request("right", *durations, runs, lastRight, right.callbacks());
                ASSERT_FALSE(r.error) << r.error->toString();
                {
                    std::lock_guard lock(right.mutex);
                    right.newestRequest = r.requestId;
                }
                if (rng() % 5 == 0) engine.cancel("right");  // the user closes the view; it is reopened next round
                if (round < 16 && rng() % 3 == 0) runner.cancel("load");  // the last load (round 16) is kept
                std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 4));
            }
            // Final requests, never cancelled.
            auto l = engine.request("left", *breakdown, runs, lastLeft, left.callbacks());
            auto r = engine.request("right", *durations, runs, lastRight, right.callbacks());
            {
                std::lock_guard lock(left.mutex);
                left.newestRequest = l.requestId;
                if (!l.pending) {  // served from the cache at once
                    left.delivered = l.prepared;
                    left.deliveredRequest = l.requestId;
                }
            }
            {
                std::lock_guard lock(right.mutex);
                right.newestRequest = r.requestId;
                if (!r.pending) {
                    right.delivered = r.prepared;
                    right.deliveredRequest = r.requestId;
                }
            }
            runner.waitIdle();
        },
        600s);

    for (auto* v : {&left, &right}) {
        std::lock_guard lock(v->mutex);
        EXPECT_EQ(v->errors, 0);
        EXPECT_EQ(v->deliveredRequest, v->newestRequest);  // each view shows its newest request
        ASSERT_TRUE(v->delivered);
    }
    // ...and that picture is what a direct, uncontended prepare with the same values gives.
    auto direct = [&](const Plot& plot, const ParamValues& values) {
        auto resolved = resolveValues(plot.parameters(runs), values);
        EXPECT_TRUE(resolved.ok());
        auto p = plot.prepare(runs, *resolved, core::CancelToken(), {});
        EXPECT_TRUE(p.ok());
        return csvOf(plot, *p.value(), *resolved);
    };
    const auto leftValues = resolveValues(breakdown->parameters(runs), lastLeft);
    const auto rightValues = resolveValues(durations->parameters(runs), lastRight);
    ASSERT_TRUE(leftValues.ok() && rightValues.ok());
    EXPECT_EQ(csvOf(*breakdown, *left.delivered, *leftValues), direct(*breakdown, lastLeft));
    EXPECT_EQ(csvOf(*durations, *right.delivered, *rightValues), direct(*durations, lastRight));

    // The closed run is gone once nothing holds it (the engine's cache may keep prepared data, never the run).
    EXPECT_TRUE(dropped.expired());
    {
        std::lock_guard lock(loadedMutex);
        EXPECT_GE(loadsDelivered.load(), 1);
        EXPECT_LE(loadsDelivered.load(), 3);
        ASSERT_TRUE(loaded);
        EXPECT_EQ(loaded->ranks.size(), 8u);  // a delivered load is whole, never partial
    }
    fs::remove_all(cache);
}

// One AnalysisContext per dataset, shared (issue 8): two threads preparing different analysis plots on one
// dataset at the same time get exactly the tables that serial prepares on an identical dataset of their own get;
// each window selection is built once however many threads ask for it; the context is freed with its dataset.
TEST(PlotConcurrency, SharedAnalysisContextTwoThreadsMatchSerialPrepares) {
    const std::vector<std::string> ids = {"temporal-breakdown", "comm-comp-overlap", "idle-by-cause", "top-kernels"};
    // Serial reference: a dataset of its own (same generator, same seed), plots prepared one after the other.
    const auto serialData = testdata::syntheticRun(3, 6000);
    const RunSet serialRuns{RunEntry{"r", serialData, {}}};
    std::map<std::string, std::string> expected;
    for (const auto& id : ids) {
        const Plot* plot = PlotRegistry::instance().find(id);
        ASSERT_NE(plot, nullptr) << id;
        const auto values = *resolveValues(plot->parameters(serialRuns), {});
        auto p = prepareNow(*plot, serialRuns, values);
        ASSERT_TRUE(p.ok()) << id;
        expected[id] = csvOf(*plot, **p, values);
        EXPECT_NE(expected[id].find('\n'), std::string::npos) << id;  // a header at least
    }

    for (int round = 0; round < 3; ++round) {
        auto data = testdata::syntheticRun(3, 6000);
        std::weak_ptr<const core::Dataset> weakData = data;
        std::weak_ptr<core::AnalysisContext> weakContext;
        {
            const RunSet runs{RunEntry{"r", data, {}}};
            std::map<std::string, std::string> got;
            std::mutex m;
            std::atomic<int> ready{0};
            auto prepareSome = [&](size_t first) {
                ++ready;
                while (ready.load() < 2) std::this_thread::yield();  // start together
                for (size_t k = 0; k < ids.size(); ++k) {
                    const std::string& id = ids[(first + k) % ids.size()];
                    const Plot* plot = PlotRegistry::instance().find(id);
                    const auto values = *resolveValues(plot->parameters(runs), {});
                    auto p = prepareNow(*plot, runs, values);
                    std::lock_guard lock(m);
                    if (!p.ok()) {
                        ADD_FAILURE() << id << ": " << p.error().toString();
                        continue;
                    }
                    const std::string csv = csvOf(*plot, **p, values);
                    auto [it, inserted] = got.emplace(id, csv);
                    if (!inserted) {
                        EXPECT_EQ(it->second, csv) << id;  // both threads made this plot
                    }
                }
            };
            withTimeout(
                [&] {
                    std::thread a(prepareSome, 0);  // thread a starts with temporal-breakdown, b with idle-by-cause
                    std::thread b(prepareSome, 2);
                    a.join();
                    b.join();
                    return 0;
                },
                120s);
            for (const auto& id : ids) EXPECT_EQ(got[id], expected[id]) << id;

            auto ctx = core::AnalysisContext::of(data);
            EXPECT_EQ(ctx, core::AnalysisContext::of(data));  // one per dataset
            // Windows asked for: auto (three plots) and all (top-kernels) — each built once.
            EXPECT_EQ(ctx->selectionsBuilt(), 2u);
            weakContext = ctx;
        }
        data.reset();
        EXPECT_TRUE(weakData.expired());     // nothing (no context) keeps the dataset alive
        EXPECT_TRUE(weakContext.expired());  // and the context went with it
    }
}
