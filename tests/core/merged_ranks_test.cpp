// A Kineto file that merges several ranks (TraceLens TraceFusion; tests/data/kineto/multirank, a real 4-rank DDP
// run on AMD GPUs cut to its first quarter, see tests/data/SOURCES.md) opens as its ranks; a plain file stays one.
// Expected values: a Python split of the file by the `rank` in each event's args:
//   /usr/bin/python3 -c "import gzip,json,collections; ev=json.load(gzip.open('tests/data/kineto/multirank/
//   cifar100_ddp_4rank_tracefusion_first_quarter.json.gz'))['traceEvents']; c=collections.Counter((e['args']['rank'],
//   e['cat']) for e in ev if e.get('ph')=='X' and 'rank' in e.get('args',{})); print(sorted(c.items()));
//   print(collections.Counter(e['args']['rank'] for e in ev if e.get('ph')=='i'))"
// → per rank 0/1/2/3: kernel 1016/1009/1015/1009, gpu_memcpy 327/322/325/193, cuda_runtime 1685/1672/1690/1554,
//   cpu_op 5068/5034/5100/4697, user_annotation 12/11/12/11, gpu_user_annotation 9/9/9/9, one instant each.
// GPU activities whose correlation is a cuda_runtime call's of the same rank (every one):
//   for r in range(4): rt={e['args']['correlation'] for e in ev if e.get('cat')=='cuda_runtime' and
//   e['args'].get('rank')==r}; g=[e for e in ev if e.get('cat') in ('kernel','gpu_memcpy','gpu_memset') and
//   e['args'].get('rank')==r]; print(r, len(g), sum(e['args'].get('correlation') in rt for e in g))
//   → 1343 1343, 1331 1331, 1340 1340, 1202 1202.
// The whole file (../shared/data/kineto-multirank, not kept here: 4.2 MB) has kernels per pid 2:3114,
// 100000003:3089, 200000004:3089, 300000005:3089 (the same Counter over the full file's `pid`s).
#include <chrono>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

const std::string kMergedFile =
    std::string(STROBE_TEST_DATA_DIR) + "/kineto/multirank/cifar100_ddp_4rank_tracefusion_first_quarter.json.gz";

RunLoadOptions noCacheMergedRanks() {
    RunLoadOptions o;
    o.useCache = false;
    return o;
}

struct MergedRankCounts {
    size_t kernels = 0, memcpy = 0, runtime = 0, cpuOps = 0, annotations = 0, gpuAnnotations = 0, instants = 0;
    size_t launched = 0;  // GPU activities linked to the runtime call that launched them
};

MergedRankCounts countMergedRank(const RankData& r) {
    MergedRankCounts c;
    for (size_t i = 0; i < r.gpu.size(); ++i) {
        c.kernels += r.gpu.kind[i] == EventKind::Kernel;
        c.memcpy += r.gpu.kind[i] == EventKind::Memcpy;
        c.launched += r.gpu.runtime[i] >= 0;
    }
    for (size_t i = 0; i < r.slices.size(); ++i) {
        const std::string_view cat = r.strings.view(r.slices.cat[i]);
        c.runtime += cat == "cuda_runtime";
        c.cpuOps += cat == "cpu_op";
        c.annotations += cat == "user_annotation";
        c.gpuAnnotations += cat == "gpu_user_annotation";
        c.instants += r.slices.phase[i] == 'i';
    }
    return c;
}

TEST(MergedRanks, ATraceFusionFileOpensAsItsFourRanks) {
    auto ds = loadRun({kMergedFile}, noCacheMergedRanks());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    ASSERT_EQ((*ds)->ranks.size(), 4u);
    const size_t kernels[] = {1016, 1009, 1015, 1009};
    const size_t memcpy[] = {327, 322, 325, 193};
    const size_t runtime[] = {1685, 1672, 1690, 1554};
    const size_t cpuOps[] = {5068, 5034, 5100, 4697};
    const size_t annotations[] = {12, 11, 12, 11};
    const size_t launched[] = {1343, 1331, 1340, 1202};
    for (size_t k = 0; k < 4; ++k) {
        const RankData& r = *(*ds)->ranks[k];
        EXPECT_EQ(r.rank, int(k));
        EXPECT_EQ(r.rankSource, RankSource::MergedTrace);
        EXPECT_EQ(r.path, kMergedFile);
        const MergedRankCounts c = countMergedRank(r);
        EXPECT_EQ(c.kernels, kernels[k]) << "rank " << k;
        EXPECT_EQ(c.memcpy, memcpy[k]) << "rank " << k;
        EXPECT_EQ(c.runtime, runtime[k]) << "rank " << k;
        EXPECT_EQ(c.cpuOps, cpuOps[k]) << "rank " << k;
        EXPECT_EQ(c.annotations, annotations[k]) << "rank " << k;
        EXPECT_EQ(c.gpuAnnotations, 9u) << "rank " << k;
        EXPECT_EQ(c.instants, 1u) << "rank " << k;  // "Iteration Start" on the shared pid "Traces", by its args
        EXPECT_EQ(c.launched, launched[k]) << "rank " << k;  // the merge links calls and kernels within the rank
        // Each rank holds only its own processes: its GPU pid and its CPU pid (TraceFusion: rank × 10^8 + raw pid).
        for (const ProcessMeta& p : r.processes)
            if (p.pidStr == kEmptyStr) {
                EXPECT_EQ(p.pid / 100'000'000, int64_t(k)) << p.pid;
                EXPECT_EQ(p.rank, int(k)) << p.pid;
            }
        for (size_t t = 0; t < r.tracks.size(); ++t) {
            if (r.tracks[t].pidStr == kEmptyStr) {
                EXPECT_EQ(r.tracks[t].pid / 100'000'000, int64_t(k));
            }
        }
    }
    // No run-level warning: the ranks are 0..3, each once.
    for (const Diagnostic& d : (*ds)->diagnostics) ADD_FAILURE() << d.message;
}

// A second open gives the same ranks (the split is not cached: the Kineto cache holds one rank per file, so such a
// file is parsed again, never served as one rank from an entry).
TEST(MergedRanks, ASecondOpenThroughTheCacheGivesTheSameRanks) {
    const auto dir = std::filesystem::temp_directory_path() / "strobe-merged-ranks-cache";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    // A copy, so that touching it below does not disturb other tests' opens of the file.
    const auto copy = dir / "merged.json.gz";
    std::filesystem::copy_file(kMergedFile, copy);
    RunLoadOptions o;
    o.cacheDir = dir / "cache";
    // Open 0 parses and writes one entry per rank; open 1 maps all four; after the file changes, open 2 parses again.
    for (int open = 0; open < 3; ++open) {
        if (open == 2) {
            const auto t = std::filesystem::last_write_time(copy);
            std::filesystem::last_write_time(copy, t + std::chrono::seconds(2));
        }
        auto ds = loadRun({copy.string()}, o);
        ASSERT_TRUE(ds.ok()) << ds.error().toString();
        ASSERT_EQ((*ds)->ranks.size(), 4u) << "open " << open;
        for (int r = 0; r < 4; ++r) {
            EXPECT_EQ((*ds)->ranks[r]->rank, r) << "open " << open;
            EXPECT_EQ((*ds)->ranks[r]->rankSource, RankSource::MergedTrace) << "open " << open;
            EXPECT_EQ((*ds)->ranks[r]->stats.fromCache, open == 1) << "open " << open << " rank " << r;
        }
        EXPECT_EQ(countMergedRank(*(*ds)->ranks[0]).kernels, 1016u) << "open " << open;
        EXPECT_EQ(countMergedRank(*(*ds)->ranks[1]).kernels, 1009u) << "open " << open;
        EXPECT_EQ(countMergedRank(*(*ds)->ranks[2]).kernels, 1015u) << "open " << open;
        EXPECT_EQ(countMergedRank(*(*ds)->ranks[3]).kernels, 1009u) << "open " << open;
    }
    std::filesystem::remove_all(dir);
}

// A plain Kineto file (one rank, no `rank` in its metadata) stays one rank.
TEST(MergedRanks, APlainFileStaysOneRank) {
    auto ds = loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"},
                      noCacheMergedRanks());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    ASSERT_EQ((*ds)->ranks.size(), 1u);
    EXPECT_NE((*ds)->ranks[0]->rankSource, RankSource::MergedTrace);
    EXPECT_EQ(countMergedRank(*(*ds)->ranks[0]).kernels, 14u);  // python3: cat == 'kernel' events: 14
}

}  // namespace
