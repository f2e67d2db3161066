#pragma once
// The one human-readable duration of Strobe: plots (hover fields, value labels, table cells), the GUI (Runs and
// Selection docks, the measure overlay) and strobe-cli summary all write durations with formatDuration().

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace strobe::core {

// `ns` nanoseconds for people: whole nanoseconds below 1 µs ("587 ns"), else µs, ms or s with four significant
// digits and no trailing zeros ("12.35 µs", "6.832 ms", "19 µs", "1.5 s"), whole seconds from 1000 s ("1234 s").
// "n/a" for a value that is not a number.
inline std::string formatDuration(double ns) {
    if (!std::isfinite(ns)) return "n/a";
    const double a = std::fabs(ns);
    if (a < 1e3) return fmt::format("{:.0f} ns", ns);
    // Four significant digits round a value of 999.95 or more up to 1000: that is the next unit's 1.
    if (a < 999.95e3) return fmt::format("{:.4g} µs", ns / 1e3);
    if (a < 999.95e6) return fmt::format("{:.4g} ms", ns / 1e6);
    if (a < 999.95e9) return fmt::format("{:.4g} s", ns / 1e9);
    return fmt::format("{:.0f} s", ns / 1e9);
}

}  // namespace strobe::core
