// The GUI's part of a session (pane, title, split, window geometry): read from and written to core's view
// fields in the file format that core used to write itself, and checked with the line of a bad field.
#include "app/gui/session_layout.h"

#include <gtest/gtest.h>

#include "core/engine/session.h"

using namespace strobe;

namespace {

// A session file as the workbench wrote it before the layout moved to app/: the output of core::sessionToYaml
// at commit c497215 (core/engine/session.cpp then) for this content, compiled on its own and compared byte for
// byte with this text.
const char* kOldFile =
    "# Strobe workbench session\n"
    "strobe_session: 1\n"
    "runs:\n"
    "  - label: \"a\"\n"
    "    paths:\n"
    "      - \"/t/a\"\n"
    "plots:\n"
    "  - id: \"gpu-timeline\"\n"
    "    runs: [0]\n"
    "    pane: 0\n"
    "    values:\n"
    "      \"bins\": 42\n"
    "  - id: \"kernel-breakdown\"\n"
    "    runs: [0]\n"
    "    pane: 1\n"
    "    title: \"Mine\"\n"
    "    values:\n"
    "      {}\n"
    "layout:\n"
    "  split: true\n"
    "  split_vertical: false\n"
    "  split_sizes: [700, 500]\n"
    "  current_tab: [0, 1]\n"
    "  sync_time_axes: false\n"
    "  window_geometry: \"AdnQyw==\"\n"
    "  window_state: \"\"\n";

}  // namespace

TEST(SessionLayout, ReadsTheOldFormat) {
    auto s = core::sessionFromYaml(kOldFile, "old.yaml");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    auto l = app::readLayout(s.value(), "old.yaml");
    ASSERT_TRUE(l.ok()) << l.error().toString();
    EXPECT_TRUE(l->split);
    EXPECT_FALSE(l->splitVertical);
    EXPECT_EQ(l->splitSizes, (std::vector<int>{700, 500}));
    EXPECT_EQ(l->currentTab, (std::vector<int>{0, 1}));
    EXPECT_FALSE(l->syncTimeAxes);
    EXPECT_EQ(l->windowGeometry, "AdnQyw==");
    ASSERT_EQ(l->plots.size(), 2u);
    EXPECT_EQ(l->plots[0], (app::PlotPlacement{0, ""}));
    EXPECT_EQ(l->plots[1], (app::PlotPlacement{1, "Mine"}));
}

TEST(SessionLayout, WritesTheSameFileAgain) {
    // Read, strip the view fields, store the layout again: the text is the old file's, byte for byte.
    auto s = core::sessionFromYaml(kOldFile, "old.yaml");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    auto l = app::readLayout(s.value());
    ASSERT_TRUE(l.ok());
    core::Session bare = s.value();
    bare.sections.clear();
    for (auto& p : bare.plots) p.view.clear();
    app::storeLayout(bare, l.value());
    EXPECT_EQ(core::sessionToYaml(bare), kOldFile);
}

TEST(SessionLayout, RoundTrip) {
    core::Session s;
    s.runs.push_back({core::RunEntry{"r", nullptr, {}, {"/x"}}, std::nullopt});
    s.plots.push_back({"p", {0}, {}, {}});
    s.plots.push_back({"q", {0}, {}, {}});
    app::SessionLayout l;
    l.split = true;
    l.splitVertical = true;
    l.splitSizes = {1, 2};
    l.currentTab = {3, 0};
    l.windowState = "AAA=";
    l.plots = {{1, "t"}, {0, ""}};
    app::storeLayout(s, l);
    app::storeLayout(s, l);  // storing twice replaces, never duplicates
    EXPECT_EQ(s.sections.size(), 1u);
    auto back = core::sessionFromYaml(core::sessionToYaml(s));
    ASSERT_TRUE(back.ok()) << back.error().toString();
    auto again = app::readLayout(back.value());
    ASSERT_TRUE(again.ok()) << again.error().toString();
    EXPECT_EQ(again.value(), l);
}

TEST(SessionLayout, BadFieldsNameTheLine) {
    auto pane = core::sessionFromYaml("strobe_session: 1\nplots:\n  - id: x\n    pane: 2\n", "p.yaml");
    ASSERT_TRUE(pane.ok()) << pane.error().toString();
    auto l = app::readLayout(pane.value(), "p.yaml");
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.error().where.file, "p.yaml");
    EXPECT_EQ(l.error().where.line, 4);
    EXPECT_NE(l.error().message.find("pane"), std::string::npos) << l.error().message;

    auto split = core::sessionFromYaml("strobe_session: 1\nlayout:\n  split_sizes: [1, 2]\n  split: maybe\n", "s.yaml");
    ASSERT_TRUE(split.ok());
    auto l2 = app::readLayout(split.value(), "s.yaml");
    ASSERT_FALSE(l2.ok());
    EXPECT_EQ(l2.error().where.line, 4);

    auto sizes = core::sessionFromYaml("strobe_session: 1\nlayout:\n  split_sizes: [\"a\"]\n", "z.yaml");
    ASSERT_TRUE(sizes.ok());
    EXPECT_FALSE(app::readLayout(sizes.value(), "z.yaml").ok());
}
