#pragma once
// ChartPanel: the current plot's numbers as an interactive Qt Charts chart (the "Chart" dock). The plot's own
// QPainter canvas stays the main view (it renders headless for strobe-cli and exports identically, and draws the
// timeline, which Qt Charts cannot at a million items); this panel adds what a chart widget does well on the
// prepared data of bar, line and box plots: rubber-band and wheel zoom (double-click resets), the value under the
// cursor, and a legend whose entries hide and show their series when clicked.

#include <optional>
#include <string>

#include <QMetaObject>
#include <QPointer>
#include <QWidget>

#include "plots/chart_data.h"
#include "plots/plot.h"

class QLabel;
class QChart;
class QChartView;

namespace strobe::app {

class PlotView;

class ChartPanel : public QWidget {
    Q_OBJECT
public:
    explicit ChartPanel(QWidget* parent = nullptr);

    // Follows `view` (may be null): its chart is rebuilt whenever its picture or parameters change.
    void setView(PlotView* view);
    // Shows the chart of `plot` for this prepared data and these values (what setView does on each change).
    void showPlot(const plots::Plot& plot, const plots::Prepared& prepared, const plots::ParamValues& values);
    void showMessage(const QString& text);

    QChart* chart() const;           // null while a message is shown
    QString message() const;         // the message shown instead of a chart, else empty
    // Hides or shows series `index` as a click on its legend entry does; false when there is no such series.
    bool toggleSeries(int index);
    bool isSeriesShown(int index) const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuildFromView();
    void placeLegend();
    void build(const plots::ChartData& data);

    QPointer<PlotView> m_view;
    QMetaObject::Connection m_stateConnection;
    QMetaObject::Connection m_valuesConnection;
    QChartView* m_chartView = nullptr;
    QLabel* m_message = nullptr;
};

}  // namespace strobe::app
