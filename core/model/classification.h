#pragma once
// Kernel classification: one KernelCategory per GPU activity (and a Collective type for communication).
// Rules are ordered regular expressions read from YAML (resources/classification.yaml, then the user's
// ~/.config/strobe/classification.yaml, whose rules come first), so users extend them without rebuilding.
//
// File format (the first rule whose pattern is found in the kernel name wins):
//   rules:
//     - name: nccl-all-reduce          # shown by `strobe-cli classify --all`
//       pattern: 'ncclDevKernel_AllReduce|ncclKernel_AllReduce'   # ECMAScript, searched (not anchored)
//       category: communication        # other gemm attention communication memcpy memset convolution
//                                      # normalization elementwise reduction
//       collective: all_reduce         # optional: all_reduce all_gather reduce_scatter all_to_all send_recv
//                                      # broadcast reduce other
//       icase: false                   # optional: case-insensitive
//
// Matching cost: kernel names run to kilobytes and a trace has millions of kernels but few distinct names,
// so callers classify each distinct name once (classifyGpuTable does). Each rule carries a literal prefilter
// derived from its pattern (pure literal alternatives never reach std::regex; others only when one of their
// required literals occurs), and the regex runs in libstdc++'s non-recursive (polynomial) mode so that
// long names cannot exhaust the stack.

#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"
#include "core/model/string_pool.h"
#include "core/model/tables.h"
#include "core/model/types.h"

namespace strobe::core {

struct ClassificationRule {
    std::string name;           // rule id for `strobe-cli classify` output
    std::string pattern;        // ECMAScript regex, matched with regex_search against the kernel name
    KernelCategory category = KernelCategory::Other;
    Collective collective = Collective::None;
    bool icase = false;         // case-insensitive match
    std::string file;           // where the rule was read ("" when built in code)
    int line = -1;              // 1-based line of the rule in `file`
};

struct Classification {
    KernelCategory category = KernelCategory::Other;
    Collective collective = Collective::None;
    int rule = -1;  // index of the matching rule, -1 when no rule matched (or classified by kind)
};

class ClassificationRules {
public:
    static Result<ClassificationRules> fromYamlText(const std::string& text, const std::string& name);
    static Result<ClassificationRules> fromFile(const std::string& path);
    // The bundled rules plus the user's file if present. Never fails silently: an error names the file.
    static Result<ClassificationRules> loadDefault();
    // Only the bundled file (resourcePath("classification.yaml")).
    static Result<ClassificationRules> loadBundled();
    // The user's rules file: userConfigDir()/classification.yaml.
    static std::string userRulesPath();

    // Builds one rule (validates the pattern); `where` names the origin in the error.
    Status add(ClassificationRule rule);

    // Memcpy/Memset kinds are classified by kind; kernels (and unknown kinds) by the rules.
    Classification classify(std::string_view name, EventKind kind) const;
    // Index of the first rule whose pattern matches `name`, -1 if none.
    int match(std::string_view name) const;
    const std::vector<ClassificationRule>& rules() const { return m_rules; }
    size_t size() const { return m_rules.size(); }
    // Puts `other`'s rules before this set's rules (user rules take precedence over bundled ones).
    void prepend(const ClassificationRules& other);

private:
    // A literal alternative of a pattern: `text` must occur (at the start when `anchored`).
    struct Literal {
        std::string text;
        bool anchored = false;
    };
    struct Matcher {
        bool pureLiteral = false;         // every alternative is a plain literal: no regex needed
        bool alwaysRegex = false;         // some alternative has no required literal: no prefilter
        std::vector<Literal> literals;    // pure alternatives, or required literals for the prefilter
        std::regex regex;                 // unused when pureLiteral
    };
    static Result<Matcher> compile(const ClassificationRule& rule);
    bool matches(const Matcher& m, const ClassificationRule& r, std::string_view name,
                 std::string_view lowered) const;

    std::vector<ClassificationRule> m_rules;
    std::vector<Matcher> m_matchers;
    bool m_anyIcase = false;
};

// Fills gpu.category, gpu.collective and gpu.copyDirection for every row, matching each distinct name once.
// Memcpy rows get their direction from the name ("Memcpy HtoD (Pinned -> Device)"); kernels classified as
// memcpy by name (e.g. __amd_rocclr_copyBuffer) get the direction the name gives, else Unknown.
void classifyGpuTable(const ClassificationRules& rules, const StringPool& strings, GpuTable& gpu);

}  // namespace strobe::core
