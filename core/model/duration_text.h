#pragma once
// The one human-readable duration of Strobe: plots (hover fields, value labels, table cells), the GUI (Runs and
// Selection docks, the measure overlay) and strobe-cli summary all write durations with formatDuration().

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace strobe::core {

// `ns` nanoseconds for people: whole nanoseconds below 1 µs ("587 ns"), else µs, ms or s with three decimals and
// trailing zeros dropped ("12.345 µs", "16.439 ms", "19 µs", "1.5 s"); seconds stay the unit from 1 s up
// ("1234.5 s"), so no exponent is ever written. "n/a" for a value that is not a number.
inline std::string formatDuration(double ns) {
    if (!std::isfinite(ns)) return "n/a";
    const double a = std::fabs(ns);
    if (a < 1e3) return fmt::format("{:.0f} ns", ns);
    // Three decimals round a value of 999.9995 or more up to 1000.000: that is the next unit's 1.
    const auto threeDecimals = [](double v, const char* unit) {
        std::string s = fmt::format("{:.3f}", v);
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
        return s + " " + unit;
    };
    if (a < 999.9995e3) return threeDecimals(ns / 1e3, "µs");
    if (a < 999.9995e6) return threeDecimals(ns / 1e6, "ms");
    return threeDecimals(ns / 1e9, "s");
}

}  // namespace strobe::core
