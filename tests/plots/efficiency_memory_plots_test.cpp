// The issue-27 views (plots/builtin/operator_efficiency.cpp, memory_plots.cpp, roofline.cpp source=ops) on TraceLens's
// normalization test trace recorded on an MI300X with record_shapes and profile_memory
// (tests/data/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz, see tests/data/SOURCES.md).
// The memory figures are those of the independent Python replay of the [memory] events kept beside the core test:
//   /usr/bin/python3 tests/core/memory_timeline_replay.py tests/data/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz
// (GPU hip:0: peak Total Allocated 8,154,624 B; 44 blocks allocated in the trace live at the peak, 7,489,024 B).
// The table and roofline plots are checked against the `ops` analysis they draw (`strobe-cli analyze ops`).
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/analysis/context.h"
#include "core/analysis/registry.h"
#include "core/engine/run_loader.h"
#include "core/sweep/sweep_discovery.h"
#include "plots/analysis_plot.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "plots/step_times.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

core::DatasetPtr normalizationTrace() {
    static core::DatasetPtr ds = [] {
        core::RunLoadOptions o;
        o.useCache = false;
        auto r = core::loadRun({std::string(STROBE_TEST_DATA_DIR) +
                                "/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz"},
                               o);
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
        return r.ok() ? r.value() : nullptr;
    }();
    return ds;
}

struct EmPrepared {
    const Plot* plot = nullptr;
    PreparedPtr prepared;
    ParamValues values;
};

EmPrepared emPrepare(const std::string& id, const std::vector<std::string>& sets) {
    EmPrepared out;
    out.plot = PlotRegistry::instance().find(id);
    EXPECT_NE(out.plot, nullptr) << id;
    if (!out.plot) return out;
    const RunSet runs{RunEntry{"norm", normalizationTrace(), {}}};
    ParamValues given;
    for (const auto& s : sets) EXPECT_TRUE(core::applyAssignment(out.plot->parameters(runs), s, given).ok()) << s;
    auto values = core::resolveValues(out.plot->parameters(runs), given);
    EXPECT_TRUE(values.ok());
    if (!values.ok()) return out;
    out.values = *values;
    auto p = out.plot->prepare(runs, out.values, {}, {});
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().toString());
    if (p.ok()) out.prepared = *p;
    return out;
}

core::Table opsAnalysis(const std::string& groupBy) {
    auto ctx = core::AnalysisContext::of(normalizationTrace());
    core::AnalysisRequest req;
    req.window = *core::WindowSpec::parse("all", "");
    req.values["group-by"] = groupBy;
    auto t = core::runAnalysis(*ctx, "ops", req);
    EXPECT_TRUE(t.ok());
    return t.ok() ? *t : core::Table{};
}

// Every row as one text (cells by column name), sorted: the rows as a multiset, whatever their order.
std::vector<std::string> emRowTexts(const core::Table& t) {
    std::vector<std::string> out;
    for (size_t r = 0; r < t.rows.size(); ++r) {
        std::string s;
        for (const auto& c : t.columns) s += c + "=" + cellText(t, r, c) + "|";
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(EfficiencyMemoryPlots, MemoryTimelinePeakIsTheReplaysAndThePictureIsDrawn) {
    auto p = emPrepare("memory-timeline", {});
    ASSERT_TRUE(p.prepared);
    const core::Table t = p.plot->table(*p.prepared, p.values);
    double gpuPeak = 0;
    size_t gpuEvents = 0;
    for (size_t r = 0; r < t.rows.size(); ++r)
        if (cellText(t, r, "device_type") == "hip") {
            gpuPeak = std::max(gpuPeak, cellNumber(t, r, "allocated_bytes"));
            gpuEvents += 1;
        }
    EXPECT_EQ(gpuPeak, 8'154'624.0);
    EXPECT_EQ(gpuEvents, 415u) << "every [memory] event of the GPU, as analyze memory-timeline --view series";
    const QImage image = renderToImage(*p.plot, *p.prepared, p.values, QSize(1000, 600));
    EXPECT_GT(countNonBackgroundPixels(image), 5000);
    const std::string svg = renderToSvg(*p.plot, *p.prepared, p.values, QSize(1000, 600)).toStdString();
    EXPECT_NE(svg.find("8154624 B"), std::string::npos) << "the peak is stated";
}

TEST(EfficiencyMemoryPlots, LiveAtPeakTableHoldsTheBlocksTheReplayFinds) {
    auto p = emPrepare("memory-live-at-peak", {});
    ASSERT_TRUE(p.prepared);
    EXPECT_TRUE(p.plot->isTable());
    const core::Table t = p.plot->table(*p.prepared, p.values);
    double liveBytes = 0, last = 1e300;
    size_t blocks = 0;
    for (size_t r = 0; r < t.rows.size(); ++r) {
        if (cellText(t, r, "device_type") != "hip") continue;
        liveBytes += cellNumber(t, r, "bytes");
        blocks += 1;
        EXPECT_LE(cellNumber(t, r, "bytes"), last) << "largest first";
        last = cellNumber(t, r, "bytes");
    }
    EXPECT_EQ(blocks, 44u);
    EXPECT_EQ(liveBytes, 7'489'024.0);
    bool stated = false;
    for (const auto& m : t.messages) stated = stated || m.find("peak 8154624 B") != std::string::npos;
    EXPECT_TRUE(stated) << "the peak and the part from before the trace are in the messages (the subtitle)";
    EXPECT_GT(countNonBackgroundPixels(renderToImage(*p.plot, *p.prepared, p.values, QSize(1000, 600))), 5000);
}

TEST(EfficiencyMemoryPlots, OperatorTableRowsAreTheOpsAnalysisRows) {
    for (const std::string by : {"instance", "shape"}) {
        auto p = emPrepare("operator-efficiency", {"group_by=" + by});
        ASSERT_TRUE(p.prepared);
        EXPECT_TRUE(p.plot->isTable());
        const core::Table t = p.plot->table(*p.prepared, p.values);
        const core::Table want = opsAnalysis(by);
        ASSERT_FALSE(want.rows.empty());
        EXPECT_EQ(t.columns, want.columns) << by;
        EXPECT_EQ(emRowTexts(t), emRowTexts(want)) << by;
        for (size_t r = 1; r < t.rows.size(); ++r)
            EXPECT_GE(cellNumber(t, r - 1, "kernel_ns"), cellNumber(t, r, "kernel_ns")) << "sorted by kernel time";
    }
    auto p = emPrepare("operator-efficiency", {});
    ASSERT_TRUE(p.prepared);
    const std::string svg = renderToSvg(*p.plot, *p.prepared, p.values, QSize(1200, 700)).toStdString();
    EXPECT_NE(svg.find("of GPU kernel time modelled"), std::string::npos) << "the modelled share in the subtitle";
    // A filter keeps only the matching operators.
    auto f = emPrepare("operator-efficiency", {"filter=layer_norm"});
    ASSERT_TRUE(f.prepared);
    const core::Table ft = f.plot->table(*f.prepared, f.values);
    ASSERT_FALSE(ft.rows.empty());
    for (size_t r = 0; r < ft.rows.size(); ++r) EXPECT_NE(cellText(ft, r, "op").find("layer_norm"), std::string::npos);
}

TEST(EfficiencyMemoryPlots, OperatorTableRejectsAnUnknownGrouping) {
    const Plot* plot = PlotRegistry::instance().find("operator-efficiency");
    ASSERT_NE(plot, nullptr);
    const RunSet runs{RunEntry{"norm", normalizationTrace(), {}}};
    ParamValues given;
    ASSERT_TRUE(core::applyAssignment(plot->parameters(runs), "group_by=category", given).ok());
    auto values = core::resolveValues(plot->parameters(runs), given);
    ASSERT_TRUE(values.ok());
    auto p = plot->prepare(runs, *values, {}, {});
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().message.find("instance or shape"), std::string::npos) << p.error().message;
}

TEST(EfficiencyMemoryPlots, RooflineOpsHasOnePointPerModelledInstanceWithFlops) {
    auto p = emPrepare("roofline", {"source=ops"});
    ASSERT_TRUE(p.prepared);
    const core::Table t = p.plot->table(*p.prepared, p.values);
    const core::Table want = opsAnalysis("instance");
    size_t withFlops = 0, without = 0;
    std::set<std::string> families;
    for (size_t r = 0; r < want.rows.size(); ++r) {
        if (cellNumber(want, r, "flops") > 0 && cellNumber(want, r, "bytes") > 0 && cellNumber(want, r, "kernel_ns") > 0) {
            withFlops += 1;
            families.insert(cellText(want, r, "family"));
        } else {
            without += 1;
        }
    }
    EXPECT_EQ(t.rows.size(), withFlops) << "one point per modelled instance that has FLOPs, bytes and kernel time";
    EXPECT_GT(withFlops, 0u);
    std::set<std::string> drawn;
    for (size_t r = 0; r < t.rows.size(); ++r) {
        drawn.insert(cellText(t, r, "family"));
        EXPECT_NEAR(cellNumber(t, r, "flop_per_byte"), cellNumber(t, r, "flops") / cellNumber(t, r, "bytes"), 1e-9);
    }
    EXPECT_EQ(drawn, families) << "coloured by family: every family of the analysis is there";
    bool counted = without == 0;
    for (const auto& m : t.messages)
        counted = counted || m.find(std::to_string(without) + " modelled operator instances without FLOPs") != std::string::npos;
    EXPECT_TRUE(counted) << "the instances left out are counted";
    EXPECT_GT(countNonBackgroundPixels(renderToImage(*p.plot, *p.prepared, p.values, QSize(1000, 600))), 5000);
    // The default stays the GEMM roofline (one point per kernel name).
    const Plot* roofline = PlotRegistry::instance().find("roofline");
    ASSERT_NE(roofline, nullptr);
    const auto specs = roofline->parameters({});
    const ParamSpec* spec = findSpec(specs, "source");
    ASSERT_TRUE(spec);
    EXPECT_EQ(std::get<std::string>(spec->defaultValue), "gemm");
}

// The GPU timeline's memory lanes (memory_lanes, off by default): the GPU's allocated bytes reach the replay's peak and
// its reserved bytes the allocator's largest Total Reserved (8,388,608 B, analyze memory-timeline); the CPU reserves
// nothing, so it has no reserved lane.
TEST(EfficiencyMemoryPlots, TimelineMemoryLanesHoldTheAllocatorTotals) {
    auto off = emPrepare("gpu-timeline", {});
    ASSERT_TRUE(off.prepared);
    const auto* lanesOff = dynamic_cast<const timeline::TimelinePrepared*>(off.prepared.get());
    ASSERT_NE(lanesOff, nullptr);
    for (const auto& l : lanesOff->lanes) EXPECT_EQ(l.label.find("allocated_bytes"), std::string::npos);
    auto on = emPrepare("gpu-timeline", {"memory_lanes=true"});
    ASSERT_TRUE(on.prepared);
    const auto* lanes = dynamic_cast<const timeline::TimelinePrepared*>(on.prepared.get());
    ASSERT_NE(lanes, nullptr);
    std::map<std::string, double> peak;
    for (const auto& l : lanes->lanes)
        if (l.kind == timeline::LaneKind::Telemetry) peak[l.label] = l.vmax;
    EXPECT_EQ(peak["rank 0 hip:0 allocated_bytes"], 8'154'624.0);
    EXPECT_EQ(peak["rank 0 hip:0 reserved_bytes"], 8'388'608.0);
    EXPECT_EQ(peak["rank 0 cpu:-1 allocated_bytes"], 32.0);
    EXPECT_EQ(peak.count("rank 0 cpu:-1 reserved_bytes"), 0u);
    EXPECT_GT(countNonBackgroundPixels(renderToImage(*on.plot, *on.prepared, on.values, QSize(1200, 500))), 5000);
}

// Memory lanes from the other sources (tests/data/expected/memory_sources.py): nvidia-smi's used memory, drawn under
// the host as one used_bytes lane with every sample (peak 1,147,142,144 B); rocprofv3's allocation trace as one
// allocated_bytes lane (no separate reserved curve), peak 2,048 B.
TEST(EfficiencyMemoryPlots, TimelineMemoryLanesFromSmiAndRocprofv3) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    ASSERT_NE(plot, nullptr);
    for (const char* rel : {"/telemetry/nvidia-smi/v100s_gpu_log.csv", "/rocprof/docs-2025/memory_allocation_trace.csv"}) {
        SCOPED_TRACE(rel);
        core::RunLoadOptions o;
        o.useCache = false;
        auto ds = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + rel}, o);
        ASSERT_TRUE(ds.ok());
        const RunSet runs{RunEntry{"src", ds.value(), {}}};
        ParamValues given;
        ASSERT_TRUE(core::applyAssignment(plot->parameters(runs), "memory_lanes=true", given).ok());
        auto values = core::resolveValues(plot->parameters(runs), given);
        ASSERT_TRUE(values.ok());
        auto p = plot->prepare(runs, *values, {}, {});
        ASSERT_TRUE(p.ok());
        const auto* lanes = dynamic_cast<const timeline::TimelinePrepared*>(p.value().get());
        ASSERT_NE(lanes, nullptr);
        std::vector<const timeline::Lane*> memory;
        for (const auto& l : lanes->lanes)
            if (l.metric == "used_bytes" || l.metric == "allocated_bytes" || l.metric == "reserved_bytes")
                memory.push_back(&l);
        ASSERT_EQ(memory.size(), 1u);
        if (std::string(rel).find("smi") != std::string::npos) {
            EXPECT_EQ(memory[0]->metric, "used_bytes");
            EXPECT_EQ(memory[0]->start.size(), 107u);
            EXPECT_EQ(memory[0]->vmax, 1147142144.0);
            EXPECT_NE(memory[0]->label.find("(smi)"), std::string::npos) << memory[0]->label;
        } else {
            EXPECT_EQ(memory[0]->metric, "allocated_bytes");
            EXPECT_EQ(memory[0]->start.size(), 4u);
            EXPECT_EQ(memory[0]->vmax, 2048.0);
            EXPECT_NE(memory[0]->label.find("agent:0"), std::string::npos) << memory[0]->label;
        }
    }
}

namespace {

// A sweep made of copies of two real memory traces, as tests/core/memory_sources_test.cpp's sweep (model=df: HTA's
// V100 trace; model=norm: TraceLens's MI300X normalization test), loaded as the workbench loads a sweep.
RunSet memorySweep(const std::filesystem::path& dir) {
    const std::string data = STROBE_TEST_DATA_DIR;
    std::filesystem::create_directories(dir / "model=df" / "rep0");
    std::filesystem::create_directories(dir / "model=norm" / "rep0");
    std::filesystem::copy_file(data + "/kineto/hta/df_index_resolver/df_index_resolver.json.gz",
                               dir / "model=df" / "rep0" / "trace.json.gz");
    std::filesystem::copy_file(data + "/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz",
                               dir / "model=norm" / "rep0" / "trace.json.gz");
    RunSet runs;
    core::RunLoadOptions options;
    options.useCache = false;
    for (const auto& run : core::sweep::discoverSweep({dir.string()}).runs) {
        auto loaded = core::loadRun(run.paths, options);
        EXPECT_TRUE(loaded.ok()) << run.path();
        if (!loaded.ok()) continue;
        RunEntry entry = run;
        entry.dataset = *loaded;
        runs.push_back(std::move(entry));
    }
    return runs;
}

PreparedPtr prepareOn(const Plot& plot, const RunSet& runs, ParamValues& values) {
    auto resolved = core::resolveValues(plot.parameters(runs), {});
    EXPECT_TRUE(resolved.ok());
    if (!resolved.ok()) return nullptr;
    values = *resolved;
    auto p = plot.prepare(runs, values, {}, {});
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().toString());
    return p.ok() ? *p : nullptr;
}

// Plot `id` prepared with its defaults on the memory sweep (the traces are read into memory: the directory goes).
struct SweepPlot {
    RunSet runs;
    const Plot* plot = nullptr;
    ParamValues values;
    PreparedPtr prepared;
};
SweepPlot prepareOnSweep(const std::string& id) {
    SweepPlot out;
    test::TempDir dir("strobe-sweep-plot");
    out.runs = memorySweep(dir.path());
    EXPECT_EQ(out.runs.size(), 2u);
    out.plot = PlotRegistry::instance().find(id);
    EXPECT_NE(out.plot, nullptr) << id;
    if (out.plot) out.prepared = prepareOn(*out.plot, out.runs, out.values);
    return out;
}

}  // namespace

// The memory timeline over a sweep: one series per configuration, named by its parameter values, whose curve is the
// replay's. Expected values (tests/core/memory_timeline_replay.py on each trace):
//   model=df   cuda:1  26,770 events, peak 6,629,508,096 B, curve_checksum 2040653307572454400
//   model=norm hip:0      415 events, peak     8,154,624 B, curve_checksum 389666864640
// (curve_checksum: sum over the events in order of (k + 1) * allocated, mod 2^61 - 1).
TEST(EfficiencyMemoryPlots, MemoryTimelineOverASweepHasEachConfigurationsReplayedCurve) {
    const SweepPlot sp = prepareOnSweep("memory-timeline");
    ASSERT_TRUE(sp.prepared);
    const core::Table t = sp.plot->table(*sp.prepared, sp.values);
    ASSERT_GE(t.columnIndex("configuration"), 0) << "a sweep's table names each row's configuration";
    struct Curve {
        size_t events = 0;
        double peak = 0;
        uint64_t checksum = 0;
    };
    std::map<std::string, Curve> curves;  // "configuration device_type:device"
    constexpr uint64_t kMod = (uint64_t{1} << 61) - 1;
    for (size_t r = 0; r < t.rows.size(); ++r) {
        if (cellText(t, r, "device_type") == "cpu") continue;
        Curve& c = curves[cellText(t, r, "configuration") + " " + cellText(t, r, "device_type") + ":" +
                          cellText(t, r, "device")];
        const auto a = uint64_t(cellNumber(t, r, "allocated_bytes"));
        c.events += 1;
        c.peak = std::max(c.peak, double(a));
        c.checksum = (c.checksum + uint64_t(c.events) * a % kMod) % kMod;  // events < 2^15, bytes < 2^40: no overflow
    }
    ASSERT_EQ(curves.size(), 2u);
    EXPECT_EQ(curves["model=df cuda:1"].events, 26770u);
    EXPECT_EQ(curves["model=df cuda:1"].peak, 6'629'508'096.0);
    EXPECT_EQ(curves["model=df cuda:1"].checksum, 2040653307572454400u);
    EXPECT_EQ(curves["model=norm hip:0"].events, 415u);
    EXPECT_EQ(curves["model=norm hip:0"].peak, 8'154'624.0);
    EXPECT_EQ(curves["model=norm hip:0"].checksum, 389666864640u);

    // The picture: each series named by its configuration, its peak stated, one panel per configuration.
    const std::string svg = renderToSvg(*sp.plot, *sp.prepared, sp.values, QSize(1000, 600)).toStdString();
    EXPECT_NE(svg.find("model=df / cuda:1 peak 6.17 GiB (6629508096 B)"), std::string::npos);
    EXPECT_NE(svg.find("model=norm / hip:0 peak 7.78 MiB (8154624 B)"), std::string::npos);
    EXPECT_EQ(svg.find("#0 /"), std::string::npos) << "a configuration without repeats is named by its parameters";
    const QImage image = renderToImage(*sp.plot, *sp.prepared, sp.values, QSize(1000, 600));
    EXPECT_GT(countNonBackgroundPixels(image), 5000);
}

// The operator table over the same sweep: a configuration column, each configuration's rows those of its run's
// `ops` analysis.
TEST(EfficiencyMemoryPlots, OperatorTableOverASweepHasAConfigurationColumn) {
    const SweepPlot sp = prepareOnSweep("operator-efficiency");
    ASSERT_TRUE(sp.prepared);
    const core::Table t = sp.plot->table(*sp.prepared, sp.values);
    ASSERT_EQ(t.columnIndex("configuration"), t.columnIndex("run") + 1);
    std::map<std::string, size_t> rowsOf;
    for (size_t r = 0; r < t.rows.size(); ++r) rowsOf[cellText(t, r, "configuration")] += 1;
    for (const auto& run : sp.runs) {
        auto ctx = core::AnalysisContext::of(run.dataset);
        core::AnalysisRequest req;
        req.window = *core::WindowSpec::parse("all", "");
        req.values["group-by"] = std::string("instance");
        auto ops = core::runAnalysis(*ctx, "ops", req);
        ASSERT_TRUE(ops.ok());
        EXPECT_EQ(rowsOf[configurationLabel(run)], ops->rows.size()) << configurationLabel(run);
    }
    EXPECT_GT(rowsOf["model=norm"], 0u);
    const std::string svg = renderToSvg(*sp.plot, *sp.prepared, sp.values, QSize(1200, 700)).toStdString();
    EXPECT_NE(svg.find(">configuration<"), std::string::npos) << "the picture has the configuration column";
}

// Each series is named by what its source measures (README, memory timeline): smi → "used (nvidia-smi)", an allocation
// trace → "live allocations (rocprofv3)" / "(nsys)"; only Kineto's series come with the allocated/reserved key.
TEST(EfficiencyMemoryPlots, MemoryTimelineNamesEachSourcesSeries) {
    const Plot* plot = PlotRegistry::instance().find("memory-timeline");
    ASSERT_NE(plot, nullptr);
    const std::pair<const char*, const char*> cases[] = {
        {"/telemetry/nvidia-smi/v100s_gpu_log.csv", "cuda:0 used (nvidia-smi)"},
        {"/rocprof/docs-2025/memory_allocation_trace.csv", "agent:0 live allocations (rocprofv3)"},
        {"/sqlite/nsys_memory_usage.sqlite", "cuda:0 live allocations (nsys)"},
        {"/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz", "reserved"}};
    for (const auto& [rel, label] : cases) {
        SCOPED_TRACE(rel);
        core::RunLoadOptions o;
        o.useCache = false;
        auto ds = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + rel}, o);
        ASSERT_TRUE(ds.ok());
        const RunSet runs{RunEntry{"src", ds.value(), {}}};
        ParamValues values;
        const PreparedPtr prepared = prepareOn(*plot, runs, values);
        ASSERT_TRUE(prepared);
        const std::string svg = renderToSvg(*plot, *prepared, values, QSize(1000, 600)).toStdString();
        EXPECT_NE(svg.find(std::string(">") + label + "<"), std::string::npos) << label;
        const bool kineto = std::string(rel).find("kineto") != std::string::npos;
        EXPECT_EQ(svg.find(">allocated<") != std::string::npos, kineto) << "the allocated/reserved key is Kineto's";
    }
}
