// Issue 32's "no parameter declared in two plots with different types or choices": every key that several plots
// offer has one type and one choice set across all of them, read from the registry (every shipped plot).

#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "plots/plot_registry.h"
#include "tests/plots/plot_test_data.h"

namespace strobe::plots {
namespace {

// Keys whose choices are, by design, the plot's own or the data's:
// - sort_by (kSortBy in plots/chart.h, one declaration): its choices are the columns of each plot's own table
//   (kSortBy.spec(columns)), so top-kernels offers its statistics columns and another table its own;
// - any Enum marked choicesFromData (a counter metric, a sweep configuration, a step): the loaded data's choices;
//   with no runs loaded they are whatever each plot offers as a placeholder.
// Their type must still agree.
const std::set<std::string> kPlotOwnChoices{"sort_by"};

struct SharedParamsSeen {
    core::ParamType type;
    std::vector<std::string> choices;
    std::string plot;
};

TEST(SharedParams, EveryKeyHasOneTypeAndOneChoiceSetAcrossPlots) {
    std::map<std::string, SharedParamsSeen> seen;
    size_t shared = 0;
    for (const auto* p : PlotRegistry::instance().plots()) {
        for (const auto& s : p->parameters({})) {
            auto [it, first] = seen.try_emplace(s.key, SharedParamsSeen{s.type, s.choices, p->id()});
            if (first) continue;
            ++shared;
            EXPECT_EQ(std::string(core::toString(s.type)), std::string(core::toString(it->second.type)))
                << "'" << s.key << "' is a " << core::toString(s.type) << " in " << p->id() << " but a "
                << core::toString(it->second.type) << " in " << it->second.plot;
            if (kPlotOwnChoices.count(s.key) || s.choicesFromData) continue;
            EXPECT_EQ(s.choices, it->second.choices)
                << "'" << s.key << "' offers other choices in " << p->id() << " than in " << it->second.plot;
        }
    }
    // The shared ones this issue declared once are among them (a registry that lost them would pass vacuously).
    for (const char* key : {"group_by", "skip_steps", "sort_by", "descending", "legend", "ranks"})
        EXPECT_TRUE(seen.count(key)) << key;
    EXPECT_GT(shared, 20u);
}

// group_by is the one String read by core::parseSweepGroupBy in every plot that groups kernels, including the
// kernel plots that had Enums of their own (top-kernels {name, category}, kernel-durations {category, name},
// kernel-breakdown {category, kernel}); each keeps its own default.
TEST(SharedParams, GroupByIsTheSharedStringWithEachPlotsDefault) {
    const std::map<std::string, std::string> defaults{{"top-kernels", "name"},
                                                      {"kernel-durations", "category"},
                                                      {"kernel-breakdown", "category"},
                                                      {"group-time-dist", "name"}};
    for (const auto& [id, def] : defaults) {
        const Plot* plot = PlotRegistry::instance().find(id);
        ASSERT_NE(plot, nullptr) << id;
        bool found = false;
        for (const auto& s : plot->parameters({}))
            if (s.key == "group_by") {
                found = true;
                EXPECT_EQ(s.type, core::ParamType::String) << id;
                EXPECT_EQ(std::get<std::string>(s.defaultValue), def) << id;
            }
        EXPECT_TRUE(found) << id;
    }
}

// Issue 32 gave "metric" one meaning (a measured quantity of the loaded data: counters, telemetry) and "style" one
// choice set; the keys and the choice they replaced still read, so saved sessions and --set lines keep working.
TEST(SharedParams, RenamedKeysAndChoicesStillRead) {
    const auto specsOf = [](const char* id) {
        const Plot* plot = PlotRegistry::instance().find(id);
        EXPECT_NE(plot, nullptr) << id;
        return plot ? plot->parameters({}) : std::vector<ParamSpec>{};
    };
    const auto straggler = specsOf("straggler");
    ParamValues set;
    ASSERT_TRUE(core::applyAssignment(straggler, "metric=region-end-lag", set).ok());
    EXPECT_EQ(set, (ParamValues{{"evidence", std::string("region-end-lag")}}));

    const auto heatmap = specsOf("sweep-heatmap");
    auto heat = core::resolveValues(heatmap, {{"metric", std::string("delta_pct")}});
    ASSERT_TRUE(heat.ok()) << heat.error().toString();
    EXPECT_EQ(heat->at("cell_value"), ParamValue(std::string("delta_pct")));
    EXPECT_EQ(heat->count("metric"), 0u);
    // The current key wins over a former one beside it.
    auto both = core::resolveValues(heatmap, {{"metric", std::string("delta_pct")},
                                              {"cell_value", std::string("group_per_step")}});
    ASSERT_TRUE(both.ok());
    EXPECT_EQ(both->at("cell_value"), ParamValue(std::string("group_per_step")));

    const auto durations = specsOf("kernel-durations");
    auto style = core::resolveValues(durations, {{"style", std::string("box+violin")}});
    ASSERT_TRUE(style.ok()) << style.error().toString();
    EXPECT_EQ(style->at("style"), ParamValue(std::string("both")));
    EXPECT_EQ(core::findSpec(durations, "style")->defaultValue, ParamValue(std::string("both")));
    // A former choice is not a choice of its own: the widget offers box, violin, both.
    EXPECT_EQ(core::findSpec(durations, "style")->choices, (std::vector<std::string>{"box", "violin", "both"}));
    EXPECT_FALSE(core::resolveValues(durations, {{"style", std::string("boxes")}}).ok());
}

RunSet sharedParamsRuns() { return {RunEntry{"run", testdata::smallRun(), {}}}; }

// Time per series of kernel-breakdown over the whole window, on testdata::smallRun (two ranks).
std::map<std::string, int64_t> sharedParamsBreakdown(const std::string& groupBy) {
    const Plot* plot = PlotRegistry::instance().find("kernel-breakdown");
    const auto runs = sharedParamsRuns();
    const ParamValues set{{"group_by", groupBy}, {"per", std::string("window")}, {"top_n", 10LL},
                          {"include_memory", false}};
    auto prepared = prepareNow(*plot, runs, set);
    EXPECT_TRUE(prepared) << groupBy << ": " << (prepared ? "" : prepared.error().toString());
    std::map<std::string, int64_t> out;
    if (!prepared) return out;
    const auto t = plot->table(**prepared, *resolveValues(plot->parameters(runs), set));
    size_t series = 0, time = 0;
    for (size_t c = 0; c < t.columns.size(); ++c) {
        if (t.columns[c] == "series") series = c;
        if (t.columns[c] == "time_ns") time = c;
    }
    for (const auto& row : t.rows) out[std::get<std::string>(row[series])] += std::get<int64_t>(row[time]);
    return out;
}

// kernel-breakdown's old "kernel" is the shared parser's spelling of name (session files and --set keep working),
// and the plot now offers the other groupings through core's KernelGrouper. Expected by hand from the kernels of
// tests/plots/plot_test_data.h: sgemm 100+300 (rank 0) + 200 (rank 1); NCCL 500 + 700; elementwise 10+30+20.
TEST(SharedParams, KernelBreakdownGroupsByTheSharedChoices) {
    const auto byKernel = sharedParamsBreakdown("kernel");
    EXPECT_EQ(byKernel, sharedParamsBreakdown("name"));
    EXPECT_EQ(byKernel.at("ampere_sgemm_128x64_tn"), 600);
    EXPECT_EQ(byKernel.at("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), 1200);
    EXPECT_EQ(byKernel.at("vectorized_elementwise_kernel"), 60);
    const auto byRegex = sharedParamsBreakdown("regex:^(ampere|nccl)");
    EXPECT_EQ(byRegex.at("ampere"), 600);
    EXPECT_EQ(byRegex.at("nccl"), 1200);
    EXPECT_EQ(byRegex.at("(other)"), 60);
}

// A grouping a plot cannot draw is a prepare error naming the key, the value and what the plot offers; an unknown
// value is an error naming the key, not strobe-cli's flag.
TEST(SharedParams, UnsupportedOrUnknownGroupingIsAClearError) {
    const auto runs = sharedParamsRuns();
    const Plot* top = PlotRegistry::instance().find("top-kernels");
    auto r = prepareNow(*top, runs, {{"group_by", std::string("op")}});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().toString().find("group_by op: top-kernels groups kernels by name or category only"),
              std::string::npos)
        << r.error().toString();
    const Plot* durations = PlotRegistry::instance().find("kernel-durations");
    auto bad = prepareNow(*durations, runs, {{"group_by", std::string("bogus")}});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().toString().find("group_by 'bogus' is not a kernel grouping"), std::string::npos)
        << bad.error().toString();
    EXPECT_EQ(bad.error().toString().find("--group-by"), std::string::npos) << bad.error().toString();
    EXPECT_TRUE(prepareNow(*durations, runs, {{"group_by", std::string("normalized")}}));
}

}  // namespace
}  // namespace strobe::plots
