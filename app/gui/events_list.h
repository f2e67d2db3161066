#pragma once
// The events list: every instance of what the user asked about — a kernel or operator name (the timeline's context
// menu, Top kernels), a search's matches, the items of a measured range — as a table like Nsight Systems' Events
// View or Perfetto's slice table: sortable by any column (duration first, longest at the top, so the slowest
// instance is one look away), filtered by text, each row a click from the timeline (it selects the item there and
// zooms to it). It is the one list other views (the diff, findings, operators, queries) open.

#include <vector>

#include <QAbstractTableModel>
#include <QPointer>
#include <QString>
#include <QWidget>

#include "plots/plot.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace strobe::app {

class PlotView;

// What a view asks the list to show: a title ("aten::linear: 128 instances in r0"), the rows and the timeline items
// they come from (same order).
struct EventListing {
    QString title;
    std::vector<plots::EventRow> rows;
    std::vector<plots::ItemRef> items;
};

class EventsModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Duration, Start, Run, Rank, Where, Kind, Category, Grid, Step, ColumnCount };
    // The value a column sorts by (numbers as numbers, text case-insensitively).
    static constexpr int kSortRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<plots::EventRow> rows);
    const plots::EventRow* row(int r) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<plots::EventRow> m_rows;
};

class EventsList final : public QWidget {
    Q_OBJECT
public:
    explicit EventsList(QWidget* parent = nullptr);

    // Shows `listing`, sorted by duration (longest first), the filter cleared; rows activate items of `source`.
    void setListing(EventListing listing, PlotView* source);
    QString title() const;
    int visibleRows() const;  // after the filter
    QTableView* table() const { return m_table; }
    QLineEdit* filterEdit() const { return m_filter; }
    // Selects visible row `row` (after sorting and filtering) and its item on the timeline, zooming to it.
    void activateRow(int row);

Q_SIGNALS:
    void itemActivated(const plots::ItemRef& item);

private:
    void updateCount();

    QLabel* m_title = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_count = nullptr;
    QTableView* m_table = nullptr;
    EventsModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    EventListing m_listing;
    QPointer<PlotView> m_source;
};

}  // namespace strobe::app
