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
// small/ is left out: our own hand-made files with deliberate oddities (a counter label "x", rank 4 of a world of 4,
// the same rank in three files) that the parser tests exercise.
const char* const kValidRoots[] = {"kineto", "nccl-tests", "telemetry",       "rocprof", "rocprof-compute",
                                   "sqlite", "cuda",       "torch-op-shapes", "ncu",     "joins", "library-logs"};

// Sources (relative to tests/data) whose warning is about the data itself, with the part of the message expected.
struct ExpectedWarning {
    const char* source;
    const char* text;
    const char* reason;
};
const ExpectedWarning kExpectedWarnings[] = {
    // The rocprofiler-sdk documentation's samples come from separate runs (process ids 15, 238, 57, 717, 1834151 in
    // hip_trace, hip_runtime_trace, hsa_core_api_trace, marker_api_trace, rccl_trace), yet share one prefix, so
    // they are one group: their correlation ids collide (id 1 is on 4 calls of 4 processes) and the counter rows
    // name dispatches of another run. Python: for each *_trace.csv count the rows per Correlation_Id.
    {"rocprof/docs-2025/kernel_trace.csv", "appear on more than one runtime/driver call",
     "the docs' CSV files are separate runs: correlation ids collide"},
    {"rocprof/docs-2025/kernel_trace.csv", "counter rows name a Dispatch_Id absent from the kernel trace",
     "the docs' counter_collection.csv is from another run than its kernel_trace.csv"},
    // timestamps.csv as published in rocprofiler-compute's tests has Start/End_Timestamp like 8.1097E+14 (saved by
    // a spreadsheet): 5 significant digits, so times really are approximate.
    {"rocprof-compute/vcopy_MI300X_A1_rocprofv2", "scientific notation",
     "the published timestamps.csv lost its precision (8.1097E+14)"},
    // nvidia-smi dmon without -o DT writes no time at all: the times Strobe shows are assumed (1 s apart, dmon's
    // default; a run with -d 5 would be 5x off), which the user must be told.
    {"telemetry/nvidia-smi/h100_dmon_idle.txt", "dmon wrote no time", "no time column: times are assumed"},
    {"telemetry/nvidia-smi/h100_dmon_load.txt", "dmon wrote no time", "no time column: times are assumed"},
    {"telemetry/nvidia-smi/l40s_dmon_idle.txt", "dmon wrote no time", "no time column: times are assumed"},
    {"telemetry/nvidia-smi/l40s_dmon_load.txt", "dmon wrote no time", "no time column: times are assumed"},
    // HTA's and TraceLens's samples are one or two ranks of larger runs (their distributedInfo says so): the run
    // as opened really lacks the other ranks.
    {"kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", "ranks missing: 0-33, 35-299",
     "rank 34 of a 300-rank run"},
    {"kineto/hta/df_index_resolver/df_index_resolver.json.gz", "rank missing: 0", "rank 1 of a 2-rank run"},
    {"kineto/hta/nccl_parser_config/nccl_data.json.gz", "rank missing: 1", "rank 0 of a 2-rank run"},
    {"kineto/hta/trace_filter/sampled_rank-0.json.gz", "ranks missing: 2-127", "ranks 0 and 1 of a 128-rank run"},
    {"kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz", "ranks missing: 1-7", "rank 0 of 8"},
};

// Files under the roots that are no tool's output, though a format's sniffer may claim them.
const char* const kNotSources[] = {
    "cuda/device.txt",  // notes of the capture machine: nvidia-smi's query header, then torch/ncu/uname lines
    "joins/expected_join.json",  // a test's expected values (a *.json in a directory is taken for a Kineto trace)
};

std::string relativeToData(const std::string& p) {
    return fs::path(p).lexically_relative(fs::path(std::string(STROBE_TEST_DATA_DIR))).string();
}

// Every source under the roots, found as the application finds them when a user opens a directory (by content: a
// JSON file that is no trace, such as a clock anchor, is not one): each directory under the roots is expanded.
std::vector<std::vector<std::string>> validRuns() {
    std::map<std::string, std::vector<std::string>> kinetoByDir;  // directory → its Kineto files
    std::set<std::string> seen;
    std::vector<std::vector<std::string>> runs;
    auto addGroup = [&](const SourceGroup& g) {
        const std::string primary = groupPrimaryPath(g);
        const std::string rel = relativeToData(primary);
        if (std::any_of(std::begin(kNotSources), std::end(kNotSources), [&](const char* n) { return rel == n; }))
            return;
        if (!seen.insert(primary).second) return;
        if (g.format == "kineto")
            kinetoByDir[fs::path(primary).parent_path().string()].push_back(primary);
        else
            runs.push_back({primary});
    };
    for (const char* root : kValidRoots) {
        const fs::path dir = fs::path(std::string(STROBE_TEST_DATA_DIR)) / root;
        std::vector<fs::path> dirs{dir};
        for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it)
            if (it->is_directory()) dirs.push_back(it->path());
        std::sort(dirs.begin(), dirs.end());
        for (const fs::path& d : dirs) {
            auto groups = detectSources({d.string()});
            if (!groups) continue;  // a directory without sources
            for (const SourceGroup& g : *groups) addGroup(g);
        }
    }
    for (auto& [dir, files] : kinetoByDir) {
        std::sort(files.begin(), files.end());
        runs.push_back(files);
    }
    return runs;
}

const ExpectedWarning* expectedFor(const std::string& source, const std::string& message) {
    for (const ExpectedWarning& e : kExpectedWarnings)
        if (source == e.source && message.find(e.text) != std::string::npos) return &e;
    return nullptr;
}

TEST(ValidInput, EveryRealSourceInTestDataLoadsWithoutAWarning) {
    const auto runs = validRuns();
    // The corpus is found, not empty: at least the formats named here are among it.
    std::set<std::string> formats;
    std::set<const ExpectedWarning*> seenExpected;
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
            if (e != nullptr) seenExpected.insert(e);
            EXPECT_NE(e, nullptr) << name << " (" << run.size() << " file(s)): warning on valid input: " << d.toString();
        };
        for (const Diagnostic& d : (*ds)->diagnostics) check(d);
        for (const RankData* r : (*ds)->allSources()) {  // the ranks and the hosts' telemetry
            formats.insert(r->info.format);
            for (const Diagnostic& d : r->diagnostics) check(d);
        }
        sources += run.size();
    }
    // Each listed warning still occurs (a fixed loader or a removed file takes it off the list).
    for (const ExpectedWarning& e : kExpectedWarnings)
        EXPECT_TRUE(seenExpected.count(&e)) << e.source << ": the expected warning '" << e.text << "' no longer occurs";
    for (const char* f : {"kineto", "rocprofv3-csv", "rocprofv3-json", "rocpd", "rpd", "nsys-sqlite", "ncu-csv",
                          "nvidia-smi-csv", "nvidia-smi-dmon", "rocm-smi-concise", "strobe-sampler-csv", "nccl-tests",
                          "rocprof-v1", "rocprof-compute-db"})
        EXPECT_TRUE(formats.count(f)) << f << " not among the sources found";
    EXPECT_GE(sources, 30u);
}

}  // namespace
