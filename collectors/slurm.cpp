#include "collectors/slurm.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "collectors/tool_spec.h"
#include "core/io/resources.h"

namespace strobe::collectors {

namespace fs = std::filesystem;

namespace {

core::Error specError(const std::string& source, const YAML::Mark& mark, const std::string& message) {
    core::Location where;
    where.file = source;
    if (mark.line >= 0) where.line = mark.line + 1;
    return core::Error(where, message);
}

std::optional<int> envInt(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    char* end = nullptr;
    const long x = std::strtol(v, &end, 10);
    if (*end != '\0' || x < 0 || x > 1000000000) return std::nullopt;
    return static_cast<int>(x);
}

}  // namespace

core::Result<SlurmSpec> parseSlurmSpec(const std::string& text, const std::string& source) {
    SlurmSpec s;
    s.source = source;
    try {
        const YAML::Node root = YAML::Load(text);
        if (!root.IsMap()) return specError(source, root.Mark(), "the Slurm spec is a mapping (submit, state, ...)");
        auto argv = [&](const char* key, std::vector<std::string>& out) -> std::optional<core::Error> {
            const YAML::Node n = root[key];
            if (!n || !n.IsSequence() || n.size() == 0)
                return specError(source, n ? n.Mark() : root.Mark(), fmt::format("`{}` must be a non-empty list (an argv)", key));
            for (const auto& x : n) out.push_back(x.as<std::string>());
            return std::nullopt;
        };
        auto regex = [&](const char* key, std::string& out) -> std::optional<core::Error> {
            const YAML::Node n = root[key];
            if (!n || !n.IsScalar()) return specError(source, n ? n.Mark() : root.Mark(), fmt::format("`{}` is required", key));
            out = n.as<std::string>();
            try {
                std::regex check(out, std::regex::ECMAScript);
                if (check.mark_count() < 1)
                    return specError(source, n.Mark(), fmt::format("`{}`: '{}' needs a capture group", key, out));
            } catch (const std::regex_error& e) {
                return specError(source, n.Mark(), fmt::format("`{}`: '{}': {}", key, out, e.what()));
            }
            return std::nullopt;
        };
        for (auto e : {argv("submit", s.submit), argv("launch", s.launch), argv("state", s.state),
                       argv("cancel", s.cancel), argv("ended_states", s.endedStates), regex("job_id_regex", s.jobIdRegex),
                       regex("state_regex", s.stateRegex), regex("exit_regex", s.exitRegex)})
            if (e) return *e;
        if (const YAML::Node n = root["poll_ms"]) {
            s.pollMs = n.as<int>();
            if (s.pollMs < 10 || s.pollMs > 60000)
                return specError(source, n.Mark(), fmt::format("`poll_ms`: {} is outside 10..60000", s.pollMs));
        }
        if (std::find(s.launch.begin(), s.launch.end(), "{collect}") == s.launch.end())
            return specError(source, root["launch"].Mark(), "`launch` must hold \"{collect}\" (the session's command)");
    } catch (const YAML::Exception& e) {
        return specError(source, e.mark, e.msg);
    }
    return s;
}

core::Result<SlurmSpec> loadSlurmSpec() {
    std::error_code ec;
    fs::path file = core::userConfigDir() / "slurm.yaml";
    if (!fs::exists(file, ec)) file = core::resourcePath("slurm.yaml");
    std::ifstream in(file, std::ios::binary);
    if (!in) return core::Error(fmt::format("{}: cannot read the Slurm spec", file.string()));
    std::stringstream text;
    text << in.rdbuf();
    return parseSlurmSpec(text.str(), file.string());
}

core::Result<std::vector<std::string>> expandSlurmArgv(const std::vector<std::string>& argv,
                                                       const std::map<std::string, std::string>& vars,
                                                       const std::map<std::string, std::vector<std::string>>& lists) {
    std::vector<std::string> out;
    for (const auto& a : argv) {
        if (a.size() > 2 && a.front() == '{' && a.back() == '}') {
            if (auto it = lists.find(a.substr(1, a.size() - 2)); it != lists.end()) {
                out.insert(out.end(), it->second.begin(), it->second.end());
                continue;
            }
        }
        auto x = expandTemplate(a, vars);
        if (!x) return x.error();
        out.push_back(std::move(*x));
    }
    return out;
}

std::string shellQuote(const std::string& s) {
    const bool bare = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
    });
    if (bare) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string batchScript(const std::vector<std::string>& command, const std::vector<std::string>& submitArgv,
                        const std::string& writtenBy) {
    auto line = [](const std::vector<std::string>& argv) {
        std::string s;
        for (const auto& a : argv) s += (s.empty() ? "" : " ") + shellQuote(a);
        return s;
    };
    std::string submitted = line(submitArgv);
    for (size_t at = submitted.find('\n'); at != std::string::npos; at = submitted.find('\n', at)) submitted.replace(at, 1, " ");
    return fmt::format("#!/bin/sh\n"
                       "# Written by {}\n"
                       "# Submitted with: {}\n"
                       "exec {}\n",
                       writtenBy, submitted, line(command));
}

SlurmJobState parseJobState(const SlurmSpec& spec, const std::string& text) {
    SlurmJobState st;
    std::smatch m;
    if (std::regex_search(text, m, std::regex(spec.stateRegex, std::regex::ECMAScript))) st.state = m[1].str();
    if (std::regex_search(text, m, std::regex(spec.exitRegex, std::regex::ECMAScript)) && m.size() > 1) {
        st.exitCode = std::stoi(m[1].str().substr(0, 9));
        if (m.size() > 2 && m[2].matched) st.exitSignal = std::stoi(m[2].str().substr(0, 9));
    }
    st.ended = !st.state.empty() &&
               std::find(spec.endedStates.begin(), spec.endedStates.end(), st.state) != spec.endedStates.end();
    return st;
}

std::string parseJobId(const SlurmSpec& spec, const std::string& text) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex(spec.jobIdRegex, std::regex::ECMAScript))) return m[1].str();
    return "";
}

SlurmTask slurmTaskFromEnvironment() {
    SlurmTask t;
    if (const char* id = std::getenv("SLURM_JOB_ID")) t.jobId = id;
    t.rank = envInt("SLURM_PROCID").value_or(0);
    t.localRank = envInt("SLURM_LOCALID").value_or(0);
    t.tasks = std::max(1, envInt("SLURM_STEP_NUM_TASKS").value_or(1));
    return t;
}

std::map<std::string, std::string> rankVariables(const SlurmTask& task) {
    std::map<std::string, std::string> out;
    if (task.jobId.empty()) return out;
    auto setIfUnset = [&](const char* name, int value) {
        if (!std::getenv(name)) out[name] = std::to_string(value);
    };
    setIfUnset("RANK", task.rank);
    setIfUnset("LOCAL_RANK", task.localRank);
    setIfUnset("WORLD_SIZE", task.tasks);
    return out;
}

}  // namespace strobe::collectors
