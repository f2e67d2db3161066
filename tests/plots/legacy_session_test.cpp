// A session file written before parameters became core/params (tests/data/sessions/README.md says how it was made)
// still opens: every value reaches its plot with the type and the value it was saved with.
#include <gtest/gtest.h>

#include "core/engine/session.h"
#include "plots/plot_registry.h"
#include "tests/test_paths.h"

using namespace strobe;
using core::ParamValue;
using L = std::vector<std::string>;

namespace {

// The plot's resolved values for the session's plot `index` (every spec coerces its saved value).
core::ParamValues resolvedValues(const core::Session& s, size_t index) {
    const auto& p = s.plots.at(index);
    const plots::Plot* plot = plots::PlotRegistry::instance().find(p.plotId);
    EXPECT_NE(plot, nullptr) << p.plotId;
    if (!plot) return {};
    auto r = core::resolveValues(plot->parameters({}), p.values);
    EXPECT_TRUE(r.ok()) << p.plotId << ": " << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? r.value() : core::ParamValues{};
}

}  // namespace

TEST(LegacySession, OpensWithEveryValueAndType) {
    auto s = core::loadSession(std::string(STROBE_TEST_DATA_DIR) + "/sessions/legacy_v1.yaml");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    ASSERT_EQ(s->runs.size(), 2u);
    EXPECT_EQ(std::get<long long>(s->runs[0].run.parameters.at("NCCL_MIN_NCHANNELS")), 8);
    ASSERT_EQ(s->plots.size(), 5u);

    // Values as written in legacy_v1.yaml (see the generator in tests/data/sessions/README.md).
    auto tl = resolvedValues(*s, 0);
    EXPECT_EQ(s->plots[0].plotId, "gpu-timeline");
    EXPECT_EQ(tl.at("ranks"), ParamValue(L{"0", "2"}));                     // rank set
    EXPECT_EQ(tl.at("include_memory"), ParamValue(false));                  // bool
    EXPECT_EQ(tl.at("name_filter"), ParamValue(std::string("gemm|nccl")));  // regex
    EXPECT_EQ(tl.at("color_by"), ParamValue(std::string("name")));          // enum
    EXPECT_EQ(tl.at("show_steps"), ParamValue(false));
    EXPECT_EQ(tl.at("lane_height"), ParamValue(24LL));  // int
    EXPECT_EQ(tl.at("view_start_ns"), ParamValue(1000LL));
    EXPECT_EQ(tl.at("view_end_ns"), ParamValue(250000LL));
    EXPECT_EQ(tl.at("lane_scroll"), ParamValue(1LL));

    auto idle = resolvedValues(*s, 1);
    EXPECT_EQ(idle.at("window"), ParamValue(std::string("hta")));
    EXPECT_EQ(idle.at("steps"), ParamValue(L{"3", "4"}));    // string list
    EXPECT_EQ(idle.at("kernel_wait_us"), ParamValue(12.5));  // double
    EXPECT_EQ(idle.at("percent"), ParamValue(true));
    EXPECT_EQ(idle.at("horizontal"), ParamValue(false));

    auto top = resolvedValues(*s, 2);
    // The pane and the split are the GUI's part of the session (app/gui/session_layout): core keeps them as view
    // fields, typed as written.
    const auto* pane = core::findViewField(s->plots[2].view, "pane");
    ASSERT_NE(pane, nullptr);
    EXPECT_EQ(pane->value, core::SessionViewValue(1LL));
    EXPECT_EQ(s->plots[2].runs, (std::vector<int>{0, 1}));
    EXPECT_EQ(top.at("across_ranks"), ParamValue(false));
    EXPECT_EQ(top.at("sort_by"), ParamValue(std::string("mean_ns")));
    EXPECT_EQ(top.at("descending"), ParamValue(false));
    EXPECT_EQ(top.at("filter"), ParamValue(std::string("^void")));
    EXPECT_EQ(top.at("max_rows"), ParamValue(12LL));
    EXPECT_EQ(top.at("steps"), ParamValue(L{}));

    auto dur = resolvedValues(*s, 3);
    EXPECT_EQ(dur.at("group_by"), ParamValue(std::string("name")));
    EXPECT_EQ(dur.at("split_by"), ParamValue(std::string("rank")));
    EXPECT_EQ(dur.at("top_n"), ParamValue(5LL));
    EXPECT_EQ(dur.at("ranks"), ParamValue(L{"1", "3"}));
    EXPECT_EQ(dur.at("steps"), ParamValue(L{"2"}));
    EXPECT_EQ(dur.at("style"), ParamValue(std::string("violin")));
    EXPECT_EQ(dur.at("log_scale"), ParamValue(false));

    auto cdf = resolvedValues(*s, 4);
    EXPECT_EQ(cdf.at("category"), ParamValue(std::string("gemm, attention")));  // string, comma kept
    EXPECT_EQ(cdf.at("ranks"), ParamValue(L{"5"}));
    EXPECT_EQ(cdf.at("window"), ParamValue(std::string("steps")));

    ASSERT_EQ(s->sections.size(), 1u);
    EXPECT_EQ(s->sections[0].name, "layout");
    const auto* split = core::findViewField(s->sections[0].fields, "split");
    const auto* sizes = core::findViewField(s->sections[0].fields, "split_sizes");
    ASSERT_NE(split, nullptr);
    ASSERT_NE(sizes, nullptr);
    EXPECT_EQ(split->value, core::SessionViewValue(true));
    EXPECT_EQ(sizes->value, core::SessionViewValue(std::vector<long long>{700, 500}));
}

// Written again by today's writer, the file reads back to the same session (string forms unchanged).
TEST(LegacySession, RewritesTheSameValues) {
    auto s = core::loadSession(std::string(STROBE_TEST_DATA_DIR) + "/sessions/legacy_v1.yaml");
    ASSERT_TRUE(s.ok());
    auto again = core::sessionFromYaml(core::sessionToYaml(*s));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *s);
}
