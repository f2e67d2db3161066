#include "core/sweep/sweep_discovery.h"

#include <algorithm>
#include <tuple>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>


namespace strobe::core::sweep {

namespace fs = std::filesystem;

namespace {

struct RawRun {
    std::string path;
    std::string label;
    std::map<std::string, std::string> values;  // untyped
    int explicitRepeat = -1;
    std::shared_ptr<const RunManifest> manifest = {};  // the run's, when it has one
};

bool isInteger(const std::string& text) {
    long long v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

bool isFloat(const std::string& text) {
    if (text.empty()) return false;
    std::istringstream in(text);
    double v = 0;
    in >> v;
    return !in.fail() && in.eof();
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// rep3 / repeat3 / run3 → 3, else -1.
int repeatIndex(const std::string& name) {
    static const std::regex re(R"(^(?:rep|repeat|run)[_-]?(\d{1,6})$)", std::regex::icase);
    std::smatch m;
    if (std::regex_match(name, m, re)) return std::stoi(m[1].str());
    return -1;
}

// key=value, or key_value split at the last underscore when the key is alphabetic-ish.
bool parseNameValue(const std::string& name, std::string& key, std::string& value) {
    // AORTA layout: "4thread", "nccl_8channels" → thread=4, channels=8.
    static const std::regex countUnit(R"(^(?:[A-Za-z]+_)?(\d+)([A-Za-z]+)$)");
    std::smatch m;
    if (std::regex_match(name, m, countUnit)) {
        key = m[2].str();
        value = m[1].str();
        return true;
    }
    if (auto eq = name.find('='); eq != std::string::npos && eq > 0 && eq + 1 < name.size()) {
        key = name.substr(0, eq);
        value = name.substr(eq + 1);
        return true;
    }
    auto us = name.rfind('_');
    if (us == std::string::npos || us == 0 || us + 1 >= name.size()) return false;
    key = name.substr(0, us);
    value = name.substr(us + 1);
    return std::isalpha(static_cast<unsigned char>(key.front())) != 0;
}

// Sub-directories that belong to one run (AORTA: torch_profiler/rank*/, rocprof_traces/), never sweep axes.
bool isRunContent(const std::string& name) {
    return name == "torch_profiler" || name == "rocprof_traces" || name.rfind("rank", 0) == 0;
}

// sweep_YYYYMMDD_HHMMSS: the AORTA sweep root; its date is not an axis.
bool isTimestampedContainer(const std::string& name) {
    static const std::regex re(R"(^sweep_\d{8}_\d{6}$)");
    return std::regex_match(name, re);
}

// Run directories (the root or below, 3 levels at most) holding a Strobe run manifest (core/model/run_manifest.h).
// Returns false when there is none; a manifest that fails to read is named in `messages` and skipped.
bool collectManifestRuns(const fs::path& root, std::vector<RawRun>& raw, std::vector<std::string>& messages,
                         const CancelToken& cancel, bool includeIncomplete) {
    bool any = false;
    for (const std::string& dir : findRunManifestDirs(root.string(), 3)) {
        if (cancel.cancelled()) return any;
        auto read = readRunManifestFile(runManifestPath(dir));
        if (!read) {
            messages.push_back(read.error().toString());
            continue;
        }
        if (!*read) continue;  // a manifest.yaml of something else
        const RunManifest& m = **read;
        for (const auto& w : m.warnings) messages.push_back(w);
        // A run that did not complete (interrupted: still "running"; incomplete; failed; cancelled) is not compared,
        // unless asked for an incomplete one (its workload completed; a tool asked for wrote nothing).
        const bool keepIncomplete = includeIncomplete && m.status == RunStatus::Incomplete;
        if (m.status != RunStatus::Completed && !keepIncomplete) {
            messages.push_back(dir + ": skipped, its manifest says status: " + toString(m.status) +
                               (m.statusReason.empty() ? "" : " (" + m.statusReason + ")") +
                               (m.status == RunStatus::Incomplete ? "; --include-incomplete compares it" : ""));
            any = true;  // manifests still decide: a sweep.yaml beside them would list the same runs
            continue;
        }
        if (keepIncomplete)
            messages.push_back(dir + ": included although incomplete" +
                               (m.statusReason.empty() ? "" : " (" + m.statusReason + ")"));
        RawRun run{dir, fs::path(dir).filename().string(), parameterTexts(m.parameters), m.repeat.value_or(-1)};
        run.manifest = std::make_shared<RunManifest>(m);
        raw.push_back(std::move(run));
        any = true;
    }
    return any;
}

// <root>/sweep.yaml (core/model's SweepFile): runs: [{path, parameters, repeat}], paths relative to the root.
bool collectSweepFileRuns(const fs::path& root, std::vector<RawRun>& raw, std::vector<std::string>& messages) {
    if (!hasSweepFile(root.string())) return false;
    auto read = readSweepFile(root.string());
    if (!read) {
        messages.push_back(read.error().toString() + "; ignored");
        return false;
    }
    for (const auto& w : read->warnings) messages.push_back(w);
    for (const SweepFileRun& r : read->runs)
        raw.push_back(RawRun{(root / r.path).string(), r.path, parameterTexts(r.parameters), r.repeat.value_or(-1)});
    return true;
}

// A user pattern such as "{threads}thread/nccl_{channels}channels": literal text matches itself, {name} one
// path component's text (an axis value), {repeat} a repeat number. Matched against directory paths relative to
// the root, as many components deep as the pattern has.
struct CompiledPattern {
    std::regex re;
    std::vector<std::string> names;
    int depth = 1;
};

bool compilePattern(const std::string& pattern, CompiledPattern& out, std::string& error) {
    std::string re;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '{') {
            const size_t close = pattern.find('}', i);
            if (close == std::string::npos || close == i + 1) {
                error = "pattern: '{' at offset " + std::to_string(i) + " has no name and closing '}'";
                return false;
            }
            const std::string name = pattern.substr(i + 1, close - i - 1);
            out.names.push_back(name);
            re += name == "repeat" ? "(\\d+)" : "([^/]+?)";
            i = close;
            continue;
        }
        if (c == '/') ++out.depth;
        if (std::strchr("\\^$.|?*+()[]{}", c) != nullptr) re += '\\';
        re += c;
    }
    if (out.names.empty()) {
        error = "pattern: no {name} placeholder in '" + pattern + "'";
        return false;
    }
    out.re = std::regex("^" + re + "$");
    return true;
}

bool collectPatternRuns(const fs::path& root, const CompiledPattern& pattern, std::vector<RawRun>& raw) {
    std::vector<fs::path> dirs;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        if (it.depth() + 1 >= pattern.depth) it.disable_recursion_pending();
        if (it.depth() + 1 == pattern.depth && it->is_directory()) dirs.push_back(it->path());
    }
    std::sort(dirs.begin(), dirs.end());
    bool any = false;
    for (const auto& dir : dirs) {
        const std::string rel = dir.lexically_relative(root).generic_string();
        std::smatch m;
        if (!std::regex_match(rel, m, pattern.re)) continue;
        RawRun run{dir.string(), rel, {}, -1};
        for (size_t i = 0; i < pattern.names.size(); ++i) {
            if (pattern.names[i] == "repeat") run.explicitRepeat = std::stoi(m[i + 1].str());
            else run.values[pattern.names[i]] = m[i + 1].str();
        }
        raw.push_back(std::move(run));
        any = true;
    }
    return any;
}

void collectCmdRuns(const std::vector<fs::path>& dirs, std::vector<RawRun>& raw) {
    std::vector<std::vector<std::string>> argvs;
    size_t width = 0;
    for (const auto& dir : dirs) {
        argvs.push_back(splitCommandLine(readFile(dir / "cmd")));
        width = std::max(width, argvs.back().size());
    }
    std::vector<size_t> varying;
    for (size_t i = 0; i < width; ++i) {
        std::set<std::string> seen;
        for (const auto& argv : argvs) seen.insert(i < argv.size() ? argv[i] : kAbsentValue);
        if (seen.size() > 1) varying.push_back(i);
    }
    for (size_t r = 0; r < dirs.size(); ++r) {
        RawRun run{dirs[r].string(), dirs[r].filename().string(), {}, -1};
        for (size_t i : varying)
            run.values["arg" + std::to_string(i)] = i < argvs[r].size() ? argvs[r][i] : kAbsentValue;
        raw.push_back(std::move(run));
    }
}

// A directory holding runs named by parameter, possibly with rep<N> children.
void collectNamedRuns(const fs::path& dir, std::map<std::string, std::string> values, std::vector<RawRun>& raw,
                      int depth, const CancelToken& cancel) {
    if (cancel.cancelled()) return;
    std::vector<fs::path> children;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_directory()) children.push_back(entry.path());
    std::sort(children.begin(), children.end());
    bool any = false;
    for (const auto& child : children) {
        const std::string name = child.filename().string();
        if (int rep = repeatIndex(name); rep >= 0) {
            raw.push_back(RawRun{child.string(), child.string(), values, rep});
            any = true;
            continue;
        }
        std::string key, value;
        if (isRunContent(name)) continue;
        if (isTimestampedContainer(name)) {
            collectNamedRuns(child, values, raw, depth + 1, cancel);
            any = true;
            continue;
        }
        if (depth < 4 && parseNameValue(name, key, value)) {
            auto next = values;
            next[key] = value;
            size_t before = raw.size();
            collectNamedRuns(child, next, raw, depth + 1, cancel);
            if (raw.size() == before) raw.push_back(RawRun{child.string(), name, next, -1});
            any = true;
        }
    }
    (void)any;
}

// The name of a run given as a path: the directory's or file's name (a trailing slash ignored).
std::string runName(const fs::path& path) {
    const fs::path p = path.has_filename() ? path : path.parent_path();
    return p.filename().string();
}

// Runs given side by side as paths that carry no parameters (no manifest, sweep.yaml, pattern, cmd file or named
// sub-directories) were pooled as repeats of one configuration, so `sweep compare A B` compared nothing. Two or more
// of them are named by their own names instead: rep<N> names stay repeats; key_value or key=value names, when every
// such run's name has the same key, give that axis (resnet50_num_workers_0 and _4 → resnet50_num_workers=0, 4);
// otherwise the run's name is its configuration (run=<name>).
void nameBareRuns(std::vector<RawRun>& raw, const std::vector<size_t>& bare, std::vector<std::string>& messages) {
    if (bare.size() < 2) return;
    std::vector<std::pair<std::string, std::string>> named(bare.size());
    std::set<std::string> keys;
    size_t repeats = 0;
    for (size_t i = 0; i < bare.size(); ++i) {
        const RawRun& r = raw[bare[i]];
        if (repeatIndex(r.label) >= 0) {
            ++repeats;
            continue;
        }
        std::string key, value;
        std::error_code ec;
        if (fs::is_directory(r.path, ec) && parseNameValue(r.label, key, value)) named[i] = {key, value};
        keys.insert(named[i].first);  // "" for a name without a key
    }
    if (repeats == bare.size()) return;
    const bool oneKey = keys.size() == 1 && !keys.begin()->empty();
    for (size_t i = 0; i < bare.size(); ++i) {
        RawRun& r = raw[bare[i]];
        if (repeatIndex(r.label) >= 0) continue;
        if (oneKey) r.values[named[i].first] = named[i].second;
        else r.values["run"] = r.label;
    }
    messages.push_back(oneKey ? "runs given as paths: their names give the axis " + *keys.begin()
                              : std::string("runs given as paths: each run's name is its configuration (run=NAME)"));
}

}  // namespace

std::vector<std::string> splitCommandLine(const std::string& text) {
    std::vector<std::string> argv;
    std::string current;
    for (char c : text) {
        if (c == ',' || std::isspace(static_cast<unsigned char>(c)) != 0) {
            if (!current.empty()) argv.push_back(std::move(current));
            current.clear();
        } else {
            current.push_back(c);
        }
    }
    if (!current.empty()) argv.push_back(std::move(current));
    return argv;
}

SweepDiscovery discoverSweep(const std::vector<std::string>& paths, const std::string& pattern,
                             const CancelToken& cancel, bool includeIncomplete) {
    SweepDiscovery result;
    std::vector<RawRun> raw;
    std::vector<size_t> bare;  // runs given as paths that say nothing of their parameters
    CompiledPattern compiled;
    bool usePattern = false;
    if (!pattern.empty()) {
        std::string error;
        usePattern = compilePattern(pattern, compiled, error);
        if (!usePattern) result.messages.push_back(error);
    }
    for (const auto& pathText : paths) {
        if (cancel.cancelled()) break;
        const fs::path root(pathText);
        const size_t manifestStart = raw.size();
        if (collectManifestRuns(root, raw, result.messages, cancel, includeIncomplete)) {
            result.messages.push_back(pathText + ": " + std::to_string(raw.size() - manifestStart) +
                                      " runs from manifest.yaml parameters");
            continue;
        }
        if (collectSweepFileRuns(root, raw, result.messages)) {
            result.messages.push_back(pathText + ": " + std::to_string(raw.size() - manifestStart) +
                                      " runs from sweep.yaml");
            continue;
        }
        if (usePattern && collectPatternRuns(root, compiled, raw)) {
            result.messages.push_back(pathText + ": " + std::to_string(raw.size() - manifestStart) +
                                      " runs matching the pattern " + pattern);
            continue;
        }
        if (usePattern)
            result.messages.push_back(pathText + ": no directory matches the pattern " + pattern +
                                      "; falling back to cmd files and directory names");
        std::vector<fs::path> cmdDirs;
        std::error_code ec;
        if (fs::exists(root / "cmd", ec)) cmdDirs.push_back(root);
        for (const auto& entry : fs::directory_iterator(root, ec))
            if (entry.is_directory() && fs::exists(entry.path() / "cmd")) cmdDirs.push_back(entry.path());
        std::sort(cmdDirs.begin(), cmdDirs.end());
        if (!cmdDirs.empty()) {
            result.messages.push_back(pathText + ": " + std::to_string(cmdDirs.size()) +
                                      " run directories with a rocprof `cmd` file; varying arguments are axes");
            collectCmdRuns(cmdDirs, raw);
            continue;
        }
        const size_t before = raw.size();
        collectNamedRuns(root, {}, raw, 0, cancel);
        if (raw.size() > before)
            result.messages.push_back(pathText + ": " + std::to_string(raw.size() - before) +
                                      " runs from directory names (key=value, key_value, rep<N>)");
        else
            bare.push_back(raw.size()), raw.push_back(RawRun{root.string(), runName(root), {}, -1});
    }
    nameBareRuns(raw, bare, result.messages);
    if (cancel.cancelled()) {
        result.cancelled = true;
        result.messages.push_back("cancelled");
        return result;  // no runs: what was found so far would be an arbitrary subset
    }
    // Axes and their types.
    std::map<std::string, int> kind;  // 0 int, 1 float, 2 string
    for (const auto& run : raw)
        for (const auto& [key, value] : run.values) {
            int k = isInteger(value) ? 0 : isFloat(value) ? 1 : 2;
            kind[key] = std::max(kind.count(key) ? kind[key] : 0, k);
        }
    for (const auto& [key, k] : kind) result.axes.push_back(key);
    std::map<std::string, int> repeatsSeen;
    for (auto& r : raw) {
        RunEntry run;
        run.label = r.label;
        run.paths = {r.path};
        std::map<std::string, std::string> texts;
        for (const auto& axis : result.axes) {
            auto it = r.values.find(axis);
            std::string text = it == r.values.end() ? kAbsentValue : it->second;
            int k = it == r.values.end() ? 2 : kind[axis];
            if (k == 0) run.parameters[axis] = std::stoll(text);
            else if (k == 1) run.parameters[axis] = std::stod(text);
            else run.parameters[axis] = text;
            texts[axis] = std::move(text);
        }
        const std::string key = configurationKey(texts);
        run.configurationKey = key;
        run.manifest = std::move(r.manifest);
        int& seen = repeatsSeen[key];
        run.repeat = seen++;
        result.runs.push_back(std::move(run));
    }
    // Runs in axis-value order (numbers as numbers: 4 before 16), repeats in order within a configuration.
    std::stable_sort(result.runs.begin(), result.runs.end(), [](const RunEntry& a, const RunEntry& b) {
        return std::tie(a.parameters, a.repeat) < std::tie(b.parameters, b.repeat);
    });
    return result;
}

}  // namespace strobe::core::sweep
