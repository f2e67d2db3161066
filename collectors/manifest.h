#pragma once
// What a collector needs to fill a run manifest (core/model/run_manifest.h: the type, its YAML and the one place
// manifest.yaml is opened): the clocks read now and the time now. Collectors write the manifest through
// core::writeRunManifest.

#include <string>

#include "collectors/device_info.h"
#include "core/model/run_manifest.h"

namespace strobe::collectors {

using core::ManifestFile;
using core::ManifestTool;
using core::RunManifest;
using core::RunStatus;

// The three clocks read back to back (a few hundred ns apart), the anchor that aligns every source's clock, and the
// local zone's offset from UTC (for tools that write local wall time without a zone).
core::ClockAnchor readClocks();
// Current UTC time as 2026-11-24T10:00:00Z.
std::string utcNow();

}  // namespace strobe::collectors
