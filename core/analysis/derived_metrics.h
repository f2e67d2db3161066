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
    std::map<std::string, double, std::less<>> values;
};

Result<std::vector<ArchConstants>> parseArchConstants(const std::string& text, const std::string& fileName);
Result<std::vector<ArchConstants>> loadArchConstants();  // resources/arch_constants.yaml
// The entry whose model (key up to the first '_', e.g. MI300X, H100) occurs in the device name
// ("AMD Instinct MI300X", "NVIDIA H100 80GB HBM3"), ignoring case, spaces and dashes; the longest model wins.
const ArchConstants* findArch(const std::vector<ArchConstants>& all, std::string_view deviceName);

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
