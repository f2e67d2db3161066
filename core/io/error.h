#pragma once
// Errors and diagnostics that name the file and the place (byte offset, line, event) they concern.
// No exception crosses a library boundary: functions that can fail return Result<T>.

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace strobe::core {

struct Location {
    std::string file;          // path as the user gave it
    int64_t byteOffset = -1;   // offset in the (decompressed) text, -1 when unknown
    int64_t line = -1;         // 1-based line, -1 when unknown
    int64_t eventIndex = -1;   // 0-based index in traceEvents, -1 when unknown
    int64_t row = -1;          // 1-based data row of a CSV file or SQLite table (header not counted), -1 when unknown
    std::string table{};       // SQLite table (or report section) the place is in, "" when none

    std::string toString() const;  // "file: table T: row 3: line 4: byte 123: event 4" (only the known parts)
};

struct Error {
    Location where;
    std::string message;  // what was expected / what went wrong

    Error() = default;
    Error(Location w, std::string msg) : where(std::move(w)), message(std::move(msg)) {}
    explicit Error(std::string msg) : message(std::move(msg)) {}
    std::string toString() const;  // "file: byte 123: message"
};

enum class Severity : uint8_t { Info, Warning, Error };

struct Diagnostic {
    Severity severity = Severity::Warning;
    Location where;
    std::string message;
    std::string toString() const;
};
using Diagnostics = std::vector<Diagnostic>;

// A value or an Error. Small on purpose: C++20 has no std::expected.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::move(value)) {}  // NOLINT(google-explicit-constructor)
    Result(Error error) : m_v(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    const Error& error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace strobe::core
