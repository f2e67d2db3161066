#pragma once
// A run directory's manifest.yaml (DESIGN.md "Files that connect the jobs", strobe_manifest: 1): what ran, with
// which tools and settings, on which machine, when, how it ended, and every file it left. Written atomically (a
// temporary file, then rename) when the run starts and again when it ends, so a crash leaves a readable manifest
// with status: running. core/sweep reads its `parameters:` and `repeat:` back.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/device_info.h"
#include "core/io/error.h"

namespace strobe::collectors {

struct ManifestTool {
    std::string name, version;
    std::map<std::string, std::string> params;  // value text (core::valueToString)
};

struct ManifestFile {
    std::string path;  // relative to the run directory
    uint64_t size = 0;
    std::string tool;  // the tool whose outputs match it; "" for others (the workload's own files, logs)
    std::string format;
};

struct Clocks {
    int64_t realtimeNs = 0, monotonicNs = 0, boottimeNs = 0;
    int64_t utcOffsetSeconds = 0;  // the local zone's offset then (local time = UTC + this): nvidia-smi's timestamps
};
// The three clocks read back to back (a few hundred ns apart), the anchor that aligns every source's clock, and the
// local zone's offset from UTC (for tools that write local wall time without a zone).
Clocks readClocks();

struct RunManifest {
    std::vector<std::string> command;
    std::string cwd;
    std::map<std::string, std::string> parameters;  // the sweep point, as text (written typed: int, float, string)
    std::optional<int> repeat;
    std::vector<ManifestTool> tools;
    std::map<std::string, std::string> envDiff;     // redacted (redactEnv)
    std::vector<GpuDevice> devices;
    std::string host;
    Clocks clocks;
    std::string start, end;                         // UTC, ISO 8601
    std::string status = "running";                 // running | completed | failed | cancelled
    std::optional<int> exitCode, exitSignal;
    std::optional<std::string> slurmJob;
    std::vector<ManifestFile> files;
    std::vector<std::string> messages;              // what went wrong or was noticed (a sampler that died, ...)
};

// Values of names matching *TOKEN*, *KEY*, *SECRET*, *PASSWORD* (any case) become "<redacted>".
std::map<std::string, std::string> redactEnv(const std::map<std::string, std::string>& env);
// Current UTC time as 2026-11-24T10:00:00Z.
std::string utcNow();

std::string manifestYaml(const RunManifest& m);
// Writes <dir>/manifest.yaml atomically; an Error names the file.
core::Status writeManifest(const std::string& dir, const RunManifest& m);
// Rewrites <dir>/manifest.yaml (atomically) with status: cancelled and `message` added to its messages, the rest as
// it was: how a Slurm submitter that cancelled a job corrects what the session inside wrote (collectors/session.h).
core::Status markManifestCancelled(const std::string& dir, const std::string& message);

}  // namespace strobe::collectors
