// The canvas and the engine: a drawing-parameter change calls draw() and not prepare(); a preparation-parameter
// changed five times quickly calls prepare() once, with the last value. Uses an instrumented plot registered here.
#include "app/gui/plot_view.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <QTreeWidget>

#include "app/gui/jobs_panel.h"
#include "app/gui/run_manager.h"
#include "core/engine/job_runner.h"
#include "plots/plot_engine.h"
#include "plots/plot_registry.h"
#include "test_support.h"

using namespace strobe;

namespace {

std::atomic<int> g_prepareCalls{0};
std::atomic<int> g_drawCalls{0};
std::atomic<long long> g_lastPreparedBins{-1};
std::atomic<bool> g_holdPrepare{false};  // prepare() waits (polling its cancel token) while set

struct CountingPrepared final : plots::Prepared {
    long long bins = 0;
    size_t bytes() const override { return sizeof(*this); }
};

const core::IntParam kBins = core::IntParam{"bins", "Bins", "", 10}.bounded(1, 1000, 0);
const core::ColorParam kColor = core::ColorParam{"color", "Colour", "", "#336699"}.drawOnly();

class InstrumentedPlot final : public plots::Plot {
public:
    std::string id() const override { return "test-instrumented"; }
    std::string title() const override { return "Instrumented"; }
    std::string description() const override { return "Counts prepare() and draw() calls (tests only)."; }
    std::vector<core::ParamSpec> parameters(const plots::RunSet&) const override {
        return {kBins.spec(), kColor.spec()};
    }
    core::Result<plots::PreparedPtr> prepare(const plots::RunSet&, const core::ParamValues& values,
                                             const core::CancelToken& cancel, const core::ProgressFn&) const override {
        ++g_prepareCalls;
        while (g_holdPrepare.load() && !cancel.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (cancel.cancelled()) return plots::cancelledError();
        auto p = std::make_shared<CountingPrepared>();
        p->bins = kBins(values);
        g_lastPreparedBins = p->bins;
        return plots::PreparedPtr(p);
    }
    void draw(plots::Canvas& canvas, const plots::Prepared&, const core::ParamValues& values) const override {
        ++g_drawCalls;
        canvas.painter.fillRect(canvas.rect.adjusted(10, 10, -10, -10),
                                QColor(QString::fromStdString(kColor(values))));
    }
    core::Table table(const plots::Prepared&, const core::ParamValues&) const override { return {}; }
};

}  // namespace

STROBE_REGISTER_PLOT(InstrumentedPlot)

class PlotViewTest : public ::testing::Test {
protected:
    void SetUp() override {
        test::app();
        runner = std::make_unique<core::JobRunner>(2);
        engine = std::make_unique<plots::PlotEngine>(*runner);
        jobs.observe(*runner);  // nobody feeds the list by hand: it sees the runner's jobs
        runs = std::make_unique<app::RunManager>();
        runId = runs->addDataset(QStringLiteral("memory"), test::makeDataset(2));
        plot = plots::PlotRegistry::instance().find("test-instrumented");
        ASSERT_NE(plot, nullptr);
    }
    void TearDown() override {
        view.reset();
        runner->waitIdle();
    }
    void openView() {
        view = std::make_unique<app::PlotView>(*plot, *engine, *runs, std::vector<int>{runId}, core::ParamValues{});
        view->resize(400, 300);
        view->show();
        ASSERT_TRUE(test::waitFor([&] { return view->prepared() != nullptr && !view->isUpdating(); }));
    }

    std::unique_ptr<core::JobRunner> runner;
    std::unique_ptr<plots::PlotEngine> engine;
    std::unique_ptr<app::RunManager> runs;
    app::JobList jobs;
    std::unique_ptr<app::PlotView> view;
    const plots::Plot* plot = nullptr;
    int runId = 0;
};

TEST_F(PlotViewTest, DrawingParameterRedrawsWithoutPreparing) {
    openView();
    const auto prepared = view->prepared();
    g_prepareCalls = 0;
    g_drawCalls = 0;
    view->setValue("color", std::string("#ff0000"));
    view->repaint();
    EXPECT_GE(g_drawCalls.load(), 1);
    // Let anything queued run: still no prepare(), same Prepared.
    test::waitFor([] { return false; }, 300);
    EXPECT_EQ(g_prepareCalls.load(), 0);
    EXPECT_EQ(view->prepared(), prepared);
    EXPECT_FALSE(view->isUpdating());
    EXPECT_EQ(kColor(view->values()), "#ff0000");
    // The picture shows the new colour at once.
    const QImage shot = view->grab().toImage();
    EXPECT_EQ(shot.pixelColor(200, 150), QColor(QStringLiteral("#ff0000")));
}

TEST_F(PlotViewTest, PreparationParameterChangedFiveTimesPreparesOnce) {
    openView();
    const auto before = view->prepared();
    g_prepareCalls = 0;
    for (long long bins = 11; bins <= 15; ++bins) view->setValue("bins", bins);
    EXPECT_TRUE(view->isUpdating());
    EXPECT_EQ(view->prepared(), before);  // the last picture stays meanwhile
    ASSERT_TRUE(test::waitFor([&] { return !view->isUpdating(); }));
    EXPECT_EQ(g_prepareCalls.load(), 1);
    EXPECT_EQ(g_lastPreparedBins.load(), 15);
    ASSERT_NE(view->prepared(), nullptr);
    EXPECT_EQ(static_cast<const CountingPrepared&>(*view->prepared()).bins, 15);
}

TEST_F(PlotViewTest, InvalidValueIsIgnored) {
    openView();
    view->setValue("bins", 5000LL);  // outside [1, 1000]
    EXPECT_EQ(kBins(view->values()), 10);
    view->setValue("no_such_key", true);
    EXPECT_EQ(view->values().count("no_such_key"), 0u);
}

TEST_F(PlotViewTest, PreparationShowsAsAJob) {
    openView();
    std::atomic<bool> sawJob{false};
    QObject::connect(&jobs, &app::JobList::jobAdded, &jobs, [&] { sawJob = true; });
    view->setValue("bins", 99LL);
    ASSERT_TRUE(test::waitFor([&] { return !view->isUpdating(); }));
    EXPECT_TRUE(sawJob.load());
    EXPECT_TRUE(jobs.jobs().empty());  // and is gone when done
}

// Cancel in the jobs panel stops the view's preparation: the job leaves the list and the view stops waiting,
// saying it was cancelled (the runner tells the engine, which tells the view).
TEST_F(PlotViewTest, CancelInTheJobsListStopsThePreparation) {
    openView();
    g_holdPrepare = true;
    view->setValue("bins", 77LL);
    QString key;
    ASSERT_TRUE(test::waitFor([&] {
        for (const auto& [k, job] : jobs.jobs())
            if (job.title.startsWith(QStringLiteral("Prepare"))) key = k;
        return !key.isEmpty();
    }));
    EXPECT_TRUE(view->isUpdating());
    jobs.cancel(key);
    ASSERT_TRUE(test::waitFor([&] { return !view->isUpdating() && jobs.jobs().empty(); }));
    g_holdPrepare = false;
    EXPECT_TRUE(view->errorText().contains(QStringLiteral("cancelled"))) << view->errorText().toStdString();
    EXPECT_NE(g_lastPreparedBins.load(), 77);  // it never completed
}

// The jobs list observes the runner: a job submitted straight to the runner (not through any view or manager)
// is listed with its name from its queueing, shows in the panel, can be cancelled from the list, and is gone
// once it ends.
TEST(JobList, ShowsAJobSubmittedToTheRunnerAndCancelsIt) {
    test::app();
    core::JobRunner runner(1);
    app::JobList jobs;
    jobs.observe(runner);
    app::JobsPanel panel(jobs);
    auto* tree = panel.findChild<QTreeWidget*>();
    ASSERT_NE(tree, nullptr);

    std::atomic<bool> started{false}, finish{false};
    const uint64_t gen = runner.submit("collect:test", "Collect with a fake tool", [&](const core::JobContext& ctx) {
        started = true;
        while (!finish.load() && !ctx.cancel.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return std::function<void()>();
    });
    // Submitted from this (the GUI) thread: listed when submit() returns.
    const QString key = app::JobList::keyOf("collect:test", gen);
    ASSERT_EQ(jobs.jobs().count(key), 1u);
    EXPECT_EQ(jobs.jobs().at(key).title, QStringLiteral("Collect with a fake tool"));
    ASSERT_EQ(tree->topLevelItemCount(), 1);
    EXPECT_EQ(tree->topLevelItem(0)->text(0), QStringLiteral("Collect with a fake tool"));
    ASSERT_TRUE(test::waitFor([&] { return started.load(); }));
    ASSERT_TRUE(test::waitFor([&] { return jobs.jobs().count(key) && jobs.jobs().at(key).stage == QStringLiteral("running"); }));

    jobs.cancel(key);  // the panel's Cancel button
    ASSERT_TRUE(test::waitFor([&] { return jobs.jobs().empty(); }));
    EXPECT_EQ(tree->topLevelItemCount(), 0);
    EXPECT_FALSE(runner.busy("collect:test"));

    // A job that completes leaves the list too.
    finish = true;
    runner.submit("export:x", "Export x", [](const core::JobContext&) { return std::function<void()>(); });
    ASSERT_TRUE(test::waitFor([&] { runner.waitIdle(); return jobs.jobs().empty(); }));
}
