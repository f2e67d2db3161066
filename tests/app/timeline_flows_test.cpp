// Flows in the GUI on a real Kineto trace (tests/data/kineto/hta/trace_filter/sampled_rank-0.json.gz): selecting
// the first kernel draws arrows (pink pixels appear where there were none), the Selection dock names the operator
// and runtime call that launched it, and the item menu's "Go to the launching operator" selects that operator,
// expanding its thread. Expected names: tests/data/expected/timeline_cpu_lanes.py (Python json, no Strobe).
#include <QAction>
#include <QImage>
#include <QMenu>
#include <QTest>

#include <gtest/gtest.h>

#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "core/engine/job_runner.h"
#include "core/engine/run_loader.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_engine.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

int flowPixels(const QImage& img) {
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            n += std::abs(c.red() - 236) < 30 && std::abs(c.green() - 64) < 30 && std::abs(c.blue() - 122) < 30;
        }
    return n;
}

// The timeline of the trace in a shown PlotView, prepared.
class TimelineFlowsGui : public ::testing::Test {
protected:
    void SetUp() override {
        test::app();
        core::RunLoadOptions o;
        o.useCache = false;
        auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/trace_filter/sampled_rank-0.json.gz"}, o);
        ASSERT_TRUE(d.ok());
        const int id = runs.addDataset(QStringLiteral("r0"), d.value());
        plot = plots::PlotRegistry::instance().find("gpu-timeline");
        view = std::make_unique<app::PlotView>(*plot, engine, runs, std::vector<int>{id}, core::ParamValues{});
        view->resize(1200, 700);
        view->show();
        ASSERT_TRUE(test::waitFor([&] { return view->prepared() != nullptr && !view->isUpdating(); }));
    }
    void TearDown() override {
        view.reset();
        runner.waitIdle();
    }
    core::JobRunner runner{2};
    plots::PlotEngine engine{runner};
    app::RunManager runs;
    const plots::Plot* plot = nullptr;
    std::unique_ptr<app::PlotView> view;
};

TEST_F(TimelineFlowsGui, SelectingAKernelDrawsItsFlowsAndGoToReachesTheOperator) {
    {
        app::PlotView& view = *this->view;
        const auto& p = dynamic_cast<const plots::timeline::TimelinePrepared&>(*view.prepared());
        // The first kernel's item.
        std::optional<plots::ItemRef> kernel;
        for (size_t li = 0; li < p.lanes.size(); ++li)
            if (p.lanes[li].kind == plots::timeline::LaneKind::Stream)
                for (size_t k = 0; k < p.lanes[li].start.size(); ++k)
                    if (p.lanes[li].rank->gpu.kind[p.lanes[li].src[k]] == core::EventKind::Kernel &&
                        (!kernel || p.lanes[li].start[k] < kernel->start))
                        kernel = plots::ItemRef{li, k, p.lanes[li].start[k], p.lanes[li].end[k]};
        ASSERT_TRUE(kernel.has_value());
        QString details;
        QObject::connect(&view, &app::PlotView::itemSelected, &view,
                         [&](const QString&, const QString& html) { details = html; });
        // Zoomed onto the kernel's launch (its operator starts 602 µs before it), before selecting: no arrows.
        view.setViewRange(kernel->start - 1'200'000, kernel->end + 200'000);
        const int before = flowPixels(view.grab().toImage());
        view.selectItem(*kernel, false);
        EXPECT_TRUE(details.contains(QStringLiteral("launched by fbgemm::permute_sparse_features → cudaLaunchKernel")))
            << details.toStdString();
        const int with = flowPixels(view.grab().toImage());
        EXPECT_GT(with, before + 40);  // an arrow from the call to the kernel, one from the operator to the call
        const auto rect = view.selectedRect();
        ASSERT_TRUE(rect.has_value());
        std::unique_ptr<QMenu> menu(view.itemMenu(rect->center()));
        ASSERT_NE(menu, nullptr);
        QAction* source = nullptr;
        for (QAction* a : menu->findChildren<QAction*>(QStringLiteral("flowSource")))
            if (a->text().contains(QStringLiteral("operator"))) source = a;
        ASSERT_NE(source, nullptr);
        source->trigger();
        const auto selected = view.selectedItem();
        ASSERT_TRUE(selected.has_value());
        EXPECT_EQ(plot->timeline()->itemName(*view.prepared(), *selected), "fbgemm::permute_sparse_features");
        EXPECT_EQ(selected->start + p.runOrigin[0], 1682725898081626000LL);
        EXPECT_TRUE(view.selectedRect().has_value());  // its thread expanded, its row scrolled into view
    }
}

TEST_F(TimelineFlowsGui, AClickOnTheRanksFirstLabelCollapsesTheRank) {
    {
        app::PlotView& view = *this->view;
        const auto g = plot->timeline()->geometry(*view.prepared(), view.values(), QRectF(view.rect()));
        ASSERT_TRUE(g.has_value());
        const QPointF label(8, g->plotArea.top() + g->laneHeight / 2);
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, label.toPoint());
        const auto& ranks = std::get<std::vector<std::string>>(view.values().at("collapsed_ranks"));
        ASSERT_EQ(ranks.size(), 1u);
        EXPECT_EQ(ranks[0], "rank 0");
        EXPECT_EQ(plot->timeline()->geometry(*view.prepared(), view.values(), QRectF(view.rect()))->laneCount, 1);
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, label.toPoint());
        EXPECT_TRUE(std::get<std::vector<std::string>>(view.values().at("collapsed_ranks")).empty());
    }
}

}  // namespace
