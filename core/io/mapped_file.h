#pragma once
// MappedFile: a read-only memory mapping of a whole file (RAII). Shared through std::shared_ptr so that
// column views over the mapping keep it alive. An empty file maps to an empty span (no mmap call).
// The mapping is private and read-only: a file replaced by rename keeps its old contents mapped.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/io/error.h"

namespace strobe::core {

class MappedFile {
public:
    // Release: the range has been read and its pages may leave this process's resident set (MADV_DONTNEED; the
    // mapping is read-only, so a page touched again is read back from the page cache or the file).
    enum class Access : uint8_t { Normal, Sequential, Random, WillNeed, Release };

    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    // Maps `path` read-only. Errors (missing file, not a regular file, mmap failure) name the path.
    static Result<std::shared_ptr<const MappedFile>> open(const std::string& path);

    const char* data() const { return m_data; }
    size_t size() const { return m_size; }
    std::span<const char> bytes() const { return {m_data, m_size}; }
    const std::string& path() const { return m_path; }
    uint64_t device() const { return m_device; }
    uint64_t inode() const { return m_inode; }

    // A hint to the kernel about how a range will be read (madvise). Offsets are clamped to the file.
    void advise(Access access, size_t offset = 0, size_t length = SIZE_MAX) const;

private:
    MappedFile() = default;

    std::string m_path;
    const char* m_data = nullptr;
    size_t m_size = 0;
    void* m_mapBase = nullptr;  // what munmap needs (null for an empty file)
    uint64_t m_device = 0;
    uint64_t m_inode = 0;
};

}  // namespace strobe::core
