// The on-disk load cache: a hand-made RankData with distinctive values in every column, every string and every
// metadata field round-trips exactly; a changed source is stale; a corrupted, truncated, extended or foreign
// file gives an Error (never a crash, never wrong data); a write that cannot happen is an Error, not a crash.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <thread>
#include <atomic>
#include <type_traits>
#include <vector>

#include "core/engine/load_cache.h"
#include "tests/test_files.h"

using namespace strobe::core;
namespace fs = std::filesystem;

namespace {

using strobe::test::writeFile;
using strobe::test::readAll;

// A fresh directory per test, removed when it ends.
struct TempDir : strobe::test::TempDir {
    TempDir() : strobe::test::TempDir("strobe-cache-test") {}
};

// Distinctive value for row i of the c-th column: different per column and per row, and of the right type.
template <class T>
T patternValue(size_t column, size_t i) {
    if constexpr (std::is_enum_v<T>) {
        using U = std::underlying_type_t<T>;
        return static_cast<T>(static_cast<U>((column * 7 + i) % 5));
    } else if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(column) * 1000.0 + static_cast<T>(i) * 0.25 - 3.5;
    } else {
        // Wraps for narrow types on purpose; negative values for signed ones.
        const uint64_t v = column * 1000003ULL + i * 7919ULL + 11;
        return static_cast<T>(std::is_signed_v<T> && (i % 3 == 1) ? -static_cast<int64_t>(v % 100000) : v);
    }
}

// Fills every column of every table (through the generic visitors) with patternValue; table t gets rows[t] rows.
void fillTables(RankData& r) {
    // slices, gpu, flows, counters, steps (left empty), kernelCounters, samples
    const size_t rows[] = {1000, 777, 33, 5, 0, 41, 17};
    size_t table = 0, column = 0;
    r.visitTables([&](const char*, auto& t) {
        const size_t n = rows[table++];
        t.visitColumns([&](const char*, auto& col) {
            using T = typename std::remove_reference_t<decltype(col)>::value_type;
            for (size_t i = 0; i < n; ++i) col.push_back(patternValue<T>(column, i));
            ++column;
        });
    });
}

// Makes the patterned tables structurally valid (what validateRankData checks on every read): row references,
// track indices and string ids inside their tables and pool, durations non-negative. Values stay distinctive per row.
void makeReferencesValid(RankData& r) {
    const auto tracks = static_cast<int64_t>(r.tracks.size());
    const auto slices = static_cast<int64_t>(r.slices.size());
    const auto gpu = static_cast<int64_t>(r.gpu.size());
    const auto steps = static_cast<int64_t>(r.steps.size());
    auto ref = [](size_t i, int64_t n, size_t salt) -> int64_t {
        // -1 ("none") for every third row, else a row that depends on i and the column
        return (n == 0 || i % 3 == 0) ? -1 : static_cast<int64_t>((i * 31 + salt) % static_cast<size_t>(n));
    };
    auto& s = r.slices;
    for (size_t i = 0; i < s.size(); ++i) {
        s.track.at(i) = static_cast<uint32_t>(i % static_cast<size_t>(tracks));
        s.parent.at(i) = static_cast<int32_t>(ref(i, slices, 1));
        s.byTrack.at(i) = static_cast<uint32_t>((i * 7) % s.size());
        s.launchedGpu.at(i) = static_cast<int32_t>(ref(i, gpu, 2));
        if (s.dur[i] < 0) s.dur.at(i) = -s.dur[i];
    }
    auto& g = r.gpu;
    for (size_t i = 0; i < g.size(); ++i) {
        g.track.at(i) = static_cast<uint32_t>((i + 1) % static_cast<size_t>(tracks));
        g.runtime.at(i) = static_cast<int32_t>(ref(i, slices, 3));
        g.cpuOp.at(i) = static_cast<int32_t>(ref(i, slices, 4));
        g.step.at(i) = static_cast<int32_t>(ref(i, steps, 5));
        g.annotation.at(i) = static_cast<int32_t>(ref(i, slices, 6));
        g.byTrack.at(i) = static_cast<uint32_t>((i * 5) % g.size());
        if (g.dur[i] < 0) g.dur.at(i) = -g.dur[i];
    }
    // String ids: a different string per row and column, all inside the pool.
    const size_t nStrings = r.strings.size();
    size_t salt = 0;
    for (auto* col : {&s.name, &s.cat, &s.args, &g.name, &g.cat, &g.args, &r.flows.cat, &r.flows.name,
                      &r.counters.name, &r.counters.series, &r.kernelCounters.name, &r.samples.metric}) {
        ++salt;
        for (size_t i = 0; i < col->size(); ++i) col->at(i) = static_cast<StrId>((i * 13 + salt) % nStrings);
    }
    for (size_t i = 0; i < r.flows.size(); ++i) r.flows.track.at(i) = static_cast<uint32_t>(i % static_cast<size_t>(tracks));
    for (size_t i = 0; i < r.counters.size(); ++i)
        r.counters.track.at(i) = static_cast<uint32_t>(i % static_cast<size_t>(tracks));
    for (size_t i = 0; i < r.steps.size(); ++i) r.steps.slice.at(i) = static_cast<int32_t>(ref(i, slices, 7));
    for (size_t i = 0; i < r.kernelCounters.size(); ++i)
        r.kernelCounters.gpuRow.at(i) = static_cast<uint32_t>((i * 11) % static_cast<size_t>(gpu));
}

RankData makeRank() {
    RankData r;
    r.rank = 5;
    r.rankSource = RankSource::FileName;
    r.path = "/somewhere/worker5.pt.trace.json";
    r.strings.intern("ProfilerStep#12");
    r.strings.intern("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>");
    r.strings.intern(std::string(5000, 'k') + "tail");
    r.strings.intern(std::string("nul\0inside", 10));
    r.strings.intern("ünïcødé ✓");
    r.strings.intern("{\"Input Dims\": [[8, 1024], [1024]], \"Ev Idx\": 17}");
    for (int i = 0; i < 300; ++i) r.strings.intern("name_" + std::to_string(i));

    r.tracks = std::vector<Track>{{1, 2, 0, 0}, {-7, 3, 1, 2}, {0, 0, 4, 5}};
    r.processes = std::vector<ProcessMeta>{{1, 0, 1, 2, 7}, {9, 3, 4, 0, INT32_MIN}};
    r.threads = std::vector<ThreadMeta>{{0, 2, -1}, {2, 6, 42}};
    fillTables(r);
    makeReferencesValid(r);

    TraceInfo& in = r.info;
    in.path = "/somewhere/worker5.pt.trace.json";
    in.fileSize = 123456789;
    in.gzip = true;
    in.platform = Platform::Amd;
    DeviceProperties d0;
    d0.id = 0;
    d0.name = "AMD Instinct MI300X";
    d0.totalGlobalMem = 206141652992;
    d0.computeMajor = 9;
    d0.computeMinor = 4;
    d0.warpSize = 64;
    d0.numSms = 304;
    d0.maxThreadsPerBlock = 1024;
    d0.maxThreadsPerMultiprocessor = 2048;
    d0.regsPerBlock = 65536;
    d0.sharedMemPerBlock = 65536;
    d0.rawJson = R"({"id": 0, "name": "AMD Instinct MI300X"})";
    DeviceProperties d1 = d0;
    d1.id = 1;
    d1.name = "second";
    in.devices = {d0, d1};
    in.distributed.present = true;
    in.distributed.backend = "nccl";
    in.distributed.rank = 5;
    in.distributed.worldSize = 8;
    in.distributed.ncclVersion = "2.18.3";
    in.distributed.processGroups = {{"0", "default_pg", "cuda:nccl", 8, {0, 1, 2, 3, 4, 5, 6, 7}},
                                    {"1", "sub", "", 2, {4, 5}}};
    in.roctracerVersion = "4.1";
    in.rocprofilerSdkVersion = "0.5.0";
    in.cuptiVersion = "";
    in.baseTimeNanoseconds = 1694128201545000000LL;
    in.displayTimeUnit = "ms";
    in.traceName = "worker5";
    in.schemaVersion = 1;
    in.eventEstimate = 424242;
    in.otherKeys = {{"custom", "[1, 2, {\"x\": null}]"}, {"empty", ""}};

    r.stats.events = 1815;
    r.stats.metadataEvents = 12;
    r.stats.skippedEvents = 3;
    r.stats.bytesRead = 987654;
    r.stats.truncated = true;
    r.stats.loadSeconds = 0.125;
    r.stats.eventsByCategory = {{1, 1000}, {2, 777}, {0, 38}};

    Location where{"/somewhere/worker5.pt.trace.json"};
    where.byteOffset = 4096;
    where.eventIndex = 17;
    r.diagnostics = {{Severity::Warning, where, "the text ends early; 1815 events kept"},
                     {Severity::Info, Location{}, "no closing bracket"}};
    return r;
}

// Compares every column (generic) and every string and metadata field.
void expectSame(RankData& a, RankData& b) {
    EXPECT_EQ(a.rank, b.rank);
    EXPECT_EQ(a.rankSource, b.rankSource);

    ASSERT_EQ(a.strings.size(), b.strings.size());
    for (StrId i = 0; i < a.strings.size(); ++i) {
        ASSERT_EQ(a.strings.view(i), b.strings.view(i)) << "string " << i;
        auto found = b.strings.find(a.strings.view(i));
        ASSERT_TRUE(found.has_value()) << "string " << i;
        EXPECT_EQ(*found, i);
    }

    auto columnsOf = [](RankData& r) {
        std::vector<std::pair<std::string, std::string>> cols;
        auto add = [&](const std::string& name, const auto& col) {
            cols.emplace_back(name, std::string(reinterpret_cast<const char*>(col.data()),
                                                col.size() * sizeof(*col.data())));
        };
        add("tracks", r.tracks);
        add("processes", r.processes);
        add("threads", r.threads);
        r.visitTables([&](const char* t, auto& table) {
            table.visitColumns([&](const char* c, const auto& col) { add(std::string(t) + "." + c, col); });
        });
        return cols;
    };
    auto ca = columnsOf(a), cb = columnsOf(b);
    ASSERT_EQ(ca.size(), cb.size());
    for (size_t i = 0; i < ca.size(); ++i) {
        EXPECT_EQ(ca[i].first, cb[i].first);
        EXPECT_EQ(ca[i].second.size(), cb[i].second.size()) << ca[i].first;
        EXPECT_TRUE(ca[i].second == cb[i].second) << "column " << ca[i].first << " differs";
    }

    // Every field of the metadata, struct by struct (as tuples, so that a failure prints them all).
    auto deviceFields = [](const DeviceProperties& d) {
        return std::tie(d.id, d.name, d.totalGlobalMem, d.computeMajor, d.computeMinor, d.warpSize, d.numSms,
                        d.maxThreadsPerBlock, d.maxThreadsPerMultiprocessor, d.regsPerBlock, d.sharedMemPerBlock,
                        d.rawJson);
    };
    auto groupFields = [](const ProcessGroupConfig& g) {
        return std::tie(g.name, g.desc, g.backendConfig, g.size, g.ranks);
    };
    auto distFields = [](const DistributedInfo& d) {
        return std::tie(d.present, d.backend, d.rank, d.worldSize, d.ncclVersion);
    };
    auto infoFields = [](const TraceInfo& t) {
        return std::tie(t.fileSize, t.gzip, t.platform, t.roctracerVersion, t.rocprofilerSdkVersion, t.cuptiVersion,
                        t.baseTimeNanoseconds, t.displayTimeUnit, t.traceName, t.schemaVersion, t.eventEstimate,
                        t.otherKeys);
    };
    auto statsFields = [](const LoadStats& st) {
        return std::tie(st.events, st.metadataEvents, st.skippedEvents, st.bytesRead, st.truncated,
                        st.eventsByCategory);
    };
    auto diagnosticFields = [](const Diagnostic& d) {
        return std::tie(d.severity, d.message, d.where.file, d.where.byteOffset, d.where.line, d.where.eventIndex);
    };
    // Compares two lists element by element through `fields`.
    auto expectSameList = [](const auto& xs, const auto& ys, auto fields, const char* what) {
        ASSERT_EQ(xs.size(), ys.size()) << what;
        for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(fields(xs[i]), fields(ys[i])) << what << " " << i;
    };
    EXPECT_EQ(infoFields(a.info), infoFields(b.info));
    expectSameList(a.info.devices, b.info.devices, deviceFields, "device");
    EXPECT_EQ(distFields(a.info.distributed), distFields(b.info.distributed));
    expectSameList(a.info.distributed.processGroups, b.info.distributed.processGroups, groupFields, "process group");
    EXPECT_EQ(statsFields(a.stats), statsFields(b.stats));
    expectSameList(a.diagnostics, b.diagnostics, diagnosticFields, "diagnostic");
}

struct Fixture {
    TempDir tmp;
    fs::path source = tmp.path() / "worker5.pt.trace.json";
    LoadCache cache{tmp.path() / "cache"};
    RankData rank = makeRank();

    Fixture() { writeFile(source, "{\"traceEvents\": []}"); }
    fs::path entry() const { return cache.entryFor(source.string()); }
};

// Writes `bytes` resealed (every checksum matching) as the fixture's entry and expects the read to call it corrupt,
// with `needle` in its message and the entry's name in the error.
void expectResealedCorrupt(const Fixture& f, std::string bytes, const std::string& needle) {
    LoadCache::reseal(bytes);
    writeFile(f.entry(), bytes);
    CacheLookup lookup = CacheLookup::Hit;
    auto r = f.cache.read(f.source.string(), 0, &lookup);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_EQ(lookup, CacheLookup::Corrupt) << needle;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().toString();
    EXPECT_NE(r.error().toString().find(f.entry().filename().string()), std::string::npos);
}

}  // namespace

TEST(LoadCache, RoundTripsEveryColumnStringAndField) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    CacheLookup lookup = CacheLookup::Missing;
    auto back = f.cache.read(f.source.string(), 0, &lookup);
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(lookup, CacheLookup::Hit);
    RankData& r = **back;
    expectSame(f.rank, r);
    EXPECT_TRUE(r.stats.fromCache);
    EXPECT_EQ(r.path, f.source.string());
    EXPECT_EQ(r.info.path, f.source.string());

    // Spot checks against the values the test put in (not against the writer).
    ASSERT_EQ(r.slices.size(), 1000u);
    ASSERT_EQ(r.gpu.size(), 777u);
    EXPECT_EQ(r.flows.size(), 33u);
    EXPECT_EQ(r.counters.size(), 5u);
    EXPECT_EQ(r.steps.size(), 0u);
    EXPECT_EQ(r.gpu.copyDirection.size(), 777u);
    EXPECT_EQ(r.slices.ts[0], 11);                                // column 0, row 0: 0 + 0 + 11
    EXPECT_EQ(r.slices.ts[2], 2 * 7919 + 11);                     // column 0, row 2
    EXPECT_EQ(r.slices.dur[1], (1000003 + 7919 + 11) % 100000);   // column 1, row 1: made non-negative
    EXPECT_EQ(r.tracks[1].pid, -7);
    EXPECT_EQ(r.processes[1].sortIndex, INT32_MIN);
    EXPECT_EQ(r.threads[1].sortIndex, 42);
    EXPECT_TRUE(r.strings.view(4) == std::string_view("nul\0inside", 10));
    EXPECT_EQ(r.strings.view(3).size(), 5004u);
    EXPECT_EQ(r.strings.view(3).substr(5000), "tail");
    EXPECT_EQ(r.info.devices[1].name, "second");
    EXPECT_EQ(r.info.distributed.processGroups[1].ranks, (std::vector<int>{4, 5}));
    EXPECT_EQ(*r.info.baseTimeNanoseconds, 1694128201545000000LL);
}

TEST(LoadCache, ColumnsAreAlignedZeroCopyViewsThatOutliveTheFile) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    std::shared_ptr<RankData> r;
    {
        LoadCache other(f.cache.dir());
        auto back = other.read(f.source.string());
        ASSERT_TRUE(back.ok()) << back.error().toString();
        r = std::move(back.value());
    }
    EXPECT_TRUE(r->slices.ts.isView());
    EXPECT_TRUE(r->gpu.name.isView());
    EXPECT_TRUE(r->tracks.isView());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(r->slices.ts.data()) % 64, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(r->counters.value.data()) % 64, 0u);

    // Replacing and then deleting the entry leaves the mapped data intact.
    RankData changed = makeRank();
    changed.slices.ts.at(0) = 999;
    ASSERT_TRUE(f.cache.write(f.source.string(), changed).ok());
    fs::remove(f.entry());
    EXPECT_EQ(r->slices.ts[0], 11);
    expectSame(f.rank, *r);
}

TEST(LoadCache, EmptyRankRoundTrips) {
    Fixture f;
    RankData empty;
    ASSERT_TRUE(f.cache.write(f.source.string(), empty).ok());
    auto back = f.cache.read(f.source.string());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ((*back)->strings.size(), 1u);
    EXPECT_EQ((*back)->slices.size(), 0u);
    EXPECT_FALSE((*back)->info.baseTimeNanoseconds.has_value());
    expectSame(empty, **back);
}

TEST(LoadCache, WriteLeavesOnlyTheEntryAndNamesItAfterThePath) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());  // replacing is fine too
    // A temp file left by a writer that died an hour ago is cleaned up by the next write of that entry; a
    // recent one (a writer that may still be running) is left alone.
    const fs::path oldTemp = f.cache.dir() / ("." + f.entry().filename().string() + ".tmp-1-0");
    const fs::path newTemp = f.cache.dir() / ("." + f.entry().filename().string() + ".tmp-2-0");
    writeFile(oldTemp, "partial");
    writeFile(newTemp, "partial");
    fs::last_write_time(oldTemp, fs::file_time_type::clock::now() - std::chrono::hours(1));
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    EXPECT_FALSE(fs::exists(oldTemp));
    EXPECT_TRUE(fs::exists(newTemp));
    fs::remove(newTemp);
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(f.cache.dir())) names.push_back(e.path().filename().string());
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names[0], f.entry().filename().string());
    EXPECT_NE(names[0].find("worker5.pt.trace.json"), std::string::npos);
    // Another spelling of the same path maps to the same entry; another file to another entry.
    const std::string dotted = (f.tmp.path() / "." / "worker5.pt.trace.json").string();
    EXPECT_EQ(f.cache.entryFor(dotted), f.entry());
    EXPECT_NE(f.cache.entryFor((f.tmp.path() / "worker6.pt.trace.json").string()), f.entry());
    EXPECT_TRUE(f.cache.entryFor("").empty());
}

TEST(LoadCache, DefaultDirectoryFollowsXdgCacheHome) {
    TempDir tmp;
    const char* old = std::getenv("XDG_CACHE_HOME");
    std::string saved = old ? old : "";
    ::setenv("XDG_CACHE_HOME", tmp.path().c_str(), 1);
    LoadCache c;
    EXPECT_EQ(c.dir(), tmp.path() / "strobe");
    if (old) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else ::unsetenv("XDG_CACHE_HOME");
}

TEST(LoadCache, MissingEntryOrSourceIsAMiss) {
    Fixture f;
    CacheLookup lookup = CacheLookup::Hit;
    auto r = f.cache.read(f.source.string(), 0, &lookup);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(lookup, CacheLookup::Missing);
    auto gone = f.cache.read((f.tmp.path() / "absent.json").string(), 0, &lookup);
    ASSERT_FALSE(gone.ok());
    EXPECT_EQ(lookup, CacheLookup::Missing);
    EXPECT_NE(gone.error().toString().find("absent.json"), std::string::npos);
}

TEST(LoadCache, ChangedSourceOrOptionsAreStale) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank, 77).ok());
    ASSERT_TRUE(f.cache.read(f.source.string(), 77).ok());

    CacheLookup lookup = CacheLookup::Hit;
    auto otherKey = f.cache.read(f.source.string(), 78, &lookup);
    EXPECT_FALSE(otherKey.ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);
    EXPECT_TRUE(f.cache.read(f.source.string(), 0).ok());  // key 0: any options (inspection tools)

    // Touch: same size, another mtime.
    fs::last_write_time(f.source, fs::last_write_time(f.source) + std::chrono::seconds(3));
    auto touched = f.cache.read(f.source.string(), 77, &lookup);
    ASSERT_FALSE(touched.ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);
    EXPECT_NE(touched.error().message.find("changed"), std::string::npos);

    // Rewritten for the touched file, then the size changes.
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank, 77).ok());
    ASSERT_TRUE(f.cache.read(f.source.string(), 77).ok());
    const auto mtime = fs::last_write_time(f.source);
    writeFile(f.source, "{\"traceEvents\": [ ]}");
    fs::last_write_time(f.source, mtime);  // same mtime, other size
    EXPECT_FALSE(f.cache.read(f.source.string(), 77, &lookup).ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);
}

TEST(LoadCache, StampTakenBeforeTheLoadMakesALaterChangeStale) {
    Fixture f;
    auto before = LoadCache::stamp(f.source.string());
    ASSERT_TRUE(before.ok());
    // The source changes while it is being loaded; the entry is written with the stamp from before.
    fs::last_write_time(f.source, fs::last_write_time(f.source) + std::chrono::seconds(5));
    ASSERT_TRUE(f.cache.write(*before, f.rank).ok());
    CacheLookup lookup = CacheLookup::Hit;
    EXPECT_FALSE(f.cache.read(f.source.string(), 0, &lookup).ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);
}

TEST(LoadCache, ForeignFilesAreRejected) {
    Fixture f;
    fs::create_directories(f.cache.dir());
    CacheLookup lookup = CacheLookup::Hit;

    writeFile(f.entry(), "{\"this is\": \"not a cache file\"}");
    EXPECT_FALSE(f.cache.read(f.source.string(), 0, &lookup).ok());
    EXPECT_EQ(lookup, CacheLookup::Foreign);

    writeFile(f.entry(), "");
    auto empty = f.cache.read(f.source.string(), 0, &lookup);
    EXPECT_FALSE(empty.ok());
    EXPECT_EQ(lookup, CacheLookup::Corrupt);  // an empty file is a truncated one

    // The entry of another source with the same size and mtime copied under this source's name.
    const fs::path twin = f.tmp.path() / "twin.json";
    writeFile(twin, readAll(f.source));
    fs::last_write_time(twin, fs::last_write_time(f.source));
    ASSERT_TRUE(f.cache.write(twin.string(), f.rank).ok());
    fs::copy_file(f.cache.entryFor(twin.string()), f.entry(), fs::copy_options::overwrite_existing);
    auto foreign = f.cache.read(f.source.string(), 0, &lookup);
    ASSERT_FALSE(foreign.ok());
    EXPECT_EQ(lookup, CacheLookup::Foreign);
    EXPECT_NE(foreign.error().message.find("twin.json"), std::string::npos);

    // A FIFO where the entry should be: rejected at once, never a blocked open.
    fs::remove(f.entry());
    ASSERT_EQ(::mkfifo(f.entry().c_str(), 0600), 0);
    EXPECT_FALSE(f.cache.read(f.source.string(), 0, &lookup).ok());
    EXPECT_NE(lookup, CacheLookup::Hit);
    fs::remove(f.entry());

    // Other byte order: flip the endianness tag (bytes 8..11) — reported before any checksum.
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    std::string bytes = readAll(f.entry());
    std::swap(bytes[8], bytes[11]);
    std::swap(bytes[9], bytes[10]);
    writeFile(f.entry(), bytes);
    EXPECT_FALSE(f.cache.read(f.source.string(), 0, &lookup).ok());
    EXPECT_EQ(lookup, CacheLookup::Foreign);
}

namespace {
// Overwrites one byte of a file in place and keeps the source's stamp unchanged.
void pokeByte(const fs::path& p, size_t offset, char value) {
    int fd = ::open(p.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, &value, 1, static_cast<off_t>(offset)), 1);
    ::close(fd);
}
}  // namespace

namespace {

// Pokes every byte of the header, metadata and directory region, then every 61st byte of the data (each column is
// hit several times) of the entry written for `f`: each is caught (corrupt, foreign, stale) or harmless (the data
// read back is still `want`).
void expectEveryCorruptionCaughtOrHarmless(Fixture& f, RankData& want) {
    const std::string original = readAll(f.entry());
    ASSERT_GT(original.size(), 4096u);
    size_t rejected = 0, accepted = 0;
    for (size_t off = 0; off < original.size(); off += off < 4096 ? 1 : 61) {
        pokeByte(f.entry(), off, static_cast<char>(original[off] ^ 0x5a));
        CacheLookup lookup = CacheLookup::Hit;
        auto r = f.cache.read(f.source.string(), 0, &lookup);
        if (r.ok()) {
            // Only padding may change unnoticed: the data read back must still be the original.
            ++accepted;
            expectSame(want, **r);
        } else {
            ++rejected;
            EXPECT_TRUE(lookup == CacheLookup::Corrupt || lookup == CacheLookup::Foreign ||
                        lookup == CacheLookup::Stale)
                << "offset " << off << ": " << toString(lookup);
        }
        pokeByte(f.entry(), off, original[off]);
        if (::testing::Test::HasFailure()) {
            ADD_FAILURE() << "first failure at offset " << off;
            return;
        }
    }
    EXPECT_GT(rejected, accepted);  // the file is mostly data, all of it checked
    ASSERT_TRUE(f.cache.read(f.source.string()).ok());  // restored
}

}  // namespace

TEST(LoadCache, EveryCorruptedByteIsCaughtOrHarmless) {
    Fixture f;
    f.cache.setVerifyData(true);
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    expectEveryCorruptionCaughtOrHarmless(f, f.rank);
}

// writeGroup in two halves (source_cache.cpp: the raw columns written while the ranks merge): the entry reads back
// as the rank is at finish, a column changed between begin and finish included (written again), and stands
// every corrupted byte like a plain write's; its layout differs (directory after the header, metadata last).
TEST(LoadCacheConcurrency, AGroupWriteBegunBeforeTheMergeGivesTheRankAsFinished) {
    Fixture f;
    f.cache.setVerifyData(true);
    auto stamps = LoadCache::stampGroup({f.source.string()});
    ASSERT_TRUE(stamps.ok());
    const std::vector<const RankData*> ranks{&f.rank};
    auto w = f.cache.beginGroupWrite(*stamps, ranks);
    ASSERT_TRUE(w);
    // What a merge does meanwhile: intern strings (the pool is written at finish).
    f.rank.strings.intern("interned by the merge");
    // A raw column changed once the thread has written it (outside the contract, which a future merge might break):
    // finish hashes it again and writes it again.
    LoadCache::waitGroupWrite(*w);
    auto& ts = f.rank.gpu.ts.mut();
    ASSERT_GT(ts.size(), 5u);
    ts[5] = 123456789;
    ASSERT_TRUE(f.cache.finishGroupWrite(std::move(w), *stamps, ranks, 7).ok());
    auto back = f.cache.readGroup(*stamps, 7);
    ASSERT_TRUE(back.ok()) << back.error().toString();
    ASSERT_EQ(back->size(), 1u);
    expectSame(f.rank, *back->front());
    EXPECT_EQ(back->front()->gpu.ts[5], 123456789);
    EXPECT_TRUE(back->front()->strings.find("interned by the merge").has_value());
    // Nothing but the entry is left in the cache directory.
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(f.cache.dir())) files += e.is_regular_file() ? 1 : 0;
    EXPECT_EQ(files, 1u);
    expectEveryCorruptionCaughtOrHarmless(f, f.rank);
}

TEST(LoadCacheConcurrency, AGroupWriteDroppedBeforeFinishLeavesNothing) {
    Fixture f;
    auto stamps = LoadCache::stampGroup({f.source.string()});
    ASSERT_TRUE(stamps.ok());
    auto w = f.cache.beginGroupWrite(*stamps, {&f.rank});
    ASSERT_TRUE(w);
    w.reset();  // a cancelled load, a merge that failed
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(f.cache.dir())) files += e.is_regular_file() ? 1 : 0;
    EXPECT_EQ(files, 0u);
    EXPECT_FALSE(f.cache.read(f.source.string()).ok());
}

TEST(LoadCache, WithoutDataVerificationStructureIsStillChecked) {
    Fixture f;
    f.cache.setVerifyData(false);
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    const std::string original = readAll(f.entry());
    std::mt19937_64 rng(12345);
    // Random multi-byte garbage anywhere: never a crash (ASan/UBSan watch this), and any accepted read has
    // in-range string views and the directory's counts.
    for (int round = 0; round < 400; ++round) {
        std::string bytes = original;
        const int n = 1 + static_cast<int>(rng() % 8);
        for (int k = 0; k < n; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
        writeFile(f.entry(), bytes);
        auto r = f.cache.read(f.source.string());
        if (r.ok()) {
            EXPECT_EQ((*r)->slices.size(), 1000u);
            EXPECT_EQ((*r)->strings.size(), f.rank.strings.size());
            for (StrId i = 0; i < (*r)->strings.size(); ++i)
                ASSERT_EQ((*r)->strings.view(i).size(), f.rank.strings.view(i).size());
        }
    }
    // A corrupted directory or string offset is caught even without data verification.
    std::string bytes = original;
    bytes[400] ^= 1;  // inside the metadata (starts at 256)
    writeFile(f.entry(), bytes);
    EXPECT_FALSE(f.cache.read(f.source.string()).ok());
}

TEST(LoadCache, TruncatedOrExtendedFilesAreCorrupt) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    const std::string original = readAll(f.entry());
    std::vector<size_t> lengths = {0, 1, 7, 8, 9, 255, 256, 257, original.size() - 1};
    for (size_t n = 300; n < original.size(); n += 997) lengths.push_back(n);
    for (size_t n : lengths) {
        writeFile(f.entry(), original.substr(0, n));
        CacheLookup lookup = CacheLookup::Hit;
        auto r = f.cache.read(f.source.string(), 0, &lookup);
        ASSERT_FALSE(r.ok()) << "length " << n;
        EXPECT_EQ(lookup, CacheLookup::Corrupt) << "length " << n << ": " << r.error().toString();
    }
    writeFile(f.entry(), original + std::string(64, '\0'));
    CacheLookup lookup = CacheLookup::Hit;
    EXPECT_FALSE(f.cache.read(f.source.string(), 0, &lookup).ok());
    EXPECT_EQ(lookup, CacheLookup::Corrupt);
}

namespace {
// White-box: the layout constants of load_cache.cpp (header 256 bytes; dirOffset at 80, dirCount at 88,
// dirChecksum at 96, headerChecksum at 248; directory entries of 80 bytes with a 48-byte name, then
// elemSize). Rewrites the directory entry of `column` and fixes the checksums so that only the column set differs.
template <class Edit>
std::string editEntry(std::string bytes, std::string_view column, Edit&& edit) {
    uint64_t dirOffset, dirCount;
    std::memcpy(&dirOffset, bytes.data() + 80, 8);
    std::memcpy(&dirCount, bytes.data() + 88, 8);
    for (uint64_t i = 0; i < dirCount; ++i) {
        char* e = bytes.data() + dirOffset + i * 80;
        if (std::string_view(e) == column) edit(e);
    }
    const uint64_t dirSum = LoadCache::checksum(bytes.data() + dirOffset, dirCount * 80);
    std::memcpy(bytes.data() + 96, &dirSum, 8);
    const uint64_t headSum = LoadCache::checksum(bytes.data(), 248);
    std::memcpy(bytes.data() + 248, &headSum, 8);
    return bytes;
}
// A directory entry's element count (at byte 56 of the entry).
uint64_t entryCount(const char* e) {
    uint64_t count;
    std::memcpy(&count, e + 56, 8);
    return count;
}
void setEntryCount(char* e, uint64_t count) { std::memcpy(e + 56, &count, 8); }
}  // namespace

namespace {
// White-box: the data offset of a named column (see editEntry for the layout).
uint64_t columnOffset(const std::string& bytes, std::string_view name) {
    uint64_t dirOffset, dirCount;
    std::memcpy(&dirOffset, bytes.data() + 80, 8);
    std::memcpy(&dirCount, bytes.data() + 88, 8);
    for (uint64_t i = 0; i < dirCount; ++i) {
        const char* e = bytes.data() + dirOffset + i * 80;
        if (std::string_view(e) == name) {
            uint64_t off;
            std::memcpy(&off, e + 64, 8);
            return off;
        }
    }
    return 0;
}
}  // namespace

TEST(LoadCache, DataVerificationCatchesAFlippedColumnBit) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    std::string bytes = readAll(f.entry());
    const uint64_t off = columnOffset(bytes, "gpu.dur");
    ASSERT_GT(off, 0u);
    bytes[off + 8 * 100 + 1] ^= 0x10;  // row 100 of gpu.dur
    writeFile(f.entry(), bytes);

    f.cache.setVerifyData(true);
    CacheLookup lookup = CacheLookup::Hit;
    auto checked = f.cache.read(f.source.string(), 0, &lookup);
    ASSERT_FALSE(checked.ok());
    EXPECT_EQ(lookup, CacheLookup::Corrupt);
    EXPECT_NE(checked.error().message.find("gpu.dur"), std::string::npos);

    // Documented trade-off: without it the structure is sound and only that value differs.
    f.cache.setVerifyData(false);
    auto unchecked = f.cache.read(f.source.string());
    ASSERT_TRUE(unchecked.ok()) << unchecked.error().toString();
    EXPECT_NE((*unchecked)->gpu.dur[100], f.rank.gpu.dur[100]);
    EXPECT_EQ((*unchecked)->gpu.dur[99], f.rank.gpu.dur[99]);
}

TEST(LoadCache, AdoptedStringsAreFoundFromManyThreads) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    auto back = f.cache.read(f.source.string());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    std::shared_ptr<const RankData> r = std::move(back.value());
    // The lookup index of an adopted pool is built on first use; concurrent first uses must agree (TSan).
    std::vector<std::thread> threads;
    std::atomic<int> found{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = t; i < 300; i += 4)
                if (r->strings.find("name_" + std::to_string(i)) == f.rank.strings.find("name_" + std::to_string(i)))
                    found.fetch_add(1);
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(found.load(), 300);
    EXPECT_FALSE(r->strings.find("name_300").has_value());
}

TEST(LoadCache, ADifferentColumnSetIsStale) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    const std::string original = readAll(f.entry());
    CacheLookup lookup = CacheLookup::Hit;

    // A column this build does not know (renamed gpu.stream → gpu.streaX): written by another build.
    writeFile(f.entry(), editEntry(original, "gpu.stream", [](char* e) { e[9] = 'X'; }));
    auto renamed = f.cache.read(f.source.string(), 0, &lookup);
    ASSERT_FALSE(renamed.ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);
    EXPECT_NE(renamed.error().message.find("gpu.stream"), std::string::npos);

    // Same column, another element size.
    writeFile(f.entry(), editEntry(original, "flows.track", [](char* e) {
                  const uint32_t size = 8;
                  std::memcpy(e + 48, &size, 4);
                  setEntryCount(e, entryCount(e) / 2);
              }));
    auto resized = f.cache.read(f.source.string(), 0, &lookup);
    ASSERT_FALSE(resized.ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);
    EXPECT_NE(resized.error().message.find("flows.track"), std::string::npos);

    // A count that runs past the end of the file, with valid checksums: caught by the range check.
    writeFile(f.entry(), editEntry(original, "slices.ts", [](char* e) { setEntryCount(e, uint64_t{1} << 60); }));
    EXPECT_FALSE(f.cache.read(f.source.string(), 0, &lookup).ok());
    EXPECT_EQ(lookup, CacheLookup::Corrupt);
}

TEST(LoadCache, WriteFailureIsAnErrorNotACrash) {
    Fixture f;
    // A regular file where the cache directory should be: creating the directory fails, even as root.
    const fs::path blocker = f.tmp.path() / "blocker";
    writeFile(blocker, "x");
    LoadCache blocked(blocker / "cache");
    Status s = blocked.write(f.source.string(), f.rank);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().toString().find("blocker"), std::string::npos);
    EXPECT_FALSE(blocked.read(f.source.string()).ok());

    // A source that does not exist cannot be stamped.
    EXPECT_FALSE(f.cache.write((f.tmp.path() / "absent.json").string(), f.rank).ok());

    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    EXPECT_TRUE(f.cache.read(f.source.string()).ok());
}

TEST(LoadCache, ChecksumSeesEveryByteAndPiecesMatter) {
    std::string a(1000, 'a');
    const uint64_t base = LoadCache::checksum(a.data(), a.size());
    for (size_t i = 0; i < a.size(); i += 37) {
        std::string b = a;
        b[i] = 'b';
        EXPECT_NE(LoadCache::checksum(b.data(), b.size()), base) << i;
    }
    EXPECT_NE(LoadCache::checksum(a.data(), 999), base);
    EXPECT_NE(LoadCache::checksum(a.data(), a.size(), 1), base);
}

// A file whose checksums all match (LoadCache::reseal) but whose contents would send a reader out of bounds:
// validateRankData refuses it, naming the column and row.
TEST(LoadCache, MatchingChecksumsDoNotMakeBadReferencesAcceptable) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    const std::string original = readAll(f.entry());
    {
        std::string same = original;
        EXPECT_TRUE(LoadCache::reseal(same));
        EXPECT_EQ(same, original);  // resealing an intact file changes nothing
    }
    auto expectCorrupt = [&](std::string bytes, const std::string& needle) {
        expectResealedCorrupt(f, std::move(bytes), needle);
    };
    auto poke32 = [&](const char* column, size_t row, int32_t value) {
        std::string bytes = original;
        const uint64_t off = columnOffset(bytes, column);
        EXPECT_GT(off, 0u) << column;
        std::memcpy(bytes.data() + off + 4 * row, &value, 4);
        return bytes;
    };
    const auto slices = static_cast<int32_t>(f.rank.slices.size());
    expectCorrupt(poke32("gpu.runtime", 10, slices + 5), "gpu.runtime row 10");
    expectCorrupt(poke32("gpu.cpuOp", 11, -2), "gpu.cpuOp row 11");
    expectCorrupt(poke32("slices.parent", 12, slices), "slices.parent row 12");
    expectCorrupt(poke32("slices.track", 13, 3), "slices.track row 13");  // 3 tracks: 0..2
    expectCorrupt(poke32("gpu.name", 14, static_cast<int32_t>(f.rank.strings.size())), "gpu.name row 14");
    {
        std::string bytes = original;
        const uint64_t off = columnOffset(bytes, "gpu.category");
        bytes[off + 7] = static_cast<char>(KernelCategory::Count);
        expectCorrupt(bytes, "gpu.category row 7");
    }
    {
        std::string bytes = original;
        const int64_t negative = -5;
        std::memcpy(bytes.data() + columnOffset(bytes, "gpu.dur") + 8 * 3, &negative, 8);
        expectCorrupt(bytes, "gpu row 3");
    }
    // One column shorter than its table.
    expectCorrupt(editEntry(original, "gpu.dur", [](char* e) { setEntryCount(e, entryCount(e) - 1); }),
                  "gpu.dur has 776 rows, the table has 777");
    // Restored: reads again.
    writeFile(f.entry(), original);
    EXPECT_TRUE(f.cache.read(f.source.string()).ok());
}

// Steps are the merge's ProfilerStep intervals; analyses subtract their starts from their ends unchecked (the
// load_cache fuzzer found a signed overflow in the steady-step window from one). An entry whose step ends before it
// starts, or lies outside the times a loader accepts, is corrupt.
TEST(LoadCache, StepsThatAreNotIntervalsAreCorrupt) {
    Fixture f;
    for (int64_t i = 0; i < 4; ++i) {
        f.rank.steps.number.push_back(i + 1);
        f.rank.steps.start.push_back(1000 * i);
        f.rank.steps.end.push_back(1000 * i + 900);
        f.rank.steps.slice.push_back(-1);
    }
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    const std::string original = readAll(f.entry());
    ASSERT_TRUE(f.cache.read(f.source.string()).ok());
    auto expectCorrupt = [&](const char* column, size_t row, int64_t value, const std::string& needle) {
        std::string bytes = original;
        const uint64_t off = columnOffset(bytes, column);
        ASSERT_GT(off, 0u) << column;
        std::memcpy(bytes.data() + off + 8 * row, &value, 8);
        expectResealedCorrupt(f, std::move(bytes), needle);
    };
    expectCorrupt("steps.end", 2, 1999, "steps row 2: start 2000 ns, end 1999 ns");  // ends before it starts
    expectCorrupt("steps.start", 1, INT64_MIN, "steps row 1");                       // before -2^62
    expectCorrupt("steps.end", 3, INT64_MAX, "steps row 3");                          // after 2^62
    expectCorrupt("steps.end", 0, (int64_t{1} << 46) + 1, "steps row 0");           // longer than 2^46 ns
    // The longest step a loader can produce still reads.
    {
        std::string bytes = original;
        const int64_t longest = int64_t{1} << 46;
        std::memcpy(bytes.data() + columnOffset(bytes, "steps.end"), &longest, 8);
        LoadCache::reseal(bytes);
        writeFile(f.entry(), bytes);
        auto r = f.cache.read(f.source.string());
        ASSERT_TRUE(r.ok()) << r.error().toString();
        EXPECT_EQ((*r)->steps.end[0], longest);
    }
}

TEST(LoadCache, ReadFileOpensAnEntryWithoutItsSource) {
    Fixture f;
    ASSERT_TRUE(f.cache.write(f.source.string(), f.rank).ok());
    fs::remove(f.source);  // the trace is gone; the entry still reads by its own path
    EXPECT_FALSE(f.cache.read(f.source.string()).ok());
    CacheLookup lookup = CacheLookup::Missing;
    auto r = f.cache.readFile(f.entry(), nullptr, 0, &lookup);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(lookup, CacheLookup::Hit);
    EXPECT_EQ((*r)->path, fs::absolute(f.source).string());
    expectSame(f.rank, **r);
}
