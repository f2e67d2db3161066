#include "plots/plot.h"

#include <algorithm>
#include <cmath>

namespace strobe::plots {

Theme Theme::light() {
    return {QColor(255, 255, 255), QColor(33, 37, 41), QColor(222, 226, 230), QColor(108, 117, 125),
            QColor(220, 53, 69)};
}

Theme Theme::dark() {
    return {QColor(30, 32, 36), QColor(230, 232, 235), QColor(64, 68, 75), QColor(160, 166, 173),
            QColor(255, 107, 107)};
}

std::string HitInfo::toText() const {
    std::string out = title;
    for (const auto& [k, v] : fields) {
        if (!out.empty()) out += '\n';
        out += k + ": " + v;
    }
    return out;
}

double TimelineGeometry::xForTime(int64_t relNs) const {
    double span = static_cast<double>(std::max<int64_t>(1, viewEnd - viewStart));
    return plotArea.left() + (static_cast<double>(relNs - viewStart) / span) * plotArea.width();
}

int64_t TimelineGeometry::timeForX(double x) const {
    double span = static_cast<double>(std::max<int64_t>(1, viewEnd - viewStart));
    double w = std::max(1.0, plotArea.width());
    return viewStart + static_cast<int64_t>(std::llround((x - plotArea.left()) / w * span));
}

core::Result<PreparedPtr> prepareNow(const Plot& plot, const RunSet& runs, const ParamValues& values,
                                     const core::CancelToken& cancel, const core::ProgressFn& progress) {
    auto resolved = resolveValues(plot.parameters(runs), values);
    if (!resolved) return resolved.error();
    return plot.prepare(runs, *resolved, cancel, progress);
}

core::Error cancelledError() { return core::Error("cancelled"); }
bool isCancelledError(const core::Error& e) { return e.message == "cancelled"; }

}  // namespace strobe::plots
