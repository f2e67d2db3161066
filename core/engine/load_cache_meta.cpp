#include "core/engine/load_cache_meta.h"

#include <optional>
#include <type_traits>

namespace strobe::core::cachefile {

// Tripwires: this serializer writes these structs field by field. When one of them gains a
// field, its size changes and this fails to compile: add the field to fields() and bump
// kCacheFormatVersion. (Sizes are those of libstdc++ on 64-bit Linux; other ABIs skip the check.)
#if defined(__GLIBCXX__) && defined(__LP64__) && (defined(__x86_64__) || defined(__aarch64__))
static_assert(sizeof(TraceInfo) == 528, "TraceInfo changed: update the load cache metadata serializer");
static_assert(sizeof(DeviceProperties) == 112, "DeviceProperties changed: update the load cache serializer");
static_assert(sizeof(DistributedInfo) == 104, "DistributedInfo changed: update the load cache serializer");
static_assert(sizeof(ProcessGroupConfig) == 128, "ProcessGroupConfig changed: update the load cache serializer");
static_assert(sizeof(LoadStats) == 80, "LoadStats changed: update the load cache serializer");
static_assert(sizeof(Diagnostic) == 136, "Diagnostic changed: update the load cache serializer");
static_assert(sizeof(Location) == 96, "Location changed: update the load cache serializer");
#endif

namespace {

// Both directions of the encoding in one place, so that the layout is stated once (in fields()): with a MetaWriter
// each call writes its fields, with a MetaReader it reads them back, sizing lists from their stored counts.
template <class Stream>
class Codec {
    static constexpr bool kWrite = std::is_same_v<Stream, MetaWriter>;

public:
    explicit Codec(Stream& s) : m_s(s) {}

    // Plain fields, in order. Each goes by its own type: bool as one byte, std::string length-prefixed,
    // std::optional<int64_t> as a flag byte and the value (0 when absent), int / uint32_t / int64_t / uint64_t /
    // double as themselves (a field that changes type changes the struct's size: see the tripwires above).
    template <class... T>
    void operator()(T&... v) {
        (one(v), ...);
    }
    // One byte; reading fails on a value at or above `limit`.
    template <class E>
    void enumeration(E& v, [[maybe_unused]] std::remove_const_t<E> limit, [[maybe_unused]] const char* what) {
        if constexpr (kWrite) m_s.u8(static_cast<uint8_t>(v));
        else v = m_s.enumBelow(limit, what);
    }
    // A count, then each element. Each element needs at least `minBytes`, so a corrupt count fails before anything
    // is allocated.
    void list(auto& v, [[maybe_unused]] size_t minBytes, auto&& each) {
        if constexpr (kWrite) m_s.u64(v.size());
        else v.resize(m_s.count(minBytes));
        for (auto& e : v) each(e);
    }

private:
    template <class T>
    void one(T& v) {
        using V = std::remove_const_t<T>;
        if constexpr (std::is_same_v<V, bool>) {
            if constexpr (kWrite) m_s.u8(v ? 1 : 0);
            else v = m_s.boolean();
        } else if constexpr (std::is_same_v<V, std::string>) {
            if constexpr (kWrite) m_s.str(v);
            else v = m_s.str();
        } else if constexpr (std::is_same_v<V, std::optional<int64_t>>) {
            if constexpr (kWrite) {
                m_s.u8(v.has_value() ? 1 : 0);
                m_s.i64(v.value_or(0));
            } else {
                const bool has = m_s.boolean();
                const int64_t value = m_s.i64();
                if (has) v = value;
            }
        } else {
            static_assert(std::is_arithmetic_v<V>, "no encoding for this field type");
            if constexpr (kWrite) m_s.pod(v);
            else v = m_s.template pod<V>();
        }
    }

    Stream& m_s;
};

// The metadata layout, in order. `R` is `const RankData` when writing, `RankData` when reading.
template <class IO, class R>
void fields(IO& io, R& rank) {
    io(rank.rank);
    io.enumeration(rank.rankSource, static_cast<RankSource>(4), "rank source");
    io(rank.path);

    auto& info = rank.info;
    io(info.format, info.toolVersion);
    io.enumeration(info.clock.domain, static_cast<ClockDomain>(7), "clock domain");
    io(info.clock.anchored, info.clock.toRealtimeNs, info.clock.anchor);
    io.list(info.alsoPresent, 8, [&](auto& p) { io(p); });
    io(info.path, info.fileSize, info.gzip);
    io.enumeration(info.platform, static_cast<Platform>(3), "platform");
    io.list(info.devices, 8 + 4 + 8 + 8 * 4 + 8, [&](auto& d) {
        io(d.id, d.name, d.totalGlobalMem, d.computeMajor, d.computeMinor, d.warpSize, d.numSms, d.maxThreadsPerBlock,
           d.maxThreadsPerMultiprocessor, d.regsPerBlock, d.sharedMemPerBlock, d.rawJson);
    });
    auto& dist = info.distributed;
    io(dist.present, dist.backend, dist.rank, dist.worldSize, dist.ncclVersion);
    io.list(dist.processGroups, 8 * 3 + 4 + 8, [&](auto& pg) {
        io(pg.name, pg.desc, pg.backendConfig, pg.size);
        io.list(pg.ranks, 4, [&](auto& r) { io(r); });
    });
    io(info.roctracerVersion, info.rocprofilerSdkVersion, info.cuptiVersion, info.baseTimeNanoseconds,
       info.displayTimeUnit, info.traceName, info.schemaVersion, info.eventEstimate);
    io.list(info.otherKeys, 16, [&](auto& kv) { io(kv.first, kv.second); });

    auto& st = rank.stats;
    io(st.events, st.metadataEvents, st.skippedEvents, st.bytesRead, st.truncated, st.loadSeconds, st.joinMatchRate);
    io.list(st.eventsByCategory, 12, [&](auto& catCount) { io(catCount.first, catCount.second); });

    io.list(rank.diagnostics, 1 + 8 + 24 + 8, [&](auto& d) {
        io.enumeration(d.severity, static_cast<Severity>(3), "diagnostic severity");
        io(d.where.file, d.where.byteOffset, d.where.line, d.where.eventIndex, d.where.row, d.where.table, d.message);
    });
}

}  // namespace

std::string writeMeta(const std::string& absolutePath, const RankData& rank) {
    MetaWriter w;
    w.str(absolutePath);
    Codec<MetaWriter> out(w);
    fields(out, rank);
    return std::move(w.out());
}

std::string readMeta(MetaReader& r, RankData& rank) {
    std::string absolutePath = r.str();
    Codec<MetaReader> in(r);
    fields(in, rank);
    if (r.ok() && !r.atEnd()) r.fail("unexpected bytes after the metadata");
    return absolutePath;
}

}  // namespace strobe::core::cachefile
