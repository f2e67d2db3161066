#include "core/io/error.h"

#include <fmt/format.h>

namespace strobe::core {

std::string Location::toString() const {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (!table.empty()) s += fmt::format(": table {}", table);
    if (row >= 0) s += fmt::format(": row {}", row);
    if (line >= 0) s += fmt::format(": line {}", line);
    if (byteOffset >= 0) s += fmt::format(": byte {}", byteOffset);
    if (eventIndex >= 0) s += fmt::format(": event {}", eventIndex);
    return s;
}

std::string Error::toString() const {
    if (where.file.empty() && where.byteOffset < 0 && where.line < 0 && where.eventIndex < 0 && where.row < 0 &&
        where.table.empty())
        return message;
    return where.toString() + ": " + message;
}

std::string Diagnostic::toString() const {
    const char* sev = severity == Severity::Error ? "error" : severity == Severity::Warning ? "warning" : "info";
    if (where.file.empty() && where.byteOffset < 0 && where.eventIndex < 0) return fmt::format("{}: {}", sev, message);
    return fmt::format("{}: {}: {}", where.toString(), sev, message);
}

}  // namespace strobe::core
