#include "core/engine/load_cache_meta.h"

namespace strobe::core::cachefile {

// Tripwires: this serializer writes these structs field by field. When one of them gains a
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

}  // namespace

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

}  // namespace strobe::core::cachefile
