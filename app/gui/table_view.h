#pragma once
// PlotTableView: how the GUI shows a table plot (Plot::isTable, e.g. Top kernels): the plot's table() in a table
// widget — every row (it scrolls), every column (horizontal scroll when they do not fit), cells formatted as the
// picture formats them (plots::formatCell), columns resizable by dragging, the full row in the tooltip, a click on a
// header to sort by that column. The picture (draw()) stays what exports and the command line write.

#include <string>
#include <vector>

#include <QAbstractTableModel>
#include <QTableView>

#include "core/analysis/table.h"

namespace strobe::plots {
struct HitInfo;
}

namespace strobe::app {

class PlotTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    // Shows `table`'s `columns` (a subset, in this order); the header of `sortKey` gets ▼ (descending) or ▲.
    void setTable(core::Table table, std::vector<std::string> columns, std::string sortKey = {},
                  bool descending = true);
    const std::vector<std::string>& columns() const { return m_columns; }
    const core::Table& table() const { return m_table; }
    // The row as the Selection dock and the tooltip show it: the name as title, the other columns as fields.
    plots::HitInfo rowInfo(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    core::Table m_table;
    std::vector<std::string> m_columns;
    std::string m_sortKey;
    bool m_descending = true;
};

class PlotTableView : public QTableView {
    Q_OBJECT
public:
    explicit PlotTableView(QWidget* parent = nullptr);
    PlotTableModel* tableModel() const { return m_model; }
    // Shows `table` (columns: plots::displayColumns); `sortKey` is marked in its header. Column widths the user
    // set stay while the columns stay the same.
    void showTable(const core::Table& table, const std::string& sortKey, bool descending);

Q_SIGNALS:
    void rowSelected(const QString& title, const QString& html);
    void sortRequested(const std::string& column);
    // Right-click on a row of a table with a "name" column (Top kernels): list that name's instances.
    void instancesRequested(const std::string& name);
    // A row of a table with a "ts_ns" column and an "op" (or "name") column activated (double-click, Enter): the
    // instance that started — or, for an allocation inside it, held — that time on the timeline (operator-efficiency,
    // memory-live-at-peak). `run` is the row's "run" ("" when the table has none), `rank` its "rank" (-1: none).
    void instanceRequested(const std::string& run, int rank, qint64 ts, const std::string& name);

private:
    PlotTableModel* m_model = nullptr;
    std::vector<std::string> m_shownColumns;
};

}  // namespace strobe::app
