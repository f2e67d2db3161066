#include "core/formats/amd_smi.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/formats/telemetry_metrics.h"
#include "core/io/csv_reader.h"

namespace strobe::core {

namespace {

using telemetry::MetricAlias;

const std::vector<MetricAlias>& rocmSmiAliases() {
    constexpr double kMiB = 1.0 / (1024.0 * 1024.0);
    static const std::vector<MetricAlias> a = {
        {telemetry::kPowerW, {"Current Socket Graphics Package Power (W)", "Average Graphics Package Power (W)"}},
        {telemetry::kPowerLimitW, {"Max Graphics Package Power (W)"}},
        {telemetry::kTempC, {"Temperature (Sensor junction) (C)", "Temperature (Sensor edge) (C)"}},
        {telemetry::kMemTempC, {"Temperature (Sensor memory) (C)"}},
        {telemetry::kSclkMhz, {"sclk clock speed:"}},
        {telemetry::kMclkMhz, {"mclk clock speed:"}},
        {telemetry::kUtilPct, {"GPU use (%)"}},
        {telemetry::kMemUtilPct, {"GPU memory use (%)"}},
        {telemetry::kMemUsedMib, {"VRAM Total Used Memory (B)"}, kMiB},
        {telemetry::kMemTotalMib, {"VRAM Total Memory (B)"}, kMiB},
        {telemetry::kFanPct, {"Fan speed (%)"}},
    };
    return a;
}

const std::vector<MetricAlias>& amdSmiAliases() {
    static const std::vector<MetricAlias> a = {
        {telemetry::kPowerW, {"power_socket_power", "power_current_socket_power", "power_average_socket_power"}},
        {telemetry::kPowerLimitW, {"power_power_cap", "power_socket_power_limit"}},
        {telemetry::kSclkMhz, {"clock_gfx_0_clk", "clock_gfx_clk"}},
        {telemetry::kMclkMhz, {"clock_mem_0_clk", "clock_mem_clk"}},
        {telemetry::kTempC, {"temperature_hotspot", "temperature_edge"}},
        {telemetry::kMemTempC, {"temperature_mem"}},
        {telemetry::kUtilPct, {"usage_gfx_activity"}},
        {telemetry::kMemUtilPct, {"usage_umc_activity"}},
        {telemetry::kMemUsedMib, {"mem_usage_used_vram"}},
        {telemetry::kMemTotalMib, {"mem_usage_total_vram"}},
        {telemetry::kFanPct, {"fan_usage"}},
    };
    return a;
}

// One GPU's fields as the tool wrote them (key → text), and its time when the tool wrote one.
struct Record {
    int device = 0;
    std::optional<int64_t> ts;
    std::vector<std::pair<std::string, std::string>> fields;
};

bool parseIntText(std::string_view s, int64_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

// "card3" / "3" → 3.
std::optional<int> deviceOf(std::string_view s) {
    while (!s.empty() && (s.front() < '0' || s.front() > '9')) s.remove_prefix(1);
    int64_t v = 0;
    if (s.empty() || !parseIntText(s, v) || v < 0 || v > 32767) return std::nullopt;
    return static_cast<int>(v);
}

// Samples of every record: metric names from `aliases` over the keys in order of first sight.
void emitRecords(RankData& rank, const std::vector<Record>& records, const std::vector<MetricAlias>& aliases,
                 const std::vector<std::string>& skipKeys, const SourceLoadOptions& options) {
    std::vector<std::string> keys;
    for (const auto& r : records)
        for (const auto& [k, v] : r.fields)
            if (std::find(keys.begin(), keys.end(), k) == keys.end() &&
                std::find(skipKeys.begin(), skipKeys.end(), k) == skipKeys.end())
                keys.push_back(k);
    const auto metrics = telemetry::mapColumns(keys, aliases);
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < keys.size(); ++i) index[keys[i]] = i;
    telemetry::SkipCounter skipped;
    std::map<int, bool> devices;
    bool timed = !records.empty();
    for (const auto& r : records) {
        devices[r.device] = true;
        timed = timed && r.ts.has_value();
        for (const auto& [k, v] : r.fields) {
            auto it = index.find(k);
            if (it == index.end()) continue;
            std::string_view text = v;
            if (text.size() >= 2 && text.front() == '(' && text.back() == ')') text = text.substr(1, text.size() - 2);
            const auto pv = telemetry::parseValue(text);
            if (pv.kind != telemetry::ValueKind::Number) {
                skipped.add(pv, k);
                continue;
            }
            const auto& m = metrics[it->second];
            telemetry::appendSample(rank, r.ts.value_or(0), static_cast<int16_t>(r.device), m.metric, pv.value * m.scale);
        }
    }
    for (const auto& entry : devices) {
        const auto d = entry.first;  // a plain copy: clang 14 cannot capture a structured binding in a lambda
        if (std::none_of(rank.info.devices.begin(), rank.info.devices.end(),
                         [d](const DeviceProperties& p) { return p.id == d; })) {
            DeviceProperties p;
            p.id = d;
            rank.info.devices.push_back(std::move(p));
        }
    }
    rank.info.platform = Platform::Amd;
    if (timed) {
        telemetry::setClock(rank.info, ClockDomain::Realtime, options, "timestamp (Unix seconds)");
    } else {
        telemetry::setClock(rank.info, ClockDomain::Relative, options, {});
        // A note, not a warning: a snapshot is what the tool writes (rocm-smi's concise table has no time), and one
        // sample per metric carries no interval that a placeholder time could make wrong.
        rank.diagnostics.push_back({Severity::Info, Location{rank.path},
                                    "a snapshot without time: every value is one sample at time 0"});
    }
    skipped.report(rank, rank.path);
    rank.stats.events = rank.samples.size();
}

// The concise table's values are already named with Strobe's metric names.
const std::vector<MetricAlias>& identityAliases() {
    static const std::vector<MetricAlias> a = [] {
        std::vector<MetricAlias> out;
        for (auto m : telemetry::knownMetrics()) out.push_back({m, {m}});
        return out;
    }();
    return a;
}

bool startsWithDigit(std::string_view w) { return !w.empty() && w.front() >= '0' && w.front() <= '9'; }
bool endsWith(std::string_view w, std::string_view s) {
    return w.size() > s.size() && w.compare(w.size() - s.size(), s.size(), s) == 0;
}

// One concise row's values by their units (see the header).
Record conciseRow(const std::vector<std::string_view>& words, int device) {
    Record r;
    r.device = device;
    std::vector<std::string_view> watts, mhz, pct;
    std::optional<std::string_view> temp;
    size_t mclkAt = 0;
    for (size_t i = 1; i < words.size(); ++i) {
        const auto w = words[i];
        if (!startsWithDigit(w)) continue;
        if (!temp && (endsWith(w, "°C") || endsWith(w, "c") || endsWith(w, "C"))) temp = w;
        else if (endsWith(w, "W")) watts.push_back(w);
        else if (endsWith(w, "Mhz") || endsWith(w, "MHz")) {
            mhz.push_back(w);
            mclkAt = i;
        } else if (endsWith(w, "%")) {
            pct.push_back(w);
        }
    }
    auto add = [&](std::string_view key, std::string_view v) { r.fields.emplace_back(std::string(key), std::string(v)); };
    if (temp) add(telemetry::kTempC, *temp);
    if (!watts.empty()) add(telemetry::kPowerW, watts.front());
    if (watts.size() >= 2) add(telemetry::kPowerLimitW, watts.back());
    if (!mhz.empty()) add(telemetry::kSclkMhz, mhz.front());
    if (mhz.size() >= 2) add(telemetry::kMclkMhz, mhz[1]);
    if (pct.size() >= 2) {
        add("vram_pct", pct[pct.size() - 2]);
        add(telemetry::kUtilPct, pct.back());
    }
    if (pct.size() >= 3 && mclkAt + 1 < words.size() && words[mclkAt + 1] == pct.front()) add(telemetry::kFanPct, pct.front());
    return r;
}

}  // namespace

Result<std::unique_ptr<RankData>> parseRocmSmiConcise(std::string_view text, const std::string& path,
                                                      const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kRocmSmiConciseFormat.id);
    std::vector<Record> records;
    bool inTable = false, seenHeader = false;
    int64_t lastDeviceLine = -10;
    telemetry::forEachLine(text, [&](std::string_view line, int64_t lineNo) {
        auto words = telemetry::splitWords(line);
        if (words.empty()) return;
        if (words[0].rfind("===", 0) == 0) {
            if (seenHeader) inTable = !inTable && records.empty() ? true : inTable;
            return;
        }
        if (words[0] == "Device" || words[0] == "GPU") {
            seenHeader = true;
            return;
        }
        int64_t device = 0;
        if (inTable && parseIntText(words[0], device) && device >= 0 && device <= 32767) {
            records.push_back(conciseRow(words, static_cast<int>(device)));
            lastDeviceLine = lineNo;
        } else if (inTable && lineNo == lastDeviceLine + 1 && !records.empty()) {  // the device name line
            DeviceProperties p;
            p.id = records.back().device;
            p.name = std::string(line.substr(line.find_first_not_of(" \t")));
            while (!p.name.empty() && p.name.back() == ' ') p.name.pop_back();
            rank->info.devices.push_back(std::move(p));
        }
    });
    if (!seenHeader) return Error(Location{path}, "no rocm-smi concise table header ('Device ... Temp ... Power') found");
    emitRecords(*rank, records, identityAliases(), {}, options);
    return rank;
}

namespace {

Result<std::vector<Record>> csvRecords(std::string_view text, const std::string& path, std::string_view deviceColumn) {
    CsvReader csv(text, path);
    if (Status s = csv.readHeader(); !s) return s.error();
    const int dev = csv.column(deviceColumn);
    const int ts = csv.column("timestamp");
    if (dev < 0) return Error(Location{path}, fmt::format("no '{}' column", deviceColumn));
    std::vector<Record> out;
    while (true) {
        auto more = csv.next();
        if (!more) return more.error();
        if (!more.value()) break;
        auto d = deviceOf(csv.field(dev));
        if (!d) return csv.error(fmt::format("'{}' is not a GPU", csv.field(dev)));
        Record r;
        r.device = *d;
        if (ts >= 0)
            if (auto t = csv.toInt(ts); t && *t >= 0 && *t < 4'000'000'000LL) r.ts = *t * 1'000'000'000LL;
        for (size_t i = 0; i < csv.header().size(); ++i)
            if (static_cast<int>(i) != dev && static_cast<int>(i) != ts)
                r.fields.emplace_back(csv.header()[i], std::string(csv.field(i)));
        out.push_back(std::move(r));
    }
    return out;
}

// Flattens a JSON object into "a_b_c" keys with scalar text values; {"value": x, "unit": u} becomes the value.
void flatten(simdjson::dom::element e, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out,
             int depth = 0) {
    if (depth > 8) return;
    simdjson::dom::object obj;
    if (e.get_object().get(obj) == simdjson::SUCCESS) {
        simdjson::dom::element value;
        if (obj.at_key("value").get(value) == simdjson::SUCCESS && !value.is_object()) {
            flatten(value, prefix, out, depth + 1);
            return;
        }
        for (auto [k, v] : obj) flatten(v, prefix.empty() ? std::string(k) : prefix + "_" + std::string(k), out, depth + 1);
        return;
    }
    if (e.is_array()) return;  // per-XCP lists and the like: not a single value
    if (e.is_string()) out.emplace_back(prefix, std::string(e.get_string().value_unsafe()));
    else if (e.is_int64()) out.emplace_back(prefix, std::to_string(e.get_int64().value_unsafe()));
    else if (e.is_uint64()) out.emplace_back(prefix, std::to_string(e.get_uint64().value_unsafe()));
    else if (e.is_double()) out.emplace_back(prefix, fmt::format("{}", e.get_double().value_unsafe()));
}

Result<simdjson::dom::element> parseJson(simdjson::dom::parser& parser, std::string_view text, const std::string& path) {
    simdjson::dom::element root;
    auto err = parser.parse(text.data(), text.size()).get(root);
    if (err) return Error(Location{path}, fmt::format("not valid JSON: {}", simdjson::error_message(err)));
    return root;
}

}  // namespace

Result<std::unique_ptr<RankData>> parseRocmSmiCsv(std::string_view text, const std::string& path,
                                                  const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kRocmSmiCsvFormat.id);
    auto records = csvRecords(text, path, "device");
    if (!records) return records.error();
    emitRecords(*rank, *records, rocmSmiAliases(), {"Device ID", "Card series", "Card model", "Card vendor", "Card SKU"}, options);
    return rank;
}

Result<std::unique_ptr<RankData>> parseRocmSmiJson(std::string_view text, const std::string& path,
                                                   const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kRocmSmiJsonFormat.id);
    simdjson::dom::parser parser;
    auto root = parseJson(parser, text, path);
    if (!root) return root.error();
    simdjson::dom::object obj;
    if (root->get_object().get(obj) != simdjson::SUCCESS) return Error(Location{path}, "rocm-smi JSON is not an object");
    std::vector<Record> records;
    for (auto [key, value] : obj) {
        auto d = deviceOf(key);
        if (!d || std::string_view(key).rfind("card", 0) != 0) continue;  // "system" and other sections
        Record r;
        r.device = *d;
        flatten(value, {}, r.fields);
        records.push_back(std::move(r));
    }
    if (records.empty()) return Error(Location{path}, "no \"card<N>\" object in the rocm-smi JSON");
    emitRecords(*rank, records, rocmSmiAliases(), {"Device ID", "Card series", "Card model", "Card vendor", "Card SKU"}, options);
    return rank;
}

Result<std::unique_ptr<RankData>> parseAmdSmiMetricCsv(std::string_view text, const std::string& path,
                                                       const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kAmdSmiMetricCsvFormat.id);
    auto records = csvRecords(text, path, "gpu");
    if (!records) return records.error();
    emitRecords(*rank, *records, amdSmiAliases(), {}, options);
    return rank;
}

Result<std::unique_ptr<RankData>> parseAmdSmiMetricJson(std::string_view text, const std::string& path,
                                                        const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kAmdSmiMetricJsonFormat.id);
    simdjson::dom::parser parser;
    auto root = parseJson(parser, text, path);
    if (!root) return root.error();
    simdjson::dom::array list;
    simdjson::dom::element data;
    if (root->get_array().get(list) != simdjson::SUCCESS &&
        !(root->is_object() && root->at_key("gpu_data").get(data) == simdjson::SUCCESS && data.get_array().get(list) == simdjson::SUCCESS))
        return Error(Location{path}, "amd-smi metric JSON is neither a list of GPUs nor {\"gpu_data\": [...]}");
    std::vector<Record> records;
    for (auto gpu : list) {
        Record r;
        flatten(gpu, {}, r.fields);
        auto g = std::find_if(r.fields.begin(), r.fields.end(), [](const auto& kv) { return kv.first == "gpu"; });
        if (g == r.fields.end() || !deviceOf(g->second)) continue;
        r.device = *deviceOf(g->second);
        auto t = std::find_if(r.fields.begin(), r.fields.end(), [](const auto& kv) { return kv.first == "timestamp"; });
        int64_t secs = 0;
        if (t != r.fields.end() && parseIntText(t->second, secs) && secs >= 0 && secs < 4'000'000'000LL)
            r.ts = secs * 1'000'000'000LL;
        records.push_back(std::move(r));
    }
    if (records.empty()) return Error(Location{path}, "no GPU object with a \"gpu\" index in the amd-smi JSON");
    emitRecords(*rank, records, amdSmiAliases(), {"gpu", "timestamp"}, options);
    return rank;
}

namespace {

int sniffConcise(const SniffInput& in) {
    if (in.isDirectory) return 0;
    return in.head.find("ROCm System Management Interface") != std::string_view::npos &&
                   in.head.find("Concise Info") != std::string_view::npos
               ? 80
               : 0;
}

bool headerHas(const SniffInput& in, std::string_view name) {
    const auto h = csvHeaderOf(in.head);
    return std::find(h.begin(), h.end(), name) != h.end();
}

int sniffRocmCsv(const SniffInput& in) {
    if (in.isDirectory || in.head.empty() || !headerHas(in, "device")) return 0;
    for (const auto& a : rocmSmiAliases())
        for (auto c : a.columns)
            if (headerHas(in, c)) return 75;
    return 0;
}

int sniffAmdCsv(const SniffInput& in) {
    if (in.isDirectory || in.head.empty() || !headerHas(in, "gpu")) return 0;
    for (const auto& a : amdSmiAliases())
        for (auto c : a.columns)
            if (headerHas(in, c)) return 75;
    return 0;
}

std::string_view firstNonBlank(std::string_view s) {
    const size_t i = s.find_first_not_of(" \t\r\n");
    return i == std::string_view::npos ? std::string_view() : s.substr(i);
}

int sniffRocmJson(const SniffInput& in) {
    const auto s = firstNonBlank(in.head);
    return !in.isDirectory && !s.empty() && s.front() == '{' && s.find("\"card") != std::string_view::npos &&
                   (s.find("(W)") != std::string_view::npos || s.find("(C)") != std::string_view::npos ||
                    s.find("clock speed") != std::string_view::npos)
               ? 70
               : 0;
}

int sniffAmdJson(const SniffInput& in) {
    const auto s = firstNonBlank(in.head);
    return !in.isDirectory && !s.empty() && (s.front() == '[' || s.front() == '{') &&
                   s.find("\"gpu\"") != std::string_view::npos &&
                   (s.find("\"gfx_activity\"") != std::string_view::npos || s.find("\"socket_power\"") != std::string_view::npos ||
                    s.find("\"hotspot\"") != std::string_view::npos)
               ? 70
               : 0;
}

template <telemetry::TextParser P>
Result<std::vector<std::unique_ptr<RankData>>> loadWith(const SourceGroup& g, const SourceLoadOptions& o, const CancelToken&) {
    return telemetry::loadTextFile(g, o, P);
}

}  // namespace

const SourceFormat kRocmSmiConciseFormat = {"rocm-smi-concise", "rocm-smi", "rocm-smi concise table (one snapshot per GPU)",
                                            false, &sniffConcise, &loadWith<&parseRocmSmiConcise>};
const SourceFormat kRocmSmiCsvFormat = {"rocm-smi-csv", "rocm-smi", "rocm-smi --csv (one row per card)", true,
                                        &sniffRocmCsv, &loadWith<&parseRocmSmiCsv>};
const SourceFormat kRocmSmiJsonFormat = {"rocm-smi-json", "rocm-smi", "rocm-smi --json (one object per card)", true,
                                         &sniffRocmJson, &loadWith<&parseRocmSmiJson>};
const SourceFormat kAmdSmiMetricCsvFormat = {"amd-smi-metric-csv", "amd-smi", "amd-smi metric --csv", true,
                                             &sniffAmdCsv, &loadWith<&parseAmdSmiMetricCsv>};
const SourceFormat kAmdSmiMetricJsonFormat = {"amd-smi-metric-json", "amd-smi", "amd-smi metric --json", true,
                                              &sniffAmdJson, &loadWith<&parseAmdSmiMetricJson>};

}  // namespace strobe::core
