// The Parameters dock at the default window size (1500 × 920) shows every built-in plot's parameters without a cut
// label or button: each label's text fits its width (labels that wrap are allowed to wrap), each button and check
// box gets the width its text needs. Run on the real ResNet-50 trace, so data-dependent choices are present.
#include <QAbstractButton>
#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QSettings>

#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/param_panel.h"
#include "app/gui/run_manager.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

TEST(ParamPanelFits, NoBuiltInPlotHasACutLabelAtTheDefaultSize) {
    test::app();
    QSettings().remove(QStringLiteral("window/state"));  // the first-show layout, as a new user gets it
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    w.resize(1500, 920);
    w.show();
    const int id = w.openRun({QString::fromUtf8(STROBE_TEST_DATA_DIR) +
                              QStringLiteral("/kineto/kineto-configs/resnet50_num_workers_0")});
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 180000));
    const plots::RunSet runs{w.runs().runEntry(id)};
    app::ParamPanel* panel = w.paramPanel();
    ASSERT_NE(panel, nullptr);
    EXPECT_GE(panel->width(), 300);
    size_t checked = 0;
    for (const plots::Plot* plot : plots::PlotRegistry::instance().plots()) {
        const auto specs = plot->parameters(runs);
        auto values = core::resolveValues(specs, {});
        ASSERT_TRUE(values.ok()) << plot->id();
        panel->setSpecs(QString::fromStdString(plot->title()), specs, *values, {0}, {});
        QApplication::processEvents();
        QApplication::processEvents();
        // Nothing wider than the dock: no horizontal scrolling hides a field's end.
        if (auto* scroll = panel->findChild<QScrollArea*>(); scroll && scroll->widget()) {
            EXPECT_LE(scroll->widget()->minimumSizeHint().width(), scroll->viewport()->width() + 1) << plot->id();
        }
        for (QLabel* label : panel->findChildren<QLabel*>()) {
            if (!label->isVisible() || label->wordWrap() || label->text().isEmpty()) continue;
            const int need = label->fontMetrics().horizontalAdvance(label->text());
            EXPECT_LE(need, label->contentsRect().width() + 1)
                << plot->id() << ": label “" << label->text().toStdString() << "” needs " << need << " px, has "
                << label->contentsRect().width();
            ++checked;
        }
        for (QAbstractButton* b : panel->findChildren<QAbstractButton*>()) {
            if (!b->isVisible() || b->text().isEmpty()) continue;
            EXPECT_LE(b->sizeHint().width(), b->width() + 1)
                << plot->id() << ": button “" << b->text().toStdString() << "” needs " << b->sizeHint().width()
                << " px, has " << b->width();
            ++checked;
        }
    }
    EXPECT_GT(checked, 100u);
}
