// Session model: YAML round trip, types that survive a reload, and errors that name the file and the line.
#include "core/engine/session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace strobe::core;

namespace {

Session sampleSession() {
    Session s;
    // A clock offset beyond 32 bits and negative (nvidia-smi local time in UTC+1, plus a boot-time shift).
    // Parameters are written as text and read back typed (16 an integer, "ring" a text).
    s.runs.push_back({RunEntry{"dlrm", nullptr, {{"NCCL_NCHANNELS", 16LL}, {"NCCL_ALGO", std::string("ring")}},
                               {"/data/param-dlrm-8rank"}},
                      -3'600'000'000'123LL});
    s.runs.push_back({RunEntry{"", nullptr, {}, {"/a/rank0.json", "/a/rank1.json.gz"}}, std::nullopt});
    SessionPlot p;
    p.plotId = "gpu_timeline";
    p.runs = {0};
    p.values["show_annotations"] = true;
    p.values["lane_height"] = 18LL;
    p.values["zoom"] = 2.5;
    p.values["whole"] = 3.0;         // a double without fraction must stay a double
    p.values["name"] = std::string("true");   // text that looks like a bool stays text
    p.values["number_text"] = std::string("42");
    p.values["regex"] = std::string("^nccl.*: \"x\" #1");
    p.values["ranks"] = std::vector<std::string>{"0", "3", "7"};
    p.values["empty_list"] = std::vector<std::string>{};
    p.values["negative"] = -7LL;
    p.values["tiny"] = 1e-300;
    SessionPlot q;
    q.plotId = "kernel_breakdown";
    q.runs = {0, 1};
    // A front end's fields (the GUI's pane, title and layout; core does not know their meaning).
    q.view = {{"pane", 1LL}, {"title", std::string("Breakdown — both runs")}};
    s.plots = {p, q};
    s.sections.push_back({"layout",
                          {{"split", true},
                           {"split_sizes", std::vector<long long>{700, 500}},
                           {"labels", std::vector<std::string>{"a", "7"}},
                           {"ratio", 0.5},
                           {"window_geometry", std::string("AdnQywADAAAAAA==")},
                           {"empty", std::vector<long long>{}}}});
    return s;
}

}  // namespace

TEST(Session, YamlRoundTripIsExact) {
    const Session s = sampleSession();
    auto back = sessionFromYaml(sessionToYaml(s), "mem.yaml");
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(back.value(), s);
    EXPECT_EQ(back->runs[0].clockOffsetNs, std::optional<int64_t>(-3'600'000'000'123LL));
    EXPECT_EQ(std::get<long long>(back->runs[0].run.parameters.at("NCCL_NCHANNELS")), 16);
    EXPECT_EQ(std::get<std::string>(back->runs[0].run.parameters.at("NCCL_ALGO")), "ring");
    EXPECT_FALSE(back->runs[1].clockOffsetNs.has_value());
    // Types survive: a whole double stays a double, text that looks like a bool or a number stays text.
    const auto& v = back->plots[0].values;
    EXPECT_TRUE(std::holds_alternative<double>(v.at("whole")));
    EXPECT_TRUE(std::holds_alternative<std::string>(v.at("name")));
    EXPECT_TRUE(std::holds_alternative<std::string>(v.at("number_text")));
    EXPECT_TRUE(std::holds_alternative<long long>(v.at("lane_height")));
    EXPECT_TRUE(std::holds_alternative<bool>(v.at("show_annotations")));
    // View fields keep their order and types, and remember their line.
    ASSERT_EQ(back->plots[1].view.size(), 2u);
    EXPECT_EQ(back->plots[1].view[0].key, "pane");
    EXPECT_GT(back->plots[1].view[0].line, 0);
    ASSERT_EQ(back->sections.size(), 1u);
    EXPECT_EQ(back->sections[0].fields[2].key, "labels");
    EXPECT_TRUE(std::holds_alternative<std::vector<std::string>>(back->sections[0].fields[2].value));
}

// YAML limits an implicit key to 1024 characters: a longer key (here 300 control characters, written escaped as
// 1,200) is written as an explicit key and reads back exactly, in each place a key is written. The session_yaml fuzz
// target found the first of them (tests/fuzz/regressions/session_yaml/long-implicit-key-roundtrip.yaml).
TEST(Session, LongKeysRoundTrip) {
    const std::string longKey(300, '\x1a');
    Session s;
    SessionRun run;
    run.run.label = "r";
    run.run.paths = {"a.json"};
    run.run.parameters[longKey] = 1LL;
    s.runs.push_back(run);
    SessionPlot plot;
    plot.plotId = "gpu-timeline";
    plot.values[longKey] = 2.5;
    plot.view.push_back({longKey, SessionViewValue{true}});
    s.plots.push_back(plot);
    s.sections.push_back({longKey, {{"x", SessionViewValue{1LL}}}});
    const std::string text = sessionToYaml(s);
    auto back = sessionFromYaml(text, "mem.yaml");
    ASSERT_TRUE(back.ok()) << back.error().toString() << "\n" << text;
    EXPECT_EQ(back.value(), s);
}

TEST(Session, OldFileKeepsTheFrontEndFields) {
    // The format written before the GUI's layout moved out of core: pane, title and layout are kept as view
    // fields, in file order, with their natural types.
    const char* text =
        "strobe_session: 1\n"
        "runs:\n"
        "  - label: \"\"\n"
        "    paths: [\"a.json\"]\n"
        "plots:\n"
        "  - id: \"gpu-timeline\"\n"
        "    runs: [0]\n"
        "    pane: 1\n"
        "    title: \"T\"\n"
        "    values:\n"
        "      {}\n"
        "layout:\n"
        "  split: true\n"
        "  split_sizes: [700, 500]\n"
        "  window_state: \"\"\n";
    auto s = sessionFromYaml(text, "old.yaml");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    ASSERT_EQ(s->plots.size(), 1u);
    const auto& view = s->plots[0].view;
    ASSERT_EQ(view.size(), 2u);
    EXPECT_EQ(std::get<long long>(view[0].value), 1);
    EXPECT_EQ(view[0].line, 8);
    EXPECT_EQ(std::get<std::string>(view[1].value), "T");
    ASSERT_EQ(s->sections.size(), 1u);
    EXPECT_EQ(s->sections[0].name, "layout");
    const auto* sizes = findViewField(s->sections[0].fields, "split_sizes");
    ASSERT_NE(sizes, nullptr);
    EXPECT_EQ(std::get<std::vector<long long>>(sizes->value), (std::vector<long long>{700, 500}));
    EXPECT_EQ(sizes->line, 14);
    // Written back: the same keys in the same places (plot fields between runs and values, layout last).
    const std::string again = sessionToYaml(s.value());
    EXPECT_LT(again.find("runs: [0]"), again.find("pane: 1"));
    EXPECT_LT(again.find("pane: 1"), again.find("values:"));
    EXPECT_NE(again.find("split_sizes: [700, 500]"), std::string::npos) << again;
}

TEST(Session, NonFiniteDoublesRoundTrip) {
    Session s;
    s.plots.push_back({"p", {}, {{"a", HUGE_VAL}, {"b", -HUGE_VAL}, {"c", std::nan("")}}, {}});
    auto back = sessionFromYaml(sessionToYaml(s));
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(std::get<double>(back->plots[0].values.at("a")), HUGE_VAL);
    EXPECT_EQ(std::get<double>(back->plots[0].values.at("b")), -HUGE_VAL);
    EXPECT_TRUE(std::isnan(std::get<double>(back->plots[0].values.at("c"))));
}

TEST(Session, FileRoundTrip) {
    const auto dir = std::filesystem::temp_directory_path() / "strobe_session_test";
    std::filesystem::create_directories(dir);
    const auto path = (dir / "s.yaml").string();
    const Session s = sampleSession();
    ASSERT_TRUE(saveSession(s, path).ok());
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    auto back = loadSession(path);
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(back.value(), s);
    std::filesystem::remove_all(dir);
}

TEST(Session, HandWrittenPlainValuesGetNaturalTypes) {
    const char* text =
        "strobe_session: 1\n"
        "runs:\n"
        "  - paths: [a.json]\n"
        "plots:\n"
        "  - id: top_kernels\n"
        "    runs: [0]\n"
        "    values:\n"
        "      n: 20\n"
        "      scale: 0.5\n"
        "      log: false\n"
        "      filter: nccl\n";
    auto s = sessionFromYaml(text, "hand.yaml");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    const auto& v = s->plots.at(0).values;
    EXPECT_EQ(std::get<long long>(v.at("n")), 20);
    EXPECT_EQ(std::get<double>(v.at("scale")), 0.5);
    EXPECT_EQ(std::get<bool>(v.at("log")), false);
    EXPECT_EQ(std::get<std::string>(v.at("filter")), "nccl");
    EXPECT_EQ(s->runs.at(0).run.paths, std::vector<std::string>{"a.json"});
    EXPECT_TRUE(s->runs.at(0).run.label.empty());
}

TEST(Session, ErrorsNameFileAndLine) {
    // Line 6 refers to run 3 of a session with one run.
    const char* badRun =
        "strobe_session: 1\n"
        "runs:\n"
        "  - paths: [a.json]\n"
        "plots:\n"
        "  - id: x\n"
        "    runs: [0, 3]\n";
    auto r = sessionFromYaml(badRun, "bad.yaml");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().where.file, "bad.yaml");
    EXPECT_EQ(r.error().where.line, 6);
    EXPECT_NE(r.error().message.find("run 3"), std::string::npos) << r.error().message;

    // Syntax error: an unclosed flow sequence starting on line 3.
    auto syntax = sessionFromYaml("strobe_session: 1\nruns:\n  - paths: [a.json\n", "syn.yaml");
    ASSERT_FALSE(syntax.ok());
    EXPECT_EQ(syntax.error().where.file, "syn.yaml");
    EXPECT_GE(syntax.error().where.line, 3);

    // A clock offset that is not an integer number of nanoseconds, on line 4.
    auto offset = sessionFromYaml("strobe_session: 1\nruns:\n  - paths: [a.json]\n    clock_offset_ns: 1.5\n", "o.yaml");
    ASSERT_FALSE(offset.ok());
    EXPECT_EQ(offset.error().where.line, 4);
    EXPECT_NE(offset.error().message.find("clock_offset_ns"), std::string::npos) << offset.error().message;

    // Wrong type on line 2.
    auto type = sessionFromYaml("strobe_session: 1\nlayout: [1, 2]\n", "t.yaml");
    ASSERT_FALSE(type.ok());
    EXPECT_EQ(type.error().where.line, 2);
}

TEST(Session, RejectsWhatIsNotASession) {
    EXPECT_FALSE(sessionFromYaml("", "e.yaml").ok());
    EXPECT_FALSE(sessionFromYaml("just text", "e.yaml").ok());
    EXPECT_FALSE(sessionFromYaml("runs: []\n", "e.yaml").ok());            // no version key
    EXPECT_FALSE(sessionFromYaml("strobe_session: 99\n", "e.yaml").ok());  // from the future
    EXPECT_FALSE(sessionFromYaml("strobe_session: 1\nplots:\n  - runs: [0]\n", "e.yaml").ok());  // no id
    EXPECT_FALSE(sessionFromYaml("strobe_session: 1\nlayout:\n  split: [[1]]\n", "e.yaml").ok());  // no such value
    EXPECT_FALSE(sessionFromYaml("{{{{", "e.yaml").ok());
    auto missing = loadSession("/nonexistent/dir/s.yaml");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().where.file, "/nonexistent/dir/s.yaml");
}

TEST(Session, TruncatedAtEveryByteNeverCrashes) {
    const std::string text = sessionToYaml(sampleSession());
    for (size_t n = 0; n < text.size(); ++n) {
        auto r = sessionFromYaml(text.substr(0, n), "cut.yaml");
        if (!r.ok()) {
            EXPECT_EQ(r.error().where.file, "cut.yaml");
        }
    }
    SUCCEED();
}
