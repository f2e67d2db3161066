#pragma once
// ParamSpec: a plot's parameter described as plain data (listable, serialisable, testable). The GUI turns
// each into a widget; strobe-cli takes them as --set key=value; sessions store them as strings.
//
// Value representation per type (ParamValue alternative):
//   Bool → bool; Int → long long; Double → double; Enum, String, Regex, Color ("#rrggbb") → std::string;
//   StringList → std::vector<std::string> (choices come from the data: parameters(RunSet) fills them);
//   RankSet → std::vector<std::string> of decimal rank numbers; an empty list means "all ranks".
// String form (for --set and session files): bool "true"/"false" (also 1/0, yes/no, on/off); numbers in C
// locale; lists comma-separated, a literal comma or backslash escaped with a backslash; RankSet also accepts
// ranges ("0,2-4") and "all".

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <QJsonObject>
#include <QJsonValue>

#include "core/io/error.h"

namespace strobe::plots {

enum class ParamType { Bool, Int, Double, Enum, String, StringList, RankSet, Regex, Color };

using ParamValue = std::variant<bool, long long, double, std::string, std::vector<std::string>>;
using ParamValues = std::map<std::string, ParamValue>;

struct ParamSpec {
    std::string key;
    std::string label;
    std::string tooltip;
    ParamType type = ParamType::Bool;
    ParamValue defaultValue = false;
    double min = 0, max = 0, step = 0;   // Int/Double bounds; min == max means unbounded
    std::vector<std::string> choices;    // Enum choices; StringList/RankSet choices from the data (may be empty)
    bool affectsPrepare = true;          // false: a drawing parameter, never re-runs prepare()
    std::string unit;                    // optional display unit ("ns", "%", "px")

    bool hasBounds() const { return max > min; }
};

const char* toString(ParamType t);
std::optional<ParamType> paramTypeFromString(std::string_view s);

// The ParamValue alternative a type uses, for defaults and checks.
bool valueMatchesType(ParamType t, const ParamValue& v);

// Checks a value against its spec: right alternative, within bounds, one of the Enum choices, a regex that
// compiles (ECMAScript), a colour "#rrggbb", RankSet entries that are non-negative integers. The error says
// the key, the value and what was expected.
core::Status validate(const ParamSpec& spec, const ParamValue& value);

// String form (see above). fromString validates too.
std::string valueToString(const ParamSpec& spec, const ParamValue& value);
core::Result<ParamValue> valueFromString(const ParamSpec& spec, std::string_view text);

// JSON: a spec as {"key","label","tooltip","type","default","affectsPrepare", and "min","max","step" for
// numbers, "choices" for Enum/StringList/RankSet, "unit" when set}; a value as the natural JSON type.
QJsonObject specToJson(const ParamSpec& spec);
core::Result<ParamSpec> specFromJson(const QJsonObject& json);
QJsonValue valueToJson(const ParamSpec& spec, const ParamValue& value);
core::Result<ParamValue> valueFromJson(const ParamSpec& spec, const QJsonValue& json);

const ParamSpec* findSpec(const std::vector<ParamSpec>& specs, std::string_view key);

// Every spec's default, then `values` on top (unknown keys are an error; invalid values are an error that
// names the key). This is what a plot's prepare()/draw() receive.
core::Result<ParamValues> resolveValues(const std::vector<ParamSpec>& specs, const ParamValues& values);

// Applies "key=value" strings (strobe-cli --set) on top of `values`.
core::Status applyAssignment(const std::vector<ParamSpec>& specs, std::string_view assignment, ParamValues& values);

// Canonical text of the values of affectsPrepare parameters only (the prepared-cache key part).
std::string prepareKey(const std::vector<ParamSpec>& specs, const ParamValues& values);

// Builders for the usual shapes, so that a plot's parameters() reads as a list: a spec of `type` (choices for
// Enum, or the data's choices for StringList/RankSet); drawOnly() marks a drawing parameter (affectsPrepare =
// false); bounded() sets Int/Double bounds and step.
ParamSpec makeSpec(ParamType type, std::string key, std::string label, std::string tooltip, ParamValue defaultValue,
                   std::vector<std::string> choices = {});
ParamSpec drawOnly(ParamSpec spec);
ParamSpec bounded(ParamSpec spec, double min, double max, double step);

// Typed reads with a fallback when the key is absent or holds another alternative.
bool paramBool(const ParamValues& v, const std::string& key, bool fallback = false);
long long paramInt(const ParamValues& v, const std::string& key, long long fallback = 0);
double paramDouble(const ParamValues& v, const std::string& key, double fallback = 0.0);
std::string paramString(const ParamValues& v, const std::string& key, const std::string& fallback = {});
std::vector<std::string> paramList(const ParamValues& v, const std::string& key);
// RankSet as numbers; empty = all ranks.
std::vector<int> paramRanks(const ParamValues& v, const std::string& key);

}  // namespace strobe::plots
