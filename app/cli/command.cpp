#include "app/cli/command.h"

#include <filesystem>

#include <algorithm>

#include <fmt/format.h>

#include "core/engine/load_job.h"
#include "core/engine/memory_budget.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace strobe::app {

namespace {
std::vector<CliCommand>& registry() {
    static std::vector<CliCommand> r;
    return r;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid UTF-8.
size_t utf8SequenceLength(std::string_view s, size_t i) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) return 1;
    size_t len = 0;
    uint32_t cp = 0;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2;
        cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3;
        cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4;
        cp = b0 & 0x07;
    } else {
        return 0;
    }
    if (i + len > s.size()) return 0;
    for (size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}
}  // namespace

void registerCommand(CliCommand c) {
    auto& r = registry();
    r.push_back(std::move(c));
    std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

const std::vector<CliCommand>& commands() { return registry(); }

const CliCommand* findCommand(std::string_view name) {
    for (const auto& c : registry())
        if (c.name == name) return &c;
    return nullptr;
}

std::vector<core::Result<core::DatasetPtr>> loadRunsAsJobs(const std::vector<std::vector<std::string>>& runs,
                                                           const core::RunLoadOptions& options,
                                                           const std::function<void(size_t)>& onLoaded) {
    core::JobRunner runner;
    runner.setMemoryLimit(core::MemoryBudget(options.memoryLimitBytes).limit());
    std::vector<core::Result<core::DatasetPtr>> out;
    for (auto& r : core::loadRunsThroughJobs(runner, runs, options, onLoaded)) {
        if (r) out.emplace_back(std::move(r->dataset));
        else out.emplace_back(r.error());
    }
    return out;
}

core::Result<core::DatasetPtr> loadRunAsJob(const std::vector<std::string>& paths, const core::RunLoadOptions& options) {
    return std::move(loadRunsAsJobs({paths}, options).front());
}

CommandRun loadCommandRun(std::string_view command, const std::vector<std::string>& paths,
                          const core::RunLoadOptions& options, bool hostsCount) {
    CommandRun out;
    out.exit = kExitBadInput;
    for (const auto& path : paths) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            fmt::print(stderr, "strobe-cli {}: {}: no such file or directory\n", command, path);
            return out;
        }
    }
    logToStderr();
    auto loaded = loadRunAsJob(paths, options);
    if (!loaded) {
        fmt::print(stderr, "strobe-cli {}: {}\n", command, loaded.error().toString());
        return out;
    }
    const core::Dataset& ds = **loaded;
    if (ds.ranks.empty() && (!hostsCount || ds.hosts.empty())) {
        fmt::print(stderr, "strobe-cli {}: no traces found in {}\n", command, fmt::join(paths, ", "));
        return out;
    }
    out.loadFailed = reportLoadDiagnostics(command, ds);
    out.data = std::move(loaded.value());
    out.exit = 0;
    return out;
}

void logToStderr() {
    auto current = spdlog::default_logger();
    if (current && current->name() == "strobe-cli") return;  // already set up by main() or an earlier command
    auto logger = std::make_shared<spdlog::logger>("strobe-cli", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    logger->set_level(current ? current->level() : spdlog::level::info);
    spdlog::set_default_logger(std::move(logger));
}

bool reportLoadDiagnostics(std::string_view command, const core::Dataset& dataset, size_t perRank) {
    for (const core::RankData* rank : dataset.allSources()) {  // the ranks and the hosts' telemetry
        size_t shown = 0, more = 0;
        for (const auto& d : rank->diagnostics) {
            if (d.severity < core::Severity::Warning) continue;
            if (shown == perRank) {
                ++more;
                continue;
            }
            fmt::print(stderr, "strobe-cli {}: {}\n", command, d.toString());
            ++shown;
        }
        if (more > 0)
            fmt::print(stderr, "strobe-cli {}: {}: {} more warnings (`strobe-cli summary --json` lists them all)\n",
                       command, rank->path, more);
    }
    bool failed = false;
    for (const auto& d : dataset.diagnostics) {
        if (d.severity != core::Severity::Error) continue;
        fmt::print(stderr, "strobe-cli {}: {}\n", command, d.toString());
        failed = true;
    }
    return failed;
}

bool wantsHelp(const std::vector<std::string>& args) {
    for (const auto& a : args) {
        if (a == "--") return false;
        if (a == "--help" || a == "-h") return true;
    }
    return false;
}

int usageError(std::string_view command, std::string_view message) {
    fmt::print(stderr, "strobe-cli {}: {}\nTry 'strobe-cli {} --help'.\n", command, message, command);
    return kExitUsage;
}

ArgParser::ArgParser(std::string command, std::vector<CliOption> options)
    : m_command(std::move(command)), m_options(std::move(options)) {}

const CliOption* ArgParser::findLong(std::string_view name) const {
    for (const auto& o : m_options)
        if (o.spec.key == name) return &o;
    return nullptr;
}

const CliOption* ArgParser::findShort(char c) const {
    for (const auto& o : m_options)
        if (o.shortName != '\0' && o.shortName == c) return &o;
    return nullptr;
}

bool ArgParser::parse(const std::vector<std::string>& args) {
    m_values.clear();
    m_positionals.clear();
    m_error.clear();
    bool optionsEnded = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (optionsEnded || a.size() < 2 || a[0] != '-') {  // "-" alone is a positional (stdin by convention)
            m_positionals.push_back(a);
            continue;
        }
        if (a == "--") {
            optionsEnded = true;
            continue;
        }
        const CliOption* option = nullptr;
        std::optional<std::string> inlineValue;
        std::string shown;
        if (a[1] == '-') {
            std::string_view body = std::string_view(a).substr(2);
            const size_t eq = body.find('=');
            if (eq != std::string_view::npos) {
                inlineValue = std::string(body.substr(eq + 1));
                body = body.substr(0, eq);
            }
            option = findLong(body);
            shown = "--" + std::string(body);
        } else {
            if (a.size() > 2) inlineValue = a.substr(2);  // -o/tmp/x or -n5
            option = findShort(a[1]);
            shown = a.substr(0, 2);
        }
        if (option == nullptr) {
            m_error = fmt::format("unknown option '{}'", shown);
            return false;
        }
        const core::ParamSpec& spec = option->spec;
        if (spec.type == core::ParamType::Bool) {
            if (inlineValue) {
                m_error = fmt::format("option '{}' takes no value, got '{}'", shown, *inlineValue);
                return false;
            }
            m_values[spec.key] = true;
            continue;
        }
        std::string value;
        if (inlineValue) {
            value = *inlineValue;
        } else if (i + 1 < args.size()) {
            value = args[++i];
        } else {
            m_error = fmt::format("option '{}' needs a value", shown);
            return false;
        }
        if (option->repeatable && spec.type == core::ParamType::StringList) {
            // Each occurrence is one item, as given (no comma splitting: --set k=a,b is one assignment).
            auto [it, fresh] = m_values.try_emplace(spec.key, std::vector<std::string>{});
            std::get<std::vector<std::string>>(it->second).push_back(std::move(value));
            continue;
        }
        if (has(spec)) {
            m_error = fmt::format("option '{}' given more than once", shown);
            return false;
        }
        auto coerced = core::coerceValue(spec, value);  // the one rule of --set, sessions and tool specs
        if (!coerced) {
            m_error = fmt::format("option '{}': {}", shown, coerced.error().message);
            return false;
        }
        m_values[spec.key] = std::move(coerced.value());
    }
    return true;
}

std::string jsonQuote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out.push_back('"');
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20)
                    out += fmt::format("\\u{:04x}", c);
                else
                    out.push_back(static_cast<char>(c));
            }
            ++i;
            continue;
        }
        const size_t len = utf8SequenceLength(s, i);
        if (len == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not valid UTF-8
            ++i;
            continue;
        }
        out.append(s.substr(i, len));
        i += len;
    }
    out.push_back('"');
    return out;
}

std::string jsonStringMap(const std::map<std::string, std::string>& m) {
    std::string out = "{";
    for (const auto& [k, v] : m) out += fmt::format("{}{}: {}", out.size() > 1 ? ", " : "", jsonQuote(k), jsonQuote(v));
    return out + "}";
}

void printAlignedTable(const std::vector<std::vector<std::string>>& rows) {
    std::vector<size_t> width;
    for (const auto& row : rows)
        for (size_t i = 0; i < row.size(); ++i) {
            if (width.size() <= i) width.push_back(0);
            width[i] = std::max(width[i], row[i].size());
        }
    for (const auto& row : rows) {
        std::string line;
        for (size_t i = 0; i < row.size(); ++i)
            line += i + 1 == row.size() ? row[i] : fmt::format("{:<{}}  ", row[i], width[i]);
        fmt::print("{}\n", line);
    }
}

}  // namespace strobe::app
