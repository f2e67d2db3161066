#pragma once
// Kernel classification: one KernelCategory per GPU activity (and a Collective type for communication).
// Rules are ordered regular expressions read from YAML (resources/classification.yaml, then the user's
// ~/.config/strobe/classification.yaml, whose rules come first), so users extend them without rebuilding.

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"
#include "core/model/types.h"

namespace strobe::core {

struct ClassificationRule {
    std::string name;           // rule id for `strobe-cli classify` output
    std::string pattern;        // ECMAScript regex, matched with regex_search against the kernel name
    KernelCategory category = KernelCategory::Other;
    Collective collective = Collective::None;
};

struct Classification {
    KernelCategory category = KernelCategory::Other;
    Collective collective = Collective::None;
    int rule = -1;  // index of the matching rule, -1 when no rule matched
};

class ClassificationRules {
public:
    static Result<ClassificationRules> fromYamlText(const std::string& text, const std::string& name);
    static Result<ClassificationRules> fromFile(const std::string& path);
    // The bundled rules plus the user's file if present. Never fails silently: an error names the file.
    static Result<ClassificationRules> loadDefault();

    // Memcpy/Memset kinds are classified by kind (with direction from the name); kernels by the rules.
    Classification classify(std::string_view name, EventKind kind) const;
    const std::vector<ClassificationRule>& rules() const { return m_rules; }
    void prepend(const ClassificationRules& other);

private:
    std::vector<ClassificationRule> m_rules;
    std::vector<std::regex> m_compiled;
};

}  // namespace strobe::core
