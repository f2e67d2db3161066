#pragma once
// What the library-call log readers share (rocBLAS's profile log, MIOpen's driver commands, Tensile's kernel
// selection, RCCL/NCCL's collective calls; issue 23): each log holds calls without times, so each call becomes one
// slice (kind Unknown, the library's category, name = the call) whose args are a JSON object of the call's fields;
// the slices of one track are laid end to end, 1 µs each, in file order, ClockDomain::Relative, and Info diagnostics
// say so and count the lines that were not calls. The table of calls is what the workbench's kernel table, tooltips
// and CSV export show.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "core/formats/source_format.h"

namespace strobe::core::librarylog {

constexpr TimeNs kCallSliceNs = 1000;

std::string_view trim(std::string_view s);  // blanks, tabs and a trailing CR
// A value as JSON: a finite number as written, anything else as a JSON string.
std::string jsonValue(std::string_view v);
std::string jsonString(std::string_view v);

// A JSON object written key by key, in order.
class JsonArgs {
public:
    void add(std::string_view key, std::string_view value) { addRaw(key, jsonValue(value)); }
    void addString(std::string_view key, std::string_view value) { addRaw(key, jsonString(value)); }
    void addRaw(std::string_view key, const std::string& json);
    bool empty() const { return m_text.empty(); }
    std::string text() const { return "{" + m_text + "}"; }

private:
    std::string m_text;
};

// The rank of one log being read: tracks by key, calls appended to a track end to end.
class CallTable {
public:
    CallTable(const std::string& path, std::string_view formatId, std::string_view category);
    // The track for `key` (created with this thread name, pid and tid on first use).
    uint32_t track(const std::string& key, std::string_view threadName, int64_t pid = 0, int64_t tid = 0);
    void add(uint32_t track, std::string_view name, const std::string& argsJson);
    int64_t calls() const { return m_calls; }
    RankData& rank() { return *m_rank; }
    // A line that looked like a call but could not be read: a Warning naming the file and line.
    void badLine(int64_t lineNo, const std::string& why);
    // Ends the table: an Error naming the file and saying `noCalls` when no call was added; else a process named
    // `processName` (pid of the first track), the platform, the Relative clock, an Info diagnostic `noTimes` and, when
    // other > 0, "<other> lines that are not <what> were skipped".
    Result<std::unique_ptr<RankData>> finish(std::string_view noCalls, std::string_view processName, Platform platform,
                                             const SourceLoadOptions& options, const std::string& noTimes,
                                             int64_t other, std::string_view what);

private:
    std::unique_ptr<RankData> m_rank;
    StrId m_cat;
    std::map<std::string, uint32_t> m_tracks;
    std::map<uint32_t, int64_t> m_next;  // per track: the number of calls laid so far
    int64_t m_calls = 0;
    int64_t m_badLines = 0;
    std::string m_path;
};

}  // namespace strobe::core::librarylog
