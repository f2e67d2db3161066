// The GPU timeline's lanes, names and range on real sources, against tests/data/expected/timeline_lanes/expected.json
// (written by tests/data/expected/timeline_lanes/timeline_lanes.py with Python's json/gzip/sqlite3 only):
// - rocprofv3 JSON of 8 MI350X (tracelens_908_results.json.gz): lanes by agent and HSA queue by default (5, not
//   one per HIP stream: 567), the sub-µs timestamp overlaps of in-order queues kept in their lane and reported;
// - nsys export of CloverLeaf on A100 (nsys_cloverleaf_a100.sqlite): t = 0 is the session's first event (an OS
//   runtime call 0.48 s before the first kernel), the range reaches the last one, and CPU lanes carry the process and
//   thread names of PROCESSES and ThreadNames.
#include <map>
#include <set>

#include <QFile>
#include <QJsonDocument>
#include <QJsonArray>
#include <QJsonObject>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_registry.h"
#include "plots/timeline_view.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;
using namespace strobe::plots::timeline;

namespace {

QJsonObject expectedLanes(const char* source) {
    QFile f(QString::fromUtf8(STROBE_TEST_DATA_DIR) + "/expected/timeline_lanes/expected.json");
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(f.readAll()).object().value(QString::fromUtf8(source)).toObject();
}

RunSet oneRun(const std::string& relPath) {
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/" + relPath}, o);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().toString());
    return RunSet{RunEntry{"r0", d.ok() ? d.value() : std::make_shared<core::Dataset>(), {}}};
}

std::shared_ptr<const TimelinePrepared> lanesOf(const RunSet& runs, const ParamValues& set) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    EXPECT_NE(plot, nullptr);
    auto values = resolveValues(plot->parameters(runs), set);
    EXPECT_TRUE(values.ok()) << (values.ok() ? "" : values.error().toString());
    auto prepared = plot->prepare(runs, *values, {}, {});
    EXPECT_TRUE(prepared.ok());
    return std::dynamic_pointer_cast<const TimelinePrepared>(*prepared);
}

struct StreamLanes {
    std::set<std::pair<int, int>> lanes;  // (device, queue or stream)
    size_t sublanes = 0;
    size_t queueLanes = 0;
};
StreamLanes streamLanes(const TimelinePrepared& p) {
    StreamLanes out;
    for (const auto& l : p.lanes)
        if (l.kind == LaneKind::Stream) {
            out.lanes.insert({l.device, l.stream});
            ++out.sublanes;
            out.queueLanes += l.queue ? 1 : 0;
        }
    return out;
}

std::string toleratedMessage(const TimelinePrepared& p) {
    for (const auto& m : p.messages)
        if (m.find("before the previous one ends") != std::string::npos) return m;
    return {};
}

}  // namespace

TEST(TimelineLanesReal, RocprofLanesByAgentAndQueueWithSubMicrosecondOverlapsReported) {
    const QJsonObject e = expectedLanes("rocprofv3_908");
    const RunSet runs = oneRun("rocprof/tracelens_908_results.json.gz");

    auto byQueue = lanesOf(runs, {{"include_memory", false}});
    ASSERT_TRUE(byQueue);
    const auto q = streamLanes(*byQueue);
    const QJsonObject eq = e.value("by_queue").toObject();
    EXPECT_EQ(q.lanes.size(), size_t(eq.value("lanes").toInt()));
    EXPECT_EQ(q.sublanes, size_t(eq.value("sublanes").toInt()));  // no second lane for a sub-µs overlap
    EXPECT_EQ(q.queueLanes, q.sublanes);
    // Reported per lane: the counts add up to Python's, the largest is Python's.
    size_t tolerated = 0;
    long long largest = 0;
    for (const auto& m : byQueue->messages) {
        long long n = 0, ns = 0;
        const auto colon = m.find(": ");
        if (m.find("before the previous one ends") == std::string::npos || colon == std::string::npos) continue;
        ASSERT_EQ(std::sscanf(m.c_str() + colon + 2, "%lld activit%*[a-z] start%*[s ]up to %lld ns", &n, &ns), 2) << m;
        tolerated += size_t(n);
        largest = std::max(largest, ns);
    }
    EXPECT_EQ(tolerated, size_t(eq.value("tolerated").toInt()));
    EXPECT_EQ(largest, eq.value("largest_ns").toInt());
    for (const auto& l : byQueue->lanes) {
        if (l.kind == LaneKind::Stream) {
            EXPECT_NE(l.label.find(" queue "), std::string::npos) << l.label;
        }
    }

    // No tolerance: the overlaps open sub-lanes, as many as Python packs.
    auto strict = lanesOf(runs, {{"include_memory", false}, {"overlap_tolerance_us", 0.0}});
    ASSERT_TRUE(strict);
    EXPECT_EQ(streamLanes(*strict).sublanes, size_t(e.value("by_queue_no_tolerance").toObject().value("sublanes").toInt()));
    EXPECT_TRUE(toleratedMessage(*strict).empty());

    // By HIP stream on request: one lane per (agent, stream).
    auto byStream = lanesOf(runs, {{"include_memory", false}, {"lanes_by", std::string("stream")}});
    ASSERT_TRUE(byStream);
    const auto s = streamLanes(*byStream);
    EXPECT_EQ(s.lanes.size(), size_t(e.value("by_stream").toObject().value("lanes").toInt()));
    EXPECT_EQ(s.queueLanes, 0u);
}

TEST(TimelineLanesReal, KinetoThreadsNamedByProcessAndThread) {
    const QJsonObject e = expectedLanes("kineto_sampled");
    const RunSet runs = oneRun("kineto/hta/trace_filter/sampled_rank-0.json.gz");
    auto p = lanesOf(runs, {});
    ASSERT_TRUE(p);
    std::set<std::string> threads;
    for (const auto& l : p->lanes)
        if (l.kind == LaneKind::Cpu) threads.insert(l.thread);
    const QJsonArray expected = e.value("threads").toArray();
    ASSERT_EQ(threads.size(), size_t(expected.size()));
    for (const auto& t : expected) {
        const QJsonObject o = t.toObject();
        const std::string want = o.value("process_name").toString().toStdString() + " · " +
                                 o.value("thread_name").toString().toStdString();
        bool found = false;
        for (const auto& label : threads) found = found || label.find(want) != std::string::npos;
        EXPECT_TRUE(found) << want;
    }
}

TEST(TimelineLanesReal, NsysSessionFromItsFirstEventWithNamedThreads) {
    const QJsonObject e = expectedLanes("nsys_cloverleaf");
    const RunSet runs = oneRun("sqlite/nsys_cloverleaf_a100.sqlite");
    auto p = lanesOf(runs, {});
    ASSERT_TRUE(p);
    // t = 0 is the first event of any kind (an OS runtime call here), long before the first kernel.
    ASSERT_EQ(p->runOrigin.size(), 1u);
    EXPECT_EQ(p->runOrigin[0], static_cast<int64_t>(e.value("first_event_ns").toDouble()));
    EXPECT_LT(p->runOrigin[0], static_cast<int64_t>(e.value("first_kernel_ns").toDouble()));
    EXPECT_EQ(p->zeroLabel, "0 = first event");
    EXPECT_EQ(p->fullStart, 0);
    EXPECT_EQ(p->fullEnd, static_cast<int64_t>(e.value("last_end_ns").toDouble()) - p->runOrigin[0]);
    // Every OS runtime call is on a CPU lane.
    size_t osrt = 0;
    std::set<std::string> threads;
    for (const auto& l : p->lanes)
        if (l.kind == LaneKind::Cpu) {
            threads.insert(l.thread);
            for (auto src : l.src) osrt += l.rank->slices.kind[src] == core::EventKind::OsRuntime ? 1 : 0;
        }
    EXPECT_EQ(osrt, size_t(e.value("osrt_rows").toInt()));
    EXPECT_EQ(threads.size(), size_t(e.value("cpu_threads").toInt()));
    // Names: the process's and each named thread's.
    const std::string process = e.value("process").toArray().at(0).toString().toStdString();
    for (const auto& name : e.value("thread_names").toArray()) {
        bool found = false;
        for (const auto& t : threads) found = found || t.find(name.toString().toStdString()) != std::string::npos;
        EXPECT_TRUE(found) << name.toString().toStdString();
    }
    for (const auto& t : threads) EXPECT_NE(t.find(process), std::string::npos) << t;

    // Panning stops at the data: a view moved before 0 or past the end is brought back, its length kept.
    ParamValues v;
    auto early = effectiveView(setView(v, -5'000'000, 5'000'000), p->fullStart, p->fullEnd);
    EXPECT_EQ(early.start, 0);
    EXPECT_EQ(early.end, 10'000'000);
    auto late = effectiveView(setView(v, p->fullEnd - 1'000'000, p->fullEnd + 1'000'000), p->fullStart, p->fullEnd);
    EXPECT_EQ(late.end, p->fullEnd);
    EXPECT_EQ(late.end - late.start, 2'000'000);
}
