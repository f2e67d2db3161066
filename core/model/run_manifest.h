#pragma once
// The run model's files (DESIGN.md "Files that connect the jobs"): a run directory's manifest.yaml (strobe_manifest)
// and a sweep directory's sweep.yaml (strobe_sweep). This is the one place either file is opened: collectors write
// through it, and discovery, clock anchoring, the sweep launcher, the GUI and the CLI read through it.
//
// Versions: a file of this version or an older one reads fully; a file of a newer version reads as far as this
// version knows, with a warning in `warnings` (fields it does not know are ignored).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"
#include "core/model/run_parameters.h"

namespace strobe::core {

inline constexpr const char* kRunManifestFileName = "manifest.yaml";
inline constexpr const char* kSweepFileName = "sweep.yaml";

// How a run ended. Running: started and not ended (a crash leaves this); Incomplete: ended without all it was asked
// for (RunManifest::statusReason says what is missing); Failed: the workload failed; Cancelled: stopped by the user.
enum class RunStatus : uint8_t { Running, Completed, Incomplete, Failed, Cancelled };
const char* toString(RunStatus status);
std::optional<RunStatus> parseRunStatus(std::string_view text);

// The clocks read back to back (a few hundred ns apart) when a run started: the distance of each clock to realtime
// anchors the run's sources on that clock; the local zone's offset from UTC anchors tools that write local wall
// time without a zone (nvidia-smi).
struct ClockAnchor {
    int64_t realtimeNs = 0, monotonicNs = 0, boottimeNs = 0;
    std::optional<int64_t> utcOffsetSeconds;  // local time = UTC + this; when recorded
    std::string path;                         // the manifest.yaml it was read from ("" when read live)
    bool operator==(const ClockAnchor&) const = default;
};

struct ManifestTool {
    std::string name, version;
    std::map<std::string, std::string> params;  // value text (core::valueToString)
    bool operator==(const ManifestTool&) const = default;
};

struct ManifestDevice {
    std::string vendor;  // "AMD" or "NVIDIA"
    std::string name;
    std::string arch;    // gfx942, sm_90 ...
    std::string source;  // where it was read (hsa, nvidia-smi, a file)
    bool operator==(const ManifestDevice&) const = default;
};

struct ManifestFile {
    std::string path;  // relative to the run directory
    uint64_t size = 0;
    std::string tool;  // the tool whose outputs match it; "" for others (the workload's own files, logs)
    std::string format;
    bool operator==(const ManifestFile&) const = default;
};

// manifest.yaml: what ran, with which tools and settings, on which machine, when, how it ended, and every file it
// left. Written atomically when the run starts and again when it ends, so a crash leaves status: running.
struct RunManifest {
    static constexpr int kVersion = 1;
    int version = kVersion;                          // strobe_manifest: N as read (written: kVersion)
    std::vector<std::string> command;
    std::string cwd;
    RunParameters parameters;                        // the sweep point, typed
    std::optional<int> repeat;
    std::vector<ManifestTool> tools;
    std::map<std::string, std::string> envDiff;      // written redacted (redactEnv)
    std::vector<ManifestDevice> devices;
    std::string host;
    std::optional<ClockAnchor> clocks;
    std::string start, end;                          // UTC, ISO 8601
    RunStatus status = RunStatus::Running;
    std::string statusReason;                        // why Incomplete (or anything else said about the status)
    std::optional<int> exitCode, exitSignal;
    std::string failure;                             // a failed run: the workload's last output lines ("" if none)
    std::optional<std::string> slurmJob;
    std::vector<ManifestFile> files;
    std::vector<std::string> messages;               // what went wrong or was noticed (a sampler that died, ...)
    std::vector<std::string> warnings;               // from reading: a newer version, a field not understood; not written

    bool operator==(const RunManifest&) const = default;
};

// Values of names matching *TOKEN*, *KEY*, *SECRET*, *PASSWORD* (any case) become "<redacted>".
std::map<std::string, std::string> redactEnv(const std::map<std::string, std::string>& env);

std::string runManifestToYaml(const RunManifest& manifest);
// Parses a manifest's text; `sourceName` names it in errors ("<dir>/manifest.yaml: line 7: ..."). An Error when the
// text is not YAML, is no strobe_manifest, or a field has the wrong shape (the clocks, the status...).
Result<RunManifest> runManifestFromYaml(const std::string& text, const std::string& sourceName = "<manifest>");
// <dir>/manifest.yaml; an Error naming it when it is missing, unreadable or no Strobe manifest.
Result<RunManifest> readRunManifest(const std::string& runDir);
// A manifest file by its path: nullopt when it is YAML but no Strobe manifest (no strobe_manifest key).
Result<std::optional<RunManifest>> readRunManifestFile(const std::string& manifestPath);
// Writes <dir>/manifest.yaml atomically (a temporary file, then rename); an Error names the file.
Status writeRunManifest(const std::string& runDir, const RunManifest& manifest);
// Rewrites <dir>/manifest.yaml with status: cancelled and `message` added to its messages, every other field as it
// was (a newer version's fields too): how a Slurm submitter that cancelled a job corrects what the session inside
// wrote.
Status markRunManifestCancelled(const std::string& runDir, const std::string& message);

// The path of <dir>/manifest.yaml (whether or not it exists), and whether it exists.
std::string runManifestPath(const std::string& runDir);
bool hasRunManifest(const std::string& runDir);
// A run directory's own bookkeeping files (the manifest and its temporary), which are not outputs of the run.
bool isRunManifestFile(std::string_view fileName);
// The manifest.yaml of the run a source lies in: in its directory or up to three directories above (a rocprofv3
// output in <run>/rocprof/<host>/<pid>/); empty when there is none.
std::string findRunManifest(const std::string& sourcePath);
// Run directories holding a manifest.yaml: `root` itself and the directories below it, `maxDepth` levels at most,
// hidden ones skipped; sorted.
std::vector<std::string> findRunManifestDirs(const std::string& root, int maxDepth = 3);

// sweep.yaml: the axes of a launched sweep and every planned run (paths relative to the sweep directory).
struct SweepFileRun {
    std::string path;
    RunParameters parameters;
    std::optional<int> repeat;
    bool operator==(const SweepFileRun&) const = default;
};

// What a launched sweep was asked to run (issue 23): resuming compares it and refuses another plan. Tool
// parameters hold every parameter of the tool's spec as text (core::valueToString), defaults included.
struct SweepPlanTool {
    std::string name;
    std::map<std::string, std::string> params;
    bool operator==(const SweepPlanTool&) const = default;
};

struct SweepPlanAxis {
    std::string key;
    std::vector<std::string> values;  // as given
    bool operator==(const SweepPlanAxis&) const = default;
};

struct SweepPlan {
    std::vector<std::string> command;  // as given: {AXIS} placeholders unreplaced
    std::vector<SweepPlanTool> tools;  // outermost first
    std::vector<SweepPlanAxis> grid;
    int repeats = 1;
    bool operator==(const SweepPlan&) const = default;
};

struct SweepFile {
    static constexpr int kVersion = 1;
    int version = kVersion;
    std::vector<std::string> axes;  // in grid order
    std::vector<SweepFileRun> runs;
    std::optional<SweepPlan> plan;  // plan: written by the launcher since issue 23; absent in older files
    std::vector<std::string> warnings;  // from reading; not written

    bool operator==(const SweepFile&) const = default;
};

std::string sweepFileToYaml(const SweepFile& sweep);
Result<SweepFile> sweepFileFromYaml(const std::string& text, const std::string& sourceName = "<sweep>");
// <dir>/sweep.yaml. An Error naming it when unreadable or malformed; hasSweepFile says whether there is one.
Result<SweepFile> readSweepFile(const std::string& sweepDir);
bool hasSweepFile(const std::string& sweepDir);
// Writes <dir>/sweep.yaml atomically.
Status writeSweepFile(const std::string& sweepDir, const SweepFile& sweep);

}  // namespace strobe::core
