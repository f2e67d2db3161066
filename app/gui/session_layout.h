#pragma once
// The GUI's part of a session: where each plot sits (pane, tab title) and the window's layout (split, pane
// sizes, current tabs, shared time axes, geometry). Core's session (core/engine/session.h) holds the runs, the
// plots and their parameter values and carries this part as view fields; this file gives them their meaning.
//
// In the file (format 1, unchanged):
//   plots:
//     - id: "gpu-timeline"
//       runs: [0]
//       pane: 1                       # 0: left/top tab pane, 1: the second pane of the split
//       title: "My timeline"          # only when the user renamed the tab
//       values: {...}
//   layout: {split: true, split_vertical: false, split_sizes: [700, 500], current_tab: [0, 0],
//            sync_time_axes: true, window_geometry: "<base64>", window_state: "<base64>"}

#include <string>
#include <vector>

#include "core/engine/session.h"
#include "core/io/error.h"

namespace strobe::app {

struct PlotPlacement {
    int pane = 0;       // 0: left/top tab pane, 1: the second pane of the split
    std::string title;  // tab title when the user renamed it, else empty

    bool operator==(const PlotPlacement&) const = default;
};

struct SessionLayout {
    bool split = false;                  // two panes side by side
    bool splitVertical = false;          // panes stacked instead of side by side
    std::vector<int> splitSizes;         // pixel sizes of the two panes
    std::vector<int> currentTab;         // current tab index per pane
    bool syncTimeAxes = true;            // timelines in the two panes share their time range
    std::string windowGeometry;          // opaque (base64) blobs the GUI writes and reads back
    std::string windowState;
    std::vector<PlotPlacement> plots;    // one per core::Session::plots entry, same order

    bool operator==(const SessionLayout&) const = default;
};

// Stores `layout` in `session`: each plot's pane and title, and the `layout` section (replacing what was there).
// `layout.plots` may be shorter than session.plots (the rest go to pane 0).
void storeLayout(core::Session& session, const SessionLayout& layout);

// The layout a session carries (defaults for what it does not say). An Error names `sourceName` and the line of
// a field of the wrong type or out of range ("'pane' must be 0 or 1").
core::Result<SessionLayout> readLayout(const core::Session& session, const std::string& sourceName = "<session>");

}  // namespace strobe::app
