#include "core/analysis/sweep_compare.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <cmath>
#include <numeric>
#include <random>
#include <regex>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "core/io/regex_check.h"
#include "core/model/types.h"

namespace strobe::core {

namespace {

// One run's per-step time of each group over its kept steps, and its kernel counts.
struct RunSteps {
    size_t steps = 0;
    std::map<std::string, std::vector<double>> perStep;  // group -> time per kept step
    std::map<std::string, uint64_t> count;
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

// An operator name as a call site, the same on every backend: autograd nodes lose their version suffix and their
// backend prefix ("CudnnConvolutionBackward", "MiopenConvolutionBackward0" and "ConvolutionBackward0" are all
// "ConvolutionBackward"; "ReluBackward1" is "ReluBackward"; "autograd::engine::evaluate_function: X" is X).
std::string callSiteName(std::string_view name) {
    constexpr std::string_view kEngine = "autograd::engine::evaluate_function: ";  // newer PyTorch wraps nodes so
    if (name.starts_with(kEngine)) name.remove_prefix(kEngine.size());
    std::string n(name);
    if (n.find("Backward") == std::string::npos || n.find("::") != std::string::npos) return n;
    while (!n.empty() && std::isdigit(static_cast<unsigned char>(n.back()))) n.pop_back();
    for (const char* prefix : {"Cudnn", "Miopen", "Native", "Mkldnn", "Thnn", "Cuda"})
        if (n.starts_with(prefix) && n.size() > std::strlen(prefix) + 8) {
            n.erase(0, std::strlen(prefix));
            break;
        }
    return n;
}

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

// Kernels are assigned to the ProfilerStep the merge put them in (GpuTable::step); a run without steps counts as
// one step. The first `skip` step numbers (over all ranks) are dropped.
RunSteps stepsOf(const RunEntry& run, const SweepCompareOptions& o, std::vector<std::string>& messages) {
    RunSteps out;
    KernelGrouper grouper(o.groupBy, o.groupRegex);
    std::set<int64_t> numbers;
    for (const auto& r : run.dataset->ranks)
        for (size_t s = 0; s < r->steps.size(); ++s) numbers.insert(r->steps.number[s]);
    const bool noSteps = numbers.empty();
    std::map<int64_t, size_t> index;
    int skipped = 0;
    for (int64_t n : numbers) {
        if (skipped++ < o.skipSteps) continue;
        index.emplace(n, index.size());
    }
    if (noSteps) {
        messages.push_back(fmt::format("{}: no ProfilerStep#N found; the whole run counts as one step", run.label));
    } else if (index.empty()) {
        messages.push_back(fmt::format("{}: --skip-steps {} leaves none of its {} steps", run.label, o.skipSteps,
                                       numbers.size()));
        return out;
    }
    out.steps = noSteps ? 1 : index.size();
    std::unordered_map<const std::string*, std::pair<std::vector<double>*, uint64_t*>> sinks;
    for (const auto& r : run.dataset->ranks) {
        const auto& g = r->gpu;
        for (size_t i = 0; i < g.size(); ++i) {
            if (g.kind[i] != EventKind::Kernel) continue;
            size_t slot = 0;
            if (!noSteps) {
                if (g.step[i] < 0) continue;
                auto it = index.find(r->steps.number[static_cast<size_t>(g.step[i])]);
                if (it == index.end()) continue;
                slot = it->second;
            }
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

// The samples a configuration contributes for one group: per-repeat means (byRepeat) or all per-step times.
std::vector<double> samplesOf(const SweepCompareConfig& c, const std::string& group, bool byRepeat) {
    std::vector<double> out;
    for (const auto& rep : c.repeats) {
        auto it = rep.perStep.find(group);
        std::vector<double> steps = it != rep.perStep.end() ? it->second : std::vector<double>{};
        steps.resize(rep.steps, 0.0);
        if (byRepeat) {
            if (rep.steps) out.push_back(mean(steps));
        } else {
            out.insert(out.end(), steps.begin(), steps.end());
        }
    }
    return out;
}

// Per-step times of one group: one vector per repeat (byRepeat) or all steps in one.
std::vector<std::vector<double>> nestedSamplesOf(const SweepCompareConfig& c, const std::string& group, bool byRepeat) {
    if (!byRepeat) return {samplesOf(c, group, false)};
    std::vector<std::vector<double>> out;
    for (const auto& rep : c.repeats) {
        if (!rep.steps) continue;
        auto it = rep.perStep.find(group);
        std::vector<double> steps = it != rep.perStep.end() ? it->second : std::vector<double>{};
        steps.resize(rep.steps, 0.0);
        out.push_back(std::move(steps));
    }
    return out;
}

void fillStats(SweepCompareRow& row, const SweepCompareConfig& c) {
    std::vector<double> v = samplesOf(c, row.group, false);
    for (const auto& rep : c.repeats) {
        auto it = rep.count.find(row.group);
        if (it != rep.count.end()) row.count += it->second;
    }
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
    size_t row = 0;
    std::vector<double> deltas;  // bootstrap distribution of the delta in %, sorted
    double p = 1.0;
};

// Resamples `v` (repeats × per-step times): repeats with replacement, then the steps of each drawn repeat with
// replacement (a two-level bootstrap, so that a handful of repeats does not hide the step-to-step noise inside
// them); the mean of the drawn steps. One inner vector: a plain bootstrap of steps.
double drawMean(const std::vector<std::vector<double>>& v, std::mt19937_64& rng) {
    double s = 0;
    size_t n = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        const auto& rep = v[static_cast<size_t>(rng() % v.size())];
        for (size_t j = 0; j < rep.size(); ++j) s += rep[static_cast<size_t>(rng() % rep.size())];
        n += rep.size();
    }
    return n ? s / static_cast<double>(n) : 0.0;
}

Test bootstrap(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
               std::mt19937_64& rng, int resamples) {
    Test t;
    auto draw = [&](const std::vector<std::vector<double>>& v) { return drawMean(v, rng); };
    size_t le = 0, ge = 0;
    for (int k = 0; k < resamples; ++k) {
        const double ma = draw(a), mb = draw(b);
        if (mb <= 0) continue;
        const double d = 100.0 * (ma / mb - 1.0);
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

std::vector<SweepCompareConfig> configurationsOf(const RunSet& runs, const SweepCompareOptions& o,
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
        RunSteps s = stepsOf(r, o, messages);
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

SweepComparison compareSweep(const RunSet& runs, const SweepCompareOptions& o) {
    SweepComparison out;
    const std::vector<SweepCompareConfig> configs = configurationsOf(runs, o, out.messages);

    // Groups by their largest time per step over the configurations, for ordering and --top.
    std::map<std::string, double> weight;
    std::vector<SweepCompareRow> rows;
    for (size_t c = 0; c < configs.size(); ++c) {
        std::set<std::string> groups;
        for (const auto& rep : configs[c].repeats)
            for (const auto& [g, v] : rep.perStep) groups.insert(g);
        for (const auto& g : groups) {
            SweepCompareRow row;
            row.group = g;
            row.config = configs[c].key;
            row.parameters = configs[c].parameters;
            fillStats(row, configs[c]);
            weight[g] = std::max(weight[g], row.perStepNs);
            rows.push_back(std::move(row));
        }
    }
    if (configs.size() >= 2) out.messages.push_back(matchRate(rows, configs.size()));
    // Spread across configurations: a configuration without the group counts as 0 time per step.
    std::map<std::string, std::vector<double>> perConfig;
    for (const auto& r : rows) perConfig[r.group].push_back(r.perStepNs);
    std::map<std::string, double> spread;
    for (auto& [g, v] : perConfig) {
        v.resize(configs.size(), 0.0);
        const double m = mean(v);
        double ss = 0;
        for (double x : v) ss += (x - m) * (x - m);
        spread[g] = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0.0;
    }
    for (auto& r : rows) r.spreadNs = spread[r.group];
    const SweepRankBy rankBy = o.rankBy != SweepRankBy::Auto ? o.rankBy
                               : o.baseline.empty()           ? SweepRankBy::Time
                                                              : SweepRankBy::Delta;
    if (rankBy == SweepRankBy::Variance) out.messages.push_back(
        "groups ranked by their spread across configurations (standard deviation of time per step)");
    std::map<std::string, double> key = rankBy == SweepRankBy::Variance ? spread : weight;
    keepTop(rows, key, rankBy == SweepRankBy::Delta ? 0 : o.top);
    std::map<std::string, size_t> configIndex;
    for (size_t c = 0; c < configs.size(); ++c) configIndex[configs[c].key] = c;

    const bool oneEach =
        std::all_of(configs.begin(), configs.end(), [](const SweepCompareConfig& c) { return c.repeats.size() < 2; });
    if (oneEach && !configs.empty())
        out.messages.push_back("one run per configuration: no noise estimate across repeats exists; "
                               "confidence intervals resample steps and show step-to-step noise only");
    std::string error;
    const std::vector<int> base = o.baseline.empty() ? std::vector<int>() : baselines(configs, runs, o.baseline, error);
    if (o.baseline.empty() || !error.empty()) {
        if (!error.empty()) out.messages.push_back(error);
        if (rankBy == SweepRankBy::Delta) {
            out.messages.push_back("no baseline: groups ranked by time per step, not by change");
            keepTop(rows, weight, o.top);
        }
        out.rows = std::move(rows);
        return out;
    }
    out.baseline = o.baseline;
    out.confidence = o.confidence;

    // The point change of every row against its baseline, and which rows can be tested.
    auto baselineOf = [&](size_t i) -> const SweepCompareConfig* {
        const size_t c = configIndex[rows[i].config];
        return base[c] < 0 || static_cast<size_t>(base[c]) == c ? nullptr : &configs[static_cast<size_t>(base[c])];
    };
    auto byRepeatOf = [&](size_t i, const SweepCompareConfig& b) {
        return configs[configIndex[rows[i].config]].repeats.size() >= 2 && b.repeats.size() >= 2;
    };
    size_t testable = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const SweepCompareConfig* b = baselineOf(i);
        if (!b) continue;
        const bool byRepeat = byRepeatOf(i, *b);
        const double mb = mean(samplesOf(*b, rows[i].group, byRepeat));
        const std::vector<double> sa = samplesOf(configs[configIndex[rows[i].config]], rows[i].group, byRepeat);
        if (sa.empty() || mb <= 0) continue;
        rows[i].deltaPct = 100.0 * (mean(sa) / mb - 1.0);
        ++testable;
    }
    // Ranked by change with --top: only the top K groups are resampled; the correction still counts every
    // testable comparison (Bonferroni over all of them, which needs no p-value of the rows left out and is never
    // less strict than Holm over all of them would be).
    const bool topByDelta = rankBy == SweepRankBy::Delta && o.top > 0;
    if (topByDelta) {
        std::map<std::string, double> largest;
        for (const auto& r : rows) largest[r.group] = std::max(largest[r.group], r.deltaPct ? std::abs(*r.deltaPct) : 0.0);
        keepTop(rows, largest, o.top);
    }

    std::mt19937_64 rng(o.seed);
    std::vector<Test> tests;
    bool usedRepeats = false, usedSteps = false;
    for (size_t i = 0; i < rows.size(); ++i) {
        const SweepCompareConfig* b = baselineOf(i);
        if (!b || !rows[i].deltaPct) continue;
        const bool byRepeat = byRepeatOf(i, *b);
        (byRepeat ? usedRepeats : usedSteps) = true;
        Test t = bootstrap(nestedSamplesOf(configs[configIndex[rows[i].config]], rows[i].group, byRepeat),
                           nestedSamplesOf(*b, rows[i].group, byRepeat), rng, o.resamples);
        if (t.deltas.empty()) continue;
        t.row = i;
        tests.push_back(std::move(t));
    }
    // Holm: the i-th smallest p is tested at alpha / (m - i), so its CI is the 1 - alpha / (m - i) percentile
    // interval; once one is not significant, none after it is. Bonferroni: every test at alpha / m.
    std::stable_sort(tests.begin(), tests.end(), [](const Test& a, const Test& b) { return a.p < b.p; });
    const double alpha = 1.0 - o.confidence;
    bool stillRejecting = true;
    for (size_t i = 0; i < tests.size(); ++i) {
        const double level = topByDelta ? alpha / static_cast<double>(std::max<size_t>(1, testable))
                                        : alpha / static_cast<double>(tests.size() - i);
        SweepCompareRow& row = rows[tests[i].row];
        row.ciLowPct = percentile(tests[i].deltas, level / 2);
        row.ciHighPct = percentile(tests[i].deltas, 1 - level / 2);
        const bool excludes = *row.ciLowPct > 0 || *row.ciHighPct < 0;
        stillRejecting = topByDelta || (stillRejecting && excludes);
        row.significant = stillRejecting && excludes;
    }
    const std::string over = usedRepeats && usedSteps
                                 ? "repeats then the steps within each (where both configurations have >= 2 repeats), "
                                   "else steps"
                             : usedRepeats ? "repeats then the steps within each"
                                           : "steps";
    out.method = topByDelta
                     ? fmt::format("bootstrap percentile CI of the change in mean time per step, resampling {} ({} "
                                   "resamples, seed {}) for the top {} groups by change; Bonferroni-corrected over "
                                   "all {} comparisons (groups x configurations)",
                                   over, o.resamples, o.seed, o.top, testable)
                     : fmt::format("bootstrap percentile CI of the change in mean time per step, resampling {} ({} "
                                   "resamples, seed {}); Holm-corrected over {} comparisons (groups x configurations)",
                                   over, o.resamples, o.seed, tests.size());
    out.rows = std::move(rows);
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

}  // namespace strobe::core
