// Regular expressions written by users (classification rules, Regex parameters) are refused before std::regex
// compiles them when a repetition count or back-reference is too large: libstdc++ accumulates those numbers in a
// signed long without an overflow check (UBSan report found by the classification_yaml fuzzer:
// tests/fuzz/regressions/classification_yaml/crash-428f10e6…, a pattern ending "\4444444444…").
#include "core/io/regex_check.h"

#include <gtest/gtest.h>

#include "core/model/classification.h"
#include "core/params/param_spec.h"

using namespace strobe::core;

TEST(RegexLimits, SmallCountsAndEscapedBracesPass) {
    for (const char* ok : {"a{3}", "x{2,1000}", "x{2,}", "(a)\\1", "\\{99999\\}", "sm90_xmma_gemm_.*", "", "{",
                           "a{1000}", "\\d+", "[0-9]{4}"})
        EXPECT_TRUE(checkRegexLimits(ok).ok()) << ok;
}

TEST(RegexLimits, LargeCountsAndBackReferencesAreRefusedNamingThem) {
    for (const char* bad : {"a{1001}", "a{1,99999999999999999999}", "^Memset|^\\4444444444444444444", "\\1001"}) {
        auto st = checkRegexLimits(bad);
        ASSERT_FALSE(st.ok()) << bad;
        EXPECT_NE(st.error().toString().find("too large"), std::string::npos) << st.error().toString();
    }
}

TEST(RegexLimits, ClassificationRulesAndRegexParametersUseThem) {
    const std::string yaml =
        "version: 1\nrules:\n  - name: huge\n    pattern: '^Memset|^\\4444444444444444444'\n    category: memset\n";
    auto rules = ClassificationRules::fromYamlText(yaml, "rules.yaml");
    ASSERT_FALSE(rules.ok());
    EXPECT_NE(rules.error().toString().find("rules.yaml"), std::string::npos) << rules.error().toString();
    EXPECT_NE(rules.error().toString().find("too large"), std::string::npos) << rules.error().toString();

    ParamSpec spec;
    spec.key = "filter";
    spec.type = ParamType::Regex;
    spec.defaultValue = std::string();
    auto st = validate(spec, ParamValue(std::string("a{99999}")));
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().toString().find("filter"), std::string::npos) << st.error().toString();
    EXPECT_TRUE(validate(spec, ParamValue(std::string("gemm{2}"))).ok());
}
