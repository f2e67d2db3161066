// Timeline navigation in the GUI on a real trace: Ctrl+F, Enter / F3 / Shift+Enter / Shift+F3 step through the
// matches in time order; the context menu's "filter to it" sets name_filter; a drag on the time axis measures a
// range; the lane scrollbar scrolls. Expected values: tests/data/expected/timeline_nav.json (timeline_nav.py,
// Python's json/gzip/re, no Strobe).
#include <QAction>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTest>

#include <gtest/gtest.h>

#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "app/gui/timeline_search_bar.h"
#include "core/engine/job_runner.h"
#include "core/engine/run_loader.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_engine.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

QJsonObject expected() {
    QFile f((QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/expected/timeline_nav.json")));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(f.readAll()).object();
}

class TimelineNavTest : public ::testing::Test {
protected:
    void SetUp() override {
        test::app();
        e = expected();
        runner = std::make_unique<core::JobRunner>(2);
        engine = std::make_unique<plots::PlotEngine>(*runner);
        runs = std::make_unique<app::RunManager>();
        core::RunLoadOptions o;
        o.useCache = false;
        auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/" + e["trace"].toString().toStdString()}, o);
        ASSERT_TRUE(d.ok());
        runId = runs->addDataset(QStringLiteral("resnet"), d.value());
        plot = plots::PlotRegistry::instance().find("gpu-timeline");
        ASSERT_NE(plot, nullptr);
        view = std::make_unique<app::PlotView>(*plot, *engine, *runs, std::vector<int>{runId}, core::ParamValues{});
        view->resize(1100, 500);
        view->show();
        ASSERT_TRUE(test::waitFor([&] { return view->prepared() != nullptr && !view->isUpdating(); }));
    }
    void TearDown() override {
        view.reset();
        runner->waitIdle();
    }
    int64_t origin() const {
        return dynamic_cast<const plots::timeline::TimelinePrepared&>(*view->prepared()).runOrigin.at(0);
    }
    void send(QEvent::Type type, QPointF pos, Qt::MouseButton button, Qt::MouseButtons buttons) {
        QMouseEvent ev(type, pos, view->mapToGlobal(pos), button, buttons, Qt::NoModifier);
        QApplication::sendEvent(view.get(), &ev);
    }

    QJsonObject e;
    std::unique_ptr<core::JobRunner> runner;
    std::unique_ptr<plots::PlotEngine> engine;
    std::unique_ptr<app::RunManager> runs;
    std::unique_ptr<app::PlotView> view;
    const plots::Plot* plot = nullptr;
    int runId = 0;
};

}  // namespace

TEST_F(TimelineNavTest, CtrlFThenEnterAndF3StepThroughMatchesInTimeOrder) {
    QTest::keyClick(view.get(), Qt::Key_F, Qt::ControlModifier);
    app::TimelineSearchBar* bar = view->searchBar();
    ASSERT_NE(bar, nullptr);
    EXPECT_TRUE(bar->isVisible());
    bar->setQuery(e["regex"].toString(), true);
    ASSERT_EQ(int64_t(view->matches().size()), e["search_count"].toInteger());
    EXPECT_EQ(view->currentMatch(), -1);

    const auto firsts = e["search_first_starts_ns"].toArray();
    QLineEdit* edit = bar->lineEdit();
    auto selectedStart = [&] {
        auto item = view->selectedItem();
        return item ? item->start + origin() : -1;
    };
    QTest::keyClick(edit, Qt::Key_Return);  // first match
    EXPECT_EQ(view->currentMatch(), 0);
    EXPECT_EQ(selectedStart(), firsts[0].toInteger());
    EXPECT_EQ(bar->statusText(), QStringLiteral("1 of %1").arg(e["search_count"].toInteger()));
    // The view went to it: the item is inside the visible range and drawn.
    auto range = view->viewRange();
    ASSERT_TRUE(range.has_value());
    EXPECT_LE(range->start, view->selectedItem()->start);
    EXPECT_GE(range->end, view->selectedItem()->end);
    EXPECT_TRUE(view->selectedRect().has_value());

    QTest::keyClick(edit, Qt::Key_Return);
    EXPECT_EQ(selectedStart(), firsts[1].toInteger());
    QTest::keyClick(view.get(), Qt::Key_F3);
    EXPECT_EQ(view->currentMatch(), 2);
    EXPECT_EQ(selectedStart(), firsts[2].toInteger());
    QTest::keyClick(edit, Qt::Key_Return, Qt::ShiftModifier);
    EXPECT_EQ(selectedStart(), firsts[1].toInteger());
    QTest::keyClick(view.get(), Qt::Key_F3, Qt::ShiftModifier);
    EXPECT_EQ(view->currentMatch(), 0);
    QTest::keyClick(view.get(), Qt::Key_F3, Qt::ShiftModifier);  // wraps round to the last
    EXPECT_EQ(view->currentMatch(), int(e["search_count"].toInteger()) - 1);

    QTest::keyClick(edit, Qt::Key_Escape);
    EXPECT_FALSE(bar->isVisible());
    EXPECT_TRUE(view->matches().empty());
}

TEST_F(TimelineNavTest, ContextMenuFilterToItSetsTheExactNameFilter) {
    const QString name = e["filter_name"].toString();
    view->setSearch(QStringLiteral("^%1$").arg(name), true);
    view->findNext();
    const auto rect = view->selectedRect();
    ASSERT_TRUE(rect.has_value());
    std::unique_ptr<QMenu> menu(view->itemMenu(rect->center()));
    ASSERT_NE(menu, nullptr);
    QAction* filter = menu->findChild<QAction*>(QStringLiteral("filterToName"));
    ASSERT_NE(filter, nullptr);
    filter->trigger();
    // The name has no metacharacters: the filter is the name anchored.
    const auto* value = std::get_if<std::string>(&view->values().at("name_filter"));
    ASSERT_NE(value, nullptr);
    EXPECT_EQ(*value, "^" + name.toStdString() + "$");
    ASSERT_TRUE(test::waitFor([&] { return !view->isUpdating(); }));
    const auto& p = dynamic_cast<const plots::timeline::TimelinePrepared&>(*view->prepared());
    EXPECT_EQ(int64_t(p.items), e["filter_count"].toInteger());
}

TEST_F(TimelineNavTest, DragOnTheTimeAxisMeasuresARange) {
    auto g = plot->timeline()->geometry(*view->prepared(), view->values(), QRectF(view->rect()));
    ASSERT_TRUE(g.has_value());
    ASSERT_GT(g->axisRect.height(), 0);
    QString details;
    QObject::connect(view.get(), &app::PlotView::itemSelected, view.get(),
                     [&](const QString&, const QString& html) { details = html; });
    const double y = g->axisRect.center().y();
    const double x0 = g->axisRect.left() + 100, x1 = g->axisRect.left() + 300;
    send(QEvent::MouseButtonPress, {x0, y}, Qt::LeftButton, Qt::LeftButton);
    send(QEvent::MouseMove, {x0 + 100, y}, Qt::NoButton, Qt::LeftButton);
    send(QEvent::MouseMove, {x1, y}, Qt::NoButton, Qt::LeftButton);
    send(QEvent::MouseButtonRelease, {x1, y}, Qt::LeftButton, Qt::NoButton);
    auto m = view->measure();
    ASSERT_TRUE(m.has_value());
    auto now = plot->timeline()->geometry(*view->prepared(), view->values(), QRectF(view->rect()));
    EXPECT_EQ(m->first, now->timeForX(x0));
    EXPECT_EQ(m->second, now->timeForX(x1));
    EXPECT_TRUE(details.contains(QStringLiteral("Per category")));
    // The view did not pan while measuring.
    EXPECT_EQ(now->viewStart, g->viewStart);
    QTest::keyClick(view.get(), Qt::Key_Escape);
    EXPECT_FALSE(view->measure().has_value());
}

TEST_F(TimelineNavTest, LaneScrollBarScrollsTheLanes) {
    // Three or more lanes (steps, phases, stream 7) of 60 px in about 130 px: fewer lanes fit than there are.
    view->resize(1100, 200);
    view->setValue("lane_height", 60LL);
    QApplication::processEvents();
    QScrollBar* bar = view->laneScrollBar();
    ASSERT_NE(bar, nullptr);
    ASSERT_TRUE(bar->isVisible());
    ASSERT_GT(bar->maximum(), 0);
    const int last = bar->maximum();
    bar->setValue(last);  // the bar moves the view
    EXPECT_EQ(plots::kLaneScroll(view->values()), last);
    QTest::keyClick(view.get(), Qt::Key_Up);  // and follows the keys
    EXPECT_EQ(bar->value(), last - 1);
}

TEST_F(TimelineNavTest, ClickOnACompactLegendShowsTheWholeLegend) {
    view->setValue("legend", std::string("compact"));
    auto g = plot->timeline()->geometry(*view->prepared(), view->values(), QRectF(view->rect()));
    ASSERT_TRUE(g.has_value());
    ASSERT_GT(g->legendRect.height(), 0);
    const QPointF at = g->legendRect.center();
    send(QEvent::MouseButtonPress, at, Qt::LeftButton, Qt::LeftButton);
    send(QEvent::MouseButtonRelease, at, Qt::LeftButton, Qt::NoButton);
    const auto* mode = std::get_if<std::string>(&view->values().at("legend"));
    ASSERT_NE(mode, nullptr);
    EXPECT_EQ(*mode, "full");
}
