#include "app/gui/format.h"

#include <cmath>

#include <QLocale>

namespace strobe::app {

QString formatDuration(int64_t ns) {
    const double a = std::abs(static_cast<double>(ns));
    if (a >= 1e9) return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', a >= 1e11 ? 1 : 3);
    if (a >= 1e6) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', a >= 1e8 ? 1 : 2);
    if (a >= 1e3) return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'f', a >= 1e5 ? 0 : 1);
    return QStringLiteral("%1 ns").arg(ns);
}

QString formatCount(uint64_t n) { return QLocale().toString(static_cast<qulonglong>(n)); }

QString formatBytes(uint64_t bytes) {
    return QLocale().formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeTraditionalFormat);
}

}  // namespace strobe::app
