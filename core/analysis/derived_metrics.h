#pragma once
// Derived metrics: formulas (resources/derived_metrics.yaml, extended or overridden by the user's
// <config dir>/derived_metrics.yaml) over the hardware counters loaded into RankData::kernelCounters, the kernel's
// own columns (duration_ns, grid_size, block_size) and architecture constants (resources/arch_constants.yaml,
// flattened to names such as arch.compute_units or arch.peak_tflops.fp16_bf16_matrix).
//
// A metric lists one or more formulas; for each kernel the first formula whose names all have values is used, so
// one metric covers rocprofv3 (TCC_HIT), rocprof-compute (TCC_HIT_sum) and ncu names. A kernel lacking the
// counters of every formula simply has no value for that metric.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/derived_expr.h"
#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

struct DerivedMetric {
    std::string name;
    std::string unit;
    std::string description;
    std::vector<DerivedExpression> formulas;  // alternatives, first usable wins
    std::string file;
    int line = 0;
};

class DerivedMetricSet {
public:
    // Parses a YAML table `metrics: [{name, unit, description, formula: TEXT | [TEXT, ...]}]`; errors name the
    // file, the line and the bad token.
    static Result<DerivedMetricSet> fromYamlText(const std::string& text, const std::string& fileName);
    static Result<DerivedMetricSet> fromFile(const std::string& path);
    // The shipped table, then the user's file (same name replaces, new names are added).
    static Result<DerivedMetricSet> loadDefault();
    static std::string userPath();

    void merge(const DerivedMetricSet& other);  // other's metrics replace same-named ones, others are appended
    const std::vector<DerivedMetric>& metrics() const { return m_metrics; }
    const DerivedMetric* find(std::string_view name) const;

private:
    std::vector<DerivedMetric> m_metrics;
};

// One GPU's architecture constants, flattened (nested keys joined by '.', prefixed "arch.").
struct ArchConstants {
    std::string key;   // the YAML key: MI300X, H100_SXM...
    std::string vendor;
    std::string gfx;   // AMD ISA name (gfx942), "" for NVIDIA entries
    std::map<std::string, double, std::less<>> values;
};

Result<std::vector<ArchConstants>> parseArchConstants(const std::string& text, const std::string& fileName);
Result<std::vector<ArchConstants>> loadArchConstants();  // resources/arch_constants.yaml
// The entry a device name describes ("AMD Instinct MI350X", "NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB"),
// ignoring case. The name is cut into words at every character that is not a letter or digit; an entry matches when
// a word starts with its model (the key up to the first '_': MI300X, H100, V100) and does not go on with a digit
// ("V100S" is a V100, "MI3000" is not an MI300X, "GH200" is not an H200). The longest model wins, then the entry
// with more of the key's other parts among the words (A100_SXM4_80GB over a plain A100).
// With no model in the name, the AMD ISA (a word gfxNNN of the name, else `gfx`) picks the entries of that ISA:
// the one whose compute_units (or compute_units_per_device) equals `computeUnits` when exactly one does, else the
// first listed (gfx942 -> MI300X, gfx950 -> MI350X). nullptr when nothing matches.
const ArchConstants* findArch(const std::vector<ArchConstants>& all, std::string_view deviceName,
                              std::string_view gfx = {}, int computeUnits = 0);
// The same for a loaded device: its name, the first gfxNNN in its raw properties (rocprofv3's agent "name",
// rocprof-compute's gpu_arch, Kineto's gcnArchName) and its compute-unit count (numSms).
const ArchConstants* findArch(const std::vector<ArchConstants>& all, const DeviceProperties& device);

// Values of the metrics per kernel: one row per (GPU activity with counters, metric that could be computed).
struct DerivedValues {
    std::vector<uint32_t> gpuRow;
    std::vector<uint32_t> metric;  // index into DerivedMetricSet::metrics()
    std::vector<double> value;
    Diagnostics diagnostics;       // evaluation errors (division by zero), one per metric
    size_t size() const { return gpuRow.size(); }
};

DerivedValues computeDerivedMetrics(const RankData& rank, const DerivedMetricSet& set, const ArchConstants* arch);

// Value of one metric (or raw counter when `name` is no metric) for each GPU activity that has it, as
// (gpuRow, value) pairs in gpuRow order.
std::vector<std::pair<uint32_t, double>> kernelMetricValues(const RankData& rank, const DerivedMetricSet& set,
                                                            const ArchConstants* arch, std::string_view name);

}  // namespace strobe::core
