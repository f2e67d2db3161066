#include "core/analysis/structural_diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "core/model/types.h"

namespace strobe::core {

std::string normalizedOpName(std::string_view name) {
    constexpr std::string_view kEngine = "autograd::engine::evaluate_function: ";  // newer PyTorch wraps nodes so
    if (name.starts_with(kEngine)) name.remove_prefix(kEngine.size());
    std::string n(name);
    if (const size_t ns = n.rfind("::"); ns != std::string::npos) {
        for (const char* prefix : {"cudnn_", "miopen_", "native_"})
            if (n.compare(ns + 2, std::strlen(prefix), prefix) == 0 && n.size() > ns + 2 + std::strlen(prefix)) {
                n.erase(ns + 2, std::strlen(prefix));
                break;
            }
        return n;
    }
    if (n.find("Backward") == std::string::npos) return n;
    while (!n.empty() && std::isdigit(static_cast<unsigned char>(n.back()))) n.pop_back();
    for (const char* prefix : {"Cudnn", "Miopen", "Native", "Mkldnn", "Thnn", "Cuda"})
        if (n.starts_with(prefix) && n.size() > std::strlen(prefix) + 8) {
            n.erase(0, std::strlen(prefix));
            break;
        }
    return n;
}

std::string_view toString(DiffStatus s) {
    switch (s) {
    case DiffStatus::Same: return "same";
    case DiffStatus::Changed: return "changed";
    case DiffStatus::Added: return "added";
    case DiffStatus::Removed: return "removed";
    }
    return "same";
}

std::vector<std::string> StructuralDiff::path(size_t i) const {
    std::vector<std::string> out;
    for (int n = static_cast<int>(i); n >= 0 && static_cast<size_t>(n) < nodes.size(); n = nodes[size_t(n)].parent)
        out.push_back(nodes[size_t(n)].name);
    std::reverse(out.begin(), out.end());
    return out;
}

namespace {

constexpr const char* kNoOperator = "(no operator)";

// The combined tree while it is built: both sides' accumulators on one trie, so that a path is one node.
struct TrieNode {
    std::string name;
    bool leaf = false;
    int parent = -1;
    std::map<std::pair<bool, std::string>, int> children;
    double count[2] = {0, 0};
    double ns[2] = {0, 0};
    DiffInstance first[2];
};

struct Trie {
    std::vector<TrieNode> nodes;
    int child(int parent, const std::string& name, bool leaf) {
        std::map<std::pair<bool, std::string>, int>* kids = parent >= 0 ? &nodes[size_t(parent)].children : &roots;
        auto [it, fresh] = kids->try_emplace({leaf, name}, static_cast<int>(nodes.size()));
        if (fresh) {
            TrieNode n;
            n.name = name;
            n.leaf = leaf;
            n.parent = parent;
            nodes.push_back(std::move(n));
        }
        return it->second;
    }
    std::map<std::pair<bool, std::string>, int> roots;
};

void noteFirst(DiffInstance& first, const DiffInstance& i) {
    if (!first.valid() || i.ts < first.ts) first = i;
}

bool isCallSite(const RankData& r, size_t i) {
    return r.slices.kind[i] == EventKind::CpuOp && !r.strings.view(r.slices.name[i]).starts_with("ProfilerStep#");
}

// The kept step numbers of a run (the first `skip` dropped) and their count; a run without steps has none.
std::set<int64_t> keptStepNumbers(const RunEntry& run, int skip, size_t& all) {
    std::set<int64_t> numbers;
    for (const auto& r : run.dataset->ranks)
        for (size_t s = 0; s < r->steps.size(); ++s) numbers.insert(r->steps.number[s]);
    all = numbers.size();
    for (int k = 0; k < skip && !numbers.empty(); ++k) numbers.erase(numbers.begin());
    return numbers;
}

// One rank of one run of a side, walked into the trie.
class RankWalker {
public:
    RankWalker(Trie& trie, const RankData& r, int side, int run, int rank, const std::set<int64_t>& kept, bool noSteps)
        : m_trie(trie), m_r(r), m_side(side), m_run(run), m_rank(rank), m_kept(kept), m_noSteps(noSteps),
          m_memo(r.slices.size(), -2), m_merged(r.slices.size(), false) {}

    // Every call-site operator starting in a kept step: its node's count (and, for cpuTime, its duration).
    void countOps(bool cpuTime) {
        const auto& s = m_r.slices;
        for (size_t i = 0; i < s.size(); ++i) {
            if (!isCallSite(m_r, i) || !opInKeptStep(i)) continue;
            const int node = opNode(static_cast<int64_t>(i));
            if (m_merged[i]) continue;
            TrieNode& n = m_trie.nodes[size_t(node)];
            n.count[m_side] += 1;
            if (cpuTime) n.ns[m_side] += static_cast<double>(s.dur[i]);
            noteFirst(n.first[m_side], {m_run, m_rank, static_cast<int64_t>(i), false, s.ts[i], s.dur[i]});
        }
    }

    // Every kernel, memcpy and memset in a kept step: a leaf under the operator that launched it (flat: at the
    // root), its duration added to the leaf and every node above it.
    void addGpu(bool flat) {
        const auto& g = m_r.gpu;
        const bool links = g.cpuOp.size() == g.size();
        for (size_t i = 0; i < g.size(); ++i) {
            if (g.kind[i] != EventKind::Kernel && g.kind[i] != EventKind::Memcpy && g.kind[i] != EventKind::Memset)
                continue;
            if (!gpuInKeptStep(i)) continue;
            int parent = -1;
            if (!flat) {
                parent = links && g.cpuOp[i] >= 0 ? opNode(g.cpuOp[i]) : -1;
                if (parent < 0) parent = m_trie.child(-1, kNoOperator, false);
            }
            const int leaf = m_trie.child(parent, std::string(m_r.strings.view(g.name[i])), true);
            TrieNode& l = m_trie.nodes[size_t(leaf)];
            l.count[m_side] += 1;
            noteFirst(l.first[m_side], {m_run, m_rank, static_cast<int64_t>(i), true, g.ts[i], g.dur[i]});
            for (int n = leaf; n >= 0; n = m_trie.nodes[size_t(n)].parent)
                m_trie.nodes[size_t(n)].ns[m_side] += static_cast<double>(g.dur[i]);
            if (parent >= 0 && !flat && m_trie.nodes[size_t(parent)].name == kNoOperator)
                m_trie.nodes[size_t(parent)].count[m_side] += 1;
        }
    }

private:
    bool opInKeptStep(size_t i) const {
        if (m_noSteps) return true;
        const auto& st = m_r.steps;
        for (size_t k = 0; k < st.size(); ++k)
            if (m_r.slices.ts[i] >= st.start[k] && m_r.slices.ts[i] < st.end[k]) return m_kept.count(st.number[k]) != 0;
        return false;
    }
    bool gpuInKeptStep(size_t i) const {
        if (m_noSteps) return true;
        const int32_t s = m_r.gpu.step[i];
        return s >= 0 && static_cast<size_t>(s) < m_r.steps.size() && m_kept.count(m_r.steps.number[size_t(s)]) != 0;
    }

    const std::string& nameOf(size_t i) {
        auto [it, fresh] = m_names.try_emplace(m_r.slices.name[i]);
        if (fresh) it->second = normalizedOpName(m_r.strings.view(m_r.slices.name[i]));
        return it->second;
    }

    // The trie node of the call-site path ending at the nearest call-site operator at or above slice `op`; -1
    // when there is none. Memoised per slice.
    int opNode(int64_t op) {
        const auto& s = m_r.slices;
        const bool parents = s.parent.size() == s.size();
        std::vector<size_t> chain;  // call sites from `op` upward, until one already known
        int known = -1;
        for (int guard = 0; op >= 0 && static_cast<size_t>(op) < s.size() && guard < 4096; ++guard) {
            const size_t i = static_cast<size_t>(op);
            if (m_memo[i] != -2) {
                known = m_memo[i];
                break;
            }
            chain.push_back(i);
            if (!parents) break;
            op = s.parent[i];
        }
        int node = known;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            // A call site named as the one just above it is that call site ("autograd::engine::evaluate_function:
            // X0" around "X0"): no node, no instance of its own.
            if (isCallSite(m_r, *it) && !(node >= 0 && m_trie.nodes[size_t(node)].name == nameOf(*it)))
                node = m_trie.child(node, nameOf(*it), false);
            else if (isCallSite(m_r, *it))
                m_merged[*it] = true;
            m_memo[*it] = node;
        }
        return node;
    }

    Trie& m_trie;
    const RankData& m_r;
    int m_side, m_run, m_rank;
    const std::set<int64_t>& m_kept;
    bool m_noSteps;
    std::vector<int> m_memo;  // slice -> trie node (-1: no call site; -2: not yet known)
    std::vector<bool> m_merged;  // call sites that are the call site just above them
    std::unordered_map<StrId, std::string> m_names;
};

bool hasCpuOps(const RunEntry& run) {
    for (const auto& r : run.dataset->ranks)
        for (size_t i = 0; i < r->slices.size(); ++i)
            if (isCallSite(*r, i)) return true;
    return false;
}

bool hasGpu(const RunEntry& run) {
    for (const auto& r : run.dataset->ranks)
        if (r->gpu.size() > 0) return true;
    return false;
}

// Walks one side's runs into the trie; fills its step count and messages.
void walkSide(Trie& trie, const std::vector<const RunEntry*>& runs, int side, bool flat, bool cpuTime,
              const DiffOptions& o, DiffSide& out, std::vector<std::string>& messages) {
    for (size_t k = 0; k < runs.size(); ++k) {
        const RunEntry& run = *runs[k];
        size_t all = 0;
        const std::set<int64_t> kept = keptStepNumbers(run, o.skipSteps, all);
        const bool noSteps = all == 0;
        if (noSteps) {
            out.perRun = true;
            messages.push_back(fmt::format("{}: no ProfilerStep#N found; the whole run counts as one step", run.label));
        } else if (kept.empty()) {
            messages.push_back(
                fmt::format("{}: --skip-steps {} leaves none of its {} steps", run.label, o.skipSteps, all));
            continue;
        }
        out.steps += noSteps ? 1 : kept.size();
        ++out.runs;
        for (size_t rank = 0; rank < run.dataset->ranks.size(); ++rank) {
            RankWalker w(trie, *run.dataset->ranks[rank], side, static_cast<int>(k), static_cast<int>(rank), kept,
                         noSteps);
            if (!flat) w.countOps(cpuTime);
            if (!cpuTime) w.addGpu(flat);
        }
    }
}

DiffStatus statusOf(const TrieNode& n, const DiffOptions& o) {
    const bool inA = n.count[0] > 0 || n.ns[0] > 0, inB = n.count[1] > 0 || n.ns[1] > 0;
    if (!inA) return DiffStatus::Added;
    if (!inB) return DiffStatus::Removed;
    const double dt = std::abs(n.ns[1] - n.ns[0]), dc = std::abs(n.count[1] - n.count[0]);
    const bool time = dt >= std::max(o.noiseFraction * std::max(n.ns[0], n.ns[1]), o.noiseFloorNs);
    const bool count = dc >= std::max(o.noiseFraction * std::max(n.count[0], n.count[1]), 0.5);
    return time || count ? DiffStatus::Changed : DiffStatus::Same;
}

// The trie in tree order (children by their larger time per step, then name), per step, statuses set; nodes with
// no time on either side dropped (unless every node has none).
void diffTreeInOrder(const Trie& trie, bool keepEmpty, const DiffOptions& o, StructuralDiff& out) {
    const double steps[2] = {std::max<double>(1.0, double(out.a.steps)), std::max<double>(1.0, double(out.b.steps))};
    std::vector<int> roots;
    for (const auto& [k, v] : trie.roots) roots.push_back(v);
    auto order = [&](std::vector<int>& v) {
        std::erase_if(v, [&](int n) { return !keepEmpty && trie.nodes[size_t(n)].ns[0] <= 0 && trie.nodes[size_t(n)].ns[1] <= 0; });
        std::stable_sort(v.begin(), v.end(), [&](int x, int y) {
            const TrieNode &a = trie.nodes[size_t(x)], &b = trie.nodes[size_t(y)];
            const double ka = std::max(a.ns[0] / steps[0], a.ns[1] / steps[1]);
            const double kb = std::max(b.ns[0] / steps[0], b.ns[1] / steps[1]);
            return ka != kb ? ka > kb : std::tie(a.leaf, a.name) < std::tie(b.leaf, b.name);
        });
    };
    struct Item {
        int trie, parent, depth;
    };
    order(roots);
    std::vector<Item> stack;
    for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, -1, 0});
    while (!stack.empty()) {
        const Item item = stack.back();
        stack.pop_back();
        const TrieNode& t = trie.nodes[size_t(item.trie)];
        DiffNode n;
        n.name = t.name;
        n.leaf = t.leaf;
        n.parent = item.parent;
        n.depth = item.depth;
        n.countA = t.count[0] / steps[0];
        n.countB = t.count[1] / steps[1];
        n.perStepNsA = t.ns[0] / steps[0];
        n.perStepNsB = t.ns[1] / steps[1];
        n.firstA = t.first[0];
        n.firstB = t.first[1];
        TrieNode perStep = t;
        perStep.count[0] = n.countA, perStep.count[1] = n.countB, perStep.ns[0] = n.perStepNsA, perStep.ns[1] = n.perStepNsB;
        n.status = statusOf(perStep, o);
        const int index = static_cast<int>(out.nodes.size());
        if (item.parent >= 0) out.nodes[size_t(item.parent)].children.push_back(index);
        out.nodes.push_back(std::move(n));
        std::vector<int> kids;
        for (const auto& [k, v] : t.children) kids.push_back(v);
        order(kids);
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back({*it, index, item.depth + 1});
    }
}

// Nodes per side, matched nodes, and the share of each side's time launched by matched operators (flat: held by
// matched names; CPU time: held by matched roots).
void matchFigures(StructuralDiff& d) {
    double matchedNs[2] = {0, 0}, total[2] = {0, 0};
    for (const DiffNode& n : d.nodes) {
        const bool inA = n.status != DiffStatus::Added, inB = n.status != DiffStatus::Removed;
        d.a.nodes += inA;
        d.b.nodes += inB;
        d.matched += inA && inB;
        const bool counts = d.cpuTime ? n.parent < 0 : n.leaf;
        if (!counts) continue;
        total[0] += n.perStepNsA;
        total[1] += n.perStepNsB;
        bool matched = inA && inB;
        if (!d.cpuTime && !d.byKernelName && n.parent >= 0) {
            const DiffNode& p = d.nodes[size_t(n.parent)];
            matched = p.status != DiffStatus::Added && p.status != DiffStatus::Removed;
        }
        if (!matched) continue;
        matchedNs[0] += n.perStepNsA;
        matchedNs[1] += n.perStepNsB;
    }
    d.a.totalNs = total[0];
    d.b.totalNs = total[1];
    d.timeShareA = total[0] > 0 ? matchedNs[0] / total[0] : 0.0;
    d.timeShareB = total[1] > 0 ? matchedNs[1] / total[1] : 0.0;
}

DiffSide sideOf(const std::vector<const RunEntry*>& runs) {
    DiffSide s;
    for (const RunEntry* r : runs) {
        s.label += (s.label.empty() ? "" : " + ") + r->label;
        s.paths.insert(s.paths.end(), r->paths.begin(), r->paths.end());
    }
    return s;
}

}  // namespace

StructuralDiff structuralDiff(const std::vector<const RunEntry*>& a0, const std::vector<const RunEntry*>& b0,
                              const DiffOptions& o) {
    std::vector<const RunEntry*> sides[2];
    for (int s = 0; s < 2; ++s)
        for (const RunEntry* r : s == 0 ? a0 : b0)
            if (r && r->dataset) sides[s].push_back(r);
    StructuralDiff d;
    d.a = sideOf(sides[0]);
    d.b = sideOf(sides[1]);
    bool gpu = false;
    for (int s = 0; s < 2; ++s) {
        DiffSide& side = s == 0 ? d.a : d.b;
        side.cpuOps = !sides[s].empty();
        for (const RunEntry* r : sides[s]) {
            side.cpuOps = side.cpuOps && hasCpuOps(*r);
            gpu = gpu || hasGpu(*r);
        }
    }
    d.cpuTime = !gpu;
    d.byKernelName = gpu && (!d.a.cpuOps || !d.b.cpuOps);
    for (const DiffSide* side : {&d.a, &d.b})
        if (!side->cpuOps && gpu)
            d.messages.push_back(fmt::format("{} has no CPU operators (a kernel trace): diffed by kernel name, not by "
                                             "call site",
                                             side->label));
    if (d.cpuTime)
        d.messages.push_back("no GPU activity on either side: node times are the CPU operators' durations");
    Trie trie;
    walkSide(trie, sides[0], 0, d.byKernelName, d.cpuTime, o, d.a, d.messages);
    walkSide(trie, sides[1], 1, d.byKernelName, d.cpuTime, o, d.b, d.messages);
    if (d.a.perRun || d.b.perRun) d.messages.push_back("times are per run where a run has no steps, not per step");
    diffTreeInOrder(trie, false, o, d);
    matchFigures(d);
    return d;
}

}  // namespace strobe::core
