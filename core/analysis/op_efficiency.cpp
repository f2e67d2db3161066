#include "core/analysis/op_efficiency.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/analysis/columns.h"
#include "core/analysis/derived_metrics.h"
#include "core/analysis/gemm_flops.h"

namespace strobe::core {

namespace {

std::string shapesText(const OpArgs& a) {
    std::string out = "[";
    for (size_t i = 0; i < a.dims.size(); ++i) {
        if (i < a.lists.size() && !a.lists[i].empty()) {  // a TensorList: each tensor's dims
            out += i ? ", [" : "[";
            for (size_t k = 0; k < a.lists[i].size(); ++k)
                out += fmt::format("{}[{}]", k ? ", " : "", fmt::join(a.lists[i][k], ", "));
            out += "]";
            continue;
        }
        out += fmt::format("{}[{}]", i ? ", " : "", fmt::join(a.dims[i], ", "));
    }
    return out + "]";
}

// Per kernel: the outermost modelled CPU op above it (-1 when none) and the innermost CPU op above it (-1: none).
struct KernelOwner {
    int32_t instance = -1, inner = -1;
};

class OwnerFinder {
public:
    static constexpr int kMaxNesting = 1024;
    explicit OwnerFinder(const RankData& r) : m_r(r), m_modelled(r.strings.size(), -1) {}
    KernelOwner operator()(int32_t cpuOp) {
        KernelOwner o;
        const SliceTable& s = m_r.slices;
        // A parent chain is a call stack: never longer than kMaxNesting, always inside the table. A damaged one (a
        // cycle, an index past the end: a corrupt load cache) ends the walk instead of looping.
        int steps = 0;
        for (int32_t p = cpuOp; p >= 0 && size_t(p) < s.size() && steps < kMaxNesting; p = s.parent[size_t(p)], ++steps) {
            if (s.kind[size_t(p)] != EventKind::CpuOp) continue;
            if (o.inner < 0) o.inner = p;
            if (modelled(s.name[size_t(p)])) o.instance = p;
        }
        return o;
    }

private:
    bool modelled(StrId name) {
        if (name >= m_modelled.size()) return false;
        int8_t& c = m_modelled[name];
        if (c < 0) c = opFamily(m_r.strings.view(name)).empty() ? 0 : 1;
        return c == 1;
    }
    const RankData& m_r;
    std::vector<int8_t> m_modelled;
};

// Why an op without a model has none: ops whose recorded shapes cannot give their FLOPs say so.
std::string unmodelledReason(const std::string& op) {
    if (op == "vllm::unified_attention_with_output")
        return "its shapes hold no per-sequence query and KV lengths, which its FLOPs need";
    return "no model for " + op + " or the ops above it";
}

}  // namespace

OpEfficiency opEfficiency(const RankData& r) {
    OpEfficiency out;
    const GpuTable& g = r.gpu;
    const bool links = g.cpuOp.size() == g.size() && r.slices.parent.size() == r.slices.size();
    std::map<uint32_t, std::pair<int64_t, TimeNs>> instances;      // slice → kernels, ns
    std::map<std::pair<std::string, std::string>, UnmodelledOp> unmodelled;  // (op, why)
    auto addUnmodelled = [&](std::string op, std::string why, int64_t kernels, TimeNs ns) {
        UnmodelledOp& u = unmodelled[{op, why}];
        u.op = std::move(op), u.why = std::move(why);
        u.kernels += kernels, u.kernelNs += ns;
    };
    OwnerFinder owner(r);
    for (uint32_t i = 0; i < g.size(); ++i) {
        if (g.kind[i] != EventKind::Kernel) continue;
        const TimeNs ns = std::max<TimeNs>(g.dur[i], 0);
        out.totalKernelNs += ns;
        const int32_t op = links ? g.cpuOp[i] : -1;
        const KernelOwner o = op >= 0 ? owner(op) : KernelOwner{};
        if (o.instance >= 0) {
            auto& [k, t] = instances[uint32_t(o.instance)];
            k += 1, t += ns;
        } else if (htaKernelType(r.strings.view(g.name[i])) == HtaType::Communication) {
            addUnmodelled("(communication)", "collective kernels have no FLOP model", 1, ns);
        } else if (o.inner >= 0) {
            const std::string name(r.strings.view(r.slices.name[size_t(o.inner)]));
            addUnmodelled(name, unmodelledReason(name), 1, ns);
        } else if (!links) {
            addUnmodelled("(no CPU op)", "the trace has no launch links", 1, ns);
        } else {
            const int32_t rt = g.runtime.size() == g.size() ? g.runtime[i] : -1;
            const bool graph = rt >= 0 && r.strings.view(r.slices.name[size_t(rt)]).find("GraphLaunch") != std::string_view::npos;
            addUnmodelled("(no CPU op)",
                          graph ? "replayed by a graph launch: no operator, no shapes"
                                : rt >= 0 ? "launched outside every CPU op" : "no launching runtime call",
                          1, ns);
        }
    }
    for (const auto& [slice, kt] : instances) {
        const std::string name(r.strings.view(r.slices.name[slice]));
        auto args = opArgsOf(r.strings.view(r.slices.args[slice]));
        if (!args) {
            addUnmodelled(name, "no Input Dims (record_shapes off)", kt.first, kt.second);
            continue;
        }
        OpModelResult m = opCost(name, *args);
        if (!m.cost) {
            addUnmodelled(name, m.why, kt.first, kt.second);
            continue;
        }
        out.ops.push_back({slice, std::move(*m.cost), shapesText(*args), kt.first, kt.second});
        out.modelledKernelNs += kt.second;
    }
    for (auto& [key, u] : unmodelled) out.unmodelled.push_back(std::move(u));
    std::stable_sort(out.unmodelled.begin(), out.unmodelled.end(),
                     [](const UnmodelledOp& a, const UnmodelledOp& b) { return a.kernelNs > b.kernelNs; });
    return out;
}

namespace {

const EnumParam kOpsGroupBy = EnumParam{"group-by", "group-by",
                                        "instance (one row per operator instance) or shape (per operator, shapes and "
                                        "data type: sums over its instances)",
                                        "instance"}
                                  .choices({"instance", "shape"});

namespace oc {
inline constexpr ColumnKey kOp{"op"};
inline constexpr ColumnKey kFamily{"family"};
inline constexpr ColumnKey kShapes{"shapes"};
inline constexpr ColumnKey kDtype{"dtype"};
inline constexpr ColumnKey kFlops{"flops"};
inline constexpr ColumnKey kBytes{"bytes"};
inline constexpr ColumnKey kInstances{"instances"};
inline constexpr ColumnKey kKernels{"kernels"};
inline constexpr ColumnKey kKernelNs{"kernel_ns"};
inline constexpr ColumnKey kTflops{"tflops_per_s"};
inline constexpr ColumnKey kTbs{"tb_per_s"};
inline constexpr ColumnKey kIntensity{"intensity"};
inline constexpr ColumnKey kPeakPct{"peak_pct"};
inline constexpr ColumnKey kBound{"bound"};
inline constexpr ColumnKey kTs{"ts_ns"};
}  // namespace oc

const std::vector<std::string>& opsColumns() {
    static const std::vector<std::string> c =
        columnNames({col::kRank, oc::kOp, oc::kFamily, oc::kShapes, oc::kDtype, oc::kFlops, oc::kBytes, oc::kInstances,
                     oc::kKernels, oc::kKernelNs, oc::kTflops, oc::kTbs, oc::kIntensity, oc::kPeakPct, oc::kBound,
                     oc::kTs});
    return c;
}

const ArchConstants* opsArchOf(const RankData& r) {
    static const std::vector<ArchConstants> archs = [] {
        auto a = loadArchConstants();
        return a ? std::move(a.value()) : std::vector<ArchConstants>{};
    }();
    return r.info.devices.empty() ? nullptr : findArch(archs, r.info.devices.front());
}

struct OpsRow {
    std::string op, family, shapes, dtype;
    double flops = 0, bytes = 0;
    int64_t instances = 0, kernels = 0;
    TimeNs kernelNs = 0, ts = 0;
};

void addOpsRow(Table& t, int rank, const OpsRow& o, const ArchConstants* arch) {
    Cell tflops, tbs, intensity, peak, bound;
    if (o.kernelNs > 0) {
        tflops = o.flops / double(o.kernelNs) / 1000.0;
        tbs = o.bytes / double(o.kernelNs) / 1000.0;
    }
    if (o.bytes > 0) intensity = o.flops / o.bytes;
    const auto peakT = arch ? peakTflops(*arch, o.dtype.empty() ? "fp32" : o.dtype) : std::nullopt;
    double bw = 0;
    if (arch)
        if (auto it = arch->values.find("arch.hbm_bandwidth_gbs"); it != arch->values.end()) bw = it->second;
    if (peakT && bw > 0 && o.bytes > 0) {
        const double ridge = *peakT * 1e12 / (bw * 1e9);
        const bool compute = o.flops > 0 && o.flops / o.bytes >= ridge;
        bound = std::string(compute ? "compute" : "memory");
        if (o.kernelNs > 0)
            peak = compute ? std::get<double>(tflops) / *peakT * 100.0 : std::get<double>(tbs) * 1000.0 / bw * 100.0;
    }
    t.addRow({int64_t{rank}, o.op, o.family, o.shapes, o.dtype, o.flops, o.bytes, o.instances, o.kernels, o.kernelNs,
              tflops, tbs, intensity, peak, bound, o.ts});
}

std::string modelledMessage(int rank, const OpEfficiency& e) {
    const double pct = e.totalKernelNs > 0 ? 100.0 * double(e.modelledKernelNs) / double(e.totalKernelNs) : 0;
    std::string msg = fmt::format("ops: rank {}: {:.1f} % of GPU kernel time modelled ({} of {} ns)", rank, pct,
                                  e.modelledKernelNs, e.totalKernelNs);
    TimeNs comm = 0;
    for (const UnmodelledOp& u : e.unmodelled)
        if (u.op == "(communication)") comm += u.kernelNs;
    if (comm > 0 && e.totalKernelNs > comm)
        msg += fmt::format(", {:.1f} % of the time of non-communication kernels",
                           100.0 * double(e.modelledKernelNs) / double(e.totalKernelNs - comm));
    if (e.unmodelled.empty()) return msg;
    msg += "; unmodelled:";
    const size_t shown = std::min<size_t>(e.unmodelled.size(), 8);
    for (size_t i = 0; i < shown; ++i) {
        const UnmodelledOp& u = e.unmodelled[i];
        const double p = e.totalKernelNs > 0 ? 100.0 * double(u.kernelNs) / double(e.totalKernelNs) : 0;
        msg += fmt::format("{} {} ({:.1f} %, {} kernels: {})", i ? ";" : "", u.op, p, u.kernels, u.why);
    }
    if (e.unmodelled.size() > shown) msg += fmt::format("; and {} more", e.unmodelled.size() - shown);
    return msg;
}

Result<Table> runOps(AnalysisContext& ctx, const AnalysisRequest& req) {
    const bool byShape = req.get(kOpsGroupBy) == "shape";
    Table t;
    t.columns = opsColumns();
    if (req.window.kind != WindowKind::All)
        t.messages.push_back("ops: every operator instance of the trace is read whatever the window");
    for (size_t ri = 0; ri < ctx.rankCount(); ++ri) {
        const RankData& r = *ctx.dataset().ranks[ri];
        const int rank = ctx.rankNumber(ri);
        const OpEfficiency e = opEfficiency(r);
        if (e.totalKernelNs == 0) {
            t.messages.push_back(fmt::format("ops: rank {} has no GPU kernels", rank));
            continue;
        }
        t.messages.push_back(modelledMessage(rank, e));
        const ArchConstants* arch = opsArchOf(r);
        if (!arch)
            t.messages.push_back(fmt::format("ops: rank {}: GPU '{}' is not in arch_constants.yaml: no peak_pct or "
                                             "bound",
                                             rank, r.info.gpuName()));
        std::map<std::tuple<std::string, std::string, std::string>, OpsRow> groups;
        for (const OpInstance& i : e.ops) {
            OpsRow row;
            row.op = std::string(r.strings.view(r.slices.name[i.slice]));
            row.family = i.cost.family, row.shapes = i.shapes, row.dtype = i.cost.dtype;
            row.flops = i.cost.flops, row.bytes = i.cost.bytes, row.instances = 1, row.kernels = i.kernels;
            row.kernelNs = i.kernelNs, row.ts = r.slices.ts[i.slice];
            if (!byShape) {
                addOpsRow(t, rank, row, arch);
                continue;
            }
            auto [it, added] = groups.try_emplace({row.op, row.shapes, row.dtype}, row);
            if (added) continue;
            OpsRow& gr = it->second;
            gr.flops += row.flops, gr.bytes += row.bytes, gr.instances += 1, gr.kernels += row.kernels;
            gr.kernelNs += row.kernelNs;
        }
        std::vector<OpsRow> rows;
        for (auto& [key, row] : groups) rows.push_back(std::move(row));
        std::stable_sort(rows.begin(), rows.end(), [](const OpsRow& a, const OpsRow& b) { return a.kernelNs > b.kernelNs; });
        for (const OpsRow& row : rows) addOpsRow(t, rank, row, arch);
    }
    return t;
}

}  // namespace

Result<Table> opEfficiencyTable(AnalysisContext& ctx, const AnalysisRequest& request) { return runOps(ctx, request); }

AnalysisInfo opsAnalysisInfo() {
    return AnalysisInfo("ops",
                        "Per operator instance: FLOPs and bytes from recorded shapes, GPU time of its kernels, "
                        "TFLOP/s, TB/s, intensity, % of peak and roofline bound; the share of GPU time modelled",
                        {kOpsGroupBy.spec()}, opsColumns(), runOps);
}

}  // namespace strobe::core
