// The kernel-counters table plot on real rocprof outputs. Expected values computed outside Strobe:
//   /usr/bin/python3 tests/data/expected/kernel_counters_seismic.py   (rocprof v1 .xr: counters of the pmc pass
//       joined by kernel name, gpu-id and instance index)
//   /usr/bin/python3 tests/data/expected/kernel_counters_docs2025.py  (rocprofv3 CSV: joined by Dispatch_Id)
#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

const std::string kRoc = std::string(STROBE_TEST_DATA_DIR) + "/rocprof";

RunSet runOfKernelCounters(const std::string& label, const std::string& path) {
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({path}, o);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().toString());
    return RunSet{RunEntry{label, d.ok() ? d.value() : std::make_shared<core::Dataset>(), {}}};
}

struct KernelCountersShown {
    core::Table table;
    QImage image;
};

KernelCountersShown showKernelCounters(const RunSet& runs, ParamValues set = {}) {
    const Plot* plot = PlotRegistry::instance().find("kernel-counters");
    EXPECT_NE(plot, nullptr);
    auto values = resolveValues(plot->parameters(runs), set);
    EXPECT_TRUE(values.ok());
    auto prepared = plot->prepare(runs, *values, {}, {});
    EXPECT_TRUE(prepared.ok());
    return {plot->table(**prepared, *values), renderToImage(*plot, **prepared, *values, QSize(1200, 500))};
}

int rowOfKernelCounters(const core::Table& t, const std::string& name) {
    for (size_t r = 0; r < t.rows.size(); ++r)
        if (cellText(t, r, "name") == name) return int(r);
    return -1;
}

TEST(KernelCounters, SeismicPmcPassJoinedByNameDeviceAndInstance) {
    auto s = showKernelCounters(runOfKernelCounters("seismic", kRoc + "/seismic_128x64.xr"));
    const auto& t = s.table;
    for (const char* c : {"FETCH_SIZE", "WRITE_SIZE", "TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum",
                          "TCP_TOTAL_CACHE_ACCESSES_sum"})
        EXPECT_GE(t.columnIndex(std::string(c)), 0) << c;
    // Sorted by total time, largest first (the default), like the Python listing.
    ASSERT_FALSE(t.rows.empty());
    EXPECT_EQ(cellText(t, 0, "name"), "compute_fd_z_kernel");
    EXPECT_EQ(cellNumber(t, 0, "dispatches"), 100);
    EXPECT_EQ(cellNumber(t, 0, "total_ns"), 546863066);
    EXPECT_NEAR(cellNumber(t, 0, "FETCH_SIZE"), 4107991.83375, 1e-6);
    EXPECT_NEAR(cellNumber(t, 0, "WRITE_SIZE"), 540942.601875, 1e-6);
    const int w = rowOfKernelCounters(t, "compute_fd_xyz_lds_window_vec_kernel");
    ASSERT_GE(w, 0);
    EXPECT_EQ(cellNumber(t, size_t(w), "total_ns"), 163498275);
    EXPECT_NEAR(cellNumber(t, size_t(w), "TCP_TCC_READ_REQ_sum"), 27853639.22, 1e-6);
    EXPECT_GT(countNonBackgroundPixels(s.image), 5000);
}

TEST(KernelCounters, PerDispatchRowsAndSortingByACounter) {
    auto runs = runOfKernelCounters("seismic", kRoc + "/seismic_128x64.xr");
    auto s = showKernelCounters(runs,
                                {{"rows", std::string("dispatch")},
                                 {"sort_by", std::string("FETCH_SIZE")},
                                 {"filter", std::string("^compute_fd_z_kernel$")}});
    const auto& t = s.table;
    ASSERT_EQ(t.rows.size(), 100u);
    for (size_t r = 1; r < t.rows.size(); ++r)
        EXPECT_GE(cellNumber(t, r - 1, "FETCH_SIZE"), cellNumber(t, r, "FETCH_SIZE"));
    double sum = 0;
    for (size_t r = 0; r < t.rows.size(); ++r) sum += cellNumber(t, r, "dur_ns");
    EXPECT_EQ(sum, 546863066);
}

TEST(KernelCounters, DispatchIdJoinStatesItsMatchRate) {
    auto s = showKernelCounters(runOfKernelCounters("docs", kRoc + "/docs-2025"));
    const auto& t = s.table;
    const int d = rowOfKernelCounters(t, "divide_kernel(float*, float const*, float const*, int, int)");
    ASSERT_GE(d, 0);
    EXPECT_EQ(cellNumber(t, size_t(d), "dispatches"), 2);
    EXPECT_EQ(cellNumber(t, size_t(d), "total_ns"), 23640);
    EXPECT_EQ(cellNumber(t, size_t(d), "SQ_WAVES"), 16384);
    EXPECT_EQ(t.rows.size(), 4u);
    bool rate = false;
    for (const auto& m : t.messages) rate = rate || m.find("75.0% of the counter rows matched") != std::string::npos;
    EXPECT_TRUE(rate);
}

TEST(KernelCounters, ARunWithoutCountersSaysSo) {
    auto runs = runOfKernelCounters("dlrm", std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank");
    const Plot* plot = PlotRegistry::instance().find("kernel-counters");
    auto values = resolveValues(plot->parameters(runs), {});
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok());
    auto msg = plot->emptyMessage(**prepared, *values);
    ASSERT_TRUE(msg.has_value());
    EXPECT_NE(msg->find("no hardware counters"), std::string::npos) << *msg;
}

}  // namespace
