// STUB — replaced by the classification work.
#include "core/analysis/classify.h"

namespace strobe::core {

Result<ClassificationRules> ClassificationRules::fromYamlText(const std::string&, const std::string& name) {
    return Error(Location{name}, "classification rules not implemented yet");
}
Result<ClassificationRules> ClassificationRules::fromFile(const std::string& path) {
    return Error(Location{path}, "classification rules not implemented yet");
}
Result<ClassificationRules> ClassificationRules::loadDefault() { return ClassificationRules{}; }
Classification ClassificationRules::classify(std::string_view, EventKind kind) const {
    Classification c;
    if (kind == EventKind::Memcpy) c.category = KernelCategory::Memcpy;
    if (kind == EventKind::Memset) c.category = KernelCategory::Memset;
    return c;
}
void ClassificationRules::prepend(const ClassificationRules&) {}

}  // namespace strobe::core
