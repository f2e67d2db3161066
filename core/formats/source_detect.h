#pragma once
// Recognising what the user opened: every file (or directory) is given to every registered format's sniffer
// (source_format.h) and the highest score wins; files that belong together become one SourceGroup.
//
// Rules, in order, for one path:
//   - A profiler container Strobe cannot read (.nsys-rep, .qdrep, .ncu-rep, .pftrace) is refused with the command
//     that exports it to something readable (Error naming the file).
//   - A directory that a directory format claims (a rocprof v1 `.xr` run directory: results.csv, results.db,
//     results.json ...) is one group whose loader picks one rendering (see rocprof_v1_csv.h for the precedence).
//   - Any other directory: its files (hidden ones skipped) sniffed one by one, naturally sorted; files no format
//     claims are skipped. When none is found there, each subdirectory is tried once (a run with one directory per
//     rank, or a sweep of `.xr` run directories), never deeper, so link loops cannot hang.
//   - rocprofv3 CSV outputs of one prefix in one directory (<prefix>_kernel_trace.csv, _counter_collection.csv,
//     _agent_info.csv, _memory_copy_trace.csv, _hip_api_trace.csv, _stats.csv ...) are one group, kernel trace first.
//     Naming one of them explicitly brings its siblings of the same prefix.
//   - Kineto JSON is a registered format (id "kineto") like any other. A file no sniffer claims whose name is
//     *.json / *.json.gz, or which was named explicitly and starts like JSON (or is gzip), is still handed to the
//     Kineto loader so that its parser names the place where the text is wrong. Anything else named explicitly is an
//     Error naming the file.

#include <string>
#include <string_view>
#include <vector>

#include "core/formats/source_format.h"
#include "core/io/error.h"

namespace strobe::core {

// Natural order: digit runs compare as numbers (rank2 < rank10), letters without case; ties fall back to the plain
// byte order so the result is a strict weak order.
bool naturalLess(std::string_view a, std::string_view b);

// The first 64 KiB of a file (decompressed when it is gzip, by its magic bytes), the SQLite table names when it is
// an SQLite database, or a directory's entry names. `input.head` views `headBytes`.
struct SniffedPath {
    std::string headBytes;
    SniffInput input;
};
Result<SniffedPath> readSniffInput(const std::string& path);

// The format that claims `input` best (highest score), nullptr when none does. The score goes to *score.
const SourceFormat* bestFormat(const SniffInput& input, int* score = nullptr);

// When `path` is a container Strobe recognises but cannot read, the Error that says which command makes it
// readable; ok otherwise.
Status refuseUnreadableContainer(const std::string& path);

// The groups of the run given by `paths` (files and directories), in the order given, directories expanded as
// described above; a group reached twice is kept once. Errors: no input, a missing path, a refused container,
// an explicit file no format reads, a directory without anything Strobe reads.
Result<std::vector<SourceGroup>> detectSources(const std::vector<std::string>& paths);

// The path that stands for a group when the run is listed (and that detectSources turns back into the same
// group): the directory of a directory format, else the primary file.
std::string groupPrimaryPath(const SourceGroup& g);

}  // namespace strobe::core
