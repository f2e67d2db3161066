#include "app/gui/events_list.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "app/gui/format.h"
#include "app/gui/plot_view.h"

namespace strobe::app {

void EventsModel::setRows(std::vector<plots::EventRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

const plots::EventRow* EventsModel::row(int r) const {
    return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
}

int EventsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int EventsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventsModel::data(const QModelIndex& index, int role) const {
    const plots::EventRow* e = row(index.row());
    if (!e) return {};
    auto text = [](const std::string& s) { return QString::fromStdString(s); };
    auto optional = [](int64_t v) { return v >= 0 ? QVariant(qlonglong(v)) : QVariant(); };
    if (role == kSortRole) {
        switch (index.column()) {
        case Duration: return qlonglong(e->duration);
        case Start: return qlonglong(e->start);
        case Rank: return e->rank;
        case Step: return qlonglong(e->step);
        default: return data(index, Qt::DisplayRole).toString().toLower();
        }
    }
    if (role == Qt::TextAlignmentRole) {
        const bool number = index.column() == Duration || index.column() == Start || index.column() == Rank ||
                            index.column() == Step;
        return QVariant::fromValue(Qt::Alignment(number ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter));
    }
    if (role == Qt::ToolTipRole && index.column() == Name) return text(e->name);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Name: return text(e->name);
    case Duration: return durationText(double(e->duration));
    case Start: return durationText(double(e->start));
    case Run: return text(e->run);
    case Rank: return e->rank >= 0 ? QVariant(e->rank) : QVariant();
    case Where: return text(e->where);
    case Kind: return text(e->kind);
    case Category: return text(e->category);
    case Grid: return text(e->grid);
    case Step: return optional(e->step);
    default: return {};
    }
}

QVariant EventsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name: return tr("Name");
    case Duration: return tr("Duration");
    case Start: return tr("Start (from 0)");
    case Run: return tr("Run");
    case Rank: return tr("Rank");
    case Where: return tr("Stream / thread");
    case Kind: return tr("Kind");
    case Category: return tr("Category");
    case Grid: return tr("Grid / block");
    case Step: return tr("Step");
    default: return {};
    }
}

EventsList::EventsList(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("eventsList"));
    m_title = new QLabel(tr("Right-click an item on a timeline and choose “List every instance”, or list a search's "
                            "matches or a measured range."),
                         this);
    m_title->setObjectName(QStringLiteral("eventsTitle"));
    m_title->setWordWrap(true);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("eventsFilter"));
    m_filter->setPlaceholderText(tr("Filter rows (any column)"));
    m_filter->setClearButtonEnabled(true);
    m_count = new QLabel(this);
    m_model = new EventsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(EventsModel::kSortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("eventsTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);  // a kernel's name differs at its end as often as at its start
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_count);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterFixedString(text);
        updateCount();
    });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) { activateRow(index.row()); });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) { activateRow(index.row()); });
}

void EventsList::setListing(EventListing listing, PlotView* source) {
    m_listing = std::move(listing);
    m_source = source;
    m_title->setText(m_listing.title);
    m_filter->blockSignals(true);
    m_filter->clear();
    m_filter->blockSignals(false);
    m_proxy->setFilterFixedString(QString());
    m_model->setRows(m_listing.rows);
    m_table->sortByColumn(EventsModel::Duration, Qt::DescendingOrder);
    m_table->resizeColumnsToContents();
    const int nameWidth = std::min(m_table->columnWidth(EventsModel::Name), 360);
    m_table->setColumnWidth(EventsModel::Name, nameWidth);
    updateCount();
}

QString EventsList::title() const { return m_title->text(); }
int EventsList::visibleRows() const { return m_proxy->rowCount(); }

void EventsList::activateRow(int row) {
    const QModelIndex src = m_proxy->mapToSource(m_proxy->index(row, 0));
    if (!src.isValid() || size_t(src.row()) >= m_listing.items.size()) return;
    const plots::ItemRef item = m_listing.items[size_t(src.row())];
    m_table->selectRow(row);
    if (m_source) m_source->selectItem(item, true);
    Q_EMIT itemActivated(item);
}

void EventsList::updateCount() {
    const int shown = m_proxy->rowCount(), all = m_model->rowCount();
    m_count->setText(shown == all ? tr("%1 rows").arg(formatCount(uint64_t(all)))
                                  : tr("%1 of %2 rows").arg(formatCount(uint64_t(shown)), formatCount(uint64_t(all))));
}

}  // namespace strobe::app
