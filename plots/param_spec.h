#pragma once
// ParamSpec: a plot's parameter described as plain data (listable, serialisable, testable). The GUI turns
// each into a widget; strobe-cli takes them as --set key=value.

#include <string>
#include <variant>
#include <vector>

namespace strobe::plots {

enum class ParamType { Bool, Int, Double, Enum, String, StringList, RankSet, Regex, Color };

using ParamValue = std::variant<bool, long long, double, std::string, std::vector<std::string>>;

struct ParamSpec {
    std::string key;
    std::string label;
    std::string tooltip;
    ParamType type = ParamType::Bool;
    ParamValue defaultValue = false;
    double min = 0, max = 0, step = 0;   // Int/Double bounds
    std::vector<std::string> choices;    // Enum choices; StringList choices come from the data
    bool affectsPrepare = true;          // false: a drawing parameter, never re-runs prepare()
};

const char* toString(ParamType t);

}  // namespace strobe::plots
