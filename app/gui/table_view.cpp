#include "app/gui/table_view.h"

#include <algorithm>
#include <cmath>

#include <QMenu>
#include <variant>

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QScrollBar>

#include "app/gui/format.h"
#include "plots/analysis_plot.h"

namespace strobe::app {

namespace {
constexpr int kMaxNameWidth = 560;  // px; wider names are elided in the cell, whole in the tooltip
}

void PlotTableModel::setTable(core::Table table, std::vector<std::string> columns, std::string sortKey,
                              bool descending) {
    beginResetModel();
    m_table = std::move(table);
    m_columns = std::move(columns);
    m_sortKey = std::move(sortKey);
    m_descending = descending;
    endResetModel();
}

int PlotTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_table.rows.size());
}

int PlotTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_columns.size());
}

plots::HitInfo PlotTableModel::rowInfo(int row) const {
    plots::HitInfo h;
    const auto r = static_cast<size_t>(row);
    h.title = plots::cellText(m_table, r, "name");
    for (const auto& c : m_columns)
        if (c != "name") h.fields.push_back({plots::columnHeader(c), plots::formatCell(m_table, r, c)});
    if (h.title.empty() && !h.fields.empty()) h.title = h.fields.front().second;
    return h;
}

QVariant PlotTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const auto row = static_cast<size_t>(index.row());
    const std::string& column = m_columns[static_cast<size_t>(index.column())];
    switch (role) {
        case Qt::DisplayRole: return QString::fromStdString(plots::formatCell(m_table, row, column));
        case Qt::ToolTipRole: return tooltipHtml(QString::fromStdString(rowInfo(index.row()).toText()));
        case Qt::TextAlignmentRole: {
            const core::Cell& c = m_table.at(row, column);
            const bool number = std::holds_alternative<int64_t>(c) || std::holds_alternative<double>(c);
            return static_cast<int>((number ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
        }
        default: return {};
    }
}

QVariant PlotTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return QAbstractTableModel::headerData(section, orientation, role);
    const std::string& column = m_columns[static_cast<size_t>(section)];
    if (role == Qt::DisplayRole) {
        // The same marks as the drawn table (Qt's sort indicator points either way depending on the style).
        const QString mark = column == m_sortKey ? (m_descending ? QStringLiteral(" ▼") : QStringLiteral(" ▲")) : QString();
        return QString::fromStdString(plots::columnHeader(column)) + mark;
    }
    if (role == Qt::ToolTipRole) return tr("%1 — click to sort by it").arg(QString::fromStdString(column));
    return {};
}

PlotTableView::PlotTableView(QWidget* parent) : QTableView(parent) {
    setObjectName(QStringLiteral("plotTable"));
    m_model = new PlotTableModel(this);
    setModel(m_model);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    setWordWrap(false);
    setTextElideMode(Qt::ElideMiddle);
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    horizontalHeader()->setStretchLastSection(false);
    horizontalHeader()->setSectionsClickable(true);
    horizontalHeader()->setHighlightSections(false);
    connect(horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int section) {
        if (section >= 0 && section < static_cast<int>(m_model->columns().size()))
            Q_EMIT sortRequested(m_model->columns()[static_cast<size_t>(section)]);
    });
    // A kernel's or operator's row: every instance of it in the Events dock (its run's timeline).
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex index = indexAt(pos);
        const auto& cols = m_model->columns();
        const auto nameCol = std::find(cols.begin(), cols.end(), std::string("name"));
        if (!index.isValid() || nameCol == cols.end()) return;
        const auto& t = m_model->table();
        if (size_t(index.row()) >= t.rows.size()) return;
        const std::string name = core::Table::text(t.at(size_t(index.row()), std::string("name")));
        if (name.empty()) return;
        QMenu menu(this);
        QAction* list = menu.addAction(tr("List every instance on the timeline"));
        list->setObjectName(QStringLiteral("listInstances"));
        connect(list, &QAction::triggered, this, [this, name] { Q_EMIT instancesRequested(name); });
        menu.exec(viewport()->mapToGlobal(pos));
    });
    connect(this, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
        const core::Table& t = m_model->table();
        const int ts = t.columnIndex("ts_ns");
        const int name = t.columnIndex("op") >= 0 ? t.columnIndex("op") : t.columnIndex("name");
        if (!index.isValid() || ts < 0 || name < 0 || size_t(index.row()) >= t.rows.size()) return;
        const auto& row = t.rows[size_t(index.row())];
        const double at = core::Table::number(row[size_t(ts)]);
        const std::string op = core::Table::text(row[size_t(name)]);
        if (!std::isfinite(at) || op.empty()) return;
        const int run = t.columnIndex("run"), rank = t.columnIndex("rank");
        Q_EMIT instanceRequested(run >= 0 ? core::Table::text(row[size_t(run)]) : std::string(),
                                 rank >= 0 ? int(core::Table::number(row[size_t(rank)])) : -1, qint64(at), op);
    });
    connect(selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (!current.isValid()) return;
        const plots::HitInfo h = m_model->rowInfo(current.row());
        Q_EMIT rowSelected(QString::fromStdString(h.title), selectionHtml(h));
    });
}

void PlotTableView::showTable(const core::Table& table, const std::string& sortKey, bool descending) {
    auto columns = plots::displayColumns(table);
    const bool sameColumns = columns == m_shownColumns;
    const int scroll = verticalScrollBar()->value();
    m_model->setTable(table, columns, sortKey, descending);
    if (!sameColumns) {
        m_shownColumns = columns;
        resizeColumnsToContents();  // every row is measured (tables of a few hundred rows)
        for (size_t i = 0; i < columns.size(); ++i)
            if (columns[i] == "name") setColumnWidth(static_cast<int>(i), std::min(columnWidth(static_cast<int>(i)), kMaxNameWidth));
    } else {
        verticalScrollBar()->setValue(scroll);
    }
    horizontalHeader()->setSortIndicatorShown(false);
}

}  // namespace strobe::app
