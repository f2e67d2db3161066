#pragma once
// The formats Strobe reads besides Kineto JSON, and how a file or directory is recognised: by content, never by
// its name alone. Each format is one entry of the registry (source_format.cpp): a sniffer that looks at the first
// bytes of a file (or the table names of an SQLite database, or a directory's listing) and a loader that turns a
// SourceGroup into ranks.
//
// A SourceGroup is what one tool wrote for one collection: a single file (an nsys SQLite export, an nvidia-smi CSV,
// a Kineto trace), or several files that join by the tool's own ids (rocprofv3's <prefix>_kernel_trace.csv +
// <prefix>_counter_collection.csv + <prefix>_agent_info.csv ...), or a directory holding several renderings of the
// same data (a rocprof v1 `.xr` run directory: results.csv, results.db, results.json) of which one is read, by a
// stated precedence, and the others are listed in TraceInfo::alsoPresent.
//
// A loader fills RankData tables only with raw columns (ts/dur in ns on the source's clock, names interned in the
// rank's pool, tracks, device/stream, correlation ids, kernelCounters, samples) and TraceInfo (format, toolVersion,
// clock, devices); the run loader then runs core/merge's mergeRank on each rank, like for Kineto. A "rank" is a
// process or a device as the format defines it (rocprofv3: a process; nsys: a process; telemetry: one rank holding
// every device's samples).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"
#include "core/io/progress.h"
#include "core/model/dataset.h"
#include "core/model/run_manifest.h"

namespace strobe::core {

// What a sniffer may look at. `head` is the first bytes of the file (up to 64 KiB, decompressed for .gz), empty for a
// directory; `sqliteTables` the table and view names when the file is an SQLite database; `entries` the names in a
// directory (not recursive).
struct SniffInput {
    std::string path;
    bool isDirectory = false;
    std::string_view head;
    std::vector<std::string> sqliteTables;
    std::vector<std::string> entries;
};

struct SourceGroup {
    std::string format;               // registry id of the format
    std::string path;                 // the file, or the directory/prefix the group stands for (for messages)
    std::vector<std::string> files;   // the files read, primary first
    std::vector<std::string> unused;  // files of the same data not read (other renderings), for alsoPresent
};

struct SourceLoadOptions {
    int64_t clockOffsetNs = 0;   // --clock-offset: added to the source's times to reach realtime, when set
    bool hasClockOffset = false;
    std::optional<ClockAnchor> manifest;  // the run manifest's clocks (core/model/run_manifest.h), when the source lies in a run directory with a manifest
    // Threads a loader may use for one large file (the rocprofv3 kernel trace reads its halves side by side): the
    // run loader gives a lone source two, as it gives the Kineto reader; the results are the same with one.
    int threads = 1;
};

// Applies the clock rules to a loaded source, the one place they are applied: a loader states the clock its times
// are on (TraceInfo::clock), anchored when the source itself says where realtime is (a realtime sampler, an nsys
// session start) — such a clock is left as it is. Otherwise the run manifest's clocks anchor a boot-time, monotonic
// or (with the zone recorded) local-wall-time clock ("manifest.yaml clocks"); else the user's --clock-offset anchors
// it ("--clock-offset"); else it stays unanchored and the run refuses to overlay it (core/model/clock_rules.h).
void applyClockOptions(ClockInfo& clock, const SourceLoadOptions& options);

// The `clocks` of a run manifest (read through core/model's readRunManifestFile): nullopt when the file has none
// (or is no Strobe manifest); an Error naming the file and line when it is malformed.
Result<std::optional<ClockAnchor>> readManifestClocks(const std::string& manifestPath);

struct SourceFormat {
    const char* id;        // "rocprofv3-csv", "nsys-sqlite", "nvidia-smi-csv" ...
    const char* tool;      // the tool that writes it ("rocprofv3", "nsys", "nvidia-smi")
    const char* description;
    bool documentationBuilt;  // no real sample was available: built from the published format
    // 0 = not this format; higher = more certain. The registry picks the highest score.
    int (*sniff)(const SniffInput&);
    Result<std::vector<std::unique_ptr<RankData>>> (*load)(const SourceGroup&, const SourceLoadOptions&,
                                                          const CancelToken&);
};

}  // namespace strobe::core

namespace strobe::core {

// Every format of the registry, in the order they were added (source_format.cpp lists them; one line per format).
const std::vector<const SourceFormat*>& sourceFormats();
// The format with this id, nullptr when none.
const SourceFormat* findSourceFormat(std::string_view id);

// listSqliteTables (the table and view names of an SQLite database) is core/io/sqlite_db.h's. Detection calls it
// only for files that start with the SQLite magic "SQLite format 3\0".

}  // namespace strobe::core
