#include "core/analysis/registry.h"

#include <charconv>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "core/analysis/event_summary.h"
#include "core/analysis/idle.h"
#include "core/analysis/kernel_stats.h"
#include "core/analysis/kernel_types.h"
#include "core/analysis/launch.h"
#include "core/analysis/memory.h"
#include "core/analysis/overlap.h"
#include "core/analysis/phases.h"
#include "core/analysis/straggler.h"
#include "core/analysis/temporal.h"
#include "core/analysis/window.h"

namespace strobe::core {

std::string_view toString(OptionType t) {
    switch (t) {
    case OptionType::Int: return "int";
    case OptionType::Double: return "double";
    case OptionType::Bool: return "bool";
    case OptionType::String: return "string";
    case OptionType::Enum: return "enum";
    case OptionType::Regex: return "regex";
    }
    return "string";
}

namespace {
bool toInt(const std::string& s, int64_t& v) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}
bool toDouble(const std::string& s, double& v) {
    if (s.empty()) return false;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(v);
}
bool toBool(const std::string& s, bool& v) {
    if (s == "true" || s == "1" || s == "yes" || s == "on") return v = true, true;
    if (s == "false" || s == "0" || s == "no" || s == "off") return v = false, true;
    return false;
}
}  // namespace

int64_t AnalysisRequest::getInt(const std::string& key, int64_t fallback) const {
    int64_t v = 0;
    auto it = values.find(key);
    return it != values.end() && toInt(it->second, v) ? v : fallback;
}
double AnalysisRequest::getDouble(const std::string& key, double fallback) const {
    double v = 0;
    auto it = values.find(key);
    return it != values.end() && toDouble(it->second, v) ? v : fallback;
}
bool AnalysisRequest::getBool(const std::string& key, bool fallback) const {
    bool v = false;
    auto it = values.find(key);
    return it != values.end() && toBool(it->second, v) ? v : fallback;
}
std::string AnalysisRequest::getString(const std::string& key, const std::string& fallback) const {
    auto it = values.find(key);
    return it != values.end() ? it->second : fallback;
}

const std::vector<AnalysisInfo>& analysisRegistry() {
    static const std::vector<AnalysisInfo> list = {
        temporalAnalysisInfo(), kernelTypesAnalysisInfo(), overlapAnalysisInfo(), idleAnalysisInfo(),
        stragglerAnalysisInfo(), launchAnalysisInfo(),      phasesAnalysisInfo(),  windowAnalysisInfo(),
        kernelStatsAnalysisInfo(), memoryAnalysisInfo(), eventSummaryAnalysisInfo(),
    };
    return list;
}

const AnalysisInfo* findAnalysis(std::string_view name) {
    for (const auto& a : analysisRegistry())
        if (a.name == name) return &a;
    return nullptr;
}

Result<Table> runAnalysis(AnalysisContext& ctx, std::string_view name, const AnalysisRequest& request) {
    const AnalysisInfo* info = findAnalysis(name);
    if (!info) return Error(fmt::format("unknown analysis '{}' (see strobe-cli analyze --list)", name));
    AnalysisRequest req = request;
    for (const auto& [key, value] : request.values) {
        const OptionSpec* spec = nullptr;
        for (const auto& o : info->options)
            if (o.key == key) spec = &o;
        if (!spec) return Error(fmt::format("analysis '{}' has no option --{}", name, key));
        int64_t i = 0;
        double d = 0;
        bool b = false;
        switch (spec->type) {
        case OptionType::Int:
            if (!toInt(value, i)) return Error(fmt::format("--{}: expected an integer, got '{}'", key, value));
            break;
        case OptionType::Double:
            if (!toDouble(value, d)) return Error(fmt::format("--{}: expected a number, got '{}'", key, value));
            break;
        case OptionType::Bool:
            if (!toBool(value, b)) return Error(fmt::format("--{}: expected true or false, got '{}'", key, value));
            break;
        case OptionType::Enum:
            if (std::find(spec->choices.begin(), spec->choices.end(), value) == spec->choices.end())
                return Error(fmt::format("--{}: expected one of {}, got '{}'", key, fmt::join(spec->choices, ", "),
                                         value));
            break;
        case OptionType::Regex:
            try {
                std::regex re(value);
            } catch (const std::regex_error& e) {
                return Error(fmt::format("--{}: invalid regular expression '{}': {}", key, value, e.what()));
            }
            break;
        case OptionType::String: break;
        }
    }
    for (const auto& o : info->options)
        if (!req.values.count(o.key) && !o.defaultValue.empty()) req.values[o.key] = o.defaultValue;
    auto sel = ctx.select(req.window);
    if (!sel) return sel.error();
    auto table = info->run(ctx, req);
    if (!table) return table;
    Table t = std::move(table.value());
    std::vector<std::string> msgs = sel.value()->messages;
    msgs.insert(msgs.end(), t.messages.begin(), t.messages.end());
    t.messages = std::move(msgs);
    return t;
}

}  // namespace strobe::core
