// Derived metrics: the expression evaluator (values worked by hand in the comments, errors named), the shipped
// YAML table and the architecture constants, and the metrics on real counter data against
// tests/data/expected/derived_metrics.txt (written by derived_metrics.py from the CSVs with Python's csv module).
#include "core/analysis/derived_metrics.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/formats/rocprof_compute_workload.h"
#include "core/formats/rocprofv3_csv.h"
#include "core/formats/source_detect.h"
#include "core/formats/source_format.h"
#include "core/merge/merge.h"
#include "core/model/classification.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

const std::string kDerivedMetricsData = STROBE_TEST_DATA_DIR;

std::optional<double> eval(const std::string& text, const std::map<std::string, double>& vars = {}) {
    auto e = DerivedExpression::parse(text, Location{"t.yaml", -1, 3, -1});
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().toString());
    if (!e) return std::nullopt;
    auto v = e->evaluate([&](std::string_view n) -> std::optional<double> {
        auto it = vars.find(std::string(n));
        return it == vars.end() ? std::nullopt : std::optional<double>(it->second);
    });
    EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().toString());
    return v.ok() ? *v : std::nullopt;
}

// Expected values of one metric per dispatch: "key=value" words of the lines starting with `prefix`.
std::vector<double> expected(const std::string& prefix, const std::string& metric) {
    std::ifstream in(kDerivedMetricsData + "/expected/derived_metrics.txt");
    std::vector<double> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(prefix, 0) != 0) continue;
        std::istringstream ws(line);
        std::string w;
        while (ws >> w)
            if (w.rfind(metric + "=", 0) == 0) out.push_back(std::stod(w.substr(metric.size() + 1)));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<double> computed(const RankData& r, const DerivedMetricSet& set, const ArchConstants* arch,
                             const std::string& metric) {
    std::vector<double> out;
    for (const auto& [row, v] : kernelMetricValues(r, set, arch, metric)) out.push_back(v);
    std::sort(out.begin(), out.end());
    return out;
}

void merge(RankData& r) {
    auto rules = ClassificationRules::fromFile((std::string(STROBE_RESOURCE_DIR) + "/classification.yaml"));
    ASSERT_TRUE(rules.ok());
    auto merged = mergeRank(r, rules.value());
    ASSERT_TRUE(merged.ok());
}

}  // namespace

TEST(DerivedExpression, ArithmeticPrecedenceAndFunctions) {
    EXPECT_DOUBLE_EQ(*eval("1 + 2 * 3"), 7.0);            // * before +
    EXPECT_DOUBLE_EQ(*eval("(1 + 2) * 3"), 9.0);
    EXPECT_DOUBLE_EQ(*eval("10 - 4 - 3"), 3.0);           // left associative: (10-4)-3
    EXPECT_DOUBLE_EQ(*eval("8 / 4 / 2"), 1.0);            // (8/4)/2
    EXPECT_DOUBLE_EQ(*eval("-2 * -3"), 6.0);
    EXPECT_DOUBLE_EQ(*eval("1.5e3 / 3"), 500.0);
    EXPECT_DOUBLE_EQ(*eval("min(4, 2, 9) + max(1, 7)"), 9.0);
    EXPECT_DOUBLE_EQ(*eval("100 * TCC_HIT / (TCC_HIT + TCC_MISS)", {{"TCC_HIT", 3}, {"TCC_MISS", 1}}), 75.0);
    EXPECT_DOUBLE_EQ(*eval("dram__bytes.sum / arch.hbm_bandwidth_gbs", {{"dram__bytes.sum", 10}, {"arch.hbm_bandwidth_gbs", 4}}), 2.5);
    EXPECT_FALSE(eval("SQ_WAVES * 2").has_value());  // unknown name: no value, not an error
}

TEST(DerivedExpression, ParseErrorsNameLineColumnAndToken) {
    const Location where{"my.yaml", -1, 12, -1};
    struct Case { const char* text; const char* token; };
    for (const Case& c : {Case{"1 + * 2", "'*'"}, Case{"(1 + 2", "end of formula"}, Case{"a $ b", "'$'"},
                          Case{"pow(2, 3)", "'('"}, Case{"1.2.3", "'1.2.3'"}, Case{"", "end of formula"},
                          Case{"min(1 2)", "'2'"}, Case{"3 4", "'4'"}}) {
        auto e = DerivedExpression::parse(c.text, where);
        ASSERT_FALSE(e.ok()) << c.text;
        EXPECT_EQ(e.error().where.file, "my.yaml");
        EXPECT_EQ(e.error().where.line, 12);
        EXPECT_NE(e.error().message.find(c.token), std::string::npos) << c.text << ": " << e.error().message;
    }
    // Deep nesting is refused, not a stack overflow.
    auto deep = DerivedExpression::parse(std::string(100000, '(') + "1", where);
    EXPECT_FALSE(deep.ok());
    auto neg = DerivedExpression::parse(std::string(100000, '-') + "1", where);
    EXPECT_FALSE(neg.ok());
}

TEST(DerivedExpression, DivisionByZeroIsANamedError) {
    auto e = DerivedExpression::parse("a / (b - b)", Location{"m.yaml", -1, 7, -1});
    ASSERT_TRUE(e.ok());
    auto v = e->evaluate([](std::string_view) { return std::optional<double>(2.0); });
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.error().where.file, "m.yaml");
    EXPECT_EQ(v.error().where.line, 7);
    EXPECT_NE(v.error().message.find("division by zero at column 3"), std::string::npos) << v.error().message;
}

TEST(DerivedMetricSet, YamlErrorsAndUserOverride) {
    auto bad = DerivedMetricSet::fromYamlText("metrics:\n  - name: x\n    formula: 1 +\n", "u.yaml");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().where.file, "u.yaml");
    EXPECT_EQ(bad.error().where.line, 3);
    auto unknown = DerivedMetricSet::fromYamlText("metrics:\n  - name: x\n    formla: 1\n", "u.yaml");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("formla"), std::string::npos);
    auto broken = DerivedMetricSet::fromYamlText("metrics: [\n", "u.yaml");
    EXPECT_FALSE(broken.ok());

    auto shipped = DerivedMetricSet::fromFile((std::string(STROBE_RESOURCE_DIR) + "/derived_metrics.yaml"));
    ASSERT_TRUE(shipped.ok()) << shipped.error().toString();
    const size_t n = shipped->metrics().size();
    EXPECT_GE(n, 15u);
    auto user = DerivedMetricSet::fromYamlText(
        "metrics:\n  - name: l2_hit_pct\n    formula: 42\n  - name: mine\n    unit: x\n    formula: [a, 2]\n", "u.yaml");
    ASSERT_TRUE(user.ok()) << user.error().toString();
    shipped->merge(*user);
    EXPECT_EQ(shipped->metrics().size(), n + 1);
    EXPECT_EQ(shipped->find("l2_hit_pct")->formulas.front().text(), "42");
    EXPECT_EQ(shipped->find("mine")->formulas.size(), 2u);
}

TEST(ArchConstants, ShippedTableAndDeviceNames) {
    auto all = loadArchConstants();
    ASSERT_TRUE(all.ok()) << all.error().toString();
    // Values read by hand from resources/arch_constants.yaml.
    const ArchConstants* mi300 = findArch(*all, "MI300X_A1 gfx942");
    ASSERT_NE(mi300, nullptr);
    EXPECT_EQ(mi300->key, "MI300X");
    EXPECT_DOUBLE_EQ(mi300->values.at("arch.compute_units"), 304);
    const ArchConstants* h100 = findArch(*all, "NVIDIA H100 80GB HBM3");
    ASSERT_NE(h100, nullptr);
    EXPECT_EQ(h100->key, "H100_SXM");
    EXPECT_EQ(findArch(*all, "AMD Instinct MI325X")->key, "MI325X");
    EXPECT_EQ(findArch(*all, "NVIDIA A100-SXM4-80GB")->key, "A100_SXM4_80GB");
    EXPECT_EQ(findArch(*all, "Tesla T4"), nullptr);
}

// Device names as real files write them, each with the entry it must resolve to. The names were listed with
//   grep -rhoa '"AMD Instinct[^"]*"\|NVIDIA [A-Z0-9]* [^",]*' tests/data | sort -u
// plus zcat of the .gz traces (Kineto deviceProperties "name", rocprofv3 agents "product_name"/"name") and
// python3 sqlite3 over tests/data/sqlite (nsys TARGET_INFO_GPU.name, rocpd_info_agent, rocprof-compute sys_info_extdata).
TEST(ArchConstants, RealDeviceNamesResolve) {
    auto all = loadArchConstants();
    ASSERT_TRUE(all.ok()) << all.error().toString();
    struct Case {
        const char* name;
        const char* gfx;
        int units;
        const char* want;  // "" = no entry
    };
    const Case cases[] = {
        {"AMD Instinct MI350X", "gfx950", 256, "MI350X"},   // rocprof/tracelens_908_results.json.gz agent product_name
        {"gfx950", "", 256, "MI350X"},                      // the same agent's "name" (product_name left empty)
        {"MI350", "gfx950", 256, "MI350X"},                 // sqlite/rocprof_compute_mi350.db gpu_model, gpu_arch, cu_per_gpu
        {"AMD Instinct MI355X", "gfx950", 256, "MI355X"},   // not MI350X although both are gfx950 with 256 CUs
        {"AMD Instinct MI300X", "gfx942", 304, "MI300X"},   // kineto/tracelens mi300x deviceProperties, rocpd_doc_sample.db
        {"AMD Instinct MI300X VF", "gfx942", 304, "MI300X"},  // the SR-IOV virtual function of the same part
        {"MI300X_A1 gfx942", "", 304, "MI300X"},            // rocprof-compute/vcopy_MI300X_A1_rocprofv2/sysinfo.csv
        {"AMD Instinct MI325X", "gfx942", 304, "MI325X"},   // not MI300X: the longest model present wins
        {"AMD Instinct MI300A", "gfx942", 228, "MI300A"},
        {"AMD Radeon Graphics", "gfx942", 228, "MI300A"},   // no model in the name: the ISA, then the CU count
        {"AMD Radeon Graphics", "gfx942", 0, "MI300X"},     // the ISA alone: its first entry
        {"AMD Radeon Graphics", "gfx90a", 104, "MI210"},    // (the HTA mi250 trace names no ISA: unresolved below)
        {"AMD Radeon Graphics", "", 104, ""},
        {"NVIDIA H100 80GB HBM3", "", 132, "H100_SXM"},     // telemetry/nvidia-smi/h100_query-gpu_load.csv, Kineto
        {"NVIDIA H200", "", 132, "H200_SXM"},               // sqlite/nsys_fuser_h200.sqlite TARGET_INFO_GPU.name
        {"NVIDIA GH200 480GB", "", 132, ""},                // Grace Hopper: not taken for an H200
        {"NVIDIA A100-SXM4-80GB", "", 108, "A100_SXM4_80GB"},  // sqlite/nsys_cloverleaf_a100.sqlite
        {"NVIDIA A100-PG509-200", "", 108, "A100_SXM4_80GB"},  // kineto deviceProperties
        {"Tesla V100-SXM2-16GB", "", 80, "V100_SXM2"},
        {"Tesla V100-SXM2-32GB", "", 80, "V100_SXM2"},      // kineto deviceProperties
        {"Tesla V100-DGXS-32GB", "", 80, "V100_SXM2"},      // kineto deviceProperties
        {"Tesla V100S-PCIE-32GB", "", 80, "V100_SXM2"},     // telemetry/nvidia-smi/v100s_gpu_log.csv
        {"NVIDIA L40S", "", 142, "L40S"},                   // telemetry/nvidia-smi/l40s_query-gpu_load.csv
        {"NVIDIA L40", "", 142, ""},                        // an L40 is not an L40S
        {"NVIDIA B200", "", 148, "B200"},
        {"Quadro GP100", "", 56, ""},                       // kineto deviceProperties: no entry
        {"GPU 0", "", 0, ""},                               // kineto deviceProperties of a CPU-only capture
        {"Tesla T4", "", 40, ""},
    };
    for (const Case& c : cases) {
        const ArchConstants* a = findArch(*all, c.name, c.gfx, c.units);
        EXPECT_EQ(a ? a->key : std::string(), c.want) << c.name << " / " << c.gfx << " / " << c.units;
    }
}

// The device of each real file, as its loader fills DeviceProperties, resolves through findArch(DeviceProperties).
TEST(ArchConstants, RealFilesResolve) {
    auto all = loadArchConstants();
    ASSERT_TRUE(all.ok()) << all.error().toString();
    const std::pair<std::string, std::string> files[] = {
        {"/rocprof/tracelens_908_results.json.gz", "MI350X"},
        {"/sqlite/rocprof_compute_mi350.db", "MI350X"},
        {"/sqlite/rocpd_doc_sample.db", "MI300X"},
        {"/sqlite/nsys_fuser_h200.sqlite", "H200_SXM"},
        {"/sqlite/nsys_cloverleaf_a100.sqlite", "A100_SXM4_80GB"},
        {"/telemetry/nvidia-smi/l40s_query-gpu_load.csv", "L40S"},
        {"/telemetry/nvidia-smi/h100_query-gpu_load.csv", "H100_SXM"},
        {"/telemetry/nvidia-smi/v100s_gpu_log.csv", "V100_SXM2"},
    };
    for (const auto& [file, want] : files) {
        auto groups = detectSources({kDerivedMetricsData + file});
        ASSERT_TRUE(groups.ok() && groups->size() == 1u) << file;
        const SourceFormat* f = findSourceFormat((*groups)[0].format);
        ASSERT_NE(f, nullptr) << file;
        auto ranks = f->load((*groups)[0], {}, {});
        ASSERT_TRUE(ranks.ok()) << file << ": " << ranks.error().toString();
        ASSERT_FALSE(ranks->empty()) << file;
        const auto& devices = ranks->front()->info.devices;
        ASSERT_FALSE(devices.empty()) << file;
        const ArchConstants* a = findArch(*all, devices.front());
        EXPECT_EQ(a ? a->key : std::string(), want) << file << ": " << devices.front().name;
    }
}

TEST(DerivedMetrics, RocprofComputeVcopyMatchesPython) {
    const std::string dir = kDerivedMetricsData + "/rocprof-compute/vcopy_MI300X_A1_rocprofv2";
    auto g = groupRocprofComputeWorkload(dir, {"pmc_perf.csv", "sysinfo.csv", "pmc_dispatch_info.csv", "timestamps.csv"});
    ASSERT_TRUE(g);
    auto ranks = kRocprofComputeWorkloadFormat.load(*g, {}, {});
    ASSERT_TRUE(ranks.ok()) << ranks.error().toString();
    RankData& r = *ranks->front();
    merge(r);
    auto set = DerivedMetricSet::fromFile((std::string(STROBE_RESOURCE_DIR) + "/derived_metrics.yaml"));
    ASSERT_TRUE(set.ok());
    auto archs = loadArchConstants();
    ASSERT_TRUE(archs.ok());
    const ArchConstants* arch = findArch(*archs, r.info.gpuName());
    ASSERT_NE(arch, nullptr) << r.info.gpuName();
    for (const char* m : {"gpu_busy_pct", "cu_busy_pct", "valu_active_pct", "mfma_busy_pct", "occupancy_pct",
                          "l2_hit_pct", "scalar_l1_hit_pct", "hbm_bytes", "flops"}) {
        auto want = expected("dispatch ", m);
        auto got = computed(r, *set, arch, m);
        ASSERT_EQ(want.size(), 3u) << m;
        ASSERT_EQ(got.size(), want.size()) << m;
        for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9 * std::max(1.0, want[i])) << m;
    }
    // The workload's timestamps (8.1097E+14) give zero durations: bandwidth is a named division by zero.
    auto all = computeDerivedMetrics(r, *set, arch);
    bool named = false;
    for (const auto& d : all.diagnostics)
        named = named || (d.message.find("hbm_bandwidth_gbs") != std::string::npos &&
                          d.message.find("division by zero") != std::string::npos &&
                          d.where.file.find("derived_metrics.yaml") != std::string::npos && d.where.line > 0);
    EXPECT_TRUE(named);
    EXPECT_TRUE(computed(r, *set, arch, "hbm_bandwidth_gbs").empty());
    // Without arch constants the metrics that need them are absent, the others still computed.
    EXPECT_TRUE(computed(r, *set, nullptr, "cu_busy_pct").empty());
    EXPECT_EQ(computed(r, *set, nullptr, "l2_hit_pct").size(), 3u);
}

TEST(DerivedMetrics, RocprofV3DocsWavesPerMicrosecond) {
    auto g = detectSources({kDerivedMetricsData + "/rocprof/docs-2025/kernel_trace.csv"});
    ASSERT_TRUE(g.ok());
    auto ranks = loadRocprofv3Csv((*g)[0]);
    ASSERT_TRUE(ranks.ok()) << ranks.error().toString();
    RankData& r = *ranks->front();
    merge(r);
    auto set = DerivedMetricSet::fromFile((std::string(STROBE_RESOURCE_DIR) + "/derived_metrics.yaml"));
    ASSERT_TRUE(set.ok());
    auto want = expected("docs dispatch ", "waves_per_us");
    auto got = computed(r, *set, nullptr, "waves_per_us");
    ASSERT_EQ(want.size(), 5u);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9 * want[i]);
    // A raw counter by name works too.
    EXPECT_EQ(computed(r, *set, nullptr, "SQ_WAVES").size(), 6u);  // 6 counter rows (dispatch 4 twice)
}
