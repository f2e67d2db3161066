// No warning on valid input: every real trace, export and telemetry file under tests/data (recognised by the same
// detection the application uses) loads without a warning, neither on the run nor on any rank. Files of one Kineto
// run (a directory of rank files) load together, as a user opens them; every other source loads on its own.
// A source whose data really is anomalous keeps its warning and is listed in kExpectedWarnings with the reason.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/engine/run_loader.h"
#include "core/formats/source_detect.h"
#include "tests/test_paths.h"

using namespace strobe::core;
namespace fs = std::filesystem;

namespace {

// Directories of tests/data that hold real tool output (the others hold invalid input on purpose, expected values,
// source code, sessions or scripts).
const char* const kValidRoots[] = {"small",    "kineto",          "nccl-tests", "telemetry",       "rocprof",
                                   "rocprof-compute", "sqlite", "cuda",       "torch-op-shapes", "ncu",
                                   "joins"};

// Sources (relative to tests/data) whose warning is about the data itself, with the part of the message expected.
struct ExpectedWarning {
    const char* source;
    const char* text;
    const char* reason;
};
const ExpectedWarning kExpectedWarnings[] = {
    {"", "", ""},  // placeholder: none so far
};

std::string relativeToData(const std::string& p) {
    return fs::path(p).lexically_relative(fs::path(std::string(STROBE_TEST_DATA_DIR))).string();
}

// Every source under the roots: each file's own group, plus the directories a directory format claims.
std::vector<std::vector<std::string>> validRuns() {
    std::map<std::string, std::vector<std::string>> kinetoByDir;  // directory → its Kineto files
    std::set<std::string> seen;
    std::vector<std::vector<std::string>> runs;
    auto addGroup = [&](const SourceGroup& g) {
        const std::string primary = groupPrimaryPath(g);
        if (!seen.insert(primary).second) return;
        if (g.format == "kineto")
            kinetoByDir[fs::path(primary).parent_path().string()].push_back(primary);
        else
            runs.push_back({primary});
    };
    for (const char* root : kValidRoots) {
        const fs::path dir = fs::path(std::string(STROBE_TEST_DATA_DIR)) / root;
        std::vector<fs::path> paths;
        for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it)
            paths.push_back(it->path());
        std::sort(paths.begin(), paths.end());
        for (const fs::path& p : paths) {
            const std::string ext = p.extension().string();
            if (ext == ".py" || ext == ".sh" || ext == ".md" || p.filename() == "LICENSE") continue;
            auto groups = detectSources({p.string()});
            if (!groups) continue;  // not a source (a script, a log of the workload, ...)
            if (fs::is_directory(p)) {
                // Only a directory a format claims as a whole (an .xr run), not one that just holds sources.
                for (const SourceGroup& g : *groups)
                    if (groupPrimaryPath(g) == p.string()) addGroup(g);
                continue;
            }
            for (const SourceGroup& g : *groups) addGroup(g);
        }
    }
    for (auto& [dir, files] : kinetoByDir) runs.push_back(files);
    return runs;
}

const ExpectedWarning* expectedFor(const std::string& source, const std::string& message) {
    for (const ExpectedWarning& e : kExpectedWarnings)
        if (*e.source != 0 && source == e.source && message.find(e.text) != std::string::npos) return &e;
    return nullptr;
}

TEST(ValidInput, EveryRealSourceInTestDataLoadsWithoutAWarning) {
    const auto runs = validRuns();
    // The corpus is found, not empty: at least the formats named here are among it.
    std::set<std::string> formats;
    size_t sources = 0;
    for (const auto& run : runs) {
        RunLoadOptions opt;
        opt.useCache = false;  // tests never write to the user's cache
        opt.threads = 1;
        auto ds = loadRun(run, opt);
        ASSERT_TRUE(ds.ok()) << relativeToData(run.front()) << ": " << ds.error().toString();
        const std::string name = relativeToData(run.front());
        auto check = [&](const Diagnostic& d) {
            if (d.severity != Severity::Warning) return;
            const ExpectedWarning* e = expectedFor(name, d.message);
            EXPECT_NE(e, nullptr) << name << " (" << run.size() << " file(s)): warning on valid input: " << d.toString();
        };
        for (const Diagnostic& d : (*ds)->diagnostics) check(d);
        for (const auto& r : (*ds)->ranks) {
            formats.insert(r->info.format);
            for (const Diagnostic& d : r->diagnostics) check(d);
        }
        sources += run.size();
    }
    for (const char* f : {"kineto", "rocprofv3-csv", "rocprofv3-json", "rocpd", "rpd", "nsys-sqlite", "ncu-csv",
                          "nvidia-smi-csv", "nvidia-smi-dmon", "rocm-smi-concise", "strobe-sampler-csv", "nccl-tests",
                          "rocprof-v1", "rocprof-compute-db"})
        EXPECT_TRUE(formats.count(f)) << f << " not among the sources found";
    EXPECT_GE(sources, 30u);
}

}  // namespace
