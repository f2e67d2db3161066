#pragma once
// Human-readable numbers for the GUI (durations, counts, bytes).

#include <cstdint>

#include <QString>

namespace strobe::app {

QString formatDuration(int64_t ns);  // "1.23 s", "45.6 ms", "789 µs", "12 ns"
QString formatCount(uint64_t n);     // locale grouping: "1,234,567"
QString formatBytes(uint64_t bytes); // "12.3 MB"

}  // namespace strobe::app
