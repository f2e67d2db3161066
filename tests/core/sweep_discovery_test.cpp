// Sweep discovery (issue 9): runs and typed parameter values from directory names (key=value, key_value,
// rep<N>) and from the real rocprof `.xr` sweep's `cmd` files.

#include "core/sweep/sweep_discovery.h"

#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::core::sweep {
namespace {

namespace fs = std::filesystem;

TEST(SweepDiscovery, KeyValueDirectoriesWithRepeats) {
    test::TempDir dir("strobe-sweep-test");
    for (const char* p : {"threads=4/rep0", "threads=4/rep1", "threads=8/rep0", "threads=8/repeat1"})
        fs::create_directories(dir.path() / p);
    const auto found = discoverSweep({dir.path().string()});
    ASSERT_EQ(found.runs.size(), 4u);
    ASSERT_EQ(found.axes, std::vector<std::string>{"threads"});
    EXPECT_EQ(std::get<long long>(found.runs[0].parameters.at("threads")), 4);
    EXPECT_EQ(found.runs[1].repeat, 1);
    EXPECT_EQ(found.runs[2].configurationKey, "threads=8");
    EXPECT_EQ(found.runs[3].repeat, 1);
}

// A cancelled discovery (the GUI's job was cancelled or superseded) stops and says so, with no runs: a partial
// list would be an arbitrary subset of the sweep.
TEST(SweepDiscovery, ACancelledDiscoveryReturnsNoRunsAndSaysSo) {
    test::TempDir dir("strobe-sweep-cancel");
    for (const char* p : {"threads=4/rep0", "threads=8/rep0"}) fs::create_directories(dir.path() / p);
    CancelToken cancel;
    EXPECT_EQ(discoverSweep({dir.path().string()}, {}, cancel).runs.size(), 2u);
    cancel.cancel();
    const auto found = discoverSweep({dir.path().string()}, {}, cancel);
    EXPECT_TRUE(found.cancelled);
    EXPECT_TRUE(found.runs.empty());
}

// Runs given side by side as paths that say nothing of their parameters were pooled as repeats of one
// configuration, so `strobe-cli sweep compare A B` compared nothing. Their own names now tell them apart: one key
// shared by every name gives the axis, rep<N> names stay repeats, other names are the configuration (run=NAME).
TEST(SweepDiscovery, RunsGivenAsPathsAreComparedNotPooled) {
    const std::string configs = std::string(STROBE_TEST_DATA_DIR) + "/kineto/kineto-configs/";
    const auto resnet = discoverSweep({configs + "resnet50_num_workers_0", configs + "resnet50_num_workers_4/"});
    ASSERT_EQ(resnet.runs.size(), 2u);
    EXPECT_EQ(resnet.axes, std::vector<std::string>{"resnet50_num_workers"});
    EXPECT_EQ(resnet.runs[0].configurationKey, "resnet50_num_workers=0");
    EXPECT_EQ(resnet.runs[1].configurationKey, "resnet50_num_workers=4");
    EXPECT_EQ(resnet.runs[1].repeat, 0);

    test::TempDir dir("strobe-sweep-bare");
    for (const char* p : {"baseline", "new_kernels", "rep0", "rep1"}) fs::create_directories(dir.path() / p);
    const auto named = discoverSweep({(dir.path() / "baseline").string(), (dir.path() / "new_kernels").string()});
    ASSERT_EQ(named.runs.size(), 2u);
    EXPECT_EQ(named.axes, std::vector<std::string>{"run"});
    EXPECT_EQ(named.runs[0].configurationKey, "run=baseline");
    EXPECT_EQ(named.runs[1].configurationKey, "run=new_kernels");

    const auto repeats = discoverSweep({(dir.path() / "rep0").string(), (dir.path() / "rep1").string()});
    ASSERT_EQ(repeats.runs.size(), 2u);
    EXPECT_TRUE(repeats.axes.empty());
    EXPECT_EQ(repeats.runs[1].repeat, 1);

    // One path alone is what it was: no axis made up for it.
    EXPECT_TRUE(discoverSweep({configs + "resnet50_num_workers_0"}).axes.empty());
}

TEST(SweepDiscovery, KeyUnderscoreValueSplitsAtLastUnderscore) {
    test::TempDir dir("strobe-sweep-test");
    for (const char* p : {"block_size_64", "block_size_128", "block_size_1.5x"}) fs::create_directories(dir.path() / p);
    const auto found = discoverSweep({dir.path().string()});
    ASSERT_EQ(found.runs.size(), 3u);
    ASSERT_EQ(found.axes, std::vector<std::string>{"block_size"});
    // "1.5x" is neither int nor float, so the whole axis is typed string.
    EXPECT_EQ(std::get<std::string>(found.runs[0].parameters.at("block_size")), "1.5x");
}

TEST(SweepDiscovery, AortaLayout) {
    // sweep_YYYYMMDD_HHMMSS/<N>thread/nccl_<M>channels/{torch_profiler/rank0/, rocprof_traces/}: 2 x 2 runs with
    // axes thread and channels; the date and the per-run sub-directories are not axes.
    test::TempDir dir("strobe-sweep-test");
    for (const char* t : {"4thread", "8thread"})
        for (const char* c : {"nccl_16channels", "nccl_32channels"}) {
            fs::create_directories(dir.path() / "sweep_20250101_120000" / t / c / "torch_profiler" / "rank0");
            fs::create_directories(dir.path() / "sweep_20250101_120000" / t / c / "rocprof_traces");
        }
    const auto found = discoverSweep({dir.path().string()});
    ASSERT_EQ(found.runs.size(), 4u);
    ASSERT_EQ(found.axes, (std::vector<std::string>{"channels", "thread"}));
    // Runs come in axis-value order (axes by name: channels, then thread): (16,4) (16,8) (32,4) (32,8).
    EXPECT_EQ(found.runs[1].configurationKey, "channels=16,thread=8");
    EXPECT_EQ(found.runs[2].configurationKey, "channels=32,thread=4");
    EXPECT_EQ(std::get<long long>(found.runs[3].parameters.at("thread")), 8);
}

TEST(SweepDiscovery, ManifestParametersWinOverDirectoryNames) {
    // The directory names say threads=1/2 but the manifests say bs 64 and 128: manifests come first.
    test::TempDir dir("strobe-sweep-test");
    fs::create_directories(dir.path() / "threads=1");
    fs::create_directories(dir.path() / "threads=2");
    test::writeFile(dir.path() / "threads=1" / "manifest.yaml", "strobe_manifest: 1\nparameters: {bs: 64}\n");
    test::writeFile(dir.path() / "threads=2" / "manifest.yaml",
                    "strobe_manifest: 1\nparameters: {bs: 128, lr: 0.5}\nrepeat: 2\n");
    const auto found = discoverSweep({dir.path().string()});
    ASSERT_EQ(found.runs.size(), 2u);
    ASSERT_EQ(found.axes, (std::vector<std::string>{"bs", "lr"}));
    EXPECT_EQ(std::get<long long>(found.runs[1].parameters.at("bs")), 128);
    EXPECT_DOUBLE_EQ(std::get<double>(found.runs[1].parameters.at("lr")), 0.5);
    EXPECT_EQ(std::get<std::string>(found.runs[0].parameters.at("lr")), kAbsentValue);
    // Each run carries its manifest (the run model), its directory as its path and the canonical key.
    ASSERT_TRUE(found.runs[1].manifest);
    EXPECT_EQ(found.runs[1].manifest->repeat, 2);
    EXPECT_EQ(fs::path(found.runs[1].path()), dir.path() / "threads=2");
    EXPECT_EQ(found.runs[1].key(), "bs=128,lr=0.5");
}

TEST(SweepDiscovery, SeismicCmdFiles) {
    // The 9 `cmd` files (checked by hand with cat): argv split on commas is
    //   ./stencils_R_4_vec_2.x 512 512 512 100 {128|64} 64 [1]
    // so positions 1-4 and 6 never vary. Position 5 is 128 in eight runs and 64 in the 13-12-2023 one;
    // position 7 is missing in the first run (03-05-2024_11:30:34) and "1" elsewhere. Axes: arg5 and arg7 (the
    // date in the directory name is not an axis). Configurations: (128, absent) x1, (128, 1) x7 repeats,
    // (64, 1) x1.
    const fs::path root = fs::path(STROBE_TEST_DATA_DIR) / "sweeps" / "seismic-stencils-xr";
    const auto found = discoverSweep({root.string()});
    ASSERT_EQ(found.runs.size(), 9u);
    ASSERT_EQ(found.axes, (std::vector<std::string>{"arg5", "arg7"}));
    int config128Absent = 0, config128One = 0, config64One = 0, maxRepeat = 0;
    for (const auto& run : found.runs) {
        const std::string key = run.key();
        if (key == "arg5=128,arg7=(absent)") ++config128Absent;
        if (key == "arg5=128,arg7=1") { ++config128One; maxRepeat = std::max(maxRepeat, run.repeat); }
        if (key == "arg5=64,arg7=1") ++config64One;
    }
    EXPECT_EQ(config128Absent, 1);
    EXPECT_EQ(config128One, 7);
    EXPECT_EQ(maxRepeat, 6);
    EXPECT_EQ(config64One, 1);
    // In axis-value order the 64 run comes first, the (128, absent) run before the (128, 1) repeats.
    EXPECT_EQ(std::get<long long>(found.runs.front().parameters.at("arg5")), 64);
    EXPECT_EQ(found.runs[1].configurationKey, "arg5=128,arg7=(absent)");
    EXPECT_EQ(std::get<long long>(found.runs.back().parameters.at("arg5")), 128);
}

TEST(SweepDiscovery, SweepYamlWinsOverDirectoryNames) {
    // Directory names would give an axis "a" (a_1, a_2); sweep.yaml names the runs with bs 64/128 and repeats.
    test::TempDir dir("strobe-sweep-test");
    for (const char* p : {"a_1", "a_2", "a_3"}) fs::create_directories(dir.path() / p);
    test::writeFile(dir.path() / "sweep.yaml",
                    "strobe_sweep: 1\naxes: [bs]\nruns:\n"
                    "  - {path: a_1, parameters: {bs: 64}, repeat: 0}\n"
                    "  - {path: a_2, parameters: {bs: 64}, repeat: 1}\n"
                    "  - {path: a_3, parameters: {bs: 128.5}}\n");
    const auto found = discoverSweep({dir.path().string()});
    ASSERT_EQ(found.runs.size(), 3u);
    ASSERT_EQ(found.axes, std::vector<std::string>{"bs"});
    // 128.5 is not an integer, so the axis is typed float for every run.
    EXPECT_DOUBLE_EQ(std::get<double>(found.runs[0].parameters.at("bs")), 64.0);
    EXPECT_DOUBLE_EQ(std::get<double>(found.runs[2].parameters.at("bs")), 128.5);
    EXPECT_EQ(found.runs[1].repeat, 1);
    EXPECT_EQ(found.runs[2].repeat, 0);
    EXPECT_EQ(fs::path(found.runs[2].path()), dir.path() / "a_3");
}

TEST(SweepDiscovery, UserPatternWithRepeat) {
    // Names the built-in rules would not read: "t4-c16/try1". The pattern gives axes threads and channels.
    test::TempDir dir("strobe-sweep-test");
    for (const char* p : {"t4-c16/try0", "t4-c16/try1", "t8-c16/try0", "t8-c32/try0", "notes"})
        fs::create_directories(dir.path() / p);
    const auto found = discoverSweep({dir.path().string()}, "t{threads}-c{channels}/try{repeat}");
    ASSERT_EQ(found.runs.size(), 4u);
    ASSERT_EQ(found.axes, (std::vector<std::string>{"channels", "threads"}));
    EXPECT_EQ(found.runs[0].configurationKey, "channels=16,threads=4");
    EXPECT_EQ(found.runs[1].repeat, 1);
    EXPECT_EQ(std::get<long long>(found.runs[3].parameters.at("channels")), 32);
    EXPECT_EQ(std::get<long long>(found.runs[3].parameters.at("threads")), 8);
}

TEST(SweepDiscovery, PatternThatMatchesNothingFallsBack) {
    test::TempDir dir("strobe-sweep-test");
    for (const char* p : {"threads=1", "threads=2"}) fs::create_directories(dir.path() / p);
    const auto found = discoverSweep({dir.path().string()}, "{x}thread/nccl_{y}channels");
    ASSERT_EQ(found.runs.size(), 2u);
    EXPECT_EQ(found.axes, std::vector<std::string>{"threads"});
    EXPECT_TRUE(std::any_of(found.messages.begin(), found.messages.end(),
                            [](const std::string& m) { return m.find("no directory matches") != std::string::npos; }));
}

TEST(SweepDiscovery, BadPatternIsReported) {
    test::TempDir dir("strobe-sweep-test");
    fs::create_directories(dir.path() / "threads=1");
    const auto found = discoverSweep({dir.path().string()}, "{unclosed");
    ASSERT_EQ(found.runs.size(), 1u);
    EXPECT_TRUE(std::any_of(found.messages.begin(), found.messages.end(),
                            [](const std::string& m) { return m.find("offset 0") != std::string::npos; }));
}

}  // namespace
}  // namespace strobe::core::sweep
