#include "plots/sweep_axes.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/analysis/sweep_compare.h"
#include "plots/step_times.h"

namespace strobe::plots {

namespace {

bool asNumber(const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end && *end == '\0';
}

}  // namespace

std::vector<std::string> sweepAxes(const core::RunSet& runs) {
    std::set<std::string> axes;
    for (const auto& r : runs)
        for (const auto& [k, v] : r.parameters) axes.insert(k);
    return {axes.begin(), axes.end()};
}

std::vector<std::string> varyingAxes(const core::RunSet& runs) {
    std::vector<std::string> out;
    for (const auto& axis : sweepAxes(runs)) {
        std::set<std::string> values;
        for (const auto& r : runs) values.insert(axisValueOf(r, axis));
        if (values.size() > 1) out.push_back(axis);
    }
    return out;
}

AxisParam::AxisParam(std::string key, std::string label, std::string tooltip, bool optional)
    : m_param(std::move(key), std::move(label), std::move(tooltip), kAutoAxis), m_optional(optional) {}

core::ParamSpec AxisParam::spec(const core::RunSet& runs) const {
    std::vector<std::string> choices{kAutoAxis};
    if (m_optional) choices.emplace_back(kNoAxis);
    choices.emplace_back(kConfigurationAxis);
    for (auto& a : sweepAxes(runs))
        if (a != kConfigurationAxis) choices.push_back(std::move(a));
    return m_param.spec(std::move(choices));
}

AxisRoles resolveAxisRoles(const core::RunSet& runs, const std::string& x, const std::string& color,
                           const std::string& facet) {
    const auto varying = varyingAxes(runs);
    std::set<std::string> taken;
    auto fixed = [&](const std::string& v) {
        if (v != kAutoAxis && v != kNoAxis && !v.empty()) taken.insert(v);
    };
    fixed(x), fixed(color), fixed(facet);
    auto pick = [&](const std::string& v, bool optional) -> std::string {
        if (v == kNoAxis || v.empty()) return optional ? std::string() : std::string(kConfigurationAxis);
        if (v != kAutoAxis) return v;
        for (const auto& a : varying)
            if (!taken.count(a)) {
                taken.insert(a);
                return a;
            }
        return optional ? std::string() : std::string(kConfigurationAxis);
    };
    AxisRoles roles;
    roles.x = pick(x, false);
    roles.color = pick(color, true);
    roles.facet = pick(facet, true);
    return roles;
}

std::string axisValueOf(const core::RunEntry& run, const std::string& axis) {
    if (axis.empty()) return {};
    if (axis == kConfigurationAxis) return configurationLabel(run);
    auto it = run.parameters.find(axis);
    return it == run.parameters.end() ? std::string("(absent)") : core::runValueText(it->second);
}

void sortAxisValues(std::vector<std::string>& values) {
    std::sort(values.begin(), values.end(), [](const std::string& a, const std::string& b) {
        double x = 0, y = 0;
        const bool na = asNumber(a, x), nb = asNumber(b, y);
        if (na != nb) return na;
        if (na && x != y) return x < y;
        return a < b;
    });
    values.erase(std::unique(values.begin(), values.end()), values.end());
}

core::Status sweepGroupBy(const core::ParamValues& values, core::SweepGroupBy& by, std::string& regex,
                          const core::StringParam& param) {
    std::string error;
    if (!core::parseSweepGroupBy(param(values), by, regex, error)) return core::Error("group_by " + error);
    return core::Ok{};
}

core::Error groupingNotSupported(const std::string& plotId, const std::string& value, const std::string& supported) {
    return core::Error(fmt::format("group_by {}: {} groups kernels by {} only", value, plotId, supported));
}

core::RunSet byConfigurationLabel(const core::RunSet& runs) {
    core::RunSet out;
    for (const auto& r : runs) {
        if (!r.dataset) continue;
        out.push_back(r);
        out.back().configurationKey = configurationLabel(r);
    }
    return out;
}

std::string largestSweepGroup(const core::SweepComparison& cmp) {
    std::map<std::string, double> total;
    for (const auto& r : cmp.rows) total[r.group] += r.perStepNs;
    std::string best;
    double most = -1;
    for (const auto& [g, t] : total)
        if (t > most) best = g, most = t;
    return best;
}

bool hasProfilerSteps(const core::Dataset& run) {
    return std::any_of(run.ranks.begin(), run.ranks.end(), [](const auto& r) { return r->steps.size() > 0; });
}

std::vector<std::string> sweepConfigurations(const core::RunSet& runs) {
    std::vector<std::string> out;
    for (const auto& r : runs) {
        std::string c = configurationLabel(r);
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
    }
    return out;
}

std::string firstRunOf(const core::RunSet& runs, const std::string& configuration) {
    for (const auto& r : runs)
        if (configurationLabel(r) == configuration) return r.label;
    return {};
}

std::string defaultBaselineConfiguration(const core::RunSet& runs) {
    const std::string first = core::defaultSweepBaseline(runs);
    for (const auto& r : runs)
        if (!first.empty() && (r.path() == first || (r.path().empty() && r.label == first))) return configurationLabel(r);
    const auto configs = sweepConfigurations(runs);
    return configs.empty() ? std::string() : configs.front();
}

}  // namespace strobe::plots
