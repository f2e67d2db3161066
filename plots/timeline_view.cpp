#include "plots/timeline_view.h"

#include <algorithm>
#include <cmath>

namespace strobe::plots {

std::vector<ParamSpec> timelineViewSpecs() {
    ParamSpec s;
    s.type = ParamType::Int;
    s.affectsPrepare = false;
    s.defaultValue = 0LL;
    s.unit = "ns";
    std::vector<ParamSpec> out;
    s.key = kViewStartKey;
    s.label = "View start";
    s.tooltip = "Start of the visible time range, ns after the first event (0 and 0: whole range)";
    out.push_back(s);
    s.key = kViewEndKey;
    s.label = "View end";
    s.tooltip = "End of the visible time range, ns after the first event (0 and 0: whole range)";
    out.push_back(s);
    s.key = kLaneScrollKey;
    s.label = "First lane";
    s.tooltip = "Index of the first lane shown (scroll)";
    s.unit = "";
    s.min = 0;
    s.max = 1e9;
    out.push_back(s);
    return out;
}

ViewRange effectiveView(const ParamValues& values, int64_t fullStart, int64_t fullEnd) {
    if (fullEnd <= fullStart) fullEnd = fullStart + 1;
    int64_t s = paramInt(values, kViewStartKey, 0);
    int64_t e = paramInt(values, kViewEndKey, 0);
    if ((s == 0 && e == 0) || e <= s) return {fullStart, fullEnd};
    // Allow a little room beyond the data so that zooming near an edge does not stick, but not unbounded.
    int64_t span = fullEnd - fullStart;
    s = std::clamp<int64_t>(s, fullStart - span, fullEnd + span);
    e = std::clamp<int64_t>(e, fullStart - span, fullEnd + span);
    if (e <= s) return {fullStart, fullEnd};
    return {s, e};
}

ParamValues setView(const ParamValues& values, int64_t relStart, int64_t relEnd) {
    ParamValues out = values;
    if (relEnd <= relStart) relEnd = relStart + 1;
    out[kViewStartKey] = static_cast<long long>(relStart);
    out[kViewEndKey] = static_cast<long long>(relEnd);
    return out;
}

ParamValues resetView(const ParamValues& values) {
    ParamValues out = values;
    out[kViewStartKey] = 0LL;
    out[kViewEndKey] = 0LL;
    return out;
}

ParamValues zoomAt(const TimelineGeometry& g, const ParamValues& values, double x, double factor) {
    if (!(factor > 0)) return values;
    int64_t anchor = g.timeForX(x);
    double span = static_cast<double>(g.viewEnd - g.viewStart) * factor;
    span = std::max(span, 100.0);  // never below 100 ns across the whole width
    double fullSpan = static_cast<double>(std::max<int64_t>(1, g.fullEnd - g.fullStart));
    if (span >= fullSpan * 1.0) return resetView(values);
    double frac = g.plotArea.width() > 0 ? (x - g.plotArea.left()) / g.plotArea.width() : 0.5;
    frac = std::clamp(frac, 0.0, 1.0);
    auto s = static_cast<int64_t>(std::llround(static_cast<double>(anchor) - frac * span));
    auto e = s + static_cast<int64_t>(std::llround(span));
    return setView(values, s, e);
}

ParamValues panBy(const TimelineGeometry& g, const ParamValues& values, double dxPixels) {
    double w = std::max(1.0, g.plotArea.width());
    auto shift = static_cast<int64_t>(std::llround(dxPixels / w * static_cast<double>(g.viewEnd - g.viewStart)));
    int64_t span = g.viewEnd - g.viewStart;
    int64_t s = g.viewStart - shift;
    // Keep some data in view.
    s = std::clamp<int64_t>(s, g.fullStart - span / 2, std::max(g.fullStart, g.fullEnd - span / 2));
    return setView(values, s, s + span);
}

ParamValues zoomToPixels(const TimelineGeometry& g, const ParamValues& values, double x0, double x1) {
    if (x1 < x0) std::swap(x0, x1);
    if (x1 - x0 < 2) return values;  // a click, not a box
    return setView(values, g.timeForX(x0), std::max(g.timeForX(x1), g.timeForX(x0) + 100));
}

ParamValues scrollLanes(const TimelineGeometry& g, const ParamValues& values, int deltaLanes) {
    ParamValues out = values;
    long long cur = paramInt(values, kLaneScrollKey, 0);
    long long maxFirst = std::max(0, g.laneCount - std::max(1, g.visibleLanes));
    out[kLaneScrollKey] = std::clamp<long long>(cur + deltaLanes, 0, maxFirst);
    return out;
}

}  // namespace strobe::plots
