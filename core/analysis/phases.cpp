#include "core/analysis/phases.h"
#include "core/analysis/columns.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace strobe::core {

namespace {
enum class Marker : uint8_t { None, Forward, Backward, Optimizer };

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

Marker markerOf(std::string_view n) {
    if (startsWith(n, "autograd::engine::evaluate_function:") || startsWith(n, "FSDP::pre_backward") ||
        startsWith(n, "FSDP::post_backward") || n == "FullyShardedDataParallel._pre_backward_hook" ||
        n == "FullyShardedDataParallel._post_backward_hook" || startsWith(n, "## backward"))
        return Marker::Backward;
    if (startsWith(n, "Optimizer.step#") || startsWith(n, "Optimizer.zero_grad#") || startsWith(n, "## optimizer"))
        return Marker::Optimizer;
    if (n == "FullyShardedDataParallel.forward" || startsWith(n, "FSDP::pre_forward") ||
        startsWith(n, "FSDP::root_pre_forward") || startsWith(n, "FSDP::post_forward") || startsWith(n, "## forward"))
        return Marker::Forward;
    return Marker::None;
}

// vLLM: execute_context_C(T)_generation_G(U)
bool parseVllm(std::string_view n, int64_t& ctxReqs, int64_t& genReqs) {
    constexpr std::string_view a = "execute_context_";
    size_t p = n.find(a);
    if (p == std::string_view::npos) return false;
    p += a.size();
    auto num = [&](int64_t& out) {
        auto r = std::from_chars(n.data() + p, n.data() + n.size(), out);
        if (r.ec != std::errc()) return false;
        p = static_cast<size_t>(r.ptr - n.data());
        return true;
    };
    if (!num(ctxReqs)) return false;
    size_t g = n.find("_generation_", p);
    if (g == std::string_view::npos) return false;
    p = g + 12;
    return num(genReqs);
}

bool containsNoCase(std::string_view s, std::string_view needle) {
    auto it = std::search(s.begin(), s.end(), needle.begin(), needle.end(),
                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    return it != s.end();
}

bool isAttention(const RankData& r, uint32_t g, std::string_view n) {
    if (r.gpu.category.size() == r.gpu.size() && r.gpu.size() > 0 && r.gpu.category[g] == KernelCategory::Attention)
        return true;
    return containsNoCase(n, "attn") || containsNoCase(n, "attention") || containsNoCase(n, "fmha") ||
           containsNoCase(n, "flash");
}
bool isGemm(const RankData& r, uint32_t g, std::string_view n) {
    if (r.gpu.category.size() == r.gpu.size() && r.gpu.size() > 0 && r.gpu.category[g] == KernelCategory::Gemm)
        return true;
    return containsNoCase(n, "gemm") || startsWith(n, "Cijk_") || startsWith(n, "nvjet") || containsNoCase(n, "xmma") ||
           containsNoCase(n, "cutlass") || containsNoCase(n, "wvsplitk");
}

// Marker slices, by kind and time.
struct M {
    TimeNs s, e;
    Marker k;
};

// Autograd's own operators as the profiler names them: the engine's nodes ("ConvolutionBackward0",
// "CudnnBatchNormBackward", "ReluBackward1"), the aten backward kernels ("aten::cudnn_batch_norm_backward",
// "aten::_log_softmax_backward_data") and gradient accumulation ("torch::autograd::AccumulateGrad").
bool isAutogradOp(std::string_view n) {
    if (n == "torch::autograd::AccumulateGrad" || n.find("_backward") != std::string_view::npos) return true;
    size_t e = n.size();
    while (e > 0 && n[e - 1] >= '0' && n[e - 1] <= '9') --e;
    constexpr std::string_view kNode = "Backward";
    return e >= kNode.size() && n.substr(e - kNode.size(), kNode.size()) == kNode;
}

// Per slice: 1 when it is backward work, from what the trace holds (see the header): backward annotations,
// autograd operators, the backward ends of fwdbwd flows, and every operator of an autograd thread.
std::vector<uint8_t> backwardSlices(const RankData& r, const std::vector<StepSpan>& steps) {
    const SliceTable& s = r.slices;
    const size_t n = s.size();
    std::vector<uint8_t> out(n, 0);
    // fwdbwd flows end ('f') at the start of the backward operator, on its thread.
    const FlowTable& fl = r.flows;
    std::set<std::pair<uint32_t, TimeNs>> flowEnds;
    if (fl.phase.size() == fl.size() && fl.cat.size() == fl.size() && fl.track.size() == fl.size())
        for (size_t i = 0; i < fl.size(); ++i)
            if (fl.phase[i] == 'f' && r.strings.view(fl.cat[i]) == "fwdbwd") flowEnds.emplace(fl.track[i], fl.ts[i]);
    uint32_t tracks = static_cast<uint32_t>(r.tracks.size());
    for (size_t i = 0; i < n; ++i) tracks = std::max(tracks, s.track[i] + 1);
    std::vector<uint8_t> stepTrack(tracks, 0), autogradTrack(tracks, 0);
    for (const auto& st : steps)
        if (st.slice >= 0 && static_cast<size_t>(st.slice) < n) stepTrack[s.track[static_cast<size_t>(st.slice)]] = 1;
    std::vector<uint8_t> nameClass(r.strings.size(), 255);  // 0 none, 1 annotation, 2 autograd operator
    for (size_t i = 0; i < n; ++i) {
        const EventKind k = s.kind[i];
        if (k != EventKind::CpuOp && k != EventKind::UserAnnotation) continue;
        uint8_t& c = nameClass[s.name[i]];
        if (c == 255) {
            const std::string_view nm = r.strings.view(s.name[i]);
            c = markerOf(nm) == Marker::Backward ? 1 : isAutogradOp(nm) ? 2 : 0;
        }
        const bool op = (c == 2 && k == EventKind::CpuOp) || flowEnds.count({s.track[i], s.ts[i]}) != 0;
        if (c == 1 || op) out[i] = 1;
        if (op && !stepTrack[s.track[i]]) autogradTrack[s.track[i]] = 1;
    }
    for (size_t i = 0; i < n; ++i)
        if (s.kind[i] == EventKind::CpuOp && autogradTrack[s.track[i]]) out[i] = 1;
    return out;
}

}  // namespace

namespace {

// The GPU activities of a window by launch time (the start of the launching runtime call, else their own start),
// so that the GPU work a CPU-side phase launched is found by binary search: a phase's GPU extent is what the GPU
// did for it, which runs later than the CPU launched it (a backward pass's last kernels run while the CPU is
// already in the optimizer).
struct LaunchIndex {
    std::vector<std::pair<TimeNs, uint32_t>> byLaunch;  // (launch time, index in the window)

    explicit LaunchIndex(const RankWindow& w) {
        byLaunch.reserve(w.size());
        for (size_t i = 0; i < w.size(); ++i) {
            const TimeNs launch = w.runtimeStart(i);
            byLaunch.push_back({launch == INT64_MIN ? w.start[i] : launch, static_cast<uint32_t>(i)});
        }
        std::sort(byLaunch.begin(), byLaunch.end());
    }
    // First start and last end of the GPU activities launched in [from, to); null cells when there are none.
    std::pair<Cell, Cell> extent(const RankWindow& w, TimeNs from, TimeNs to) const {
        auto it = std::lower_bound(byLaunch.begin(), byLaunch.end(), std::pair<TimeNs, uint32_t>{from, 0});
        TimeNs lo = INT64_MAX, hi = INT64_MIN;
        for (; it != byLaunch.end() && it->first < to; ++it) {
            lo = std::min(lo, w.start[it->second]);
            hi = std::max(hi, w.end[it->second]);
        }
        if (lo > hi) return {Cell{}, Cell{}};
        return {lo, hi};
    }
};

// One row of the table: a phase [s, e) on the CPU clock, with the extent of the GPU work launched in it.
void addPhaseRow(Table& t, const RankWindow& w, const LaunchIndex& li, std::string phase, std::string name,
                 const Cell& step, TimeNs s, TimeNs e, int64_t count) {
    auto [g0, g1] = li.extent(w, s, e);
    t.addRow({int64_t{w.rank}, std::move(phase), std::move(name), step, s, e, e - s, count, g0, g1});
}

// The step rows of rank `w`: every step of its trace, or those of a step-list window. Returns the steps kept.
std::vector<StepSpan> addStepRows(Table& t, const RankWindow& w, const LaunchIndex& li,
                                  const std::vector<StepSpan>& steps, const WindowSpec& spec) {
    std::vector<StepSpan> chosen;
    for (const auto& s : steps)
        if (spec.kind != WindowKind::StepList || std::binary_search(spec.steps.begin(), spec.steps.end(), s.number))
            chosen.push_back(s);
    for (const auto& s : chosen)
        addPhaseRow(t, w, li, "step", fmt::format("ProfilerStep#{}", s.number), s.number, s.start, s.end, 1);
    return chosen;
}

// What one pass over a rank's slices finds: the phase markers in start order, whether some annotation names a
// layer, and the vLLM step counts (their rows are added on the way).
struct MarkerScan {
    std::vector<M> markers;
    bool layerAnnotated = false;
    int64_t vllmPrefill = 0, vllmDecode = 0, vllmMixed = 0;
};

MarkerScan scanMarkers(Table& t, const RankWindow& w, const LaunchIndex& li, const RankData& r,
                       const std::vector<StepSpan>& steps) {
    MarkerScan out;
    const std::vector<uint8_t> backward = backwardSlices(r, steps);
    std::vector<uint8_t> nameClass(r.strings.size(), 255);
    for (size_t i = 0; i < r.slices.size(); ++i) {
        StrId id = r.slices.name[i];
        uint8_t& c = nameClass[id];
        std::string_view nm = r.strings.view(id);
        if (c == 255) {
            c = static_cast<uint8_t>(markerOf(nm));
            int64_t a = 0, b = 0;
            if (parseVllm(nm, a, b)) c = 10;
            if (containsNoCase(nm, "layer") && r.slices.kind[i] != EventKind::CpuOp) c = 20;
        }
        if (c == 20) out.layerAnnotated = true;
        const Marker k = backward[i] ? Marker::Backward : c >= 1 && c <= 3 ? static_cast<Marker>(c) : Marker::None;
        if (k != Marker::None) out.markers.push_back({r.slices.ts[i], r.slices.ts[i] + r.slices.dur[i], k});
        if (c == 10) {
            int64_t a = 0, b = 0;
            parseVllm(nm, a, b);
            std::string phase = a > 0 && b == 0 ? "prefill" : a == 0 ? "decode" : "mixed";
            (phase == "prefill" ? out.vllmPrefill : phase == "decode" ? out.vllmDecode : out.vllmMixed) += 1;
            TimeNs s = r.slices.ts[i], e = s + r.slices.dur[i];
            Cell step;
            for (const auto& st : steps)
                if (s >= st.start && s < st.end) step = st.number;
            addPhaseRow(t, w, li, phase, std::string(nm), step, s, e, a + b);
        }
    }
    std::sort(out.markers.begin(), out.markers.end(), [](const M& a, const M& b) { return a.s < b.s; });
    return out;
}

// Forward / backward / optimizer rows of each step in `spans` (or of the whole trace when there is no step).
// Returns whether any step had a backward or optimizer phase.
bool addTrainingPhaseRows(Table& t, const RankWindow& w, const LaunchIndex& li, const RankData& r,
                          std::vector<StepSpan> spans, const std::vector<M>& markers) {
    bool wholeTrace = spans.empty();
    if (wholeTrace && !markers.empty()) {
        TimeNs a = INT64_MAX, b = INT64_MIN;
        for (size_t i = 0; i < r.slices.size(); ++i) {
            a = std::min(a, r.slices.ts[i]);
            b = std::max(b, r.slices.ts[i] + r.slices.dur[i]);
        }
        spans.push_back({-1, a, b, -1});
    }
    bool anyPhase = false;
    for (const auto& sp : spans) {
        auto lo = std::lower_bound(markers.begin(), markers.end(), sp.start,
                                   [](const M& m, TimeNs v) { return m.s < v; });
        TimeNs fwdS = INT64_MAX, bwdS = INT64_MAX, bwdE = INT64_MIN, optS = INT64_MAX, optE = INT64_MIN;
        int64_t nf = 0, nb = 0, no = 0;
        std::vector<const M*> optimizerMarkers;
        for (auto it = lo; it != markers.end() && it->s < sp.end; ++it) {
            switch (it->k) {
            case Marker::Forward: fwdS = std::min(fwdS, it->s); ++nf; break;
            case Marker::Backward: bwdS = std::min(bwdS, it->s); bwdE = std::max(bwdE, it->e); ++nb; break;
            case Marker::Optimizer: optimizerMarkers.push_back(&*it); break;
            default: break;
            }
        }
        // The optimizer phase is the optimizer work after the forward pass began (after backward when there
        // is one): a zero_grad at the top of the step is not part of it, or the "phase" would span the
        // whole step and overlap forward and backward.
        const TimeNs optFrom = nb > 0 ? bwdS : (nf > 0 ? fwdS : INT64_MIN);
        for (const M* m : optimizerMarkers)
            if (m->s >= optFrom) {
                optS = std::min(optS, m->s);
                optE = std::max(optE, m->e);
                ++no;
            }
        if (nb == 0 && no == 0) continue;
        anyPhase = true;
        Cell step;
        if (sp.number >= 0) step = sp.number;
        TimeNs f0 = nf > 0 ? fwdS : sp.start;
        TimeNs f1 = nb > 0 ? bwdS : optS;
        if (f1 > f0) addPhaseRow(t, w, li, "forward", "forward", step, f0, f1, nf);
        if (nb > 0) addPhaseRow(t, w, li, "backward", "backward", step, bwdS, bwdE, nb);
        if (no > 0) addPhaseRow(t, w, li, "optimizer", "optimizer", step, optS, optE, no);
    }
    return anyPhase;
}

// Transformer layers found from attention + GEMM kernel patterns (see the header): one row per layer, or one
// summary row per rank.
void addLayerRows(Table& t, const RankWindow& w, const RankData& r, LayerRows layers) {
    std::vector<size_t> attn;
    std::vector<uint8_t> gemm(w.size(), 0);
    const bool haveCat = r.gpu.category.size() == r.gpu.size() && r.gpu.size() > 0;
    std::vector<uint8_t> nameKind(haveCat ? 0 : r.strings.size(), 255);  // 0 none, 1 attention, 2 gemm
    for (size_t i = 0; i < w.size(); ++i) {
        uint32_t g = w.row[i];
        if (r.gpu.kind.size() > g && r.gpu.kind[g] != EventKind::Kernel) continue;
        uint8_t k = 0;
        if (haveCat) {
            k = r.gpu.category[g] == KernelCategory::Attention ? 1 : r.gpu.category[g] == KernelCategory::Gemm ? 2 : 0;
        } else {
            uint8_t& c = nameKind[r.gpu.name[g]];
            if (c == 255) {
                std::string_view nm = r.strings.view(r.gpu.name[g]);
                c = isAttention(r, g, nm) ? 1 : isGemm(r, g, nm) ? 2 : 0;
            }
            k = c;
        }
        if (k == 1)
            attn.push_back(i);
        else if (k == 2)
            gemm[i] = 1;
    }
    if (attn.size() < 2) return;
    // Boundary before each attention kernel: walk back to the last GEMM after the previous attention, then
    // to the first GEMM of that contiguous run.
    std::vector<size_t> bounds;
    size_t prevAttn = 0;
    for (size_t k = 0; k < attn.size(); ++k) {
        size_t a = attn[k];
        size_t lowest = k == 0 ? 0 : prevAttn + 1;
        size_t b = a;
        // nearest GEMM before the attention kernel (after the previous one), then the start of its run
        size_t j = a;
        while (j > lowest && !gemm[j - 1]) --j;
        if (j > lowest) {
            b = j - 1;
            while (b > lowest && gemm[b - 1]) --b;
        }
        bounds.push_back(b);
        prevAttn = a;
    }
    int64_t layerNo = 0;
    TimeNs firstStart = 0, lastEnd = 0;
    long double durSum = 0;
    for (size_t k = 0; k < bounds.size(); ++k) {
        size_t b0 = bounds[k];
        size_t b1 = k + 1 < bounds.size() ? bounds[k + 1] : w.size();
        if (b1 <= b0) continue;
        TimeNs s = w.start[b0], e = w.end[b1 - 1];
        for (size_t i = b0; i < b1; ++i) e = std::max(e, w.end[i]);
        if (layerNo == 0) firstStart = s;
        lastEnd = std::max(lastEnd, e);
        durSum += static_cast<long double>(e - s);
        if (layers == LayerRows::Rows) {
            std::string_view an = r.strings.view(r.gpu.name[w.row[attn[k]]]);
            bool bwd = containsNoCase(an, "bwd") || containsNoCase(an, "backward");
            Cell step;
            int32_t st = r.gpu.step.size() == r.gpu.size() ? r.gpu.step[w.row[b0]] : -1;
            if (st >= 0 && static_cast<size_t>(st) < r.steps.size()) step = r.steps.number[static_cast<size_t>(st)];
            t.addRow({int64_t{w.rank}, std::string("layer"), fmt::format("layer {}{}", layerNo, bwd ? " (backward)" : ""),
                      step, s, e, e - s, static_cast<int64_t>(b1 - b0), s, e});  // kernel times: on the GPU
        }
        ++layerNo;
    }
    if (layers == LayerRows::Summary && layerNo > 0)
        t.addRow({int64_t{w.rank}, std::string("layers"), fmt::format("{} layers detected", layerNo), Cell{}, firstStart,
                  lastEnd, static_cast<TimeNs>(std::llround(static_cast<double>(durSum / layerNo))), layerNo, firstStart,
                  lastEnd});
    t.messages.push_back(fmt::format("phases: rank {}: {} transformer layers detected from attention + GEMM kernel "
                                     "patterns (no layer annotation)",
                                     w.rank, layerNo));
}

}  // namespace

Result<Table> phaseStructure(AnalysisContext& ctx, const WindowSpec& window, LayerRows layers) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    Table t;
    t.columns = kPhaseColumns;
    for (const RankWindow& w : sel.value()->ranks) {
        const RankData& r = *w.data;
        const auto& steps = ctx.steps(w.rankIndex);
        const LaunchIndex li(w);
        const std::vector<StepSpan> chosen = addStepRows(t, w, li, steps, sel.value()->spec);
        const MarkerScan scan = scanMarkers(t, w, li, r, steps);
        if (!addTrainingPhaseRows(t, w, li, r, chosen, scan.markers))
            t.messages.push_back(fmt::format("phases: rank {}: no backward or optimizer annotation found: forward/"
                                             "backward/optimizer phases are not reported",
                                             w.rank));
        if (scan.vllmPrefill + scan.vllmDecode + scan.vllmMixed > 0)
            t.messages.push_back(fmt::format("phases: rank {}: vLLM steps: {} prefill, {} decode, {} mixed", w.rank,
                                             scan.vllmPrefill, scan.vllmDecode, scan.vllmMixed));
        if (steps.empty()) t.messages.push_back(fmt::format("phases: rank {} has no ProfilerStep#N annotations", w.rank));
        if (layers != LayerRows::None && !scan.layerAnnotated) addLayerRows(t, w, r, layers);
    }
    return t;
}

namespace {
const EnumParam kLayers = EnumParam{"layers", "layers",
                                    "transformer layers from kernel patterns: none, summary (one row per rank: count, "
                                    "mean dur_ns) or rows (one row per layer)",
                                    "summary"}.choices({"none", "summary", "rows"});
}  // namespace

AnalysisInfo phasesAnalysisInfo() {
    return AnalysisInfo("phases",
                        "Steps, forward/backward/optimizer, vLLM prefill/decode and detected transformer layers",
                        {kLayers.spec()}, kPhaseColumns, [](AnalysisContext& ctx, const AnalysisRequest& req) {
                            std::string l = req.get(kLayers);
                            return phaseStructure(ctx, req.window,
                                                  l == "none"       ? LayerRows::None
                                                      : l == "rows" ? LayerRows::Rows
                                                                    : LayerRows::Summary);
                        });
}

}  // namespace strobe::core
