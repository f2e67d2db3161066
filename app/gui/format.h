#pragma once
// Human-readable numbers for the GUI (durations, counts, bytes).

#include <cstdint>

#include <QString>

#include "core/model/duration_text.h"
#include "plots/plot.h"

namespace strobe::app {

// core::formatDuration as a QString ("587 ns", "12.35 µs", "1.235 s").
inline QString durationText(double ns) { return QString::fromStdString(core::formatDuration(ns)); }
QString formatCount(uint64_t n);     // locale grouping: "1,234,567"
QString formatBytes(uint64_t bytes); // "12.3 MB"

// Characters per line of tooltips and details (about 480 px): longer lines wrap (plots::wrapText).
inline constexpr int kReadableLineChars = 60;
// A plot's tooltip text (title line, then "field: value" lines) as rich text: the title bold, every line
// wrapped at kReadableLineChars.
QString tooltipHtml(const QString& text);
// The details of a selected item for the Selection dock: the key fields first (duration, start, rank, stream,
// category, then the others in the plot's order), the title on top when short, else after the fields and wrapped
// (a demangled kernel name would push the duration out of sight).
QString selectionHtml(const plots::HitInfo& hit);

}  // namespace strobe::app
