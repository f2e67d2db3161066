#include "plots/timeline_view.h"

#include <algorithm>
#include <cmath>

namespace strobe::plots {

std::vector<ParamSpec> timelineViewSpecs() { return {kViewStart.spec(), kViewEnd.spec(), kLaneScroll.spec()}; }

ViewRange effectiveView(const ParamValues& values, int64_t fullStart, int64_t fullEnd) {
    if (fullEnd <= fullStart) fullEnd = fullStart + 1;
    int64_t s = kViewStart(values);
    int64_t e = kViewEnd(values);
    if ((s == 0 && e == 0) || e <= s) return {fullStart, fullEnd};
    // Panning stops at the data: a view as long as the data or longer shows all of it; a shorter one is moved
    // (keeping its length) to lie within [fullStart, fullEnd].
    if (e - s >= fullEnd - fullStart) return {fullStart, fullEnd};
    if (s < fullStart) {
        e += fullStart - s;
        s = fullStart;
    }
    if (e > fullEnd) {
        s -= e - fullEnd;
        e = fullEnd;
    }
    return {s, e};
}

ParamValues setView(const ParamValues& values, int64_t relStart, int64_t relEnd) {
    ParamValues out = values;
    if (relEnd <= relStart) relEnd = relStart + 1;
    kViewStart.set(out, relStart);
    kViewEnd.set(out, relEnd);
    return out;
}

ParamValues resetView(const ParamValues& values) {
    ParamValues out = values;
    kViewStart.set(out, 0);
    kViewEnd.set(out, 0);
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
    // Panning stops at the data's ends.
    s = std::clamp<int64_t>(s, g.fullStart, std::max(g.fullStart, g.fullEnd - span));
    return setView(values, s, s + span);
}

ParamValues zoomToPixels(const TimelineGeometry& g, const ParamValues& values, double x0, double x1) {
    if (x1 < x0) std::swap(x0, x1);
    if (x1 - x0 < 2) return values;  // a click, not a box
    return setView(values, g.timeForX(x0), std::max(g.timeForX(x1), g.timeForX(x0) + 100));
}

ParamValues scrollLanes(const TimelineGeometry& g, const ParamValues& values, int deltaLanes) {
    ParamValues out = values;
    long long cur = kLaneScroll(values);
    long long maxFirst = std::max(0, g.laneCount - std::max(1, g.visibleLanes));
    kLaneScroll.set(out, std::clamp<long long>(cur + deltaLanes, 0, maxFirst));
    return out;
}

}  // namespace strobe::plots
