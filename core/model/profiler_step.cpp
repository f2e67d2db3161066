#include "core/model/profiler_step.h"

#include <charconv>

namespace strobe::core {

int64_t profilerStepNumber(std::string_view name) {
    constexpr std::string_view kPrefix = "ProfilerStep#";
    if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return -1;
    const std::string_view digits = name.substr(kPrefix.size());
    int64_t v = -1;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc{} || p != digits.data() + digits.size() || v < 0) return -1;
    return v;
}

}  // namespace strobe::core
