#pragma once
// FileSource: a sequential byte reader over a plain file, a gzip file (detected by its magic bytes, not its
// name; concatenated members are read in turn) or text in memory. Reads in caller-sized pieces so that the
// whole text is never held; reports how far it got in both the compressed and the decompressed stream so that
// errors can name a place.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"

namespace strobe::core {

class FileSource {
public:
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    ~FileSource();

    // Opens `path`. Errors: missing, unreadable, a directory. An empty file opens fine (read returns 0).
    static Result<std::unique_ptr<FileSource>> open(const std::string& path);
    // Text in memory (not copied: `text` must outlive the source). `name` is used in messages.
    static std::unique_ptr<FileSource> fromMemory(std::string_view text, std::string name);

    // Reads up to `n` decompressed bytes into `dst`. Returns 0 at the end of the text. An Error names the
    // file, the decompressed byte offset and (for gzip) the compressed offset.
    Result<size_t> read(char* dst, size_t n);

    const std::string& name() const { return m_name; }
    bool gzip() const { return m_gzip; }
    uint64_t fileSize() const { return m_fileSize; }      // bytes on disk (or in memory)
    uint64_t consumed() const { return m_consumed; }      // bytes of the file consumed so far
    uint64_t produced() const { return m_produced; }      // decompressed bytes returned so far
    // For gzip: the ISIZE field of the last member's trailer (decompressed size modulo 2^32), read at open.
    std::optional<uint32_t> gzipSizeHint() const { return m_isize; }
    // Best guess of the decompressed size, for estimates and progress (file size for plain text).
    uint64_t expectedTextSize() const;
    // Warnings collected while reading (trailing bytes after a gzip stream, a gzip stream that ends early).
    Diagnostics takeWarnings() { return std::move(m_warnings); }

private:
    FileSource() = default;
    Result<size_t> readRaw(char* dst, size_t n);  // bytes of the file as stored
    Result<size_t> readGzip(char* dst, size_t n);
    Error gzipError(const std::string& what) const;

    struct Inflater;
    std::string m_name;
    int m_fd = -1;
    std::string_view m_memory;  // fromMemory
    bool m_isMemory = false;
    bool m_gzip = false;
    bool m_eof = false;
    uint64_t m_fileSize = 0;
    uint64_t m_consumed = 0;
    uint64_t m_produced = 0;
    std::optional<uint32_t> m_isize;
    std::unique_ptr<Inflater> m_inflater;
    std::vector<char> m_in;  // compressed input buffer
    Diagnostics m_warnings;
};

// The whole bytes of a file: mapped (read sequentially), or decompressed when the name ends in .gz; `keep` holds
// the mapping or the string that `text` points into.
struct FileText {
    std::shared_ptr<const void> keep;
    std::string_view text;
    uint64_t fileSize = 0;  // on disk
    bool gzip = false;
};
Result<FileText> readFileText(const std::string& path);

}  // namespace strobe::core
