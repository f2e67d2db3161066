#include "core/analysis/derived_metrics.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/io/resources.h"

namespace strobe::core {

namespace {

int64_t lineOf(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : -1; }

Result<std::string> readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error(Location{path}, "cannot open file");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Result<DerivedMetric> parseMetric(const YAML::Node& item, const std::string& file) {
    const int64_t line = lineOf(item);
    auto err = [&](int64_t l, std::string msg) { return Error(Location{file, -1, l, -1}, std::move(msg)); };
    if (!item.IsMap()) return err(line, "each metric must be a map with name and formula");
    DerivedMetric m;
    m.file = file;
    m.line = static_cast<int>(line);
    YAML::Node formula;
    for (auto it = item.begin(); it != item.end(); ++it) {
        const YAML::Node k = it->first;
        const YAML::Node v = it->second;
        const auto key = k.as<std::string>();
        if (key == "formula") { formula = v; continue; }
        if (!v.IsScalar()) return err(lineOf(v), fmt::format("'{}' must be a plain value", key));
        if (key == "name") m.name = v.as<std::string>();
        else if (key == "unit") m.unit = v.as<std::string>();
        else if (key == "description") m.description = v.as<std::string>();
        else return err(lineOf(k), fmt::format("unknown key '{}' (expected name, unit, description, formula)", key));
    }
    if (m.name.empty()) return err(line, "metric without a name");
    if (!formula || formula.IsNull()) return err(line, fmt::format("metric '{}' has no formula", m.name));
    std::vector<YAML::Node> texts;
    if (formula.IsSequence()) {
        for (const auto& f : formula) texts.push_back(f);
    } else {
        texts.push_back(formula);
    }
    for (const auto& t : texts) {
        if (!t.IsScalar()) return err(lineOf(t), fmt::format("metric '{}': a formula must be text", m.name));
        auto e = DerivedExpression::parse(t.as<std::string>(), Location{file, -1, lineOf(t), -1});
        if (!e) return e.error();
        m.formulas.push_back(std::move(*e));
    }
    if (m.formulas.empty()) return err(line, fmt::format("metric '{}' has no formula", m.name));
    return m;
}

void flatten(const YAML::Node& n, const std::string& prefix, ArchConstants& out) {
    if (n.IsMap()) {
        for (auto it = n.begin(); it != n.end(); ++it) {
            const YAML::Node k = it->first;
            const YAML::Node v = it->second;
            flatten(v, prefix + "." + k.as<std::string>(), out);
        }
    } else if (n.IsScalar()) {
        double d = 0;
        if (YAML::convert<double>::decode(n, d)) out.values.emplace(prefix, d);
    }
}

std::string normalise(std::string_view s) {
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

Result<DerivedMetricSet> DerivedMetricSet::fromYamlText(const std::string& text, const std::string& fileName) {
    DerivedMetricSet out;
    try {
        YAML::Node root = YAML::Load(text);
        if (!root || root.IsNull()) return out;
        if (!root.IsMap() || !root["metrics"])
            return Error(Location{fileName, -1, lineOf(root), -1}, "expected a map with a 'metrics' list");
        const YAML::Node list = root["metrics"];
        if (list.IsNull()) return out;
        if (!list.IsSequence()) return Error(Location{fileName, -1, lineOf(list), -1}, "'metrics' must be a list");
        for (const auto& item : list) {
            auto m = parseMetric(item, fileName);
            if (!m) return m.error();
            DerivedMetricSet one;
            one.m_metrics.push_back(std::move(*m));
            out.merge(one);
        }
    } catch (const YAML::Exception& e) {
        return Error(Location{fileName, -1, e.mark.line >= 0 ? e.mark.line + 1 : -1, -1}, e.msg);
    }
    return out;
}

Result<DerivedMetricSet> DerivedMetricSet::fromFile(const std::string& path) {
    auto text = readText(path);
    if (!text) return text.error();
    return fromYamlText(*text, path);
}

std::string DerivedMetricSet::userPath() { return (userConfigDir() / "derived_metrics.yaml").string(); }

Result<DerivedMetricSet> DerivedMetricSet::loadDefault() {
    auto shipped = fromFile(resourcePath("derived_metrics.yaml").string());
    if (!shipped) return shipped.error();
    std::error_code ec;
    if (std::filesystem::exists(userPath(), ec)) {
        auto user = fromFile(userPath());
        if (!user) return user.error();
        shipped->merge(*user);
    }
    return shipped;
}

void DerivedMetricSet::merge(const DerivedMetricSet& other) {
    for (const auto& m : other.m_metrics) {
        auto it = std::find_if(m_metrics.begin(), m_metrics.end(), [&](const auto& x) { return x.name == m.name; });
        if (it != m_metrics.end()) *it = m;
        else m_metrics.push_back(m);
    }
}

const DerivedMetric* DerivedMetricSet::find(std::string_view name) const {
    for (const auto& m : m_metrics)
        if (m.name == name) return &m;
    return nullptr;
}

Result<std::vector<ArchConstants>> parseArchConstants(const std::string& text, const std::string& fileName) {
    std::vector<ArchConstants> out;
    try {
        YAML::Node root = YAML::Load(text);
        if (!root.IsMap()) return Error(Location{fileName, -1, lineOf(root), -1}, "expected vendors (amd, nvidia)");
        for (auto v = root.begin(); v != root.end(); ++v) {
            const YAML::Node vk = v->first;
            const YAML::Node devices = v->second;
            if (!devices.IsMap()) continue;
            for (auto d = devices.begin(); d != devices.end(); ++d) {
                const YAML::Node dk = d->first;
                ArchConstants a;
                a.key = dk.as<std::string>();
                a.vendor = vk.as<std::string>();
                if (d->second.IsMap() && d->second["gfx"] && d->second["gfx"].IsScalar())
                    a.gfx = normalise(d->second["gfx"].as<std::string>());
                flatten(d->second, "arch", a);
                out.push_back(std::move(a));
            }
        }
    } catch (const YAML::Exception& e) {
        return Error(Location{fileName, -1, e.mark.line >= 0 ? e.mark.line + 1 : -1, -1}, e.msg);
    }
    return out;
}

Result<std::vector<ArchConstants>> loadArchConstants() {
    const std::string path = resourcePath("arch_constants.yaml").string();
    auto text = readText(path);
    if (!text) return text.error();
    return parseArchConstants(*text, path);
}

namespace {

// Upper-case words of letters and digits: "Tesla V100-SXM2-16GB" -> TESLA V100 SXM2 16GB.
std::vector<std::string> wordsOf(std::string_view s) {
    std::vector<std::string> out;
    std::string w;
    for (char c : s) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            w += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        } else if (!w.empty()) {
            out.push_back(std::move(w));
            w.clear();
        }
    }
    if (!w.empty()) out.push_back(std::move(w));
    return out;
}

bool wordIsModel(const std::string& word, const std::string& model) {
    return word.size() >= model.size() && word.compare(0, model.size(), model) == 0 &&
           (word.size() == model.size() || !std::isdigit(static_cast<unsigned char>(word[model.size()])));
}

// An ISA name such as GFX942 or GFX90A (upper case).
bool isGfxWord(const std::string& w) {
    return w.size() > 3 && w.compare(0, 3, "GFX") == 0 && std::isdigit(static_cast<unsigned char>(w[3]));
}

bool unitsMatch(const ArchConstants& a, int units) {
    if (units <= 0) return false;
    for (const char* k : {"arch.compute_units_per_device", "arch.compute_units", "arch.sms"}) {
        auto it = a.values.find(std::string_view(k));
        if (it != a.values.end() && static_cast<int>(it->second) == units) return true;
    }
    return false;
}

}  // namespace

const ArchConstants* findArch(const std::vector<ArchConstants>& all, std::string_view deviceName, std::string_view gfx,
                              int computeUnits) {
    const std::vector<std::string> words = wordsOf(deviceName);
    const ArchConstants* best = nullptr;
    size_t bestLen = 0;
    int bestParts = -1;
    for (const auto& a : all) {
        const std::vector<std::string> parts = wordsOf(a.key);  // '_' splits: A100 SXM4 80GB
        if (parts.empty()) continue;
        const std::string& model = parts.front();
        if (std::none_of(words.begin(), words.end(), [&](const std::string& w) { return wordIsModel(w, model); }))
            continue;
        int more = 0;
        for (size_t i = 1; i < parts.size(); ++i)
            more += std::find(words.begin(), words.end(), parts[i]) != words.end() ? 1 : 0;
        if (model.size() > bestLen || (model.size() == bestLen && more > bestParts)) {
            best = &a;
            bestLen = model.size();
            bestParts = more;
        }
    }
    if (best) return best;
    std::string isa;
    for (const auto& w : words)
        if (isGfxWord(w)) {
            isa = w;
            break;
        }
    if (isa.empty()) isa = normalise(gfx);
    if (isa.empty()) return nullptr;
    const ArchConstants* first = nullptr;
    const ArchConstants* byUnits = nullptr;
    int unitMatches = 0;
    for (const auto& a : all) {
        if (a.gfx != isa) continue;
        if (!first) first = &a;
        if (unitsMatch(a, computeUnits)) {
            if (!byUnits) byUnits = &a;
            ++unitMatches;
        }
    }
    return unitMatches == 1 ? byUnits : first;
}

const ArchConstants* findArch(const std::vector<ArchConstants>& all, const DeviceProperties& device) {
    // The first gfxNNN in the raw properties: {"arch":"gfx950"...}, "gpu_arch":"gfx950", "gcnArchName":"gfx942:...".
    std::string gfx;
    const std::string& raw = device.rawJson;
    for (size_t p = raw.find("gfx"); p != std::string::npos && gfx.empty(); p = raw.find("gfx", p + 3)) {
        size_t e = p + 3;
        while (e < raw.size() && std::isalnum(static_cast<unsigned char>(raw[e]))) ++e;
        if (e > p + 3 && std::isdigit(static_cast<unsigned char>(raw[p + 3]))) gfx = raw.substr(p, e - p);
    }
    return findArch(all, device.name, gfx, device.numSms);
}

namespace {

// Counters of each GPU row, as (first index, count) into a permutation of kernelCounters sorted by gpuRow.
struct CounterIndex {
    std::vector<uint32_t> order;
    std::unordered_map<uint32_t, std::pair<size_t, size_t>> rows;
};

CounterIndex indexCounters(const RankData& rank) {
    CounterIndex ix;
    const auto& kc = rank.kernelCounters;
    ix.order.resize(kc.size());
    for (size_t i = 0; i < kc.size(); ++i) ix.order[i] = static_cast<uint32_t>(i);
    std::stable_sort(ix.order.begin(), ix.order.end(), [&](uint32_t a, uint32_t b) { return kc.gpuRow[a] < kc.gpuRow[b]; });
    for (size_t i = 0; i < ix.order.size();) {
        size_t j = i;
        while (j < ix.order.size() && kc.gpuRow[ix.order[j]] == kc.gpuRow[ix.order[i]]) ++j;
        ix.rows[kc.gpuRow[ix.order[i]]] = {i, j - i};
        i = j;
    }
    return ix;
}

// ncu's loader keeps the unit in the name ("dram__bytes.sum [byte]"); formulas use the bare name.
bool counterNameIs(std::string_view stored, std::string_view name) {
    if (stored.size() < name.size() || stored.substr(0, name.size()) != name) return false;
    return stored.size() == name.size() || stored.substr(name.size(), 2) == " [";
}

std::optional<double> kernelValue(const RankData& rank, uint32_t row, std::string_view name) {
    const auto& g = rank.gpu;
    if (row >= g.ts.size()) return std::nullopt;
    if (name == "duration_ns") return static_cast<double>(g.dur[row]);
    auto at = [](const auto& col, uint32_t r) { return r < col.size() ? static_cast<double>(col[r]) : 0.0; };
    if (name == "grid_size") return at(g.gridX, row) * std::max(1.0, at(g.gridY, row)) * std::max(1.0, at(g.gridZ, row));
    if (name == "block_size")
        return at(g.blockX, row) * std::max(1.0, at(g.blockY, row)) * std::max(1.0, at(g.blockZ, row));
    return std::nullopt;
}

}  // namespace

DerivedValues computeDerivedMetrics(const RankData& rank, const DerivedMetricSet& set, const ArchConstants* arch) {
    DerivedValues out;
    const CounterIndex ix = indexCounters(rank);
    std::vector<uint32_t> rows;
    rows.reserve(ix.rows.size());
    for (const auto& [row, span] : ix.rows) rows.push_back(row);
    std::sort(rows.begin(), rows.end());
    std::vector<bool> reported(set.metrics().size(), false);
    const auto& kc = rank.kernelCounters;
    std::vector<std::optional<double>> done(set.metrics().size());
    for (uint32_t row : rows) {
        const auto span = ix.rows.at(row);
        std::fill(done.begin(), done.end(), std::nullopt);
        auto lookup = [&](std::string_view name) -> std::optional<double> {
            if (name.substr(0, 5) == "arch.") {
                if (!arch) return std::nullopt;
                auto it = arch->values.find(name);
                return it == arch->values.end() ? std::nullopt : std::optional<double>(it->second);
            }
            for (size_t i = span.first; i < span.first + span.second; ++i)
                if (counterNameIs(rank.strings.view(kc.name[ix.order[i]]), name)) return kc.value[ix.order[i]];
            if (auto v = kernelValue(rank, row, name)) return v;
            // An earlier metric of the table, by name.
            if (const DerivedMetric* dm = set.find(name)) return done[static_cast<size_t>(dm - set.metrics().data())];
            return std::nullopt;
        };
        for (size_t m = 0; m < set.metrics().size(); ++m) {
            for (const auto& f : set.metrics()[m].formulas) {
                auto v = f.evaluate(lookup);
                if (!v) {
                    if (!reported[m]) {
                        reported[m] = true;
                        out.diagnostics.push_back(Diagnostic{Severity::Warning, v.error().where,
                                                             fmt::format("metric '{}': {} (kernel row {})",
                                                                         set.metrics()[m].name, v.error().message, row)});
                    }
                    break;
                }
                if (!*v) continue;
                out.gpuRow.push_back(row);
                out.metric.push_back(static_cast<uint32_t>(m));
                out.value.push_back(**v);
                done[m] = **v;
                break;
            }
        }
    }
    return out;
}

std::vector<std::pair<uint32_t, double>> kernelMetricValues(const RankData& rank, const DerivedMetricSet& set,
                                                            const ArchConstants* arch, std::string_view name) {
    std::vector<std::pair<uint32_t, double>> out;
    if (const DerivedMetric* m = set.find(name)) {
        auto all = computeDerivedMetrics(rank, set, arch);
        const auto idx = static_cast<uint32_t>(m - set.metrics().data());
        for (size_t i = 0; i < all.size(); ++i)
            if (all.metric[i] == idx) out.emplace_back(all.gpuRow[i], all.value[i]);
        return out;
    }
    const auto& kc = rank.kernelCounters;
    for (size_t i = 0; i < kc.size(); ++i)
        if (counterNameIs(rank.strings.view(kc.name[i]), name)) out.emplace_back(kc.gpuRow[i], kc.value[i]);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}

}  // namespace strobe::core
