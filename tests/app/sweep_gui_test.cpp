// Comparing runs in the window (issue 9, GUI): a dropped sweep directory opens as a sweep, a run directory and
// files as runs; "Compare selected runs" opens a plot over exactly the runs selected in the Runs tree; closing one
// run keeps the views of the others; the GPU timeline aligns compared runs by step (expected times computed from
// the traces by tests/data/expected/timeline_align_kineto_configs.py); the runs of a sweep load side by side within
// the memory limit, each with its own progress, and one can be cancelled while the other goes on.
#include <QAction>
#include <QDropEvent>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMimeData>
#include <QTableWidget>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_list.h"
#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "app/gui/runs_panel.h"
#include "app/gui/sweep_panel.h"
#include "core/engine/job_runner.h"
#include "core/engine/memory_budget.h"
#include "core/engine/run_loader.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

const QString kSweepDir = (QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/kineto/kineto-configs"));
const QString kRun0 = kSweepDir + QStringLiteral("/resnet50_num_workers_0");
const QString kRun4 = kSweepDir + QStringLiteral("/resnet50_num_workers_4");

void drop(app::MainWindow& w, const QStringList& paths) {
    QMimeData mime;
    QList<QUrl> urls;
    for (const auto& p : paths) urls << QUrl::fromLocalFile(p);
    mime.setUrls(urls);
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent event(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &event);
    EXPECT_TRUE(event.isAccepted());
    // The paths are looked at in the background (sweep discovery is a job of the runner), then opened.
    EXPECT_TRUE(test::waitFor([&] { return w.pendingDrops() == 0; }));
}

std::vector<std::string> labelsOf(const plots::RunSet& runs) {
    std::vector<std::string> out;
    for (const auto& r : runs) out.push_back(r.label);
    return out;
}

// Loads are not what these tests are about: the first runs are cancelled at once (no cache written).
void noCache(app::MainWindow& w) {
    auto options = w.runs().loadOptions();
    options.useCache = false;
    w.runs().setLoadOptions(options);
}

}  // namespace

// A directory in which discovery finds two runs opens as a sweep (Sweep dock, as File ▸ Open sweep); a run
// directory opens as one run; files open together as one run (as File ▸ Open).
TEST(SweepGui, DroppedSweepDirectoryOpensAsASweep) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    noCache(w);
    drop(w, {kSweepDir});
    EXPECT_EQ(w.sweepPanel()->runCount(), 2);
    ASSERT_EQ(w.runs().runIds().size(), 2u);
    std::set<std::string> labels;
    for (int id : w.runs().runIds()) {
        labels.insert(w.runs().run(id)->entry.label);
        EXPECT_FALSE(w.runs().run(id)->entry.parameters.empty());  // each run carries its sweep parameters
    }
    EXPECT_EQ(labels, (std::set<std::string>{"resnet50_num_workers_0", "resnet50_num_workers_4"}));
    w.runs().cancelAll();

    // One run's directory: a run, the Sweep dock keeps its sweep.
    drop(w, {kRun0});
    ASSERT_EQ(w.runs().runIds().size(), 3u);
    const app::RunRecord* run = w.runs().run(w.runs().runIds().back());
    EXPECT_EQ(run->sources(), QStringList{kRun0});
    EXPECT_TRUE(run->entry.parameters.empty());
    EXPECT_EQ(w.sweepPanel()->runCount(), 2);
    w.runs().cancelAll();

    // Two files: one run of both, as File ▸ Open makes.
    const QString a = (QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/small/current_schema.json"));
    const QString b = (QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/small/schema_2021.json"));
    ASSERT_TRUE(QFile::exists(a) && QFile::exists(b));
    drop(w, {a, b});
    ASSERT_EQ(w.runs().runIds().size(), 4u);
    EXPECT_EQ(w.runs().run(w.runs().runIds().back())->sources().size(), 2);
    EXPECT_EQ(w.sweepPanel()->runCount(), 2);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 60000));
}

// Two of three runs selected in the Runs tree: "Compare selected runs" opens the current plot over exactly those
// two; its menu opens another plot over them; "Open comparing all loaded runs" still takes all three.
TEST(SweepGui, ComparesTheRunsSelectedInTheTree) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const int a = w.runs().addDataset(QStringLiteral("a"), test::makeDataset(1));
    w.runs().addDataset(QStringLiteral("b"), test::makeDataset(1));
    const int c = w.runs().addDataset(QStringLiteral("c"), test::makeDataset(2));
    ASSERT_NE(w.openPlot("test-instrumented", {a}), nullptr);

    QToolButton* button = w.runsPanel()->compareButton();
    ASSERT_NE(button, nullptr);
    w.runsPanel()->setSelectedRuns({a});
    EXPECT_FALSE(button->isEnabled());  // one run is nothing to compare
    EXPECT_EQ(w.compareSelectedRuns(), nullptr);
    EXPECT_EQ(w.plotArea()->views().size(), 1u);

    w.runsPanel()->setSelectedRuns({a, c});
    EXPECT_EQ(w.runsPanel()->selectedRuns(), (std::vector<int>{a, c}));
    EXPECT_TRUE(button->isEnabled());
    button->click();
    ASSERT_EQ(w.plotArea()->views().size(), 2u);
    app::PlotView* compared = w.plotArea()->currentView();
    ASSERT_NE(compared, nullptr);
    EXPECT_EQ(compared->plot().id(), "test-instrumented");  // the current plot
    EXPECT_EQ(compared->runIds(), (std::vector<int>{a, c}));
    EXPECT_EQ(labelsOf(compared->runSet()), (std::vector<std::string>{"a", "c"}));

    // A chosen plot, from the button's menu.
    const plots::Plot* breakdown = plots::PlotRegistry::instance().find("kernel-breakdown");
    ASSERT_NE(breakdown, nullptr);
    QAction* choose = nullptr;
    for (QAction* act : button->menu()->actions())
        if (act->text() == QString::fromStdString(breakdown->title())) choose = act;
    ASSERT_NE(choose, nullptr);
    choose->trigger();
    ASSERT_EQ(w.plotArea()->views().size(), 3u);
    EXPECT_EQ(w.plotArea()->currentView()->plot().id(), "kernel-breakdown");
    EXPECT_EQ(labelsOf(w.plotArea()->currentView()->runSet()), (std::vector<std::string>{"a", "c"}));

    // All loaded runs, as before.
    Q_EMIT w.plotList()->openRequested("test-instrumented", -1, true);
    ASSERT_EQ(w.plotArea()->views().size(), 4u);
    EXPECT_EQ(labelsOf(w.plotArea()->currentView()->runSet()), (std::vector<std::string>{"a", "b", "c"}));
}

// Closing a run: views of that run alone close; views over it and others go on over the others, prepared again.
TEST(SweepGui, ClosingOneRunKeepsTheViewsOfTheOthers) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const int a = w.runs().addDataset(QStringLiteral("a"), test::makeDataset(1));
    const int b = w.runs().addDataset(QStringLiteral("b"), test::makeDataset(1));
    const int c = w.runs().addDataset(QStringLiteral("c"), test::makeDataset(1));
    QPointer<app::PlotView> onlyA = w.openPlot("test-instrumented", {a});
    QPointer<app::PlotView> ab = w.openPlot("test-instrumented", {a, b});
    QPointer<app::PlotView> abc = w.openPlot("test-instrumented", {a, b, c});
    QPointer<app::PlotView> bc = w.openPlot("test-instrumented", {b, c});
    ASSERT_TRUE(onlyA && ab && abc && bc);
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && ab->prepared() && abc->prepared(); }));
    const auto before = abc->prepared();

    w.runs().close(a);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);  // closed views are deleted later
    EXPECT_TRUE(onlyA.isNull());
    ASSERT_FALSE(ab.isNull());
    ASSERT_FALSE(abc.isNull());
    EXPECT_EQ(ab->runIds(), std::vector<int>{b});
    EXPECT_EQ(abc->runIds(), (std::vector<int>{b, c}));
    EXPECT_EQ(bc->runIds(), (std::vector<int>{b, c}));
    EXPECT_EQ(w.plotArea()->views().size(), 3u);
    EXPECT_FALSE(abc->title().contains(QStringLiteral("a vs"))) << abc->title().toStdString();
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && abc->prepared() && ab->prepared(); }));
    EXPECT_NE(abc->prepared(), before);  // prepared again over b and c
    EXPECT_EQ(labelsOf(abc->runSet()), (std::vector<std::string>{"b", "c"}));

    // b was the last run of `ab`: it closes; the others lose b.
    w.runs().close(b);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    EXPECT_TRUE(ab.isNull());
    ASSERT_FALSE(abc.isNull());
    ASSERT_FALSE(bc.isNull());
    EXPECT_EQ(abc->runIds(), std::vector<int>{c});
    EXPECT_EQ(bc->runIds(), std::vector<int>{c});
    EXPECT_EQ(w.plotArea()->views().size(), 2u);
}

// The GPU timeline over num_workers 0 and 4, aligned by step. Expected relative times (ns) from the traces:
// tests/data/expected/timeline_align_kineto_configs.json.
TEST(SweepGui, TimelineAlignsComparedRunsByStep) {
    test::app();
    QFile file(
        (QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/expected/timeline_align_kineto_configs.json")));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonObject expected = QJsonDocument::fromJson(file.readAll()).object();
    ASSERT_EQ(expected.size(), 2);

    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    noCache(w);
    const int r0 = w.openRun({kRun0}, QStringLiteral("resnet50_num_workers_0"));
    const int r4 = w.openRun({kRun4}, QStringLiteral("resnet50_num_workers_4"));
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 180000));
    ASSERT_EQ(w.runs().run(r0)->state, app::RunState::Loaded);
    ASSERT_EQ(w.runs().run(r4)->state, app::RunState::Loaded);

    const plots::ParamValues values{{"align", std::string("step 7")}, {"cpu_lanes", false}};
    app::PlotView* view = w.openPlot("gpu-timeline", {r0, r4}, 0, &values);
    ASSERT_NE(view, nullptr);
    const auto* spec = plots::findSpec(view->specs(), "align");
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(spec->choices, (std::vector<std::string>{"first event", "first step", "step 5", "step 6", "step 7", "step 8",
                                                       "step 9", "step 10"}));

    using plots::timeline::LaneKind;
    using plots::timeline::TimelinePrepared;
    auto prepared = [&] {
        EXPECT_TRUE(test::waitFor([&] { return w.isIdle() && view->prepared() && !view->isUpdating(); }, 60000));
        return std::dynamic_pointer_cast<const TimelinePrepared>(view->prepared());
    };
    // Per run (in the view's order): each step's start, and the first GPU activity (the streams' first item).
    struct Times {
        std::map<int64_t, int64_t> steps;
        int64_t firstGpu = INT64_MAX;
    };
    auto timesOf = [](const TimelinePrepared& p) {
        std::vector<Times> out(p.runLabels.size());
        for (const auto& lane : p.lanes) {
            if (lane.kind == LaneKind::Steps)
                for (size_t k = 0; k < lane.start.size(); ++k)
                    out[lane.run].steps[lane.rank->steps.number[lane.src[k]]] = lane.start[k];
            if (lane.kind == LaneKind::Stream && !lane.start.empty())
                out[lane.run].firstGpu = std::min(out[lane.run].firstGpu, lane.start.front());
        }
        return out;
    };
    const char* runs[] = {"resnet50_num_workers_0", "resnet50_num_workers_4"};

    auto aligned = prepared();
    ASSERT_NE(aligned, nullptr);
    auto times = timesOf(*aligned);
    ASSERT_EQ(times.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const QJsonObject e = expected.value(QString::fromLatin1(runs[i])).toObject();
        const QJsonObject steps = e.value(QStringLiteral("step7_steps")).toObject();
        ASSERT_EQ(times[i].steps.size(), static_cast<size_t>(steps.size())) << runs[i];
        for (auto it = steps.begin(); it != steps.end(); ++it)
            EXPECT_EQ(times[i].steps[it.key().toLongLong()], it.value().toInteger()) << runs[i] << " step " << it.key().toStdString();
        EXPECT_EQ(times[i].firstGpu, e.value(QStringLiteral("step7_first_gpu")).toInteger()) << runs[i];
        // The absolute time stays right: relative 0 is step 7's start.
        EXPECT_EQ(aligned->runOrigin[i], e.value(QStringLiteral("steps")).toObject().value(QStringLiteral("7")).toInteger());
    }
    EXPECT_EQ(times[0].steps[7], times[1].steps[7]);  // the point of it: step 7 starts together
    EXPECT_LT(aligned->fullStart, 0);                 // what ran before step 7 is left of 0
    EXPECT_NE(aligned->alignNote.find("ProfilerStep#7"), std::string::npos) << aligned->alignNote;
    EXPECT_EQ(aligned->zeroLabel, "0 = ProfilerStep#7 start");

    // Not aligned: step 7 starts at different times (the runs' steps 5 and 6 took different times).
    view->setValue("align", std::string("first event"));
    auto plain = prepared();
    ASSERT_NE(plain, nullptr);
    times = timesOf(*plain);
    for (size_t i = 0; i < 2; ++i)
        EXPECT_EQ(times[i].steps[7], expected.value(QString::fromLatin1(runs[i])).toObject().value(QStringLiteral("none_step7")).toInteger());
    EXPECT_NE(times[0].steps[7], times[1].steps[7]);
    EXPECT_TRUE(plain->alignNote.empty());
    // Shifting changes no lane: overlapping items are packed into sub-lanes the same way at negative times.
    auto laneKinds = [](const TimelinePrepared& p) {
        std::vector<std::pair<size_t, LaneKind>> out;
        for (const auto& l : p.lanes) out.emplace_back(l.run, l.kind);
        return out;
    };
    EXPECT_EQ(laneKinds(*plain), laneKinds(*aligned));
    EXPECT_EQ(plain->fullStart, 0);

    // First step: ProfilerStep#5 of both at 0.
    view->setValue("align", std::string("first step"));
    auto first = prepared();
    ASSERT_NE(first, nullptr);
    times = timesOf(*first);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(times[i].steps[5], 0);
        EXPECT_EQ(times[i].firstGpu,
                  expected.value(QString::fromLatin1(runs[i])).toObject().value(QStringLiteral("first_step_first_gpu")).toInteger());
    }

    // A third run without steps is not shifted, and the plot says so.
    const int bare = w.runs().addDataset(QStringLiteral("no-steps"), test::makeDataset(1));
    app::PlotView* three = w.openPlot("gpu-timeline", {r0, r4, bare}, 0, &values);
    ASSERT_NE(three, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && three->prepared() && !three->isUpdating(); }, 60000));
    auto withBare = std::dynamic_pointer_cast<const TimelinePrepared>(three->prepared());
    ASSERT_NE(withBare, nullptr);
    ASSERT_EQ(withBare->runOrigin.size(), 3u);
    EXPECT_EQ(withBare->runOrigin[2], 0);  // its own origin (an empty run: 0)
    EXPECT_NE(withBare->alignNote.find("not shifted"), std::string::npos) << withBare->alignNote;
    EXPECT_NE(withBare->alignNote.find("no-steps"), std::string::npos) << withBare->alignNote;
    bool said = false;
    for (const auto& m : withBare->messages) said |= m == "no-steps has no ProfilerStep#7: not shifted";
    EXPECT_TRUE(said);
}

namespace {

// A slow, scripted load: reports progress every few milliseconds until released (or cancelled), then loads an
// empty dataset. Counts the loads inside it at once.
struct SlowLoads {
    std::atomic<bool> release{false};
    std::atomic<int> inside{0};
    std::atomic<int> mostInside{0};
    app::RunManager::LoadFunction function() {
        return [this](const std::vector<std::string>& paths, const core::RunLoadOptions&,
                      const core::RunCallbacks& cb) -> core::Result<core::DatasetPtr> {
            const int now = ++inside;
            for (int seen = mostInside.load(); now > seen && !mostInside.compare_exchange_weak(seen, now);) {
            }
            double fraction = 0.0;
            while (!release.load()) {
                if (cb.cancel.cancelled()) {
                    --inside;
                    return core::Error("cancelled");
                }
                fraction = std::min(0.95, fraction + 0.01);
                if (cb.onProgress) cb.onProgress({"parse", paths.front(), fraction, 0, 0});
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            --inside;
            return test::makeDataset(1);
        };
    }
};

}  // namespace

// Opening a sweep loads its runs side by side: both report progress (the Sweep panel's state column says
// "loading N %") before either finishes; cancelling one leaves the other loading, and it then loads.
TEST(SweepGui, SweepRunsLoadSideBySideAndCancelAlone) {
    test::app();
    core::JobRunner runner(4);
    SlowLoads slow;
    {
        app::RunManager runs(runner);
        runs.setLoadFunction(slow.function());
        app::SweepPanel panel(runs);
        panel.openSweep(kSweepDir);
        ASSERT_TRUE(test::waitFor([&] { return !panel.discovering(); }));
        ASSERT_EQ(runs.runIds().size(), 2u);
        const int a = runs.runIds()[0], b = runs.runIds()[1];
        auto progressing = [&](int id) {
            const app::RunRecord* r = runs.run(id);
            return r && r->state == app::RunState::Loading && r->fraction > 0.05;
        };
        ASSERT_TRUE(test::waitFor([&] { return progressing(a) && progressing(b); }, 20000));
        EXPECT_EQ(slow.mostInside.load(), 2);
        auto* table = panel.findChild<QTableWidget*>(QStringLiteral("sweepRuns"));
        ASSERT_NE(table, nullptr);
        for (int row = 0; row < table->rowCount(); ++row) {
            const QString state = table->item(row, table->columnCount() - 1)->text();
            EXPECT_TRUE(state.startsWith(QStringLiteral("loading ")) && state.endsWith(QStringLiteral(" %")))
                << state.toStdString();
        }

        runs.cancel(a);
        ASSERT_TRUE(test::waitFor([&] { return runs.run(a)->state == app::RunState::Cancelled; }, 20000));
        EXPECT_EQ(runs.run(b)->state, app::RunState::Loading);
        const double then = runs.run(b)->fraction;
        ASSERT_TRUE(test::waitFor([&] { return runs.run(b)->fraction > then; }, 20000));  // still going
        EXPECT_EQ(runs.run(b)->state, app::RunState::Loading);
        slow.release = true;
        ASSERT_TRUE(test::waitFor([&] { return runs.run(b)->state == app::RunState::Loaded; }, 20000));
        EXPECT_EQ(runs.run(a)->state, app::RunState::Cancelled);
        runner.waitIdle();
    }
}

// Within the memory limit: when the two runs' estimates do not fit together, one waits ("waiting for memory" in the
// Sweep panel) while the other loads, and goes on when that one is done.
TEST(SweepGui, SweepRunsWaitForMemory) {
    test::app();
    core::JobRunner runner(4);
    SlowLoads slow;
    {
        app::RunManager runs(runner);
        runs.setLoadFunction(slow.function());
        uint64_t both = 0, largest = 0;
        for (const QString& dir : {kRun0, kRun4}) {
            auto files = core::expandRunPaths({dir.toStdString()});
            ASSERT_TRUE(files.ok());
            const uint64_t e = core::MemoryBudget::estimateRun(files.value(), 1);
            both += e;
            largest = std::max(largest, e);
        }
        ASSERT_GT(both, largest);
        runner.setMemoryLimit(both - 1);  // either fits alone, not both
        app::SweepPanel panel(runs);
        panel.openSweep(kSweepDir);
        ASSERT_TRUE(test::waitFor([&] { return !panel.discovering(); }));
        ASSERT_EQ(runs.runIds().size(), 2u);
        const int a = runs.runIds()[0], b = runs.runIds()[1];
        auto waiting = [&](int id) { return runs.run(id)->wait == app::RunRecord::Wait::Memory; };
        auto loading = [&](int id) { return runs.run(id)->fraction > 0.05 && runs.run(id)->wait == app::RunRecord::Wait::None; };
        ASSERT_TRUE(test::waitFor([&] { return (waiting(a) && loading(b)) || (waiting(b) && loading(a)); }, 20000));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        QCoreApplication::processEvents();
        EXPECT_EQ(slow.mostInside.load(), 1);
        auto* table = panel.findChild<QTableWidget*>(QStringLiteral("sweepRuns"));
        ASSERT_NE(table, nullptr);
        QStringList states;
        for (int row = 0; row < table->rowCount(); ++row) states << table->item(row, table->columnCount() - 1)->text();
        EXPECT_TRUE(states.contains(QStringLiteral("waiting for memory"))) << states.join(QStringLiteral(", ")).toStdString();
        slow.release = true;
        ASSERT_TRUE(test::waitFor([&] {
            return runs.run(a)->state == app::RunState::Loaded && runs.run(b)->state == app::RunState::Loaded;
        }, 20000));
        runner.waitIdle();
    }
}
