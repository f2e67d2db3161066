// rocm-smi and amd-smi loaders. The concise table is real (tests/data/telemetry/amd, expected values from
// tests/data/expected/telemetry_formats.py); the CSV and JSON forms have no public sample: the inputs below are
// written by hand in the layout AMD's documentation shows, and the expected values are read off them.
#include <map>

#include <gtest/gtest.h>

#include "core/formats/amd_smi.h"
#include "core/formats/source_format.h"
#include "core/formats/telemetry_metrics.h"
#include "core/model/validate.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

std::map<std::string, double> sumByMetric(const RankData& r) {
    std::map<std::string, double> out;
    for (size_t i = 0; i < r.samples.size(); ++i) out[std::string(r.strings.str(r.samples.metric[i]))] += r.samples.value[i];
    return out;
}

TEST(RocmSmi, ConciseTableReal) {
    const std::string path = std::string(STROBE_TEST_DATA_DIR) + "/telemetry/amd/rocm-smi_concise_4gpu.txt";
    auto text = telemetry::readFileText(path);
    ASSERT_TRUE(text.ok());
    SniffInput in;
    in.head = text->text;
    EXPECT_EQ(kRocmSmiConciseFormat.sniff(in), 80);
    auto r = parseRocmSmiConcise(text->text, path, {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& rank = **r;
    EXPECT_TRUE(validateRankData(rank).ok());
    auto sum = sumByMetric(rank);
    EXPECT_DOUBLE_EQ(sum["temp_c"], 48 + 53 + 52 + 47);
    EXPECT_DOUBLE_EQ(sum["power_w"], 110 + 113 + 125 + 115);
    EXPECT_DOUBLE_EQ(sum["power_limit_w"], 4 * 550);
    EXPECT_DOUBLE_EQ(sum["sclk_mhz"], 98 + 99 + 100 + 100);
    EXPECT_DOUBLE_EQ(sum["mclk_mhz"], 1300 + 1200 + 1300 + 1300);
    EXPECT_EQ(sum.count("util_pct"), 1u);
    EXPECT_EQ(sum.count("fan_pct"), 1u);
    EXPECT_EQ(rank.info.devices.size(), 4u);
    EXPECT_EQ(rank.info.platform, Platform::Amd);
    EXPECT_EQ(rank.info.clock.domain, ClockDomain::Relative);
}

TEST(RocmSmi, ConciseWithNameLines) {
    // The MI300X layout (model on the row, the product name on the next line), written by hand.
    const std::string text =
        "=========== ROCm System Management Interface ===========\n"
        "=========== Concise Info ===========\n"
        "Device  [Model : Revision]    Temp        Power     Partitions      SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%\n"
        "        Name (20 chars)       (Junction)  (Socket)  (Mem, Compute)\n"
        "==========================================\n"
        "0       [0x74a1 : 0x00]       35.0°C      133.0W    NPS1, SPX       131Mhz  900Mhz  0%   auto  750.0W    0%   7%\n"
        "        AMD Instinct MI300X\n"
        "==========================================\n";
    auto r = parseRocmSmiConcise(text, "x.txt", {});
    ASSERT_TRUE(r.ok());
    auto sum = sumByMetric(**r);
    EXPECT_DOUBLE_EQ(sum["power_w"], 133);
    EXPECT_DOUBLE_EQ(sum["power_limit_w"], 750);
    EXPECT_DOUBLE_EQ(sum["util_pct"], 7);
    ASSERT_EQ((*r)->info.devices.size(), 1u);
    EXPECT_EQ((*r)->info.devices[0].name, "AMD Instinct MI300X");
}

TEST(RocmSmi, CsvAndJsonFromDocumentation) {
    const std::string csv =
        "device,Temperature (Sensor edge) (C),Temperature (Sensor junction) (C),sclk clock speed:,sclk clock level:,"
        "Current Socket Graphics Package Power (W),GPU use (%),VRAM Total Memory (B),VRAM Total Used Memory (B)\n"
        "card0,40.0,45.0,(1800Mhz),1,250.5,97,68702699520,1073741824\n"
        "card1,41.0,47.0,(1700Mhz),1,240.0,N/A,68702699520,2147483648\n";
    SniffInput in;
    in.head = csv;
    EXPECT_GT(kRocmSmiCsvFormat.sniff(in), 0);
    auto r = parseRocmSmiCsv(csv, "r.csv", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    auto sum = sumByMetric(**r);
    EXPECT_DOUBLE_EQ(sum["temp_c"], 45 + 47);  // junction preferred over edge
    EXPECT_DOUBLE_EQ(sum["temperature_sensor_edge_c"], 81);
    EXPECT_DOUBLE_EQ(sum["sclk_mhz"], 3500);
    EXPECT_DOUBLE_EQ(sum["power_w"], 490.5);
    EXPECT_DOUBLE_EQ(sum["util_pct"], 97);
    EXPECT_DOUBLE_EQ(sum["mem_used_mib"], 1024 + 2048);  // bytes → MiB
    EXPECT_TRUE((*r)->diagnostics.size() >= 2);          // the N/A and the missing time

    const std::string json =
        R"J({"card0": {"Temperature (Sensor junction) (C)": "45.0", "Current Socket Graphics Package Power (W)": "250.5",)J"
        R"J( "sclk clock speed:": "(1800Mhz)", "Card series": "AMD Instinct MI300X"},)J"
        R"J( "card1": {"Temperature (Sensor junction) (C)": "47.0"}, "system": {"Driver version": "6.8.5"}})J";
    in.head = json;
    EXPECT_GT(kRocmSmiJsonFormat.sniff(in), 0);
    auto j = parseRocmSmiJson(json, "r.json", {});
    ASSERT_TRUE(j.ok()) << j.error().toString();
    auto js = sumByMetric(**j);
    EXPECT_DOUBLE_EQ(js["temp_c"], 92);
    EXPECT_DOUBLE_EQ(js["sclk_mhz"], 1800);
    EXPECT_EQ((*j)->info.devices.size(), 2u);
    EXPECT_FALSE(parseRocmSmiJson("{\"system\": {}}", "s.json", {}).ok());
    EXPECT_FALSE(parseRocmSmiJson("{", "t.json", {}).ok());
}

TEST(AmdSmi, MetricCsvAndJsonFromDocumentation) {
    const std::string csv =
        "gpu,usage_gfx_activity,usage_umc_activity,power_socket_power,clock_gfx_0_clk,clock_mem_0_clk,"
        "temperature_edge,temperature_hotspot,temperature_mem,mem_usage_used_vram\n"
        "0,98,40,700,2100,1300,N/A,70,60,1024\n"
        "1,0,0,140,130,900,N/A,38,35,0\n";
    SniffInput in;
    in.head = csv;
    EXPECT_GT(kAmdSmiMetricCsvFormat.sniff(in), 0);
    auto r = parseAmdSmiMetricCsv(csv, "a.csv", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    auto sum = sumByMetric(**r);
    EXPECT_DOUBLE_EQ(sum["util_pct"], 98);
    EXPECT_DOUBLE_EQ(sum["power_w"], 840);
    EXPECT_DOUBLE_EQ(sum["sclk_mhz"], 2230);
    EXPECT_DOUBLE_EQ(sum["temp_c"], 108);  // hotspot
    EXPECT_EQ(sum.count("temperature_edge"), 0u);

    const std::string json = R"J({"gpu_data": [{"gpu": 0, "usage": {"gfx_activity": {"value": 98, "unit": "%"}},)J"
                             R"J( "power": {"socket_power": {"value": 700, "unit": "W"}},)J"
                             R"J( "clock": {"gfx_0": {"clk": {"value": 2100, "unit": "MHz"}}},)J"
                             R"J( "temperature": {"hotspot": {"value": 70, "unit": "C"}, "edge": "N/A"}},)J"
                             R"J( {"gpu": 1, "power": {"socket_power": {"value": 140, "unit": "W"}}}]})J";
    in.head = json;
    EXPECT_GT(kAmdSmiMetricJsonFormat.sniff(in), 0);
    auto j = parseAmdSmiMetricJson(json, "a.json", {});
    ASSERT_TRUE(j.ok()) << j.error().toString();
    auto js = sumByMetric(**j);
    EXPECT_DOUBLE_EQ(js["power_w"], 840);
    EXPECT_DOUBLE_EQ(js["sclk_mhz"], 2100);
    EXPECT_DOUBLE_EQ(js["util_pct"], 98);
    EXPECT_DOUBLE_EQ(js["temp_c"], 70);
    EXPECT_FALSE(parseAmdSmiMetricJson("[]", "e.json", {}).ok());
}

}  // namespace
}  // namespace strobe::core
