// One background rule in the GUI (issue 19; DESIGN.md "Engine and caching"): sweep discovery, comparison and report,
// and the profiling tools' probes are jobs of the job runner — listed by the Jobs panel's list from the moment they
// are asked for, cancellable there, the newest request of a kind superseding the older one (whose result is dropped,
// even when it was already on its way to the GUI thread) — and closing the window with a live load cancels the
// runner's jobs and joins them without running the event loop. Nothing here depends on how fast a worker is: a job
// that holds the runner's only worker keeps the requests queued while the test looks at them.
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <QMetaObject>

#include "app/gui/jobs_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/profile_dialog.h"
#include "app/gui/run_manager.h"
#include "app/gui/sweep_panel.h"
#include "core/engine/job_runner.h"
#include "test_support.h"
#include "tests/core/sweep_gen.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

const QString kBgSweepDir = QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/kineto/kineto-configs");
const QString kBgRun0 = kBgSweepDir + QStringLiteral("/resnet50_num_workers_0");

// Holds the runner's worker(s) until released: jobs submitted meanwhile stay queued.
class BgWorkerHold {
public:
    BgWorkerHold(core::JobRunner& runner, int workers) {
        for (int i = 0; i < workers; ++i)
            runner.submit("test:hold:" + std::to_string(i), "hold", [this](const core::JobContext&) -> std::function<void()> {
                ++m_holding;
                while (!m_release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return {};
            });
        while (m_holding.load() < workers) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~BgWorkerHold() { release(); }
    void release() { m_release = true; }

private:
    std::atomic<int> m_holding{0};
    std::atomic<bool> m_release{false};
};

// The keys of the listed jobs whose title is `title`.
std::vector<QString> bgJobsTitled(const app::JobList& jobs, const QString& title) {
    std::vector<QString> out;
    for (const auto& [key, job] : jobs.jobs())
        if (job.title == title) out.push_back(key);
    return out;
}

// Loads that are not what these tests are about: an empty one-rank dataset at once.
core::Result<core::DatasetPtr> bgInstantLoad(const std::vector<std::string>&, const core::RunLoadOptions&,
                                           const core::RunCallbacks&) {
    return test::makeDataset(1);
}

}  // namespace

// Discovery is a job (listed with its title as soon as it is asked for); cancelled from the Jobs list, it opens
// nothing and says so.
TEST(BackgroundRule, SweepDiscoveryIsACancellableJob) {
    test::app();
    core::JobRunner runner(1);
    app::JobList jobs;
    jobs.observe(runner);
    {
        app::RunManager runs(runner);
        runs.setLoadFunction(&bgInstantLoad);
        app::SweepPanel panel(runs);
        int ended = 0;
        bool found = true;
        QObject::connect(&panel, &app::SweepPanel::sweepOpened, &panel, [&](bool f) {
            ++ended;
            found = f;
        });
        BgWorkerHold hold(runner, 1);
        panel.openSweep(kBgSweepDir);
        EXPECT_TRUE(panel.discovering());
        const auto rows = bgJobsTitled(jobs, QStringLiteral("Find the runs of kineto-configs"));
        ASSERT_EQ(rows.size(), 1u);
        jobs.cancel(rows.front());  // the Jobs panel's Cancel
        hold.release();
        ASSERT_TRUE(test::waitFor([&] { return ended > 0; }));
        EXPECT_EQ(ended, 1);
        EXPECT_FALSE(found);
        EXPECT_FALSE(panel.discovering());
        EXPECT_EQ(panel.runCount(), 0);
        EXPECT_TRUE(runs.runIds().empty());
        runner.waitIdle();
        EXPECT_TRUE(test::waitFor([&] { return bgJobsTitled(jobs, QStringLiteral("Find the runs of kineto-configs")).empty(); }));
    }
    runner.waitIdle();
}

// A newer discovery supersedes the older: while the older is still queued (it never runs), and once the older has
// finished and its result is already posted to the GUI thread (that result is dropped). Only the newer sweep's runs
// (kineto-configs: 2) are opened, never the older's (the generated sweep: 6).
TEST(BackgroundRule, NewerSweepDiscoverySupersedesTheOlder) {
    test::app();
    test::TempDir dir("strobe-bg-sweep");
    test::writeGeneratedSweep(dir.path() / "generated");
    const QString older = QString::fromStdString((dir.path() / "generated").string());
    core::JobRunner runner(1);
    app::JobList jobs;
    jobs.observe(runner);
    for (const bool olderFinishedFirst : {false, true}) {
        SCOPED_TRACE(olderFinishedFirst ? "older finished, result posted" : "older still queued");
        app::RunManager runs(runner);
        runs.setLoadFunction(&bgInstantLoad);
        app::SweepPanel panel(runs);
        int ended = 0;
        QObject::connect(&panel, &app::SweepPanel::sweepOpened, &panel, [&](bool found) {
            ++ended;
            EXPECT_TRUE(found);
        });
        if (olderFinishedFirst) {
            panel.openSweep(older);
            runner.waitIdle();  // its result is posted, not yet delivered (no event loop has run)
            panel.openSweep(kBgSweepDir);
        } else {
            BgWorkerHold hold(runner, 1);
            panel.openSweep(older);
            EXPECT_EQ(bgJobsTitled(jobs, QStringLiteral("Find the runs of generated")).size(), 1u);
            panel.openSweep(kBgSweepDir);
            // Superseded while queued: gone from the list at once; the newer is listed.
            EXPECT_TRUE(bgJobsTitled(jobs, QStringLiteral("Find the runs of generated")).empty());
            EXPECT_EQ(bgJobsTitled(jobs, QStringLiteral("Find the runs of kineto-configs")).size(), 1u);
        }
        ASSERT_TRUE(test::waitFor([&] { return !panel.discovering(); }));
        EXPECT_EQ(ended, 1);
        EXPECT_EQ(panel.runCount(), 2);
        EXPECT_EQ(runs.runIds().size(), 2u);
        for (int id : runs.runIds()) EXPECT_TRUE(runs.run(id)->sources().front().startsWith(kBgSweepDir));
        ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
        runner.waitIdle();
    }
}

// Comparison and report are jobs: a second comparison supersedes the first (one result shown: the second's, over
// the bs=1 runs only), a comparison cancelled from the Jobs list shows nothing, the report is written by a job.
TEST(BackgroundRule, SweepComparisonAndReportAreJobs) {
    test::app();
    test::TempDir dir("strobe-bg-compare");
    test::writeGeneratedSweep(dir.path() / "sweep");
    core::JobRunner runner(1);
    app::JobList jobs;
    jobs.observe(runner);
    {
        app::RunManager runs(runner);
        auto options = runs.loadOptions();
        options.useCache = false;
        runs.setLoadOptions(options);
        app::SweepPanel panel(runs);
        panel.openSweep(QString::fromStdString((dir.path() / "sweep").string()));
        ASSERT_TRUE(test::waitFor([&] { return !panel.discovering(); }));
        ASSERT_EQ(panel.runCount(), 6);
        ASSERT_TRUE(test::waitFor([&] { return panel.allLoaded(); }));
        panel.setBaseline(QStringLiteral("bs=1"));
        int compared = 0;
        QObject::connect(&panel, &app::SweepPanel::compared, &panel, [&] { ++compared; });

        {
            BgWorkerHold hold(runner, 1);
            panel.compare();
            EXPECT_TRUE(panel.comparing());
            EXPECT_EQ(bgJobsTitled(jobs, QStringLiteral("Compare 6 sweep run(s)")).size(), 1u);
            for (int id : panel.checkedRuns())
                if (core::runValueText(runs.run(id)->entry.parameters.at("bs")) == "2") panel.setChecked(id, false);
            panel.compare();  // the newest request wins
            EXPECT_TRUE(bgJobsTitled(jobs, QStringLiteral("Compare 6 sweep run(s)")).empty());
            EXPECT_EQ(bgJobsTitled(jobs, QStringLiteral("Compare 3 sweep run(s)")).size(), 1u);
        }
        ASSERT_TRUE(test::waitFor([&] { return !panel.comparing(); }));
        EXPECT_EQ(compared, 1);
        ASSERT_FALSE(panel.comparison().rows.empty());
        for (const auto& r : panel.comparison().rows) EXPECT_EQ(r.config, "bs=1");  // the older (bs=2 too) dropped

        {
            BgWorkerHold hold(runner, 1);
            panel.compare();
            const auto rows = bgJobsTitled(jobs, QStringLiteral("Compare 3 sweep run(s)"));
            ASSERT_EQ(rows.size(), 1u);
            jobs.cancel(rows.front());
        }
        ASSERT_TRUE(test::waitFor([&] { return !panel.comparing(); }));
        EXPECT_EQ(compared, 1);  // nothing delivered

        const auto report = dir.path() / "bg.html";
        bool written = false;
        QObject::connect(&panel, &app::SweepPanel::reportWritten, &panel, [&](const QString&, bool ok) { written = ok; });
        {
            BgWorkerHold hold(runner, 1);
            ASSERT_TRUE(panel.writeReport(QString::fromStdString(report.string())));
            EXPECT_EQ(bgJobsTitled(jobs, QStringLiteral("Write the sweep report bg.html")).size(), 1u);
            EXPECT_FALSE(std::filesystem::exists(report));  // not written on this thread
        }
        ASSERT_TRUE(test::waitFor([&] { return !panel.writingReport(); }));
        EXPECT_TRUE(written);
        EXPECT_NE(test::readAll(report).find("<svg"), std::string::npos);
    }
    runner.waitIdle();
}

// The profiling tools' probes are a job of the runner the dialog is given.
TEST(BackgroundRule, ToolProbesAreAJob) {
    test::app();
    core::JobRunner runner(2);
    app::JobList jobs;
    jobs.observe(runner);
    {
        app::ProfileDialog dialog(QString::fromUtf8(STROBE_CLI_PATH), runner);
        EXPECT_FALSE(dialog.probesDone());
        EXPECT_EQ(bgJobsTitled(jobs, QStringLiteral("Check which profiling tools are installed")).size(), 1u);
        ASSERT_TRUE(test::waitFor([&] { return dialog.probesDone(); }, 60000));
    }
    runner.waitIdle();
}

// Closing the window while a run loads: close() completes, having cancelled the load and joined it, the runner is
// idle, and no event loop ran meanwhile (a call queued before close() has not run when it returns).
TEST(BackgroundRule, ClosingWithALiveLoadCancelsAndJoinsWithoutSpinning) {
    test::app();
    const bool hadNoPrompt = qEnvironmentVariableIsSet("STROBE_NO_SAVE_PROMPT");
    qputenv("STROBE_NO_SAVE_PROMPT", "1");
    {
        app::MainWindow w;
        w.setAutoOpenDefaultPlot(false);
        std::atomic<int> inside{0};
        std::atomic<bool> cancelled{false};
        w.runs().setLoadFunction([&](const std::vector<std::string>& paths, const core::RunLoadOptions&,
                                     const core::RunCallbacks& cb) -> core::Result<core::DatasetPtr> {
            ++inside;
            double fraction = 0.0;
            while (!cb.cancel.cancelled()) {  // loads until cancelled
                fraction = std::min(0.9, fraction + 0.01);
                if (cb.onProgress) cb.onProgress({"parse", paths.front(), fraction, 0, 0});
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
            cancelled = true;
            --inside;
            return core::Error("cancelled");
        });
        const int id = w.openRun({kBgRun0});
        ASSERT_TRUE(test::waitFor([&] { return inside.load() == 1; }));
        EXPECT_FALSE(w.runner().jobs().empty());
        bool eventLoopRan = false;
        QMetaObject::invokeMethod(&w, [&] { eventLoopRan = true; }, Qt::QueuedConnection);
        EXPECT_TRUE(w.close());
        EXPECT_FALSE(eventLoopRan);
        EXPECT_TRUE(cancelled.load());
        EXPECT_EQ(inside.load(), 0);
        EXPECT_TRUE(w.runner().jobs().empty());
        EXPECT_FALSE(w.closeDeferred());
        ASSERT_TRUE(test::waitFor([&] { return eventLoopRan && w.runs().run(id)->state != app::RunState::Loading; }));
        EXPECT_EQ(w.runs().run(id)->state, app::RunState::Cancelled);
    }
    if (!hadNoPrompt) qunsetenv("STROBE_NO_SAVE_PROMPT");
}
