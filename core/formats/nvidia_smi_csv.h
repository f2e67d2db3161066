#pragma once
// `nvidia-smi --query-gpu=<fields> --format=csv[,nounits]` output, one sample per GPU per line, at any rate
// (`-l`/`-lms`). Columns are found by name (any subset of fields, any order); values may carry units ("71.50 W")
// or not (nounits), "[N/A]"/"[Not Supported]" are skipped and counted. Metrics get Strobe's names
// (core/formats/telemetry_metrics.h); other numeric columns keep their sanitised own names.
//
// Rank: one rank holding every GPU's samples; device = the `index` column, else the rank of `pci.bus_id` among the
// bus ids written, else 0. Clock: `timestamp` is local wall time without a zone ("2024/01/02 10:00:00.123"):
// ClockDomain::LocalWallTime, not anchored unless --clock-offset is given. Without a timestamp column the samples
// are placed 1 s apart in the order written (ClockDomain::Relative), and a warning says so.

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kNvidiaSmiCsvFormat;  // id "nvidia-smi-csv"

int sniffNvidiaSmiCsv(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseNvidiaSmiCsv(std::string_view text, const std::string& path,
                                                    const SourceLoadOptions& options);

}  // namespace strobe::core
