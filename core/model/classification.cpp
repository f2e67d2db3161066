#include "core/model/classification.h"

#include "core/io/regex_check.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "core/io/resources.h"

namespace strobe::core {

namespace {

std::string lowerAscii(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// ---- Literal analysis of a pattern -------------------------------------------------------------------------
// Splits a pattern at its top-level '|' and finds, for each alternative, whether it is a plain literal (with an
// optional leading '^') and the longest run of characters that every match of it must contain. Conservative:
// anything not understood simply ends the current run (or makes the alternative non-literal).

struct Alternative {
    std::string literal;  // longest required literal run
    bool pure = true;     // the whole alternative is `literal` (after an optional '^')
    bool anchored = false;
};

// Index just past a bracket expression starting at `i` ('[').
size_t skipBracket(std::string_view p, size_t i) {
    ++i;
    if (i < p.size() && p[i] == '^') ++i;
    while (i < p.size() && p[i] != ']') {
        if (p[i] == '\\') ++i;
        ++i;
    }
    return std::min(i + 1, p.size());
}

// When p[i] starts an escape or a bracket expression, moves i past it whole and returns true.
bool skipEscapeOrBracket(std::string_view p, size_t& i) {
    if (p[i] == '\\') {
        i += 2;
        return true;
    }
    if (p[i] == '[') {
        i = skipBracket(p, i);
        return true;
    }
    return false;
}

// Index just past a group starting at `i` ('(').
size_t skipGroup(std::string_view p, size_t i) {
    int depth = 0;
    while (i < p.size()) {
        if (skipEscapeOrBracket(p, i)) continue;
        const char c = p[i];
        if (c == '(') ++depth;
        if (c == ')' && --depth == 0) return i + 1;
        ++i;
    }
    return p.size();
}

bool isQuantifier(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

// Index just past a quantifier at `i` (and its lazy '?').
size_t skipQuantifier(std::string_view p, size_t i) {
    if (i >= p.size()) return i;
    if (p[i] == '{') {
        size_t close = p.find('}', i);
        i = close == std::string_view::npos ? p.size() : close + 1;
    } else if (isQuantifier(p[i])) {
        ++i;
    } else {
        return i;
    }
    if (i < p.size() && p[i] == '?') ++i;
    return i;
}

std::vector<std::string_view> splitTopLevel(std::string_view p) {
    std::vector<std::string_view> out;
    size_t start = 0, i = 0;
    int depth = 0;
    while (i < p.size()) {
        if (skipEscapeOrBracket(p, i)) continue;
        const char c = p[i];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == '|' && depth == 0) {
            out.push_back(p.substr(start, i - start));
            start = i + 1;
        }
        ++i;
    }
    out.push_back(p.substr(start));
    return out;
}

Alternative analyse(std::string_view a) {
    Alternative alt;
    std::string cur;
    auto flush = [&] {
        if (cur.size() > alt.literal.size()) alt.literal = cur;
        cur.clear();
    };
    size_t i = 0;
    if (!a.empty() && a[0] == '^') {
        alt.anchored = true;
        i = 1;
    }
    while (i < a.size()) {
        char c = a[i];
        char lit = 0;
        if (c == '\\') {
            if (i + 1 >= a.size()) {  // dangling escape: the regex compiler reports it
                alt.pure = false;
                flush();
                break;
            }
            char d = a[i + 1];
            i += 2;
            if (std::ispunct(static_cast<unsigned char>(d))) {
                lit = d;
            } else {
                // A class (\d \w \s), an assertion (\b), a control or code escape, or a back-reference.
                alt.pure = false;
                flush();
                if (d == 'x') i += 2;
                else if (d == 'u') i += 4;
                else if (d == 'c') i += 1;
                else if (std::isdigit(static_cast<unsigned char>(d)))
                    while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
                i = skipQuantifier(a, std::min(i, a.size()));
                continue;
            }
        } else if (c == '(' || c == '[' || c == '.') {
            alt.pure = false;
            flush();
            i = c == '(' ? skipGroup(a, i) : c == '[' ? skipBracket(a, i) : i + 1;
            i = skipQuantifier(a, i);
            continue;
        } else if (c == '^' || c == '$' || isQuantifier(c) || c == ')' || c == ']' || c == '}') {
            alt.pure = false;
            flush();
            i = isQuantifier(c) ? skipQuantifier(a, i) : i + 1;
            continue;
        } else {
            lit = c;
            ++i;
        }
        // `lit` is one literal character; a quantifier after it makes it optional or repeated.
        if (i < a.size() && isQuantifier(a[i])) {
            alt.pure = false;
            if (a[i] == '+') cur += lit;  // required at least once
            flush();
            i = skipQuantifier(a, i);
        } else {
            cur += lit;
        }
    }
    flush();
    return alt;
}

std::string yamlLine(const YAML::Node& n) {
    auto m = n.Mark();
    return m.line >= 0 ? std::to_string(m.line + 1) : std::string("?");
}

}  // namespace

// ---- Rules ---------------------------------------------------------------------------------------------------

Result<ClassificationRules::Matcher> ClassificationRules::compile(const ClassificationRule& rule) {
    Matcher m;
    auto flags = std::regex::ECMAScript | std::regex::optimize;
    if (rule.icase) flags |= std::regex::icase;
#ifdef __GLIBCXX__
    // Thompson-style (breadth-first) execution: no recursion per input character, polynomial time.
    flags |= std::regex_constants::__polynomial;
#endif
    if (auto limits = checkRegexLimits(rule.pattern); !limits)
        return Error(Location{rule.file, -1, rule.line, -1},
                     fmt::format("rule '{}': bad regular expression: {}", rule.name, limits.error().message));
    try {
        m.regex = std::regex(rule.pattern, flags);
    } catch (const std::regex_error& e) {
        return Error(Location{rule.file, -1, rule.line, -1},
                     fmt::format("rule '{}': bad regular expression '{}': {}", rule.name, rule.pattern, e.what()));
    }
    auto alts = splitTopLevel(rule.pattern);
    m.pureLiteral = true;
    for (auto a : alts) {
        Alternative info = analyse(a);
        if (!info.pure) m.pureLiteral = false;
        if (info.literal.empty() && !info.pure) m.alwaysRegex = true;
        Literal lit{rule.icase ? lowerAscii(info.literal) : info.literal, info.pure && info.anchored};
        m.literals.push_back(std::move(lit));
    }
    if (!m.pureLiteral) {
        for (auto& l : m.literals) l.anchored = false;  // prefilter: substring test only
    }
    return m;
}

Status ClassificationRules::add(ClassificationRule rule) {
    auto m = compile(rule);
    if (!m) return m.error();
    if (rule.category == KernelCategory::Communication && rule.collective == Collective::None)
        rule.collective = Collective::Other;
    if (rule.icase) m_anyIcase = true;
    m_rules.push_back(std::move(rule));
    m_matchers.push_back(std::move(m.value()));
    return Ok{};
}

bool ClassificationRules::matches(const Matcher& m, const ClassificationRule& r, std::string_view name,
                                  std::string_view lowered) const {
    std::string_view subject = r.icase ? lowered : name;
    if (m.pureLiteral) {
        for (const auto& l : m.literals) {
            if (l.anchored ? subject.substr(0, l.text.size()) == l.text
                           : subject.find(l.text) != std::string_view::npos)
                return true;
        }
        return false;
    }
    if (!m.alwaysRegex) {
        bool any = false;
        for (const auto& l : m.literals) {
            if (subject.find(l.text) != std::string_view::npos) {
                any = true;
                break;
            }
        }
        if (!any) return false;
    }
    try {
        return std::regex_search(name.begin(), name.end(), m.regex);
    } catch (const std::exception& e) {  // complexity or stack limits: treat as no match, but say so
        spdlog::warn("classification rule '{}' failed on a name of {} bytes: {}", r.name, name.size(), e.what());
        return false;
    }
}

int ClassificationRules::match(std::string_view name) const {
    std::string lowered;
    if (m_anyIcase) lowered = lowerAscii(name);
    for (size_t i = 0; i < m_rules.size(); ++i) {
        if (matches(m_matchers[i], m_rules[i], name, lowered)) return static_cast<int>(i);
    }
    return -1;
}

Classification ClassificationRules::classify(std::string_view name, EventKind kind) const {
    Classification c;
    if (kind == EventKind::Memcpy) {
        c.category = KernelCategory::Memcpy;
        return c;
    }
    if (kind == EventKind::Memset) {
        c.category = KernelCategory::Memset;
        return c;
    }
    int r = match(name);
    if (r >= 0) {
        c.rule = r;
        c.category = m_rules[static_cast<size_t>(r)].category;
        c.collective = m_rules[static_cast<size_t>(r)].collective;
    }
    return c;
}

void ClassificationRules::prepend(const ClassificationRules& other) {
    m_rules.insert(m_rules.begin(), other.m_rules.begin(), other.m_rules.end());
    m_matchers.insert(m_matchers.begin(), other.m_matchers.begin(), other.m_matchers.end());
    m_anyIcase = m_anyIcase || other.m_anyIcase;
}

// ---- YAML ----------------------------------------------------------------------------------------------------

Result<ClassificationRules> ClassificationRules::fromYamlText(const std::string& text, const std::string& name) {
    ClassificationRules out;
    auto err = [&](int64_t line, std::string msg) { return Error(Location{name, -1, line, -1}, std::move(msg)); };
    try {
        YAML::Node root = YAML::Load(text);
        if (!root || root.IsNull()) return out;  // an empty file holds no rules
        YAML::Node list;
        if (root.IsSequence()) {
            list = root;
        } else if (root.IsMap()) {
            for (auto it = root.begin(); it != root.end(); ++it) {
                const YAML::Node keyNode = it->first;
                auto key = keyNode.as<std::string>();
                if (key != "rules" && key != "version")
                    return err(keyNode.Mark().line + 1,
                               fmt::format("unknown key '{}' (expected 'rules' and optionally 'version')", key));
            }
            list = root["rules"];
            if (!list || list.IsNull()) return out;
            if (!list.IsSequence()) return err(list.Mark().line + 1, "'rules' must be a list of rules");
        } else {
            return err(root.Mark().line + 1, "expected a map with a 'rules' list");
        }
        for (const auto& item : list) {
            const int64_t line = item.Mark().line + 1;
            if (!item.IsMap())
                return err(line, "each rule must be a map with name, pattern and category");
            ClassificationRule rule;
            rule.file = name;
            rule.line = static_cast<int>(line);
            bool haveName = false, havePattern = false, haveCategory = false;
            for (auto it = item.begin(); it != item.end(); ++it) {
                // Copies: yaml-cpp iterators hand out temporaries, a reference would dangle.
                const YAML::Node keyNode = it->first;
                const YAML::Node v = it->second;
                auto key = keyNode.as<std::string>();
                const int64_t vline = v.Mark().line + 1;
                if (!v.IsScalar())
                    return err(vline, fmt::format("'{}' must be a plain value (line {})", key, yamlLine(v)));
                auto value = v.as<std::string>();
                auto unknownValue = [&](std::string_view what, std::string_view choices) {
                    return err(vline, fmt::format("unknown {} '{}' (expected one of {})", what, value, choices));
                };
                if (key == "name") {
                    rule.name = value;
                    haveName = true;
                } else if (key == "pattern") {
                    rule.pattern = value;
                    havePattern = true;
                } else if (key == "category") {
                    if (!parseKernelCategory(value, rule.category))
                        return unknownValue("category", "other, gemm, attention, communication, memcpy, "
                                            "memset, convolution, normalization, elementwise, reduction");
                    haveCategory = true;
                } else if (key == "collective") {
                    if (!parseCollective(value, rule.collective))
                        return unknownValue("collective", "none, all_reduce, all_gather, reduce_scatter, "
                                            "all_to_all, send_recv, broadcast, reduce, other");
                } else if (key == "icase") {
                    if (value == "true" || value == "yes") rule.icase = true;
                    else if (value == "false" || value == "no") rule.icase = false;
                    else return err(vline, fmt::format("'icase' must be true or false, not '{}'", value));
                } else {
                    return err(keyNode.Mark().line + 1,
                               fmt::format("unknown key '{}' in a rule (expected name, pattern, category, "
                                           "collective, icase)",
                                           key));
                }
            }
            if (!havePattern) return err(line, "rule without a 'pattern'");
            if (!haveCategory) return err(line, "rule without a 'category'");
            if (!haveName) rule.name = rule.pattern;
            if (rule.collective != Collective::None && rule.category != KernelCategory::Communication)
                return err(line, fmt::format("rule '{}': a collective is only meaningful with category "
                                             "communication",
                                             rule.name));
            if (auto st = out.add(std::move(rule)); !st) return st.error();
        }
    } catch (const YAML::Exception& e) {
        return err(e.mark.line >= 0 ? e.mark.line + 1 : -1, fmt::format("invalid YAML: {}", e.msg));
    } catch (const std::exception& e) {
        return err(-1, fmt::format("invalid rules file: {}", e.what()));
    }
    return out;
}

Result<ClassificationRules> ClassificationRules::fromFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error(Location{path}, "cannot open the classification rules file");
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return Error(Location{path}, "cannot read the classification rules file");
    return fromYamlText(ss.str(), path);
}

std::string ClassificationRules::userRulesPath() { return (userConfigDir() / "classification.yaml").string(); }

Result<ClassificationRules> ClassificationRules::loadBundled() {
    return fromFile(resourcePath("classification.yaml").string());
}

Result<ClassificationRules> ClassificationRules::loadDefault() {
    auto bundled = loadBundled();
    if (!bundled) return bundled.error();
    std::string user = userRulesPath();
    std::error_code ec;
    if (std::filesystem::exists(user, ec)) {
        auto mine = fromFile(user);
        if (!mine) return mine.error();
        spdlog::info("classification: {} user rules from {} take precedence", mine->size(), user);
        bundled->prepend(*mine);
    }
    return bundled;
}

// ---- Tables --------------------------------------------------------------------------------------------------

void classifyGpuTable(const ClassificationRules& rules, const StringPool& strings, GpuTable& gpu) {
    auto& category = gpu.category.mut();
    auto& collective = gpu.collective.mut();
    auto& direction = gpu.copyDirection.mut();
    category.assign(gpu.size(), KernelCategory::Other);
    collective.assign(gpu.size(), Collective::None);
    direction.assign(gpu.size(), CopyDirection::None);
    // Rows with a name and a kind (equal to gpu.size() in any consistent table).
    const size_t n = std::min({gpu.size(), gpu.name.size(), gpu.kind.size()});
    if (n == 0) return;

    StrId maxName = 0;
    for (size_t i = 0; i < n; ++i) maxName = std::max(maxName, gpu.name[i]);
    // Per distinct name: the matched rule (-1 none), computed on first sight (-2 not yet); and the copy
    // direction the name gives.
    std::vector<int32_t> ruleOf(static_cast<size_t>(maxName) + 1, -2);
    std::vector<CopyDirection> dirOf(static_cast<size_t>(maxName) + 1, CopyDirection::Count);
    const auto& ruleList = rules.rules();
    auto directionOf = [&](StrId id) {
        if (dirOf[id] == CopyDirection::Count) dirOf[id] = copyDirectionFromName(strings.view(id));
        return dirOf[id];
    };
    for (size_t i = 0; i < n; ++i) {
        const StrId id = gpu.name[i];
        const EventKind kind = gpu.kind[i];
        if (kind == EventKind::Memcpy) {
            category[i] = KernelCategory::Memcpy;
            direction[i] = directionOf(id);
            continue;
        }
        if (kind == EventKind::Memset) {
            category[i] = KernelCategory::Memset;
            continue;
        }
        if (ruleOf[id] == -2) ruleOf[id] = rules.match(strings.view(id));
        const int r = ruleOf[id];
        if (r < 0) continue;
        const auto& rule = ruleList[static_cast<size_t>(r)];
        category[i] = rule.category;
        collective[i] = rule.collective;
        if (rule.category == KernelCategory::Memcpy) direction[i] = directionOf(id);
    }
}

}  // namespace strobe::core
