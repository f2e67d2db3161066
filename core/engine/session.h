#pragma once
// A workbench session: the runs that were open and the plots with their parameter values. Saved and restored as
// YAML. Qt-free so that it can be unit-tested and fuzzed. Loading never throws: a malformed file gives an Error
// naming the file and the line.
//
// What a front end keeps beside that (the GUI's panes, tab titles, split and window geometry:
// app/gui/session_layout.h) travels as view fields: the other keys of each plot's mapping, and the other
// top-level mappings of the file (the GUI's `layout:`). Core reads, keeps and writes them back in their order
// and with their types, without knowing what they mean.
//
// A session reopens on new data: the plots refer to runs by index, so replacing the runs (other paths, a newer
// trace of the same job) keeps every plot and every parameter value.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/io/error.h"
#include "core/model/run_set.h"
#include "core/params/param_spec.h"

namespace strobe::core {

// A parameter value as written; the plot's ParamSpec coerces it when the session opens (core::coerceValue).
using SessionValue = ParamValue;

// A run of the session: its RunEntry's label (empty: derived from the paths), paths (files or directories, as the
// user opened them) and sweep point (parameters, written as text and read back typed: core::parseRunValue); the
// entry's other fields (dataset, manifest, repeat, key) are not written.
struct SessionRun {
    RunEntry run;
    // The clock offset the user gave the run (ns added to the times of its sources not on the realtime clock, as
    // strobe-cli --clock-offset); unset: none.
    std::optional<int64_t> clockOffsetNs;

    // What the file holds: label, paths, parameters and the clock offset.
    bool operator==(const SessionRun& o) const {
        return run.label == o.run.label && run.paths == o.run.paths && run.parameters == o.run.parameters &&
               clockOffsetNs == o.clockOffsetNs;
    }
};

// A front end's value: written as true/false, an integer, a double, a quoted text or a flow list of integers or
// of quoted texts; read back as the same type (an empty list reads as a list of integers).
using SessionViewValue =
    std::variant<bool, long long, double, std::string, std::vector<long long>, std::vector<std::string>>;

struct SessionViewField {
    std::string key;
    SessionViewValue value;
    int line = -1;  // 1-based line in the file it was read from (-1: not read from a file); not compared

    bool operator==(const SessionViewField& o) const { return key == o.key && value == o.value; }
};
using SessionViewFields = std::vector<SessionViewField>;  // in file order

struct SessionPlot {
    std::string plotId;                              // registry id ("gpu_timeline" ...)
    std::vector<int> runs;                           // indices into Session::runs
    std::map<std::string, SessionValue> values;      // parameter key → value (only what the plot declares)
    SessionViewFields view;                          // the plot's other keys (written between runs and values)

    bool operator==(const SessionPlot&) const = default;
};

struct SessionSection {
    std::string name;          // top-level key ("layout")
    SessionViewFields fields;
    int line = -1;             // where the section starts; not compared

    bool operator==(const SessionSection& o) const { return name == o.name && fields == o.fields; }
};

struct Session {
    static constexpr int kFormatVersion = 1;
    int version = kFormatVersion;
    std::vector<SessionRun> runs;
    std::vector<SessionPlot> plots;
    std::vector<SessionSection> sections;  // other top-level mappings, written after the plots

    bool operator==(const Session&) const = default;
};

// The field `key` of `fields`, or null.
const SessionViewField* findViewField(const SessionViewFields& fields, std::string_view key);

// YAML text of a session. Strings are always quoted so that "true" or "3" stay strings on reload; doubles always
// carry a decimal point or exponent so that they stay doubles.
std::string sessionToYaml(const Session& session);

// Parses YAML text; `sourceName` is the file name used in errors ("session.yaml: line 7: ...").
Result<Session> sessionFromYaml(const std::string& text, const std::string& sourceName = "<session>");

// File versions. Saving writes a temporary file next to the target and renames it (never a half-written session).
Result<Session> loadSession(const std::string& path);
Status saveSession(const Session& session, const std::string& path);

}  // namespace strobe::core
