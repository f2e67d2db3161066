// Host telemetry belongs to its host, never to a rank (DESIGN.md "Data model"): Strobe's CPU sampler CSV and
// nvidia-smi samples opened beside a Kineto trace leave the trace's ranks alone.
// Expected values from the files, outside Strobe:
//   /usr/bin/python3 -c "import csv; r=list(csv.reader(open('tests/data/telemetry/strobe/cpu_sampler_2core.csv')));
//   h=r[0]; print(len(r)-1, {h[k]: sum(1 for row in r[1:] if row[k].strip()) for k in range(3, len(h))})"
//   → 100 rows; cpu.util_pct, cpu0.util_pct, cpu1.util_pct, mem_used_mib, mem_total_mib: 100 values each (500).
//   /usr/bin/python3 -c "import gzip,json; ev=json.load(gzip.open('tests/data/kineto/hta/amd_trace/
//   mi250_minitoy_train_ROCm6_2_kineto.json.gz'))['traceEvents']; print(sum(e.get('cat')=='kernel' for e in ev))"
//   → 14 kernels.
#include <string>

#include <gtest/gtest.h>

#include "core/analysis/summary.h"
#include "core/engine/run_loader.h"
#include "core/model/clock_rules.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

const std::string kHostTrace =
    std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz";
const std::string kHostCpuCsv = std::string(STROBE_TEST_DATA_DIR) + "/telemetry/strobe/cpu_sampler_2core.csv";
const std::string kHostSmiCsv = std::string(STROBE_TEST_DATA_DIR) + "/telemetry/nvidia-smi/v100s_gpu_log.csv";

RunLoadOptions noCacheHostTelemetry() {
    RunLoadOptions o;
    o.useCache = false;
    return o;
}

TEST(HostTelemetry, TheCpuSamplerBesideAKinetoTraceIsTheHostsNotARank) {
    auto ds = loadRun({kHostTrace, kHostCpuCsv}, noCacheHostTelemetry());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    ASSERT_EQ((*ds)->ranks.size(), 1u);
    EXPECT_EQ((*ds)->ranks[0]->info.format, "kineto");
    EXPECT_EQ((*ds)->ranks[0]->rank, 0);
    size_t kernels = 0;
    for (size_t i = 0; i < (*ds)->ranks[0]->gpu.size(); ++i) kernels += (*ds)->ranks[0]->gpu.kind[i] == EventKind::Kernel;
    EXPECT_EQ(kernels, 14u);
    ASSERT_EQ((*ds)->hosts.size(), 1u);
    EXPECT_EQ((*ds)->hosts[0].host, "");  // the sampler's CSV names no host
    ASSERT_EQ((*ds)->hosts[0].sources.size(), 1u);
    const RankData& cpu = *(*ds)->hosts[0].sources[0];
    EXPECT_EQ(cpu.info.format, "strobe-sampler-csv");
    EXPECT_EQ(cpu.rank, -1);
    EXPECT_EQ(cpu.samples.size(), 500u);
    for (size_t i = 0; i < cpu.samples.size(); ++i) EXPECT_EQ(cpu.samples.device[i], -1);  // host-wide
    // Never a rank: not in the rank summaries, not in rank lookups; its samples are the run's.
    EXPECT_EQ(summarizeRun(**ds).ranks.size(), 1u);
    EXPECT_EQ((*ds)->rank(1), nullptr);
    ASSERT_EQ((*ds)->sampleSources().size(), 1u);
    EXPECT_EQ((*ds)->sampleSources()[0], &cpu);
    EXPECT_EQ((*ds)->allSources().size(), 2u);
    EXPECT_TRUE(checkClockOverlay(**ds).ok());  // both realtime
    // No warning about a missing or duplicate rank.
    for (const Diagnostic& d : (*ds)->diagnostics) ADD_FAILURE() << d.message;
}

// Two telemetry sources of one host (the CPU sampler and nvidia-smi) are one host's; a run of telemetry alone has
// no rank at all.
TEST(HostTelemetry, TelemetryAloneIsOneHostAndNoRank) {
    auto ds = loadRun({kHostCpuCsv, kHostSmiCsv}, noCacheHostTelemetry());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    EXPECT_TRUE((*ds)->ranks.empty());
    ASSERT_EQ((*ds)->hosts.size(), 1u);
    ASSERT_EQ((*ds)->hosts[0].sources.size(), 2u);
    EXPECT_EQ((*ds)->hosts[0].sources[0]->info.format, "strobe-sampler-csv");
    EXPECT_EQ((*ds)->hosts[0].sources[1]->info.format, "nvidia-smi-csv");
    EXPECT_TRUE(summarizeRun(**ds).ranks.empty());
    EXPECT_GT((*ds)->bytes(), 0u);  // the hosts' data is counted in the run's memory
}

}  // namespace
