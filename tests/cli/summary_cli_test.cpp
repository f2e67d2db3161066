// strobe-cli summary: option parsing, exit codes, JSON validity, and the bundled 8-rank sample checked against
// tests/data/expected/kineto_facts.json (values computed with Python's json module, outside Strobe).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "app/cli/cmd_summary.h"
#include "app/cli/command.h"
#include "core/analysis/summary.h"
#include "tests/cli/cli_capture.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;
namespace fs = std::filesystem;

namespace {

using test::CliResult;

CliResult runSummary(const std::vector<std::string>& args) { return test::runCli("summary", args); }

// A fresh directory per test, removed when it ends.
struct TempDir : strobe::test::TempDir {
    TempDir() : strobe::test::TempDir("strobe-summary-cli") {}
};

// A run of one hand-built rank: two kernels (300 + 100 ns), one memcpy (200 ns), one step.
std::shared_ptr<core::Dataset> handBuiltRun() {
    auto rank = std::make_shared<core::RankData>();
    rank->rank = 1;
    rank->rankSource = core::RankSource::DistributedInfo;
    rank->path = "dir/rank1 \"quoted\".json";
    rank->info.platform = core::Platform::Amd;
    rank->info.distributed.worldSize = 2;
    core::DeviceProperties dev;
    dev.name = "AMD Instinct MI300X";
    rank->info.devices.push_back(dev);
    auto& g = rank->gpu;
    auto add = [&](const char* name, core::EventKind kind, core::KernelCategory cat, core::TimeNs ts,
                   core::TimeNs dur) {
        g.ts.push_back(ts);
        g.dur.push_back(dur);
        g.name.push_back(rank->strings.intern(name));
        g.cat.push_back(rank->strings.intern(kind == core::EventKind::Kernel ? "kernel" : "gpu_memcpy"));
        g.kind.push_back(kind);
        g.category.push_back(cat);
    };
    add("Cijk_Alik_Bljk\x01\xff", core::EventKind::Kernel, core::KernelCategory::Gemm, 1000, 300);
    add("Cijk_Alik_Bljk\x01\xff", core::EventKind::Kernel, core::KernelCategory::Gemm, 2000, 100);
    add("Memcpy HtoD", core::EventKind::Memcpy, core::KernelCategory::Memcpy, 500, 200);
    rank->steps.number.push_back(7);
    rank->steps.start.push_back(400);
    rank->steps.end.push_back(2100);
    rank->steps.slice.push_back(0);
    auto ds = std::make_shared<core::Dataset>();
    ds->sources = {"dir"};
    ds->ranks.push_back(rank);
    ds->diagnostics.push_back(core::Diagnostic{core::Severity::Warning, core::Location{}, "rank 0 is missing"});
    return ds;
}

// A JSON document, parsed; `ok` says whether it parsed. The parser owns what `root` points into.
struct JsonDoc {
    explicit JsonDoc(const std::string& text) : padded(text) {
        ok = parser.parse(padded).get(root) == simdjson::SUCCESS;
    }
    simdjson::dom::parser parser;
    simdjson::padded_string padded;
    simdjson::dom::element root;
    bool ok = false;
};

// `summary --json` output and its first rank; `ok`: it parsed and has one.
struct SummaryDoc : JsonDoc {
    explicit SummaryDoc(const std::string& text) : JsonDoc(text) {
        ok = ok && root["ranks"].at(0).get(rank) == simdjson::SUCCESS;
    }
    simdjson::dom::element rank;
};

// The string at `key` of `e`, or "(no string)" when there is none, so that a comparison with it fails.
std::string_view stringAt(simdjson::dom::element e, std::string_view key) {
    std::string_view sv;
    return e[key].get(sv) == simdjson::SUCCESS ? sv : "(no string)";
}

// The integer at `key` of `e`, or INT64_MIN when there is none.
int64_t intAt(simdjson::dom::element e, std::string_view key) {
    int64_t v = 0;
    return e[key].get(v) == simdjson::SUCCESS ? v : INT64_MIN;
}

}  // namespace

// Options declared as core params, as the commands do.
const core::BoolParam kJsonOpt{"json", "JSON", "", false};
const core::IntParam kTopOpt = core::IntParam{"top", "Top", "", 3}.bounded(0, 10, 1);
const core::StringListParam kSetOpt{"set", "Set", "", {}};

TEST(CliArgs, ParsesLongShortInlineAndPositionals) {
    app::ArgParser p("x", {kJsonOpt, {kTopOpt, 'n'}, {kSetOpt, 's', true}});
    ASSERT_TRUE(p.parse({"a", "--json", "--top=5", "-s", "k=v", "-sk2=v2,x", "--", "--json"})) << p.error();
    EXPECT_TRUE(p.has(kJsonOpt));
    EXPECT_TRUE(p.get(kJsonOpt));
    EXPECT_EQ(p.get(kTopOpt), 5);
    EXPECT_EQ(p.get(kSetOpt), (std::vector<std::string>{"k=v", "k2=v2,x"}));  // one item per occurrence
    EXPECT_EQ(p.positionals(), (std::vector<std::string>{"a", "--json"}));
    ASSERT_TRUE(p.parse({"-n7", "b"})) << p.error();
    EXPECT_EQ(p.get(kTopOpt), 7);
    EXPECT_FALSE(p.has(kJsonOpt));
    EXPECT_FALSE(p.get(kJsonOpt));
    ASSERT_TRUE(p.parse({"b"}));
    EXPECT_FALSE(p.has(kTopOpt));
    EXPECT_EQ(p.get(kTopOpt), 3);  // the declared default
}

TEST(CliArgs, RejectsWhatItDoesNotKnow) {
    app::ArgParser p("x", {kJsonOpt, kTopOpt});
    EXPECT_FALSE(p.parse({"--nope"}));
    EXPECT_NE(p.error().find("--nope"), std::string::npos);
    EXPECT_FALSE(p.parse({"-q"}));
    EXPECT_FALSE(p.parse({"--top"}));                     // value missing
    EXPECT_FALSE(p.parse({"--json=1"}));                  // flag with a value
    EXPECT_FALSE(p.parse({"--top", "1", "--top", "2"}));  // not repeatable
    // Values are coerced by the spec (core::coerceValue): the error names the option and the value.
    for (const char* bad : {"-3", "7x", "2.5", "abc", "11"}) {
        EXPECT_FALSE(p.parse({"--top", bad})) << bad;
        EXPECT_NE(p.error().find("'--top'"), std::string::npos) << p.error();
        EXPECT_NE(p.error().find(bad), std::string::npos) << p.error();
    }
    EXPECT_TRUE(p.parse({"--top", "10"})) << p.error();
}

TEST(CliArgs, HelpStopsAtDoubleDash) {
    EXPECT_TRUE(app::wantsHelp({"a", "--help"}));
    EXPECT_TRUE(app::wantsHelp({"-h"}));
    EXPECT_FALSE(app::wantsHelp({"--", "--help"}));
}

TEST(CliJson, QuoteAlwaysGivesValidJson) {
    const std::string raw = std::string("a\"b\\c\n\t\x01") + "\xC3\xA9" + "\xff" + "\xE2\x82" + "\xF0\x9F\x98\x80";
    const std::string doc = "[" + app::jsonQuote(raw) + "]";
    JsonDoc parsed(doc);
    ASSERT_TRUE(parsed.ok) << doc;
    std::string_view back;
    ASSERT_EQ(parsed.root.at(0).get(back), simdjson::SUCCESS);
    // The valid parts come back unchanged; the stray 0xFF and the cut 3-byte sequence become U+FFFD.
    EXPECT_EQ(
        back,
        std::string("a\"b\\c\n\t\x01") + "\xC3\xA9" + "\xEF\xBF\xBD" + "\xEF\xBF\xBD\xEF\xBF\xBD" + "\xF0\x9F\x98\x80");
}

TEST(SummaryCli, JsonDocumentHasTheDocumentedKeys) {
    auto ds = handBuiltRun();
    const std::string doc = app::summaryJson(core::summarizeRun(*ds, 5), *ds);
    JsonDoc json(doc);
    ASSERT_TRUE(json.ok) << doc;
    const simdjson::dom::element root = json.root;
    EXPECT_EQ(intAt(root, "world_size"), 2);
    simdjson::dom::array warnings;
    ASSERT_EQ(root["warnings"].get(warnings), simdjson::SUCCESS);
    EXPECT_EQ(warnings.size(), 1u);
    simdjson::dom::element r;
    ASSERT_EQ(root["ranks"].at(0).get(r), simdjson::SUCCESS);
    int64_t v = 0;
    std::string_view sv;
    ASSERT_EQ(r["rank"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 1);
    ASSERT_EQ(r["path"].get(sv), simdjson::SUCCESS);
    EXPECT_EQ(sv, "dir/rank1 \"quoted\".json");
    ASSERT_EQ(r["platform"].get(sv), simdjson::SUCCESS);
    EXPECT_EQ(sv, "AMD");
    ASSERT_EQ(r["gpu_name"].get(sv), simdjson::SUCCESS);
    EXPECT_EQ(sv, "AMD Instinct MI300X");
    ASSERT_EQ(r["kernels"]["count"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 2);
    ASSERT_EQ(r["kernels"]["total_ns"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 400);  // 300 + 100
    ASSERT_EQ(r["memcpy"]["total_ns"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 200);
    ASSERT_EQ(r["span"]["start_ns"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 500);  // the memcpy starts first
    ASSERT_EQ(r["span"]["end_ns"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 2100);  // the second kernel ends at 2000 + 100
    ASSERT_EQ(r["steps"].at(0)["number"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 7);
    ASSERT_EQ(r["time_by_category"]["gemm"]["total_ns"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 400);
    ASSERT_EQ(r["top_kernels"].at(0)["count"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 2);
    ASSERT_EQ(r["events_by_category"]["kernel"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 2);
}

TEST(SummaryCli, TextNamesRankFileAndWarnings) {
    auto ds = handBuiltRun();
    const std::string text = app::summaryText(core::summarizeRun(*ds, 5), *ds);
    EXPECT_NE(text.find("Rank 1 of 2"), std::string::npos) << text;
    EXPECT_NE(text.find("AMD Instinct MI300X"), std::string::npos);
    EXPECT_NE(text.find("2 kernels, 400 ns total"), std::string::npos) << text;
    EXPECT_NE(text.find("rank 0 is missing"), std::string::npos);
}

TEST(SummaryCli, UsageErrorsExitTwo) {
    CliResult r = runSummary({});
    EXPECT_EQ(r.code, app::kExitUsage);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("summary"), std::string::npos);
    EXPECT_EQ(runSummary({"--frobnicate", "x"}).code, app::kExitUsage);
    EXPECT_EQ(runSummary({"--top", "many", "x"}).code, app::kExitUsage);
    EXPECT_EQ(runSummary({"--top"}).code, app::kExitUsage);
}

// --top is an IntParam bounded to [0, 1000000]: a value that is not a whole number in range is refused by the
// rule of --set and sessions (core::coerceValue), naming the option and the value, before anything is loaded.
TEST(SummaryCli, TopIsTypedAndCoercedByTheParamRule) {
    const std::string sample = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";
    for (const char* bad : {"2.5", "abc", "-1", "1000001", ""}) {
        CliResult r = runSummary({"--top", bad, sample});
        EXPECT_EQ(r.code, app::kExitUsage) << bad;
        EXPECT_TRUE(r.out.empty()) << bad;
        EXPECT_NE(r.err.find("'--top'"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    }
    CliResult inlineBad = runSummary({"--top=7x", sample});
    EXPECT_EQ(inlineBad.code, app::kExitUsage);
    EXPECT_NE(inlineBad.err.find("'7x'"), std::string::npos) << inlineBad.err;
    // A valid value is read through the handle: one kernel per rank (every rank of the sample runs kernels).
    CliResult ok = runSummary({"--top=1", "--json", "--no-cache", sample});
    ASSERT_EQ(ok.code, app::kExitOk) << ok.err;
    JsonDoc json(ok.out);
    ASSERT_TRUE(json.ok) << ok.out;
    simdjson::dom::array ranks;
    ASSERT_EQ(json.root["ranks"].get(ranks), simdjson::SUCCESS);
    ASSERT_EQ(ranks.size(), 8u);
    for (simdjson::dom::element rank : ranks) {
        simdjson::dom::array top;
        ASSERT_EQ(rank["top_kernels"].get(top), simdjson::SUCCESS);
        EXPECT_EQ(top.size(), 1u);
    }
}

TEST(SummaryCli, MissingFileExitsThreeAndNamesIt) {
    TempDir tmp;
    const std::string missing = (tmp.path() / "no_such_trace.json").string();
    CliResult r = runSummary({"--no-cache", missing});
    EXPECT_EQ(r.code, app::kExitBadInput);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("no_such_trace.json"), std::string::npos) << r.err;
}

TEST(SummaryCli, DirectoryWithoutTracesExitsThree) {
    TempDir tmp;
    std::ofstream(tmp.path() / "notes.txt") << "not a trace\n";
    CliResult r = runSummary({"--no-cache", tmp.path().string()});
    EXPECT_EQ(r.code, app::kExitBadInput);
    EXPECT_FALSE(r.err.empty());
}

TEST(SummaryCli, NonJsonTraceExitsThree) {
    TempDir tmp;
    const fs::path bad = tmp.path() / "rank0.json";
    std::ofstream(bad) << "this is not JSON at all";
    CliResult r = runSummary({"--no-cache", bad.string()});
    EXPECT_EQ(r.code, app::kExitBadInput);
    EXPECT_NE(r.err.find("rank0.json"), std::string::npos) << r.err;
}

// Two instantiations of one CUTLASS template differ in their last parameters: the text output shortens long names in
// the middle, so both ends stay and the two rows read differently (cut at the end, they printed the same).
TEST(SummaryCli, LongKernelNamesKeepTheirEnds) {
    TempDir tmp;
    const std::string stem = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_bf16_128x256_64x3_tn_align8"
                             "::Params, cutlass::gemm::GemmShape";
    const std::string a = stem + std::string(60, 'x') + "<128, 256, 64>>()";
    const std::string b = stem + std::string(60, 'x') + "<256, 128, 32>>()";
    const fs::path trace = tmp.path() / "rank0.json";
    std::ofstream(trace) << R"({"schemaVersion": 1, "traceEvents": [)"
                         << R"({"ph": "X", "cat": "kernel", "name": ")" << a
                         << R"(", "pid": 0, "tid": 7, "ts": 1000, "dur": 30, "args": {"device": 0, "stream": 7}},)"
                         << R"({"ph": "X", "cat": "kernel", "name": ")" << b
                         << R"(", "pid": 0, "tid": 7, "ts": 2000, "dur": 20, "args": {"device": 0, "stream": 7}}]})";
    const CliResult r = runSummary({"--no-cache", trace.string()});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    EXPECT_NE(r.out.find("<128, 256, 64>>()"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("<256, 128, 32>>()"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("void cutlass::Kernel2<cutlass_80"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("..."), std::string::npos) << "shortened: " << r.out;
    EXPECT_EQ(r.out.find(a), std::string::npos) << "the whole name is longer than the column";
}

// The bundled sample against values computed outside Strobe (tests/data/expected/kineto_facts.json).
TEST(SummaryCli, SampleRunMatchesExpectedFacts) {
    const std::string sample = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";
    CliResult r = runSummary({"--json", "--no-cache", sample});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;

    simdjson::dom::parser expectedParser;
    simdjson::dom::element expected;
    ASSERT_EQ(expectedParser.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/kineto_facts.json").get(expected),
              simdjson::SUCCESS);
    JsonDoc json(r.out);
    ASSERT_TRUE(json.ok) << r.out;
    const simdjson::dom::element root = json.root;

    EXPECT_EQ(intAt(root, "world_size"), 8);
    simdjson::dom::array ranks;
    ASSERT_EQ(root["ranks"].get(ranks), simdjson::SUCCESS);
    ASSERT_EQ(ranks.size(), 8u);
    int seen = 0;
    for (simdjson::dom::element rank : ranks) {
        std::string_view path;
        ASSERT_EQ(rank["path"].get(path), simdjson::SUCCESS);
        const std::string key = "param-dlrm-8rank/" + fs::path(std::string(path)).filename().string();
        simdjson::dom::element want;
        ASSERT_EQ(expected[key].get(want), simdjson::SUCCESS) << key;
        SCOPED_TRACE(key);

        int64_t got = 0, exp = 0;
        ASSERT_EQ(rank["rank"].get(got), simdjson::SUCCESS);
        ASSERT_EQ(want["rank"].get(exp), simdjson::SUCCESS);
        EXPECT_EQ(got, exp);
        ASSERT_EQ(rank["world_size"].get(got), simdjson::SUCCESS);
        ASSERT_EQ(want["world_size"].get(exp), simdjson::SUCCESS);
        EXPECT_EQ(got, exp);
        ASSERT_EQ(rank["kernels"]["count"].get(got), simdjson::SUCCESS);
        ASSERT_EQ(want["kernels"].get(exp), simdjson::SUCCESS);
        EXPECT_EQ(got, exp);
        ASSERT_EQ(rank["events"].get(got), simdjson::SUCCESS);
        ASSERT_EQ(want["events"].get(exp), simdjson::SUCCESS);
        EXPECT_EQ(got, exp);

        // kernel_dur_us_sum is an exact decimal string in µs ("6832", "110.881"): convert to ns exactly.
        std::string_view us;
        ASSERT_EQ(want["kernel_dur_us_sum"].get(us), simdjson::SUCCESS);
        const size_t dot = us.find('.');
        std::string digits(us.substr(0, dot));
        std::string frac = dot == std::string_view::npos ? std::string() : std::string(us.substr(dot + 1));
        ASSERT_LE(frac.size(), 3u);
        frac.append(3 - frac.size(), '0');
        const int64_t expectedNs = std::stoll(digits + frac);
        ASSERT_EQ(rank["kernels"]["total_ns"].get(got), simdjson::SUCCESS);
        EXPECT_EQ(got, expectedNs);

        std::string_view platform, gpu, wantPlatform, wantGpu;
        ASSERT_EQ(rank["platform"].get(platform), simdjson::SUCCESS);
        ASSERT_EQ(want["platform"].get(wantPlatform), simdjson::SUCCESS);
        EXPECT_EQ(platform, wantPlatform);
        EXPECT_EQ(platform, "NVIDIA");
        ASSERT_EQ(rank["gpu_name"].get(gpu), simdjson::SUCCESS);
        ASSERT_EQ(want["gpus"].at(0).get(wantGpu), simdjson::SUCCESS);
        EXPECT_EQ(gpu, wantGpu);

        // Raw category counts, key by key (the expected side counts events without `cat` under "").
        simdjson::dom::object wantCats, gotCats;
        ASSERT_EQ(want["events_by_cat"].get(wantCats), simdjson::SUCCESS);
        ASSERT_EQ(rank["events_by_category"].get(gotCats), simdjson::SUCCESS);
        for (auto [cat, n] : wantCats) {
            int64_t wantN = 0, gotN = -1;
            ASSERT_EQ(n.get(wantN), simdjson::SUCCESS);
            EXPECT_EQ(gotCats[cat].get(gotN), simdjson::SUCCESS) << cat;
            EXPECT_EQ(gotN, wantN) << cat;
        }
        ++seen;
    }
    EXPECT_EQ(seen, 8);
}

// A CPU-only trace (no GPU activity, no deviceProperties; gloo, rank 34 of 300): the platform is not guessed.
// Facts from tests/data/expected/kineto_facts.json ("gpus": [], "kernels": 0, "platform": "unknown").
TEST(SummaryCli, CpuOnlyTraceSaysWhatIsKnownAndNoMore) {
    const std::string path = std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/cpu_only";
    auto r = runSummary({"--json", "--no-cache", path});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    SummaryDoc json(r.out);
    ASSERT_TRUE(json.ok) << r.out;
    const simdjson::dom::element rank = json.rank;
    EXPECT_EQ(stringAt(rank, "platform"), "unknown");
    EXPECT_TRUE(rank["gpu_name"].is_null()) << r.out;
    int64_t v = -1;
    ASSERT_EQ(rank["gpu_count"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 0);
    bool cpuOnly = false;
    ASSERT_EQ(rank["cpu_only"].get(cpuOnly), simdjson::SUCCESS);
    EXPECT_TRUE(cpuOnly);
    ASSERT_EQ(rank["kernels"]["count"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 0);

    auto text = runSummary({"--no-cache", path});
    ASSERT_EQ(text.code, app::kExitOk) << text.err;
    EXPECT_NE(text.out.find("Platform        unknown (CPU only"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("NVIDIA"), std::string::npos) << text.out;
}

// A trace with GPU activity: cpu_only is false and the GPU is named (kineto_facts.json: the ResNet-50 run on
// "Tesla V100-DGXS-32GB" x4, NVIDIA). Its steps are ProfilerStep#5..#10 (category Operator in the 2021 schema).
TEST(SummaryCli, ResNetTraceHasItsGpuAndItsSteps) {
    auto r = runSummary({"--json", "--no-cache",
                         std::string(STROBE_TEST_DATA_DIR) + "/kineto/kineto-configs/resnet50_num_workers_0"});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    SummaryDoc json(r.out);
    ASSERT_TRUE(json.ok) << r.out;
    const simdjson::dom::element rank = json.rank;
    EXPECT_EQ(stringAt(rank, "platform"), "NVIDIA");
    EXPECT_EQ(stringAt(rank, "gpu_name"), "Tesla V100-DGXS-32GB");
    bool cpuOnly = true;
    ASSERT_EQ(rank["cpu_only"].get(cpuOnly), simdjson::SUCCESS);
    EXPECT_FALSE(cpuOnly);
    simdjson::dom::array steps;
    ASSERT_EQ(rank["steps"].get(steps), simdjson::SUCCESS);
    std::vector<int64_t> numbers;
    for (auto s : steps) numbers.push_back(s["number"].get_int64().value_unsafe());
    EXPECT_EQ(numbers, (std::vector<int64_t>{5, 6, 7, 8, 9, 10}));
    simdjson::dom::array warnings;
    ASSERT_EQ(rank["warnings"].get(warnings), simdjson::SUCCESS);
    EXPECT_EQ(warnings.size(), 0u) << r.out;  // no false type warning on grid/block (pretty-printed arrays)
}

// Every source is listed with its format and facts; values from tests/data/expected/rocprof_expected.json (Python).
TEST(SummaryCli, JsonListsSourcesOfEveryFormat) {
    const std::string roc = std::string(STROBE_TEST_DATA_DIR) + "/rocprof";
    auto res = runSummary({roc + "/seismic_128x64.xr", roc + "/tracelens_908_results.json.gz", "--json", "--no-cache"});
    ASSERT_EQ(res.code, 0) << res.err;
    JsonDoc json(res.out);
    ASSERT_TRUE(json.ok) << res.out;
    simdjson::dom::array sources;
    ASSERT_EQ(json.root["sources"].get(sources), simdjson::SUCCESS);
    ASSERT_EQ(sources.size(), 2u);
    simdjson::dom::element xr = sources.at(0), js = sources.at(1);
    std::string_view sv;
    int64_t v = 0;
    double d = 0;
    ASSERT_EQ(xr["format"].get(sv), simdjson::SUCCESS);
    EXPECT_EQ(sv, "rocprof-v1");
    ASSERT_EQ(xr["kernels"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 1023);
    ASSERT_EQ(xr["kernel_time_ns"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 1837699354);
    ASSERT_EQ(xr["counters"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 5115);
    ASSERT_EQ(xr["match_rate"].get(d), simdjson::SUCCESS);
    EXPECT_DOUBLE_EQ(d, 1.0);
    EXPECT_TRUE(xr["samples"].is_null());      // no telemetry in rocprof output
    EXPECT_TRUE(xr["tool_version"].is_null());  // the CSV does not say
    ASSERT_EQ(js["format"].get(sv), simdjson::SUCCESS);
    EXPECT_EQ(sv, "rocprofv3-json");
    ASSERT_EQ(js["kernels"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 43915);
    ASSERT_EQ(js["span_ns"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 63873104615494 - 63857982592000);  // last end - first start
    EXPECT_TRUE(js["match_rate"].is_null());  // no join
    // ranks[].kernels stays for every source with kernels.
    ASSERT_EQ(json.root["ranks"].at(1)["kernels"]["count"].get(v), simdjson::SUCCESS);
    EXPECT_EQ(v, 43915);
}

TEST(SummaryCli, UnreadableContainerExitsThreeWithTheExportCommand) {
    TempDir t;
    strobe::test::writeFile(t.path() / "profile.nsys-rep", "not readable");
    auto res = runSummary({(t.path() / "profile.nsys-rep").string(), "--no-cache"});
    EXPECT_EQ(res.code, app::kExitBadInput);
    EXPECT_NE(res.err.find("profile.nsys-rep"), std::string::npos) << res.err;
    EXPECT_NE(res.err.find("nsys export --type sqlite"), std::string::npos) << res.err;
}
