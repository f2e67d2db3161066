#pragma once
// A core::Table drawn as a picture, for table plots (Plot::isTable: Top kernels, Kernel counters). The GUI shows
// those as a table widget; pictures are what exports and strobe-cli write. Rows are filtered by a regular
// expression on the name column and sorted by any column, both drawing parameters (no re-preparation).

#include <optional>
#include <string>
#include <vector>

#include <QPointF>
#include <QRectF>

#include "core/analysis/table.h"
#include "plots/chart.h"
#include "plots/plot.h"

namespace strobe::plots {

struct TablePicture {
    std::vector<std::string> columns;  // the keys drawn, in order (absent ones are skipped)
    std::string nameColumn = "name";   // filtered on, left-aligned, cut in the middle where names differ
    std::string sortKey;               // marked ▼/▲ in the header
    bool descending = true;
    size_t maxRows = 30;
};

// Indices of the rows whose name matches `filter` (an invalid or empty expression: all rows), sorted by `sortKey`
// (text for text columns, else numbers), stable.
// `t` with only `rows`, in that order (columns and messages kept): a table plot's table() of what it shows.
core::Table tableRows(const core::Table& t, const std::vector<size_t>& rows);

std::vector<size_t> tableView(const core::Table& t, const std::string& filter, const std::string& sortKey,
                              bool descending, const std::string& nameColumn = "name");

// Draws rows[0..maxRows) of `t` into `area`: header, zebra rows, numbers right-aligned (formatCell).
void drawTablePicture(Canvas& c, const QRectF& area, const core::Table& t, const std::vector<size_t>& rows,
                      const TablePicture& how);

// The position in `rows` of the row drawn under `pt` (same geometry as drawTablePicture), if any.
std::optional<size_t> tablePictureRowAt(const QRectF& area, QPointF pt, size_t rowCount, const TablePicture& how);

// The hover text of a row: its name as the title, the other shown columns as fields.
HitInfo tablePictureHit(const core::Table& t, size_t row, const TablePicture& how);

}  // namespace strobe::plots
