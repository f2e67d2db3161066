#pragma once
// View-state helpers for timelines (widget-free). A timeline's visible range and lane scroll are drawing
// parameters (plot.h: view_start_ns, view_end_ns relative to the origin, lane_scroll); the GUI's canvas calls
// these on wheel, drag and box-zoom and redraws with the returned values — prepare() never runs for them.

#include <cstdint>

#include "plots/plot.h"

namespace strobe::plots {

inline constexpr const char* kViewStartKey = "view_start_ns";
inline constexpr const char* kViewEndKey = "view_end_ns";
inline constexpr const char* kLaneScrollKey = "lane_scroll";

// The three drawing parameters every timeline declares (defaults: whole range, first lane).
inline const IntParam kViewStart =
    IntParam{kViewStartKey, "View start",
             "Start of the visible time range, ns after the first event (0 and 0: whole range)", 0}
        .drawOnly()
        .unit("ns");
inline const IntParam kViewEnd =
    IntParam{kViewEndKey, "View end", "End of the visible time range, ns after the first event (0 and 0: whole range)",
             0}
        .drawOnly()
        .unit("ns");
inline const IntParam kLaneScroll =
    IntParam{kLaneScrollKey, "First lane", "Index of the first lane shown (scroll)", 0}.bounded(0, 1e9, 0).drawOnly();
// Height of one lane in pixels (the GUI reads it to keep a clicked item under the cursor).
inline const IntParam kLaneHeight =
    IntParam{"lane_height", "Lane height", "Height of one lane in pixels", 18}.bounded(6, 80, 1).unit("px").drawOnly();

// The timeline's name filter: the GUI's "Filter the plot to this name" sets it (to an exact-name regex).
inline const RegexParam kNameFilter{"name_filter", "Kernel name filter",
                                    "Only activities whose name matches this regular expression (empty: all)", ""};

std::vector<ParamSpec> timelineViewSpecs();

struct ViewRange {
    int64_t start = 0;  // relative ns
    int64_t end = 0;
};
// The range to show: the values clamped to [fullStart, fullEnd], or the whole range when both are 0 or invalid.
ViewRange effectiveView(const ParamValues& values, int64_t fullStart, int64_t fullEnd);

// Each returns `values` with a new view. `factor` < 1 zooms in (0.8 per wheel notch in), > 1 zooms out; the
// time under `x` stays put. Pan by `dx` pixels (positive drags content right = earlier times).
ParamValues zoomAt(const TimelineGeometry& g, const ParamValues& values, double x, double factor);
ParamValues panBy(const TimelineGeometry& g, const ParamValues& values, double dxPixels);
ParamValues zoomToPixels(const TimelineGeometry& g, const ParamValues& values, double x0, double x1);
ParamValues setView(const ParamValues& values, int64_t relStart, int64_t relEnd);  // synchronised axes
ParamValues resetView(const ParamValues& values);
ParamValues scrollLanes(const TimelineGeometry& g, const ParamValues& values, int deltaLanes);

}  // namespace strobe::plots
