// The load cache for every format (core/engine/source_cache.h): each real source in tests/data, copied to a temp
// directory, is parsed on its first open, mapped from the cache on its second (LoadStats::fromCache, and the same
// dataset: every column's bytes, every string, the counts and sums), parsed again after one of its files changes,
// and a corrupt entry is made again with a warning. Multi-rank groups are cached and read back as a whole.

#include "core/engine/source_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/engine/load_cache.h"
#include "core/engine/run_loader.h"
#include "core/formats/source_detect.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe::core;
namespace fs = std::filesystem;

namespace {

struct SourceCacheTempDir : strobe::test::TempDir {
    SourceCacheTempDir() : strobe::test::TempDir("strobe-source-cache-test") {}
};

fs::path testData(const std::string& rel) { return fs::path(std::string(STROBE_TEST_DATA_DIR)) / rel; }

// What must be equal between a parsed and a mapped rank: every table's row count, a checksum over every column's
// bytes and over the strings the columns name, sums of the times and values, and the metadata a user sees.
struct SourceCacheFacts {
    std::string format, path, toolVersion, clockAnchor;
    bool anchored = false;
    int64_t toRealtimeNs = 0;
    size_t devices = 0, alsoPresent = 0, diagnostics = 0;
    std::vector<size_t> rows;
    uint64_t columnsHash = 0, namesHash = 0;
    int64_t gpuDurSum = 0, sliceDurSum = 0;
    double sampleSum = 0, counterSum = 0;
    size_t kernels = 0;

    bool operator==(const SourceCacheFacts&) const = default;
};

std::ostream& operator<<(std::ostream& os, const SourceCacheFacts& f) {
    os << f.format << " " << f.path << " rows[";
    for (size_t r : f.rows) os << r << ",";
    return os << "] cols " << f.columnsHash << " names " << f.namesHash << " gpuDur " << f.gpuDurSum << " sliceDur "
              << f.sliceDurSum << " samples " << f.sampleSum << " counters " << f.counterSum << " kernels " << f.kernels
              << " diags " << f.diagnostics << " anchor '" << f.clockAnchor << "'";
}

SourceCacheFacts factsOfRank(const RankData& cr) {
    RankData& r = const_cast<RankData&>(cr);  // the visitors are non-const; nothing is changed
    SourceCacheFacts f;
    f.format = r.info.format;
    f.path = r.path;
    f.toolVersion = r.info.toolVersion;
    f.clockAnchor = r.info.clock.anchor;
    f.anchored = r.info.clock.anchored;
    f.toRealtimeNs = r.info.clock.toRealtimeNs;
    f.devices = r.info.devices.size();
    f.alsoPresent = r.info.alsoPresent.size();
    f.diagnostics = r.diagnostics.size();
    uint64_t h = 0;
    r.visitTables([&](const char*, auto& t) {
        f.rows.push_back(t.size());
        t.visitColumns([&](const char*, auto& col) {
            using T = typename std::remove_reference_t<decltype(col)>::value_type;
            h = LoadCache::checksum(col.data(), col.size() * sizeof(T), h);
        });
    });
    f.rows.push_back(r.tracks.size());
    f.columnsHash = h;
    uint64_t n = 0;
    for (size_t i = 0; i < r.gpu.size(); ++i) {
        const std::string_view s = r.strings.view(r.gpu.name[i]);
        n = LoadCache::checksum(s.data(), s.size(), n);
        f.gpuDurSum += r.gpu.dur[i];
        f.kernels += r.gpu.kind[i] == EventKind::Kernel ? 1 : 0;
    }
    for (size_t i = 0; i < r.slices.size(); ++i) {
        const std::string_view s = r.strings.view(r.slices.name[i]);
        n = LoadCache::checksum(s.data(), s.size(), n);
        f.sliceDurSum += r.slices.dur[i];
    }
    for (size_t i = 0; i < r.samples.size(); ++i) {
        const std::string_view s = r.strings.view(r.samples.metric[i]);
        n = LoadCache::checksum(s.data(), s.size(), n);
        f.sampleSum += r.samples.value[i];
    }
    for (size_t i = 0; i < r.kernelCounters.size(); ++i) f.counterSum += r.kernelCounters.value[i];
    f.namesHash = n;
    return f;
}

std::vector<SourceCacheFacts> factsOf(const Dataset& ds) {
    std::vector<SourceCacheFacts> out;
    for (const RankData* r : ds.allSources()) out.push_back(factsOfRank(*r));  // ranks, then host telemetry
    return out;
}

size_t ranksFromCache(const Dataset& ds) {
    size_t n = 0;
    for (const RankData* r : ds.allSources()) n += r->stats.fromCache ? 1 : 0;
    return n;
}

size_t kernelsOf(const Dataset& ds) {
    size_t n = 0;
    for (const auto& f : factsOf(ds)) n += f.kernels;
    return n;
}

// One real source: files copied (relative to tests/data) into the temp directory, the path opened, the file whose
// change must make the entry stale, and the number of kernels the source holds (an independent count).
struct SourceCacheCase {
    const char* name;
    const char* format;  // the registry id the ranks carry
    std::vector<std::string> copy;
    std::string open;
    std::string change;
    size_t kernels;  // SIZE_MAX: a source without kernels (telemetry)
};

const std::vector<SourceCacheCase>& sourceCacheCases() {
    static const std::vector<SourceCacheCase> cases = {
        // The 12 CSV files of one rocprofv3 prefix are one group; a change to the counters (not the primary file)
        // must be seen. 9 kernels: /usr/bin/python3 -c "import csv;
        //   print(len(list(csv.DictReader(open('tests/data/rocprof/docs-2025/kernel_trace.csv')))))"
        {"rocprofv3_csv", "rocprofv3-csv", {"rocprof/docs-2025"}, "docs-2025/kernel_trace.csv", "docs-2025/counter_collection.csv", 9},
        // 43,915 kernels: /usr/bin/python3 -c "import json,gzip; d=json.load(gzip.open(
        //   'tests/data/rocprof/tracelens_908_results.json.gz'))['rocprofiler-sdk-tool'];
        //   print(len(d[0]['buffer_records']['kernel_dispatch']))"
        {"rocprofv3_json", "rocprofv3-json", {"rocprof/tracelens_908_results.json.gz"}, "tracelens_908_results.json.gz",
         "tracelens_908_results.json.gz", 43915},
        // 6: /usr/bin/python3 -c "import sqlite3; print(sqlite3.connect('tests/data/sqlite/rocpd_doc_sample.db')
        //   .execute('select count(*) from rocpd_kernel_dispatch').fetchone())"
        {"rocpd", "rocpd", {"sqlite/rocpd_doc_sample.db"}, "rocpd_doc_sample.db", "rocpd_doc_sample.db", 6},
        // 29: sqlite3 rpd_matmul.rpd "select count(*) from rocpd_op o join rocpd_string s on o.opType_id = s.id
        //   where s.string = 'KernelExecution'"
        {"rpd", "rpd", {"sqlite/rpd_matmul.rpd"}, "rpd_matmul.rpd", "rpd_matmul.rpd", 29},
        // 19: sqlite3 nsys_fuser_h200.sqlite "select count(*) from CUPTI_ACTIVITY_KIND_KERNEL"
        {"nsys_sqlite", "nsys-sqlite", {"sqlite/nsys_fuser_h200.sqlite"}, "nsys_fuser_h200.sqlite", "nsys_fuser_h200.sqlite", 19},
        {"ncu_csv", "ncu-csv", {"cuda/ncu/ncu.csv"}, "ncu.csv", "ncu.csv", SIZE_MAX},
        {"nvidia_smi_csv", "nvidia-smi-csv", {"telemetry/nvidia-smi/h100_query-gpu_load.csv"}, "h100_query-gpu_load.csv",
         "h100_query-gpu_load.csv", SIZE_MAX},
        {"rocm_smi_concise", "rocm-smi-concise", {"telemetry/amd/rocm-smi_concise_4gpu.txt"}, "rocm-smi_concise_4gpu.txt",
         "rocm-smi_concise_4gpu.txt", SIZE_MAX},
        {"strobe_sampler_csv", "strobe-sampler-csv", {"telemetry/strobe/cpu_sampler_2core.csv"}, "cpu_sampler_2core.csv", "cpu_sampler_2core.csv",
         SIZE_MAX},
        // A directory source: a rocprof v1 `.xr` run (results.csv/db/json, one read): a change to any file in it
        // counts.
        {"rocprof_v1_xr_directory", "rocprof-v1", {"rocprof/seismic_128x64.xr"}, "seismic_128x64.xr", "seismic_128x64.xr/results.stats.csv",
         SIZE_MAX},
        // Kineto, through its own path.
        {"kineto", "kineto", {"small/current_schema.json"}, "current_schema.json", "current_schema.json", SIZE_MAX},
    };
    return cases;
}

// gtest prints a parameter by its name, not its bytes.
void PrintTo(const SourceCacheCase& c, std::ostream* os) { *os << c.name; }

class SourceCache : public ::testing::TestWithParam<SourceCacheCase> {};

// Copies the case's files into `dir`, keeping the last component of each copied path.
void copyCase(const SourceCacheCase& c, const fs::path& dir) {
    fs::create_directories(dir);
    for (const std::string& rel : c.copy) {
        const fs::path from = testData(rel);
        const fs::path to = dir / from.filename();
        fs::copy(from, to, fs::copy_options::recursive);
        // tests/data may be read-only: the copies must be writable (the miss below touches them).
        fs::permissions(to, fs::perms::owner_write, fs::perm_options::add);
        if (fs::is_directory(to)) {
            for (auto it = fs::recursive_directory_iterator(to); it != fs::recursive_directory_iterator(); ++it)
                fs::permissions(it->path(), fs::perms::owner_write, fs::perm_options::add);
        }
    }
}

TEST_P(SourceCache, SecondOpenHitsAndAChangedFileMisses) {
    const SourceCacheCase& c = GetParam();
    SourceCacheTempDir t;
    const fs::path src = t.path() / "src";
    copyCase(c, src);
    ClassificationRules rules;
    RunLoadOptions opt;
    opt.cacheDir = t.path() / "cache";
    opt.rules = &rules;
    opt.threads = 1;
    const std::string open = (src / c.open).string();

    auto first = loadRun({open}, opt);
    ASSERT_TRUE(first.ok()) << first.error().toString();
    const Dataset& a = **first;
    const auto aSources = a.allSources();  // the ranks, or the host's telemetry (nvidia-smi, rocm-smi, the sampler)
    ASSERT_GE(aSources.size(), 1u);
    EXPECT_EQ(ranksFromCache(a), 0u);
    for (const auto& r : aSources) EXPECT_EQ(r->info.format, c.format);
    if (c.kernels != SIZE_MAX) {
        EXPECT_EQ(kernelsOf(a), c.kernels);
    }
    EXPECT_FALSE(fs::is_empty(opt.cacheDir)) << "no cache entry written";

    auto second = loadRun({open}, opt);
    ASSERT_TRUE(second.ok()) << second.error().toString();
    const Dataset& b = **second;
    const auto bSources = b.allSources();
    ASSERT_EQ(bSources.size(), aSources.size());
    EXPECT_EQ(ranksFromCache(b), bSources.size());
    EXPECT_EQ(factsOf(b), factsOf(a));
    for (size_t i = 0; i < aSources.size(); ++i) {
        EXPECT_EQ(bSources[i]->rank, aSources[i]->rank);
        EXPECT_EQ(bSources[i]->info.alsoPresent, aSources[i]->info.alsoPresent);
    }

    // A changed file (a later mtime; for the group, not its primary file) is read again.
    const fs::path changed = src / c.change;
    fs::last_write_time(changed, fs::last_write_time(changed) + std::chrono::seconds(5));
    auto third = loadRun({open}, opt);
    ASSERT_TRUE(third.ok()) << third.error().toString();
    EXPECT_EQ(ranksFromCache(**third), 0u);
    EXPECT_EQ(factsOf(**third), factsOf(a));

    // ... and cached again.
    auto fourth = loadRun({open}, opt);
    ASSERT_TRUE(fourth.ok()) << fourth.error().toString();
    EXPECT_EQ(ranksFromCache(**fourth), (*fourth)->allSources().size());
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, SourceCache, ::testing::ValuesIn(sourceCacheCases()),
                         [](const ::testing::TestParamInfo<SourceCacheCase>& i) { return std::string(i.param.name); });

// The cache entries of the nsys export in `cacheDir` (rank 0's file and any others).
std::vector<fs::path> sourceCacheEntries(const fs::path& cacheDir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(cacheDir))
        if (e.path().extension() == ".strobe-cache") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// A corrupt entry of a source of another format (through loadSourceCached) and of a Kineto file (the run loader's
// own path) alike.
class SourceCacheCorrupt : public ::testing::TestWithParam<const char*> {};

TEST_P(SourceCacheCorrupt, ACorruptEntryIsMadeAgainWithAWarning) {
    SourceCacheTempDir t;
    const fs::path from = testData(GetParam());
    const fs::path src = t.path() / from.filename();
    fs::copy_file(from, src);
    ClassificationRules rules;
    RunLoadOptions opt;
    opt.cacheDir = t.path() / "cache";
    opt.rules = &rules;
    auto first = loadRun({src.string()}, opt);
    ASSERT_TRUE(first.ok()) << first.error().toString();
    const auto entries = sourceCacheEntries(opt.cacheDir);
    ASSERT_EQ(entries.size(), 1u);

    // Flip a byte of the header (the recorded source mtime): the header checksum no longer matches.
    std::string image = strobe::test::readAll(entries[0]);
    ASSERT_GT(image.size(), 256u);
    image[40] = static_cast<char>(image[40] ^ 0x5a);
    strobe::test::writeFile(entries[0], image);

    auto second = loadRun({src.string()}, opt);
    ASSERT_TRUE(second.ok()) << second.error().toString();
    EXPECT_EQ(ranksFromCache(**second), 0u);
    EXPECT_EQ(factsOf(**second).front().rows, factsOf(**first).front().rows);
    bool warned = false;
    for (const auto& r : (*second)->ranks)
        for (const Diagnostic& d : r->diagnostics)
            if (d.severity == Severity::Warning && d.message.find("corrupt cache entry") != std::string::npos &&
                d.message.find("replaced by a new entry") != std::string::npos)
                warned = true;
    EXPECT_TRUE(warned);

    // Made again: the third open maps it, without the warning (it was about the old entry).
    auto third = loadRun({src.string()}, opt);
    ASSERT_TRUE(third.ok()) << third.error().toString();
    EXPECT_EQ(ranksFromCache(**third), 1u);
    for (const auto& r : (*third)->ranks)
        for (const Diagnostic& d : r->diagnostics) EXPECT_EQ(d.message.find("corrupt"), std::string::npos) << d.message;
    EXPECT_EQ(factsOf(**third), factsOf(**first));
}

INSTANTIATE_TEST_SUITE_P(RpdAndKineto, SourceCacheCorrupt,
                         ::testing::Values("sqlite/rpd_matmul.rpd", "small/current_schema.json"));

TEST(SourceCacheRun, OptionsThatChangeTheOutputAreInTheKey) {
    SourceCacheTempDir t;
    const fs::path csv = t.path() / "h100_query-gpu_load.csv";
    fs::copy_file(testData("telemetry/nvidia-smi/h100_query-gpu_load.csv"), csv);
    ClassificationRules rules;
    RunLoadOptions opt;
    opt.cacheDir = t.path() / "cache";
    opt.rules = &rules;
    auto plain = loadRun({csv.string()}, opt);
    ASSERT_TRUE(plain.ok());
    // nvidia-smi's local wall time is anchored by --clock-offset: another offset is another output.
    opt.sources.hasClockOffset = true;
    opt.sources.clockOffsetNs = 3'600'000'000'000LL;
    auto shifted = loadRun({csv.string()}, opt);
    ASSERT_TRUE(shifted.ok());
    EXPECT_EQ(ranksFromCache(**shifted), 0u);
    EXPECT_NE(factsOf(**shifted), factsOf(**plain));
    auto again = loadRun({csv.string()}, opt);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(ranksFromCache(**again), 1u);
    EXPECT_EQ(factsOf(**again), factsOf(**shifted));
    // Other classification rules: another key.
    ClassificationRules other;
    ClassificationRule rule;
    rule.name = "x";
    rule.pattern = "zz_no_such_kernel";
    ASSERT_TRUE(other.add(rule).ok());
    opt.rules = &other;
    auto otherRules = loadRun({csv.string()}, opt);
    ASSERT_TRUE(otherRules.ok());
    EXPECT_EQ(ranksFromCache(**otherRules), 0u);
    // The key itself: the format, the offset and the manifest clocks each change it.
    SourceGroup g{"nvidia-smi-csv", csv.string(), {csv.string()}, {}};
    SourceLoadOptions o;
    const uint64_t k0 = sourceOptionsKey(1, g, o);
    EXPECT_NE(k0, 0u);
    EXPECT_NE(sourceOptionsKey(2, g, o), k0);
    SourceGroup g2 = g;
    g2.format = "amd-smi-csv";
    EXPECT_NE(sourceOptionsKey(1, g2, o), k0);
    SourceLoadOptions m = o;
    m.manifest = ClockAnchor{1, 2, 3, std::nullopt, "/run/manifest.yaml"};
    const uint64_t km = sourceOptionsKey(1, g, m);
    EXPECT_NE(km, k0);
    m.manifest->utcOffsetSeconds = 3600;
    EXPECT_NE(sourceOptionsKey(1, g, m), km);
}

// A group of several ranks (one per process) through loadSourceCached: the real nsys export parsed once and given
// as three processes' ranks, each with its own path.
struct ThreeRankSource {
    SourceCacheTempDir t;
    fs::path a = t.path() / "proc_a.sqlite", b = t.path() / "proc_b.sqlite", c = t.path() / "proc_c.sqlite";
    SourceGroup group;
    ClassificationRules rules;
    LoadCache cache{t.path() / "cache"};
    int parses = 0;
    size_t rankCount = 3;

    ThreeRankSource() {
        for (const fs::path& p : {a, b, c}) fs::copy_file(testData("sqlite/nsys_fuser_h200.sqlite"), p);
        group.format = "nsys-sqlite";
        group.path = t.path().string();
        group.files = {a.string(), b.string(), c.string()};
    }
    Result<SourceLoad> load() {
        return loadSourceCached(group, {}, rules, 7, &cache, {}, [&]() -> Result<std::vector<std::unique_ptr<RankData>>> {
            ++parses;
            std::vector<std::unique_ptr<RankData>> out;
            for (size_t k = 0; k < rankCount; ++k) {
                SourceGroup one{"nsys-sqlite", group.files[k], {group.files[k]}, {}};
                auto r = findSourceFormat("nsys-sqlite")->load(one, {}, {});
                if (!r) return r.error();
                for (auto& x : r.value()) out.push_back(std::move(x));
            }
            return out;
        });
    }
};

TEST(SourceCacheGroup, SeveralRanksAreCachedAndReadBackAsAWhole) {
    ThreeRankSource s;
    auto first = s.load();
    ASSERT_TRUE(first.ok()) << first.error().toString();
    ASSERT_EQ(first->ranks.size(), 3u);
    EXPECT_EQ(first->lookup, CacheLookup::Missing);
    EXPECT_FALSE(first->cacheWriteError.has_value());
    EXPECT_EQ(sourceCacheEntries(s.cache.dir()).size(), 3u);

    auto second = s.load();
    ASSERT_TRUE(second.ok()) << second.error().toString();
    EXPECT_EQ(s.parses, 1);
    EXPECT_EQ(second->lookup, CacheLookup::Hit);
    ASSERT_EQ(second->ranks.size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
        EXPECT_TRUE(second->ranks[k]->stats.fromCache);
        EXPECT_EQ(second->ranks[k]->path, s.group.files[k]);  // each rank's own file, named as given
        EXPECT_EQ(factsOfRank(*second->ranks[k]), factsOfRank(*first->ranks[k]));
    }

    // The third file changes: the whole group is read again.
    fs::last_write_time(s.c, fs::last_write_time(s.c) + std::chrono::seconds(3));
    auto third = s.load();
    ASSERT_TRUE(third.ok());
    EXPECT_EQ(s.parses, 2);
    EXPECT_EQ(third->lookup, CacheLookup::Stale);

    // A later write of fewer ranks leaves no entry of the ranks it no longer has.
    fs::last_write_time(s.c, fs::last_write_time(s.c) + std::chrono::seconds(3));
    s.rankCount = 2;
    auto fewer = s.load();
    ASSERT_TRUE(fewer.ok());
    EXPECT_EQ(fewer->ranks.size(), 2u);
    EXPECT_EQ(sourceCacheEntries(s.cache.dir()).size(), 2u);
    auto fewerAgain = s.load();
    ASSERT_TRUE(fewerAgain.ok());
    EXPECT_EQ(fewerAgain->lookup, CacheLookup::Hit);
    EXPECT_EQ(fewerAgain->ranks.size(), 2u);
}

TEST(SourceCacheGroup, AMissingRankEntryOrAMixOfTwoWritesIsStale) {
    ThreeRankSource s;
    ASSERT_TRUE(s.load().ok());
    auto stamps = LoadCache::stampGroup(s.group.files);
    ASSERT_TRUE(stamps.ok());
    const fs::path rank1 = s.cache.entryFor(s.a.string(), 1);
    ASSERT_TRUE(fs::exists(rank1));
    const std::string saved = strobe::test::readAll(rank1);

    // Rank 1's entry gone: not a hit (and the rest is not returned alone).
    fs::remove(rank1);
    CacheLookup lookup{};
    auto r = s.cache.readGroup(*stamps, 0, &lookup);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);

    // A second write of the same group; rank 1's entry of the first write put back beside the others of the
    // second: its write id differs.
    auto again = s.load();
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->lookup, CacheLookup::Stale);
    strobe::test::writeFile(rank1, saved);
    r = s.cache.readGroup(*stamps, 0, &lookup);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);
    EXPECT_NE(r.error().message.find("does not belong"), std::string::npos) << r.error().toString();

    // A group's entry is never a single file's (Kineto's read of the primary alone): another set of files.
    auto single = s.cache.read(s.a.string(), 0, &lookup);
    EXPECT_FALSE(single.ok());
    EXPECT_EQ(lookup, CacheLookup::Stale);
}

TEST(SourceCacheGroup, WithoutACacheTheSourceIsParsedAndFinished) {
    SourceCacheTempDir t;
    const fs::path db = t.path() / "rocpd_doc_sample.db";
    fs::copy_file(testData("sqlite/rocpd_doc_sample.db"), db);
    auto groups = detectSources({db.string()});
    ASSERT_TRUE(groups.ok());
    ASSERT_EQ(groups->size(), 1u);
    ClassificationRules rules;
    auto r = loadSourceCached((*groups)[0], {}, rules, 1, nullptr, {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->ranks.size(), 1u);
    EXPECT_EQ(r->ranks[0]->info.format, "rocpd");
    EXPECT_FALSE(r->ranks[0]->stats.fromCache);
    EXPECT_EQ(r->lookup, CacheLookup::Missing);
    EXPECT_EQ(factsOfRank(*r->ranks[0]).kernels, 6u);  // see the rocpd case above
    EXPECT_FALSE(fs::exists(t.path() / "cache"));
}

}  // namespace
