#include "app/gui/plot_list.h"

#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QVBoxLayout>

#include "plots/plot_registry.h"

namespace strobe::app {

namespace {
constexpr int kIdRole = Qt::UserRole;
}

PlotList::PlotList(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("plotSearch"));
    m_search->setPlaceholderText(tr("Search plots (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("plotList"));
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    m_list->setWordWrap(true);
    layout->addWidget(m_search);
    layout->addWidget(m_list);
    connect(m_search, &QLineEdit::textChanged, this, &PlotList::filter);
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        // Enter in the search field opens the first visible match.
        for (int i = 0; i < m_list->count(); ++i)
            if (!m_list->item(i)->isHidden()) {
                m_list->setCurrentRow(i);
                Q_EMIT openRequested(currentPlotId(), -1, false);
                return;
            }
    });
    connect(m_list, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { Q_EMIT openRequested(item->data(kIdRole).toString().toStdString(), -1, false); });
    connect(m_list, &QListWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        auto* item = m_list->itemAt(pos);
        if (!item) return;
        const std::string id = item->data(kIdRole).toString().toStdString();
        QMenu menu(this);
        menu.addAction(tr("Open on the current run"), this, [this, id] { Q_EMIT openRequested(id, -1, false); });
        menu.addAction(tr("Open in the second pane"), this, [this, id] { Q_EMIT openRequested(id, 1, false); });
        menu.addAction(tr("Open comparing the selected runs"), this, [this, id] { Q_EMIT compareSelectedRequested(id); });
        menu.addAction(tr("Open comparing all loaded runs"), this, [this, id] { Q_EMIT openRequested(id, -1, true); });
        menu.exec(m_list->viewport()->mapToGlobal(pos));
    });
    reload();
}

void PlotList::reload() {
    m_list->clear();
    for (const plots::Plot* p : plots::PlotRegistry::instance().plots()) {
        auto* item = new QListWidgetItem(QString::fromStdString(p->title()), m_list);
        item->setData(kIdRole, QString::fromStdString(p->id()));
        item->setToolTip(QStringLiteral("<b>%1</b><br>%2<br><i>%3</i>")
                             .arg(QString::fromStdString(p->title()).toHtmlEscaped(),
                                  QString::fromStdString(p->description()).toHtmlEscaped(),
                                  tr("Double-click or Enter opens it; right-click for more")));
    }
    filter(m_search->text());
}

void PlotList::filter(const QString& text) {
    for (int i = 0; i < m_list->count(); ++i) {
        auto* item = m_list->item(i);
        const bool match = text.isEmpty() || item->text().contains(text, Qt::CaseInsensitive) ||
                           item->data(kIdRole).toString().contains(text, Qt::CaseInsensitive) ||
                           item->toolTip().contains(text, Qt::CaseInsensitive);
        item->setHidden(!match);
    }
}

void PlotList::focusSearch() {
    m_search->setFocus();
    m_search->selectAll();
}

std::string PlotList::currentPlotId() const {
    auto* item = m_list->currentItem();
    return item ? item->data(kIdRole).toString().toStdString() : std::string();
}

}  // namespace strobe::app
