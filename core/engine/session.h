#pragma once
// A workbench session: the runs that were open, the plots with their parameter values, and the window layout.
// Saved and restored as YAML. Qt-free (the GUI converts to and from its own types) so that it can be unit-tested
// and fuzzed. Loading never throws: a malformed file gives an Error naming the file and the line.
//
// A session reopens on new data: the plots refer to runs by index, so replacing the runs (other paths, a newer
// trace of the same job) keeps every plot and every parameter value.

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/io/error.h"
#include "core/params/param_spec.h"

namespace strobe::core {

// A parameter value as written; the plot's ParamSpec coerces it when the session opens (core::coerceValue).
using SessionValue = ParamValue;

struct SessionRun {
    std::string label;                               // shown in the run tree; empty: derived from the paths
    std::vector<std::string> paths;                  // files or directories, as the user opened them
    std::map<std::string, std::string> parameters;   // sweep point (e.g. NCCL_NCHANNELS=16)

    bool operator==(const SessionRun&) const = default;
};

struct SessionPlot {
    std::string plotId;                              // registry id ("gpu_timeline" ...)
    std::vector<int> runs;                           // indices into Session::runs
    std::map<std::string, SessionValue> values;      // parameter key → value (only what the plot declares)
    int pane = 0;                                    // 0: left/top tab pane, 1: the second pane of the split
    std::string title;                               // tab title when the user renamed it, else empty

    bool operator==(const SessionPlot&) const = default;
};

struct SessionLayout {
    bool split = false;                  // two panes side by side
    bool splitVertical = false;          // panes stacked instead of side by side
    std::vector<int> splitSizes;         // pixel sizes of the two panes
    std::vector<int> currentTab;         // current tab index per pane
    bool syncTimeAxes = true;            // timelines in the two panes share their time range
    std::string windowGeometry;          // opaque (base64) blobs the GUI writes and reads back
    std::string windowState;

    bool operator==(const SessionLayout&) const = default;
};

struct Session {
    static constexpr int kFormatVersion = 1;
    int version = kFormatVersion;
    std::vector<SessionRun> runs;
    std::vector<SessionPlot> plots;
    SessionLayout layout;

    bool operator==(const Session&) const = default;
};

// YAML text of a session. Strings are always quoted so that "true" or "3" stay strings on reload; doubles always
// carry a decimal point or exponent so that they stay doubles.
std::string sessionToYaml(const Session& session);

// Parses YAML text; `sourceName` is the file name used in errors ("session.yaml: line 7: ...").
Result<Session> sessionFromYaml(const std::string& text, const std::string& sourceName = "<session>");

// File versions. Saving writes a temporary file next to the target and renames it (never a half-written session).
Result<Session> loadSession(const std::string& path);
Status saveSession(const Session& session, const std::string& path);

}  // namespace strobe::core
