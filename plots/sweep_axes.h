#pragma once
// Sweep axes as plot parameters (issue 9): every plot that compares runs lets the user choose which sweep axis maps
// to x, to colour and to facets (small multiples). The choices come from the runs' parameters; "configuration"
// stands for the whole parameter set ("axis=value, ..."), "(none)" for no mapping, "(auto)" for the plot's pick
// (x: the first axis whose value varies; colour: the next one; facet: the next one).

#include <string>
#include <vector>

#include "core/analysis/sweep_compare.h"
#include "core/model/run_set.h"
#include "core/params/param.h"

namespace strobe::plots {

inline constexpr const char* kAutoAxis = "(auto)";
inline constexpr const char* kNoAxis = "(none)";
inline constexpr const char* kConfigurationAxis = "configuration";

// The axes of the runs (the union of their parameter keys), in name order.
std::vector<std::string> sweepAxes(const core::RunSet& runs);
// The axes whose value differs between runs, in name order.
std::vector<std::string> varyingAxes(const core::RunSet& runs);

// An axis-choosing parameter (Enum): "(auto)", "(none)" when `optional`, "configuration", then the runs' axes.
class AxisParam {
public:
    AxisParam(std::string key, std::string label, std::string tooltip, bool optional);
    core::ParamSpec spec(const core::RunSet& runs) const;
    // The chosen text as stored ("(auto)" until resolveAxisRoles decides).
    std::string operator()(const core::ParamValues& values) const { return m_param(values); }
    const std::string& key() const { return m_param.key(); }

private:
    core::EnumParam m_param;
    bool m_optional;
};

// What x, colour and facet map to after "(auto)" is decided: an axis name, kConfigurationAxis, or "" (none; x is
// never none: it falls back to "configuration"). An automatic role never repeats an axis another role took.
struct AxisRoles {
    std::string x, color, facet;
};
AxisRoles resolveAxisRoles(const core::RunSet& runs, const std::string& x, const std::string& color,
                           const std::string& facet);

// The value a run has on a role: configurationLabel for kConfigurationAxis (its label without parameters), the
// axis' value text ("(absent)" when the run lacks it), "" for none.
std::string axisValueOf(const core::RunEntry& run, const std::string& axis);

// Sorts axis values as a user reads them: numbers by value before text, text in byte order; removes duplicates.
void sortAxisValues(std::vector<std::string>& values);

// ---- kernel groups across a sweep (core/analysis/sweep_compare.h) ----

// The kernel groupings, besides regex:PATTERN (core::SweepGroupBy): what every plot's "group_by", strobe-cli
// sweep's --group-by and the Sweep dock offer, all read by core::parseSweepGroupBy.
inline const std::vector<std::string> kSweepGroupByChoices{"name", "category", "op", "normalized"};
// "group_by" of every plot that groups kernels (the sweep and overlap plots, top-kernels, kernel-durations,
// kernel-breakdown), declared once: one of kSweepGroupByChoices or regex:PATTERN ("kernel" is read as name). A
// plot with another default takes kSweepGroupBy.withDefault(...); one that cannot draw some grouping says so in
// prepare (groupingNotSupported).
inline const core::StringParam kSweepGroupBy{
    "group_by", "Group kernels by",
    "name: the kernel name; category: Strobe's category; op: the CPU operator that launched it; normalized: the "
    "name without template arguments, hashes and tile shapes; regex:PATTERN: the first capture group of PATTERN "
    "(else the whole match)",
    "name"};
// kSweepGroupBy of `values` (core::parseSweepGroupBy) into `by` and `regex`; an unknown value or an invalid regex is
// an Error, never another grouping.
// `param` is kSweepGroupBy or a copy of it with the plot's own default (withDefault).
core::Status sweepGroupBy(const core::ParamValues& values, core::SweepGroupBy& by, std::string& regex,
                          const core::StringParam& param = kSweepGroupBy);
// The error of a plot that does not offer grouping `value`: "group_by op: <plot> groups by <supported>".
core::Error groupingNotSupported(const std::string& plotId, const std::string& value, const std::string& supported);

// The runs pooled as the plots pool them, for compareSweep: configurationKey = configurationLabel(run) (the
// parameters' canonical key, else the label, so that runs without parameters stay apart); runs without a dataset
// are left out.
core::RunSet byConfigurationLabel(const core::RunSet& runs);

// The group with the most time per step summed over the configurations of `cmp` ("" when it has no rows).
std::string largestSweepGroup(const core::SweepComparison& cmp);
// Whether some rank of the run has a ProfilerStep#N.
bool hasProfilerSteps(const core::Dataset& run);

// The configurations of the runs (configurationLabel), in the order their first run comes.
std::vector<std::string> sweepConfigurations(const core::RunSet& runs);
// The configuration (configurationLabel) of the documented default baseline, core::defaultSweepBaseline: the first
// configuration in axis order; the first configuration when that names no run; "" without runs.
std::string defaultBaselineConfiguration(const core::RunSet& runs);
// The label of the first run of `configuration` ("" when none has it): what compareSweep's baseline names.
std::string firstRunOf(const core::RunSet& runs, const std::string& configuration);

}  // namespace strobe::plots
