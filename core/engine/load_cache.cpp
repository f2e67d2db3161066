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

#include "core/io/mapped_file.h"
#include "core/io/resources.h"
#include "core/model/validate.h"

namespace strobe::core {

namespace fs = std::filesystem;

// Tripwires: the metadata serializer below writes these structs field by field. When one of them gains a
// field, its size changes and this fails to compile: add the field to writeMeta/readMeta and bump
// kCacheFormatVersion. (Sizes are those of libstdc++ on 64-bit Linux; other ABIs skip the check.)
#if defined(__GLIBCXX__) && defined(__LP64__) && (defined(__x86_64__) || defined(__aarch64__))
static_assert(sizeof(TraceInfo) == 392, "TraceInfo changed: update the load cache metadata serializer");
static_assert(sizeof(DeviceProperties) == 112, "DeviceProperties changed: update the load cache serializer");
static_assert(sizeof(DistributedInfo) == 104, "DistributedInfo changed: update the load cache serializer");
static_assert(sizeof(ProcessGroupConfig) == 128, "ProcessGroupConfig changed: update the load cache serializer");
static_assert(sizeof(LoadStats) == 72, "LoadStats changed: update the load cache serializer");
static_assert(sizeof(Diagnostic) == 96, "Diagnostic changed: update the load cache serializer");
static_assert(sizeof(Location) == 56, "Location changed: update the load cache serializer");
#endif

namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'O', 'B', 'E', 'L', 'C'};
constexpr uint32_t kEndianTag = 0x01020304u;
constexpr size_t kHeaderSize = 256;
constexpr size_t kAlign = 64;
constexpr size_t kNameSize = 48;
constexpr uint32_t kMaxElemSize = 1u << 16;
constexpr std::string_view kStrOffsets = "strings.offsets";
constexpr std::string_view kStrBlob = "strings.blob";

struct Header {
    char magic[8];
    uint32_t endianTag;
    uint32_t formatVersion;
    uint32_t loaderVersion;
    uint32_t headerSize;
    uint64_t fileSize;
    uint64_t sourceSize;
    int64_t sourceMtimeNs;
    uint64_t optionsKey;
    uint64_t metaOffset;
    uint64_t metaSize;
    uint64_t metaChecksum;
    uint64_t dirOffset;
    uint64_t dirCount;
    uint64_t dirChecksum;
    uint64_t reserved[18];
    uint64_t headerChecksum;  // over every byte before it
};
static_assert(sizeof(Header) == kHeaderSize && std::is_trivially_copyable_v<Header>);
constexpr size_t kHeaderChecked = offsetof(Header, headerChecksum);

struct DirEntry {
    char name[kNameSize];  // "table.column", NUL-padded
    uint32_t elemSize;
    uint32_t flags;  // 0
    uint64_t count;
    uint64_t offset;
    uint64_t checksum;
};
static_assert(sizeof(DirEntry) == 80 && std::is_trivially_copyable_v<DirEntry>);

uint64_t alignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// offset + length within size, without overflow.
bool inRange(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

// ---------------------------------------------------------------------------------------------------------
// Checksum: four independent 64-bit multiply-rotate lanes over 32-byte stripes (the structure of xxHash64),
// so it runs near memory speed; streaming, so pieces (the string blob) hash like one buffer.
constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;

uint64_t load64(const unsigned char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
uint32_t load32(const unsigned char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
uint64_t round64(uint64_t acc, uint64_t in) {
    acc += in * kP2;
    acc = std::rotl(acc, 31);
    return acc * kP1;
}

class Hasher {
public:
    explicit Hasher(uint64_t seed = 0) : m_v{seed + kP1 + kP2, seed + kP2, seed, seed - kP1}, m_seed(seed) {}

    void update(const void* data, size_t n) {
        const auto* p = static_cast<const unsigned char*>(data);
        m_total += n;
        if (m_bufLen != 0) {
            const size_t take = std::min(n, sizeof(m_buf) - m_bufLen);
            std::memcpy(m_buf + m_bufLen, p, take);
            m_bufLen += take;
            p += take;
            n -= take;
            if (m_bufLen < sizeof(m_buf)) return;
            stripe(m_buf);
            m_bufLen = 0;
        }
        while (n >= 32) {
            stripe(p);
            p += 32;
            n -= 32;
        }
        if (n != 0) {
            std::memcpy(m_buf, p, n);
            m_bufLen = n;
        }
    }

    uint64_t finish() const {
        uint64_t h;
        if (m_total >= 32) {
            h = std::rotl(m_v[0], 1) + std::rotl(m_v[1], 7) + std::rotl(m_v[2], 12) + std::rotl(m_v[3], 18);
            for (uint64_t v : m_v) h = (h ^ round64(0, v)) * kP1 + kP4;
        } else {
            h = m_seed + kP5;
        }
        h += m_total;
        const unsigned char* p = m_buf;
        size_t n = m_bufLen;
        for (; n >= 8; p += 8, n -= 8) h = std::rotl(h ^ round64(0, load64(p)), 27) * kP1 + kP4;
        if (n >= 4) {
            h = std::rotl(h ^ (uint64_t{load32(p)} * kP1), 23) * kP2 + kP3;
            p += 4;
            n -= 4;
        }
        for (; n > 0; ++p, --n) h = std::rotl(h ^ (uint64_t{*p} * kP5), 11) * kP1;
        h ^= h >> 33;
        h *= kP2;
        h ^= h >> 29;
        h *= kP3;
        h ^= h >> 32;
        return h;
    }

private:
    void stripe(const unsigned char* p) {
        m_v[0] = round64(m_v[0], load64(p));
        m_v[1] = round64(m_v[1], load64(p + 8));
        m_v[2] = round64(m_v[2], load64(p + 16));
        m_v[3] = round64(m_v[3], load64(p + 24));
    }

    uint64_t m_v[4];
    uint64_t m_seed;
    uint64_t m_total = 0;
    unsigned char m_buf[32] = {};
    size_t m_bufLen = 0;
};

// FNV-1a over the whole path: the entry's file name (StringPool::hash samples only parts of long strings).
uint64_t pathHash(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::string absolutePathOf(const std::string& p) {
    std::error_code ec;
    fs::path abs = fs::absolute(fs::path(p), ec);
    if (ec) return p;
    fs::path canon = fs::weakly_canonical(abs, ec);
    return ec ? abs.lexically_normal().string() : canon.string();
}

// ---------------------------------------------------------------------------------------------------------
// Metadata: a flat, length-prefixed encoding. The reader checks every length against what is left.
class MetaWriter {
public:
    template <class T>
    void pod(T v) {
        static_assert(std::is_trivially_copyable_v<T>);
        m_out.append(reinterpret_cast<const char*>(&v), sizeof(T));
    }
    void u8(uint8_t v) { pod(v); }
    void i32(int32_t v) { pod(v); }
    void u32(uint32_t v) { pod(v); }
    void i64(int64_t v) { pod(v); }
    void u64(uint64_t v) { pod(v); }
    void f64(double v) { pod(v); }
    void str(std::string_view s) {
        u64(s.size());
        m_out.append(s.data(), s.size());
    }
    std::string& out() { return m_out; }

private:
    std::string m_out;
};

class MetaReader {
public:
    MetaReader(const char* data, size_t size) : m_p(data), m_n(size) {}

    template <class T>
    T pod() {
        T v{};
        if (!m_ok || m_n - m_pos < sizeof(T)) {
            fail("value runs past the end of the metadata");
            return v;
        }
        std::memcpy(&v, m_p + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }
    uint8_t u8() { return pod<uint8_t>(); }
    bool boolean() { return pod<uint8_t>() != 0; }
    int32_t i32() { return pod<int32_t>(); }
    uint32_t u32() { return pod<uint32_t>(); }
    int64_t i64() { return pod<int64_t>(); }
    uint64_t u64() { return pod<uint64_t>(); }
    double f64() { return pod<double>(); }
    std::string str() {
        const size_t at = m_pos;
        const uint64_t len = u64();
        if (!m_ok) return {};
        if (len > m_n - m_pos) {
            fail("string length runs past the end of the metadata", at);
            return {};
        }
        std::string s(m_p + m_pos, static_cast<size_t>(len));
        m_pos += static_cast<size_t>(len);
        return s;
    }
    // An element count; each element needs at least `minBytes`, so a count larger than what is left fails
    // before anything is allocated.
    size_t count(size_t minBytes) {
        const size_t at = m_pos;
        const uint64_t c = u64();
        if (!m_ok) return 0;
        if (c > (m_n - m_pos) / minBytes) {
            fail(fmt::format("count {} exceeds what the metadata can hold", c), at);
            return 0;
        }
        return static_cast<size_t>(c);
    }
    template <class E>
    E enumBelow(E limit, const char* what) {
        const size_t at = m_pos;
        const uint8_t v = u8();
        if (m_ok && v >= static_cast<uint8_t>(limit)) fail(fmt::format("{} value {} out of range", what, v), at);
        return static_cast<E>(v);
    }

    void fail(std::string why, size_t at = SIZE_MAX) {
        if (!m_ok) return;
        m_ok = false;
        m_failAt = at == SIZE_MAX ? m_pos : at;
        m_why = std::move(why);
    }
    bool ok() const { return m_ok; }
    bool atEnd() const { return m_pos == m_n; }
    size_t pos() const { return m_pos; }
    size_t failAt() const { return m_failAt; }
    const std::string& why() const { return m_why; }

private:
    const char* m_p;
    size_t m_n;
    size_t m_pos = 0;
    bool m_ok = true;
    size_t m_failAt = 0;
    std::string m_why;
};

void writeLocation(MetaWriter& w, const Location& l) {
    w.str(l.file);
    w.i64(l.byteOffset);
    w.i64(l.line);
    w.i64(l.eventIndex);
}
Location readLocation(MetaReader& r) {
    Location l;
    l.file = r.str();
    l.byteOffset = r.i64();
    l.line = r.i64();
    l.eventIndex = r.i64();
    return l;
}

std::string writeMeta(const std::string& absolutePath, const RankData& rank) {
    MetaWriter w;
    w.str(absolutePath);
    w.i32(rank.rank);
    w.u8(static_cast<uint8_t>(rank.rankSource));
    w.str(rank.path);

    const TraceInfo& info = rank.info;
    w.str(info.path);
    w.u64(info.fileSize);
    w.u8(info.gzip ? 1 : 0);
    w.u8(static_cast<uint8_t>(info.platform));
    w.u64(info.devices.size());
    for (const DeviceProperties& d : info.devices) {
        w.i32(d.id);
        w.str(d.name);
        w.i64(d.totalGlobalMem);
        w.i32(d.computeMajor);
        w.i32(d.computeMinor);
        w.i32(d.warpSize);
        w.i32(d.numSms);
        w.i32(d.maxThreadsPerBlock);
        w.i32(d.maxThreadsPerMultiprocessor);
        w.i32(d.regsPerBlock);
        w.i32(d.sharedMemPerBlock);
        w.str(d.rawJson);
    }
    const DistributedInfo& dist = info.distributed;
    w.u8(dist.present ? 1 : 0);
    w.str(dist.backend);
    w.i32(dist.rank);
    w.i32(dist.worldSize);
    w.str(dist.ncclVersion);
    w.u64(dist.processGroups.size());
    for (const ProcessGroupConfig& pg : dist.processGroups) {
        w.str(pg.name);
        w.str(pg.desc);
        w.str(pg.backendConfig);
        w.i32(pg.size);
        w.u64(pg.ranks.size());
        for (int r : pg.ranks) w.i32(r);
    }
    w.str(info.roctracerVersion);
    w.str(info.rocprofilerSdkVersion);
    w.str(info.cuptiVersion);
    w.u8(info.baseTimeNanoseconds.has_value() ? 1 : 0);
    w.i64(info.baseTimeNanoseconds.value_or(0));
    w.str(info.displayTimeUnit);
    w.str(info.traceName);
    w.i32(info.schemaVersion);
    w.u64(info.eventEstimate);
    w.u64(info.otherKeys.size());
    for (const auto& [k, v] : info.otherKeys) {
        w.str(k);
        w.str(v);
    }

    const LoadStats& st = rank.stats;
    w.u64(st.events);
    w.u64(st.metadataEvents);
    w.u64(st.skippedEvents);
    w.u64(st.bytesRead);
    w.u8(st.truncated ? 1 : 0);
    w.f64(st.loadSeconds);
    w.u64(st.eventsByCategory.size());
    for (const auto& [cat, n] : st.eventsByCategory) {
        w.u32(cat);
        w.u64(n);
    }

    w.u64(rank.diagnostics.size());
    for (const Diagnostic& d : rank.diagnostics) {
        w.u8(static_cast<uint8_t>(d.severity));
        writeLocation(w, d.where);
        w.str(d.message);
    }
    return std::move(w.out());
}

// Fills everything but the columns and the strings. Returns the stored absolute source path.
std::string readMeta(MetaReader& r, RankData& rank) {
    std::string absolutePath = r.str();
    rank.rank = r.i32();
    rank.rankSource = r.enumBelow(static_cast<RankSource>(3), "rank source");
    rank.path = r.str();

    TraceInfo& info = rank.info;
    info.path = r.str();
    info.fileSize = r.u64();
    info.gzip = r.boolean();
    info.platform = r.enumBelow(static_cast<Platform>(3), "platform");
    const size_t nDevices = r.count(8 + 4 + 8 + 8 * 4 + 8);
    info.devices.resize(nDevices);
    for (DeviceProperties& d : info.devices) {
        d.id = r.i32();
        d.name = r.str();
        d.totalGlobalMem = r.i64();
        d.computeMajor = r.i32();
        d.computeMinor = r.i32();
        d.warpSize = r.i32();
        d.numSms = r.i32();
        d.maxThreadsPerBlock = r.i32();
        d.maxThreadsPerMultiprocessor = r.i32();
        d.regsPerBlock = r.i32();
        d.sharedMemPerBlock = r.i32();
        d.rawJson = r.str();
    }
    DistributedInfo& dist = info.distributed;
    dist.present = r.boolean();
    dist.backend = r.str();
    dist.rank = r.i32();
    dist.worldSize = r.i32();
    dist.ncclVersion = r.str();
    const size_t nGroups = r.count(8 * 3 + 4 + 8);
    dist.processGroups.resize(nGroups);
    for (ProcessGroupConfig& pg : dist.processGroups) {
        pg.name = r.str();
        pg.desc = r.str();
        pg.backendConfig = r.str();
        pg.size = r.i32();
        const size_t nRanks = r.count(4);
        pg.ranks.resize(nRanks);
        for (int& x : pg.ranks) x = r.i32();
    }
    info.roctracerVersion = r.str();
    info.rocprofilerSdkVersion = r.str();
    info.cuptiVersion = r.str();
    const bool hasBase = r.boolean();
    const int64_t base = r.i64();
    if (hasBase) info.baseTimeNanoseconds = base;
    info.displayTimeUnit = r.str();
    info.traceName = r.str();
    info.schemaVersion = r.i32();
    info.eventEstimate = r.u64();
    const size_t nKeys = r.count(16);
    info.otherKeys.resize(nKeys);
    for (auto& [k, v] : info.otherKeys) {
        k = r.str();
        v = r.str();
    }

    LoadStats& st = rank.stats;
    st.events = r.u64();
    st.metadataEvents = r.u64();
    st.skippedEvents = r.u64();
    st.bytesRead = r.u64();
    st.truncated = r.boolean();
    st.loadSeconds = r.f64();
    const size_t nCats = r.count(12);
    st.eventsByCategory.resize(nCats);
    for (auto& [cat, n] : st.eventsByCategory) {
        cat = r.u32();
        n = r.u64();
    }

    const size_t nDiags = r.count(1 + 8 + 24 + 8);
    rank.diagnostics.resize(nDiags);
    for (Diagnostic& d : rank.diagnostics) {
        d.severity = r.enumBelow(static_cast<Severity>(3), "diagnostic severity");
        d.where = readLocation(r);
        d.message = r.str();
    }
    if (r.ok() && !r.atEnd()) r.fail("unexpected bytes after the metadata");
    return absolutePath;
}

// Every column of a rank, named "table.column", in a fixed order. The tables come from visitTables /
// visitColumns, so a column or table added there is cached without touching this file.
template <class F>
void visitAllColumns(RankData& rank, F&& f) {
    f(std::string("rank.tracks"), rank.tracks);
    f(std::string("rank.processes"), rank.processes);
    f(std::string("rank.threads"), rank.threads);
    rank.visitTables([&](const char* table, auto& t) {
        t.visitColumns([&](const char* column, auto& col) { f(std::string(table) + "." + column, col); });
    });
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
    const std::string entryName = entry.string();
    auto fail = [&](CacheLookup l, int64_t offset, std::string msg) -> Error {
        if (lookup != nullptr) *lookup = l;
        Location where{entryName};
        where.byteOffset = offset;
        return Error(std::move(where), std::string(lookupPrefix(l)) + msg);
    };

    auto mapped = MappedFile::open(entryName);
    if (!mapped) return fail(CacheLookup::Missing, -1, mapped.error().message);
    std::shared_ptr<const MappedFile> file = std::move(mapped.value());
    const char* base = file->data();
    const uint64_t size = file->size();

    // Header.
    if (size < sizeof(kMagic) && std::memcmp(base, kMagic, static_cast<size_t>(size)) == 0)
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(size), fmt::format("truncated: {} bytes", size));
    if (size < sizeof(kMagic) || std::memcmp(base, kMagic, sizeof(kMagic)) != 0)
        return fail(CacheLookup::Foreign, 0, "not a Strobe load cache file (no magic number)");
    if (size < kHeaderSize)
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(size),
                    fmt::format("truncated: {} bytes, the header alone needs {}", size, kHeaderSize));
    Header h;
    std::memcpy(&h, base, sizeof(h));
    if (h.endianTag != kEndianTag) {
        if (__builtin_bswap32(h.endianTag) == kEndianTag)
            return fail(CacheLookup::Foreign, offsetof(Header, endianTag), "written on a machine of the other byte order");
        return fail(CacheLookup::Corrupt, offsetof(Header, endianTag), "bad byte-order tag");
    }
    if (checksum(base, kHeaderChecked) != h.headerChecksum)
        return fail(CacheLookup::Corrupt, 0, "header checksum mismatch");
    if (h.formatVersion != kCacheFormatVersion)
        return fail(CacheLookup::Stale, offsetof(Header, formatVersion),
                    fmt::format("cache format {}, this build reads format {}", h.formatVersion, kCacheFormatVersion));
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

    // Metadata.
    if (h.metaOffset < kHeaderSize || !inRange(h.metaOffset, h.metaSize, size))
        return fail(CacheLookup::Corrupt, offsetof(Header, metaOffset),
                    fmt::format("metadata at {}+{} lies outside the file", h.metaOffset, h.metaSize));
    const char* metaPtr = base + h.metaOffset;
    if (checksum(metaPtr, static_cast<size_t>(h.metaSize)) != h.metaChecksum)
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.metaOffset), "metadata checksum mismatch");
    auto rank = std::make_shared<RankData>();
    MetaReader mr(metaPtr, static_cast<size_t>(h.metaSize));
    const std::string storedPath = readMeta(mr, *rank);
    if (!mr.ok())
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.metaOffset + mr.failAt()), "metadata: " + mr.why());
    if (source != nullptr && storedPath != source->absolutePath)
        return fail(CacheLookup::Foreign, static_cast<int64_t>(h.metaOffset),
                    fmt::format("the entry belongs to {}, not {}", storedPath, source->absolutePath));

    // Directory.
    if (h.dirCount > size / sizeof(DirEntry) || h.dirOffset % kAlign != 0 ||
        !inRange(h.dirOffset, h.dirCount * sizeof(DirEntry), size))
        return fail(CacheLookup::Corrupt, offsetof(Header, dirOffset),
                    fmt::format("column directory ({} entries at {}) lies outside the file", h.dirCount, h.dirOffset));
    const uint64_t dirEnd = h.dirOffset + h.dirCount * sizeof(DirEntry);
    if (checksum(base + h.dirOffset, static_cast<size_t>(h.dirCount * sizeof(DirEntry))) != h.dirChecksum)
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.dirOffset), "column directory checksum mismatch");
    std::vector<DirEntry> dir(static_cast<size_t>(h.dirCount));
    if (!dir.empty()) std::memcpy(dir.data(), base + h.dirOffset, dir.size() * sizeof(DirEntry));
    std::unordered_map<std::string_view, size_t> byName;
    byName.reserve(dir.size());
    for (size_t i = 0; i < dir.size(); ++i) {
        const DirEntry& d = dir[i];
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
        if (!byName.emplace(name, i).second)
            return fail(CacheLookup::Corrupt, at, fmt::format("column {} appears twice", name));
    }
    std::vector<bool> used(dir.size(), false);
    auto findColumn = [&](std::string_view name) -> const DirEntry* {
        auto it = byName.find(name);
        if (it == byName.end()) return nullptr;
        used[it->second] = true;
        return &dir[it->second];
    };
    auto dataOk = [&](const DirEntry& d) {
        return checksum(base + d.offset, static_cast<size_t>(d.count * d.elemSize)) == d.checksum;
    };

    // Strings: offsets (always checked: they are read anyway) and the blob they index.
    const DirEntry* offs = findColumn(kStrOffsets);
    const DirEntry* blob = findColumn(kStrBlob);
    if (offs == nullptr || blob == nullptr || offs->elemSize != 8 || blob->elemSize != 1 || offs->count < 2)
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.dirOffset), "string pool columns missing or malformed");
    if (!dataOk(*offs))
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset), "string offsets checksum mismatch");
    if (m_verifyData && !dataOk(*blob))
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(blob->offset), "string data checksum mismatch");
    if (offs->count - 1 > std::numeric_limits<StrId>::max())
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset), "too many strings");
    const size_t nStrings = static_cast<size_t>(offs->count - 1);
    const auto* offsetData = reinterpret_cast<const uint64_t*>(base + offs->offset);
    const char* blobData = base + blob->offset;
    std::vector<std::string_view> views(nStrings);
    uint64_t prev = offsetData[0];
    if (prev != 0) return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset), "first string offset is not 0");
    for (size_t i = 0; i < nStrings; ++i) {
        const uint64_t next = offsetData[i + 1];
        if (next < prev || next > blob->count)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset + 8 * (i + 1)),
                        fmt::format("string {} ends at {}, outside {}..{}", i, next, prev, blob->count));
        views[i] = std::string_view(blobData + prev, static_cast<size_t>(next - prev));
        prev = next;
    }
    if (prev != blob->count || !views[0].empty())
        return fail(CacheLookup::Corrupt, static_cast<int64_t>(offs->offset), "string offsets do not cover the blob");
    for (const auto& [cat, n] : rank->stats.eventsByCategory)
        if (cat >= nStrings)
            return fail(CacheLookup::Corrupt, static_cast<int64_t>(h.metaOffset),
                        fmt::format("category string {} out of range", cat));

    // Columns: zero-copy views over the mapping.
    std::shared_ptr<const void> keep = file;
    std::optional<Error> columnError;
    visitAllColumns(*rank, [&](const std::string& name, auto& col) {
        using Col = std::remove_reference_t<decltype(col)>;
        using T = typename Col::value_type;
        if (columnError) return;
        const DirEntry* d = findColumn(name);
        if (d == nullptr) {
            columnError = fail(CacheLookup::Stale, -1, fmt::format("column {} is not in the file (another build)", name));
            return;
        }
        if (d->elemSize != sizeof(T)) {
            columnError = fail(CacheLookup::Stale, static_cast<int64_t>(d->offset),
                               fmt::format("column {} has {}-byte values, this build uses {}", name, d->elemSize,
                                           sizeof(T)));
            return;
        }
        if (m_verifyData && !dataOk(*d)) {
            columnError =
                fail(CacheLookup::Corrupt, static_cast<int64_t>(d->offset), fmt::format("column {} checksum mismatch", name));
            return;
        }
        col = Col::view(reinterpret_cast<const T*>(base + d->offset), static_cast<size_t>(d->count), keep);
    });
    if (columnError) return *columnError;
    for (size_t i = 0; i < dir.size(); ++i)
        if (!used[i])
            return fail(CacheLookup::Stale, static_cast<int64_t>(h.dirOffset + i * sizeof(DirEntry)),
                        fmt::format("column {} is unknown to this build", std::string_view(dir[i].name)));

    rank->strings = StringPool::adopt(std::move(views), keep);
    // Checksums say the bytes are the ones written; these say that what is written cannot make a reader go out
    // of bounds (a file with matching checksums is not proof of that: it may come from another tool or a bug).
    if (auto valid = validateRankData(*rank); !valid)
        return fail(CacheLookup::Corrupt, -1, valid.error().message);
    if (source != nullptr) {
        rank->path = source->absolutePath;
        rank->info.path = source->absolutePath;
    } else {
        rank->path = storedPath;
        rank->info.path = storedPath;
    }
    rank->stats.fromCache = true;
    rank->stats.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (lookup != nullptr) *lookup = CacheLookup::Hit;
    return rank;
}

}  // namespace strobe::core
