#pragma once
// The on-disk load cache: a merged RankData written once as a columnar binary file, memory-mapped on reopen.
//
// One file per rank of a source in dir(), named after a hash of the source's absolute path (its primary file's
// for a source of several files; a changed source replaces its entries instead of piling up new ones). A source
// of several ranks (rocprofv3 or nsys: one per process) has one entry per rank, each a complete single-rank file:
// `<name>.strobe-cache` for rank 0, `<name>.<i>.strobe-cache` for rank i (see writeGroup). The header records the
// primary file's absolute path, size and mtime (ns), a hash of every file of the source group (path, size,
// mtime: a change to any of them is seen), the rank's index and the group's rank count, an id shared by the
// entries of one write, the cache format and loader versions and an options key (a fingerprint of the
// classification rules the merge used and of the load options that change a loader's output); any difference
// makes the entry stale. A corrupt or foreign file is never trusted:
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
#include <vector>

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

inline constexpr uint32_t kLoaderVersion = 11;      // bump when any format's loader or the merge changes its output
inline constexpr uint32_t kCacheFormatVersion = 4;  // bump when the cache file layout changes

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
    // The stamps of every file a source group reads, in order (primary first). A directory stands for the regular
    // files under it (two levels deep, sorted) after its own entry (its mtime: a file added or removed); Error when
    // a file is missing, or a directory holds more than 4096 files (such a source is not cached).
    static Result<std::vector<SourceStamp>> stampGroup(const std::vector<std::string>& files);
    // What identifies a group's version: every stamp's absolute path, size and mtime, in order. Never 0.
    static uint64_t groupHash(const std::vector<SourceStamp>& files);

    // The cache file for a source (a function of its absolute path only); empty for an empty path. Rank i > 0
    // of a multi-rank source has its own file beside it.
    std::filesystem::path entryFor(const std::string& sourcePath, uint32_t rankIndex = 0) const;

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

    // A source group of one or more ranks (every format but Kineto: core/engine/source_cache.h). `files` are the
    // group's stamps taken before the load (stampGroup), primary first. read: every rank of the current entry,
    // in the order written, each with the path and info.path stored with it (the loader's), stats.fromCache set;
    // or an Error saying why not (a missing or stale rank entry, a mix of two writes, ...; `lookup` as read()).
    Result<std::vector<std::shared_ptr<RankData>>> readGroup(const std::vector<SourceStamp>& files,
                                                             uint64_t optionsKey, CacheLookup* lookup = nullptr) const;
    // Writes one entry per rank (rank 0's last, so that a reader that finds it finds the others of the same write)
    // and removes the entries of ranks beyond ranks.size() left by an earlier write. At least one rank.
    Status writeGroup(const std::vector<SourceStamp>& files, const std::vector<const RankData*>& ranks,
                      uint64_t optionsKey) const;

    // writeGroup in two halves around the ranks' merge (core/engine/source_cache.cpp): begin writes the GPU
    // activities' and slices' raw columns (which the merge only reads) to the entries' temp files on a thread of
    // its own while the merge runs; finish writes the rest once the ranks are merged, writes again any of those
    // columns whose bytes changed meanwhile (hashed again), and renames the entries into place as writeGroup does.
    // Until finish, the ranks must stay alive and their raw columns unmoved (mergeRank only reads them). A null or
    // failed begin, or a thread that met an error, makes finish a plain writeGroup; a GroupWrite dropped without
    // finish removes its temp files.
    struct GroupWrite;
    std::shared_ptr<GroupWrite> beginGroupWrite(const std::vector<SourceStamp>& files,
                                                const std::vector<const RankData*>& ranks) const;
    Status finishGroupWrite(std::shared_ptr<GroupWrite> write, const std::vector<SourceStamp>& files,
                            const std::vector<const RankData*>& ranks, uint64_t optionsKey) const;
    // Waits until a begun write's thread is done (tests: a column changed after that, without a race, must be written
    // again by finish).
    static void waitGroupWrite(GroupWrite& write);

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

    // Which rank entry of which source group (internal to the cache; see Header::groupHash).
    struct EntryId;

private:
    struct EarlyEntry;
    Status writeEntry(const std::filesystem::path& entry, const SourceStamp& primary, const EntryId& id,
                      const RankData& rank, uint64_t optionsKey, EarlyEntry* early = nullptr) const;
    std::filesystem::path m_dir;
    bool m_verifyData = true;
    bool m_sync = false;
};

}  // namespace strobe::core
