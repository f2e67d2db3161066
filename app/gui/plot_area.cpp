#include "app/gui/plot_area.h"

#include <QApplication>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include "app/gui/plot_view.h"
#include "plots/timeline_view.h"

namespace strobe::app {

PlotArea::PlotArea(QWidget* welcome, QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);
    m_stack->addWidget(welcome);
    m_splitter = new QSplitter(Qt::Horizontal, m_stack);
    m_splitter->setChildrenCollapsible(false);
    m_stack->addWidget(m_splitter);
    for (int i = 0; i < 2; ++i) {
        auto* tabs = new QTabWidget(m_splitter);
        tabs->setObjectName(QStringLiteral("plotPane%1").arg(i));
        tabs->setTabsClosable(true);
        tabs->setMovable(true);
        tabs->setDocumentMode(true);
        tabs->setUsesScrollButtons(true);
        m_panes[i] = tabs;
        m_splitter->addWidget(tabs);
        connect(tabs, &QTabWidget::tabCloseRequested, this, [this, tabs](int index) {
            if (auto* v = qobject_cast<PlotView*>(tabs->widget(index))) closeView(v);
        });
        connect(tabs, &QTabWidget::currentChanged, this, [this, i] {
            setActivePane(i);
            Q_EMIT currentViewChanged(currentView());
        });
        connect(tabs->tabBar(), &QTabBar::tabBarClicked, this, [this, i] { setActivePane(i); });
    }
    m_panes[1]->hide();
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
        for (int i = 0; i < 2; ++i)
            if (now && m_panes[i]->isAncestorOf(now) && i != m_active) {
                setActivePane(i);
                Q_EMIT currentViewChanged(currentView());
            }
    });
    updatePage();
}

PlotArea::~PlotArea() {
    disconnect(qApp, nullptr, this, nullptr);
    for (auto* tabs : m_panes) {
        tabs->blockSignals(true);
        while (tabs->count() > 0) {
            QWidget* w = tabs->widget(0);
            tabs->removeTab(0);
            delete w;
        }
    }
}

void PlotArea::setActivePane(int pane) {
    if (pane == 1 && !m_panes[1]->isVisible()) pane = 0;
    m_active = pane;
    for (int i = 0; i < 2; ++i) {
        // A thin accent line marks the active pane when the view is split.
        m_panes[i]->setStyleSheet(isSplit() && i == m_active
                                      ? QStringLiteral("QTabWidget#plotPane%1::pane { border-top: 2px solid palette(highlight); }").arg(i)
                                      : QString());
    }
}

void PlotArea::addView(PlotView* view, int pane) {
    pane = pane == 1 ? 1 : 0;
    if (pane == 1) setSplit(true);
    const int index = m_panes[pane]->addTab(view, view->title());
    m_panes[pane]->setTabToolTip(index, view->title());
    connect(view, &PlotView::viewRangeChanged, this,
            [this, view](qint64 s, qint64 e) { onRangeChanged(view, s, e); });
    connect(view, &PlotView::stateChanged, this, &PlotArea::updateTitles);
    m_panes[pane]->setCurrentIndex(index);
    setActivePane(pane);
    followOtherPane(view);
    updatePage();
    Q_EMIT viewsChanged();
    Q_EMIT currentViewChanged(currentView());
}

PlotView* PlotArea::currentView(int pane) const {
    return qobject_cast<PlotView*>(m_panes[pane == 1 ? 1 : 0]->currentWidget());
}

PlotView* PlotArea::currentView() const {
    if (auto* v = currentView(m_active)) return v;
    return currentView(1 - m_active);
}

std::vector<PlotView*> PlotArea::views(int pane) const {
    std::vector<PlotView*> out;
    for (int i = 0; i < m_panes[pane]->count(); ++i)
        if (auto* v = qobject_cast<PlotView*>(m_panes[pane]->widget(i))) out.push_back(v);
    return out;
}

std::vector<PlotView*> PlotArea::views() const {
    auto out = views(0);
    auto second = views(1);
    out.insert(out.end(), second.begin(), second.end());
    return out;
}

int PlotArea::paneOf(const PlotView* view) const {
    for (int i = 0; i < 2; ++i)
        if (m_panes[i]->indexOf(const_cast<PlotView*>(view)) >= 0) return i;
    return -1;
}

void PlotArea::closeView(PlotView* view) {
    const int pane = paneOf(view);
    if (pane < 0) return;
    m_panes[pane]->removeTab(m_panes[pane]->indexOf(view));
    view->deleteLater();
    if (pane == 1 && m_panes[1]->count() == 0) setSplit(false);
    updatePage();
    Q_EMIT viewsChanged();
    Q_EMIT currentViewChanged(currentView());
}

void PlotArea::closeAll() {
    for (auto* v : views()) closeView(v);
}

bool PlotArea::isSplit() const { return !m_panes[1]->isHidden(); }

void PlotArea::setSplit(bool on) {
    if (on == isSplit()) return;
    if (!on) {
        // Tabs of the second pane move to the first.
        while (m_panes[1]->count() > 0) {
            QWidget* w = m_panes[1]->widget(0);
            const QString text = m_panes[1]->tabText(0);
            m_panes[1]->removeTab(0);
            m_panes[0]->addTab(w, text);
        }
        m_panes[1]->hide();
        setActivePane(0);
    } else {
        m_panes[1]->show();
        const int total = m_splitter->orientation() == Qt::Horizontal ? m_splitter->width() : m_splitter->height();
        m_splitter->setSizes({total / 2, total - total / 2});
        setActivePane(m_active);
    }
    Q_EMIT viewsChanged();
}

bool PlotArea::isVertical() const { return m_splitter->orientation() == Qt::Vertical; }
void PlotArea::setVertical(bool on) { m_splitter->setOrientation(on ? Qt::Vertical : Qt::Horizontal); }
QList<int> PlotArea::splitSizes() const { return m_splitter->sizes(); }
void PlotArea::setSplitSizes(const QList<int>& sizes) {
    if (sizes.size() == 2) m_splitter->setSizes(sizes);
}

void PlotArea::setCurrentIndex(int pane, int index) {
    if (pane < 0 || pane > 1) return;
    if (index >= 0 && index < m_panes[pane]->count()) m_panes[pane]->setCurrentIndex(index);
}

int PlotArea::currentIndex(int pane) const { return m_panes[pane == 1 ? 1 : 0]->currentIndex(); }

void PlotArea::moveCurrentToOtherPane() {
    PlotView* v = currentView();
    if (!v) return;
    const int from = paneOf(v);
    const int to = 1 - from;
    if (to == 1) setSplit(true);
    m_panes[from]->removeTab(m_panes[from]->indexOf(v));
    const int index = m_panes[to]->addTab(v, v->title());
    m_panes[to]->setCurrentIndex(index);
    if (m_panes[1]->count() == 0) setSplit(false);
    followOtherPane(v);
    setActivePane(paneOf(v));
    v->setFocus();
    Q_EMIT viewsChanged();
    Q_EMIT currentViewChanged(currentView());
}

void PlotArea::cycleTabs(int direction) {
    // Across both panes, in reading order.
    auto all = views();
    if (all.empty()) return;
    auto it = std::find(all.begin(), all.end(), currentView());
    int i = it == all.end() ? 0 : static_cast<int>(it - all.begin());
    i = (i + direction + static_cast<int>(all.size())) % static_cast<int>(all.size());
    PlotView* next = all[static_cast<size_t>(i)];
    const int pane = paneOf(next);
    m_panes[pane]->setCurrentWidget(next);
    setActivePane(pane);
    next->setFocus();
    Q_EMIT currentViewChanged(currentView());
}

void PlotArea::updateTitles() {
    for (int p = 0; p < 2; ++p)
        for (int i = 0; i < m_panes[p]->count(); ++i)
            if (auto* v = qobject_cast<PlotView*>(m_panes[p]->widget(i))) {
                QString t = v->title();
                if (v->isUpdating()) t += QStringLiteral(" …");
                m_panes[p]->setTabText(i, t);
                m_panes[p]->setTabToolTip(i, v->title());
            }
}

void PlotArea::updatePage() { m_stack->setCurrentIndex(views().empty() ? 0 : 1); }

void PlotArea::followOtherPane(PlotView* view) {
    // A timeline that appears in a pane takes the time range of the other pane's timeline at once, not only at
    // the next zoom or pan.
    if (!m_sync || !isSplit() || !view || !view->isTimeline()) return;
    const int pane = paneOf(view);
    if (pane < 0) return;
    PlotView* other = currentView(1 - pane);
    if (!other || other == view || !other->isTimeline()) return;
    if (const auto range = other->viewRange()) {
        view->setViewRange(range->start, range->end);
    } else {
        // The other one is still being prepared: its range is what its values say (0 and 0: the whole range).
        const auto& v = other->values();
        if (plots::kViewEnd(v) > plots::kViewStart(v)) view->setViewRange(plots::kViewStart(v), plots::kViewEnd(v));
    }
}

void PlotArea::onRangeChanged(PlotView* source, qint64 start, qint64 end) {
    if (!m_sync || !isSplit()) return;
    const int pane = paneOf(source);
    if (pane < 0 || currentView(pane) != source) return;
    PlotView* other = currentView(1 - pane);
    if (other && other != source && other->isTimeline()) other->setViewRange(start, end);
}

}  // namespace strobe::app
