#include "plots/param_spec.h"

namespace strobe::plots {

const char* toString(ParamType t) {
    switch (t) {
    case ParamType::Bool: return "bool";
    case ParamType::Int: return "int";
    case ParamType::Double: return "double";
    case ParamType::Enum: return "enum";
    case ParamType::String: return "string";
    case ParamType::StringList: return "stringlist";
    case ParamType::RankSet: return "rankset";
    case ParamType::Regex: return "regex";
    case ParamType::Color: return "color";
    }
    return "unknown";
}

}  // namespace strobe::plots
