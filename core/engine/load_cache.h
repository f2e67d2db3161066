#pragma once
// The on-disk load cache: a merged RankData written once as a columnar binary file, memory-mapped on reopen.
//
// One file per source in dir(), named after a hash of the source's absolute path (a changed source replaces
// its entry instead of piling up new ones). The header records the source's absolute path, size and mtime
// (ns), the cache format and loader versions and an options key (e.g. a fingerprint of the classification
// rules the merge used); any difference makes the entry stale. A corrupt or foreign file is never trusted:
// every offset, count and size is checked against the file before memory is touched, and checksums cover the
// header, the metadata, the column directory and the string offsets (and, when verifyData() is on, every
// column's bytes). Columns are 64-byte aligned and become zero-copy Column<T>::view()s over the mapping; the
// string pool adopts views into it. The mapping lives as long as any column or string of the RankData does.
//
// File layout (native byte order, checked by an endianness tag):
//   header (256 bytes) | metadata (TraceInfo, LoadStats, diagnostics...) | directory | column data (64-aligned)
// Every column — tracks, processes, threads, the string offsets and blob, and each table column reached through
// RankData::visitTables / Table::visitColumns — is a directory entry "table.column" with its element size,
// count, offset and checksum, so a column added later is stored without changing this code, and a column set
// or element size that differs from the running build is reported as stale.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

inline constexpr uint32_t kLoaderVersion = 7;       // bump when loader/merge output changes
inline constexpr uint32_t kCacheFormatVersion = 2;  // bump when the cache file layout changes

// Why read() returned what it did.
enum class CacheLookup : uint8_t {
    Hit,      // a valid, current entry
    Missing,  // no entry for this source (or the source itself cannot be stat'ed)
    Stale,    // an entry for an older version of the source, loader, rules or column set
    Corrupt,  // truncated, bad checksum, offsets or counts out of range
    Foreign,  // not a Strobe cache file, another byte order, or an entry of another source
};
std::string_view toString(CacheLookup l);

// What identifies a source's version: taken before a load and written with its result, so that a file that
// changes while it is being loaded leaves a cache entry that is stale on the next open.
struct SourceStamp {
    std::string absolutePath;
    uint64_t size = 0;
    int64_t mtimeNs = 0;
};

class LoadCache {
public:
    explicit LoadCache(std::filesystem::path dir = {});  // empty: userCacheDir()

    // Stats the source (following symlinks). Error if it is missing or not a regular file.
    static Result<SourceStamp> stamp(const std::string& sourcePath);

    // The cache file for a source (a function of its absolute path only); empty for an empty path.
    std::filesystem::path entryFor(const std::string& sourcePath) const;

    // A mapped RankData (stats.fromCache set, path and info.path set to `sourcePath`), or an Error that says
    // why not (miss, stale, corrupt, foreign); `lookup` receives the reason when given. Never trusts bad data.
    // optionsKey 0 accepts an entry written with any options key (tools that inspect the cache).
    Result<std::shared_ptr<RankData>> read(const std::string& sourcePath, uint64_t optionsKey = 0,
                                           CacheLookup* lookup = nullptr) const;

    // Reads a cache file by its own path, whatever source it belongs to when `source` is null (tools, fuzzing);
    // with a source, exactly the checks of read(). The RankData's path is then the source path stored in it.
    Result<std::shared_ptr<RankData>> readFile(const std::filesystem::path& entryFile,
                                               const SourceStamp* source = nullptr, uint64_t optionsKey = 0,
                                               CacheLookup* lookup = nullptr) const;

    // Writes atomically (a temp file in dir() renamed over the entry). Stamps the source now.
    Status write(const std::string& sourcePath, const RankData& rank, uint64_t optionsKey = 0) const;
    // Same with a stamp taken before the load (preferred: see SourceStamp).
    Status write(const SourceStamp& source, const RankData& rank, uint64_t optionsKey = 0) const;

    const std::filesystem::path& dir() const { return m_dir; }

    // Also hash every column's bytes on read (on by default: ~20 ms per 1 GB of JSON, and a bit flipped on disk
    // inside a column would otherwise become a silently wrong number). Always checked, with this on or off: the
    // header, metadata, column directory and string offsets (checksums), every offset/count/size against the
    // file, the file's exact length, and validateRankData() (column lengths, row references, enum values), so
    // that no reader can go out of bounds even on a file whose checksums match.
    void setVerifyData(bool on) { m_verifyData = on; }
    bool verifyData() const { return m_verifyData; }
    // fsync the temp file before the rename (default off: a torn file is detected as corrupt anyway).
    void setSync(bool on) { m_sync = on; }

    // A checksum over bytes (the one the cache uses). Exposed for tests and option fingerprints.
    static uint64_t checksum(const void* data, size_t size, uint64_t seed = 0);

    // Tests and fuzzing: recompute, in a cache file's image, every checksum its header and directory point at
    // (skipping what lies outside the image), so that a deliberately malformed file gets past the checksums to
    // the structural checks behind them — which must hold by themselves. True when every region was in range.
    static bool reseal(std::string& image);

private:
    std::filesystem::path m_dir;
    bool m_verifyData = true;
    bool m_sync = false;
};

}  // namespace strobe::core
