#include "core/analysis/gemm_flops.h"

#include <simdjson.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/io/csv_reader.h"

namespace strobe::core {

namespace {

constexpr std::array<std::string_view, 6> kGemmOps{"aten::mm",     "aten::addmm",  "aten::bmm",
                                                   "aten::baddbmm", "aten::linear", "aten::matmul"};

double product(const std::vector<int64_t>& d, size_t from, size_t to) {
    double p = 1;
    for (size_t i = from; i < to && i < d.size(); ++i) p *= double(d[i]);
    return p;
}

double elements(const std::vector<int64_t>& d) { return product(d, 0, d.size()); }

struct Mnk {
    double batch = 1, m = 0, n = 0, k = 0;
    double outElements = 0;
};

// a [..., M, K] x b [..., K, N] with numpy broadcasting of the batch dims; a 1-D operand is a vector.
std::optional<Mnk> matmulShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    if (a.empty() || b.empty()) return std::nullopt;
    Mnk s;
    const int64_t ka = a.back();
    const int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
    if (ka != kb) return std::nullopt;
    s.k = double(ka);
    s.m = a.size() == 1 ? 1 : double(a[a.size() - 2]);
    s.n = b.size() == 1 ? 1 : double(b.back());
    const size_t ba = a.size() > 2 ? a.size() - 2 : 0, bb = b.size() > 2 ? b.size() - 2 : 0;
    const size_t nb = std::max(ba, bb);
    for (size_t i = 0; i < nb; ++i) {  // aligned from the right
        const int64_t da = i < ba ? a[ba - 1 - i] : 1, db = i < bb ? b[bb - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) return std::nullopt;
        s.batch *= double(std::max(da, db));
    }
    s.outElements = s.batch * s.m * s.n;
    return s;
}

std::optional<Mnk> shapeOf(std::string_view op, const std::vector<std::vector<int64_t>>& d, double& operandElements) {
    auto need = [&](size_t i, size_t rank) { return d.size() > i && d[i].size() == rank; };
    Mnk s;
    if (op == "aten::mm" || op == "aten::addmm") {
        const size_t a = op == "aten::mm" ? 0 : 1;
        if (!need(a, 2) || !need(a + 1, 2) || d[a][1] != d[a + 1][0]) return std::nullopt;
        s.m = double(d[a][0]), s.k = double(d[a][1]), s.n = double(d[a + 1][1]);
        operandElements = elements(d[a]) + elements(d[a + 1]);
    } else if (op == "aten::bmm" || op == "aten::baddbmm") {
        const size_t a = op == "aten::bmm" ? 0 : 1;
        if (!need(a, 3) || !need(a + 1, 3) || d[a][0] != d[a + 1][0] || d[a][2] != d[a + 1][1]) return std::nullopt;
        s.batch = double(d[a][0]), s.m = double(d[a][1]), s.k = double(d[a][2]), s.n = double(d[a + 1][2]);
        operandElements = elements(d[a]) + elements(d[a + 1]);
    } else if (op == "aten::linear") {
        if (d.size() < 2 || d[0].empty() || !need(1, 2) || d[0].back() != d[1][1]) return std::nullopt;
        s.m = product(d[0], 0, d[0].size() - 1), s.k = double(d[0].back()), s.n = double(d[1][0]);
        operandElements = elements(d[0]) + elements(d[1]);
    } else if (op == "aten::matmul") {
        if (d.size() < 2) return std::nullopt;
        auto m = matmulShape(d[0], d[1]);
        if (m) operandElements = elements(d[0]) + elements(d[1]);
        return m;
    } else {
        return std::nullopt;
    }
    s.outElements = s.batch * s.m * s.n;
    return s;
}

}  // namespace

std::string gemmDtypeOf(std::string_view t) {
    std::string s;
    for (char c : t) s += char(std::tolower(static_cast<unsigned char>(c)));
    if (s.rfind("c10::", 0) == 0) s = s.substr(5);
    if (s == "double") return "fp64";
    if (s == "float") return "fp32";
    if (s == "half") return "fp16";
    if (s == "bfloat16") return "bf16";
    if (s.rfind("float8", 0) == 0) return "fp8";
    return {};
}

size_t gemmDtypeBytes(std::string_view dtype) {
    if (dtype == "fp64") return 8;
    if (dtype == "fp16" || dtype == "bf16") return 2;
    if (dtype == "fp8") return 1;
    return 4;
}

namespace {

// [[64, 256], [], [256, 512]] → the shapes; nullopt when it is not a list of lists of integers.
std::optional<std::vector<std::vector<int64_t>>> dimsOf(simdjson::dom::element list) {
    simdjson::dom::array outer;
    if (list.get_array().get(outer) != simdjson::SUCCESS) return std::nullopt;
    std::vector<std::vector<int64_t>> dims;
    for (simdjson::dom::element e : outer) {
        std::vector<int64_t> d;
        simdjson::dom::array a;
        if (e.get_array().get(a) == simdjson::SUCCESS)
            for (simdjson::dom::element x : a) {
                int64_t v = 0;
                if (x.get_int64().get(v) != simdjson::SUCCESS) return std::nullopt;
                d.push_back(v);
            }
        dims.push_back(std::move(d));
    }
    return dims;
}

}  // namespace

bool isGemmOp(std::string_view opName) {
    return std::find(kGemmOps.begin(), kGemmOps.end(), opName) != kGemmOps.end();
}

std::optional<GemmCost> gemmCost(std::string_view opName, const std::vector<std::vector<int64_t>>& dims,
                                 const std::vector<std::string>& types) {
    double operandElements = 0;
    auto s = shapeOf(opName, dims, operandElements);
    if (!s || s->m <= 0 || s->n <= 0 || s->k <= 0 || s->batch <= 0) return std::nullopt;
    GemmCost c;
    c.flops = 2 * s->batch * s->m * s->n * s->k;
    const size_t first = (opName == "aten::addmm" || opName == "aten::baddbmm") ? 1 : 0;
    if (types.size() > first) c.dtype = gemmDtypeOf(types[first]);
    c.bytes = (operandElements + s->outElements) * double(gemmDtypeBytes(c.dtype));
    return c;
}

std::optional<GemmCost> gemmCostOfArgs(std::string_view opName, std::string_view argsJson) {
    if (argsJson.find("Input Dims") == std::string_view::npos) return std::nullopt;
    simdjson::dom::parser parser;
    simdjson::padded_string text(argsJson);
    simdjson::dom::object obj;
    if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) return std::nullopt;
    simdjson::dom::element dimsList;
    if (obj.at_key("Input Dims").get(dimsList) != simdjson::SUCCESS) return std::nullopt;
    auto dims = dimsOf(dimsList);
    if (!dims) return std::nullopt;
    std::vector<std::string> types;
    simdjson::dom::array typeList;
    if (obj.at_key("Input type").get_array().get(typeList) == simdjson::SUCCESS)
        for (simdjson::dom::element e : typeList) {
            std::string_view t;
            types.emplace_back(e.get_string().get(t) == simdjson::SUCCESS ? std::string(t) : std::string());
        }
    return gemmCost(opName, *dims, types);
}

GemmOps gemmOps(const RankData& rank) {
    GemmOps out;
    const auto& s = rank.slices;
    const auto& steps = rank.steps;
    std::map<StrId, bool> gemmName;  // interned name → is a counted GEMM op
    auto isGemm = [&](uint32_t i) {
        auto [it, added] = gemmName.try_emplace(s.name[i], false);
        if (added) it->second = isGemmOp(rank.strings.view(s.name[i]));
        return it->second;
    };
    for (uint32_t i = 0; i < s.size(); ++i) {
        if (s.kind[i] != EventKind::CpuOp || !isGemm(i)) continue;
        bool nested = false;
        for (int32_t p = i < s.parent.size() ? s.parent[i] : -1; p >= 0 && !nested; p = s.parent[size_t(p)])
            nested = isGemm(uint32_t(p));
        if (nested) continue;
        auto cost = gemmCostOfArgs(rank.strings.view(s.name[i]), rank.strings.view(s.args[i]));
        if (!cost) {
            ++out.withoutShapes;
            continue;
        }
        GemmOp op;
        op.slice = i;
        op.cost = std::move(*cost);
        // The step whose [start, end) holds the op's start (steps are sorted by start and do not overlap).
        auto it = std::upper_bound(steps.start.begin(), steps.start.end(), s.ts[i]);
        if (it != steps.start.begin()) {
            const size_t k = size_t(it - steps.start.begin()) - 1;
            if (s.ts[i] < steps.end[k]) op.step = int32_t(k);
        }
        out.ops.push_back(std::move(op));
    }
    return out;
}

std::string opShapesPathOf(std::string_view tracePath) {
    namespace fs = std::filesystem;
    const fs::path p{std::string(tracePath)};
    std::string name = p.filename().string();
    for (std::string_view suffix : {"_trace.json.gz", "_trace.json"})
        if (name.starts_with("rank") && name.ends_with(suffix) && name.size() > 4 + suffix.size()) {
            const std::string rank = name.substr(4, name.size() - 4 - suffix.size());
            if (!std::all_of(rank.begin(), rank.end(), [](unsigned char c) { return std::isdigit(c); })) return {};
            return (p.parent_path() / ("rank" + rank + "_op_shapes.csv")).string();
        }
    return {};
}

Result<OpShapesGemm> parseOpShapesGemm(std::string_view csvText, const std::string& path) {
    CsvReader csv(csvText, path);
    if (Status s = csv.readHeader(); !s) return s.error();
    const int name = csv.column("name"), shapes = csv.column("input_shapes"), calls = csv.column("calls");
    if (name < 0 || shapes < 0 || calls < 0)
        return Error(Location{path}, "not a strobe_torch op-shapes table (needs name, input_shapes, calls columns)");
    OpShapesGemm out;
    out.path = path;
    simdjson::dom::parser parser;
    while (true) {
        auto more = csv.next();
        if (!more) return more.error();
        if (!*more) break;
        const std::string_view op = csv.field(name);
        const auto n = csv.toInt(calls);
        if (!n || *n < 0) return csv.error(fmt::format("calls '{}' is not a count", csv.field(calls)));
        if (op == "ProfilerStep*") out.profilerSteps = *n;
        // linear and matmul call mm/addmm/bmm, which have rows of their own: counted there.
        if (!isGemmOp(op) || op == "aten::linear" || op == "aten::matmul") continue;
        simdjson::padded_string text(csv.field(shapes));
        simdjson::dom::element list;
        std::optional<std::vector<std::vector<int64_t>>> dims;
        if (parser.parse(text).get(list) == simdjson::SUCCESS) dims = dimsOf(list);
        if (!dims) return csv.error(fmt::format("input_shapes '{}' is not a JSON list of shapes", csv.field(shapes)));
        const auto cost = gemmCost(op, *dims, {});
        if (!cost) {
            ++out.unusable;
            continue;
        }
        out.flops += cost->flops * double(*n);
        out.bytes += cost->bytes * double(*n);
        out.calls += *n;
    }
    return out;
}

std::optional<Result<OpShapesGemm>> opShapesGemmOf(const RankData& rank) {
    const std::string path = opShapesPathOf(rank.path);
    std::error_code ec;
    if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) return Result<OpShapesGemm>(Error(Location{path}, "cannot read the op-shapes table"));
    return parseOpShapesGemm(text.str(), path);
}

namespace {

// The op-shapes table's totals spread evenly over the steps (see gemmFlopsPerStep).
void spreadOpShapes(const RankData& rank, std::vector<StepGemmFlops>& out, std::string* note) {
    auto table = opShapesGemmOf(rank);
    if (!table) return;
    if (!*table) {
        if (note) *note = fmt::format("rank {}: {}", rank.rank, table->error().toString());
        return;
    }
    const OpShapesGemm& t = **table;
    if (t.calls == 0) return;
    const int64_t steps = t.profilerSteps > 0 ? t.profilerSteps : int64_t(out.size());
    for (auto& s : out) {
        s.flops = t.flops / double(steps);
        s.bytes = t.bytes / double(steps);
        s.ops = size_t(std::llround(double(t.calls) / double(steps)));
        s.fromOpShapes = true;
    }
    if (note)
        *note = fmt::format("rank {}: GEMM FLOPs from {} (the trace records no input shapes): {} GEMM calls, "
                            "{:.6g} FLOPs in total over the {} profiled steps, divided evenly: each step shows the "
                            "average",
                            rank.rank, t.path, t.calls, t.flops, steps);
}

}  // namespace

std::vector<StepGemmFlops> gemmFlopsPerStep(const RankData& rank, std::string* note) {
    std::vector<StepGemmFlops> out(rank.steps.size());
    std::vector<std::map<std::string, double>> byType(out.size());
    for (size_t k = 0; k < out.size(); ++k) {
        out[k].step = rank.steps.number[k];
        out[k].start = rank.steps.start[k];
        out[k].end = rank.steps.end[k];
    }
    const GemmOps ops = gemmOps(rank);
    if (ops.ops.empty() && !out.empty()) {
        spreadOpShapes(rank, out, note);
        return out;
    }
    for (const auto& op : ops.ops) {
        if (op.step < 0) continue;
        auto& st = out[size_t(op.step)];
        st.flops += op.cost.flops;
        st.bytes += op.cost.bytes;
        st.ops += 1;
        byType[size_t(op.step)][op.cost.dtype] += op.cost.flops;
    }
    for (size_t k = 0; k < out.size(); ++k) {
        double best = -1;
        for (const auto& [t, f] : byType[k])
            if (f > best) best = f, out[k].dtype = t;
    }
    return out;
}

std::optional<double> peakTflops(const ArchConstants& arch, std::string_view dtype) {
    // Keys differ between vendors in arch_constants.yaml; the first one with a number wins.
    std::vector<std::string_view> keys;
    if (dtype == "fp64") keys = {"fp64_tensor", "fp64_matrix", "fp64", "fp64_vector"};
    else if (dtype == "fp32") keys = {"fp32", "fp32_matrix", "fp32_packed_or_matrix", "fp32_vector"};
    else if (dtype == "tf32") keys = {"tf32_tensor", "tf32_xf32"};
    else if (dtype == "fp16") keys = {"fp16_bf16_matrix", "fp16_bf16_tensor", "fp16_tensor"};
    else if (dtype == "bf16") keys = {"fp16_bf16_matrix", "fp16_bf16_tensor", "bf16_tensor"};
    else if (dtype == "fp8") keys = {"fp8", "fp8_tensor"};
    for (auto k : keys) {
        auto it = arch.values.find("arch.peak_tflops." + std::string(k));
        if (it != arch.values.end() && it->second > 0) return it->second;
    }
    return std::nullopt;
}

}  // namespace strobe::core
