// The telemetry, collective-benchmark, ncu and rocprof-compute loaders on the real samples under tests/data.
// Expected values: tests/data/expected/telemetry_formats.py (Python's csv module and string handling; its output
// is kept next to it in telemetry_formats.txt), or reasoned by hand where a comment says so.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/formats/nccl_tests_log.h"
#include "core/formats/ncu_csv.h"
#include "core/formats/nvidia_smi_csv.h"
#include "core/formats/nvidia_smi_dmon.h"
#include "core/formats/rocprof_compute_workload.h"
#include "core/formats/source_format.h"
#include "core/formats/strobe_sampler_csv.h"
#include "core/formats/telemetry_metrics.h"
#include "core/merge/merge.h"
#include "core/model/classification.h"
#include "core/model/validate.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

const std::string kData = STROBE_TEST_DATA_DIR;

std::string readAllFormatsTelemetry(const std::string& path) {
    auto t = telemetry::readFileText(path);
    EXPECT_TRUE(t.ok()) << path;
    return t.ok() ? std::string(t->text) : std::string();
}

SniffInput sniffFile(const std::string& path, const std::string& text) {
    SniffInput in;
    in.path = path;
    in.head = std::string_view(text).substr(0, 65536);
    return in;
}

// Loads through the registry entry (sniff + load), then merges and validates like the run loader does.
std::unique_ptr<RankData> loadVia(const SourceFormat& f, const std::string& path, std::vector<std::string> files = {}) {
    SourceGroup g;
    g.format = f.id;
    g.path = path;
    g.files = files.empty() ? std::vector<std::string>{path} : std::move(files);
    auto ranks = f.load(g, {}, {});
    EXPECT_TRUE(ranks.ok()) << (ranks.ok() ? "" : ranks.error().toString());
    if (!ranks.ok() || ranks->size() != 1) return nullptr;
    auto rank = std::move(ranks.value().front());
    auto rules = ClassificationRules::fromFile((std::string(STROBE_RESOURCE_DIR) + "/classification.yaml"));
    EXPECT_TRUE(rules.ok());
    auto merged = mergeRank(*rank, rules.ok() ? rules.value() : ClassificationRules{});
    EXPECT_TRUE(merged.ok()) << (merged.ok() ? "" : merged.error().toString());
    auto valid = validateRankData(*rank);
    EXPECT_TRUE(valid.ok()) << (valid.ok() ? "" : valid.error().toString());
    return rank;
}

// Samples of one metric: count, sum, max.
struct MetricStats {
    size_t count = 0;
    double sum = 0;
    double max = -1e300;
};
MetricStats statsOf(const RankData& r, std::string_view metric) {
    MetricStats s;
    for (size_t i = 0; i < r.samples.size(); ++i) {
        if (r.strings.str(r.samples.metric[i]) != metric) continue;
        ++s.count;
        s.sum += r.samples.value[i];
        s.max = std::max(s.max, r.samples.value[i]);
    }
    return s;
}

bool hasDiagnostic(const RankData& r, std::string_view text) {
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                       [&](const Diagnostic& d) { return d.message.find(text) != std::string::npos; });
}

// ---- the shared helpers

TEST(TelemetryMetrics, ParseValueUnitsAndUnavailable) {
    using telemetry::parseValue;
    using telemetry::ValueKind;
    EXPECT_EQ(parseValue("71.50 W").kind, ValueKind::Number);
    EXPECT_DOUBLE_EQ(parseValue("71.50 W").value, 71.5);
    EXPECT_DOUBLE_EQ(parseValue(" 1980 MHz").value, 1980);
    EXPECT_DOUBLE_EQ(parseValue("48.0°C").value, 48.0);
    EXPECT_DOUBLE_EQ(parseValue("1,234.5").value, 1234.5);
    EXPECT_DOUBLE_EQ(parseValue("3,995,313,115.40").value, 3995313115.40);
    EXPECT_DOUBLE_EQ(parseValue("8.1097E+14").value, 8.1097e14);
    EXPECT_EQ(parseValue("[N/A]").kind, ValueKind::NotAvailable);
    EXPECT_EQ(parseValue("[Not Supported]").kind, ValueKind::NotAvailable);
    EXPECT_EQ(parseValue("-").kind, ValueKind::NotAvailable);
    EXPECT_EQ(parseValue("").kind, ValueKind::NotAvailable);
    EXPECT_EQ(parseValue("0x2330").kind, ValueKind::NotNumber);
    EXPECT_EQ(parseValue("Enabled").kind, ValueKind::NotNumber);
    EXPECT_EQ(parseValue("1,23").kind, ValueKind::NotNumber);  // not a thousands separator
    EXPECT_EQ(parseValue("590.48.01").kind, ValueKind::NotNumber);
}

TEST(TelemetryMetrics, WallTimeIsCivilTimeWithoutZone) {
    // 2025-06-13 00:27:52.195 as if UTC: by hand, 20252 days since 1970 → 20252*86400 + 27*60 + 52 = 1749774472 s.
    EXPECT_EQ(telemetry::parseWallTimeNs("2025/06/13 00:27:52.195"), 1749774472195000000LL);
    EXPECT_EQ(telemetry::parseWallTimeNs("20250613 00:27:52"), 1749774472000000000LL);
    EXPECT_EQ(telemetry::parseWallTimeNs("1970-01-01 00:00:01"), 1000000000LL);
    EXPECT_FALSE(telemetry::parseWallTimeNs("2025/13/01 00:00:00"));
    EXPECT_FALSE(telemetry::parseWallTimeNs("yesterday"));
}

TEST(TelemetryMetrics, HeadersMapToStrobeNamesOthersSanitised) {
    const std::vector<std::string> h = {"power.draw [W]", "power.draw.instant [W]", "clocks.current.sm [MHz]",
                                        "utilization.gpu [%]", "clocks_event_reasons_counters.sw_power_cap [us]",
                                        "total_energy_consumption [mJ]"};
    auto m = telemetry::mapColumns(h, telemetry::nvidiaSmiAliases());
    EXPECT_EQ(m[0].metric, "power_w");
    EXPECT_EQ(m[1].metric, "power_draw_instant_w");  // power_w is taken by the preferred column
    EXPECT_EQ(m[2].metric, "sclk_mhz");
    EXPECT_EQ(m[3].metric, "util_pct");
    EXPECT_EQ(m[4].metric, "clocks_event_reasons_counters_sw_power_cap_us");
    EXPECT_EQ(m[5].metric, "energy_j");
    EXPECT_DOUBLE_EQ(m[5].scale, 0.001);
}

// ---- nvidia-smi --query-gpu CSV

TEST(NvidiaSmiCsv, V100sSeries) {
    const std::string path = kData + "/telemetry/nvidia-smi/v100s_gpu_log.csv";
    const std::string text = readAllFormatsTelemetry(path);
    EXPECT_GT(kNvidiaSmiCsvFormat.sniff(sniffFile(path, text)), 0);
    auto r = loadVia(kNvidiaSmiCsvFormat, path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->samples.size(), 535u);  // 107 rows x 5 metric columns
    auto util = statsOf(*r, "util_pct");
    EXPECT_EQ(util.count, 107u);
    EXPECT_DOUBLE_EQ(util.sum, 393.0);
    EXPECT_DOUBLE_EQ(util.max, 19.0);
    EXPECT_DOUBLE_EQ(statsOf(*r, "mem_util_pct").sum, 34.0);
    EXPECT_DOUBLE_EQ(statsOf(*r, "mem_used_mib").sum, 85291.0);
    EXPECT_DOUBLE_EQ(statsOf(*r, "temp_c").sum, 3040.0);
    EXPECT_EQ(r->samples.ts[0], 1749774472195000000LL);
    EXPECT_EQ(r->samples.ts[r->samples.size() - 1], 1749774578248000000LL);
    EXPECT_EQ(r->info.clock.domain, ClockDomain::LocalWallTime);
    EXPECT_FALSE(r->info.clock.anchored);
    ASSERT_EQ(r->info.devices.size(), 1u);
    EXPECT_EQ(r->info.devices[0].name, "Tesla V100S-PCIE-32GB");
    EXPECT_EQ(r->info.devices[0].totalGlobalMem, 32768LL * 1024 * 1024);
    EXPECT_EQ(r->info.format, "nvidia-smi-csv");
}

TEST(NvidiaSmiCsv, H100AllFieldsOneRow) {
    const std::string path = kData + "/telemetry/nvidia-smi/h100_query-gpu_load.csv";
    auto r = loadVia(kNvidiaSmiCsvFormat, path);
    ASSERT_TRUE(r);
    // 212 columns: 88 numeric, 73 [N/A]-like, 42 text (the script excludes the same 9 identity columns).
    EXPECT_EQ(r->samples.size(), 88u);
    EXPECT_DOUBLE_EQ(statsOf(*r, "power_w").sum, 631.95);
    EXPECT_DOUBLE_EQ(statsOf(*r, "power_limit_w").sum, 700.0);
    EXPECT_DOUBLE_EQ(statsOf(*r, "sclk_mhz").sum, 1980);
    EXPECT_DOUBLE_EQ(statsOf(*r, "mclk_mhz").sum, 2619);
    EXPECT_DOUBLE_EQ(statsOf(*r, "temp_c").sum, 59);
    EXPECT_DOUBLE_EQ(statsOf(*r, "mem_used_mib").sum, 19818);
    EXPECT_DOUBLE_EQ(statsOf(*r, "util_pct").sum, 100);
    EXPECT_EQ(r->info.toolVersion, "driver 590.48.01");
    EXPECT_TRUE(hasDiagnostic(*r, "73 values not available"));
    EXPECT_TRUE(hasDiagnostic(*r, "42 values that are not numbers"));
}

TEST(NvidiaSmiCsv, BusIdOrderWithoutIndexAndBadTimestamp) {
    // Two GPUs given by bus id only, listed in reverse order: the lower bus id is device 0.
    const std::string text =
        "timestamp, pci.bus_id, power.draw [W], clocks.sm [MHz]\n"
        "2024/01/02 10:00:00.000, 00000000:C1:00.0, 300.5 W, 1400 MHz\n"
        "2024/01/02 10:00:00.000, 00000000:41:00.0, [N/A], 1410 MHz\n";
    auto r = parseNvidiaSmiCsv(text, "two.csv", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ((*r)->samples.size(), 3u);
    EXPECT_EQ((*r)->samples.device[0], 1);  // C1 sorts after 41
    EXPECT_EQ((*r)->samples.device[2], 0);
    EXPECT_TRUE(hasDiagnostic(**r, "1 values not available"));
    auto bad = parseNvidiaSmiCsv("timestamp, power.draw [W]\nnoon, 3 W\n", "bad.csv", {});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().toString().find("bad.csv"), std::string::npos);
    EXPECT_EQ(bad.error().where.row, 1);
}

TEST(NvidiaSmiCsv, ClockOffsetAnchors) {
    SourceLoadOptions o;
    o.hasClockOffset = true;
    o.clockOffsetNs = -3600'000'000'000LL;
    auto r = parseNvidiaSmiCsv("timestamp, power.draw [W]\n2024/01/02 10:00:00.000, 3 W\n", "x.csv", o);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE((*r)->info.clock.anchored);
    EXPECT_EQ((*r)->info.clock.toRealtimeNs, -3600'000'000'000LL);
}

// ---- dmon

TEST(NvidiaSmiDmon, H100Load) {
    const std::string path = kData + "/telemetry/nvidia-smi/h100_dmon_load.txt";
    EXPECT_GT(kNvidiaSmiDmonFormat.sniff(sniffFile(path, readAllFormatsTelemetry(path))), 0);
    auto r = loadVia(kNvidiaSmiDmonFormat, path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->samples.size(), 55u);
    EXPECT_DOUBLE_EQ(statsOf(*r, "power_w").sum, 3168.0);
    EXPECT_DOUBLE_EQ(statsOf(*r, "sclk_mhz").sum, 9900.0);
    EXPECT_EQ(r->info.clock.domain, ClockDomain::Relative);
    // Five samples of GPU 0 at dmon's default 1 s: 0, 1, ..., 4 s.
    EXPECT_EQ(r->samples.ts[r->samples.size() - 1], 4'000'000'000LL);
    EXPECT_TRUE(hasDiagnostic(*r, "no time"));
}

TEST(NvidiaSmiDmon, L40sIdleDashesCounted) {
    auto r = loadVia(kNvidiaSmiDmonFormat, kData + "/telemetry/nvidia-smi/l40s_dmon_idle.txt");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->samples.size(), 50u);
    EXPECT_DOUBLE_EQ(statsOf(*r, "power_w").sum, 284.0);
    EXPECT_EQ(statsOf(*r, "mem_temp_c").count, 0u);
    EXPECT_TRUE(hasDiagnostic(*r, "5 values not available"));
}

TEST(NvidiaSmiDmon, DateTimeColumnsAndTwoGpus) {
    // dmon -o DT on two GPUs (layout as nvidia-smi documents it), written by hand.
    const std::string text =
        "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem   mclk   pclk\n"
        "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %    MHz    MHz\n"
        " 20240102   10:00:00      0    300     60     50     99     40   1593   1410\n"
        " 20240102   10:00:00      1    250     58     49     97     38   1593   1395\n"
        " 20240102   10:00:01      0    305     61     50     99     40   1593   1410\n";
    auto r = parseNvidiaSmiDmon(text, "dt.txt", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ((*r)->info.clock.domain, ClockDomain::LocalWallTime);
    EXPECT_EQ((*r)->info.devices.size(), 2u);
    // 2024-01-02 10:00:01: 19724 days since 1970 (by hand: 54 years, 13 leap days → 19723 + 1) → 1704189601 s.
    EXPECT_EQ((*r)->samples.ts[(*r)->samples.size() - 1], 1704189601'000'000'000LL);
    EXPECT_EQ(statsOf(**r, "power_w").sum, 855.0);
    EXPECT_FALSE(parseNvidiaSmiDmon("hello\n", "no.txt", {}).ok());
}

// ---- Strobe's sampler CSV

TEST(StrobeSamplerCsv, AnchorsAndDevices) {
    const std::string text =
        "t_realtime_ns,t_monotonic_ns,t_boottime_ns,power_w,gpu1.sclk_mhz,cpu0.util_pct\n"
        "1764000000000000000,123000,456000,310.5,1800,12.5\n"
        "1764000000100000000,100123000,100456000,,1750,13\n";
    SniffInput in;
    in.head = text;
    EXPECT_EQ(sniffStrobeSamplerCsv(in), 95);
    auto r = parseStrobeSamplerCsv(text, "sampler.csv", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& rank = **r;
    EXPECT_EQ(rank.samples.size(), 5u);  // one empty cell skipped
    EXPECT_TRUE(hasDiagnostic(rank, "1 values not available"));
    EXPECT_EQ(rank.info.clock.domain, ClockDomain::Realtime);
    EXPECT_TRUE(rank.info.clock.anchored);
    EXPECT_EQ(statsOf(rank, "sclk_mhz").count, 2u);
    for (size_t i = 0; i < rank.samples.size(); ++i) {
        const auto m = rank.strings.str(rank.samples.metric[i]);
        EXPECT_EQ(rank.samples.device[i], m == "sclk_mhz" ? 1 : -1) << m;
    }
    // realtime - boottime of the first row: 1764000000000000000 - 456000.
    EXPECT_EQ(telemetry::offsetToRealtime(rank.info, ClockDomain::Boottime), 1764000000000000000LL - 456000);
    EXPECT_EQ(telemetry::offsetToRealtime(rank.info, ClockDomain::Monotonic), 1764000000000000000LL - 123000);
    auto bad = parseStrobeSamplerCsv("t_realtime_ns,power_w\n12,3\nsoon,4\n", "s.csv", {});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().where.row, 2);
}

// ---- nccl-tests

struct NcclExpect {
    const char* file;
    size_t rows;
    int64_t oopTotalNs;
    double maxBusbw, maxInplaceBusbw;
    const char* avg;
};

TEST(NcclTests, RealLogs) {
    // From telemetry_formats.py: rows, sum of round(out-of-place time x 1000), max busbw per placement, the average.
    const NcclExpect cases[] = {{"nccl_allreduce.log", 34, 130193500, 235.26, 235.03, "68.4048"},
                                {"nccl_alltoall.log", 34, 69778620, 224.31, 226.16, "58.6481"},
                                {"nccl_reduce.log", 34, 76430050, 230.99, 231.28, "65.018"}};
    for (const auto& c : cases) {
        const std::string path = kData + "/nccl-tests/" + c.file;
        EXPECT_GT(kNcclTestsFormat.sniff(sniffFile(path, readAllFormatsTelemetry(path))), 0) << c.file;
        auto r = loadVia(kNcclTestsFormat, path);
        ASSERT_TRUE(r) << c.file;
        EXPECT_EQ(r->slices.size(), 2 * c.rows) << c.file;
        TimeNs end0 = 0;
        for (size_t i = 0; i < r->slices.size(); ++i)
            if (r->slices.track[i] == 0) end0 = std::max(end0, r->slices.ts[i] + r->slices.dur[i]);
        EXPECT_EQ(end0, c.oopTotalNs) << c.file;
        EXPECT_DOUBLE_EQ(statsOf(*r, "busbw_gbps").max, c.maxBusbw) << c.file;
        EXPECT_DOUBLE_EQ(statsOf(*r, "inplace_busbw_gbps").max, c.maxInplaceBusbw) << c.file;
        EXPECT_EQ(statsOf(*r, "size_bytes").max, 8589934592.0) << c.file;
        EXPECT_EQ(r->info.devices.size(), 8u) << c.file;
        EXPECT_EQ(r->info.devices[0].name, "A100-SXM4-40GB");
        auto avg = std::find_if(r->info.otherKeys.begin(), r->info.otherKeys.end(),
                                [](const auto& kv) { return kv.first == "avg_busbw_gbps"; });
        ASSERT_NE(avg, r->info.otherKeys.end());
        EXPECT_EQ(avg->second, c.avg);
    }
}

TEST(NcclTests, NamesAndArgs) {
    auto r = loadVia(kNcclTestsFormat, kData + "/nccl-tests/nccl_alltoall.log");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->strings.str(r->slices.name[0]), "alltoall");  // from the file name: the log does not say
    // alltoall writes no redop: the blank column is null, the numbers that follow are still read.
    const auto args = r->strings.str(r->slices.args[0]);
    EXPECT_NE(args.find("\"redop\":null"), std::string::npos) << args;
    EXPECT_NE(args.find("\"time_us\":1.63"), std::string::npos) << args;
    EXPECT_NE(args.find("\"in_place\":false"), std::string::npos) << args;
}

// ---- ncu --csv

TEST(NcuCsv, DetailsPage) {
    const std::string path = kData + "/ncu/cublaslt_ncu.log";
    EXPECT_GT(kNcuCsvFormat.sniff(sniffFile(path, readAllFormatsTelemetry(path))), 0);
    auto r = loadVia(kNcuCsvFormat, path);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->gpu.size(), 1u);
    EXPECT_EQ(r->kernelCounters.size(), 47u);  // 50 metric rows, 3 of them text (PolicySpread, CachePreferNone, all)
    EXPECT_EQ(r->gpu.dur[0], 406240);          // Duration, ns
    EXPECT_EQ(r->gpu.gridX[0], 9);
    EXPECT_EQ(r->gpu.gridY[0], 32);
    EXPECT_EQ(r->gpu.blockX[0], 384);
    EXPECT_EQ(r->gpu.registers[0], 168);
    EXPECT_EQ(r->gpu.stream[0], 7);
    EXPECT_EQ(r->gpu.kind[0], EventKind::Kernel);
    std::map<std::string, double> counters;
    for (size_t i = 0; i < r->kernelCounters.size(); ++i)
        counters[std::string(r->strings.str(r->kernelCounters.name[i]))] = r->kernelCounters.value[i];
    EXPECT_DOUBLE_EQ(counters["Achieved Occupancy [%]"], 15.53);
    EXPECT_DOUBLE_EQ(counters["DRAM Frequency [hz]"], 3995313115.40);
    EXPECT_TRUE(hasDiagnostic(*r, "8 rule rows"));
    ASSERT_EQ(r->info.devices.size(), 1u);
    EXPECT_EQ(r->info.devices[0].computeMajor, 10);
}

TEST(NcuCsv, RawPageWithUnitsRowAndThousands) {
    // The raw page's layout (ncu documentation: --page raw --csv): a units row, then one row per kernel.
    const std::string text =
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
        "\"gpu__time_duration.sum\",\"dram__bytes_read.sum\",\"launch__registers_per_thread\"\n"
        "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"usecond\",\"Mbyte\",\"register/thread\"\n"
        "\"0\",\"42\",\"app\",\"h\",\"k1\",\"1\",\"7\",\"1,234.5\",\"3.2\",\"64\"\n"
        "\"1\",\"42\",\"app\",\"h\",\"k2\",\"1\",\"7\",\"2.5\",\"n/a\",\"32\"\n";
    auto r = parseNcuCsv(text, "raw.csv", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& rank = **r;
    ASSERT_EQ(rank.gpu.size(), 2u);
    EXPECT_EQ(rank.gpu.dur[0], 1234500);  // 1,234.5 µs
    EXPECT_EQ(rank.gpu.ts[1], 1234500);   // laid after the first
    EXPECT_EQ(rank.gpu.registers[1], 32);
    EXPECT_EQ(rank.kernelCounters.size(), 5u);
    EXPECT_EQ(rank.strings.str(rank.kernelCounters.name[1]), "dram__bytes_read.sum [Mbyte]");
    auto bad = parseNcuCsv("==PROF== nothing\n", "none.log", {});
    EXPECT_FALSE(bad.ok());
}

TEST(NcuCsv, ErrorLineCountsTheLinesBeforeTheTable) {
    const std::string text = "==PROF== a\n==PROF== b\n\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n"
                             "\"0\",\"1\",\"k,\"m\",\"1\"\n";  // text after a closing quote
    auto r = parseNcuCsv(text, "bad.log", {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.line, 4);  // by hand: two ==PROF== lines, the header, then the bad row
}

// ---- rocprof-compute workload

TEST(RocprofCompute, VcopyWorkload) {
    const std::string dir = kData + "/rocprof-compute/vcopy_MI300X_A1_rocprofv2";
    SniffInput in;
    in.path = dir;
    in.isDirectory = true;
    in.entries = {"pmc_perf.csv", "sysinfo.csv", "pmc_dispatch_info.csv", "timestamps.csv"};
    EXPECT_EQ(sniffRocprofComputeWorkload(in), 90);
    auto g = groupRocprofComputeWorkload(dir, in.entries);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->files.size(), 3u);
    EXPECT_EQ(g->unused.size(), 1u);
    auto r = loadVia(kRocprofComputeWorkloadFormat, dir, g->files);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->gpu.size(), 3u);
    EXPECT_EQ(r->kernelCounters.size(), 7995u);  // 3 dispatches x 2665 counter columns
    std::map<std::string, double> sum;
    for (size_t i = 0; i < r->kernelCounters.size(); ++i)
        sum[std::string(r->strings.str(r->kernelCounters.name[i]))] += r->kernelCounters.value[i];
    EXPECT_DOUBLE_EQ(sum["SQ_WAVES"], 3 * 16384.0);
    EXPECT_DOUBLE_EQ(sum["GRBM_GUI_ACTIVE"], 2572147.0 + 2494642.0 + 2536062.0);
    EXPECT_DOUBLE_EQ(sum["TCC_HIT[0]"], 3 * 512.0);
    EXPECT_EQ(r->gpu.device[0], 2);
    EXPECT_EQ(r->gpu.ts[0], 810970000000000LL);  // 8.1097E+14 as written
    EXPECT_EQ(r->gpu.gridX[0], 1048576);
    EXPECT_EQ(r->gpu.blockX[0], 256);
    EXPECT_TRUE(hasDiagnostic(*r, "scientific notation"));
    ASSERT_EQ(r->info.devices.size(), 1u);
    EXPECT_EQ(r->info.devices[0].name, "MI300X_A1 gfx942");
    EXPECT_EQ(r->info.devices[0].numSms, 304);
    EXPECT_EQ(r->info.devices[0].warpSize, 64);
    EXPECT_EQ(r->info.toolVersion, "rocprof-compute workload v2, ROCm 6.2.0-13611");
    EXPECT_EQ(r->info.clock.domain, ClockDomain::Boottime);
}

TEST(RocprofCompute, TimesJoinedFromTimestampsWhenPmcPerfHasNone) {
    test::TempDir tmp("strobe-rpc-test");
    const auto d = tmp.path();
    test::writeFile(d / "pmc_perf.csv", "Dispatch_ID,GPU_ID,Kernel_Name,SQ_WAVES\n0,0,a,4\n1,0,b,8\n2,0,a,16\n");
    test::writeFile(d / "sysinfo.csv", "gpu_model,gpu_arch,version\nMI300X,gfx942,3\n");
    // Another pass: its own dispatch ids; joined by (name, GPU, instance). b has no time.
    test::writeFile(d / "timestamps.csv",
                    "Dispatch_ID,GPU_ID,Kernel_Name,Start_Timestamp,End_Timestamp\n5,0,a,100,150\n7,0,a,300,390\n");
    auto g = groupRocprofComputeWorkload(d.string(), {"pmc_perf.csv", "sysinfo.csv", "timestamps.csv"});
    ASSERT_TRUE(g);
    auto r = loadVia(kRocprofComputeWorkloadFormat, d.string(), g->files);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->gpu.ts[2], 300);
    EXPECT_EQ(r->gpu.dur[2], 90);
    EXPECT_DOUBLE_EQ(r->stats.joinMatchRate, 2.0 / 3.0);
    EXPECT_TRUE(hasDiagnostic(*r, "b ×1"));
}

TEST(SourceFormats, RegistryHoldsTheseFormats) {
    for (const char* id : {"nvidia-smi-csv", "nvidia-smi-dmon", "strobe-sampler-csv", "nccl-tests", "ncu-csv",
                           "rocprof-compute-workload", "rocm-smi-concise", "rocm-smi-csv", "rocm-smi-json",
                           "amd-smi-metric-csv", "amd-smi-metric-json"})
        EXPECT_NE(findSourceFormat(id), nullptr) << id;
}

// Every sniffer says no to the other formats' real files (a file is recognised by content, one format each).
TEST(SourceFormats, SniffersDoNotClaimEachOthersFiles) {
    const std::vector<std::pair<std::string, std::string>> files = {
        {"telemetry/nvidia-smi/v100s_gpu_log.csv", "nvidia-smi-csv"},
        {"telemetry/nvidia-smi/h100_query-gpu_load.csv", "nvidia-smi-csv"},
        {"telemetry/nvidia-smi/h100_dmon_load.txt", "nvidia-smi-dmon"},
        {"nccl-tests/nccl_allreduce.log", "nccl-tests"},
        {"ncu/cublaslt_ncu.log", "ncu-csv"},
        {"telemetry/amd/rocm-smi_concise_4gpu.txt", "rocm-smi-concise"},
    };
    for (const auto& [file, id] : files) {
        const std::string text = readAllFormatsTelemetry(kData + "/" + file);
        const SniffInput in = sniffFile(file, text);
        const SourceFormat* best = nullptr;
        int bestScore = 0;
        for (const SourceFormat* f : sourceFormats()) {
            const int s = f->sniff(in);
            if (s > bestScore) {
                bestScore = s;
                best = f;
            }
        }
        ASSERT_NE(best, nullptr) << file;
        EXPECT_EQ(std::string(best->id), id) << file;
    }
}

}  // namespace
}  // namespace strobe::core
