// madengine context import (collectors/madengine_context.h): the context's tool list (innermost first) becomes
// Strobe's tool stack (outermost first), env_vars merge in the file's order (a later entry wins), Strobe's own
// specs are used by name, an unknown wrapper becomes an ad-hoc prefix tool (argv split at blanks) and shell syntax
// is refused; errors name the file and where. tests/data/madengine/context_rocprofv3_power.json follows the layout of
// madengine's profiling contexts (ROCm/madengine examples/profiling-configs: tools entries with name, cmd and
// env_vars; rocprofv3, rocblas_trace and gpu_info_power_profiler are tool names of madengine's tools.json).
#include "collectors/madengine_context.h"

#include <gtest/gtest.h>

#include "core/io/resources.h"
#include "tests/test_paths.h"

namespace strobe::collectors {
namespace {

const ToolCatalog& shipped() {
    static const ToolCatalog c = loadToolCatalog({core::resourcePath("tools").string()});
    return c;
}

const std::string kContext = std::string(STROBE_TEST_DATA_DIR) + "/madengine/context_rocprofv3_power.json";

TEST(MadengineContext, ReversesTheListAndMergesTheEnvironmentLaterWins) {
    auto r = loadMadengineContext(kContext, shipped());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    // The file lists rocprofv3, rocblas_trace, gpu_info_power_profiler, time_limit: outermost first, each madengine
    // name as the Strobe tool that does its job.
    ASSERT_EQ(r->tools.size(), 4u);
    EXPECT_EQ(r->tools[0].name, "time_limit");
    EXPECT_EQ(r->tools[1].name, "amd-smi");
    EXPECT_EQ(r->tools[2].name, "rocblas-log");
    EXPECT_EQ(r->tools[3].name, "rocprofv3");
    EXPECT_EQ(std::get<std::string>(r->tools[3].values.at("trace")), "--runtime-trace");  // the cmd's flag
    EXPECT_EQ(std::get<std::string>(r->tools[1].values.at("fields")), "--power");
    ASSERT_EQ(r->adhocTools.size(), 1u);
    EXPECT_EQ(r->adhocTools[0].kind, ToolKind::Prefix);
    EXPECT_EQ(r->adhocTools[0].command, (std::vector<std::string>{"timeout", "--kill-after=5", "600"}));
    EXPECT_EQ(r->adhocTools[0].source, kContext + ": tools[3]");
    const std::map<std::string, std::string> env{{"HSA_ENABLE_SDMA", "0"}, {"RCCL_DEBUG", "WARN"},
                                                 {"ROCBLAS_TRACE", "1"}, {"POWER_DEVICE", "all"},
                                                 {"POWER_SAMPLING_RATE", "0.1"}};
    EXPECT_EQ(r->env, env);  // RCCL_DEBUG: INFO from tools[0], WARN from the later tools[2]
    // How each entry was taken.
    ASSERT_EQ(r->messages.size(), 3u);
    EXPECT_NE(r->messages[0].find("tools[0] rocprofv3: rocprofv3 with trace '--runtime-trace'"), std::string::npos)
        << r->messages[0];
    EXPECT_NE(r->messages[1].find("tools[1] rocblas_trace: Strobe's tool rocblas-log"), std::string::npos);
    EXPECT_NE(r->messages[2].find("tools[2] gpu_info_power_profiler: Strobe's tool amd-smi"), std::string::npos);
}

// --additional-context-file then --additional-context, merged as madengine merges them: top-level keys, the inline
// ones last and winning (its "tools" replaces the file's); bad inline JSON names the option, line and column.
TEST(MadengineContext, InlineJsonMergesAfterTheFileLaterKeysWin) {
    auto r = loadMadengineContexts(kContext, R"({"tools": [{"name": "wrap", "cmd": "nice -n 5", "env_vars": {"A": "1"}}]})",
                                   shipped());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->tools.size(), 1u);
    EXPECT_EQ(r->tools[0].name, "wrap");
    ASSERT_EQ(r->adhocTools.size(), 1u);
    EXPECT_EQ(r->adhocTools[0].command, (std::vector<std::string>{"nice", "-n", "5"}));
    EXPECT_EQ(r->adhocTools[0].source, kContext + " + --additional-context: tools[0]");
    EXPECT_EQ(r->env, (std::map<std::string, std::string>{{"A", "1"}}));
    // Without "tools" inline, the file's list stays.
    auto kept = loadMadengineContexts(kContext, R"({"gpu_vendor": "AMD"})", shipped());
    ASSERT_TRUE(kept.ok()) << kept.error().toString();
    EXPECT_EQ(kept->tools.size(), 4u);
    // Inline alone.
    auto alone = loadMadengineContexts("", R"({"tools": [{"name": "nsys"}]})", shipped());
    ASSERT_TRUE(alone.ok()) << alone.error().toString();
    ASSERT_EQ(alone->tools.size(), 1u);
    EXPECT_EQ(alone->tools[0].name, "nsys");
    auto bad = loadMadengineContexts(kContext, "{\"tools\": [\n  {\"name\": }]}", shipped());
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().toString().rfind("--additional-context: line 2", 0), 0u) << bad.error().toString();
    EXPECT_NE(bad.error().toString().find(": column "), std::string::npos) << bad.error().toString();
    EXPECT_NE(bad.error().toString().find(": not JSON: "), std::string::npos) << bad.error().toString();
}

TEST(MadengineContext, AppliesInsideTheCommandLineToolsAndAddsTheAdhocSpecs) {
    auto r = loadMadengineContext(kContext, shipped());
    ASSERT_TRUE(r.ok());
    ToolCatalog catalog = shipped();
    SessionOptions o;
    o.tools.push_back({"cpu-sampler", {}});
    o.env["RCCL_DEBUG"] = "TRACE";  // the user's own variable wins over the context's
    EXPECT_EQ(applyContext(*r, o, catalog), "");
    ASSERT_EQ(o.tools.size(), 5u);
    EXPECT_EQ(o.tools[0].name, "cpu-sampler");
    EXPECT_EQ(o.tools[1].name, "time_limit");
    EXPECT_EQ(o.tools[4].name, "rocprofv3");
    EXPECT_EQ(o.env["RCCL_DEBUG"], "TRACE");
    EXPECT_EQ(o.env["ROCBLAS_TRACE"], "1");
    ASSERT_NE(catalog.find("time_limit"), nullptr);
    EXPECT_TRUE(catalog.find("time_limit")->probe.empty());
    // Applying it twice would define time_limit twice.
    EXPECT_NE(applyContext(*r, o, catalog).find("tool time_limit is already defined"), std::string::npos);
}

TEST(MadengineContext, ErrorsNameTheFileAndWhere) {
    const ToolCatalog& c = shipped();
    // Bad JSON: the comma missing between "x" and "cmd", on line 3.
    const std::string bad = "{\"tools\": [\n  {\"name\": \"rocprofv3\"},\n  {\"name\": \"x\" \"cmd\": \"y\"}\n]}";
    auto e = parseMadengineContext(bad, "ctx.json", c);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().where.file, "ctx.json");
    EXPECT_EQ(e.error().where.line, 3);
    EXPECT_GT(e.error().where.byteOffset, static_cast<int64_t>(bad.find("\"x\"")));
    EXPECT_LE(e.error().where.byteOffset, static_cast<int64_t>(bad.find("\"cmd\"")) + 1);
    EXPECT_NE(e.error().toString().find("not JSON"), std::string::npos);

    // madengine's test tools chain commands through a shell: refused, naming the entry.
    auto s = parseMadengineContext(R"({"tools": [{"name": "rocprofv3"}, {"name": "test_tools_A", "cmd": "echo cmd_A && "}]})",
                                   "ctx.json", c);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().toString().find("ctx.json: tools[1] (test_tools_A): cmd 'echo cmd_A &&' needs a shell ('&')"),
              std::string::npos) << s.error().toString();

    auto n = parseMadengineContext(R"({"tools": [{"cmd": "timeout 5"}]})", "ctx.json", c);
    ASSERT_FALSE(n.ok());
    EXPECT_NE(n.error().toString().find("tools[0]: no \"name\""), std::string::npos);
    auto v = parseMadengineContext(R"({"tools": [{"name": "a", "env_vars": {"X": [1]}}]})", "ctx.json", c);
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.error().toString().find("tools[0] (a): env_vars.X: not a string or number"), std::string::npos);
    EXPECT_FALSE(parseMadengineContext(R"({"gpu_vendor": "AMD"})", "ctx.json", c).ok());
    EXPECT_FALSE(parseMadengineContext("[]", "ctx.json", c).ok());
    EXPECT_FALSE(loadMadengineContext("/nonexistent/ctx.json", c).ok());
}

// Every madengine tool name given inline (issue 23) maps to the Strobe tool that does its job: rocprof's cmd flags
// (legacy rocprof's too) onto rocprofv3's parameters, several trace kinds combined; both gpu_info profilers into one
// sampler with power and VRAM fields (nvidia-smi's query fields when gpu_vendor is NVIDIA); the library tools to
// their log tools. An unknown name without a cmd is refused naming tools[i].
TEST(MadengineContext, EveryMadengineNameMapsToAStrobeTool) {
    auto r = loadMadengineContexts("", R"({"tools": [
        {"name": "rocprof", "cmd": "rocprof --hip-trace --hsa-trace --roctx-trace --stats --timestamp on -d /tmp/x --output-format json --"},
        {"name": "rpd"}, {"name": "rocblas_trace"}, {"name": "miopen_trace"}, {"name": "tensile_trace"},
        {"name": "rccl_trace"}, {"name": "gpu_info_power_profiler"}, {"name": "gpu_info_vram_profiler"}]})",
                                   shipped());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->refusal, "");
    std::vector<std::string> names;
    for (const auto& t : r->tools) names.push_back(t.name);
    EXPECT_EQ(names, (std::vector<std::string>{"amd-smi", "rccl-log", "tensile-log", "miopen-log", "rocblas-log", "rpd",
                                               "rocprofv3"}));
    EXPECT_EQ(std::get<std::string>(r->tools[0].values.at("fields")), "--power --mem-usage");
    EXPECT_EQ(std::get<std::string>(r->tools[6].values.at("trace")), "--hip-trace --hsa-trace --marker-trace --stats");
    EXPECT_EQ(std::get<std::string>(r->tools[6].values.at("format")), "json");
    std::string all;
    for (const auto& m : r->messages) all += m + "\n";
    EXPECT_NE(all.find("Strobe chooses where rocprofv3 writes; not used: --timestamp on, -d /tmp/x"), std::string::npos)
        << all;
    for (const auto& t : r->tools) EXPECT_NE(shipped().find(t.name), nullptr) << t.name;

    auto nv = loadMadengineContexts("", R"({"gpu_vendor": "NVIDIA", "tools": [{"name": "gpu_info_vram_profiler"},
        {"name": "gpu_info_power_profiler"}]})", shipped());
    ASSERT_TRUE(nv.ok()) << nv.error().toString();
    ASSERT_EQ(nv->tools.size(), 1u);
    EXPECT_EQ(nv->tools[0].name, "nvidia-smi");
    EXPECT_EQ(std::get<std::string>(nv->tools[0].values.at("fields")),
              "timestamp,index,name,memory.used,memory.total,power.draw,power.limit");

    auto unknown = loadMadengineContexts("", R"({"tools": [{"name": "rpd"}, {"name": "my_profiler"}]})", shipped());
    ASSERT_TRUE(unknown.ok());
    EXPECT_NE(unknown->refusal.find("--additional-context: tools[1] my_profiler: an unknown tool without a cmd"),
              std::string::npos)
        << unknown->refusal;
}

}  // namespace
}  // namespace strobe::collectors
