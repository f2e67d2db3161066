// The window: sessions round-trip through YAML; the bundled sample opens with 8 ranks and their summaries;
// a bad file shows an inline error and leaves the other open run intact.
#include "app/gui/main_window.h"

#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeWidget>
#include <QUrl>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "app/gui/export_dialog.h"
#include "app/gui/jobs_panel.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "app/gui/runs_panel.h"
#include "app/gui/session_layout.h"
#include "app/gui/table_view.h"
#include "core/engine/session.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

QTreeWidgetItem* runItem(app::MainWindow& w, int runId) {
    QTreeWidget* tree = w.runsPanel()->tree();
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->data(0, Qt::UserRole).toInt() == runId) return tree->topLevelItem(i);
    return nullptr;
}

}  // namespace

TEST(MainWindow, SessionRoundTrip) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const int a = w.runs().addDataset(QStringLiteral("a"), test::makeDataset(2));
    const int b = w.runs().addDataset(QStringLiteral("b"), test::makeDataset(4));
    ASSERT_NE(plots::PlotRegistry::instance().find("test-instrumented"), nullptr);
    plots::ParamValues values{{"bins", 42LL}, {"color", std::string("#aa0000")}};
    ASSERT_NE(w.openPlot("test-instrumented", {a}, 0, &values), nullptr);
    ASSERT_NE(w.openPlot("test-instrumented", {b}, 1), nullptr);
    ASSERT_NE(w.openPlot("test-instrumented", {a, b}, 1), nullptr);
    EXPECT_TRUE(w.plotArea()->isSplit());

    const core::Session captured = w.captureSession();
    ASSERT_EQ(captured.plots.size(), 3u);
    EXPECT_EQ(std::get<long long>(captured.plots[0].values.at("bins")), 42);
    auto capturedLayout = app::readLayout(captured);
    ASSERT_TRUE(capturedLayout.ok()) << capturedLayout.error().toString();
    ASSERT_EQ(capturedLayout->plots.size(), 3u);
    EXPECT_EQ(capturedLayout->plots[0].pane, 0);
    EXPECT_EQ(capturedLayout->plots[1].pane, 1);
    EXPECT_EQ(captured.plots[2].runs, (std::vector<int>{0, 1}));
    EXPECT_TRUE(capturedLayout->split);

    // YAML file → load → equal.
    const auto path = (std::filesystem::temp_directory_path() / "strobe_window_session.yaml").string();
    ASSERT_TRUE(w.saveSession(QString::fromStdString(path)));
    auto loaded = core::loadSession(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
    EXPECT_EQ(loaded.value(), captured);

    // Reopen on the same (in-memory) runs: the same plots, parameters and split come back.
    const std::vector<int> ids{a, b};
    ASSERT_TRUE(w.applySession(loaded.value(), &ids));
    const core::Session again = w.captureSession();
    auto againLayout = app::readLayout(again);
    ASSERT_TRUE(againLayout.ok()) << againLayout.error().toString();
    ASSERT_EQ(again.plots.size(), captured.plots.size());
    for (size_t i = 0; i < again.plots.size(); ++i) {
        EXPECT_EQ(again.plots[i].plotId, captured.plots[i].plotId);
        EXPECT_EQ(again.plots[i].runs, captured.plots[i].runs);
        EXPECT_EQ(again.plots[i].values, captured.plots[i].values);
        EXPECT_EQ(againLayout->plots[i].pane, capturedLayout->plots[i].pane);
    }
    EXPECT_EQ(againLayout->split, capturedLayout->split);
    std::filesystem::remove(path);
}

TEST(MainWindow, SessionErrorIsInline) {
    test::app();
    app::MainWindow w;
    const auto path = (std::filesystem::temp_directory_path() / "strobe_bad_session.yaml").string();
    {
        std::ofstream out(path);
        out << "strobe_session: 1\nplots:\n  - id: x\n    runs: [4]\n";
    }
    EXPECT_FALSE(w.openSession(QString::fromStdString(path)));
    EXPECT_TRUE(w.lastError().contains(QString::fromStdString(path))) << w.lastError().toStdString();
    EXPECT_TRUE(w.lastError().contains(QStringLiteral("line 4"))) << w.lastError().toStdString();

    // A layout field of the wrong type (read by the GUI, not by core) also names the file and its line.
    {
        std::ofstream out(path);
        out << "strobe_session: 1\nplots: []\nlayout:\n  split: maybe\n";
    }
    EXPECT_FALSE(w.openSession(QString::fromStdString(path)));
    EXPECT_TRUE(w.lastError().contains(QString::fromStdString(path))) << w.lastError().toStdString();
    EXPECT_TRUE(w.lastError().contains(QStringLiteral("line 4"))) << w.lastError().toStdString();
    EXPECT_TRUE(w.lastError().contains(QStringLiteral("split"))) << w.lastError().toStdString();
    std::filesystem::remove(path);
}

// Strobe's CPU sampler beside a Kineto trace: one rank in the tree and a "Host telemetry" row (never "Rank 1 — 0
// kernels"), and a timeline opened while the run loads shows the sampler's metrics once it has (its default,
// built from the data, follows the data: tests/data/telemetry/strobe/cpu_sampler_2core.csv's columns).
TEST(MainWindow, HostTelemetryIsARowOfItsOwnAndItsLanesAreShown) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const QString data = QString::fromUtf8(STROBE_TEST_DATA_DIR);
    const auto ids = w.openPaths({data + QStringLiteral("/kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
                                  data + QStringLiteral("/telemetry/strobe/cpu_sampler_2core.csv")});
    ASSERT_EQ(ids.size(), 1u);
    app::PlotView* timeline = w.openPlot("gpu-timeline", {ids[0]}, 0);
    ASSERT_NE(timeline, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 60000));
    const app::RunRecord* run = w.runs().run(ids[0]);
    ASSERT_EQ(run->state, app::RunState::Loaded) << (run->error ? run->error->toString() : "");
    EXPECT_EQ(run->summaries.size(), 1u);
    QTreeWidgetItem* item = runItem(w, ids[0]);
    ASSERT_NE(item, nullptr);
    QStringList rows;
    for (int i = 0; i < item->childCount(); ++i) rows << item->child(i)->text(0);
    EXPECT_EQ(rows.filter(QStringLiteral("Rank")).size(), 1) << rows.join(QStringLiteral(" | ")).toStdString();
    EXPECT_TRUE(rows.contains(QStringLiteral("Host telemetry"))) << rows.join(QStringLiteral(" | ")).toStdString();
    EXPECT_TRUE(item->text(1).startsWith(QStringLiteral("1 rank"))) << item->text(1).toStdString();
    const auto it = timeline->values().find("telemetry");
    ASSERT_NE(it, timeline->values().end());
    EXPECT_EQ(std::get<std::vector<std::string>>(it->second),
              (std::vector<std::string>{"mem_used_mib", "mem_total_mib", "cpu.util_pct", "cpu0.util_pct", "cpu1.util_pct"}));
}

TEST(MainWindow, OpensTheSampleWithEightRanks) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const auto ids =
        w.openPaths({(QString::fromUtf8(STROBE_RESOURCE_DIR) + QStringLiteral("/sample/param-dlrm-8rank"))});
    ASSERT_EQ(ids.size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 180000));
    const app::RunRecord* run = w.runs().run(ids[0]);
    ASSERT_NE(run, nullptr);
    ASSERT_EQ(run->state, app::RunState::Loaded) << (run->error ? run->error->toString() : "");
    ASSERT_NE(run->dataset, nullptr);
    ASSERT_EQ(run->summaries.size(), 8u);
    // The sample is PARAM DLRM on 8 ranks (distributedInfo world_size 8 in every file, see SOURCES.md).
    std::vector<int> ranks;
    for (const auto& s : run->summaries) {
        ranks.push_back(s.rank);
        EXPECT_EQ(s.worldSize, 8);
        EXPECT_GT(s.kernelCount, 0u);
    }
    EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    // The tree lists the eight ranks under the run.
    QTreeWidgetItem* item = runItem(w, ids[0]);
    ASSERT_NE(item, nullptr);
    int rankRows = 0;
    for (int i = 0; i < item->childCount(); ++i)
        if (item->child(i)->text(0).startsWith(QStringLiteral("Rank "))) ++rankRows;
    EXPECT_EQ(rankRows, 8);
    // Selecting a rank shows its summary.
    for (int i = 0; i < item->childCount(); ++i)
        if (item->child(i)->text(0).startsWith(QStringLiteral("Rank 3"))) w.runsPanel()->tree()->setCurrentItem(item->child(i));
    EXPECT_TRUE(w.runsPanel()->details()->toPlainText().contains(QStringLiteral("Top kernels")));
}

TEST(MainWindow, BadFileShowsInlineErrorAndKeepsOtherRun) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const int good = w.runs().addDataset(QStringLiteral("good"), test::makeDataset(2));
    const auto goodData = w.runs().run(good)->dataset;
    const auto badPath = (std::filesystem::temp_directory_path() / "strobe_bad_trace.json").string();
    {
        std::ofstream out(badPath, std::ios::binary);
        // Not JSON at all: binary bytes (a truncated JSON would be loaded as a truncated trace, with a warning).
        const char junk[] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe not a trace";
        out.write(junk, sizeof junk - 1);
    }
    const auto ids = w.openPaths({QString::fromStdString(badPath)});
    ASSERT_EQ(ids.size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 60000));
    const app::RunRecord* bad = w.runs().run(ids[0]);
    ASSERT_NE(bad, nullptr);
    EXPECT_EQ(bad->state, app::RunState::Failed);
    ASSERT_TRUE(bad->error.has_value());
    EXPECT_NE(bad->error->toString().find("strobe_bad_trace.json"), std::string::npos) << bad->error->toString();
    // Inline: an "Error" row under the bad run in the tree, and the error bar — no dialog, no crash.
    QTreeWidgetItem* item = runItem(w, ids[0]);
    ASSERT_NE(item, nullptr);
    bool errorRow = false;
    for (int i = 0; i < item->childCount(); ++i) errorRow |= item->child(i)->text(0) == QStringLiteral("Error");
    EXPECT_TRUE(errorRow);
    EXPECT_FALSE(w.lastError().isEmpty());
    // The banner names the file once (it repeated the path before: the run's label, then the error's file).
    EXPECT_EQ(w.lastError().count(QStringLiteral("strobe_bad_trace.json")), 1) << w.lastError().toStdString();
    // The other run is untouched.
    const app::RunRecord* other = w.runs().run(good);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(other->state, app::RunState::Loaded);
    EXPECT_EQ(other->dataset, goodData);
    std::filesystem::remove(badPath);
}

namespace {
// A shown window (no default plot) with the bundled 8-rank sample loaded; returns the run ids.
std::vector<int> showWithSample(app::MainWindow& w) {
    w.setAutoOpenDefaultPlot(false);
    w.resize(1400, 900);
    w.show();
    const auto ids =
        w.openPaths({(QString::fromUtf8(STROBE_RESOURCE_DIR) + QStringLiteral("/sample/param-dlrm-8rank"))});
    EXPECT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 180000));
    return ids;
}
}  // namespace

TEST(MainWindow, TimelineZoomIsSynchronisedAndPlotsExport) {
    test::app();
    app::MainWindow w;
    const auto ids = showWithSample(w);
    const app::RunRecord* run = w.runs().run(ids.at(0));
    ASSERT_NE(run, nullptr);
    ASSERT_EQ(run->state, app::RunState::Loaded) << (run->error ? run->error->toString() : "");
    if (!plots::PlotRegistry::instance().find("gpu-timeline")) FAIL() << "no gpu-timeline plot registered";
    app::PlotView* left = w.openPlot("gpu-timeline", {ids[0]}, 0);
    app::PlotView* right = w.openPlot("gpu-timeline", {ids[0]}, 1);
    ASSERT_NE(left, nullptr);
    ASSERT_NE(right, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && left->prepared() && right->prepared(); }));
    const auto whole = left->viewRange();
    ASSERT_TRUE(whole.has_value());
    // Zoom the left one in (as "+" does): its range shrinks, and the right one follows.
    left->zoomBy(0.5);
    const auto zoomed = left->viewRange();
    ASSERT_TRUE(zoomed.has_value());
    EXPECT_LT(zoomed->end - zoomed->start, whole->end - whole->start);
    const auto followed = right->viewRange();
    ASSERT_TRUE(followed.has_value());
    EXPECT_EQ(followed->start, zoomed->start);
    EXPECT_EQ(followed->end, zoomed->end);
    // Reset (as "0" does) returns to the whole range.
    left->resetZoom();
    EXPECT_EQ(left->viewRange()->end - left->viewRange()->start, whole->end - whole->start);

    // Export the current plot in every format; each file is written and not empty.
    const auto dir = std::filesystem::temp_directory_path() / "strobe_export_test";
    std::filesystem::create_directories(dir);
    for (const char* name : {"t.png", "t.svg", "t.pdf", "t.csv"}) {
        const auto path = dir / name;
        std::filesystem::remove(path);
        ASSERT_TRUE(w.exportCurrentPlot(QString::fromStdString(path.string())));
        ASSERT_TRUE(test::waitFor([&] { return w.jobs().jobs().empty(); }));
        ASSERT_TRUE(std::filesystem::exists(path)) << name;
        EXPECT_GT(std::filesystem::file_size(path), 100u) << name;
    }
    std::ifstream csv(dir / "t.csv");
    std::string header;
    std::getline(csv, header);
    EXPECT_NE(header.find("name"), std::string::npos) << header;
    std::filesystem::remove_all(dir);
}

// The Selection dock shows the item selected in the plot in front: switching to another plot clears it (it kept
// a timeline kernel before), switching back shows that plot's selection again.
TEST(MainWindow, SelectionFollowsTheCurrentPlot) {
    test::app();
    app::MainWindow w;
    const auto ids = showWithSample(w);
    app::PlotView* timeline = w.openPlot("gpu-timeline", {ids.at(0)}, 0);
    app::PlotView* breakdown = w.openPlot("kernel-breakdown", {ids.at(0)}, 0);
    ASSERT_NE(timeline, nullptr);
    ASSERT_NE(breakdown, nullptr);
    auto* details = w.findChild<QTextBrowser*>(QStringLiteral("selectionDetails"));
    ASSERT_NE(details, nullptr);
    w.plotArea()->setCurrentIndex(0, 0);
    ASSERT_EQ(w.plotArea()->currentView(), timeline);
    Q_EMIT timeline->itemSelected(QStringLiteral("ncclKernel"), QStringLiteral("<b>ncclKernel_AllReduce</b>"));
    EXPECT_TRUE(details->toPlainText().contains(QStringLiteral("ncclKernel_AllReduce")));
    w.plotArea()->setCurrentIndex(0, 1);
    ASSERT_EQ(w.plotArea()->currentView(), breakdown);
    EXPECT_TRUE(details->toPlainText().isEmpty()) << details->toPlainText().toStdString();
    w.plotArea()->setCurrentIndex(0, 0);
    EXPECT_TRUE(details->toPlainText().contains(QStringLiteral("ncclKernel_AllReduce")));
}

// Dropping files from a file manager opens them as a run.
TEST(MainWindow, DroppedFilesOpenAsARun) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(
        (QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/small/current_schema.json")))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &drop);
    // The dropped paths are looked at (is a directory a sweep?) by a job of the runner, then opened.
    ASSERT_TRUE(test::waitFor([&] { return w.pendingDrops() == 0; }));
    ASSERT_EQ(w.runs().runIds().size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 60000));
    const app::RunRecord* run = w.runs().run(w.runs().runIds().front());
    ASSERT_NE(run, nullptr);
    ASSERT_EQ(run->state, app::RunState::Loaded) << (run->error ? run->error->toString() : "");
    EXPECT_GT(run->dataset->ranks.front()->gpu.size(), 0u);
}

// A trace rewritten on disk (a profiler still writing, a re-run) is reloaded: a new dataset generation appears.
TEST(MainWindow, ChangedFileIsReloaded) {
    test::app();
    const auto dir = std::filesystem::temp_directory_path() / ("strobe_reload_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "rank0.json";
    std::filesystem::copy_file((std::string(STROBE_TEST_DATA_DIR) + "/small/current_schema.json"), file,
                               std::filesystem::copy_options::overwrite_existing);
    {
        app::MainWindow w;
        w.setAutoOpenDefaultPlot(false);
        const auto ids = w.openPaths({QString::fromStdString(file.string())});
        ASSERT_EQ(ids.size(), 1u);
        ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 60000));
        const app::RunRecord* run = w.runs().run(ids[0]);
        ASSERT_TRUE(run && run->dataset);
        const uint64_t before = run->dataset->generation;
        const size_t kernelsBefore = run->dataset->ranks.front()->gpu.size();
        {
            std::ofstream out(file, std::ios::app);
            out << "\n\n";  // same events, new size and mtime
        }
        ASSERT_TRUE(test::waitFor(
            [&] {
                const app::RunRecord* r = w.runs().run(ids[0]);
                return r && r->dataset && r->dataset->generation != before && !w.runs().anyLoading();
            },
            60000))
            << "no reload after the file changed";
        EXPECT_EQ(w.runs().run(ids[0])->dataset->ranks.front()->gpu.size(), kernelsBefore);
    }
    std::filesystem::remove_all(dir);
}

// With "Synchronise time axes" on, a timeline opened in the other pane takes the zoomed range of the first at
// once (it kept the whole range until the first zoom or pan before); with it off, it keeps its own whole range.
TEST(MainWindow, NewSplitPaneTakesTheSynchronisedRange) {
    test::app();
    app::MainWindow w;
    const auto ids = showWithSample(w);
    app::PlotView* left = w.openPlot("gpu-timeline", {ids.at(0)}, 0);
    ASSERT_NE(left, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && left->prepared(); }));
    const auto whole = left->viewRange();
    ASSERT_TRUE(whole.has_value());
    left->zoomBy(0.5);
    left->zoomBy(0.5);
    const auto zoomed = left->viewRange();
    ASSERT_TRUE(zoomed.has_value());
    ASSERT_LT(zoomed->end - zoomed->start, whole->end - whole->start);
    ASSERT_TRUE(w.plotArea()->syncTimeAxes());
    app::PlotView* right = w.openPlot("gpu-timeline", {ids[0]}, 1);
    ASSERT_NE(right, nullptr);
    EXPECT_TRUE(w.plotArea()->isSplit());
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && right->prepared(); }));
    const auto followed = right->viewRange();
    ASSERT_TRUE(followed.has_value());
    EXPECT_EQ(followed->start, zoomed->start);
    EXPECT_EQ(followed->end, zoomed->end);
    // Off: a new timeline in the split pane shows its whole range.
    w.plotArea()->setSyncTimeAxes(false);
    app::PlotView* third = w.openPlot("gpu-timeline", {ids[0]}, 1);
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && third->prepared(); }));
    EXPECT_EQ(third->viewRange()->end - third->viewRange()->start, whole->end - whole->start);
}

namespace {
// Closes `w` while a timer answers the save prompt (if one appears) with `answer`; returns whether the window
// accepted the close, and in `asked` whether the prompt appeared.
bool closeAnswering(app::MainWindow& w, QMessageBox::StandardButton answer, bool& asked) {
    asked = false;
    QTimer timer;
    timer.setInterval(20);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || box->objectName() != QLatin1String("saveSessionPrompt")) return;
        asked = true;
        box->button(answer)->click();
    });
    timer.start();
    return w.close();
}
}  // namespace

// Closing with runs, plots or parameters changed since the session was opened or saved asks Save / Discard /
// Cancel; Cancel keeps the window; an unchanged session (nothing opened, or just saved) closes without asking.
TEST(MainWindow, AsksBeforeClosingAnUnsavedSession) {
    test::app();
    qunsetenv("STROBE_NO_SAVE_PROMPT");
    {
        app::MainWindow untouched;
        untouched.show();
        bool asked = true;
        EXPECT_TRUE(closeAnswering(untouched, QMessageBox::Cancel, asked));
        EXPECT_FALSE(asked);
    }
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    w.show();
    const int run = w.runs().addDataset(QStringLiteral("a"), test::makeDataset(2));
    ASSERT_NE(w.openPlot("test-instrumented", {run}, 0), nullptr);
    EXPECT_TRUE(w.isSessionModified());
    bool asked = false;
    EXPECT_FALSE(closeAnswering(w, QMessageBox::Cancel, asked));
    EXPECT_TRUE(asked);
    EXPECT_TRUE(w.isVisible());
    // Saved: closing asks nothing.
    const auto path = std::filesystem::temp_directory_path() / ("strobe_quit_" + std::to_string(::getpid()) + ".yaml");
    ASSERT_TRUE(w.saveSession(QString::fromStdString(path.string())));
    EXPECT_FALSE(w.isSessionModified());
    w.show();
    EXPECT_TRUE(closeAnswering(w, QMessageBox::Cancel, asked));
    EXPECT_FALSE(asked);
    // Changed again, then Discard: closes.
    w.show();
    ASSERT_NE(w.openPlot("test-instrumented", {run}, 0), nullptr);
    EXPECT_TRUE(closeAnswering(w, QMessageBox::Discard, asked));
    EXPECT_TRUE(asked);
    // The environment variable (CI, scripts) turns the question off.
    w.show();
    ASSERT_NE(w.openPlot("test-instrumented", {run}, 0), nullptr);
    qputenv("STROBE_NO_SAVE_PROMPT", "1");
    EXPECT_TRUE(closeAnswering(w, QMessageBox::Cancel, asked));
    EXPECT_FALSE(asked);
    qunsetenv("STROBE_NO_SAVE_PROMPT");
    std::filesystem::remove(path);
}

// Export at a chosen size: a 1600 × 900 PNG with the title and the run's name in its top rows; the export
// directory is remembered for the next export dialog, which never starts in the working directory.
TEST(MainWindow, ExportsAtAChosenSizeWithTitleAndRememberedDirectory) {
    test::app();
    app::MainWindow w;
    const auto ids = showWithSample(w);
    app::PlotView* timeline = w.openPlot("gpu-timeline", {ids.at(0)}, 0);
    ASSERT_NE(timeline, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && timeline->prepared(); }));
    const auto dir = std::filesystem::temp_directory_path() / ("strobe_export_size_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const QString png = QString::fromStdString((dir / "t.png").string());
    ASSERT_TRUE(w.exportCurrentPlot(png, QSize(1600, 900)));
    ASSERT_TRUE(test::waitFor([&] { return w.jobs().jobs().empty(); }));
    QImage img(png);
    ASSERT_EQ(img.size(), QSize(1600, 900));
    int dark = 0;  // caption text: "GPU timeline" in bold at the top left
    for (int y = 0; y < 24; ++y)
        for (int x = 0; x < 300; ++x) dark += qGray(img.pixel(x, y)) < 100;
    EXPECT_GT(dark, 30);
    const QString svg = QString::fromStdString((dir / "t.svg").string());
    ASSERT_TRUE(w.exportCurrentPlot(svg, QSize(1600, 900)));
    ASSERT_TRUE(test::waitFor([&] { return w.jobs().jobs().empty(); }));
    QFile f(svg);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    EXPECT_TRUE(text.contains(QRegularExpression(QStringLiteral("<text[^>]*>GPU timeline</text>"))));
    EXPECT_TRUE(text.contains(QStringLiteral("param-dlrm-8rank")));

    app::rememberExportDirectory(png);
    EXPECT_EQ(app::lastExportDirectory(), QString::fromStdString(dir.string()));
    app::ExportDialog dialog(QStringLiteral("gpu-timeline.png"), QSize(728, 842));
    EXPECT_EQ(QFileInfo(dialog.path()).absolutePath(), QString::fromStdString(dir.string()));
    dialog.setImageSize(QSize(1920, 1080));
    EXPECT_EQ(dialog.imageSize(), QSize(1920, 1080));
    std::filesystem::remove_all(dir);
    // A remembered directory that is gone: the home directory.
    EXPECT_EQ(app::lastExportDirectory(), QDir::homePath());
}

// Top kernels on screen is a table widget: every row (not the 30 the picture draws), no "rank" column saying
// "all" on every row, durations with their unit.
TEST(MainWindow, TopKernelsTableShowsEveryRow) {
    test::app();
    app::MainWindow w;
    const auto ids = showWithSample(w);
    app::PlotView* view = w.openPlot("top-kernels", {ids.at(0)}, 0);
    ASSERT_NE(view, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle() && view->prepared(); }));
    app::PlotTableView* table = view->tableView();
    ASSERT_NE(table, nullptr);
    EXPECT_TRUE(table->isVisible());
    const core::Table all = view->plot().table(*view->prepared(), view->values());
    EXPECT_GT(all.rows.size(), 30u);  // more than the picture's 30 rows
    EXPECT_EQ(table->model()->rowCount(), static_cast<int>(all.rows.size()));
    const auto& columns = table->tableModel()->columns();
    EXPECT_EQ(std::find(columns.begin(), columns.end(), "rank"), columns.end());
    const auto total = std::find(columns.begin(), columns.end(), "total_ns");
    ASSERT_NE(total, columns.end());
    const QString cell =
        table->model()->data(table->model()->index(0, static_cast<int>(total - columns.begin()))).toString();
    EXPECT_TRUE(cell.endsWith(QStringLiteral(" s")) || cell.endsWith(QStringLiteral("ms")) ||
                cell.endsWith(QStringLiteral("µs")) || cell.endsWith(QStringLiteral("ns")))
        << cell.toStdString();
    // A click on a header sorts by that column; the next click turns the order round.
    Q_EMIT table->horizontalHeader()->sectionClicked(static_cast<int>(
        std::find(columns.begin(), columns.end(), "count") - columns.begin()));
    EXPECT_EQ(std::get<std::string>(view->values().at("sort_by")), "count");
    EXPECT_TRUE(std::get<bool>(view->values().at("descending")));
}

// Opening a run opens its view: the first run's and every later one's (Nsight and Perfetto show what was opened),
// each in a tab of its own; a run already shown by a view opens no second one.
TEST(MainWindow, EveryOpenedRunOpensItsView) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(true);
    const QString dir = QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/kineto/kineto-configs/");
    const auto a = w.openPaths({dir + QStringLiteral("resnet50_num_workers_0")});
    ASSERT_EQ(a.size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading() && w.plotArea()->views().size() == 1; }, 180000));
    const auto b = w.openPaths({dir + QStringLiteral("resnet50_num_workers_4")});
    ASSERT_EQ(b.size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading() && w.plotArea()->views().size() == 2; }, 180000));
    const auto views = w.plotArea()->views();
    EXPECT_EQ(views[0]->runIds(), (std::vector<int>{a[0]}));
    EXPECT_EQ(views[1]->runIds(), (std::vector<int>{b[0]}));
    EXPECT_TRUE(views[1]->isTimeline());
    ASSERT_TRUE(test::waitFor([&] { return w.isIdle(); }, 60000));
    EXPECT_EQ(w.plotArea()->views().size(), 2u);
}

// An nsys export makes one rank per process: the Runs tree names the process, not only "Rank 0". Expected from the
// file itself: /usr/bin/python3 -c "import sqlite3; c = sqlite3.connect('tests/data/sqlite/nsys_cloverleaf_a100.sqlite');
// print(c.execute('SELECT pid, name FROM PROCESSES WHERE pid = (SELECT DISTINCT globalPid >> 24 & 0xFFFFFF FROM
// CUPTI_ACTIVITY_KIND_KERNEL)').fetchall())"  →  [(1701896, 'cuda-cloverleaf')]
TEST(MainWindow, NsysRankRowNamesItsProcess) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const auto ids =
        w.openPaths({QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/sqlite/nsys_cloverleaf_a100.sqlite")});
    ASSERT_EQ(ids.size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 180000));
    QTreeWidgetItem* item = runItem(w, ids[0]);
    ASSERT_NE(item, nullptr);
    QTreeWidgetItem* rankRow = nullptr;
    for (int i = 0; i < item->childCount(); ++i)
        if (item->child(i)->text(0).startsWith(QStringLiteral("Rank 0"))) rankRow = item->child(i);
    ASSERT_NE(rankRow, nullptr);
    EXPECT_EQ(rankRow->text(0), QStringLiteral("Rank 0 · cuda-cloverleaf (pid 1701896)"));
    w.runsPanel()->tree()->setCurrentItem(rankRow);
    EXPECT_TRUE(w.runsPanel()->details()->toPlainText().contains(QStringLiteral("cuda-cloverleaf (pid 1701896)")));
}
