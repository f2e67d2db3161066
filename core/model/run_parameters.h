#pragma once
// A run's sweep point: typed parameter values (int, float, text) by axis, and the one canonical configuration key
// that names the point. Every run shape (RunEntry, the run manifest, sweep.yaml, discovery, plots, the report) uses
// these, so that one point is written one way everywhere.

#include <map>
#include <string>
#include <string_view>
#include <variant>

namespace strobe::core {

// One parameter value: an integer, a float or a text. Ordered as std::variant orders (numbers as numbers).
using RunValue = std::variant<long long, double, std::string>;
using RunParameters = std::map<std::string, RunValue>;

// "64", "0.5", "ring"; a float keeps the shortest text that reads back the same.
std::string runValueText(const RunValue& value);
// An integer when the whole text is one, else a float when it is one (not nan/inf), else the text (also a number
// with a leading zero, "007", which would not read back as written).
RunValue parseRunValue(std::string_view text);
// Every value parsed with parseRunValue.
RunParameters typedParameters(const std::map<std::string, std::string>& text);
// Every value as runValueText.
std::map<std::string, std::string> parameterTexts(const RunParameters& parameters);

// The canonical configuration key: "axis=value,axis=value", axes in name order, no spaces; "" without parameters.
// Runs that differ only in their repeat share it.
std::string configurationKey(const RunParameters& parameters);
std::string configurationKey(const std::map<std::string, std::string>& parameters);

}  // namespace strobe::core
