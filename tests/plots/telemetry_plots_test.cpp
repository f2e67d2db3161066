// The telemetry plots on real nvidia-smi dmon samples (tests/data/telemetry/nvidia-smi). Expected values:
// tests/data/expected/telemetry_formats.py (output in telemetry_formats.txt, lines starting with "plot").
// Set STROBE_TELEMETRY_PNG_DIR to also write each picture there (to look at them).
#include <cmath>
#include <cstdlib>
#include <map>

#include <gtest/gtest.h>

#include "core/formats/nvidia_smi_csv.h"
#include "core/formats/nvidia_smi_dmon.h"
#include "core/formats/telemetry_metrics.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "plots/telemetry_plot.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

const std::string kDir = std::string(STROBE_TEST_DATA_DIR) + "/telemetry/nvidia-smi/";

std::shared_ptr<const core::RankData> loadRankTelemetryPlots(const std::string& file, int rankNo) {
    auto text = core::telemetry::readFileText(kDir + file);
    EXPECT_TRUE(text.ok()) << file;
    auto r = file.size() > 4 && file.compare(file.size() - 4, 4, ".csv") == 0
                 ? core::parseNvidiaSmiCsv(text->text, kDir + file, {})
                 : core::parseNvidiaSmiDmon(text->text, kDir + file, {});
    EXPECT_TRUE(r.ok()) << file;
    if (!r.ok()) return nullptr;
    r.value()->rank = rankNo;
    return std::shared_ptr<const core::RankData>(std::move(r.value()));
}

RunEntry runOfTelemetryPlots(const std::string& label, const std::vector<std::string>& files) {
    auto d = std::make_shared<core::Dataset>();
    int n = 0;
    for (const auto& f : files) d->ranks.push_back(loadRankTelemetryPlots(f, n++));
    return RunEntry{label, d, {}};
}

const Plot& plotByIdTelemetryPlots(const std::string& id) {
    const Plot* p = PlotRegistry::instance().find(id);
    EXPECT_NE(p, nullptr) << id;
    return *p;
}

core::Table tableOf(const Plot& plot, const RunSet& runs, ParamValues set = {}) {
    auto values = resolveValues(plot.parameters(runs), set);
    EXPECT_TRUE(values.ok());
    auto prepared = plot.prepare(runs, *values, {}, {});
    EXPECT_TRUE(prepared.ok()) << (prepared.ok() ? "" : prepared.error().toString());
    QImage img = renderToImage(plot, **prepared, *values, QSize(1000, 560));
    EXPECT_GT(countNonBackgroundPixels(img), 2000) << plot.id();
    if (const char* dir = std::getenv("STROBE_TELEMETRY_PNG_DIR"))
        img.save(QString::fromStdString(std::string(dir) + "/" + plot.id() + ".png"));
    return plot.table(**prepared, *values);
}

TEST(TelemetryPlots, PowerTimelineOneLinePerRun) {
    RunSet runs{runOfTelemetryPlots("h100", {"h100_dmon_load.txt"}),
                runOfTelemetryPlots("l40s", {"l40s_dmon_load.txt"})};
    auto t = tableOf(plotByIdTelemetryPlots("power-timeline"), runs);
    std::map<std::string, double> sum;
    std::map<std::string, int> count;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const auto run = core::Table::text(t.rows[i][0]);
        sum[run] += core::Table::number(t.rows[i][3]);
        ++count[run];
    }
    EXPECT_EQ(count["h100"], 5);
    EXPECT_DOUBLE_EQ(sum["h100"], 3168.0);
    EXPECT_DOUBLE_EQ(sum["l40s"], 541.0);
    // Elapsed time of the last sample: dmon's 1 s interval, five samples → 4 s.
    EXPECT_EQ(core::Table::number(t.rows[4][2]), 4e9);
}

TEST(TelemetryPlots, FreqVsPowerPairsSamplesOfTheSameInstant) {
    RunSet runs{runOfTelemetryPlots("h100 idle+load", {"h100_dmon_idle.txt", "h100_dmon_load.txt"}),
                runOfTelemetryPlots("l40s", {"l40s_dmon_load.txt"})};
    auto t = tableOf(plotByIdTelemetryPlots("freq-vs-power"), runs);
    EXPECT_EQ(t.rows.size(), 15u);  // 10 + 5 samples with both power and clock
}

TEST(TelemetryPlots, FreqTempCorrelationMatchesPython) {
    RunSet runs{runOfTelemetryPlots("h100 idle+load", {"h100_dmon_idle.txt", "h100_dmon_load.txt"}),
                runOfTelemetryPlots("l40s", {"l40s_dmon_load.txt"})};
    auto t = tableOf(plotByIdTelemetryPlots("freq-temp-correlation"), runs);
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(core::Table::number(t.rows[0][1]), 10);
    EXPECT_NEAR(core::Table::number(t.rows[0][2]), 0.998924483057, 1e-9);
    EXPECT_DOUBLE_EQ(core::Table::number(t.rows[0][3]), 52.4);
    EXPECT_DOUBLE_EQ(core::Table::number(t.rows[0][4]), 1162.5);
    // The L40S held 2520 MHz throughout: no variance, no coefficient (a null cell, not a made-up 0).
    EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[1][2]));
    // The same helper on power instead of temperature.
    std::vector<std::pair<double, double>> pts;
    auto idle = loadRankTelemetryPlots("h100_dmon_idle.txt", 0), load = loadRankTelemetryPlots("h100_dmon_load.txt", 1);
    for (const auto& r : {idle, load}) {
        std::map<int64_t, std::pair<double, double>> at;
        for (size_t i = 0; i < r->samples.size(); ++i) {
            auto m = r->strings.str(r->samples.metric[i]);
            if (m == "power_w") at[r->samples.ts[i]].first = r->samples.value[i];
            if (m == "sclk_mhz") at[r->samples.ts[i]].second = r->samples.value[i];
        }
        for (auto& [ts, p] : at) pts.push_back(p);
    }
    EXPECT_NEAR(pearsonR(pts), 0.999991718352, 1e-9);
}

TEST(TelemetryPlots, PowerCapDistribution) {
    const Plot& plot = plotByIdTelemetryPlots("power-cap-distribution");
    RunSet runs{runOfTelemetryPlots("h100 idle+load", {"h100_dmon_idle.txt", "h100_dmon_load.txt"})};
    ParamValues set;
    set["cap_w"] = 700.0;  // the H100's enforced.power.limit (h100_query-gpu_load.csv)
    auto t = tableOf(plot, runs, set);
    ASSERT_EQ(t.rows.size(), 2u);  // bins 5–10 % and 90–95 %, five samples each
    EXPECT_DOUBLE_EQ(core::Table::number(t.rows[0][1]), 5);
    EXPECT_EQ(core::Table::number(t.rows[0][3]), 5);
    EXPECT_DOUBLE_EQ(core::Table::number(t.rows[1][1]), 90);
    EXPECT_DOUBLE_EQ(core::Table::number(t.rows[1][4]), 50);
    // Without cap_w the cap comes from power_limit_w: the query-gpu row has both (631.95 ÷ 700 = 90.28 %).
    RunSet q{runOfTelemetryPlots("h100 query", {"h100_query-gpu_load.csv"})};
    auto values = resolveValues(plot.parameters(q), {});
    auto prepared = plot.prepare(q, *values, {}, {});
    ASSERT_TRUE(prepared.ok());
    auto tq = plot.table(**prepared, *values);
    ASSERT_EQ(tq.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(core::Table::number(tq.rows[0][1]), 90);
    // dmon has no cap: its samples are left out, and the table says so.
    auto none = plot.prepare(RunSet{runOfTelemetryPlots("dmon", {"h100_dmon_load.txt"})}, *values, {}, {});
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(plot.emptyMessage(**none, *values).has_value());
    auto tn = plot.table(**none, *values);
    ASSERT_FALSE(tn.messages.empty());
    EXPECT_NE(tn.messages[0].find("5 power samples"), std::string::npos) << tn.messages[0];
}

TEST(TelemetryPlots, NoTelemetryGivesAMessage) {
    for (const char* id : {"power-timeline", "freq-vs-power", "freq-temp-correlation", "power-cap-distribution"}) {
        const Plot& plot = plotByIdTelemetryPlots(id);
        RunSet runs{RunEntry{"empty", std::make_shared<core::Dataset>(), {}}};
        auto values = resolveValues(plot.parameters(runs), {});
        auto prepared = plot.prepare(runs, *values, {}, {});
        ASSERT_TRUE(prepared.ok()) << id;
        EXPECT_TRUE(plot.emptyMessage(**prepared, *values).has_value()) << id;
        core::CancelToken cancel;
        cancel.cancel();
        auto c = plot.prepare(runs, *values, cancel, {});
        ASSERT_FALSE(c.ok()) << id;
        EXPECT_TRUE(isCancelledError(c.error())) << id;
    }
}

}  // namespace
