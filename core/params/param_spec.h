#pragma once
// ParamSpec: one parameter described as plain data (listable, serialisable, testable). The same vocabulary
// serves plots (GUI widgets, `strobe-cli plot --set key=value`, session files), analyses (`strobe-cli analyze
// NAME --OPTION value`) and tool specs (YAML). Code reads values through typed handles (core/params/param.h),
// never by a string key with a restated default.
//
// Value representation per type (ParamValue alternative):
//   Bool → bool; Int → long long; Double → double; Duration → long long nanoseconds;
//   Enum, String, Regex, Color ("#rrggbb"), Path → std::string;
//   StringList → std::vector<std::string> (choices may come from the data);
//   RankSet → std::vector<std::string> of decimal rank numbers; an empty list means "all ranks";
//   KeyValueList → std::vector<std::string> of "key=value" items (e.g. environment variables).
// String form (for --set, analysis options, session files, QSettings): bool "true"/"false" (also 1/0, yes/no,
// on/off); numbers in C locale; a Duration is an integer or decimal with a unit ns, us, µs, ms, s or min (no unit:
// ns) that must come to whole nanoseconds, written back in the largest unit that keeps it whole ("30us");
// lists comma-separated, a literal comma or backslash escaped with a backslash; RankSet also accepts ranges
// ("0,2-4") and "all".
//
// One coercion rule (coerceValue) is used by every entry point: a value given as text is parsed with the
// string form; a number is taken by Int only when it is whole, by Double and Duration as given; a text
// parameter takes a scalar's text; anything else is an error that names the key and the value.

#include <QJsonObject>
#include <QJsonValue>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/io/error.h"

namespace strobe::core {

enum class ParamType {
    Bool,
    Int,
    Double,
    Enum,
    String,
    StringList,
    RankSet,
    Regex,
    Color,
    Path,
    Duration,
    KeyValueList
};

using ParamValue = std::variant<bool, long long, double, std::string, std::vector<std::string>>;
using ParamValues = std::map<std::string, ParamValue>;

struct ParamSpec {
    std::string key;
    std::string label;
    std::string tooltip;
    ParamType type = ParamType::Bool;
    ParamValue defaultValue = false;
    double min = 0, max = 0, step = 0;  // Int/Double/Duration bounds (Duration: ns); min == max means unbounded
    std::vector<std::string> choices;   // Enum choices; StringList/RankSet choices from the data (may be empty)
    // The choices are the loaded data's: an Enum's (its counters, a sweep's configs) is checked against them; a
    // StringList keeps only the items among them (its default comes from the data too: Param::specFromData).
    bool choicesFromData = false;
    bool affectsPrepare = true;         // false: a drawing parameter, never re-runs prepare()
    std::string unit;                   // optional display unit ("ns", "%", "px")
    // A renamed key or choice keeps what users wrote before working: saved sessions, QSettings, --set lines and
    // analysis options that use a former key or a former Enum choice are read as the current one (findSpec finds
    // the spec by a former key; coerceValue maps a former choice) and written back in the current form.
    std::vector<std::string> formerKeys;
    std::vector<std::pair<std::string, std::string>> formerChoices;  // (former, current)

    bool hasBounds() const { return max > min; }
};

const char* toString(ParamType t);
std::optional<ParamType> paramTypeFromString(std::string_view s);

// The ParamValue alternative a type uses, for defaults and checks.
bool valueMatchesType(ParamType t, const ParamValue& v);

// Checks a value against its spec: right alternative, within bounds, one of the Enum choices, a regex that
// compiles (ECMAScript), a colour "#rrggbb", RankSet entries that are non-negative integers, KeyValueList items
// with a non-empty key. The error says the key, the value and what was expected.
Status validate(const ParamSpec& spec, const ParamValue& value);

// String form (see above). fromString validates too.
std::string valueToString(const ParamSpec& spec, const ParamValue& value);
Result<ParamValue> valueFromString(const ParamSpec& spec, std::string_view text);

// The one coercion rule (see above), then validate(). Used by the GUI, the CLI, sessions and tool specs alike.
// A StringList whose choices come from the data (choicesFromData) keeps only the items among its choices.
Result<ParamValue> coerceValue(const ParamSpec& spec, const ParamValue& given);

// JSON: a spec as {"key","label","tooltip","type","default","affectsPrepare", and "min","max","step" for
// numbers, "choices" for Enum/StringList/RankSet, "unit" when set}; a value as the natural JSON type
// (KeyValueList: an object; Duration: integer nanoseconds or its string form).
QJsonObject specToJson(const ParamSpec& spec);
Result<ParamSpec> specFromJson(const QJsonObject& json);
QJsonValue valueToJson(const ParamSpec& spec, const ParamValue& value);
Result<ParamValue> valueFromJson(const ParamSpec& spec, const QJsonValue& json);

// YAML (tool specs): a list of specs, each a mapping with the JSON spec's keys; values in their natural YAML form
// (a KeyValueList is a mapping, lists are sequences, a Duration may be written "30us"). `source` names the file in
// errors, with the line.
std::string specsToYaml(const std::vector<ParamSpec>& specs);
Result<std::vector<ParamSpec>> specsFromYaml(const std::string& text, const std::string& source = "<yaml>");

// The spec whose key is `key`, else the one that lists `key` among its former keys; null when none.
const ParamSpec* findSpec(const std::vector<ParamSpec>& specs, std::string_view key);
// The value `values` holds for `spec`: under its key, else under a former key; null when neither.
const ParamValue* findValue(const ParamSpec& spec, const ParamValues& values);

// Every spec's default, then `values` on top, each coerced (unknown keys are an error; invalid values are an
// error that names the key and the value). This is what a plot's prepare()/draw() receive.
Result<ParamValues> resolveValues(const std::vector<ParamSpec>& specs, const ParamValues& values);

// Applies "key=value" strings (strobe-cli --set) on top of `values`.
Status applyAssignment(const std::vector<ParamSpec>& specs, std::string_view assignment, ParamValues& values);

// The specs to check values with before any data is loaded (strobe-cli checks --set before a possibly long load):
// an Enum whose choices come from the data (choicesFromData) takes any text until then, as a String, and such a
// StringList any items; every other spec is unchanged, so a fixed Enum choice, a bound or an unknown key is refused at once. resolveValues() with the
// specs of the loaded data checks the rest.
std::vector<ParamSpec> specsBeforeData(std::vector<ParamSpec> specs);

// Canonical text of the values of affectsPrepare parameters only (the prepared-cache key part).
std::string prepareKey(const std::vector<ParamSpec>& specs, const ParamValues& values);

// Builders for specs made at run time (tests, tool specs); compiled code declares typed handles instead.
ParamSpec makeSpec(ParamType type, std::string key, std::string label, std::string tooltip, ParamValue defaultValue,
                   std::vector<std::string> choices = {});

// Rank numbers of a RankSet value (sorted, unique); empty = all ranks.
std::vector<int> ranksOf(const ParamValue& value);

}  // namespace strobe::core
