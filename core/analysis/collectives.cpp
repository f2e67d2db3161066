#include "core/analysis/collectives.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "core/model/collective_text.h"

namespace strobe::core {

std::string argValue(std::string_view json, std::string_view key) {
    std::string quoted = fmt::format("\"{}\"", key);
    size_t p = json.find(quoted);
    if (p == std::string_view::npos) return {};
    p += quoted.size();
    while (p < json.size() && (json[p] == ' ' || json[p] == ':')) ++p;
    if (p >= json.size()) return {};
    if (json[p] == '"') {
        size_t e = json.find('"', p + 1);
        return e == std::string_view::npos ? std::string() : std::string(json.substr(p + 1, e - p - 1));
    }
    size_t e = p;
    while (e < json.size() && json[e] != ',' && json[e] != '}' && json[e] != ' ') ++e;
    return std::string(json.substr(p, e - p));
}

std::map<CollectiveKey, std::vector<CollectiveHit>> matchCollectiveKernels(const std::vector<RankWindow>& ranks) {
    const size_t nr = ranks.size();
    std::map<CollectiveKey, std::vector<CollectiveHit>> coll;
    for (size_t rp = 0; rp < nr; ++rp) {
        const RankWindow& w = ranks[rp];
        const RankData& r = *w.data;
        std::map<std::pair<std::string, StrId>, int64_t> occurrence;
        std::unordered_map<StrId, std::pair<std::string, std::string>> argCache;  // args id → (pg, seq)
        for (size_t i = 0; i < w.size(); ++i) {
            if (w.type[i] != HtaType::Communication) continue;
            uint32_t g = w.row[i];
            std::string pg, seq;
            if (r.gpu.args.size() > g && r.gpu.args[g] != kEmptyStr) {
                auto [it, fresh] = argCache.try_emplace(r.gpu.args[g]);
                if (fresh) {
                    std::string_view a = r.strings.view(r.gpu.args[g]);
                    it->second.first = argValue(a, "Process Group Name");
                    it->second.second = argValue(a, "Seq");
                    if (it->second.second.empty()) it->second.second = argValue(a, "seq");
                }
                pg = it->second.first;
                seq = it->second.second;
            }
            StrId name = r.gpu.name[g];
            int64_t s = -1;
            if (!seq.empty()) {
                auto res = std::from_chars(seq.data(), seq.data() + seq.size(), s);
                if (res.ec != std::errc()) s = -1;
            }
            int64_t& occ = occurrence[{pg, name}];
            if (s < 0) s = occ;
            ++occ;
            coll[CollectiveKey{pg, s, r.strings.str(name)}].push_back(
                {rp, g, r.gpu.ts[g], r.gpu.ts[g] + r.gpu.dur[g]});
        }
    }
    return coll;
}

MatchedCollective addMatchedCollective(const std::vector<CollectiveHit>& hits, std::vector<CollectiveWaitTotals>& totals) {
    MatchedCollective m;
    if (hits.empty()) return m;
    TimeNs minDur = INT64_MAX, minStart = INT64_MAX, maxStart = INT64_MIN;
    for (size_t k = 0; k < hits.size(); ++k) {
        const TimeNs d = hits[k].end - hits[k].start;
        if (d < minDur) {
            minDur = d;
            m.last = k;
        }
        minStart = std::min(minStart, hits[k].start);
        maxStart = std::max(maxStart, hits[k].start);
    }
    for (const CollectiveHit& h : hits) {
        const TimeNs wait = h.end - h.start - minDur;
        CollectiveWaitTotals& a = totals[h.rankPos];
        a.collectives += 1;
        a.wait += wait;
        a.startLag += static_cast<long double>(h.start - minStart);
        m.totalWait += wait;
        m.maxWait = std::max(m.maxWait, wait);
    }
    CollectiveWaitTotals& last = totals[hits[m.last].rankPos];
    last.timesLast += 1;
    last.caused += m.totalWait;
    m.startSpread = maxStart - minStart;
    return m;
}

double busBandwidthFactor(Collective type, int n) {
    if (n <= 1) return 1.0;
    const double dn = n;
    switch (type) {
    case Collective::AllReduce: return 2.0 * (dn - 1) / dn;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return (dn - 1) / dn;
    default: return 1.0;
    }
}

int dtypeBytes(std::string_view dtype) {
    std::string t(dtype);
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (t.starts_with("c10::")) t.erase(0, 5);
    if (t.starts_with("torch.")) t.erase(0, 6);
    static const std::map<std::string, int, std::less<>> sizes = {
        {"float", 4},         {"float32", 4},      {"double", 8},      {"float64", 8},     {"half", 2},
        {"float16", 2},       {"bfloat16", 2},     {"long", 8},        {"long int", 8},    {"int64", 8},
        {"long long", 8},     {"int64_t", 8},      {"int", 4},         {"int32", 4},       {"int32_t", 4},
        {"unsigned int", 4},  {"short", 2},        {"short int", 2},   {"int16", 2},       {"char", 1},
        {"byte", 1},          {"signed char", 1},  {"unsigned char", 1}, {"int8", 1},      {"uint8", 1},
        {"int8_t", 1},        {"uint8_t", 1},      {"bool", 1},        {"float8_e4m3fn", 1}, {"float8_e5m2", 1},
        {"float8_e4m3fnuz", 1}, {"float8_e5m2fnuz", 1}, {"complexfloat", 8}, {"complexdouble", 16}};
    auto it = sizes.find(t);
    return it == sizes.end() ? 0 : it->second;
}

namespace {

int64_t toInt(const std::string& s) {
    int64_t v = -1;
    auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    return res.ec == std::errc() ? v : -1;
}

// The element count of the first tensor of "Input Dims" ([[8,1024,8816],...] -> 72220672); -1 when absent or
// empty ([[],...]: not a tensor).
int64_t firstTensorElements(std::string_view args) {
    size_t p = args.find("\"Input Dims\"");
    if (p == std::string_view::npos) return -1;
    p = args.find('[', p);
    if (p == std::string_view::npos || p + 1 >= args.size() || args[p + 1] != '[') return -1;
    p += 2;
    int64_t product = 1;
    int dims = 0;
    while (p < args.size() && args[p] != ']') {
        while (p < args.size() && (args[p] == ' ' || args[p] == ',')) ++p;
        int64_t v = 0;
        auto res = std::from_chars(args.data() + p, args.data() + args.size(), v);
        if (res.ec != std::errc() || v < 0) return -1;
        p = static_cast<size_t>(res.ptr - args.data());
        product = v > 0 && product > INT64_MAX / v ? -1 : product * v;
        if (product < 0) return -1;
        ++dims;
        while (p < args.size() && args[p] == ' ') ++p;
    }
    return dims > 0 ? product : -1;
}

// The first entry of "Input type": ["float", ...].
std::string firstInputType(std::string_view args) {
    size_t p = args.find("\"Input type\"");
    if (p == std::string_view::npos) return {};
    p = args.find('[', p);
    if (p == std::string_view::npos) return {};
    size_t q = args.find('"', p);
    if (q == std::string_view::npos) return {};
    size_t e = args.find('"', q + 1);
    return e == std::string_view::npos ? std::string() : std::string(args.substr(q + 1, e - q - 1));
}

// What one rank's kernel says of its collective.
struct CommInfo {
    Collective type = Collective::None;
    int64_t inElems = -1, outElems = -1;  // record_param_comms-style args
    int64_t annotationElems = -1;         // nccl:<collective> annotation's first input tensor
    int elemBytes = 0;
    int groupSize = 0;
    bool sized = false;  // a size source was found (nelems or annotation)
};

// Reads "In msg nelems" / "Out msg nelems" / "dtype" / "Group size" from args; true when it held a count.
bool readMsgArgs(std::string_view a, CommInfo& c) {
    const int64_t in = toInt(argValue(a, "In msg nelems")), out = toInt(argValue(a, "Out msg nelems"));
    if (in < 0 && out < 0) return false;
    c.inElems = in;
    c.outElems = out;
    c.elemBytes = dtypeBytes(argValue(a, "dtype"));
    c.sized = true;
    if (c.groupSize <= 0) c.groupSize = static_cast<int>(std::max<int64_t>(0, toInt(argValue(a, "Group size"))));
    return true;
}

// What a CPU-side slice of the launch chain adds: the collective its name (or "Collective name") names, and a size.
void readSlice(const RankData& r, size_t i, CommInfo& c) {
    const auto& s = r.slices;
    const std::string_view name = r.strings.view(s.name[i]);
    const std::string_view a = s.args.size() == s.size() ? r.strings.view(s.args[i]) : std::string_view();
    if (c.type == Collective::None) {
        c.type = collectiveFromText(name);
        if (c.type == Collective::None)
            if (std::string n = argValue(a, "Collective name"); !n.empty()) c.type = collectiveFromText(n);
    }
    if (c.sized || readMsgArgs(a, c) || !name.starts_with("nccl:")) return;
    if (const int64_t elems = firstTensorElements(a); elems >= 0) {
        c.annotationElems = elems;
        c.elemBytes = dtypeBytes(firstInputType(a));
        c.sized = true;
    }
}

CommInfo commInfoOf(const RankData& r, uint32_t row) {
    CommInfo c;
    const auto& g = r.gpu;
    const auto& s = r.slices;
    if (g.args.size() > row && g.args[row] != kEmptyStr) {
        const std::string_view a = r.strings.view(g.args[row]);
        if (std::string name = argValue(a, "Collective name"); !name.empty()) c.type = collectiveFromText(name);
        readMsgArgs(a, c);
    }
    // A kernel name that says its collective is believed; SendRecv (NCCL's all_to_all, gather, scatter) and
    // generic kernels take the collective of the operator that launched them.
    const Collective byName = g.collective.size() == g.size() ? g.collective[row] : Collective::None;
    if (c.type == Collective::None && byName != Collective::SendRecv && byName != Collective::Other) c.type = byName;
    // The launching call's enclosing slices (its own thread: nccl:<collective>, record_param_comms, c10d::...),
    // then the launching operator's (which may sit on another thread).
    const bool parents = s.parent.size() == s.size();
    for (const auto* column : {&g.runtime, &g.cpuOp}) {
        int32_t op = column->size() == g.size() ? (*column)[row] : -1;
        for (int guard = 0; op >= 0 && static_cast<size_t>(op) < s.size() && guard < 4096; ++guard) {
            if (c.type != Collective::None && c.sized) break;
            readSlice(r, static_cast<size_t>(op), c);
            if (!parents) break;
            op = s.parent[static_cast<size_t>(op)];
        }
    }
    if (c.type == Collective::None && g.collective.size() == g.size()) c.type = g.collective[row];
    if (c.type == Collective::None) c.type = Collective::Other;
    return c;
}

// nccl-tests' size of the collective in bytes, or nullopt.
std::optional<int64_t> bytesOf(const CommInfo& c, int n) {
    if (!c.sized || c.elemBytes <= 0) return std::nullopt;
    int64_t elems = -1;
    if (c.annotationElems >= 0) {
        elems = c.type == Collective::AllGather ? c.annotationElems * n : c.annotationElems;
    } else if (c.type == Collective::AllGather) {
        elems = c.outElems >= 0 ? c.outElems : c.inElems >= 0 ? c.inElems * n : -1;
    } else {
        elems = c.inElems >= 0 ? c.inElems : c.outElems;
    }
    if (elems < 0) return std::nullopt;
    return elems * c.elemBytes;
}

int groupSizeOf(const CommInfo& c, const RankData& r, const std::string& pg, size_t matched) {
    if (c.groupSize > 0) return c.groupSize;
    const auto& d = r.info.distributed;
    for (const auto& g : d.processGroups)
        if (g.name == pg && g.size > 0) return g.size;
    if (d.worldSize > 0) return d.worldSize;
    return static_cast<int>(std::max<size_t>(1, matched));
}

// Length of [s, e) covered by `merged` (sorted, disjoint).
TimeNs overlapWith(const std::vector<Interval>& merged, TimeNs s, TimeNs e) {
    auto it = std::lower_bound(merged.begin(), merged.end(), s,
                               [](const Interval& iv, TimeNs t) { return iv.end <= t; });
    TimeNs total = 0;
    for (; it != merged.end() && it->start < e; ++it) total += std::min(e, it->end) - std::max(s, it->start);
    return total;
}

// The step numbers a run keeps after skipping the first `skip` (over all ranks); empty set and false without steps.
bool keptSteps(const Dataset& d, int skip, std::set<int64_t>& kept) {
    std::set<int64_t> numbers;
    for (const auto& r : d.ranks)
        for (size_t s = 0; s < r->steps.size(); ++s) numbers.insert(r->steps.number[s]);
    int skipped = 0;
    for (int64_t n : numbers)
        if (skipped++ >= skip) kept.insert(n);
    return !numbers.empty();
}

CollectiveInstance instanceOf(const CollectiveKey& key, const std::vector<CollectiveHit>& hits,
                              const std::vector<RankWindow>& ranks) {
    CollectiveInstance c;
    c.processGroup = std::get<0>(key);
    c.seq = std::get<1>(key);
    c.kernel = std::get<2>(key);
    TimeNs minDur = INT64_MAX, minStart = INT64_MAX, maxStart = INT64_MIN;
    for (size_t k = 0; k < hits.size(); ++k) {
        const CollectiveHit& h = hits[k];
        const RankWindow& w = ranks[h.rankPos];
        const TimeNs d = h.end - h.start;
        if (d < minDur) {
            minDur = d;
            c.straggler = k;
        }
        minStart = std::min(minStart, h.start);
        maxStart = std::max(maxStart, h.start);
        c.ranks.push_back({w.rank, h.start, d, overlapWith(w.merged(HtaType::Computation), h.start, h.end)});
    }
    c.latencyNs = minDur;
    c.startSpreadNs = maxStart - minStart;
    const CollectiveHit& first = hits.front();
    const RankData& fr = *ranks[first.rankPos].data;
    if (fr.gpu.step.size() == fr.gpu.size() && fr.gpu.step[first.row] >= 0)
        c.step = fr.steps.number[static_cast<size_t>(fr.gpu.step[first.row])];
    // Type, size and n: the straggler's kernel first, then the other ranks' for what it lacks.
    std::vector<size_t> order{c.straggler};
    for (size_t k = 0; k < hits.size(); ++k)
        if (k != c.straggler) order.push_back(k);
    bool typed = false;
    for (size_t k : order) {
        const RankData& r = *ranks[hits[k].rankPos].data;
        const CommInfo info = commInfoOf(r, hits[k].row);
        if (!typed) {
            c.type = info.type;
            c.groupSize = groupSizeOf(info, r, c.processGroup, hits.size());
            typed = true;
        }
        if (!c.bytes) c.bytes = bytesOf(info, c.groupSize);
        if (c.bytes) break;
    }
    return c;
}

}  // namespace

void describeCollectiveKernel(const RankData& r, uint32_t row, const std::string& processGroup, Collective& type,
                              std::optional<int64_t>& bytes) {
    const CommInfo info = commInfoOf(r, row);
    type = info.type;
    bytes = bytesOf(info, groupSizeOf(info, r, processGroup, 1));
}

RunCollectives runCollectives(const DatasetPtr& dataset, int skipSteps) {
    RunCollectives out;
    if (!dataset) return out;
    auto ctx = AnalysisContext::of(dataset);
    auto sel = ctx->select(WindowSpec{});
    if (!sel) {
        out.messages.push_back(sel.error().toString());
        return out;
    }
    const auto& ranks = sel.value()->ranks;
    std::set<int64_t> kept;
    const bool hasSteps = skipSteps > 0 && keptSteps(*dataset, skipSteps, kept);
    for (const auto& [key, hits] : matchCollectiveKernels(ranks)) {
        CollectiveInstance c = instanceOf(key, hits, ranks);
        if (hasSteps && !kept.count(c.step)) continue;
        out.instances.push_back(std::move(c));
    }
    return out;
}

namespace {

struct Acc {
    CollectiveSweepRow row;
    std::vector<double> spreads;
    double waitSum = 0, sizedBytes = 0, sizedLatency = 0, busBytes = 0;
    uint64_t waits = 0;
};

void add(Acc& a, const CollectiveInstance& c) {
    CollectiveSweepRow& r = a.row;
    ++r.count;
    r.latenciesNs.push_back(static_cast<double>(c.latencyNs));
    a.spreads.push_back(static_cast<double>(c.startSpreadNs));
    for (size_t k = 0; k < c.ranks.size(); ++k) {
        const auto& t = c.ranks[k];
        a.waitSum += static_cast<double>(t.dur - c.latencyNs);
        ++a.waits;
        if (k == c.straggler) {
            r.stragglerOverlapNs += static_cast<double>(t.computeOverlapNs);
            r.stragglerKernelNs += static_cast<double>(t.dur);
        } else {
            r.othersOverlapNs += static_cast<double>(t.computeOverlapNs);
            r.othersKernelNs += static_cast<double>(t.dur);
        }
    }
    if (c.bytes) {
        ++r.sized;
        const double b = static_cast<double>(*c.bytes);
        a.sizedBytes += b;
        a.sizedLatency += static_cast<double>(c.latencyNs);
        a.busBytes += b * busBandwidthFactor(c.type, c.groupSize);
    }
}

void finish(Acc& a, std::vector<std::string>& messages) {
    CollectiveSweepRow& r = a.row;
    auto q = [](const std::vector<double>& v, double p) {
        return v.empty() ? 0.0 : stats::quantile(std::span<const double>(v), p);
    };
    std::sort(r.latenciesNs.begin(), r.latenciesNs.end());
    std::sort(a.spreads.begin(), a.spreads.end());
    double sum = 0;
    for (double x : r.latenciesNs) sum += x;
    r.latencyMeanNs = r.latenciesNs.empty() ? 0.0 : sum / static_cast<double>(r.latenciesNs.size());
    r.latencyP50Ns = q(r.latenciesNs, 0.5);
    r.latencyP99Ns = q(r.latenciesNs, 0.99);
    r.startSkewP50Ns = q(a.spreads, 0.5);
    r.startSkewMaxNs = a.spreads.empty() ? 0.0 : a.spreads.back();
    r.waitMeanNs = a.waits ? a.waitSum / static_cast<double>(a.waits) : 0.0;
    if (r.sized > 0) {
        r.bytes = a.sizedBytes / static_cast<double>(r.sized);
        if (a.sizedLatency > 0) {
            r.algbwGbps = a.sizedBytes / a.sizedLatency;
            r.busbwGbps = a.busBytes / a.sizedLatency;
        }
    }
    const std::string where = r.config.empty() ? std::string() : r.config + ": ";
    if (r.sized == 0)
        messages.push_back(fmt::format("{}{}: the trace gives no message size for its {} collectives (bytes and "
                                       "bandwidth null)",
                                       where, r.collective, r.count));
    else if (r.sized < r.count)
        messages.push_back(fmt::format("{}{}: {} of {} collectives have no message size; bytes and bandwidth are "
                                       "over the other {}",
                                       where, r.collective, r.count - r.sized, r.count, r.sized));
}

}  // namespace

CollectiveSweep collectivesBySweep(const RunSet& runs, int skipSteps) {
    CollectiveSweep out;
    std::vector<std::string> configOrder;
    std::map<std::string, std::map<Collective, Acc>> acc;
    for (const auto& run : runs) {
        const std::string key = run.key();
        if (std::find(configOrder.begin(), configOrder.end(), key) == configOrder.end()) configOrder.push_back(key);
        auto& byType = acc[key];
        RunCollectives rc = runCollectives(run.dataset, skipSteps);
        for (const auto& m : rc.messages) out.messages.push_back(run.label + ": " + m);
        if (run.dataset && run.dataset->ranks.size() < 2)
            out.messages.push_back(run.label + ": one rank: no skew across ranks (spread and wait are 0)");
        if (rc.instances.empty())
            out.messages.push_back(run.label + ": no communication kernel" +
                                   (skipSteps > 0 ? " in the steps kept" : std::string()));
        for (const auto& c : rc.instances) {
            Acc& a = byType[c.type];
            if (a.row.count == 0) {
                a.row.config = key;
                a.row.parameters = parameterTexts(run.parameters);
                a.row.collective = std::string(toString(c.type));
            }
            add(a, c);
        }
    }
    for (const auto& key : configOrder)
        for (auto& [type, a] : acc[key]) {
            finish(a, out.messages);
            out.rows.push_back(std::move(a.row));
        }
    return out;
}

}  // namespace strobe::core
