#include "app/gui/chart_panel.h"

#include <algorithm>
#include <cmath>

#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHorizontalBarSeries>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QStackedBarSeries>
#include <QStackedLayout>
#include <QToolTip>
#include <QValueAxis>
#include <QResizeEvent>
#include <QWheelEvent>
#include <QXYLegendMarker>

#include "app/gui/plot_view.h"
#include "plots/chart.h"

namespace strobe::app {
namespace {

using plots::ChartData;

// Values are shown in one unit per axis, chosen from the largest value: ns, µs, ms or s for durations.
struct AxisScale {
    double divisor = 1;
    QString unit;
};

AxisScale scaleFor(ChartData::Unit unit, double maxAbs) {
    if (unit == ChartData::Unit::Percent) return {1, QStringLiteral("%")};
    if (unit == ChartData::Unit::Number) return {1, {}};
    if (maxAbs >= 1e9) return {1e9, QStringLiteral("s")};
    if (maxAbs >= 1e6) return {1e6, QStringLiteral("ms")};
    if (maxAbs >= 1e3) return {1e3, QStringLiteral("µs")};
    return {1, QStringLiteral("ns")};
}

QString axisTitle(const std::string& label, const AxisScale& s) {
    QString t = QString::fromStdString(label);
    if (!s.unit.isEmpty()) t += QStringLiteral(" (%1)").arg(s.unit);
    return t;
}

// A value as the canvas writes it: durations with their own unit, percentages with one decimal.
QString valueText(double v, ChartData::Unit unit) {
    switch (unit) {
    case ChartData::Unit::Duration: return QString::fromStdString(plots::formatDuration(v));
    case ChartData::Unit::Percent: return QString::fromStdString(plots::formatPercent(v));
    case ChartData::Unit::Number: break;
    }
    return QString::number(v, 'g', 6);
}

// Category labels are kernel names at times: cut in the middle, the full text is in the hover value.
QString shortLabel(const std::string& s) {
    QString t = QString::fromStdString(s);
    if (t.size() <= 48) return t;
    return t.left(28) + QStringLiteral("…") + t.right(19);
}

void showTip(bool on, const QString& text) {
    if (on)
        QToolTip::showText(QCursor::pos(), text);
    else
        QToolTip::hideText();
}

// Wheel zooms about the centre, a dragged box zooms to it, double-click shows everything again.
class ZoomChartView final : public QChartView {
public:
    explicit ZoomChartView(QWidget* parent) : QChartView(parent) {
        setRenderHint(QPainter::Antialiasing);
        setRubberBand(QChartView::RectangleRubberBand);
    }

protected:
    void wheelEvent(QWheelEvent* e) override {
        if (!chart() || e->angleDelta().y() == 0) return QChartView::wheelEvent(e);
        chart()->zoom(e->angleDelta().y() > 0 ? 1.25 : 0.8);
        e->accept();
    }
    void mouseDoubleClickEvent(QMouseEvent* e) override {
        if (chart()) chart()->zoomReset();
        e->accept();
    }
};

double maxAbsOf(const ChartData& d, bool stacked) {
    double m = 0;
    if (d.kind == ChartData::Kind::Boxes) {
        for (const auto& b : d.boxes) m = std::max(m, std::fabs(b.high));
        return m;
    }
    if (d.kind == ChartData::Kind::Lines) {
        for (const auto& s : d.series)
            for (auto [x, y] : s.points) m = std::max(m, std::fabs(y));
        return m;
    }
    for (size_t c = 0; c < d.categories.size(); ++c) {
        double sum = 0;
        for (const auto& s : d.series) {
            double v = c < s.values.size() ? std::fabs(s.values[c]) : 0;
            sum = stacked ? sum + v : std::max(sum, v);
        }
        m = std::max(m, sum);
    }
    return m;
}

}  // namespace

ChartPanel::ChartPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("chartPanel"));
    auto* stack = new QStackedLayout(this);
    m_message = new QLabel(this);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setMargin(16);
    m_chartView = new ZoomChartView(this);
    stack->addWidget(m_message);
    stack->addWidget(m_chartView);
    showMessage(tr("Open a plot to see its numbers as an interactive chart."));
}

void ChartPanel::setView(PlotView* view) {
    if (view == m_view) return;
    QObject::disconnect(m_stateConnection);
    QObject::disconnect(m_valuesConnection);
    m_view = view;
    if (view) {
        m_stateConnection = connect(view, &PlotView::stateChanged, this, &ChartPanel::rebuildFromView);
        m_valuesConnection = connect(view, &PlotView::valuesChanged, this, &ChartPanel::rebuildFromView);
    }
    rebuildFromView();
}

void ChartPanel::rebuildFromView() {
    if (!m_view) return showMessage(tr("Open a plot to see its numbers as an interactive chart."));
    auto prepared = m_view->prepared();
    if (!prepared) return showMessage(tr("%1: preparing…").arg(QString::fromStdString(m_view->plot().title())));
    showPlot(m_view->plot(), *prepared, m_view->values());
}

void ChartPanel::showPlot(const plots::Plot& plot, const plots::Prepared& prepared, const plots::ParamValues& values) {
    if (auto why = plot.emptyMessage(prepared, values))
        return showMessage(tr("%1: nothing to draw.\n%2")
                               .arg(QString::fromStdString(plot.title()), QString::fromStdString(*why)));
    auto data = plot.chartData(prepared, values);
    if (!data)
        return showMessage(tr("%1 is not a bar, line or box chart: it is shown in the plot pane only.")
                               .arg(QString::fromStdString(plot.title())));
    build(*data);
}

void ChartPanel::showMessage(const QString& text) {
    m_message->setText(text);
    static_cast<QStackedLayout*>(layout())->setCurrentWidget(m_message);
}

QChart* ChartPanel::chart() const {
    if (static_cast<QStackedLayout*>(layout())->currentWidget() != m_chartView) return nullptr;
    return m_chartView->chart();
}

QString ChartPanel::message() const {
    return static_cast<QStackedLayout*>(layout())->currentWidget() == m_message ? m_message->text() : QString();
}

void ChartPanel::build(const ChartData& d) {
    auto* chart = new QChart;
    chart->setTitle(QString::fromStdString(d.title));
    setToolTip(QString::fromStdString(d.subtitle));  // the dock is narrow: the subtitle is the panel's tooltip
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setShowToolTips(true);  // labels cut for room show whole on hover
    chart->setTheme(palette().window().color().lightness() < 128 ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    const AxisScale vs = scaleFor(d.valueUnit, maxAbsOf(d, d.stacked));

    auto* categoryAxis = new QBarCategoryAxis;
    for (const auto& c : d.categories) categoryAxis->append(shortLabel(c));
    auto* valueAxis = new QValueAxis;
    valueAxis->setTitleText(axisTitle(d.valueLabel, vs));
    QAbstractSeries* series = nullptr;

    if (d.kind == ChartData::Kind::Bars) {
        QAbstractBarSeries* bars = nullptr;
        if (d.horizontal)
            bars = d.stacked ? static_cast<QAbstractBarSeries*>(new QHorizontalStackedBarSeries)
                             : static_cast<QAbstractBarSeries*>(new QHorizontalBarSeries);
        else
            bars = d.stacked ? static_cast<QAbstractBarSeries*>(new QStackedBarSeries)
                             : static_cast<QAbstractBarSeries*>(new QBarSeries);
        for (const auto& s : d.series) {
            auto* set = new QBarSet(QString::fromStdString(s.name));
            set->setColor(s.color);
            set->setBorderColor(s.color.darker(120));
            for (double v : s.values) set->append(v / vs.divisor);
            const std::string name = s.name;
            const auto values = s.values;
            const auto categories = d.categories;
            const auto unit = d.valueUnit;
            connect(set, &QBarSet::hovered, this, [=](bool on, int i) {
                if (i < 0 || size_t(i) >= values.size()) return;
                showTip(on, QStringLiteral("%1\n%2: %3")
                                .arg(QString::fromStdString(size_t(i) < categories.size() ? categories[size_t(i)] : ""),
                                     QString::fromStdString(name), valueText(values[size_t(i)], unit)));
            });
            bars->append(set);
        }
        series = bars;
    } else if (d.kind == ChartData::Kind::Boxes) {
        auto* boxes = new QBoxPlotSeries;
        boxes->setName(QString::fromStdString(d.valueLabel));
        for (size_t i = 0; i < d.boxes.size(); ++i) {
            const auto& b = d.boxes[i];
            auto* set = new QBoxSet(b.low / vs.divisor, b.q1 / vs.divisor, b.median / vs.divisor, b.q3 / vs.divisor,
                                    b.high / vs.divisor, categoryAxis->at(int(i)));
            set->setBrush(b.color);
            const QString text = QStringLiteral("%1\np5 %2 · p25 %3 · median %4 · p75 %5 · p95 %6")
                                     .arg(QString::fromStdString(i < d.categories.size() ? d.categories[i] : ""),
                                          valueText(b.low, d.valueUnit), valueText(b.q1, d.valueUnit),
                                          valueText(b.median, d.valueUnit), valueText(b.q3, d.valueUnit),
                                          valueText(b.high, d.valueUnit));
            connect(set, &QBoxSet::hovered, this, [text](bool on) { showTip(on, text); });
            boxes->append(set);
        }
        chart->legend()->hide();  // one series; the categories name the boxes
        series = boxes;
    }

    if (series) {
        chart->addSeries(series);
        const bool horizontal = d.kind == ChartData::Kind::Bars && d.horizontal;
        if (!horizontal && d.categories.size() > 4) categoryAxis->setLabelsAngle(-60);
        chart->addAxis(categoryAxis, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
        chart->addAxis(valueAxis, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
        series->attachAxis(categoryAxis);
        series->attachAxis(valueAxis);
        valueAxis->setMin(std::min(0.0, valueAxis->min()));
        valueAxis->applyNiceNumbers();
    } else {  // Lines
        delete categoryAxis;
        double maxX = 0;
        for (const auto& s : d.series)
            for (auto [x, y] : s.points) maxX = std::max(maxX, std::fabs(x));
        const AxisScale xs = scaleFor(d.xUnit, maxX);
        QAbstractAxis* xAxis = nullptr;
        if (d.logX) {
            auto* a = new QLogValueAxis;
            a->setBase(10);
            a->setLabelFormat(QStringLiteral("%g"));
            xAxis = a;
        } else {
            xAxis = new QValueAxis;
        }
        xAxis->setTitleText(axisTitle(d.xLabel, xs));
        chart->addAxis(xAxis, Qt::AlignBottom);
        chart->addAxis(valueAxis, Qt::AlignLeft);
        for (const auto& s : d.series) {
            auto* line = new QLineSeries;
            line->setName(QString::fromStdString(s.name));
            line->setColor(s.color);
            for (auto [x, y] : s.points)
                if (!d.logX || x > 0) line->append(x / xs.divisor, y / vs.divisor);
            const std::string name = s.name;
            const auto xUnit = d.xUnit, yUnit = d.valueUnit;
            const double xDiv = xs.divisor, yDiv = vs.divisor;
            connect(line, &QLineSeries::hovered, this, [=](const QPointF& p, bool on) {
                showTip(on, QStringLiteral("%1\n%2 → %3")
                                .arg(QString::fromStdString(name), valueText(p.x() * xDiv, xUnit),
                                     valueText(p.y() * yDiv, yUnit)));
            });
            chart->addSeries(line);
            line->attachAxis(xAxis);
            line->attachAxis(valueAxis);
        }
        valueAxis->setRange(0, d.valueUnit == ChartData::Unit::Percent ? 100 : valueAxis->max());
    }

    const auto markers = chart->legend()->markers();
    for (int i = 0; i < markers.size(); ++i)
        connect(markers[i], &QLegendMarker::clicked, this, [this, i] { toggleSeries(i); });

    QChart* old = m_chartView->chart();
    m_chartView->setChart(chart);
    delete old;
    placeLegend();
    static_cast<QStackedLayout*>(layout())->setCurrentWidget(m_chartView);
}

void ChartPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeLegend();
}

// A legend under a narrow chart elides every label to nothing: beside it, one entry per line, they stay legible.
void ChartPanel::placeLegend() {
    if (QChart* c = m_chartView->chart()) c->legend()->setAlignment(width() < 700 ? Qt::AlignRight : Qt::AlignBottom);
}

bool ChartPanel::toggleSeries(int index) {
    QChart* c = chart();
    if (!c) return false;
    const auto markers = c->legend()->markers();
    if (index < 0 || index >= markers.size()) return false;
    QLegendMarker* m = markers[index];
    bool nowShown = true;
    if (auto* bm = qobject_cast<QBarLegendMarker*>(m)) {
        QBarSet* set = bm->barset();
        const bool hidden = set->property("strobeHidden").toBool();
        if (!hidden) {
            set->setProperty("strobeColor", set->color());
            set->setProperty("strobeBorder", set->borderColor());
            set->setColor(Qt::transparent);
            set->setBorderColor(Qt::transparent);
        } else {
            set->setColor(set->property("strobeColor").value<QColor>());
            set->setBorderColor(set->property("strobeBorder").value<QColor>());
        }
        set->setProperty("strobeHidden", !hidden);
        nowShown = hidden;
        QColor swatch = set->property("strobeColor").value<QColor>();
        if (!nowShown) swatch.setAlpha(60);
        m->setBrush(swatch);
    } else if (m->series()) {
        QAbstractSeries* s = m->series();
        s->setVisible(!s->isVisible());
        m->setVisible(true);  // Qt hides the marker of a hidden series: keep it, to show it again
        nowShown = s->isVisible();
    } else {
        return false;
    }
    QColor label = palette().text().color();
    if (!nowShown) label.setAlpha(90);
    m->setLabelBrush(label);
    return true;
}

bool ChartPanel::isSeriesShown(int index) const {
    QChart* c = chart();
    if (!c) return false;
    const auto markers = c->legend()->markers();
    if (index < 0 || index >= markers.size()) return false;
    if (auto* bm = qobject_cast<QBarLegendMarker*>(markers[index]))
        return !bm->barset()->property("strobeHidden").toBool();
    return markers[index]->series() && markers[index]->series()->isVisible();
}

}  // namespace strobe::app
