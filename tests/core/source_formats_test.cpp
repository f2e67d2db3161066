// Detection and the rocprof loaders on real samples (tests/data/rocprof, see SOURCES.md). Expected values come from
// tests/data/expected/rocprof_expected.py (Python's csv/json modules; its output is rocprof_expected.json).
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "core/formats/rank_builder.h"
#include "core/formats/rocprof_v1_csv.h"
#include "core/formats/rocprofv3_csv.h"
#include "core/formats/rocprofv3_json.h"
#include "core/formats/source_detect.h"
#include "core/merge/merge.h"
#include "core/model/clock_rules.h"
#include "core/model/validate.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe::core;
namespace fs = std::filesystem;

namespace {

const std::string kRoc = std::string(STROBE_TEST_DATA_DIR) + "/rocprof";

std::string formatOf(const std::string& path) {
    auto s = readSniffInput(path);
    if (!s) return "error: " + s.error().toString();
    const SourceFormat* f = bestFormat(s->input);
    return f ? f->id : "";
}

void mergeAndValidate(RankData& r) {
    auto rules = ClassificationRules::loadDefault();
    ASSERT_TRUE(rules.ok());
    ASSERT_TRUE(mergeRank(r, *rules).ok());
    Status v = validateRankData(r);
    ASSERT_TRUE(v.ok()) << v.error().toString();
}

int64_t kernelNs(const RankData& r, uint64_t* count = nullptr) {
    int64_t t = 0;
    uint64_t n = 0;
    for (size_t i = 0; i < r.gpu.size(); ++i)
        if (r.gpu.kind[i] == EventKind::Kernel) {
            t += r.gpu.dur[i];
            ++n;
        }
    if (count) *count = n;
    return t;
}

RunLoadOptions noCache() {
    RunLoadOptions o;
    o.useCache = false;
    return o;
}

}  // namespace

TEST(SourceDetect, FormatsAreRecognisedByContent) {
    EXPECT_EQ(formatOf(kRoc + "/docs-2025/kernel_trace.csv"), "rocprofv3-csv");
    EXPECT_EQ(formatOf(kRoc + "/docs-2025/counter_collection.csv"), "rocprofv3-csv");
    EXPECT_EQ(formatOf(kRoc + "/docs-2025/hip_api_stats.csv"), "rocprofv3-csv");
    // A rocprofv3 JSON result is not a Kineto rank, though it is JSON.
    EXPECT_EQ(formatOf(kRoc + "/tracelens_908_results.json.gz"), "rocprofv3-json");
    // The .xr Chrome-trace rendering is claimed by nobody (it starts with ","): never a Kineto rank.
    EXPECT_EQ(formatOf(kRoc + "/seismic_128x64.xr/results.json"), "");
    EXPECT_EQ(formatOf(kRoc + "/seismic_128x64.xr/results.csv"), "rocprof-v1");
    EXPECT_EQ(formatOf(kRoc + "/seismic_128x64.xr"), "rocprof-v1");
    EXPECT_EQ(formatOf(std::string(STROBE_TEST_DATA_DIR) +
                       "/kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"),
              "kineto");
}

TEST(SourceDetect, RocprofV3FilesOfOnePrefixAreOneGroupKernelTraceFirst) {
    auto g = detectSources({kRoc + "/docs-2025"});
    ASSERT_TRUE(g.ok()) << g.error().toString();
    // Prefix "" (kernel_trace.csv, counter_collection.csv, ...) and rocpd-to-csv.csv (no known domain suffix).
    ASSERT_EQ(g->size(), 2u);
    EXPECT_EQ((*g)[0].format, "rocprofv3-csv");
    EXPECT_EQ(fs::path((*g)[0].files.front()).filename(), "kernel_trace.csv");
    EXPECT_EQ((*g)[0].files.size(), 12u);  // the 13 CSV files of docs-2025 but rocpd-to-csv.csv
    // Naming one member brings its siblings: the same group.
    auto one = detectSources({kRoc + "/docs-2025/counter_collection.csv"});
    ASSERT_TRUE(one.ok());
    ASSERT_EQ(one->size(), 1u);
    EXPECT_EQ((*one)[0].files, (*g)[0].files);
    EXPECT_EQ(rocprofv3CsvPrefix("1234_kernel_trace.csv"), "1234");
    EXPECT_EQ(rocprofv3CsvPrefix("run_a_hip_api_trace.csv"), "run_a");
    EXPECT_EQ(rocprofv3CsvPrefix("kernel_trace.csv"), "");
    EXPECT_EQ(rocprofv3CsvPrefix("other.csv"), "other");
}

TEST(SourceDetect, UnreadableContainersAreRefusedWithTheExportCommand) {
    strobe::test::TempDir t("strobe-detect-test");
    for (const char* n : {"report.nsys-rep", "old.qdrep", "k.ncu-rep", "t.pftrace"}) {
        strobe::test::writeFile(t.path() / n, "binary");
        auto r = detectSources({(t.path() / n).string()});
        ASSERT_FALSE(r.ok()) << n;
        EXPECT_NE(r.error().toString().find(n), std::string::npos);
    }
    auto nsys = detectSources({(t.path() / "report.nsys-rep").string()});
    EXPECT_NE(nsys.error().message.find("nsys export --type sqlite"), std::string::npos);
    auto ncu = detectSources({(t.path() / "k.ncu-rep").string()});
    EXPECT_NE(ncu.error().message.find("ncu --import"), std::string::npos);
    EXPECT_NE(ncu.error().message.find("--csv --page details"), std::string::npos);

    strobe::test::writeFile(t.path() / "notes.txt", "hello, world\n");
    auto unknown = detectSources({(t.path() / "notes.txt").string()});
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().toString().find("notes.txt"), std::string::npos);
    EXPECT_NE(unknown.error().message.find("not a format Strobe reads"), std::string::npos);
}

TEST(RocprofV3Csv, DocsSampleKernelsCountersCopiesAndApis) {
    auto g = detectSources({kRoc + "/docs-2025/kernel_trace.csv"});
    ASSERT_TRUE(g.ok());
    auto ranks = loadRocprofv3Csv((*g)[0]);
    ASSERT_TRUE(ranks.ok()) << ranks.error().toString();
    ASSERT_EQ(ranks->size(), 1u);
    RankData& r = *ranks->front();
    mergeAndValidate(r);
    uint64_t kernels = 0;
    EXPECT_EQ(kernelNs(r, &kernels), 96160);  // rocprof_expected.json docs_2025.kernel_ns
    EXPECT_EQ(kernels, 9u);
    EXPECT_EQ(r.gpu.size(), 9u + 4u);  // + 4 memory copies
    EXPECT_EQ(r.slices.size(), 89u);   // API traces, markers, allocations, scratch
    // counter_collection.csv + kernel_names.csv: 8 rows, 6 with a Dispatch_Id of the kernel trace.
    EXPECT_EQ(r.kernelCounters.size(), 6u);
    EXPECT_DOUBLE_EQ(r.stats.joinMatchRate, 6.0 / 8.0);
    double sum = 0;
    for (double v : r.kernelCounters.value) sum += v;
    EXPECT_DOUBLE_EQ(sum, 98304.0);
    bool listed = false;
    for (const Diagnostic& d : r.diagnostics)
        listed = listed || d.message.find("2 of 8 counter rows") != std::string::npos;
    EXPECT_TRUE(listed);
    EXPECT_EQ(r.info.clock.domain, ClockDomain::Boottime);
    EXPECT_FALSE(r.info.clock.anchored);
}

TEST(RocprofV3Csv, BadRowsNameFileAndRow) {
    const std::string text =
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Dispatch_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
        "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,\"k\",100,200\n"
        "\"KERNEL_DISPATCH\",\"Agent 1\",1,2,\"k\",abc,300\n";
    auto r = loadRocprofv3CsvText(text, "bad_kernel_trace.csv");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().toString().find("bad_kernel_trace.csv"), std::string::npos);
    EXPECT_EQ(r.error().where.row, 2);
}

TEST(RocprofV3Json, TracelensResultEightMi350x) {
    SourceGroup g{"rocprofv3-json", kRoc + "/tracelens_908_results.json.gz",
                  {kRoc + "/tracelens_908_results.json.gz"}, {}};
    auto ranks = loadRocprofv3Json(g);
    ASSERT_TRUE(ranks.ok()) << ranks.error().toString();
    ASSERT_EQ(ranks->size(), 1u);
    RankData& r = *ranks->front();
    mergeAndValidate(r);
    uint64_t kernels = 0;
    EXPECT_EQ(kernelNs(r, &kernels), 4441741378);  // rocprof_expected.json tracelens_908[0]
    EXPECT_EQ(kernels, 43915u);
    ASSERT_EQ(r.info.devices.size(), 8u);
    EXPECT_EQ(r.info.devices[0].name, "AMD Instinct MI350X");
    EXPECT_EQ(r.info.devices[0].warpSize, 64);
    size_t onDevice0 = 0;
    for (int16_t d : r.gpu.device) onDevice0 += d == 0;
    EXPECT_EQ(onDevice0, 43915u);
    EXPECT_EQ(*std::min_element(r.gpu.ts.begin(), r.gpu.ts.end()), 63857982592000);
}

TEST(RocprofV1, XrDirectoryReadsResultsCsvAndJoinsTheCounterPass) {
    auto g = detectSources({kRoc + "/seismic_128x64.xr"});
    ASSERT_TRUE(g.ok()) << g.error().toString();
    ASSERT_EQ(g->size(), 1u);
    EXPECT_EQ((*g)[0].format, "rocprof-v1");
    auto ranks = loadRocprofV1((*g)[0]);
    ASSERT_TRUE(ranks.ok()) << ranks.error().toString();
    RankData& r = *ranks->front();
    mergeAndValidate(r);
    uint64_t kernels = 0;
    EXPECT_EQ(kernelNs(r, &kernels), 1837699354);  // rocprof_expected.json seismic_xr
    EXPECT_EQ(kernels, 1023u);
    EXPECT_EQ(fs::path(r.path).filename(), "results.csv");  // the precedence: results.csv first
    ASSERT_EQ(r.info.alsoPresent.size(), 2u);
    EXPECT_EQ(fs::path(r.info.alsoPresent[0]).filename(), "results.db");
    EXPECT_EQ(fs::path(r.info.alsoPresent[1]).filename(), "results.json");
    EXPECT_EQ(r.kernelCounters.size(), 5115u);  // 1023 matched rows x 5 counters
    EXPECT_DOUBLE_EQ(r.stats.joinMatchRate, 1.0);
    ASSERT_GT(r.kernelCounters.size(), 0u);
    EXPECT_EQ(r.strings.view(r.kernelCounters.name[0]), "FETCH_SIZE");
    EXPECT_DOUBLE_EQ(r.kernelCounters.value[0], 8.875);
    EXPECT_EQ(r.info.traceName, "./stencils_R_4_vec_2.x,512,512,512,100,128,64");
}

TEST(RunLoaderSources, KinetoTraceMixedWithARocprofGroup) {
    const std::string kineto = std::string(STROBE_TEST_DATA_DIR) +
                               "/kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
    auto run = loadRun({kineto, kRoc + "/docs-2025/kernel_trace.csv", kRoc + "/tracelens_908_results.json.gz"},
                       noCache());
    ASSERT_TRUE(run.ok()) << run.error().toString();
    const Dataset& ds = **run;
    ASSERT_EQ(ds.ranks.size(), 3u);
    EXPECT_EQ(ds.ranks[0]->info.format, "kineto");
    EXPECT_EQ(ds.ranks[1]->info.format, "rocprofv3-csv");
    EXPECT_EQ(ds.ranks[1]->rank, 1);  // numbered after the Kineto rank
    EXPECT_EQ(ds.ranks[2]->info.format, "rocprofv3-json");
    // Kineto is realtime, rocprof boot time, unanchored: overlay refused, and the run says so.
    Status clocks = checkClockOverlay(ds);
    ASSERT_FALSE(clocks.ok());
    EXPECT_NE(clocks.error().message.find("--clock-offset"), std::string::npos);
    bool warned = false;
    for (const Diagnostic& d : ds.diagnostics) warned = warned || d.message.find("different clocks") != std::string::npos;
    EXPECT_TRUE(warned);

    RunLoadOptions anchored = noCache();
    anchored.sources.hasClockOffset = true;
    anchored.sources.clockOffsetNs = 1'600'000'000'000'000'000;
    auto run2 = loadRun({kineto, kRoc + "/docs-2025/kernel_trace.csv"}, anchored);
    ASSERT_TRUE(run2.ok());
    EXPECT_TRUE(checkClockOverlay(**run2).ok());
    EXPECT_EQ((*run2)->ranks[1]->info.clock.anchor, "--clock-offset");
}

TEST(RunLoaderSources, SweepOfXrDirectoriesLoadsEachRunDirectory) {
    strobe::test::TempDir t("strobe-sweep-test");
    for (const char* run : {"a.xr", "b.xr"}) {
        fs::create_directories(t.path() / run);
        for (const char* f : {"results.csv", "results.json", "cmd"})
            fs::copy_file(fs::path(kRoc) / "seismic_128x64.xr" / f, t.path() / run / f);
    }
    auto paths = expandRunPaths({t.path().string()});
    ASSERT_TRUE(paths.ok()) << paths.error().toString();
    ASSERT_EQ(paths->size(), 2u);
    EXPECT_EQ(fs::path((*paths)[0]).filename(), "a.xr");
    auto run = loadRun({t.path().string()}, noCache());
    ASSERT_TRUE(run.ok()) << run.error().toString();
    ASSERT_EQ((*run)->ranks.size(), 2u);
    for (const auto& r : (*run)->ranks) EXPECT_EQ(r->gpu.size(), 1023u);
}

// ---- The run manifest's clocks (DESIGN.md: manifest.yaml `clocks`, read together at the start) anchor what the
// sources do not; --clock-offset only what neither anchors. Values by hand from the manifest written here.

namespace {

struct ManifestRun {
    strobe::test::TempDir t{"strobe-manifest-clocks"};
    fs::path run = t.path() / "run";
    explicit ManifestRun(const std::string& clocks) {
        fs::create_directories(run / "rocprof" / "node01" / "4242");
        strobe::test::writeFile(run / "manifest.yaml", "strobe_manifest: 1\ncommand: [sleep, \"1\"]\nstatus: completed\n" + clocks);
        fs::copy_file(kRoc + "/docs-2025/kernel_trace.csv", run / "rocprof" / "node01" / "4242" / "4242_kernel_trace.csv");
        fs::copy_file(std::string(STROBE_TEST_DATA_DIR) + "/telemetry/nvidia-smi/h100_query-gpu_load.csv", run / "nvidia_smi.csv");
        fs::copy_file(std::string(STROBE_TEST_DATA_DIR) + "/telemetry/strobe/cpu_sampler_2core.csv", run / "cpu.csv");
    }
    // A source of the run by its format: a rank, or the host's telemetry (nvidia-smi, the CPU sampler).
    const RankData* rank(const Dataset& ds, const std::string& format) const {
        for (const RankData* r : ds.allSources())
            if (r->info.format == format) return r;
        return nullptr;
    }
};

}  // namespace

TEST(ManifestClocks, AnchorBootTimeAndLocalTimeSourcesOfTheRun) {
    ManifestRun m("clocks: {realtime_ns: 1764000000000000000, monotonic_ns: 5000000000, boottime_ns: 6000000000, "
                  "utc_offset_s: -18000}\n");
    auto ds = loadRun({m.run.string()}, noCache());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    const RankData* roc = m.rank(**ds, "rocprofv3-csv");
    const RankData* smi = m.rank(**ds, "nvidia-smi-csv");
    const RankData* cpu = m.rank(**ds, "strobe-sampler-csv");
    ASSERT_TRUE(roc && smi && cpu);
    EXPECT_TRUE(roc->info.clock.anchored);
    EXPECT_EQ(roc->info.clock.toRealtimeNs, 1764000000000000000 - 6000000000);
    EXPECT_NE(roc->info.clock.anchor.find("manifest.yaml"), std::string::npos) << roc->info.clock.anchor;
    EXPECT_TRUE(smi->info.clock.anchored);
    EXPECT_EQ(smi->info.clock.toRealtimeNs, 18000LL * 1'000'000'000);  // local = UTC - 5 h: UTC = local + 5 h
    EXPECT_EQ(cpu->info.clock.toRealtimeNs, 0);                         // realtime already: untouched
    EXPECT_TRUE(checkClockOverlay(**ds).ok());
    // The manifest comes before --clock-offset, which anchors only what nothing else does.
    RunLoadOptions o = noCache();
    o.sources.hasClockOffset = true;
    o.sources.clockOffsetNs = 123;
    auto again = loadRun({m.run.string()}, o);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(m.rank(**again, "rocprofv3-csv")->info.clock.toRealtimeNs, 1764000000000000000 - 6000000000);
    EXPECT_EQ(m.rank(**again, "strobe-sampler-csv")->info.clock.toRealtimeNs, 0);
}

TEST(ManifestClocks, WithoutTheZoneLocalTimeStaysUnanchoredAndTheOverlayIsRefused) {
    ManifestRun m("clocks: {realtime_ns: 1764000000000000000, monotonic_ns: 5000000000, boottime_ns: 6000000000}\n");
    auto ds = loadRun({m.run.string()}, noCache());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    EXPECT_TRUE(m.rank(**ds, "rocprofv3-csv")->info.clock.anchored);
    EXPECT_FALSE(m.rank(**ds, "nvidia-smi-csv")->info.clock.anchored);
    EXPECT_FALSE(checkClockOverlay(**ds).ok());
}

TEST(ManifestClocks, MalformedClocksAreANoteNamingTheFileAndLineAndAnchorNothing) {
    ManifestRun m("clocks: {realtime_ns: soon, monotonic_ns: 1, boottime_ns: 2}\n");
    auto ds = loadRun({m.run.string()}, noCache());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    EXPECT_FALSE(m.rank(**ds, "rocprofv3-csv")->info.clock.anchored);
    bool noted = false;
    for (const Diagnostic& d : (*ds)->diagnostics)
        if (d.message.find("realtime_ns") != std::string::npos) {
            noted = true;
            EXPECT_EQ(d.where.file, (m.run / "manifest.yaml").string());
            EXPECT_EQ(d.where.line, 4);
        }
    EXPECT_TRUE(noted);
}

// --clock-offset never moves a source that carries its own anchor: the CPU sampler (realtime) and an nsys export
// (TARGET_INFO_SESSION_START_TIME utcEpochNs 1733878431540588992: sqlite3 tests/data/sqlite/nsys_fuser_h200.sqlite
// 'select utcEpochNs from TARGET_INFO_SESSION_START_TIME').
TEST(ManifestClocks, ClockOffsetLeavesSourcesWithTheirOwnAnchorAlone) {
    RunLoadOptions o = noCache();
    o.sources.hasClockOffset = true;
    o.sources.clockOffsetNs = -3'600'000'000'000LL;
    auto ds = loadRun({std::string(STROBE_TEST_DATA_DIR) + "/telemetry/strobe/cpu_sampler_2core.csv",
                       std::string(STROBE_TEST_DATA_DIR) + "/sqlite/nsys_fuser_h200.sqlite",
                       std::string(STROBE_TEST_DATA_DIR) + "/telemetry/nvidia-smi/h100_query-gpu_load.csv"},
                      o);
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    EXPECT_EQ((*ds)->ranks.size(), 1u);  // nsys; the sampler and nvidia-smi are the host's telemetry
    EXPECT_EQ((*ds)->allSources().size(), 3u);
    for (const RankData* r : (*ds)->allSources()) {
        if (r->info.format == "strobe-sampler-csv") {
            EXPECT_EQ(r->info.clock.toRealtimeNs, 0);
        }
        if (r->info.format == "nsys-sqlite") {
            EXPECT_EQ(r->info.clock.toRealtimeNs, 1733878431540588992);
            EXPECT_EQ(r->info.clock.anchor, "nsys TARGET_INFO_SESSION_START_TIME");
        }
        if (r->info.format == "nvidia-smi-csv") {
            EXPECT_EQ(r->info.clock.anchor, "--clock-offset");
        }
    }
}

// RankBuilder interns through a cache of recent ids checked by content: a view into a buffer that a loader reuses
// for every row (rocprofv3's memory-operation args) must still give each text its own id, in the pool's order of
// first appearance, and the last-track shortcut must not mix tracks.
TEST(RankBuilderCache, ReusedBufferTextsKeepTheirOwnIdsAndOrder) {
    RankData rank;
    strobe::core::RankBuilder b(rank);
    std::string buffer;
    std::vector<StrId> ids;
    for (const char* text : {"kernel_a", "kernel_b", "kernel_a", "kernel_c", "kernel_b"}) {
        buffer.assign(text);
        GpuRow g;
        g.name = buffer;
        g.cat = "KERNEL_DISPATCH";
        g.device = static_cast<int16_t>(ids.size() % 2);
        const uint32_t row = b.addGpu(g);
        ids.push_back(rank.gpu.name[row]);
        EXPECT_EQ(rank.strings.view(rank.gpu.name[row]), text);
        EXPECT_EQ(rank.strings.view(rank.gpu.cat[row]), "KERNEL_DISPATCH");
        EXPECT_EQ(rank.tracks[rank.gpu.track[row]].pid, g.device);
    }
    EXPECT_EQ(ids[0], ids[2]);
    EXPECT_EQ(ids[1], ids[4]);
    EXPECT_NE(ids[0], ids[1]);
    EXPECT_NE(ids[3], ids[0]);
    EXPECT_NE(ids[3], ids[1]);
    // The order of first appearance: kernel_a, KERNEL_DISPATCH, kernel_b, kernel_c.
    EXPECT_LT(ids[0], rank.strings.find("KERNEL_DISPATCH").value());
    EXPECT_LT(rank.strings.find("KERNEL_DISPATCH").value(), ids[1]);
    EXPECT_LT(ids[1], ids[3]);
    EXPECT_EQ(rank.tracks.size(), 2u);
}
