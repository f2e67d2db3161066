#pragma once
// AMD's telemetry tools:
//  - rocm-smi's concise table (the default output: "ROCm System Management Interface" / "Concise Info" banner, one
//    line per GPU: Device, Node, IDs, Temp, Power, Partitions, SCLK, MCLK, Fan, Perf, PwrCap, VRAM%, GPU%; the column
//    set differs between releases, so values are found by their units: the first "°C" is the temperature, the first
//    "W" the power and a second one the cap, the "Mhz" values SCLK then MCLK, the last two "%" VRAM% and GPU%, a "%"
//    right after MCLK the fan). Real sample: rocprofiler-sdk's docs (4× MI300A).
//  - rocm-smi --csv (one row per card: "device" = card0..., "Temperature (Sensor junction) (C)", "Current Socket
//    Graphics Package Power (W)", "sclk clock speed:" = "(1800Mhz)", "GPU use (%)", "VRAM Total Used Memory (B)" ...)
//    and --json ({"card0": {same keys: string values}, ...}): built from documentation, no real sample.
//  - amd-smi metric --csv (flattened columns: gpu, usage_gfx_activity, power_socket_power, clock_gfx_0_clk,
//    temperature_hotspot, mem_usage_used_vram ...) and --json (a list of {"gpu": N, "usage": {"gfx_activity":
//    {"value": 12, "unit": "%"}}, ...}, possibly under "gpu_data"; nested keys flattened with '_' to the CSV names):
//    built from documentation, no real sample.
// Metrics get Strobe's names (core/formats/telemetry_metrics.h); other numeric fields their sanitised own names.
// None of these writes a time unless asked (amd-smi metric -w/--loop adds "timestamp" in some releases: read when
// present, as Unix seconds): a snapshot is one sample at ts 0 on ClockDomain::Relative, with a warning.
// Rank: one rank holding every GPU's samples; device = the GPU index.

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kRocmSmiConciseFormat;  // id "rocm-smi-concise"
extern const SourceFormat kRocmSmiCsvFormat;      // id "rocm-smi-csv"
extern const SourceFormat kRocmSmiJsonFormat;     // id "rocm-smi-json"
extern const SourceFormat kAmdSmiMetricCsvFormat;   // id "amd-smi-metric-csv"
extern const SourceFormat kAmdSmiMetricJsonFormat;  // id "amd-smi-metric-json"

Result<std::unique_ptr<RankData>> parseRocmSmiConcise(std::string_view text, const std::string& path,
                                                      const SourceLoadOptions& options);
Result<std::unique_ptr<RankData>> parseRocmSmiCsv(std::string_view text, const std::string& path,
                                                  const SourceLoadOptions& options);
Result<std::unique_ptr<RankData>> parseRocmSmiJson(std::string_view text, const std::string& path,
                                                   const SourceLoadOptions& options);
Result<std::unique_ptr<RankData>> parseAmdSmiMetricCsv(std::string_view text, const std::string& path,
                                                       const SourceLoadOptions& options);
Result<std::unique_ptr<RankData>> parseAmdSmiMetricJson(std::string_view text, const std::string& path,
                                                        const SourceLoadOptions& options);

}  // namespace strobe::core
