#pragma once
// The on-disk load cache: a merged RankData written once as a columnar binary file, memory-mapped on reopen.
// Keyed by the source's absolute path, size, mtime and the loader version. A changed source, a corrupt or a
// foreign file is never trusted: it is ignored (and rebuilt by the caller).

#include <filesystem>
#include <memory>
#include <string>

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

inline constexpr uint32_t kLoaderVersion = 1;  // bump when loader/merge output changes

class LoadCache {
public:
    explicit LoadCache(std::filesystem::path dir);  // empty: userCacheDir()

    // The cache file for a source (depends on path, size, mtime, loader version); empty if unstat-able.
    std::filesystem::path entryFor(const std::string& sourcePath) const;
    // A mapped RankData, or an Error (miss, stale, corrupt, foreign) that says why.
    Result<std::shared_ptr<RankData>> read(const std::string& sourcePath) const;
    // Writes atomically (temp file + rename).
    Status write(const std::string& sourcePath, const RankData& rank) const;

    const std::filesystem::path& dir() const { return m_dir; }

private:
    std::filesystem::path m_dir;
};

}  // namespace strobe::core
