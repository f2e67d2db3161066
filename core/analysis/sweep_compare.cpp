#include "core/analysis/sweep_compare.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <cmath>
#include <limits>
#include <tuple>
#include <numeric>
#include <random>
#include <regex>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "core/analysis/memory_timeline.h"
#include "core/analysis/structural_diff.h"
#include "core/io/regex_check.h"
#include "core/model/types.h"

namespace strobe::core {

namespace {

// One run's per-step time of each group over its kept steps, and its kernel counts.
struct RunSteps {
    size_t steps = 0;
    std::vector<double> stepNs;                      // the ProfilerStep span of each kept step
    std::map<std::string, std::vector<double>> gpu;  // busy, idle, kernels, memcpy, memset per kept step
    bool gpuActivity = false;
    std::map<std::string, std::vector<double>> perStep;  // group -> time per kept step
    std::map<std::string, uint64_t> count;
    std::vector<double> peakBytes;  // peak allocated device memory per kept step (empty: no memory events)
};

struct SweepCompareConfig {
    std::string key;
    std::map<std::string, std::string> parameters;
    std::vector<RunSteps> repeats;
};

// The call site of a kernel: the outermost CPU operator among the ancestors of its launching operator `op`
// (ProfilerStep#N ranges, which old traces record as operators, are not call sites); -1 when there is none.
int64_t outermostOp(const RankData& r, int64_t op) {
    const auto& s = r.slices;
    int64_t best = -1;
    const bool parents = s.parent.size() == s.size();
    for (int guard = 0; op >= 0 && size_t(op) < s.size() && guard < 4096; ++guard) {
        if (s.kind[size_t(op)] == EventKind::CpuOp && !r.strings.view(s.name[size_t(op)]).starts_with("ProfilerStep#"))
            best = op;
        if (!parents) break;
        op = s.parent[size_t(op)];
    }
    return best;
}

// An operator name as a call site, the same on every backend: structural_diff.h's normalizedOpName (one rule).
std::string callSiteName(std::string_view name) { return normalizedOpName(name); }

}  // namespace

KernelGrouper::KernelGrouper(SweepGroupBy by, const std::string& regex) : m_by(by) {
    if (m_by == SweepGroupBy::Regex) m_re.emplace(regex, std::regex::ECMAScript | std::regex::optimize);
}
KernelGrouper::~KernelGrouper() = default;

size_t KernelGrouper::KeyHash::operator()(const Key& k) const {
    return std::hash<const void*>()(k.rank) ^ (size_t(k.id) * 0x9E3779B97F4A7C15ull);
}

const std::string& KernelGrouper::of(const RankData& r, size_t i) {
    const auto& g = r.gpu;
    if (m_by == SweepGroupBy::Category) {
        auto [it, fresh] = m_cache.try_emplace({&r, 0x80000000u | uint32_t(g.category[i])});
        if (fresh) it->second = std::string(toString(g.category[i]));
        return it->second;
    }
    if (m_by == SweepGroupBy::Op) {
        const int64_t op = outermostOp(r, g.cpuOp.size() == g.size() ? g.cpuOp[i] : -1);
        const uint32_t id = op >= 0 && size_t(op) < r.slices.size() ? r.slices.name[size_t(op)] : UINT32_MAX;
        auto [it, fresh] = m_cache.try_emplace({&r, id});
        if (fresh) it->second = id == UINT32_MAX ? "(no operator)" : callSiteName(r.strings.view(id));
        return it->second;
    }
    auto [it, fresh] = m_cache.try_emplace({&r, g.name[i]});
    if (!fresh) return it->second;
    const std::string_view name = r.strings.view(g.name[i]);
    if (m_by == SweepGroupBy::Normalized) {
        it->second = normalizedKernelName(name);
    } else if (m_by == SweepGroupBy::Regex) {
        std::match_results<std::string_view::const_iterator> m;
        it->second = std::regex_search(name.begin(), name.end(), m, *m_re)
                         ? (m.size() > 1 && m[1].matched ? m[1].str() : m[0].str())
                         : "(other)";
    } else {
        it->second = std::string(name);
    }
    return it->second;
}

namespace {

bool isHex(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// A token (between underscores) that is a tile shape, an optional letter prefix then NxM[xK...] ("128x64",
// "MT128x128x32", "MI32x32x8x1"), or a hash (a hex run of 8 or more digits, "0x..." or bare with a digit in it).
bool variableToken(std::string_view t) {
    size_t i = 0;
    while (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i]))) ++i;
    std::string_view rest = t.substr(i);
    int numbers = 0;
    bool shape = !rest.empty();
    for (size_t k = 0; k < rest.size() && shape;) {
        size_t d = k;
        while (d < rest.size() && std::isdigit(static_cast<unsigned char>(rest[d]))) ++d;
        shape = d > k;
        ++numbers;
        k = d;
        if (k < rest.size()) {
            shape = shape && rest[k] == 'x' && k + 1 < rest.size();
            ++k;
        }
    }
    if (shape && numbers >= 2) return true;
    if (t.starts_with("0x") && t.size() >= 10 && isHex(t.substr(2))) return true;
    return t.size() >= 8 && isHex(t) && std::any_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
           std::any_of(t.begin(), t.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string normalizedKernelName(std::string_view name) {
    if (name.starts_with("void ")) name.remove_prefix(5);
    // The argument list and the template arguments (at any depth).
    std::string base;
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '(' && depth == 0 && i > 0) break;
        if (c == '<') ++depth;
        if (depth == 0) base += c;
        if (c == '>' && depth > 0) --depth;
    }
    // Tile shapes and hashes among the underscore-separated tokens.
    std::string out;
    size_t start = 0;
    while (start <= base.size()) {
        const size_t end = std::min(base.find('_', start), base.size());
        const std::string_view tok(base.data() + start, end - start);
        if (!tok.empty() && !variableToken(tok)) out += (out.empty() ? "" : "_") + std::string(tok);
        start = end + 1;
    }
    return out.empty() ? std::string(name) : out;
}

bool parseSweepRankBy(std::string_view text, SweepRankBy& by) {
    if (text == "auto") by = SweepRankBy::Auto;
    else if (text == "time") by = SweepRankBy::Time;
    else if (text == "delta") by = SweepRankBy::Delta;
    else if (text == "variance") by = SweepRankBy::Variance;
    else return false;
    return true;
}

bool parseSweepGroupBy(std::string_view text, SweepGroupBy& by, std::string& regex, std::string& error) {
    if (text == "name" || text == "kernel") by = SweepGroupBy::Name;
    else if (text == "category") by = SweepGroupBy::Category;
    else if (text == "op") by = SweepGroupBy::Op;
    else if (text == "normalized") by = SweepGroupBy::Normalized;
    else if (text.starts_with("regex:")) {
        regex = std::string(text.substr(6));
        if (auto limits = checkRegexLimits(regex); !limits) {
            error = limits.error().toString();
            return false;
        }
        try {
            std::regex re(regex, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            error = fmt::format("regex:{}: {}", regex, e.what());
            return false;
        }
        by = SweepGroupBy::Regex;
    } else {
        error = fmt::format("'{}' is not a kernel grouping: say name, category, op, normalized or regex:PATTERN", text);
        return false;
    }
    return true;
}

namespace {

// The slot of each kept step number (the first `skip` step numbers over all ranks dropped).
std::map<int64_t, size_t> keptSteps(const RunEntry& run, int skip, std::set<int64_t>& numbers) {
    for (const auto& r : run.dataset->ranks)
        for (size_t s = 0; s < r->steps.size(); ++s) numbers.insert(r->steps.number[s]);
    std::map<int64_t, size_t> index;
    int skipped = 0;
    for (int64_t n : numbers) {
        if (skipped++ < skip) continue;
        index.emplace(n, index.size());
    }
    return index;
}

// Step time per kept step: the latest end minus the earliest start of that ProfilerStep over the ranks; without
// steps, the run's extent (its first event to its last end).
std::vector<double> stepSpans(const RunEntry& run, const std::map<int64_t, size_t>& index, bool noSteps) {
    const size_t n = noSteps ? 1 : index.size();
    std::vector<TimeNs> lo(n, std::numeric_limits<TimeNs>::max()), hi(n, std::numeric_limits<TimeNs>::min());
    for (const auto& r : run.dataset->ranks) {
        if (noSteps) {
            for (size_t i = 0; i < r->slices.size(); ++i) {
                lo[0] = std::min(lo[0], r->slices.ts[i]);
                hi[0] = std::max(hi[0], r->slices.ts[i] + r->slices.dur[i]);
            }
            for (size_t i = 0; i < r->gpu.size(); ++i) {
                lo[0] = std::min(lo[0], r->gpu.ts[i]);
                hi[0] = std::max(hi[0], r->gpu.ts[i] + r->gpu.dur[i]);
            }
            continue;
        }
        for (size_t s = 0; s < r->steps.size(); ++s) {
            auto it = index.find(r->steps.number[s]);
            if (it == index.end()) continue;
            lo[it->second] = std::min(lo[it->second], r->steps.start[s]);
            hi[it->second] = std::max(hi[it->second], r->steps.end[s]);
        }
    }
    std::vector<double> out(n, 0.0);
    for (size_t i = 0; i < n; ++i) out[i] = hi[i] > lo[i] ? static_cast<double>(hi[i] - lo[i]) : 0.0;
    return out;
}

// The kept-step slot of GPU activity `i` of rank `r`, or npos.
size_t gpuSlot(const RankData& r, size_t i, const std::map<int64_t, size_t>& index, bool noSteps) {
    if (noSteps) return 0;
    if (r.gpu.step[i] < 0) return std::string::npos;
    auto it = index.find(r.steps.number[static_cast<size_t>(r.gpu.step[i])]);
    return it == index.end() ? std::string::npos : it->second;
}

// GPU rows per kept step: kernels, memcpy, memset (summed durations), busy (their union per GPU, summed over GPUs)
// and idle (GPUs x step time - busy, at least 0).
void gpuSeries(RunSteps& out, const RunEntry& run, const std::map<int64_t, size_t>& index, bool noSteps) {
    for (const char* k : {"busy", "idle", "kernels", "memcpy", "memset"}) out.gpu[k].assign(out.steps, 0.0);
    std::map<std::tuple<const RankData*, int16_t, size_t>, std::vector<std::pair<TimeNs, TimeNs>>> spans;
    std::set<std::pair<const RankData*, int16_t>> devices;
    for (const auto& r : run.dataset->ranks) {
        const auto& g = r->gpu;
        for (size_t i = 0; i < g.size(); ++i) {
            const size_t slot = gpuSlot(*r, i, index, noSteps);
            if (slot == std::string::npos) continue;
            const char* kind = g.kind[i] == EventKind::Kernel   ? "kernels"
                               : g.kind[i] == EventKind::Memcpy ? "memcpy"
                               : g.kind[i] == EventKind::Memset ? "memset"
                                                                : nullptr;
            if (!kind) continue;
            out.gpu[kind][slot] += static_cast<double>(g.dur[i]);
            spans[{r.get(), g.device[i], slot}].emplace_back(g.ts[i], g.ts[i] + g.dur[i]);
            devices.insert({r.get(), g.device[i]});
            out.gpuActivity = true;
        }
    }
    auto& busy = out.gpu["busy"];
    for (auto& [key, v] : spans) {
        std::sort(v.begin(), v.end());
        TimeNs start = v.front().first, end = v.front().second;
        double sum = 0;
        for (const auto& [a, b] : v) {
            if (a > end) {
                sum += static_cast<double>(end - start);
                start = a;
            }
            end = std::max(end, b);
        }
        busy[std::get<2>(key)] += sum + static_cast<double>(end - start);
    }
    for (size_t s = 0; s < out.steps; ++s)
        out.gpu["idle"][s] = std::max(0.0, static_cast<double>(devices.size()) * out.stepNs[s] - busy[s]);
}

// CPU operators per kept step (runs without GPU activity): the outermost operators (no operator around them but
// ProfilerStep#N), each in the step of its rank whose span holds its start.
void cpuOpSeries(RunSteps& out, const RunEntry& run, const std::map<int64_t, size_t>& index, bool noSteps) {
    for (const auto& r : run.dataset->ranks) {
        const auto& s = r->slices;
        for (size_t i = 0; i < s.size(); ++i) {
            if (s.kind[i] != EventKind::CpuOp || outermostOp(*r, static_cast<int64_t>(i)) != static_cast<int64_t>(i))
                continue;
            size_t slot = noSteps ? 0 : std::string::npos;
            for (size_t k = 0; !noSteps && k < r->steps.size(); ++k) {
                if (s.ts[i] < r->steps.start[k] || s.ts[i] >= r->steps.end[k]) continue;
                auto it = index.find(r->steps.number[k]);
                if (it != index.end()) slot = it->second;
                break;
            }
            if (slot == std::string::npos) continue;
            const std::string name = callSiteName(r->strings.view(s.name[i]));
            auto& v = out.perStep[name];
            v.resize(out.steps, 0.0);
            v[slot] += static_cast<double>(s.dur[i]);
            ++out.count[name];
        }
    }
}

// The peak allocated GPU memory of each kept step: the largest memoryPeakPerStep over the run's ranks and GPU devices
// (a run without steps: each device's peak). Left empty when no rank has memory events on a GPU.
void memorySeries(RunSteps& out, const RunEntry& run, const std::map<int64_t, size_t>& index, bool noSteps) {
    std::vector<double> peak(out.steps, 0.0);
    bool any = false;
    for (const auto& r : run.dataset->ranks) {
        for (const MemoryDevice& d : memoryTimeline(*r).devices) {
            if (d.deviceType == 0 || d.source == MemorySource::Smi || d.events.empty()) continue;  // CPU, telemetry
            any = true;
            if (noSteps) {
                peak[0] = std::max(peak[0], double(d.peakEvent().allocated));
                continue;
            }
            const std::vector<int64_t> perStep = memoryPeakPerStep(*r, d);
            for (size_t k = 0; k < perStep.size(); ++k)
                if (auto it = index.find(r->steps.number[k]); it != index.end())
                    peak[it->second] = std::max(peak[it->second], double(perStep[k]));
        }
    }
    if (any) out.peakBytes = std::move(peak);
}

// Kernels are assigned to the ProfilerStep the merge put them in (GpuTable::step); a run without steps counts as
// one step. The first `skip` step numbers (over all ranks) are dropped. cpuOps: group CPU operators, not kernels.
RunSteps stepsOf(const RunEntry& run, const SweepCompareOptions& o, bool cpuOps, std::vector<std::string>& messages) {
    RunSteps out;
    KernelGrouper grouper(o.groupBy, o.groupRegex);
    std::set<int64_t> numbers;
    const std::map<int64_t, size_t> index = keptSteps(run, o.skipSteps, numbers);
    const bool noSteps = numbers.empty();
    if (noSteps) {
        messages.push_back(fmt::format("{}: no ProfilerStep#N found; the whole run counts as one step", run.label));
    } else if (index.empty()) {
        messages.push_back(fmt::format("{}: --skip-steps {} leaves none of its {} steps", run.label, o.skipSteps,
                                       numbers.size()));
        return out;
    }
    out.steps = noSteps ? 1 : index.size();
    out.stepNs = stepSpans(run, index, noSteps);
    memorySeries(out, run, index, noSteps);
    gpuSeries(out, run, index, noSteps);
    if (cpuOps) {
        cpuOpSeries(out, run, index, noSteps);
        return out;
    }
    std::unordered_map<const std::string*, std::pair<std::vector<double>*, uint64_t*>> sinks;
    for (const auto& r : run.dataset->ranks) {
        const auto& g = r->gpu;
        for (size_t i = 0; i < g.size(); ++i) {
            if (g.kind[i] != EventKind::Kernel) continue;
            const size_t slot = gpuSlot(*r, i, index, noSteps);
            if (slot == std::string::npos) continue;
            // The group's accumulators, found once per distinct group (the grouper's strings have stable addresses).
            const std::string& group = grouper.of(*r, i);
            auto [slotIt, fresh] = sinks.try_emplace(&group);
            if (fresh) {
                slotIt->second.first = &out.perStep[group];
                slotIt->second.first->resize(out.steps, 0.0);
                slotIt->second.second = &out.count[group];
            }
            (*slotIt->second.first)[slot] += static_cast<double>(g.dur[i]);
            ++*slotIt->second.second;
        }
    }
    return out;
}

// stats::quantile (numpy's default percentile), 0 for no values.
double percentile(const std::vector<double>& sorted, double q) {
    return sorted.empty() ? 0.0 : stats::quantile(std::span<const double>(sorted), q);
}

double mean(const std::vector<double>& v) {
    return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// One run's per-step values of a row (zeros where the group is absent from a step or the run).
std::vector<double> seriesOf(const RunSteps& rep, SweepRowKind kind, const std::string& group) {
    const std::map<std::string, std::vector<double>>* m = kind == SweepRowKind::Gpu ? &rep.gpu : &rep.perStep;
    std::vector<double> steps;
    if (kind == SweepRowKind::Step) {
        steps = rep.stepNs;
    } else if (auto it = m->find(group); it != m->end()) {
        steps = it->second;
    }
    steps.resize(rep.steps, 0.0);
    return steps;
}

// Per-step values of one row: one vector per repeat (byRepeat) or all steps in one.
std::vector<std::vector<double>> nestedSamplesOf(const SweepCompareConfig& c, SweepRowKind kind,
                                                 const std::string& group, bool byRepeat) {
    std::vector<std::vector<double>> out;
    for (const auto& rep : c.repeats) {
        if (!rep.steps) continue;
        std::vector<double> steps = seriesOf(rep, kind, group);
        if (byRepeat || out.empty()) out.push_back(std::move(steps));
        else out.front().insert(out.front().end(), steps.begin(), steps.end());
    }
    return out;
}

size_t stepCount(const SweepCompareConfig& c) {
    size_t n = 0;
    for (const auto& rep : c.repeats) n += rep.steps;
    return n;
}

void fillStats(SweepCompareRow& row, const SweepCompareConfig& c) {
    auto nested = nestedSamplesOf(c, row.kind, row.group, false);
    std::vector<double> v = nested.empty() ? std::vector<double>{} : std::move(nested.front());
    for (const auto& rep : c.repeats) {
        auto it = rep.count.find(row.group);
        if (row.kind == SweepRowKind::Group && it != rep.count.end()) row.count += it->second;
    }
    row.runs = c.repeats.size();
    row.steps = stepCount(c);
    std::sort(v.begin(), v.end());
    row.meanNs = mean(v);
    row.perStepNs = row.meanNs;
    row.medianNs = percentile(v, 0.5);
    row.p5Ns = percentile(v, 0.05);
    row.p95Ns = percentile(v, 0.95);
    double ss = 0;
    for (double x : v) ss += (x - row.meanNs) * (x - row.meanNs);
    row.stddevNs = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
    row.cv = row.meanNs > 0 ? row.stddevNs / row.meanNs : 0.0;
    row.stepsNs = std::move(v);
}

struct Test {
    SweepCompareRow* row = nullptr;
    double baseMedian = 0;
    std::vector<double> deltas;  // bootstrap distribution of the change of the median, ns, sorted
    double p = 1.0;
};

// Resamples `v` (repeats x per-step times): repeats with replacement, then the steps of each drawn repeat with
// replacement (a two-level bootstrap, so that a handful of repeats does not hide the step-to-step noise inside
// them); the median of the drawn steps. One inner vector: a plain bootstrap of steps. Mirrored exactly (the same
// mt19937_64 draws, `rng() % n`) by tests/data/expected/sweep_step_ci.py.
double drawMedian(const std::vector<std::vector<double>>& v, std::mt19937_64& rng, std::vector<double>& buf) {
    buf.clear();
    for (size_t i = 0; i < v.size(); ++i) {
        const auto& rep = v[static_cast<size_t>(rng() % v.size())];
        for (size_t j = 0; j < rep.size(); ++j) buf.push_back(rep[static_cast<size_t>(rng() % rep.size())]);
    }
    std::sort(buf.begin(), buf.end());
    return percentile(buf, 0.5);
}

// Every comparison starts from the same seed, so that a row's interval does not depend on which other rows exist.
Test bootstrap(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b, uint64_t seed,
               int resamples) {
    Test t;
    std::mt19937_64 rng(seed);
    std::vector<double> buf;
    size_t le = 0, ge = 0;
    for (int k = 0; k < resamples; ++k) {
        const double ma = drawMedian(a, rng, buf);
        const double mb = drawMedian(b, rng, buf);
        const double d = ma - mb;
        t.deltas.push_back(d);
        le += d <= 0;
        ge += d >= 0;
    }
    std::sort(t.deltas.begin(), t.deltas.end());
    if (!t.deltas.empty())
        t.p = std::min(1.0, 2.0 * static_cast<double>(std::min(le, ge)) / static_cast<double>(t.deltas.size()));
    return t;
}

// The baseline configuration of each configuration (index into configs, or -1), or an error message.
std::vector<int> baselines(const std::vector<SweepCompareConfig>& configs, const RunSet& runs,
                           const std::string& spec, std::string& error) {
    std::vector<int> out(configs.size(), -1);
    // A run label or path first (labels may hold '=': "bs=1/rep0"), then KEY=VALUE.
    for (const auto& r : runs) {
        if (r.label != spec && r.path() != spec) continue;
        for (size_t c = 0; c < configs.size(); ++c)
            if (configs[c].key == r.key()) std::fill(out.begin(), out.end(), static_cast<int>(c));
        return out;
    }
    const auto eq = spec.find('=');
    if (eq == std::string::npos) {
        error = fmt::format("baseline '{}' names no run (give a run label, a run path or KEY=VALUE)", spec);
        return out;
    }
    const std::string key = spec.substr(0, eq), value = spec.substr(eq + 1);
    bool any = false;
    for (size_t c = 0; c < configs.size(); ++c) {
        auto mine = configs[c].parameters;
        if (!mine.count(key)) continue;
        for (size_t b = 0; b < configs.size(); ++b) {
            auto theirs = configs[b].parameters;
            auto it = theirs.find(key);
            if (it == theirs.end() || it->second != value) continue;
            any = true;
            mine.erase(key);
            theirs.erase(key);
            bool same = mine.size() == theirs.size();
            for (auto m = mine.begin(); same && m != mine.end(); ++m) {
                auto t = theirs.find(m->first);
                same = t != theirs.end() && t->second == m->second;
            }
            if (same) out[c] = static_cast<int>(b);
            mine = configs[c].parameters;
        }
    }
    if (!any) error = fmt::format("baseline '{}': no configuration has {} = {}", spec, key, value);
    return out;
}

std::vector<SweepCompareConfig> configurationsOf(const RunSet& runs, const SweepCompareOptions& o, bool cpuOps,
                                                 std::vector<std::string>& messages) {
    std::vector<SweepCompareConfig> configs;
    for (const auto& r : runs) {
        if (!r.dataset) continue;
        const std::string key = r.key();
        auto it = std::find_if(configs.begin(), configs.end(), [&](const SweepCompareConfig& c) { return c.key == key; });
        if (it == configs.end()) {
            configs.push_back({key, parameterTexts(r.parameters), {}});
            it = configs.end() - 1;
        }
        RunSteps s = stepsOf(r, o, cpuOps, messages);
        if (s.steps) it->repeats.push_back(std::move(s));
    }
    return configs;
}

}  // namespace

namespace {

// How far the groups line up across configurations: the groups found in every one, and the share of each
// configuration's kernel time per step they hold (the match rate, low when comparing kernel names across GPU
// vendors, high when grouping by call site).
std::string matchRate(const std::vector<SweepCompareRow>& rows, size_t configs) {
    std::map<std::string, size_t> seen;
    std::map<std::string, std::pair<double, double>> time;  // config -> (in common groups, all)
    for (const auto& r : rows) ++seen[r.group];
    for (const auto& r : rows) {
        auto& t = time[r.config];
        t.second += r.perStepNs;
        if (seen[r.group] == configs) t.first += r.perStepNs;
    }
    size_t common = 0;
    for (const auto& [g, n] : seen) common += n == configs;
    double lo = 100, hi = 0;
    for (const auto& [c, t] : time) {
        const double pct = t.second > 0 ? 100.0 * t.first / t.second : 0.0;
        lo = std::min(lo, pct);
        hi = std::max(hi, pct);
    }
    return fmt::format("groups found in every configuration: {} of {}, holding {:.1f}%{} of each configuration's "
                       "kernel time per step",
                       common, seen.size(), lo, hi - lo >= 0.05 ? fmt::format("-{:.1f}%", hi) : std::string());
}

// Keeps the rows of the `top` groups with the largest `key` (all when top is 0), ordered by key, largest first
// (ties by name); rows of one group keep their order.
void keepTop(std::vector<SweepCompareRow>& rows, const std::map<std::string, double>& key, int top) {
    std::vector<std::pair<double, std::string>> order;
    for (const auto& [g, w] : key) order.emplace_back(-w, g);
    std::sort(order.begin(), order.end());
    if (top > 0 && order.size() > static_cast<size_t>(top)) order.resize(static_cast<size_t>(top));
    std::map<std::string, size_t> rank;
    for (size_t i = 0; i < order.size(); ++i) rank[order[i].second] = i;
    std::erase_if(rows, [&](const SweepCompareRow& r) { return !rank.count(r.group); });
    std::stable_sort(rows.begin(), rows.end(), [&](const SweepCompareRow& a, const SweepCompareRow& b) {
        return rank[a.group] < rank[b.group];
    });
}

}  // namespace

namespace {

// A configuration's sample, as a reason when it allows no interval ("" when it does).
std::string sampleTooSmall(const SweepCompareConfig& c) {
    const size_t runs = c.repeats.size(), steps = stepCount(c);
    if (runs >= kMinRunsForInterval || steps >= kMinStepsForInterval) return {};
    return fmt::format("n/a: {} has {} run{} and {} kept step{}; an interval needs {} runs or {} kept steps",
                       c.parameters.empty() ? c.key : parametersText(c.parameters), runs, runs == 1 ? "" : "s", steps,
                       steps == 1 ? "" : "s", kMinRunsForInterval, kMinStepsForInterval);
}

// The rows of one configuration: step time, the GPU rows (with GPU activity) and its groups.
void rowsOf(const SweepCompareConfig& c, bool gpu, SweepComparison& out) {
    auto make = [&](SweepRowKind kind, const std::string& group) {
        SweepCompareRow row;
        row.kind = kind;
        row.group = group;
        row.config = c.key;
        row.parameters = c.parameters;
        fillStats(row, c);
        return row;
    };
    if (c.repeats.empty()) return;
    out.stepRows.push_back(make(SweepRowKind::Step, "step"));
    if (gpu)
        for (const char* g : {"busy", "idle", "kernels", "memcpy", "memset"})
            out.gpuRows.push_back(make(SweepRowKind::Gpu, g));
    std::set<std::string> groups;
    for (const auto& rep : c.repeats)
        for (const auto& [g, v] : rep.perStep) groups.insert(g);
    for (const auto& g : groups) out.rows.push_back(make(SweepRowKind::Group, g));
}

// The change of every row against its baseline configuration and, where both samples allow one, its bootstrap
// distribution; rows without an interval say why.
std::vector<Test> changes(std::vector<SweepCompareRow*>& all, const std::vector<SweepCompareConfig>& configs,
                          const std::vector<int>& base, const SweepCompareOptions& o, bool& byRuns, bool& bySteps) {
    std::map<std::string, size_t> index;
    for (size_t c = 0; c < configs.size(); ++c) index[configs[c].key] = c;
    std::vector<Test> tests;
    for (SweepCompareRow* row : all) {
        const size_t c = index[row->config];
        if (base[c] < 0) {
            row->reason = "no baseline configuration for it";
            continue;
        }
        if (static_cast<size_t>(base[c]) == c) {
            row->reason = "baseline";
            continue;
        }
        const SweepCompareConfig& b = configs[static_cast<size_t>(base[c])];
        std::vector<double> bs;
        if (auto nested = nestedSamplesOf(b, row->kind, row->group, false); !nested.empty()) bs = nested.front();
        std::sort(bs.begin(), bs.end());
        const double baseMedian = percentile(bs, 0.5);
        row->deltaNs = row->medianNs - baseMedian;
        if (baseMedian > 0) row->deltaPct = 100.0 * *row->deltaNs / baseMedian;
        std::string small = sampleTooSmall(configs[c]);
        if (small.empty()) small = sampleTooSmall(b);
        if (!small.empty()) {
            row->reason = small;
            continue;
        }
        const bool byRepeat = configs[c].repeats.size() >= kMinRunsForInterval && b.repeats.size() >= kMinRunsForInterval;
        (byRepeat ? byRuns : bySteps) = true;
        row->resampled = byRepeat ? "runs" : "steps";
        Test t = bootstrap(nestedSamplesOf(configs[c], row->kind, row->group, byRepeat),
                           nestedSamplesOf(b, row->kind, row->group, byRepeat), o.seed, o.resamples);
        t.row = row;
        t.baseMedian = baseMedian;
        tests.push_back(std::move(t));
    }
    return tests;
}

// Holm: the i-th smallest p is tested at alpha / (m - i), so its CI is the 1 - alpha / (m - i) percentile interval;
// once one is not significant, none after it is.
void holm(std::vector<Test>& tests, double confidence) {
    std::stable_sort(tests.begin(), tests.end(), [](const Test& a, const Test& b) { return a.p < b.p; });
    const double alpha = 1.0 - confidence;
    bool stillRejecting = true;
    for (size_t i = 0; i < tests.size(); ++i) {
        const double level = alpha / static_cast<double>(tests.size() - i);
        SweepCompareRow& row = *tests[i].row;
        row.p = tests[i].p;
        row.ciLevel = level;
        row.ciLowNs = percentile(tests[i].deltas, level / 2);
        row.ciHighNs = percentile(tests[i].deltas, 1 - level / 2);
        if (tests[i].baseMedian > 0) {
            row.ciLowPct = 100.0 * *row.ciLowNs / tests[i].baseMedian;
            row.ciHighPct = 100.0 * *row.ciHighNs / tests[i].baseMedian;
        }
        const bool excludes = *row.ciLowNs > 0 || *row.ciHighNs < 0;
        stillRejecting = stillRejecting && excludes;
        row.significant = stillRejecting && excludes;
    }
}

}  // namespace

std::string_view toString(SweepRowKind kind) {
    return kind == SweepRowKind::Step ? "step" : kind == SweepRowKind::Gpu ? "gpu" : "group";
}

SweepComparison compareSweep(const RunSet& runs, const SweepCompareOptions& o) {
    SweepComparison out;
    out.gpuActivity = std::any_of(runs.begin(), runs.end(), [](const RunEntry& r) {
        return r.dataset && std::any_of(r.dataset->ranks.begin(), r.dataset->ranks.end(),
                                        [](const auto& rank) { return rank->gpu.size() > 0; });
    });
    const std::vector<SweepCompareConfig> configs = configurationsOf(runs, o, !out.gpuActivity, out.messages);
    for (const auto& c : configs) rowsOf(c, out.gpuActivity, out);
    for (const auto& c : configs) {
        SweepMemoryRow m;
        m.config = c.key;
        m.parameters = c.parameters;
        for (const RunSteps& s : c.repeats) {
            if (s.peakBytes.empty()) continue;
            ++m.runs;
            m.stepsBytes.insert(m.stepsBytes.end(), s.peakBytes.begin(), s.peakBytes.end());
        }
        if (m.stepsBytes.empty()) continue;
        std::sort(m.stepsBytes.begin(), m.stepsBytes.end());
        m.steps = m.stepsBytes.size();
        m.medianBytes = percentile(m.stepsBytes, 0.5);
        m.maxBytes = m.stepsBytes.back();
        out.memoryRows.push_back(std::move(m));
    }
    if (configs.size() >= 2) out.messages.insert(out.messages.begin(), matchRate(out.rows, configs.size()));
    if (!out.gpuActivity && !configs.empty())
        out.messages.push_back("no GPU activity in these runs: compared by step time and CPU operators (the outermost "
                               "operators of each step, by name)");

    // Spread across configurations: a configuration without the group counts as 0 time per step.
    std::map<std::string, std::vector<double>> perConfig;
    std::map<std::string, double> weight, spread, change;
    for (const auto& r : out.rows) {
        perConfig[r.group].push_back(r.perStepNs);
        weight[r.group] = std::max(weight[r.group], r.perStepNs);
    }
    for (auto& [g, v] : perConfig) {
        v.resize(configs.size(), 0.0);
        const double m = mean(v);
        double ss = 0;
        for (double x : v) ss += (x - m) * (x - m);
        spread[g] = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0.0;
    }
    for (auto& r : out.rows) r.spreadNs = spread[r.group];

    const bool oneEach =
        std::all_of(configs.begin(), configs.end(), [](const SweepCompareConfig& c) { return c.repeats.size() < 2; });
    if (oneEach && !configs.empty())
        out.messages.push_back("one run per configuration: no noise estimate across repeats exists; "
                               "confidence intervals resample steps and show step-to-step noise only");
    std::string error;
    const std::vector<int> base = o.baseline.empty() ? std::vector<int>() : baselines(configs, runs, o.baseline, error);
    const bool compared = !o.baseline.empty() && error.empty();
    if (!error.empty()) out.messages.push_back(error);
    std::vector<SweepCompareRow*> all;
    for (auto* v : {&out.stepRows, &out.gpuRows, &out.rows})
        for (auto& r : *v) {
            all.push_back(&r);
            if (!compared) r.reason = "no baseline";
        }
    if (compared) {
        out.baseline = o.baseline;
        out.confidence = o.confidence;
        if (!base.empty() && base.front() >= 0 &&
            std::all_of(base.begin(), base.end(), [&](int b) { return b == base.front(); }))
            out.baselineConfig = configs[static_cast<size_t>(base.front())].key;
        bool byRuns = false, bySteps = false;
        // Three families, each Holm-corrected over its configurations (and groups): step time, the primary
        // question, is not diluted by the hundreds of kernel-group comparisons beside it.
        std::vector<Test> family[3];
        for (Test& t : changes(all, configs, base, o, byRuns, bySteps))
            family[static_cast<int>(t.row->kind)].push_back(std::move(t));
        for (auto& f : family) holm(f, o.confidence);
        const std::string over = byRuns && bySteps ? "runs then the steps within each where both configurations have "
                                                     ">= 2 runs, else steps (each row says which)"
                                 : byRuns          ? "runs then the steps within each"
                                 : bySteps         ? "steps"
                                                   : "nothing (no configuration has 2 runs or 5 kept steps)";
        out.method = fmt::format("bootstrap percentile CI of the change in median time per step, resampling {} ({} "
                                 "resamples, seed {}); Holm-corrected within each family: step time ({} comparisons), GPU "
                                 "({}), groups ({})",
                                 over, o.resamples, o.seed, family[0].size(), family[1].size(), family[2].size());
        for (const auto& r : out.rows)
            if (r.deltaNs) change[r.group] = std::max(change[r.group], std::abs(*r.deltaNs));
    }
    const SweepRankBy rankBy = o.rankBy != SweepRankBy::Auto ? o.rankBy
                               : compared                     ? SweepRankBy::Delta
                                                              : SweepRankBy::Time;
    if (rankBy == SweepRankBy::Variance)
        out.messages.push_back("groups ranked by their spread across configurations (standard deviation of time per step)");
    if (rankBy == SweepRankBy::Delta && !compared)
        out.messages.push_back("no baseline: groups ranked by time per step, not by change");
    if (rankBy == SweepRankBy::Delta && compared) {
        for (const auto& [g, w] : weight) change.try_emplace(g, 0.0);  // groups without a change rank last
        keepTop(out.rows, change, o.top);
    } else {
        keepTop(out.rows, rankBy == SweepRankBy::Variance ? spread : weight, o.top);
    }
    return out;
}

std::string parametersText(const std::map<std::string, std::string>& parameters, std::string_view separator) {
    std::string out;
    for (const auto& [k, v] : parameters) {
        if (!out.empty()) out += separator;
        out += k + "=" + v;
    }
    return out;
}

std::string parametersText(const RunParameters& parameters, std::string_view separator) {
    return parametersText(parameterTexts(parameters), separator);
}

namespace {

// Whether `s` is a number (the whole text), and its value.
bool sweepOrderNumber(const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

}  // namespace

std::vector<std::string> sweepConfigurationOrder(const RunSet& runs) {
    struct Conf {
        std::string key;
        std::map<std::string, std::string> params;
    };
    std::vector<Conf> confs;
    std::map<std::string, bool> numeric;  // axis -> every value is a number
    for (const auto& r : runs) {
        const std::string key = r.key();
        if (std::any_of(confs.begin(), confs.end(), [&](const Conf& c) { return c.key == key; })) continue;
        confs.push_back({key, parameterTexts(r.parameters)});
        for (const auto& [axis, value] : confs.back().params) {
            double v = 0;
            auto [it, added] = numeric.try_emplace(axis, true);
            it->second = it->second && sweepOrderNumber(value, v);
        }
    }
    auto before = [&](const Conf& a, const Conf& b) {
        for (const auto& [axis, isNumber] : numeric) {
            const auto x = a.params.find(axis), y = b.params.find(axis);
            if ((x == a.params.end()) != (y == b.params.end())) return y == b.params.end();
            if (x == a.params.end() || x->second == y->second) continue;
            double u = 0, v = 0;
            if (isNumber && sweepOrderNumber(x->second, u) && sweepOrderNumber(y->second, v) && u != v) return u < v;
            return x->second < y->second;
        }
        return false;
    };
    std::stable_sort(confs.begin(), confs.end(), before);
    std::vector<std::string> out;
    for (auto& c : confs) out.push_back(std::move(c.key));
    return out;
}

std::string defaultSweepBaseline(const RunSet& runs) {
    const auto order = sweepConfigurationOrder(runs);
    if (order.size() < 2) return {};
    for (const auto& r : runs)
        if (r.key() == order.front()) return r.path().empty() ? r.label : r.path();
    return {};
}

}  // namespace strobe::core
