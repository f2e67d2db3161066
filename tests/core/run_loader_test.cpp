// The run loader: directory expansion (natural order, one level down, link loops), ranks from file names,
// run-level diagnostics (duplicate/missing ranks, mixed world sizes, failed files), callbacks, cancellation,
// and the end-to-end load of the bundled 8-rank DLRM sample through the load cache.

#include "core/engine/run_loader.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <stdlib.h>

#include "core/engine/load_cache.h"
#include "core/formats/kineto_json.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe::core;
namespace fs = std::filesystem;

namespace {

using strobe::test::writeFile;

// A fresh directory per test, removed when it ends.
struct RunLoaderTempDir : strobe::test::TempDir {
    RunLoaderTempDir() : strobe::test::TempDir("strobe-run-test") {}
};

std::vector<std::string> fileNames(const std::vector<std::string>& paths) {
    std::vector<std::string> out;
    for (const auto& p : paths) out.push_back(fs::path(p).filename().string());
    return out;
}

bool anyDiagnosticHas(const Dataset& ds, const std::vector<std::string>& needles) {
    for (const Diagnostic& d : ds.diagnostics) {
        const std::string text = d.toString();
        bool all = true;
        for (const auto& n : needles) all = all && text.find(n) != std::string::npos;
        if (all) return true;
    }
    return false;
}

std::string allDiagnostics(const Dataset& ds) {
    std::string s;
    for (const Diagnostic& d : ds.diagnostics) s += d.toString() + "\n";
    return s;
}

// A small rank as a loader would produce it, for seeding the cache (the run loader then never parses).
RankData smallRank(const std::string& name, bool distributed, int rank, int world) {
    RankData r;
    r.info.traceName = name;
    r.info.distributed.present = distributed;
    r.info.distributed.rank = rank;
    r.info.distributed.worldSize = world;
    r.strings.intern("kernel_" + name);
    r.tracks = std::vector<Track>{Track{}};
    r.gpu.ts = std::vector<TimeNs>{100, 200};
    r.gpu.dur = std::vector<TimeNs>{10, 20};
    // Every other GPU column present (as after a merge; the cache refuses a table with missing columns), no
    // CPU-side links.
    r.gpu.visitColumns([](const char*, auto& col) { col.resize(2); });
    for (auto* link : {&r.gpu.runtime, &r.gpu.cpuOp, &r.gpu.step, &r.gpu.annotation})
        *link = std::vector<int32_t>{-1, -1};
    r.gpu.byTrack = std::vector<uint32_t>{0, 1};
    r.stats.events = 2;
    return r;
}

// A run directory whose files all have cache entries: loadRun gets every rank from the cache.
struct SeededRun {
    RunLoaderTempDir tmp;
    fs::path run = tmp.path() / "run";
    fs::path cacheDir = tmp.path() / "cache";
    ClassificationRules rules;  // empty rules: the key only has to match what loadRun computes
    RunLoadOptions options;

    SeededRun() {
        fs::create_directories(run);
        options.cacheDir = cacheDir;
        options.rules = &rules;
    }
    void add(const std::string& fileName, const RankData& r) {
        const fs::path p = run / fileName;
        writeFile(p, "{\"traceEvents\": []} " + fileName);
        LoadCache cache(cacheDir);
        ASSERT_TRUE(cache.write(p.string(), r, cacheOptionsKey(rules)).ok());
    }
};

}  // namespace

TEST(RunLoader, RankFromFileName) {
    EXPECT_EQ(rankFromFileName("rank-3.json"), 3);
    EXPECT_EQ(rankFromFileName("rank3.json"), 3);
    EXPECT_EQ(rankFromFileName("trace_rank_3.json.gz"), 3);
    EXPECT_EQ(rankFromFileName("RANK_12.pt.trace.json"), 12);
    EXPECT_EQ(rankFromFileName("Worker3.json"), 3);
    EXPECT_EQ(rankFromFileName("worker3_step_12.1694128201545.pt.trace.json"), 3);
    EXPECT_EQ(rankFromFileName("/data/rank7/worker10_step_2.json"), 10);  // the file name, not the directory
    EXPECT_EQ(rankFromFileName("rank_007.json"), 7);
    EXPECT_EQ(rankFromFileName("/data/rank7/trace.json"), -1);
    EXPECT_EQ(rankFromFileName("trace.json"), -1);
    EXPECT_EQ(rankFromFileName("ranking.json"), -1);
    EXPECT_EQ(rankFromFileName("rank.json"), -1);
    EXPECT_EQ(rankFromFileName("rank-x-rank-4.json"), 4);
    EXPECT_EQ(rankFromFileName("rank99999999999.json"), -1);  // not a plausible rank, no overflow
    EXPECT_EQ(rankFromFileName(""), -1);
}

TEST(RunLoader, DirectoryExpandsToItsTracesInNaturalOrder) {
    RunLoaderTempDir t;
    for (const char* n : {"rank10.json", "rank2.json", "rank1.json.gz", "Rank3.pt.trace.json", "notes.txt",
                          ".hidden.json", "rank4.json.bak"})
        writeFile(t.path() / n, "{}");
    fs::create_directories(t.path() / "sub.json");  // a directory named like a trace is not one
    writeFile(t.path() / "sub" / "rank0.json", "{}");  // not looked at: the top level has traces
    auto r = expandRunPaths({t.path().string()});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(fileNames(*r),
              (std::vector<std::string>{"rank1.json.gz", "rank2.json", "Rank3.pt.trace.json", "rank10.json"}));
    EXPECT_EQ(fs::path(r->front()).parent_path(), t.path());
}

TEST(RunLoader, ExplicitFilesKeepTheirOrderAndDuplicatesGoOnce) {
    RunLoaderTempDir t;
    writeFile(t.path() / "b.json", "{}");
    writeFile(t.path() / "a.json", "{}");
    writeFile(t.path() / "trace.txt", "{}");  // named explicitly: kept whatever its extension
    const std::string b = (t.path() / "b.json").string();
    const std::string a = (t.path() / "a.json").string();
    const std::string bAgain = (t.path() / "." / "b.json").string();
    auto r = expandRunPaths({b, (t.path() / "trace.txt").string(), a, bAgain});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(*r, (std::vector<std::string>{b, (t.path() / "trace.txt").string(), a}));
}

TEST(RunLoader, MissingPathsAndEmptyDirectoriesAreNamedErrors) {
    RunLoaderTempDir t;
    const std::string missing = (t.path() / "nope.json").string();
    auto m = expandRunPaths({missing});
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.error().toString().find("nope.json"), std::string::npos);

    fs::create_directories(t.path() / "empty" / "sub");
    writeFile(t.path() / "empty" / "readme.md", "x");
    writeFile(t.path() / "empty" / "sub" / "deeper" / "rank0.json", "{}");  // two levels down: not searched
    auto e = expandRunPaths({(t.path() / "empty").string()});
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().toString().find("empty"), std::string::npos);
    EXPECT_NE(e.error().message.find("no trace files"), std::string::npos);

    EXPECT_FALSE(expandRunPaths({}).ok());
}

TEST(RunLoader, RanksInSubdirectoriesAreFoundOneLevelDown) {
    RunLoaderTempDir t;
    writeFile(t.path() / "rank10" / "trace.json", "{}");
    writeFile(t.path() / "rank2" / "trace.json.gz", "{}");
    writeFile(t.path() / "rank2" / "other.log", "x");
    auto r = expandRunPaths({t.path().string()});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->size(), 2u);
    EXPECT_EQ(fs::path((*r)[0]).parent_path().filename(), "rank2");
    EXPECT_EQ(fs::path((*r)[1]).parent_path().filename(), "rank10");
}

TEST(RunLoader, LinkLoopsDoNotHang) {
    RunLoaderTempDir t;
    fs::create_directory_symlink(t.path(), t.path() / "loop");       // a directory containing itself
    fs::create_symlink(t.path() / "self.json", t.path() / "self.json");  // a file link to itself
    fs::create_symlink(t.path() / "gone.json", t.path() / "dangling.json");
    auto none = expandRunPaths({t.path().string()});
    ASSERT_FALSE(none.ok());  // nothing loadable, and no hang
    auto direct = expandRunPaths({(t.path() / "self.json").string()});
    ASSERT_FALSE(direct.ok());
    EXPECT_NE(direct.error().toString().find("self.json"), std::string::npos);

    writeFile(t.path() / "rank0.json", "{}");
    auto one = expandRunPaths({t.path().string()});
    ASSERT_TRUE(one.ok()) << one.error().toString();
    EXPECT_EQ(fileNames(*one), std::vector<std::string>{"rank0.json"});
}

TEST(RunLoader, BundledSampleExpandsToEightWorkersInOrder) {
    const fs::path dir = fs::path(STROBE_RESOURCE_DIR) / "sample" / "param-dlrm-8rank";
    auto r = expandRunPaths({dir.string()});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->size(), 8u);
    for (size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(fs::path((*r)[i]).filename().string().rfind("worker" + std::to_string(i) + "_", 0), 0u);
        EXPECT_EQ(rankFromFileName((*r)[i]), static_cast<int>(i));
    }
}

TEST(RunLoader, DuplicateMissingRanksAndMixedWorldSizesAreWarnings) {
    SeededRun s;
    s.add("a.json", smallRank("a", true, 1, 4));
    s.add("b.json", smallRank("b", true, 1, 4));
    s.add("c.json", smallRank("c", true, 0, 2));
    auto r = loadRun({s.run.string()}, s.options);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const Dataset& ds = **r;
    ASSERT_EQ(ds.ranks.size(), 3u);
    EXPECT_EQ(ds.ranks[0]->rank, 0);
    EXPECT_EQ(ds.ranks[0]->info.traceName, "c");
    EXPECT_EQ(ds.ranks[1]->rank, 1);
    EXPECT_EQ(ds.ranks[2]->rank, 1);
    for (const auto& rank : ds.ranks) {
        EXPECT_TRUE(rank->stats.fromCache);
        EXPECT_EQ(rank->rankSource, RankSource::DistributedInfo);
        EXPECT_EQ(rank->gpu.dur[1], 20);
    }
    EXPECT_TRUE(anyDiagnosticHas(ds, {"rank 1", "a.json", "b.json"})) << allDiagnostics(ds);
    EXPECT_TRUE(anyDiagnosticHas(ds, {"world size", "4", "2", "c.json"})) << allDiagnostics(ds);
    EXPECT_TRUE(anyDiagnosticHas(ds, {"missing", "2-3"})) << allDiagnostics(ds);
    EXPECT_EQ(ds.sources, std::vector<std::string>{s.run.string()});
}

TEST(RunLoader, RanksFromFileNamesThenFileOrder) {
    SeededRun s;
    s.add("rank0.json", smallRank("r0", false, -1, -1));
    s.add("rank2.json", smallRank("r2", false, -1, -1));
    auto r = loadRun({s.run.string()}, s.options);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ((*r)->ranks.size(), 2u);
    EXPECT_EQ((*r)->ranks[1]->rank, 2);
    EXPECT_EQ((*r)->ranks[1]->rankSource, RankSource::FileName);
    EXPECT_TRUE(anyDiagnosticHas(**r, {"rank missing: 1"})) << allDiagnostics(**r);

    SeededRun o;
    o.add("second.json", smallRank("y", false, -1, -1));
    o.add("first.json", smallRank("x", false, -1, -1));
    auto order = loadRun({(o.run / "second.json").string(), (o.run / "first.json").string()}, o.options);
    ASSERT_TRUE(order.ok()) << order.error().toString();
    ASSERT_EQ((*order)->ranks.size(), 2u);
    EXPECT_EQ((*order)->ranks[0]->info.traceName, "y");  // the order given
    EXPECT_EQ((*order)->ranks[0]->rankSource, RankSource::FileOrder);
    EXPECT_EQ((*order)->ranks[1]->rank, 1);
    EXPECT_TRUE((*order)->diagnostics.empty()) << allDiagnostics(**order);
}

TEST(RunLoader, GoodFilesLoadWhenOthersFail) {
    SeededRun s;
    s.add("rank0.json", smallRank("good", true, 0, 2));
    writeFile(s.run / "rank1.json", "this is not JSON at all");
    auto r = loadRun({s.run.string()}, s.options);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ((*r)->ranks.size(), 1u);
    EXPECT_EQ((*r)->ranks[0]->info.traceName, "good");
    EXPECT_TRUE(anyDiagnosticHas(**r, {"rank1.json", "not loaded"})) << allDiagnostics(**r);
    EXPECT_TRUE(anyDiagnosticHas(**r, {"missing: 1"})) << allDiagnostics(**r);
}

TEST(RunLoader, AllFilesFailingIsAnError) {
    RunLoaderTempDir t;
    writeFile(t.path() / "x.json", "garbage");
    writeFile(t.path() / "y.json", "");
    ClassificationRules rules;
    RunLoadOptions opt;
    opt.cacheDir = t.path() / "cache";
    opt.rules = &rules;
    auto both = loadRun({t.path().string()}, opt);
    ASSERT_FALSE(both.ok());
    EXPECT_NE(both.error().toString().find("none of the 2 files"), std::string::npos) << both.error().toString();
    auto one = loadRun({(t.path() / "y.json").string()}, opt);
    ASSERT_FALSE(one.ok());
    EXPECT_NE(one.error().toString().find("y.json"), std::string::npos) << one.error().toString();
}

TEST(RunLoader, CallbacksCoverEveryFileAndProgressEnds) {
    SeededRun s;
    for (int i = 0; i < 5; ++i) s.add("rank" + std::to_string(i) + ".json", smallRank(std::to_string(i), true, i, 5));
    std::mutex m;
    std::set<std::pair<size_t, std::string>> seen;
    std::vector<double> fractions;
    std::atomic<int> inside{0};
    bool overlapped = false;
    RunCallbacks cb;
    cb.onMetadata = [&](size_t index, const TraceInfo& info) {
        if (inside.fetch_add(1) != 0) overlapped = true;
        std::lock_guard lock(m);
        seen.emplace(index, info.traceName);
        inside.fetch_sub(1);
    };
    cb.onProgress = [&](const ProgressInfo& p) {
        if (inside.fetch_add(1) != 0) overlapped = true;
        std::lock_guard lock(m);
        fractions.push_back(p.fraction);
        inside.fetch_sub(1);
    };
    s.options.threads = 3;
    auto r = loadRun({s.run.string()}, s.options, cb);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(seen.size(), 5u);
    for (size_t i = 0; i < 5; ++i) EXPECT_TRUE(seen.count({i, std::to_string(i)})) << i;
    ASSERT_FALSE(fractions.empty());
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
    EXPECT_FALSE(overlapped);

    auto again = loadRun({s.run.string()}, s.options);
    ASSERT_TRUE(again.ok());
    EXPECT_GT((*again)->generation, (*r)->generation);
}

TEST(RunLoader, CancelReturnsCancelledAndNothingPartial) {
    SeededRun s;
    for (int i = 0; i < 6; ++i) s.add("rank" + std::to_string(i) + ".json", smallRank(std::to_string(i), true, i, 6));
    RunCallbacks before;
    before.cancel.cancel();
    auto r = loadRun({s.run.string()}, s.options, before);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "cancelled");

    RunCallbacks during;
    during.onMetadata = [&](size_t, const TraceInfo&) { during.cancel.cancel(); };
    s.options.threads = 2;
    auto d = loadRun({s.run.string()}, s.options, during);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error().message, "cancelled");
}

TEST(RunLoader, AFileThatDisappearsIsNamed) {
    SeededRun s;
    s.add("rank0.json", smallRank("0", true, 0, 2));
    s.add("rank1.json", smallRank("1", true, 1, 2));
    RunCallbacks cb;
    cb.onMetadata = [&](size_t index, const TraceInfo&) {
        if (index == 0) fs::remove(s.run / "rank1.json");
    };
    s.options.threads = 1;  // rank0 first, then rank1 (gone by then)
    auto r = loadRun({s.run.string()}, s.options, cb);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ((*r)->ranks.size(), 1u);
    EXPECT_TRUE(anyDiagnosticHas(**r, {"rank1.json", "disappeared"})) << allDiagnostics(**r);
}

TEST(RunLoader, UnwritableCacheIsAWarningNotAFailure) {
    RunLoaderTempDir t;
    const fs::path sample = fs::path(STROBE_RESOURCE_DIR) / "sample" / "param-dlrm-8rank" /
                            "worker0_step_12.1694128201545.pt.trace.json";
    writeFile(t.path() / "blocker", "x");
    ClassificationRules rules;
    RunLoadOptions opt;
    opt.cacheDir = t.path() / "blocker" / "cache";
    opt.rules = &rules;
    auto r = loadRun({sample.string()}, opt);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ((*r)->ranks.size(), 1u);
    EXPECT_TRUE(anyDiagnosticHas(**r, {"load cache not written"})) << allDiagnostics(**r);
}

// End to end on the bundled 8-rank DLRM sample (a copy, so that touching a file does not change the tree).
// Expected rank/world from the files' distributedInfo, read with Python's json module:
//   for f in sorted(glob('*.json')): d = json.load(open(f)); d['distributedInfo']['rank'], ['world_size']
// gives worker<i> → rank i, world_size 8, backend nccl for i in 0..7.
TEST(RunLoader, DlrmSampleLoadsEightRanksThenReopensFromTheCache) {
    const fs::path src = fs::path(STROBE_RESOURCE_DIR) / "sample" / "param-dlrm-8rank";

    RunLoaderTempDir t;
    const fs::path run = t.path() / "run";
    fs::create_directories(run);
    for (const auto& e : fs::directory_iterator(src))
        if (e.path().extension() == ".json") fs::copy_file(e.path(), run / e.path().filename());
    ClassificationRules rules;
    RunLoadOptions opt;
    opt.cacheDir = t.path() / "cache";
    opt.rules = &rules;

    auto first = loadRun({run.string()}, opt);
    ASSERT_TRUE(first.ok()) << first.error().toString();
    const Dataset& a = **first;
    ASSERT_EQ(a.ranks.size(), 8u);
    for (int i = 0; i < 8; ++i) {
        const RankData& r = *a.ranks[static_cast<size_t>(i)];
        EXPECT_EQ(r.rank, i);
        EXPECT_EQ(r.rankSource, RankSource::DistributedInfo);
        EXPECT_EQ(r.info.distributed.worldSize, 8);
        EXPECT_EQ(r.info.distributed.backend, "nccl");
        EXPECT_FALSE(r.stats.fromCache);
        EXPECT_GT(r.slices.size() + r.gpu.size(), 0u);
    }
    for (const Diagnostic& d : a.diagnostics) {
        EXPECT_EQ(d.message.find("missing"), std::string::npos) << d.toString();
        EXPECT_EQ(d.message.find("appears in"), std::string::npos) << d.toString();
        EXPECT_EQ(d.message.find("world size"), std::string::npos) << d.toString();
    }

    auto second = loadRun({run.string()}, opt);
    ASSERT_TRUE(second.ok()) << second.error().toString();
    const Dataset& b = **second;
    ASSERT_EQ(b.ranks.size(), 8u);
    for (size_t i = 0; i < 8; ++i) {
        const RankData& x = *a.ranks[i];
        const RankData& y = *b.ranks[i];
        EXPECT_TRUE(y.stats.fromCache);
        EXPECT_EQ(y.rank, x.rank);
        EXPECT_EQ(y.stats.events, x.stats.events);
        EXPECT_EQ(y.info.gpuName(), x.info.gpuName());
        ASSERT_EQ(y.gpu.size(), x.gpu.size());
        EXPECT_TRUE(std::equal(x.gpu.ts.begin(), x.gpu.ts.end(), y.gpu.ts.begin()));
        EXPECT_TRUE(std::equal(x.slices.name.begin(), x.slices.name.end(), y.slices.name.begin()));
        for (size_t k = 0; k < x.gpu.size(); k += 97) EXPECT_EQ(y.strings.view(y.gpu.name[k]), x.strings.view(x.gpu.name[k]));
    }

    // Touch one file: that rank is parsed again, the others still come from the cache.
    const fs::path touched = run / "worker3_step_12.1694128201557.pt.trace.json";
    fs::last_write_time(touched, fs::last_write_time(touched) + std::chrono::seconds(2));
    auto third = loadRun({run.string()}, opt);
    ASSERT_TRUE(third.ok()) << third.error().toString();
    for (const auto& r : (*third)->ranks) EXPECT_EQ(r->stats.fromCache, r->rank != 3) << r->rank;
}
