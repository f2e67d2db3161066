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
#include <system_error>
#include <thread>
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

// The most one write() hands the kernel. A buffered write of 2 MiB or more is cached in folios of 2 MiB, which the
// page allocator takes from its largest free blocks: on a VM whose host takes back the memory its guest frees (free
// page reporting), exactly the blocks the host has taken, each costing a fault into the host on first touch. Writing
// a 563 MB entry 4 MiB at a time took 1.2-2.5 s after a few idle seconds, 64 KiB at a time 0.18-0.20 s (bench/README
// "sixth pass"); the extra system calls cost about 10 ms.
constexpr size_t kWritePiece = size_t{64} << 10;

class FileWriter {
public:
    // Writes from the descriptor's position, `start` bytes into the file (offsets count from the file's start).
    explicit FileWriter(int fd, uint64_t start = 0) : m_fd(fd), m_written(start) { m_buf.reserve(kBufSize); }

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
            const ssize_t w = ::write(m_fd, p, std::min(n, kWritePiece));
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

} // namespace

// Which entry of which source group a read expects (see Header::groupHash).
struct LoadCache::EntryId {
    uint64_t groupHash = 0;
    uint32_t rankIndex = 0;
    uint32_t rankCount = 0;  // reading: 0 accepts any count
    uint64_t writeId = 0;    // reading: 0 accepts any write
};

namespace {

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

    const Header& header() const { return m_header; }

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
        if (h.rankCount == 0 || h.rankIndex >= h.rankCount || h.groupHash == 0 || h.writeId == 0)
            return fail(CacheLookup::Corrupt, offsetof(Header, groupHash),
                        fmt::format("bad source group fields (rank {} of {}, group {:016x}, write {:016x})",
                                    h.rankIndex, h.rankCount, h.groupHash, h.writeId));
        if (source != nullptr && (h.sourceSize != source->size || h.sourceMtimeNs != source->mtimeNs))
            return fail(CacheLookup::Stale, -1,
                        fmt::format("{} changed (size {} → {}, mtime {} → {} ns)", source->absolutePath, h.sourceSize,
                                    source->size, h.sourceMtimeNs, source->mtimeNs));
        if (optionsKey != 0 && h.optionsKey != optionsKey)
            return fail(CacheLookup::Stale, offsetof(Header, optionsKey),
                        "written with other loader options (classification rules, clock options or format changed)");
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

    // The source group, rank and write the entry belongs to (after the metadata: an entry of another source is
    // reported as foreign, by its stored path, before any group difference).
    std::optional<Error> checkGroup(const LoadCache::EntryId* expect) {
        const Header& h = m_header;
        if (expect == nullptr) return std::nullopt;
        if (h.groupHash != expect->groupHash)
            return fail(CacheLookup::Stale, offsetof(Header, groupHash),
                        "another version of the source's files (one of them changed, or the set of files did)");
        if (h.rankIndex != expect->rankIndex || (expect->rankCount != 0 && h.rankCount != expect->rankCount) ||
            (expect->writeId != 0 && h.writeId != expect->writeId))
            return fail(CacheLookup::Stale, offsetof(Header, rankIndex),
                        fmt::format("rank entry {} of {} (write {:016x}) does not belong with the others (expected "
                                    "entry {} of {}, write {:016x})",
                                    h.rankIndex, h.rankCount, h.writeId, expect->rankIndex, expect->rankCount,
                                    expect->writeId));
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

Result<std::vector<SourceStamp>> LoadCache::stampGroup(const std::vector<std::string>& files) {
    constexpr size_t kMaxFiles = 4096;
    std::vector<SourceStamp> out;
    for (const std::string& f : files) {
        std::error_code ec;
        if (!fs::is_directory(f, ec)) {
            auto st = stamp(f);
            if (!st) return st.error();
            out.push_back(std::move(st.value()));
            continue;
        }
        struct stat dst {};
        if (::stat(f.c_str(), &dst) != 0) return Error(Location{f}, "cannot stat: " + errnoText(errno));
        SourceStamp dir;
        dir.absolutePath = absolutePathOf(f);
        dir.mtimeNs = static_cast<int64_t>(dst.st_mtim.tv_sec) * 1000000000LL + static_cast<int64_t>(dst.st_mtim.tv_nsec);
        out.push_back(std::move(dir));
        std::vector<std::string> inside;
        fs::recursive_directory_iterator it(f, fs::directory_options::skip_permission_denied, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            if (it.depth() > 1) {
                it.disable_recursion_pending();
                continue;
            }
            std::error_code ec2;
            if (it->is_directory(ec2)) {
                if (it.depth() == 1) it.disable_recursion_pending();
                continue;
            }
            if (!it->is_regular_file(ec2)) continue;
            inside.push_back(it->path().string());
            if (inside.size() > kMaxFiles)
                return Error(Location{f}, fmt::format("more than {} files: not cached", kMaxFiles));
        }
        if (ec) return Error(Location{f}, "cannot list: " + ec.message());
        std::sort(inside.begin(), inside.end());
        for (const std::string& p : inside) {
            auto st = stamp(p);
            if (!st) return st.error();
            out.push_back(std::move(st.value()));
        }
    }
    if (out.empty()) return Error("a source group without files");
    return out;
}

uint64_t LoadCache::groupHash(const std::vector<SourceStamp>& files) {
    Hasher h(0x6772'6f75'70ULL);
    for (const SourceStamp& s : files) {
        const uint64_t n = s.absolutePath.size();
        h.update(&n, sizeof(n));
        h.update(s.absolutePath.data(), s.absolutePath.size());
        h.update(&s.size, sizeof(s.size));
        h.update(&s.mtimeNs, sizeof(s.mtimeNs));
    }
    const uint64_t v = h.finish();
    return v == 0 ? 1 : v;
}

fs::path LoadCache::entryFor(const std::string& sourcePath, uint32_t rankIndex) const {
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
    if (rankIndex == 0) return m_dir / fmt::format("{}-{:016x}.strobe-cache", stem, pathHash(abs));
    return m_dir / fmt::format("{}-{:016x}.{}.strobe-cache", stem, pathHash(abs), rankIndex);
}

Status LoadCache::write(const std::string& sourcePath, const RankData& rank, uint64_t optionsKey) const {
    auto st = stamp(sourcePath);
    if (!st) return st.error();
    return write(*st, rank, optionsKey);
}

namespace {

// An id for the entries of one write: never 0, and different for every write of this process and (with the time
// and the pid) of any other.
uint64_t cacheNewWriteId() {
    static std::atomic<uint64_t> counter{0};
    struct {
        int64_t now;
        int64_t pid;
        uint64_t n;
    } seed{std::chrono::steady_clock::now().time_since_epoch().count() ^
               std::chrono::system_clock::now().time_since_epoch().count(),
           static_cast<int64_t>(::getpid()), counter.fetch_add(1)};
    const uint64_t id = LoadCache::checksum(&seed, sizeof(seed), 0x7772'6974'65ULL);
    return id == 0 ? 1 : id;
}

}  // namespace

Status LoadCache::write(const SourceStamp& source, const RankData& rank, uint64_t optionsKey) const {
    const fs::path entry = entryFor(source.absolutePath);
    if (entry.empty()) return Error("load cache: empty source path");
    EntryId id;
    id.groupHash = groupHash({source});
    id.rankIndex = 0;
    id.rankCount = 1;
    id.writeId = cacheNewWriteId();
    return writeEntry(entry, source, id, rank, optionsKey);
}

Status LoadCache::writeGroup(const std::vector<SourceStamp>& files, const std::vector<const RankData*>& ranks,
                             uint64_t optionsKey) const {
    return finishGroupWrite(nullptr, files, ranks, optionsKey);
}

// ---------------------------------------------------------------------------------------------------------
// A group write begun before the merge.

// One entry's temp file, open, with the raw columns the thread writes: the directory right after the header (its
// size is known: the column set is fixed), those columns after it, the rest (finish) after them, the metadata last.
struct LoadCache::EarlyEntry {
    struct Column {
        std::string name;
        const char* data = nullptr;
        uint32_t elemSize = 0;
        uint64_t count = 0;
        uint64_t offset = 0;
        uint64_t checksum = 0;  // of the bytes written
    };
    fs::path temp;
    int fd = -1;
    uint64_t dirOffset = 0, dirCount = 0, end = 0;
    std::vector<Column> columns;
    const Column* find(std::string_view name) const {
        for (const Column& c : columns)
            if (c.name == name) return &c;
        return nullptr;
    }
};

struct LoadCache::GroupWrite {
    std::vector<EarlyEntry> entries;  // by rank
    // Every entry's columns in write order, (entry, column); the thread and then finish (once the merge is done and
    // its own thread is free) take the next one until none is left.
    std::vector<std::pair<uint32_t, uint32_t>> work;
    std::atomic<size_t> next{0};
    std::thread thread;
    std::atomic<int> err{0};  // the first errno met, 0 while every column was written
    void run();
    GroupWrite() = default;
    GroupWrite(const GroupWrite&) = delete;
    GroupWrite& operator=(const GroupWrite&) = delete;
    ~GroupWrite() {
        if (thread.joinable()) thread.join();
        for (EarlyEntry& e : entries)
            if (e.fd >= 0) {
                ::close(e.fd);
                ::unlink(e.temp.c_str());
            }
    }
};

namespace {

int pwriteAll(int fd, const char* p, uint64_t n, uint64_t offset) {
    while (n > 0) {
        const ssize_t w =
            ::pwrite(fd, p, static_cast<size_t>(std::min<uint64_t>(n, kWritePiece)), static_cast<off_t>(offset));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        if (w == 0) return ENOSPC;
        p += w;
        n -= static_cast<uint64_t>(w);
        offset += static_cast<uint64_t>(w);
    }
    return 0;
}

// A column's bytes at its offset (the string blob gathered from the pool's pieces), by positioned writes that do not
// move the descriptor: two threads write the columns of one file side by side. 0 or an errno.
int pwriteColumn(int fd, const ColumnOut& c) {
    if (c.pool == nullptr) return c.bytes() == 0 ? 0 : pwriteAll(fd, c.data, c.bytes(), c.offset);
    constexpr size_t kChunk = size_t{1} << 20;
    std::string buf;
    buf.reserve(kChunk);
    uint64_t at = c.offset;
    int err = 0;
    c.forEachPiece([&](const char* p, size_t n) {
        if (err != 0) return;
        buf.append(p, n);
        if (buf.size() < kChunk) return;
        err = pwriteAll(fd, buf.data(), buf.size(), at);
        at += buf.size();
        buf.clear();
    });
    if (err == 0 && !buf.empty()) err = pwriteAll(fd, buf.data(), buf.size(), at);
    return err;
}

// fn(i) for every i < n, each once, on this thread and one more (when there is more than one): the cache write's
// checksums and columns are independent, and on two cores the second one is otherwise idle while they are written.
template <class Fn>
void onTwoThreads(size_t n, Fn&& fn) {
    std::atomic<size_t> next{0};
    auto loop = [&] {
        for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    };
    std::thread other;
    if (n > 1 && std::thread::hardware_concurrency() > 1) {
        try {
            other = std::thread(loop);
        } catch (const std::system_error&) {
        }
    }
    loop();
    if (other.joinable()) other.join();
}

// A temp file beside `entry` (renamed over it once complete), created exclusively; its descriptor or -errno.
int createTemp(const fs::path& dir, const fs::path& entry, fs::path& temp) {
    static std::atomic<uint64_t> tempCounter{0};
    temp = dir / fmt::format(".{}.tmp-{}-{}", entry.filename().string(), ::getpid(), tempCounter.fetch_add(1));
    int fd = -1;
    do {
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

// The columns of a rank as an entry stores them: the string pool (offsets, then the blob), then every table's.
std::vector<ColumnOut> entryColumns(const RankData& rank, std::vector<uint64_t>& strOffsets) {
    const StringPool& pool = rank.strings;
    strOffsets.assign(pool.size() + 1, 0);
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
    return cols;
}

uint64_t columnChecksum(const ColumnOut& c) {
    Hasher hs;
    c.forEachPiece([&](const char* p, size_t n) { hs.update(p, n); });
    return hs.finish();
}

// Temp files of an entry left by a process that died while writing: removed once they are old enough not to
// belong to a writer that is still running.
void removeOldTemps(const fs::path& dir, const fs::path& entry) {
    const std::string tempPrefix = "." + entry.filename().string() + ".tmp-";
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (!it->path().filename().string().starts_with(tempPrefix)) continue;
        std::error_code ec2;
        const auto age = fs::file_time_type::clock::now() - fs::last_write_time(it->path(), ec2);
        if (!ec2 && age > std::chrono::minutes(30)) fs::remove(it->path(), ec2);
    }
}

}  // namespace

std::shared_ptr<LoadCache::GroupWrite> LoadCache::beginGroupWrite(const std::vector<SourceStamp>& files,
                                                                  const std::vector<const RankData*>& ranks) const {
    if (files.empty() || files.front().absolutePath.empty() || ranks.empty() || ranks.size() > 1'000'000)
        return nullptr;  // finish reports it
    std::error_code ec;
    fs::create_directories(m_dir, ec);
    if (ec) return nullptr;
    auto w = std::make_shared<GroupWrite>();
    w->entries.resize(ranks.size());
    for (size_t k = 0; k < ranks.size(); ++k) {
        EarlyEntry& e = w->entries[k];
        const int fd = createTemp(m_dir, entryFor(files.front().absolutePath, static_cast<uint32_t>(k)), e.temp);
        if (fd < 0) return nullptr;  // finish writes the plain way, and says why it cannot
        e.fd = fd;
        e.dirCount = 2;  // the string pool's two columns
        visitAllColumns(const_cast<RankData&>(*ranks[k]), [&](const std::string&, auto&) { ++e.dirCount; });
        e.dirOffset = alignUp(kHeaderSize);
        uint64_t cursor = alignUp(e.dirOffset + e.dirCount * sizeof(DirEntry));
        visitAllColumns(const_cast<RankData&>(*ranks[k]), [&](std::string name, auto& col) {
            using T = typename std::remove_reference_t<decltype(col)>::value_type;
            if (col.empty() || !(name.starts_with("gpu.") || name.starts_with("slices."))) return;
            EarlyEntry::Column c{std::move(name), reinterpret_cast<const char*>(col.data()),
                                 static_cast<uint32_t>(sizeof(T)), col.size(), alignUp(cursor), 0};
            cursor = c.offset + c.count * c.elemSize;
            e.columns.push_back(std::move(c));
        });
        e.end = cursor;
    }
    for (size_t k = 0; k < w->entries.size(); ++k)
        for (size_t c = 0; c < w->entries[k].columns.size(); ++c)
            w->work.emplace_back(static_cast<uint32_t>(k), static_cast<uint32_t>(c));
    GroupWrite& g = *w;
    try {
        w->thread = std::thread([&g] { g.run(); });
    } catch (const std::system_error&) {
        return nullptr;
    }
    return w;
}

void LoadCache::GroupWrite::run() {
    for (size_t i; (i = next.fetch_add(1)) < work.size();) {
        if (err.load() != 0) return;
        EarlyEntry& e = entries[work[i].first];
        EarlyEntry::Column& c = e.columns[work[i].second];
        const uint64_t bytes = c.count * c.elemSize;
        c.checksum = LoadCache::checksum(c.data, static_cast<size_t>(bytes));
        if (const int w = pwriteAll(e.fd, c.data, bytes, c.offset); w != 0) {
            int none = 0;
            err.compare_exchange_strong(none, w);
            return;
        }
    }
}

void LoadCache::waitGroupWrite(GroupWrite& write) {
    if (write.thread.joinable()) write.thread.join();
}

Status LoadCache::finishGroupWrite(std::shared_ptr<GroupWrite> write, const std::vector<SourceStamp>& files,
                                   const std::vector<const RankData*>& ranks, uint64_t optionsKey) const {
    if (files.empty() || files.front().absolutePath.empty()) return Error("load cache: a source group without files");
    if (ranks.empty()) return Error(Location{files.front().absolutePath}, "load cache: a source group without ranks");
    if (ranks.size() > 1'000'000) return Error(Location{files.front().absolutePath}, "load cache: too many ranks");
    if (write) {
        write->run();  // the columns the thread has not begun yet, beside it
        waitGroupWrite(*write);
        if (write->err.load() != 0 || write->entries.size() != ranks.size()) write.reset();  // written the plain way
    }
    EntryId id;
    id.groupHash = groupHash(files);
    id.rankCount = static_cast<uint32_t>(ranks.size());
    id.writeId = cacheNewWriteId();
    // Rank 0's entry last: until it is renamed into place, a reader finds the previous write's rank 0, whose
    // write id the new entries of the other ranks do not carry (stale, never mixed).
    for (size_t k = ranks.size(); k-- > 0;) {
        id.rankIndex = static_cast<uint32_t>(k);
        if (Status st = writeEntry(entryFor(files.front().absolutePath, id.rankIndex), files.front(), id, *ranks[k],
                                   optionsKey, write ? &write->entries[k] : nullptr);
            !st)
            return st;
    }
    // Entries of ranks an earlier write had and this one has not.
    for (uint32_t k = id.rankCount;; ++k) {
        std::error_code ec;
        if (!fs::remove(entryFor(files.front().absolutePath, k), ec) || ec) break;
    }
    return Ok{};
}

Status LoadCache::writeEntry(const fs::path& entry, const SourceStamp& source, const EntryId& id, const RankData& rank,
                             uint64_t optionsKey, EarlyEntry* early) const {
    std::error_code ec;
    fs::create_directories(m_dir, ec);
    if (ec) return Error(Location{m_dir.string()}, "cannot create the cache directory: " + ec.message());

    std::vector<uint64_t> strOffsets;
    std::vector<ColumnOut> cols = entryColumns(rank, strOffsets);
    for (const ColumnOut& c : cols)
        if (c.name.size() >= kNameSize) return Error(fmt::format("load cache: column name '{}' is too long", c.name));
    if (early != nullptr && early->dirCount != cols.size()) early = nullptr;  // cannot happen: a fixed column set

    const std::string meta = writeMeta(source.absolutePath, rank);

    // Layout: header, metadata, directory, columns; or, over a begun write, header, directory, the columns it
    // wrote (written again where their bytes changed), the other columns, metadata.
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof(kMagic));
    h.endianTag = kEndianTag;
    h.formatVersion = kCacheFormatVersion;
    h.loaderVersion = kLoaderVersion;
    h.headerSize = kHeaderSize;
    h.sourceSize = source.size;
    h.sourceMtimeNs = source.mtimeNs;
    h.optionsKey = optionsKey;
    h.groupHash = id.groupHash;
    h.rankIndex = id.rankIndex;
    h.rankCount = id.rankCount;
    h.writeId = id.writeId;
    h.metaSize = meta.size();
    h.metaChecksum = checksum(meta.data(), meta.size());
    h.dirCount = cols.size();
    std::vector<uint8_t> inFile(cols.size(), 0);  // 1: already in the temp file, as written by the begun write
    uint64_t cursor = 0;
    if (early != nullptr) {
        h.dirOffset = early->dirOffset;
        cursor = early->end;
    } else {
        h.metaOffset = kHeaderSize;
        h.dirOffset = alignUp(h.metaOffset + h.metaSize);
        cursor = alignUp(h.dirOffset + h.dirCount * sizeof(DirEntry));
    }
    std::vector<DirEntry> dir(cols.size());
    if (early != nullptr)  // hundreds of MB: both threads
        onTwoThreads(cols.size(), [&](size_t i) { cols[i].checksum = columnChecksum(cols[i]); });
    for (size_t i = 0; i < cols.size(); ++i) {
        ColumnOut& c = cols[i];
        if (early == nullptr) c.checksum = columnChecksum(c);
        const EarlyEntry::Column* e = early != nullptr ? early->find(c.name) : nullptr;
        if (e != nullptr && e->count == c.count && e->elemSize == c.elemSize) {
            c.offset = e->offset;
            inFile[i] = e->checksum == c.checksum ? 1 : 0;
        } else {
            c.offset = alignUp(cursor);
            cursor = c.offset + c.bytes();
        }
        DirEntry& d = dir[i];
        std::memset(&d, 0, sizeof(d));
        std::memcpy(d.name, c.name.data(), c.name.size());
        d.elemSize = c.elemSize;
        d.count = c.count;
        d.offset = c.offset;
        d.checksum = c.checksum;
    }
    if (early != nullptr) {
        h.metaOffset = alignUp(cursor);
        cursor = h.metaOffset + h.metaSize;
    }
    h.fileSize = cursor;
    h.dirChecksum = checksum(dir.data(), dir.size() * sizeof(DirEntry));
    h.headerChecksum = checksum(&h, kHeaderChecked);

    removeOldTemps(m_dir, entry);
    fs::path temp;
    int fd = -1;
    if (early != nullptr) {
        temp = early->temp;
        fd = early->fd;
        early->fd = -1;  // this function closes it (and removes the temp file on failure)
    } else if ((fd = createTemp(m_dir, entry, temp)) < 0) {
        return Error(Location{temp.string()}, "cannot create the cache file: " + errnoText(-fd));
    }
    int err = 0;
    if (early != nullptr) {
        // The columns the begun write did not write (or whose bytes changed since) and the ones after its columns,
        // on two threads, each at its offset (the gaps between them read as zeros); the metadata last, which gives
        // the file its length; the directory and header in their places.
        std::vector<size_t> todo;
        for (size_t i = 0; i < cols.size(); ++i)
            if (!inFile[i] && cols[i].bytes() > 0) todo.push_back(i);
        std::atomic<int> failed{0};
        onTwoThreads(todo.size(), [&](size_t k) {
            if (failed.load() != 0) return;
            if (const int e = pwriteColumn(fd, cols[todo[k]]); e != 0) {
                int none = 0;
                failed.compare_exchange_strong(none, e);
            }
        });
        err = failed.load();
        if (err == 0 && h.metaSize > 0) err = pwriteAll(fd, meta.data(), h.metaSize, h.metaOffset);
        if (err == 0 && h.metaSize == 0 && ::ftruncate(fd, static_cast<off_t>(h.fileSize)) != 0) err = errno;
        if (err == 0) err = pwriteAll(fd, reinterpret_cast<const char*>(dir.data()), dir.size() * sizeof(DirEntry), h.dirOffset);
        if (err == 0) err = pwriteAll(fd, reinterpret_cast<const char*>(&h), sizeof(h), 0);
    } else {
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
        err = out.error();
        if (err == 0 && out.written() != h.fileSize) err = EIO;
    }
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

namespace {

// One entry, with every check; the rank keeps the paths stored with it. `seen` receives the entry's header.
Result<std::shared_ptr<RankData>> cacheReadOneEntry(const fs::path& entry, const SourceStamp* source, uint64_t optionsKey,
                                               CacheLookup* lookup, bool verifyData, const LoadCache::EntryId* expect,
                                               Header* seen, std::string* storedPath) {
    const auto t0 = std::chrono::steady_clock::now();
    EntryReader reader(entry.string(), lookup, verifyData);
    auto rank = std::make_shared<RankData>();
    std::vector<std::string_view> views;
    if (auto failed = reader.map()) return *failed;
    if (auto failed = reader.checkHeader(source, optionsKey)) return *failed;
    if (auto failed = reader.readMetadata(*rank, source, *storedPath)) return *failed;
    if (auto failed = reader.checkGroup(expect)) return *failed;
    if (auto failed = reader.readDirectory()) return *failed;
    if (auto failed = reader.readStrings(*rank, views)) return *failed;
    if (auto failed = reader.mapColumns(*rank)) return *failed;

    rank->strings = StringPool::adopt(std::move(views), reader.keepAlive());
    // Checksums say the bytes are the ones written; these say that what is written cannot make a reader go out
    // of bounds (a file with matching checksums is not proof of that: it may come from another tool or a bug).
    if (auto valid = validateRankData(*rank); !valid)
        return reader.fail(CacheLookup::Corrupt, -1, valid.error().message);
    rank->stats.fromCache = true;
    rank->stats.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (seen != nullptr) *seen = reader.header();
    if (lookup != nullptr) *lookup = CacheLookup::Hit;
    return rank;
}

}  // namespace

Result<std::shared_ptr<RankData>> LoadCache::readFile(const fs::path& entry, const SourceStamp* source,
                                                      uint64_t optionsKey, CacheLookup* lookup) const {
    EntryId single;
    if (source != nullptr) {
        single.groupHash = groupHash({*source});
        single.rankIndex = 0;
        single.rankCount = 1;
    }
    std::string storedPath;
    auto rank = cacheReadOneEntry(entry, source, optionsKey, lookup, m_verifyData, source != nullptr ? &single : nullptr,
                             nullptr, &storedPath);
    if (!rank) return rank;
    const std::string& path = source != nullptr ? source->absolutePath : storedPath;
    (*rank)->path = path;
    (*rank)->info.path = path;
    return rank;
}

Result<std::vector<std::shared_ptr<RankData>>> LoadCache::readGroup(const std::vector<SourceStamp>& files,
                                                                    uint64_t optionsKey, CacheLookup* lookup) const {
    if (files.empty() || files.front().absolutePath.empty()) {
        if (lookup != nullptr) *lookup = CacheLookup::Missing;
        return Error("cache miss: a source group without files");
    }
    const SourceStamp& primary = files.front();
    EntryId expect;
    expect.groupHash = groupHash(files);
    std::vector<std::shared_ptr<RankData>> out;
    for (uint32_t k = 0; k == 0 || k < expect.rankCount; ++k) {
        const fs::path entry = entryFor(primary.absolutePath, k);
        std::error_code ec;
        if (!fs::exists(entry, ec)) {
            if (lookup != nullptr) *lookup = k == 0 ? CacheLookup::Missing : CacheLookup::Stale;
            return Error(Location{entry.string()},
                         std::string(lookupPrefix(k == 0 ? CacheLookup::Missing : CacheLookup::Stale)) +
                             fmt::format("no entry for rank {} of {}", k, primary.absolutePath));
        }
        expect.rankIndex = k;
        Header seen{};
        std::string storedPath;
        auto rank = cacheReadOneEntry(entry, &primary, optionsKey, lookup, m_verifyData, &expect, &seen, &storedPath);
        if (!rank) return rank.error();
        if (k == 0) {
            expect.rankCount = seen.rankCount;
            expect.writeId = seen.writeId;
        }
        out.push_back(std::move(rank.value()));
    }
    return out;
}

}  // namespace strobe::core
