#pragma once
// RunSet: one or more runs, each a RunEntry. Exploring one trace is a RunSet of one; comparing configurations is the
// same plot with several runs. A run has one shape (DESIGN.md "Data model"): the RunEntry carries what was opened,
// its sweep point (typed parameters, repeat, configuration key), its manifest when it has one, and its data once
// loaded. Discovery, sessions, the GUI's run records, sweep comparison, the report and every plot take it.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/dataset.h"
#include "core/model/run_manifest.h"
#include "core/model/run_parameters.h"

namespace strobe::core {

struct RunEntry {
    std::string label;
    DatasetPtr dataset;             // null until loaded
    RunParameters parameters = {};  // the sweep point (e.g. NCCL_NCHANNELS=16), typed
    std::vector<std::string> paths = {};  // files and/or directories as opened; a discovered run: its directory
    int repeat = 0;                 // 0-based index among the runs of one configuration
    // The configuration the run is pooled in, when set: discovery sets the canonical key of its axes
    // (core::configurationKey; "" for a sweep without axes, whose runs are repeats of one configuration); a plot that
    // pools by another axis (a colour) sets that axis' value. Unset: derived (key()).
    std::optional<std::string> configurationKey = {};
    std::shared_ptr<const RunManifest> manifest = {};  // the run's manifest.yaml, when it has one

    // The first path ("" when none): a discovered run's directory.
    std::string path() const { return paths.empty() ? std::string() : paths.front(); }
    // The configuration key the run is compared under: configurationKey when set, else the parameters' canonical
    // key, else (no parameters) the label, so that runs opened one by one without parameters stay apart.
    std::string key() const {
        if (configurationKey) return *configurationKey;
        return parameters.empty() ? label : core::configurationKey(parameters);
    }
};
using RunSet = std::vector<RunEntry>;

// A run opened by its paths: when it is one directory holding a manifest.yaml (or a file inside such a run), the
// manifest is read and its parameters and repeat fill those the entry lacks. An unreadable manifest is returned as
// the Error (the entry is left as it was).
Status attachRunManifest(RunEntry& entry);

// What a run is, as (name, text) rows for a reader, in this order and only those known: "parameters"
// ("bs=64, lr=0.5"), "repeat", and from its manifest "status" (with its reason), "command", "tools" ("cpu-sampler
// 1.0, rocprofv3 1.0.0"), "host", "devices", "started", "ended", "clocks" (the anchor the run's sources are
// placed with). The CLI summary and the GUI's run tree show the same rows.
std::vector<std::pair<std::string, std::string>> runFacts(const RunEntry& entry);

}  // namespace strobe::core
