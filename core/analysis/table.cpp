#include "core/analysis/table.h"

#include <cassert>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace strobe::core {

namespace {
const Cell kNullCell{};

std::string formatDouble(double v) {
    if (!std::isfinite(v)) return {};
    // Shortest text that reads back to the same double.
    std::string s = fmt::format("{}", v);
    return s;
}

void writeCsvField(std::ostream& out, const std::string& s) {
    bool quote = s.find_first_of(",\"\r\n") != std::string::npos;
    if (!quote) {
        out << s;
        return;
    }
    out << '"';
    for (char c : s) {
        if (c == '"') out << '"';
        out << c;
    }
    out << '"';
}

void writeJsonCell(std::ostream& out, const Cell& c) {
    switch (c.index()) {
    case 1: out << std::get<int64_t>(c); break;
    case 2: {
        double v = std::get<double>(c);
        if (std::isfinite(v))
            out << formatDouble(v);
        else
            out << "null";  // JSON has no NaN/inf
        break;
    }
    case 3: out << jsonQuote(std::get<std::string>(c)); break;
    default: out << "null";
    }
}
}  // namespace

std::string jsonQuote(const std::string& s) {
    std::string o;
    o.reserve(s.size() + 2);
    o.push_back('"');
    for (size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '"': o += "\\\""; break;
        case '\\': o += "\\\\"; break;
        case '\n': o += "\\n"; break;
        case '\r': o += "\\r"; break;
        case '\t': o += "\\t"; break;
        default:
            if (c < 0x20) {
                o += fmt::format("\\u{:04x}", c);
            } else if (c < 0x80) {
                o.push_back(static_cast<char>(c));
            } else {
                // Pass valid UTF-8 sequences through, escape stray bytes as U+FFFD.
                size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
                bool ok = n > 0 && i + n <= s.size();
                for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
                if (ok) {
                    o.append(s, i, n);
                    i += n - 1;
                } else {
                    o += "\\ufffd";
                }
            }
        }
    }
    o.push_back('"');
    return o;
}

std::vector<std::string> columnNames(std::initializer_list<ColumnKey> columns) {
    std::vector<std::string> out;
    for (const auto& c : columns) out.emplace_back(c.name);
    return out;
}

int Table::columnIndex(const std::string& name) const {
    for (size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name) return static_cast<int>(i);
    return -1;
}

const Cell& Table::at(size_t row, const std::string& name) const {
    int c = columnIndex(name);
    if (c < 0 || row >= rows.size() || static_cast<size_t>(c) >= rows[row].size()) return kNullCell;
    return rows[row][static_cast<size_t>(c)];
}

double Table::number(const Cell& c, double fallback) {
    if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&c)) return *d;
    return fallback;
}

std::string Table::text(const Cell& c) {
    switch (c.index()) {
    case 1: return std::to_string(std::get<int64_t>(c));
    case 2: return formatDouble(std::get<double>(c));
    case 3: return std::get<std::string>(c);
    default: return {};
    }
}

void Table::addRow(std::vector<Cell> row) {
    assert(row.size() == columns.size());
    rows.push_back(std::move(row));
}

void Table::writeCsv(std::ostream& out) const {
    for (size_t i = 0; i < columns.size(); ++i) {
        if (i) out << ',';
        writeCsvField(out, columns[i]);
    }
    out << "\r\n";
    for (const auto& r : rows) {
        for (size_t i = 0; i < columns.size(); ++i) {
            if (i) out << ',';
            if (i < r.size()) writeCsvField(out, text(r[i]));
        }
        out << "\r\n";
    }
}

void Table::writeJsonRows(std::ostream& out) const {
    out << '[';
    for (size_t r = 0; r < rows.size(); ++r) {
        out << (r ? ",\n  {" : "\n  {");
        for (size_t i = 0; i < columns.size(); ++i) {
            if (i) out << ", ";
            out << jsonQuote(columns[i]) << ": ";
            writeJsonCell(out, i < rows[r].size() ? rows[r][i] : kNullCell);
        }
        out << '}';
    }
    out << (rows.empty() ? "]" : "\n]");
}

void Table::writeJsonDocument(std::ostream& out, const std::string& analysis, const std::string& window) const {
    out << "{\"analysis\": " << jsonQuote(analysis) << ", \"window\": " << jsonQuote(window) << ", \"columns\": [";
    for (size_t i = 0; i < columns.size(); ++i) out << (i ? ", " : "") << jsonQuote(columns[i]);
    out << "],\n\"rows\": ";
    writeJsonRows(out);
    out << ",\n\"messages\": [";
    for (size_t i = 0; i < messages.size(); ++i) out << (i ? ", " : "") << jsonQuote(messages[i]);
    out << "]";
    if (!extraJson.empty()) out << ",\n" << extraJson;
    out << "}\n";
}

}  // namespace strobe::core
