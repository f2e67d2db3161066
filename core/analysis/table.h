#pragma once
// Table: what every analysis returns (plots, the command line and reports all share it). Columns have stable
// names; cells are null, integer, floating or text. Messages explain empty or partial results ("rank 3 has
// no GPU events") instead of a silent zero.

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace strobe::core {

using Cell = std::variant<std::monostate, int64_t, double, std::string>;

// A column name declared once as a constant (core/analysis/columns.h): tables are built and read through these,
// so that a misspelled column does not compile.
struct ColumnKey {
    const char* name;
    std::string str() const { return name; }
};
std::vector<std::string> columnNames(std::initializer_list<ColumnKey> columns);

struct Table {
    std::vector<std::string> columns;
    std::vector<std::vector<Cell>> rows;
    std::vector<std::string> messages;
    // Optional (additive): the window an analysis chose itself (the critical path's step or annotation instance),
    // shown instead of the request's; and JSON members written after "messages" in the document, without braces
    // ("\"length_ns\": 5, \"path\": [...]").
    std::string windowText;
    std::string extraJson;

    int columnIndex(const std::string& name) const;  // -1 if absent
    int columnIndex(ColumnKey c) const { return columnIndex(c.str()); }
    void writeCsv(std::ostream& out) const;           // RFC 4180 quoting, header row first
    // JSON array of row objects: [{"col": value, ...}, ...]
    void writeJsonRows(std::ostream& out) const;

    // Additions for analyses (additive).
    // The cell of row `row` in column `name`, a null cell when either is absent.
    const Cell& at(size_t row, const std::string& name) const;
    const Cell& at(size_t row, ColumnKey c) const { return at(row, c.str()); }
    // Numeric value of a cell (int64 or double), `fallback` for null or text.
    static double number(const Cell& c, double fallback = 0.0);
    // Text of a cell as it is written in CSV ("" for null; doubles with up to 17 significant digits).
    static std::string text(const Cell& c);
    // Appends a row; its size must equal columns.size() (checked in debug builds).
    void addRow(std::vector<Cell> row);
    // The whole JSON document: {"analysis": ..., "window": ..., "rows": [...], "messages": [...]}.
    void writeJsonDocument(std::ostream& out, const std::string& analysis, const std::string& window) const;
};

// JSON string literal for `s` (quotes included), with control characters and non-UTF-8 bytes escaped.
std::string jsonQuote(const std::string& s);

}  // namespace strobe::core
