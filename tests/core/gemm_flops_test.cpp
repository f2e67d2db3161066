// GEMM FLOPs from Kineto shapes (core/analysis/gemm_flops): the cost of each op worked by hand in the comments, and
// FLOPs per ProfilerStep on real traces against tests/data/expected/gemm_flops.json (written by gemm_flops.py from
// the JSON with Python's json module).
#include "core/analysis/gemm_flops.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

const std::string kGemmFlopsData = STROBE_TEST_DATA_DIR;

QJsonObject expectedJson() {
    QFile f(QString::fromStdString(kGemmFlopsData + "/expected/gemm_flops.json"));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(f.readAll()).object();
}

DatasetPtr load(const std::string& rel) {
    RunLoadOptions o;
    o.useCache = false;
    auto d = loadRun({kGemmFlopsData + "/" + rel}, o);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().toString());
    return d.ok() ? d.value() : std::make_shared<Dataset>();
}

}  // namespace

TEST(GemmFlops, CostOfEachOpByHand) {
    // mm [32, 1000] x [1000, 2048]: 2·32·2048·1000 = 131,072,000 FLOPs; bytes (32·1000 + 1000·2048 + 32·2048)·4.
    auto mm = gemmCost("aten::mm", {{32, 1000}, {1000, 2048}}, {"float", "float"});
    ASSERT_TRUE(mm);
    EXPECT_DOUBLE_EQ(mm->flops, 131072000.0);
    EXPECT_DOUBLE_EQ(mm->bytes, (32000.0 + 2048000.0 + 65536.0) * 4);
    EXPECT_EQ(mm->dtype, "fp32");
    // addmm: bias first; [M, K] = [10, 512], [K, N] = [512, 1000]: 2·10·1000·512 = 10,240,000, bf16 = 2 bytes.
    auto addmm = gemmCost("aten::addmm", {{1000}, {10, 512}, {512, 1000}, {}, {}},
                          {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"});
    ASSERT_TRUE(addmm);
    EXPECT_DOUBLE_EQ(addmm->flops, 10240000.0);
    EXPECT_EQ(addmm->dtype, "bf16");
    EXPECT_DOUBLE_EQ(addmm->bytes, (5120.0 + 512000.0 + 10000.0) * 2);
    // bmm [1024, 96, 50] x [1024, 50, 8]: 2·1024·96·8·50 = 78,643,200.
    EXPECT_DOUBLE_EQ(gemmCost("aten::bmm", {{1024, 96, 50}, {1024, 50, 8}}, {})->flops, 78643200.0);
    // linear input [1024, 96, 50], weight [15, 50]: M = 1024·96 = 98,304, K = 50, N = 15: 2·98304·15·50 = 147,456,000.
    EXPECT_DOUBLE_EQ(gemmCost("aten::linear", {{1024, 96, 50}, {15, 50}, {15}}, {})->flops, 147456000.0);
    // matmul [1024, 96, 50] x [50, 15]: batch 1024 broadcast against none = the linear above.
    EXPECT_DOUBLE_EQ(gemmCost("aten::matmul", {{1024, 96, 50}, {50, 15}}, {})->flops, 147456000.0);
    // matmul with broadcast batch dims [4, 1, 8, 16] x [3, 16, 2]: batch 4·3 = 12, 2·12·8·2·16 = 6,144.
    EXPECT_DOUBLE_EQ(gemmCost("aten::matmul", {{4, 1, 8, 16}, {3, 16, 2}}, {})->flops, 6144.0);
    // matrix x vector [8, 16] x [16]: 2·8·1·16 = 256.
    EXPECT_DOUBLE_EQ(gemmCost("aten::matmul", {{8, 16}, {16}}, {})->flops, 256.0);
    // Shapes that do not fit the op, and ops that are not GEMMs.
    EXPECT_FALSE(gemmCost("aten::mm", {{32, 1000}, {999, 2048}}, {}));
    EXPECT_FALSE(gemmCost("aten::bmm", {{2, 3, 4}, {3, 4, 5}}, {}));
    EXPECT_FALSE(gemmCost("aten::mm", {{32, 1000}}, {}));
    EXPECT_FALSE(gemmCost("aten::conv2d", {{1, 3, 224, 224}, {64, 3, 7, 7}}, {}));
    EXPECT_FALSE(gemmCostOfArgs("aten::mm", R"({"External id": 3})"));
    EXPECT_FALSE(gemmCostOfArgs("aten::mm", R"({"Input Dims": [[2, "x"], [2, 2]]})"));
    auto fromArgs = gemmCostOfArgs("aten::mm", R"({"Input Dims": [[2, 3], [3, 4]], "Input type": ["c10::Half", "c10::Half"]})");
    ASSERT_TRUE(fromArgs);
    EXPECT_DOUBLE_EQ(fromArgs->flops, 48.0);  // 2·2·4·3
    EXPECT_EQ(fromArgs->dtype, "fp16");
}

TEST(GemmFlops, PeakPerDataTypeFromTheArchTable) {
    auto all = loadArchConstants();
    ASSERT_TRUE(all.ok());
    // Read by hand from resources/arch_constants.yaml.
    const ArchConstants* v100 = findArch(*all, "Tesla V100-DGXS-32GB");
    ASSERT_NE(v100, nullptr);
    EXPECT_DOUBLE_EQ(*peakTflops(*v100, "fp32"), 15.7);
    EXPECT_DOUBLE_EQ(*peakTflops(*v100, "fp16"), 125);
    EXPECT_FALSE(peakTflops(*v100, "bf16"));  // null in the table
    const ArchConstants* mi300 = findArch(*all, "AMD Instinct MI300X");
    ASSERT_NE(mi300, nullptr);
    EXPECT_DOUBLE_EQ(*peakTflops(*mi300, "bf16"), 1307.4);
    EXPECT_DOUBLE_EQ(*peakTflops(*mi300, "fp32"), 163.4);
    const ArchConstants* a100 = findArch(*all, "NVIDIA A100-PG509-200");
    ASSERT_NE(a100, nullptr);
    EXPECT_DOUBLE_EQ(*peakTflops(*a100, "tf32"), 156);
}

TEST(GemmFlops, PerStepOnRealTracesMatchesPython) {
    const QJsonObject want = expectedJson();
    const std::map<std::string, std::string> files{
        {"resnet50", "kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"},
        {"dlrm_a100", "kineto/hta/distributed_info_unavailable/distributed_info_not_found.json.gz"},
        {"mi300x", "kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz"}};
    for (const auto& [key, rel] : files) {
        SCOPED_TRACE(key);
        auto d = load(rel);
        ASSERT_EQ(d->ranks.size(), 1u);
        const RankData& r = *d->ranks.front();
        const QJsonObject w = want[QString::fromStdString(key)].toObject();
        EXPECT_EQ(gemmOps(r).ops.size(), size_t(w["outermost_ops"].toInt()));
        const auto steps = gemmFlopsPerStep(r);
        const QJsonArray ws = w["steps"].toArray();
        ASSERT_EQ(steps.size(), size_t(ws.size()));
        for (qsizetype i = 0; i < ws.size(); ++i) {
            const QJsonObject s = ws[i].toObject();
            EXPECT_EQ(steps[size_t(i)].step, s["step"].toInteger());
            EXPECT_EQ(steps[size_t(i)].ops, size_t(s["ops"].toInt()));
            EXPECT_DOUBLE_EQ(steps[size_t(i)].flops, s["flops"].toDouble());
            EXPECT_DOUBLE_EQ(steps[size_t(i)].bytes, s["bytes"].toDouble());
            // Step durations: µs in the JSON (fractional in the MI300X trace), ns in Strobe.
            EXPECT_NEAR(double(steps[size_t(i)].end - steps[size_t(i)].start), s["dur_us"].toDouble() * 1000, 1.0);
        }
    }
}

// The legacy autograd trace (Debian's torch 1.13, no Kineto) records no "Input Dims": its GEMM FLOPs come from the
// op-shapes table strobe_torch writes beside it. tests/data/torch-op-shapes/mlp_cpu: train_mlp.py run under the
// contract (see SOURCES.md). Expected, from the CSV's mm/addmm rows (2·M·N·K × calls; linear is not counted again):
//   python3 -c "import csv,json; rows=list(csv.DictReader(open('rank0_op_shapes.csv')));
//     f=sum(2*(s[0][0]*s[0][1]*s[1][1] if r['name']=='aten::mm' else s[1][0]*s[1][1]*s[2][1])*int(r['calls'])
//           for r in rows for s in [json.loads(r['input_shapes'])] if r['name'] in ('aten::mm','aten::addmm'));
//     print(f, f/3)"  -> 106561536 35520512.0 (3 = the ProfilerStep* row's calls: the active steps)
// addmm 64x256·256x512 and 64x512·512x10, mm 64x10·10x512, 10x64·64x512, 512x64·64x256, 3 calls each: 15 calls.
TEST(GemmFlops, LegacyTraceTakesItsGemmsFromTheOpShapesTable) {
    auto ds = load("torch-op-shapes/mlp_cpu");
    ASSERT_EQ(ds->ranks.size(), 1u);
    const RankData& r = *ds->ranks[0];
    EXPECT_EQ(opShapesPathOf(r.path), kGemmFlopsData + "/torch-op-shapes/mlp_cpu/rank0_op_shapes.csv");
    EXPECT_TRUE(gemmOps(r).ops.empty());  // the trace's aten::addmm ops carry no shapes
    auto table = opShapesGemmOf(r);
    ASSERT_TRUE(table.has_value());
    ASSERT_TRUE(table->ok()) << table->error().toString();
    EXPECT_DOUBLE_EQ((*table)->flops, 106561536.0);
    EXPECT_EQ((*table)->calls, 15);
    EXPECT_EQ((*table)->profilerSteps, 3);
    std::string note;
    const auto steps = gemmFlopsPerStep(r, &note);
    ASSERT_EQ(steps.size(), 3u);
    for (const auto& s : steps) {
        EXPECT_DOUBLE_EQ(s.flops, 35520512.0);
        EXPECT_EQ(s.ops, 5u);
        EXPECT_TRUE(s.fromOpShapes);
    }
    EXPECT_NE(note.find("rank0_op_shapes.csv (the trace records no input shapes): 15 GEMM calls"), std::string::npos)
        << note;
    EXPECT_NE(note.find("over the 3 profiled steps, divided evenly"), std::string::npos) << note;
}

TEST(GemmFlops, OpShapesTableNamesAndErrors) {
    EXPECT_EQ(opShapesPathOf("/r/torch/rank12_trace.json.gz"), "/r/torch/rank12_op_shapes.csv");
    EXPECT_EQ(opShapesPathOf("/r/torch/trace.json"), "");
    EXPECT_EQ(opShapesPathOf("/r/torch/rankX_trace.json"), "");
    // bmm [4, 8, 16] x [4, 16, 32]: 2·4·8·32·16 = 32768 per call, 2 calls; linear is skipped (its addmm counts).
    auto ok = parseOpShapesGemm("name,input_shapes,calls,cpu_time_total_us\n"
                                "aten::bmm,\"[[4, 8, 16], [4, 16, 32]]\",2,10\n"
                                "aten::linear,\"[[4, 16], [32, 16], [32]]\",7,10\n"
                                "aten::mm,\"[[4, 5], [6, 7]]\",1,1\n",
                                "s.csv");
    ASSERT_TRUE(ok.ok()) << ok.error().toString();
    EXPECT_DOUBLE_EQ(ok->flops, 65536.0);
    EXPECT_EQ(ok->calls, 2);
    EXPECT_EQ(ok->unusable, 1u);  // inner dimensions 5 and 6 differ
    auto bad = parseOpShapesGemm("name,input_shapes,calls,cpu_time_total_us\naten::mm,\"[[1, 2], [2, 3]]\",1,1\n"
                                 "aten::mm,\"[[1, 2], oops]\",1,1\n",
                                 "b.csv");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().where.file, "b.csv");
    EXPECT_EQ(bad.error().where.row, 2);
    EXPECT_NE(bad.error().message.find("not a JSON list of shapes"), std::string::npos);
    auto calls = parseOpShapesGemm("name,input_shapes,calls\naten::mm,\"[[1, 2], [2, 3]]\",-1\n", "c.csv");
    ASSERT_FALSE(calls.ok());
    EXPECT_NE(calls.error().message.find("calls '-1' is not a count"), std::string::npos);
    EXPECT_FALSE(parseOpShapesGemm("a,b\n1,2\n", "d.csv").ok());
}

// On a real CUDA capture (tests/data/cuda/sweep/*/rep*/torch: Kineto traces from an H200 with Input Dims, and the
// op-shapes table strobe_torch wrote beside each), both ways of counting GEMM FLOPs agree: the trace's outermost
// GEMM ops with shapes, and the table's mm/addmm/bmm rows (the same profiled window). Skipped where that capture is
// absent. Checked by hand on batch=32/rep1 with python3 (sum of 2·M·N·K × calls over the CSV's mm/addmm rows, and
// over the trace's aten::mm/addmm cpu_op events with "Input Dims"): both 9,895,604,649,984.
TEST(GemmFlops, OpShapesTableAgreesWithInputDimsOnARealCudaCapture) {
    namespace fs = std::filesystem;
    const fs::path sweep = kGemmFlopsData + "/cuda/sweep";
    std::error_code ec;
    if (!fs::is_directory(sweep, ec)) GTEST_SKIP() << "no CUDA capture in tests/data/cuda";
    size_t checked = 0;
    for (const auto& point : fs::directory_iterator(sweep, ec))
        for (const auto& rep : fs::directory_iterator(point.path(), ec)) {
            const fs::path torch = rep.path() / "torch";
            if (!fs::exists(torch / "rank0_op_shapes.csv", ec)) continue;
            RunLoadOptions o;
            o.useCache = false;
            auto ds = loadRun({torch.string()}, o);
            ASSERT_TRUE(ds.ok()) << ds.error().toString();
            for (const auto& r : (*ds)->ranks) {
                if (r->path.find("rank0_trace") == std::string::npos) continue;
                double fromTrace = 0;
                for (const auto& op : gemmOps(*r).ops) fromTrace += op.cost.flops;
                auto table = opShapesGemmOf(*r);
                ASSERT_TRUE(table && table->ok()) << torch;
                EXPECT_GT(fromTrace, 0) << torch;
                EXPECT_NEAR((*table)->flops, fromTrace, 1e-9 * fromTrace) << torch;
                ++checked;
            }
        }
    EXPECT_GT(checked, 0u);
}
