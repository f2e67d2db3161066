// Counters of another tool joined to the trace's kernels by (name, device, instance): an `ncu --csv` report of the
// bundled DLRM sample's rank 0 opened with its Kineto trace. The report and the values each instance must receive
// are written by tests/data/joins/make_dlrm_ncu.py (from the trace's JSON, with Python's json module).
// The ncu loader names a counter with its unit ("dram__bytes.sum [byte]").
#include "core/merge/counter_join.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

const std::string kCounterJoinData = STROBE_TEST_DATA_DIR;
const std::string kSample = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank/";

QJsonObject expected() {
    std::ifstream in(kCounterJoinData + "/joins/expected_join.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

DatasetPtr loadCounterJoin(const std::vector<std::string>& paths) {
    RunLoadOptions o;
    o.useCache = false;
    auto d = loadRun(paths, o);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().toString());
    return d.ok() ? d.value() : nullptr;
}

TEST(CounterJoin, NcuCountersReachTheTraceKernelOfTheSameInstance) {
    const QJsonObject e = expected();
    auto ds = loadCounterJoin(
        {kSample + e["trace"].toString().toStdString(), kCounterJoinData + "/joins/dlrm_worker0_ncu.csv"});
    ASSERT_TRUE(ds);
    ASSERT_EQ(ds->ranks.size(), 2u);
    const RankData& trace = *ds->ranks[0];
    const RankData& ncu = *ds->ranks[1];
    EXPECT_EQ(trace.info.format, "kineto");
    // Per kernel name, the trace's kernels in time order: the k-th must carry instance k's values.
    std::map<std::string, std::vector<uint32_t>> byName;
    std::vector<uint32_t> order;
    for (uint32_t g = 0; g < trace.gpu.size(); ++g)
        if (trace.gpu.kind[g] == EventKind::Kernel) order.push_back(g);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return trace.gpu.ts[a] < trace.gpu.ts[b]; });
    for (uint32_t g : order) byName[std::string(trace.strings.view(trace.gpu.name[g]))].push_back(g);
    std::map<std::pair<uint32_t, std::string>, double> got;
    for (size_t i = 0; i < trace.kernelCounters.size(); ++i)
        got[{trace.kernelCounters.gpuRow[i], std::string(trace.strings.view(trace.kernelCounters.name[i]))}] =
            trace.kernelCounters.value[i];
    size_t checked = 0;
    const QJsonObject inst = e["instances"].toObject();
    for (auto it = inst.begin(); it != inst.end(); ++it) {
        const auto rows = byName[it.key().toStdString()];
        const QJsonArray want = it.value().toArray();
        ASSERT_GE(rows.size(), size_t(want.size())) << it.key().toStdString();
        for (qsizetype k = 0; k < want.size(); ++k) {
            const auto w = want[k].toObject();
            EXPECT_DOUBLE_EQ((got[{rows[size_t(k)], "sm__throughput.avg.pct_of_peak_sustained_elapsed [%]"}]), w["sm"].toDouble())
                << it.key().toStdString() << " instance " << k;
            EXPECT_DOUBLE_EQ((got[{rows[size_t(k)], "dram__bytes.sum [byte]"}]), w["dram"].toDouble());
            ++checked;
        }
    }
    EXPECT_EQ(checked, size_t(e["matched"].toInt()));
    EXPECT_EQ(trace.kernelCounters.size(), 2 * checked);  // two metrics per matched dispatch, nothing else
    EXPECT_NEAR(trace.stats.joinMatchRate, double(e["matched"].toInt()) / e["dispatches"].toInt(), 1e-12);
    // The kernel the trace lacks keeps its counters on the ncu rank and is named in the run's note.
    EXPECT_EQ(ncu.kernelCounters.size(), 4u);
    bool named = false;
    for (const auto& d : ds->diagnostics)
        named = named || (d.message.find("unmatched: ghost_kernel_not_in_trace (2)") != std::string::npos &&
                          d.message.find("18 of 20 dispatches (90.0%)") != std::string::npos);
    EXPECT_TRUE(named);
}

TEST(CounterJoin, AmbiguousDevicesAreNotGuessed) {
    // Two trace ranks with kernels on device 0 and no shared pid: the counters stay where they are.
    RankData a, b, from;
    for (RankData* r : {&a, &b, &from}) {
        GpuRecord g;
        g.name = r->strings.intern("k");
        g.device = 0;
        r->gpu.appendRaw(g);
    }
    a.processes.push_back(ProcessMeta{1});
    b.processes.push_back(ProcessMeta{2});
    from.processes.push_back(ProcessMeta{3});
    from.kernelCounters.gpuRow.push_back(0);
    from.kernelCounters.name.push_back(from.strings.intern("SQ_WAVES"));
    from.kernelCounters.value.push_back(64);
    auto j = joinCountersByInstance(from, {&a, &b});
    EXPECT_EQ(j.dispatches, 1u);
    EXPECT_EQ(j.matched, 0u);
    EXPECT_EQ(j.unmatched.at("k"), 1u);
    EXPECT_EQ(from.kernelCounters.size(), 1u);
    // The pid decides when it can: b's process is the one profiled.
    from.processes = Column<ProcessMeta>{};
    from.processes.push_back(ProcessMeta{2});
    j = joinCountersByInstance(from, {&a, &b});
    EXPECT_EQ(j.matched, 1u);
    EXPECT_EQ(b.kernelCounters.size(), 1u);
    EXPECT_EQ(a.kernelCounters.size(), 0u);
    EXPECT_EQ(from.kernelCounters.size(), 0u);
}

}  // namespace
