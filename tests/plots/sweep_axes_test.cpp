// plots/sweep_axes: axis choices from the runs, automatic roles, value order.
#include <gtest/gtest.h>

#include "plots/sweep_axes.h"

namespace strobe::plots {
namespace {

core::RunSet threeAxes() {
    // channels varies (4, 16, 8), threads varies (256, 512), arch is the same everywhere: not an automatic role.
    return {{"a", nullptr, {{"channels", "4"}, {"threads", "256"}, {"arch", "gfx942"}}},
            {"b", nullptr, {{"channels", "16"}, {"threads", "512"}, {"arch", "gfx942"}}},
            {"c", nullptr, {{"channels", "8"}, {"threads", "256"}, {"arch", "gfx942"}}}};
}

TEST(SweepAxes, ChoicesComeFromTheRuns) {
    AxisParam x{"x_axis", "X", "", false}, facet{"facet_axis", "Facets", "", true};
    EXPECT_EQ(x.spec(threeAxes()).choices,
              (std::vector<std::string>{"(auto)", "configuration", "arch", "channels", "threads"}));
    EXPECT_EQ(facet.spec(threeAxes()).choices,
              (std::vector<std::string>{"(auto)", "(none)", "configuration", "arch", "channels", "threads"}));
    EXPECT_EQ(varyingAxes(threeAxes()), (std::vector<std::string>{"channels", "threads"}));
}

TEST(SweepAxes, AutomaticRolesTakeVaryingAxesNotTakenByHand) {
    auto r = resolveAxisRoles(threeAxes(), "(auto)", "(auto)", "(auto)");
    EXPECT_EQ(r.x, "channels");
    EXPECT_EQ(r.color, "threads");
    EXPECT_EQ(r.facet, "");  // no third varying axis
    r = resolveAxisRoles(threeAxes(), "(auto)", "channels", "(none)");
    EXPECT_EQ(r.x, "threads");  // channels is the colour's
    EXPECT_EQ(r.color, "channels");
    EXPECT_EQ(r.facet, "");
    r = resolveAxisRoles(core::RunSet{{"only", nullptr, {}}}, "(auto)", "(auto)", "(auto)");
    EXPECT_EQ(r.x, "configuration");
    EXPECT_EQ(r.color, "");
}

TEST(SweepAxes, ValuesOfRunsAndTheirOrder) {
    const auto runs = threeAxes();
    EXPECT_EQ(axisValueOf(runs[1], "channels"), "16");
    EXPECT_EQ(axisValueOf(runs[1], "configuration"), "arch=gfx942,channels=16,threads=512");  // core::configurationKey
    EXPECT_EQ(axisValueOf(runs[1], "workers"), "(absent)");
    EXPECT_EQ(axisValueOf(core::RunEntry{"solo", nullptr, {}}, "configuration"), "solo");
    std::vector<std::string> v{"16", "4", "(absent)", "8", "4", "2.5", "abc"};
    sortAxisValues(v);
    EXPECT_EQ(v, (std::vector<std::string>{"2.5", "4", "8", "16", "(absent)", "abc"}));
}

}  // namespace
}  // namespace strobe::plots
