// The GUI's clock offset (the run's menu ▸ Clock offset…, strobe --clock-offset) on the real H200 run of tests/data/cuda:
// nvidia-smi writes its local wall time without a zone, so its samples cannot be drawn beside the PyTorch trace
// (anchored by baseTimeNanoseconds) until the user gives an offset. The capture machine ran in UTC, so the offset is 0.
// Expected values, independently (Python's csv and datetime, the timestamps read as UTC):
//   python3 -c "import csv,datetime as d; r=list(csv.reader(open('tests/data/cuda/sweep/batch=8/rep1/nvidia_smi.csv'),
//     skipinitialspace=True))[1:]; t=[d.datetime.strptime(x[0],'%Y/%m/%d %H:%M:%S.%f').replace(tzinfo=d.timezone.utc)
//     for x in r]; print(len(t), min(t).timestamp(), max(t).timestamp())"
//   → 127 samples, 1795792295.213 .. 1795792308.011 s; the three profiled steps' realtime anchors (strobe_torch,
//   tests/core/cuda_h200_test.cpp) 1795792305.916..305.944 s lie inside.
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTextBrowser>
#include <QTimer>

#include <gtest/gtest.h>

#include "app/gui/clock_offset_dialog.h"
#include "app/gui/main_window.h"
#include "app/gui/run_manager.h"
#include "app/gui/runs_panel.h"
#include "core/engine/session.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

const QString kRun = (QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/cuda/sweep/batch=8/rep1"));
constexpr int64_t kFirstSampleUtcNs = 1795792295213000000;
constexpr int64_t kLastSampleUtcNs = 1795792308011000000;
constexpr int64_t kFirstStepAnchorNs = 1795792305916274494;

const core::RankData* smiRank(const app::RunRecord* run) {
    if (!run || !run->dataset) return nullptr;
    for (const core::RankData* r : run->dataset->sampleSources())  // host telemetry, not a rank
        if (r && r->info.format == "nvidia-smi-csv") return r;
    return nullptr;
}

bool refusesOverlay(const app::RunRecord* run) {
    for (const auto& w : run->warnings)
        if (w.message.find("refusing to overlay") != std::string::npos) return true;
    return false;
}

bool loaded(const app::RunRecord* run) { return run && run->state == app::RunState::Loaded && !run->reloading; }

// Fills the dialog the next exec() opens with `text` and presses OK (or, with remove, "Remove the offset").
void answerDialog(const QString& text, bool remove = false) {
    QTimer::singleShot(0, [text, remove] {
        auto* dialog = qobject_cast<app::ClockOffsetDialog*>(QApplication::activeModalWidget());
        ASSERT_NE(dialog, nullptr);
        if (remove) {
            dialog->removeButton()->click();
            return;
        }
        dialog->field()->setText(text);
        dialog->accept();
    });
}

}  // namespace

TEST(ClockOffset, NvidiaSmiLocalTimeJoinsTheTraceOnceTheRunHasAnOffset) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    auto options = w.runs().loadOptions();
    options.useCache = false;
    w.runs().setLoadOptions(options);
    const int id = w.openRun({kRun});
    ASSERT_TRUE(test::waitFor([&] { return loaded(w.runs().run(id)); }, 60000));
    const app::RunRecord* run = w.runs().run(id);
    const core::RankData* smi = smiRank(run);
    ASSERT_NE(smi, nullptr);
    EXPECT_FALSE(smi->info.clock.anchored);
    EXPECT_TRUE(refusesOverlay(run));

    // Through the run's menu action: OK with 0 (the capture machine's zone was UTC).
    answerDialog(QStringLiteral("0"));
    w.runsPanel()->editClockOffset(id);
    ASSERT_TRUE(test::waitFor([&] { return loaded(w.runs().run(id)) && smiRank(w.runs().run(id))->info.clock.anchored; }, 60000));
    run = w.runs().run(id);
    smi = smiRank(run);
    EXPECT_EQ(run->clockOffsetNs, std::optional<int64_t>(0));
    EXPECT_EQ(smi->info.clock.anchor, "--clock-offset");
    EXPECT_EQ(smi->info.clock.toRealtimeNs, 0);
    EXPECT_FALSE(refusesOverlay(run));
    ASSERT_EQ(smi->samples.ts.size() > 0, true);
    const auto [lo, hi] = std::minmax_element(smi->samples.ts.begin(), smi->samples.ts.end());
    EXPECT_EQ(*lo + smi->info.clock.toRealtimeNs, kFirstSampleUtcNs);
    EXPECT_EQ(*hi + smi->info.clock.toRealtimeNs, kLastSampleUtcNs);
    EXPECT_GT(kFirstStepAnchorNs, *lo + smi->info.clock.toRealtimeNs);
    EXPECT_LT(kFirstStepAnchorNs, *hi + smi->info.clock.toRealtimeNs);
    EXPECT_TRUE(w.runsPanel()->details()->toPlainText().contains(QStringLiteral("Clock offset")))
        << w.runsPanel()->details()->toPlainText().toStdString();

    // The offset is part of the session, and comes back with it.
    const core::Session s = w.captureSession();
    ASSERT_EQ(s.runs.size(), 1u);
    EXPECT_EQ(s.runs[0].clockOffsetNs, std::optional<int64_t>(0));
    auto back = core::sessionFromYaml(core::sessionToYaml(s), "mem.yaml");
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(back->runs[0].clockOffsetNs, std::optional<int64_t>(0));

    // An offset of one hour with a unit moves the samples by exactly that.
    answerDialog(QStringLiteral("-1h"));  // not a unit: refused, the dialog stays; then cancelled below
    QTimer::singleShot(50, [] {
        auto* dialog = qobject_cast<app::ClockOffsetDialog*>(QApplication::activeModalWidget());
        ASSERT_NE(dialog, nullptr);
        EXPECT_TRUE(dialog->problem()->isVisibleTo(dialog));
        EXPECT_TRUE(dialog->problem()->text().contains(QStringLiteral("-1h"))) << dialog->problem()->text().toStdString();
        dialog->field()->setText(QStringLiteral("-60min"));
        dialog->accept();
    });
    w.runsPanel()->editClockOffset(id);
    ASSERT_TRUE(test::waitFor([&] { return loaded(w.runs().run(id)) && w.runs().run(id)->clockOffsetNs == -3'600'000'000'000LL; }, 60000));
    smi = smiRank(w.runs().run(id));
    EXPECT_EQ(*std::min_element(smi->samples.ts.begin(), smi->samples.ts.end()) + smi->info.clock.toRealtimeNs,
              kFirstSampleUtcNs - 3'600'000'000'000LL);

    // Removed: unanchored again, and the overlay refused again.
    answerDialog({}, true);
    w.runsPanel()->editClockOffset(id);
    ASSERT_TRUE(test::waitFor([&] { return loaded(w.runs().run(id)) && !w.runs().run(id)->clockOffsetNs; }, 60000));
    EXPECT_FALSE(smiRank(w.runs().run(id))->info.clock.anchored);
    EXPECT_TRUE(refusesOverlay(w.runs().run(id)));
}

// strobe --clock-offset gives each run opened from the command line its offset (MainWindow::openPaths).
TEST(ClockOffset, RunsOpenedWithAnOffsetCarryIt) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const auto ids = w.openPaths({kRun}, int64_t{0});
    ASSERT_EQ(ids.size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return loaded(w.runs().run(ids[0])); }, 60000));
    const core::RankData* smi = smiRank(w.runs().run(ids[0]));
    ASSERT_NE(smi, nullptr);
    EXPECT_TRUE(smi->info.clock.anchored);
    EXPECT_EQ(smi->info.clock.anchor, "--clock-offset");
}
