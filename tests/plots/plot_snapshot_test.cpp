// Every registered plot on five real inputs of tests/data, with its default parameters, against the picture (SVG
// text, 1000x600) and the table (CSV) that strobe-cli wrote for it before the plots moved onto the typed plot base
// (issue 32): tests/data/expected/plot_snapshots/ and its make_snapshots.sh. A plot with no expected files fails:
// every registered plot is covered. To see a difference: run make_snapshots.sh with this build's strobe-cli into a
// scratch directory and diff.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <QCryptographicHash>

#include "core/engine/run_loader.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;
namespace fs = std::filesystem;

namespace {

const std::string kSnapshotDir = std::string(STROBE_TEST_DATA_DIR) + "/expected/plot_snapshots";

core::DatasetPtr loadSnapshotInput(const std::string& rel) {
    core::RunLoadOptions o;
    o.useCache = false;  // tests never write to the user's cache
    auto r = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/" + rel}, o);
    EXPECT_TRUE(r.ok()) << rel << ": " << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : nullptr;
}

std::string readSnapshotFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// `got` against the expected file `path`, or against its SHA-256 (`path`.sha256, written for files over 100 KB).
void expectSnapshot(const std::string& got, const fs::path& path) {
    if (fs::exists(path)) {
        const std::string want = readSnapshotFile(path);
        if (got == want) return;
        // Say where they part (the files are long): the line number and both lines.
        size_t line = 1, at = 0;
        while (at < got.size() && at < want.size() && got[at] == want[at]) line += got[at++] == '\n';
        auto lineAt = [&](const std::string& s) {
            const size_t start = s.rfind('\n', at == 0 ? 0 : at - 1);
            const size_t from = start == std::string::npos ? 0 : start + 1;
            return s.substr(from, std::min<size_t>(s.find('\n', from) - from, 300));
        };
        ADD_FAILURE() << path << " differs at line " << line << ":\n  expected: " << lineAt(want)
                      << "\n  got:      " << lineAt(got);
        return;
    }
    const fs::path hashPath = path.string() + ".sha256";
    ASSERT_TRUE(fs::exists(hashPath)) << "no snapshot: " << path;
    std::string want = readSnapshotFile(hashPath);
    while (!want.empty() && (want.back() == '\n' || want.back() == ' ')) want.pop_back();
    const QByteArray hash =
        QCryptographicHash::hash(QByteArray::fromStdString(got), QCryptographicHash::Sha256).toHex();
    EXPECT_EQ(hash.toStdString(), want) << path;
}

// The five inputs of make_snapshots.sh, labelled as strobe-cli labels them (--label NAME; the sweep's runs by
// their configuration and repeat, in discovery order).
struct SnapshotInput {
    std::string name;
    RunSet runs;
};

std::vector<SnapshotInput> snapshotInputs() {
    std::vector<SnapshotInput> in;
    in.push_back({"trace-filter", {RunEntry{"trace-filter", loadSnapshotInput("kineto/hta/trace_filter"), {}}}});
    RunSet sweep;  // strobe-cli --sweep: the runs of kineto-configs found by their directory names
    for (const char* workers : {"0", "4"})
        sweep.push_back(
            RunEntry{std::string("resnet50_num_workers=") + workers + " #0",
                     loadSnapshotInput(std::string("kineto/kineto-configs/resnet50_num_workers_") + workers),
                     {{"resnet50_num_workers", workers}}});
    in.push_back({"resnet-sweep", sweep});
    in.push_back({"seismic", {RunEntry{"seismic", loadSnapshotInput("rocprof/seismic_128x64.xr"), {}}}});
    in.push_back(
        {"cpu-sampler", {RunEntry{"cpu-sampler", loadSnapshotInput("telemetry/strobe/cpu_sampler_2core.csv"), {}}}});
    in.push_back(
        {"nvidia-smi", {RunEntry{"nvidia-smi", loadSnapshotInput("telemetry/nvidia-smi/v100s_gpu_log.csv"), {}}}});
    return in;
}

}  // namespace

TEST(PlotSnapshots, EveryPlotDrawsAndTabulatesAsBefore) {
    const auto inputs = snapshotInputs();
    const auto plots = PlotRegistry::instance().plots();
    ASSERT_GE(plots.size(), 30u);
    size_t compared = 0;
    for (const auto& input : inputs) {
        for (const auto& run : input.runs) ASSERT_TRUE(run.dataset) << input.name;
        for (const auto* plot : plots) {
            SCOPED_TRACE(input.name + " / " + plot->id());
            const fs::path base = fs::path(kSnapshotDir) / input.name / plot->id();
            auto values = resolveValues(plot->parameters(input.runs), {});
            ASSERT_TRUE(values.ok()) << values.error().toString();
            auto prepared = plot->prepare(input.runs, *values, {}, {});
            ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
            std::ostringstream csv;
            plot->table(**prepared, *values).writeCsv(csv);
            expectSnapshot(csv.str(), base.string() + ".csv");
            const QByteArray svg = renderToSvg(*plot, **prepared, *values, QSize(1000, 600));
            expectSnapshot(svg.toStdString(), base.string() + ".svg");
            ++compared;
        }
    }
    EXPECT_EQ(compared, inputs.size() * plots.size());
}

// Timeline navigation is an interface a plot may offer (Plot::timeline()): the GPU timeline does, no other plot.
TEST(PlotSnapshots, OnlyTheTimelineOffersNavigation) {
    for (const auto* plot : PlotRegistry::instance().plots()) {
        EXPECT_EQ(plot->timeline() != nullptr, plot->id() == "gpu-timeline") << plot->id();
        EXPECT_EQ(plot->isTimeline(), plot->timeline() != nullptr) << plot->id();
        EXPECT_EQ(plot->drawsTitle(), plot->timeline() == nullptr) << plot->id();
    }
}
