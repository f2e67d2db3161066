#pragma once
// Table: what every analysis returns (plots, the command line and reports all share it). Columns have stable
// names; cells are null, integer, floating or text. Messages explain empty or partial results ("rank 3 has
// no GPU events") instead of a silent zero.

#include <cstdint>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace strobe::core {

using Cell = std::variant<std::monostate, int64_t, double, std::string>;

struct Table {
    std::vector<std::string> columns;
    std::vector<std::vector<Cell>> rows;
    std::vector<std::string> messages;

    int columnIndex(const std::string& name) const;  // -1 if absent
    void writeCsv(std::ostream& out) const;           // RFC 4180 quoting, header row first
    // JSON array of row objects: [{"col": value, ...}, ...]
    void writeJsonRows(std::ostream& out) const;
};

}  // namespace strobe::core
