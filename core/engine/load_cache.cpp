#include "core/engine/load_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/engine/load_cache_format.h"
#include "core/engine/load_cache_hash.h"
#include "core/engine/load_cache_meta.h"
#include "core/io/mapped_file.h"
#include "core/io/resources.h"
#include "core/model/validate.h"

namespace strobe::core {

namespace fs = std::filesystem;
using namespace cachefile;

namespace {

std::string absolutePathOf(const std::string& p) {
    std::error_code ec;
    fs::path abs = fs::absolute(fs::path(p), ec);
    if (ec) return p;
    fs::path canon = fs::weakly_canonical(abs, ec);
    return ec ? abs.lexically_normal().string() : canon.string();
}

// ---------------------------------------------------------------------------------------------------------
// Writing.
struct ColumnOut {
    std::string name;
    uint32_t elemSize = 0;
    uint64_t count = 0;
    const char* data = nullptr;     // contiguous bytes, or
    const StringPool* pool = nullptr;  // the pool's strings back to back (the blob)
    uint64_t offset = 0;
    uint64_t checksum = 0;

    uint64_t bytes() const { return count * elemSize; }
    template <class F>
    void forEachPiece(F&& f) const {
        if (pool == nullptr) {
            if (bytes() != 0) f(data, static_cast<size_t>(bytes()));
            return;
        }
        for (StrId i = 0; i < pool->size(); ++i) {
            std::string_view s = pool->view(i);
            if (!s.empty()) f(s.data(), s.size());
        }
    }
};

class FileWriter {
public:
    explicit FileWriter(int fd) : m_fd(fd) { m_buf.reserve(kBufSize); }

    void write(const void* data, size_t n) {
        if (m_err != 0) return;
        if (n >= kBufSize) {
            flush();
            raw(static_cast<const char*>(data), n);
            return;
        }
        if (m_buf.size() + n > kBufSize) flush();
        m_buf.append(static_cast<const char*>(data), n);
        m_written += n;
    }
    void padTo(uint64_t offset) {
        static const char zeros[kAlign] = {};
        while (m_err == 0 && m_written < offset) write(zeros, static_cast<size_t>(std::min<uint64_t>(kAlign, offset - m_written)));
    }
    void flush() {
        if (m_err != 0 || m_buf.empty()) return;
        const uint64_t before = m_written;
        raw(m_buf.data(), m_buf.size());
        m_written = before;  // already counted when buffered
        m_buf.clear();
    }
    int error() const { return m_err; }
    uint64_t written() const { return m_written; }

private:
    static constexpr size_t kBufSize = 1 << 20;

    void raw(const char* p, size_t n) {
        while (n > 0 && m_err == 0) {
            const ssize_t w = ::write(m_fd, p, n);
            if (w < 0) {
                if (errno == EINTR) continue;
                m_err = errno;
                return;
            }
            if (w == 0) {
                m_err = ENOSPC;
                return;
            }
            p += w;
            n -= static_cast<size_t>(w);
            m_written += static_cast<uint64_t>(w);
        }
    }

    int m_fd;
    std::string m_buf;
    uint64_t m_written = 0;
    int m_err = 0;
};

std::string errnoText(int err) { return std::string(std::strerror(err)); }

std::string_view lookupPrefix(CacheLookup l) {
    switch (l) {
    case CacheLookup::Hit: return "";
    case CacheLookup::Missing: return "cache miss: ";
    case CacheLookup::Stale: return "stale cache entry: ";
    case CacheLookup::Corrupt: return "corrupt cache entry: ";
    case CacheLookup::Foreign: return "foreign file in the cache: ";
    }
    return "";
}

// Reading one cache file, step by step: map it, check the header against the source and this build, read the
// metadata, the column directory, the string pool, then the columns as views over the mapping. Each step returns
// the Error that stops the read (and sets the lookup reason), or nothing.
class EntryReader {
public:
    EntryReader(std::string entryName, CacheLookup* lookup, bool verifyData)
        : m_entryName(std::move(entryName)), m_lookup(lookup), m_verifyData(verifyData) {}

    Error fail(CacheLookup l, int64_t offset, std::string msg) const {
        if (m_lookup != nullptr) *m_lookup = l;
        Location where{m_entryName};
        where.byteOffset = offset;
        return Error(std::move(where), std::string(lookupPrefix(l)) + msg);
    }

    std::shared_ptr<const void> keepAlive() const { return m_file; }

    std::optional<Error> map() {
        auto mapped = MappedFile::open(m_entryName);
        if (!mapped) return fail(CacheLookup::Missing, -1, mapped.error().message);
        m_file = std::move(mapped.value());
        m_base = m_file->data();
        m_size = m_file->size();
        return std::nullopt;
    }

    std::optional<Error> checkHeader(const SourceStamp* source, uint64_t optionsKey) {
        const uint64_t size = m_size;
        if (size < sizeof(kMagic) && std::memcmp(m_base, kMagic, static_cast<size_t>(size)) == 0)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(size), fmt::format("truncated: {} bytes", size));
        if (size < sizeof(kMagic) || std::memcmp(m_base, kMagic, sizeof(kMagic)) != 0)
            return fail(CacheLookup::Foreign, 0, "not a Strobe load cache file (no magic number)");
        if (size < kHeaderSize)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(size),
                        fmt::format("truncated: {} bytes, the header alone needs {}", size, kHeaderSize));
        Header& h = m_header;
        std::memcpy(&h, m_base, sizeof(h));
        if (h.endianTag != kEndianTag) {
            if (__builtin_bswap32(h.endianTag) == kEndianTag)
                return fail(CacheLookup::Foreign, offsetof(Header, endianTag),
                            "written on a machine of the other byte order");
            return fail(CacheLookup::Corrupt, offsetof(Header, endianTag), "bad byte-order tag");
        }
        if (LoadCache::checksum(m_base, kHeaderChecked) != h.headerChecksum)
            return fail(CacheLookup::Corrupt, 0, "header checksum mismatch");
        if (h.formatVersion != kCacheFormatVersion)
            return fail(CacheLookup::Stale, offsetof(Header, formatVersion),
                        fmt::format("cache format {}, this build reads format {}", h.formatVersion,
                                    kCacheFormatVersion));
        if (h.headerSize != kHeaderSize)
            return fail(CacheLookup::Corrupt, offsetof(Header, headerSize), fmt::format("header size {}", h.headerSize));
        if (h.fileSize != size)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(std::min(size, h.fileSize)),
                        fmt::format("{}: the header says {} bytes, the file has {}",
                                    size < h.fileSize ? "truncated" : "trailing bytes", h.fileSize, size));
        if (h.loaderVersion != kLoaderVersion)
            return fail(CacheLookup::Stale, offsetof(Header, loaderVersion),
                        fmt::format("written by loader version {}, this build is version {}", h.loaderVersion,
                                    kLoaderVersion));
        if (source != nullptr && (h.sourceSize != source->size || h.sourceMtimeNs != source->mtimeNs))
            return fail(CacheLookup::Stale, -1,
                        fmt::format("{} changed (size {} → {}, mtime {} → {} ns)", source->absolutePath, h.sourceSize,
                                    source->size, h.sourceMtimeNs, source->mtimeNs));
        if (optionsKey != 0 && h.optionsKey != optionsKey)
            return fail(CacheLookup::Stale, offsetof(Header, optionsKey),
                        "written with other loader options (classification rules changed)");
        return std::nullopt;
    }

    // Fills `rank` but its columns and strings; `storedPath` receives the source path the entry was written for.
    std::optional<Error> readMetadata(RankData& rank, const SourceStamp* source, std::string& storedPath) {
        const Header& h = m_header;
        if (h.metaOffset < kHeaderSize || !inRange(h.metaOffset, h.metaSize, m_size))
            return fail(CacheLookup::Corrupt, offsetof(Header, metaOffset),
                        fmt::format("metadata at {}+{} lies outside the file", h.metaOffset, h.metaSize));
        const char* metaPtr = m_base + h.metaOffset;
        if (LoadCache::checksum(metaPtr, static_cast<size_t>(h.metaSize)) != h.metaChecksum)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.metaOffset), "metadata checksum mismatch");
        MetaReader mr(metaPtr, static_cast<size_t>(h.metaSize));
        storedPath = readMeta(mr, rank);
        if (!mr.ok())
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.metaOffset + mr.failAt()),
                        "metadata: " + mr.why());
        if (source != nullptr && storedPath != source->absolutePath)
            return fail(CacheLookup::Foreign, static_cast<int64_t>(h.metaOffset),
                        fmt::format("the entry belongs to {}, not {}", storedPath, source->absolutePath));
        return std::nullopt;
    }

    // The column directory: every entry named, in range, after the directory, and named once.
    std::optional<Error> readDirectory() {
        const Header& h = m_header;
        const uint64_t size = m_size;
        if (h.dirCount > size / sizeof(DirEntry) || h.dirOffset % kAlign != 0 ||
            !inRange(h.dirOffset, h.dirCount * sizeof(DirEntry), size))
            return fail(CacheLookup::Corrupt, offsetof(Header, dirOffset),
                        fmt::format("column directory ({} entries at {}) lies outside the file", h.dirCount,
                                    h.dirOffset));
        const uint64_t dirEnd = h.dirOffset + h.dirCount * sizeof(DirEntry);
        if (LoadCache::checksum(m_base + h.dirOffset, static_cast<size_t>(h.dirCount * sizeof(DirEntry))) !=
            h.dirChecksum)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.dirOffset), "column directory checksum mismatch");
        m_dir.resize(static_cast<size_t>(h.dirCount));
        if (!m_dir.empty()) std::memcpy(m_dir.data(), m_base + h.dirOffset, m_dir.size() * sizeof(DirEntry));
        m_byName.reserve(m_dir.size());
        for (size_t i = 0; i < m_dir.size(); ++i) {
            const DirEntry& d = m_dir[i];
            const int64_t at = static_cast<int64_t>(h.dirOffset + i * sizeof(DirEntry));
            const void* nul = std::memchr(d.name, 0, kNameSize);
            if (nul == nullptr || d.name[0] == 0)
                return fail(CacheLookup::Corrupt, at, fmt::format("column {} has no valid name", i));
            std::string_view name(d.name, static_cast<size_t>(static_cast<const char*>(nul) - d.name));
            if (d.elemSize == 0 || d.elemSize > kMaxElemSize || d.flags != 0)
                return fail(CacheLookup::Corrupt, at, fmt::format("column {}: bad element size {}", name, d.elemSize));
            if (d.count > size / d.elemSize || d.offset % kAlign != 0 || d.offset < dirEnd ||
                !inRange(d.offset, d.count * d.elemSize, size))
                return fail(CacheLookup::Corrupt, at,
                            fmt::format("column {}: {} × {} bytes at {} lie outside the file", name, d.count,
                                        d.elemSize, d.offset));
            if (!m_byName.emplace(name, i).second)
                return fail(CacheLookup::Corrupt, at, fmt::format("column {} appears twice", name));
        }
        m_used.assign(m_dir.size(), false);
        return std::nullopt;
    }

    // Strings: offsets (always checked: they are read anyway) and the blob they index, as views into the mapping.
    std::optional<Error> readStrings(const RankData& rank, std::vector<std::string_view>& views) {
        const Header& h = m_header;
        const DirEntry* offs = findColumn(kStrOffsets);
        const DirEntry* blob = findColumn(kStrBlob);
        if (offs == nullptr || blob == nullptr || offs->elemSize != 8 || blob->elemSize != 1 || offs->count < 2)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.dirOffset),
                        "string pool columns missing or malformed");
        if (!dataOk(*offs))
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset), "string offsets checksum mismatch");
        if (m_verifyData && !dataOk(*blob))
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(blob->offset), "string data checksum mismatch");
        if (offs->count - 1 > std::numeric_limits<StrId>::max())
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset), "too many strings");
        const size_t nStrings = static_cast<size_t>(offs->count - 1);
        const auto* offsetData = reinterpret_cast<const uint64_t*>(m_base + offs->offset);
        const char* blobData = m_base + blob->offset;
        views.assign(nStrings, std::string_view());
        uint64_t prev = offsetData[0];
        if (prev != 0)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset), "first string offset is not 0");
        for (size_t i = 0; i < nStrings; ++i) {
            const uint64_t next = offsetData[i + 1];
            if (next < prev || next > blob->count)
                return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset + 8 * (i + 1)),
                            fmt::format("string {} ends at {}, outside {}..{}", i, next, prev, blob->count));
            views[i] = std::string_view(blobData + prev, static_cast<size_t>(next - prev));
            prev = next;
        }
        if (prev != blob->count || !views[0].empty())
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset),
                        "string offsets do not cover the blob");
        for (const auto& [cat, n] : rank.stats.eventsByCategory)
            if (cat >= nStrings)
                return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.metaOffset),
                            fmt::format("category string {} out of range", cat));
        return std::nullopt;
    }

    // Columns: zero-copy views over the mapping. Every column of this build must be in the file, and every
    // column of the file known to this build.
    std::optional<Error> mapColumns(RankData& rank) {
        std::shared_ptr<const void> keep = m_file;
        std::optional<Error> columnError;
        visitAllColumns(rank, [&](const std::string& name, auto& col) {
            using Col = std::remove_reference_t<decltype(col)>;
            using T = typename Col::value_type;
            if (columnError) return;
            const DirEntry* d = findColumn(name);
            if (d == nullptr) {
                columnError =
                    fail(CacheLookup::Stale, -1, fmt::format("column {} is not in the file (another build)", name));
                return;
            }
            if (d->elemSize != sizeof(T)) {
                columnError = fail(CacheLookup::Stale, static_cast<int64_t>(d->offset),
                                   fmt::format("column {} has {}-byte values, this build uses {}", name, d->elemSize,
                                               sizeof(T)));
                return;
            }
            if (m_verifyData && !dataOk(*d)) {
                columnError = fail(CacheLookup::Corrupt, static_cast<int64_t>(d->offset),
                                   fmt::format("column {} checksum mismatch", name));
                return;
            }
            col = Col::view(reinterpret_cast<const T*>(m_base + d->offset), static_cast<size_t>(d->count), keep);
        });
        if (columnError) return columnError;
        for (size_t i = 0; i < m_dir.size(); ++i)
            if (!m_used[i])
                return fail(CacheLookup::Stale, static_cast<int64_t>(m_header.dirOffset + i * sizeof(DirEntry)),
                            fmt::format("column {} is unknown to this build", std::string_view(m_dir[i].name)));
        return std::nullopt;
    }

private:
    const DirEntry* findColumn(std::string_view name) {
        auto it = m_byName.find(name);
        if (it == m_byName.end()) return nullptr;
        m_used[it->second] = true;
        return &m_dir[it->second];
    }
    bool dataOk(const DirEntry& d) const {
        return LoadCache::checksum(m_base + d.offset, static_cast<size_t>(d.count * d.elemSize)) == d.checksum;
    }

    std::string m_entryName;
    CacheLookup* m_lookup;
    bool m_verifyData;
    std::shared_ptr<const MappedFile> m_file;
    const char* m_base = nullptr;
    uint64_t m_size = 0;
    Header m_header{};
    std::vector<DirEntry> m_dir;
    std::unordered_map<std::string_view, size_t> m_byName;
    std::vector<bool> m_used;
};

}  // namespace

std::string_view toString(CacheLookup l) {
    switch (l) {
    case CacheLookup::Hit: return "hit";
    case CacheLookup::Missing: return "missing";
    case CacheLookup::Stale: return "stale";
    case CacheLookup::Corrupt: return "corrupt";
    case CacheLookup::Foreign: return "foreign";
    }
    return "unknown";
}

uint64_t LoadCache::checksum(const void* data, size_t size, uint64_t seed) {
    Hasher h(seed);
    h.update(data, size);
    return h.finish();
}

LoadCache::LoadCache(fs::path dir) : m_dir(dir.empty() ? userCacheDir() : std::move(dir)) {}

Result<SourceStamp> LoadCache::stamp(const std::string& sourcePath) {
    if (sourcePath.empty()) return Error("empty source path");
    struct stat st {};
    if (::stat(sourcePath.c_str(), &st) != 0) return Error(Location{sourcePath}, "cannot stat: " + errnoText(errno));
    if (!S_ISREG(st.st_mode)) return Error(Location{sourcePath}, "not a regular file");
    SourceStamp s;
    s.absolutePath = absolutePathOf(sourcePath);
    s.size = static_cast<uint64_t>(st.st_size);
    s.mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + static_cast<int64_t>(st.st_mtim.tv_nsec);
    return s;
}

fs::path LoadCache::entryFor(const std::string& sourcePath) const {
    if (sourcePath.empty()) return {};
    const std::string abs = absolutePathOf(sourcePath);
    // A readable stem for people looking into the directory, then the hash that makes the name unique.
    std::string stem = fs::path(abs).filename().string();
    if (stem.size() > 48) stem.resize(48);
    for (char& c : stem) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                          c == '-' || c == '_';
        if (!keep) c = '_';
    }
    if (!stem.empty() && stem.front() == '.') stem.front() = '_';
    return m_dir / fmt::format("{}-{:016x}.strobe-cache", stem, pathHash(abs));
}

Status LoadCache::write(const std::string& sourcePath, const RankData& rank, uint64_t optionsKey) const {
    auto st = stamp(sourcePath);
    if (!st) return st.error();
    return write(*st, rank, optionsKey);
}

Status LoadCache::write(const SourceStamp& source, const RankData& rank, uint64_t optionsKey) const {
    const fs::path entry = entryFor(source.absolutePath);
    if (entry.empty()) return Error("load cache: empty source path");
    std::error_code ec;
    fs::create_directories(m_dir, ec);
    if (ec) return Error(Location{m_dir.string()}, "cannot create the cache directory: " + ec.message());

    // Gather the columns: strings first, then every table column.
    const StringPool& pool = rank.strings;
    std::vector<uint64_t> strOffsets(pool.size() + 1);
    strOffsets[0] = 0;
    for (StrId i = 0; i < pool.size(); ++i) strOffsets[i + 1] = strOffsets[i] + pool.view(i).size();

    std::vector<ColumnOut> cols;
    cols.push_back({std::string(kStrOffsets), 8, strOffsets.size(), reinterpret_cast<const char*>(strOffsets.data()),
                    nullptr, 0, 0});
    cols.push_back({std::string(kStrBlob), 1, strOffsets.back(), nullptr, &pool, 0, 0});
    auto& mutableRank = const_cast<RankData&>(rank);  // the visitors are non-const; nothing is changed
    visitAllColumns(mutableRank, [&](std::string name, auto& col) {
        using T = typename std::remove_reference_t<decltype(col)>::value_type;
        cols.push_back({std::move(name), static_cast<uint32_t>(sizeof(T)), col.size(),
                        reinterpret_cast<const char*>(col.data()), nullptr, 0, 0});
    });
    for (const ColumnOut& c : cols)
        if (c.name.size() >= kNameSize) return Error(fmt::format("load cache: column name '{}' is too long", c.name));

    const std::string meta = writeMeta(source.absolutePath, rank);

    // Layout.
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof(kMagic));
    h.endianTag = kEndianTag;
    h.formatVersion = kCacheFormatVersion;
    h.loaderVersion = kLoaderVersion;
    h.headerSize = kHeaderSize;
    h.sourceSize = source.size;
    h.sourceMtimeNs = source.mtimeNs;
    h.optionsKey = optionsKey;
    h.metaOffset = kHeaderSize;
    h.metaSize = meta.size();
    h.metaChecksum = checksum(meta.data(), meta.size());
    h.dirOffset = alignUp(h.metaOffset + h.metaSize);
    h.dirCount = cols.size();
    uint64_t cursor = alignUp(h.dirOffset + h.dirCount * sizeof(DirEntry));
    std::vector<DirEntry> dir(cols.size());
    for (size_t i = 0; i < cols.size(); ++i) {
        ColumnOut& c = cols[i];
        c.offset = alignUp(cursor);
        cursor = c.offset + c.bytes();
        Hasher hs;
        c.forEachPiece([&](const char* p, size_t n) { hs.update(p, n); });
        c.checksum = hs.finish();
        DirEntry& d = dir[i];
        std::memset(&d, 0, sizeof(d));
        std::memcpy(d.name, c.name.data(), c.name.size());
        d.elemSize = c.elemSize;
        d.count = c.count;
        d.offset = c.offset;
        d.checksum = c.checksum;
    }
    h.fileSize = cursor;
    h.dirChecksum = checksum(dir.data(), dir.size() * sizeof(DirEntry));
    h.headerChecksum = checksum(&h, kHeaderChecked);

    // Temp files of this entry left by a process that died while writing: removed once they are old enough
    // not to belong to a writer that is still running.
    const std::string tempPrefix = "." + entry.filename().string() + ".tmp-";
    for (fs::directory_iterator it(m_dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (!it->path().filename().string().starts_with(tempPrefix)) continue;
        std::error_code ec2;
        const auto age = fs::file_time_type::clock::now() - fs::last_write_time(it->path(), ec2);
        if (!ec2 && age > std::chrono::minutes(30)) fs::remove(it->path(), ec2);
    }

    // Write a temp file next to the entry, then rename it over the entry.
    static std::atomic<uint64_t> tempCounter{0};
    const fs::path temp =
        m_dir / fmt::format(".{}.tmp-{}-{}", entry.filename().string(), ::getpid(), tempCounter.fetch_add(1));
    int fd = -1;
    do {
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return Error(Location{temp.string()}, "cannot create the cache file: " + errnoText(errno));

    FileWriter out(fd);
    out.write(&h, sizeof(h));
    out.write(meta.data(), meta.size());
    out.padTo(h.dirOffset);
    out.write(dir.data(), dir.size() * sizeof(DirEntry));
    for (const ColumnOut& c : cols) {
        out.padTo(c.offset);
        c.forEachPiece([&](const char* p, size_t n) { out.write(p, n); });
    }
    out.flush();
    int err = out.error();
    if (err == 0 && out.written() != h.fileSize) err = EIO;
    if (err == 0 && m_sync && ::fsync(fd) != 0) err = errno;
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && ::rename(temp.c_str(), entry.c_str()) != 0) err = errno;
    if (err != 0) {
        ::unlink(temp.c_str());
        return Error(Location{entry.string()}, "cannot write the cache file: " + errnoText(err));
    }
    spdlog::debug("load cache: wrote {} ({} bytes) for {}", entry.string(), h.fileSize, source.absolutePath);
    return Ok{};
}

bool LoadCache::reseal(std::string& image) {
    if (image.size() < kHeaderSize) return false;
    char* base = image.data();
    const uint64_t size = image.size();
    Header h;
    std::memcpy(&h, base, sizeof(h));
    bool whole = true;
    if (inRange(h.metaOffset, h.metaSize, size))
        h.metaChecksum = checksum(base + h.metaOffset, static_cast<size_t>(h.metaSize));
    else
        whole = false;
    if (h.dirCount <= size / sizeof(DirEntry) && inRange(h.dirOffset, h.dirCount * sizeof(DirEntry), size)) {
        for (uint64_t i = 0; i < h.dirCount; ++i) {
            DirEntry d;
            char* at = base + h.dirOffset + i * sizeof(DirEntry);
            std::memcpy(&d, at, sizeof(d));
            if (d.elemSize != 0 && d.count <= size / d.elemSize && inRange(d.offset, d.count * d.elemSize, size))
                d.checksum = checksum(base + d.offset, static_cast<size_t>(d.count * d.elemSize));
            else
                whole = false;
            std::memcpy(at, &d, sizeof(d));
        }
        h.dirChecksum = checksum(base + h.dirOffset, static_cast<size_t>(h.dirCount * sizeof(DirEntry)));
    } else {
        whole = false;
    }
    h.headerChecksum = checksum(&h, kHeaderChecked);
    std::memcpy(base, &h, sizeof(h));
    return whole;
}

Result<std::shared_ptr<RankData>> LoadCache::read(const std::string& sourcePath, uint64_t optionsKey,
                                                  CacheLookup* lookup) const {
    auto st = stamp(sourcePath);
    if (!st) {
        if (lookup != nullptr) *lookup = CacheLookup::Missing;
        return Error(Location{sourcePath}, std::string(lookupPrefix(CacheLookup::Missing)) + "source: " +
                                               st.error().toString());
    }
    const fs::path entry = entryFor(st->absolutePath);
    std::error_code ec;
    if (!fs::exists(entry, ec)) {
        if (lookup != nullptr) *lookup = CacheLookup::Missing;
        return Error(Location{entry.string()},
                     std::string(lookupPrefix(CacheLookup::Missing)) + "no entry for " + st->absolutePath);
    }
    auto rank = readFile(entry, &*st, optionsKey, lookup);
    if (rank) {
        (*rank)->path = sourcePath;
        (*rank)->info.path = sourcePath;
    }
    return rank;
}

Result<std::shared_ptr<RankData>> LoadCache::readFile(const fs::path& entry, const SourceStamp* source,
                                                      uint64_t optionsKey, CacheLookup* lookup) const {
    const auto t0 = std::chrono::steady_clock::now();
    EntryReader reader(entry.string(), lookup, m_verifyData);
    auto rank = std::make_shared<RankData>();
    std::string storedPath;
    std::vector<std::string_view> views;
    if (auto failed = reader.map()) return *failed;
    if (auto failed = reader.checkHeader(source, optionsKey)) return *failed;
    if (auto failed = reader.readMetadata(*rank, source, storedPath)) return *failed;
    if (auto failed = reader.readDirectory()) return *failed;
    if (auto failed = reader.readStrings(*rank, views)) return *failed;
    if (auto failed = reader.mapColumns(*rank)) return *failed;

    rank->strings = StringPool::adopt(std::move(views), reader.keepAlive());
    // Checksums say the bytes are the ones written; these say that what is written cannot make a reader go out
    // of bounds (a file with matching checksums is not proof of that: it may come from another tool or a bug).
    if (auto valid = validateRankData(*rank); !valid)
        return reader.fail(CacheLookup::Corrupt, -1, valid.error().message);
    const std::string& path = source != nullptr ? source->absolutePath : storedPath;
    rank->path = path;
    rank->info.path = path;
    rank->stats.fromCache = true;
    rank->stats.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (lookup != nullptr) *lookup = CacheLookup::Hit;
    return rank;
}

}  // namespace strobe::core
