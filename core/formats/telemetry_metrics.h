#pragma once
// Strobe's telemetry vocabulary: the metric names of SampleTable (core/model/tables.h), with the unit in the name,
// and the helpers every telemetry loader shares (nvidia-smi, dmon, rocm-smi, amd-smi, Strobe's sampler CSV):
// mapping a tool's column header to a metric, parsing "71.50 W" / "[N/A]" values, local wall-clock timestamps,
// and the clock anchors of the sampler CSV.
//
// Vocabulary (one line per metric; a column Strobe has no name for keeps its own, sanitised: lower case, every run
// of characters other than [a-z0-9] replaced by '_', the unit appended: "clocks_event_reasons_counters_sw_power_cap_us"):
//   power_w         board/socket power draw, W          power_limit_w   enforced power cap, W
//   sclk_mhz        SM / graphics (shader) clock, MHz   mclk_mhz        memory clock, MHz
//   temp_c          GPU (edge or junction) temp, °C     mem_temp_c      memory (HBM) temperature, °C
//   util_pct        GPU busy / SM activity, %           mem_util_pct    memory controller busy, %
//   mem_used_mib    device memory used, MiB             mem_total_mib   device memory total, MiB
//   mem_free_mib    device memory free, MiB             fan_pct         fan speed, %
//   pcie_rx_mb_s    PCIe receive throughput, MB/s       pcie_tx_mb_s    PCIe transmit throughput, MB/s
//   enc_util_pct    video encoder busy, %               dec_util_pct    video decoder busy, %
//   energy_j        energy counter since driver load, J
// Host-wide metrics (CPU samplers) use device -1.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/formats/rank_builder.h"
#include "core/formats/source_format.h"
#include "core/io/error.h"
#include "core/io/file_source.h"
#include "core/model/dataset.h"

namespace strobe::core::telemetry {

inline constexpr std::string_view kPowerW = "power_w";
inline constexpr std::string_view kPowerLimitW = "power_limit_w";
inline constexpr std::string_view kSclkMhz = "sclk_mhz";
inline constexpr std::string_view kMclkMhz = "mclk_mhz";
inline constexpr std::string_view kTempC = "temp_c";
inline constexpr std::string_view kMemTempC = "mem_temp_c";
inline constexpr std::string_view kUtilPct = "util_pct";
inline constexpr std::string_view kMemUtilPct = "mem_util_pct";
inline constexpr std::string_view kMemUsedMib = "mem_used_mib";
inline constexpr std::string_view kMemTotalMib = "mem_total_mib";
inline constexpr std::string_view kMemFreeMib = "mem_free_mib";
inline constexpr std::string_view kFanPct = "fan_pct";
inline constexpr std::string_view kPcieRxMbS = "pcie_rx_mb_s";
inline constexpr std::string_view kPcieTxMbS = "pcie_tx_mb_s";
inline constexpr std::string_view kEncUtilPct = "enc_util_pct";
inline constexpr std::string_view kDecUtilPct = "dec_util_pct";
inline constexpr std::string_view kEnergyJ = "energy_j";

// Every name of the vocabulary above, in that order.
const std::vector<std::string_view>& knownMetrics();
bool isKnownMetric(std::string_view name);

// A header split into its name and its bracketed unit: "power.draw [W]" → {"power.draw", "W"}.
struct HeaderName {
    std::string name;
    std::string unit;
};
HeaderName splitHeader(std::string_view header);
// Lower case, runs of other characters than [a-z0-9] → '_', trimmed of '_', then "_<unit>" when a unit is given
// ("%" → "pct"). Never empty ("metric" for a header of symbols only).
std::string sanitizeMetricName(std::string_view name, std::string_view unit = {});

// How a tool's columns map onto the vocabulary: for each metric, the tool's column names (without unit) in order of
// preference; `scale` converts the tool's unit to Strobe's (mJ → J: 0.001).
struct MetricAlias {
    std::string_view metric;
    std::vector<std::string_view> columns;
    double scale = 1.0;
};
// Assigns each header a metric name: the first preferred column present gets the Strobe name, every other column
// its sanitised own name (made unique). Returns one entry per header, with the scale to apply.
struct ColumnMetric {
    std::string metric;
    double scale = 1.0;
};
std::vector<ColumnMetric> mapColumns(const std::vector<std::string>& headers, const std::vector<MetricAlias>& aliases);

// The aliases of nvidia-smi --query-gpu columns (also its dmon columns, which use short names).
const std::vector<MetricAlias>& nvidiaSmiAliases();
const std::vector<MetricAlias>& dmonAliases();

// A telemetry value as tools write it: "71.50 W", "1980 MHz", "45 %", "27", " 0x1" is not a number.
enum class ValueKind : uint8_t { Number, NotAvailable, NotNumber };
struct ParsedValue {
    ValueKind kind = ValueKind::NotNumber;
    double value = 0;
};
// Numbers may carry a trailing unit word and thousands separators ("1,234.5"); "[N/A]", "N/A", "[Not Supported]",
// "-", "" and "[Unknown Error]" are NotAvailable.
ParsedValue parseValue(std::string_view text);

// Counts of values that were not numbers, for the one diagnostic a loader adds (nothing skipped silently).
struct SkipCounter {
    uint64_t notAvailable = 0;
    uint64_t notNumber = 0;
    std::vector<std::string> notNumberColumns;  // distinct, in order of first sight
    void add(const ParsedValue& v, std::string_view column);
    // An Info diagnostic saying what was skipped, when anything was.
    void report(RankData& rank, const std::string& path) const;
};

// "2024/01/02 10:00:00.123" (nvidia-smi), "2024-01-02 10:00:00", "20240102 10:00:00" → ns since 1970-01-01 00:00
// of that wall clock (no zone applied). nullopt when the text is not such a time.
std::optional<int64_t> parseWallTimeNs(std::string_view text);

// Times and durations from numbers a tool wrote, kept inside what the model accepts (core/model/validate.h):
// clampNs gives a duration, 0 when negative or not finite, at most kMaxDurationNs; clampTimeNs a time, at most
// kMaxNs; addNs a running sum of laid-end-to-end items, at most kMaxNs.
inline constexpr int64_t kMaxNs = 1'000'000'000'000'000'000LL;
int64_t clampNs(double ns);
int64_t clampTimeNs(double ns);
int64_t addNs(int64_t a, int64_t b);

// Appends one sample row, interning the metric name.
void appendSample(RankData& rank, int64_t ts, int16_t device, std::string_view metric, double value);

// Sets the rank's clock: `domain`, anchored when the source is Realtime, else by applyClockOptions (the run
// manifest's clocks, else --clock-offset).
void setClock(TraceInfo& info, ClockDomain domain, const SourceLoadOptions& options, std::string anchorFromSource = {});

// The sampler CSV's clock anchors: what the other clocks read at the moment CLOCK_REALTIME read `realtimeNs`.
// Kept in TraceInfo::otherKeys ("clock_anchor.monotonic_ns"...) so that the load cache keeps them.
struct ClockAnchors {
    int64_t realtimeNs = 0;
    std::optional<int64_t> monotonicNs;
    std::optional<int64_t> boottimeNs;
};
void storeClockAnchors(TraceInfo& info, const ClockAnchors& anchors);
std::optional<ClockAnchors> clockAnchorsOf(const TraceInfo& info);
// Offset to add to a time on `domain` (Monotonic or Boottime) to reach realtime ns, from stored anchors.
std::optional<int64_t> offsetToRealtime(const TraceInfo& info, ClockDomain domain);

using ::strobe::core::FileText;  // core/io/file_source.h
using ::strobe::core::readFileText;

// A GPU activity (RankBuilder's row: core/formats/rank_builder.h) on a track the loader chose, with args (JSON
// object text). The category defaults to "kernel".
struct GpuRow : ::strobe::core::GpuRow {
    GpuRow() { cat = "kernel"; }
    uint32_t track = 0;
    std::string_view args = {};
};
// Appends it; returns its row index.
uint32_t appendGpuRow(RankData& rank, const GpuRow& row);
// The index of track (pid, tid), added when new.
uint32_t trackIndex(RankData& rank, int64_t pid, int64_t tid);

// A new rank for a single-file source: path, format id, rank 0.
std::unique_ptr<RankData> newRank(const std::string& path, std::string_view format);
// Parses a whole file's text into one rank (text formats and single-file CSV formats; the fuzz targets call the
// parser on bytes directly).
using TextParser = Result<std::unique_ptr<RankData>> (*)(std::string_view text, const std::string& path,
                                                         const SourceLoadOptions& options);
// Reads group.files[0] and parses it; fills the rank's file size and gzip flag.
Result<std::vector<std::unique_ptr<RankData>>> loadTextFile(const SourceGroup& group, const SourceLoadOptions& options,
                                                            TextParser parse);

// Splits text into lines (LF or CRLF), calling fn(line, 1-based line number).
template <class Fn>
void forEachLine(std::string_view text, Fn&& fn) {
    size_t pos = 0;
    int64_t lineNo = 1;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        fn(line, lineNo);
        pos = end + 1;
        ++lineNo;
    }
}
// Whitespace-separated tokens of a line.
std::vector<std::string_view> splitWords(std::string_view line);

}  // namespace strobe::core::telemetry
