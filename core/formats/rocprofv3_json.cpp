#include "core/formats/rocprofv3_json.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/formats/rank_builder.h"
#include "core/io/file_source.h"

namespace strobe::core {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

int64_t intOf(element e, std::string_view key, int64_t fallback = 0) {
    element v;
    if (e.at_key(key).get(v)) return fallback;
    int64_t i = 0;
    if (!v.get_int64().get(i)) return i;
    uint64_t u = 0;
    if (!v.get_uint64().get(u)) return static_cast<int64_t>(std::min<uint64_t>(u, INT64_MAX));
    return fallback;
}

// A handle object {"handle": N} (agent ids, queue ids) or a plain integer.
int64_t handleOf(element e, std::string_view key, int64_t fallback = -1) {
    element v;
    if (e.at_key(key).get(v)) return fallback;
    if (v.is_object()) return intOf(v, "handle", fallback);
    return intOf(e, key, fallback);
}

std::string_view strOf(element e, std::string_view key) {
    std::string_view s;
    if (e.at_key(key).get(s)) return {};
    return s;
}

int32_t clamp32(int64_t v) { return static_cast<int32_t>(std::clamp<int64_t>(v, 0, INT32_MAX)); }
constexpr std::string_view kAxes[3] = {"x", "y", "z"};

struct ProcessContext {
    std::map<int64_t, int16_t> deviceOfAgent;
    std::map<int64_t, std::string_view> kernelNames;
};

void readAgents(element tool, RankData& r, ProcessContext& ctx) {
    array agents;
    if (tool.at_key("agents").get(agents)) return;
    int16_t next = 0;
    for (element a : agents) {
        if (intOf(a, "type") != 2) continue;  // 2: GPU
        const int64_t gpuIndex = intOf(a, "gpu_index", -1);
        const auto dev = static_cast<int16_t>(gpuIndex >= 0 && gpuIndex < INT16_MAX ? gpuIndex : next);
        ++next;
        ctx.deviceOfAgent[handleOf(a, "id")] = dev;
        DeviceProperties d;
        d.id = dev;
        d.name = std::string(strOf(a, "product_name"));
        if (d.name.empty()) d.name = std::string(strOf(a, "name"));
        d.warpSize = static_cast<int>(intOf(a, "wave_front_size"));
        d.numSms = static_cast<int>(intOf(a, "cu_count"));
        d.rawJson = fmt::format("{{\"arch\":\"{}\",\"agent\":{}}}", strOf(a, "name"), handleOf(a, "id"));
        r.info.devices.push_back(std::move(d));
    }
}

void readSymbols(element tool, ProcessContext& ctx) {
    array symbols;
    if (tool.at_key("kernel_symbols").get(symbols)) return;
    for (element s : symbols) {
        std::string_view n = strOf(s, "formatted_kernel_name");
        if (n.empty()) n = strOf(s, "demangled_kernel_name");
        if (n.empty()) n = strOf(s, "kernel_name");
        ctx.kernelNames[intOf(s, "kernel_id", -1)] = n;
    }
}

int16_t deviceOf(const ProcessContext& ctx, int64_t agent) {
    auto it = ctx.deviceOfAgent.find(agent);
    return it == ctx.deviceOfAgent.end() ? int16_t{-1} : it->second;
}

void readDispatches(array records, RankBuilder& b, const ProcessContext& ctx) {
    for (element rec : records) {
        element info;
        if (rec.at_key("dispatch_info").get(info)) continue;
        GpuRow g;
        g.ts = intOf(rec, "start_timestamp");
        g.dur = intOf(rec, "end_timestamp", g.ts) - g.ts;
        auto name = ctx.kernelNames.find(intOf(info, "kernel_id", -1));
        const std::string fallback = fmt::format("kernel {}", intOf(info, "kernel_id", -1));
        g.name = name != ctx.kernelNames.end() && !name->second.empty() ? name->second : std::string_view(fallback);
        g.cat = "KERNEL_DISPATCH";
        g.device = deviceOf(ctx, handleOf(info, "agent_id"));
        g.stream = clamp32(handleOf(rec, "stream_id", handleOf(info, "queue_id", 0)));
        const int64_t queue = handleOf(info, "queue_id", -1);
        g.queue = queue < 0 ? -1 : clamp32(queue);
        element corr;
        g.correlation = rec.at_key("correlation_id").get(corr) ? kNone : intOf(corr, "internal", kNone);
        element wg, grid;
        if (!info.at_key("workgroup_size").get(wg))
            for (int k = 0; k < 3; ++k) g.block[k] = clamp32(intOf(wg, kAxes[k], 1));
        if (!info.at_key("grid_size").get(grid))
            for (int k = 0; k < 3; ++k) g.grid[k] = clamp32(intOf(grid, kAxes[k], 1));
        g.sharedMemory = clamp32(intOf(info, "group_segment_size"));
        b.addGpu(g);
    }
}

void readCopies(array records, RankBuilder& b, const ProcessContext& ctx) {
    for (element rec : records) {
        GpuRow g;
        g.ts = intOf(rec, "start_timestamp");
        g.dur = intOf(rec, "end_timestamp", g.ts) - g.ts;
        g.name = "Memcpy";
        g.cat = "MEMORY_COPY";
        g.kind = EventKind::Memcpy;
        int16_t dev = deviceOf(ctx, handleOf(rec, "dst_agent_id"));
        if (dev < 0) dev = deviceOf(ctx, handleOf(rec, "src_agent_id"));
        g.device = dev;
        g.bytes = std::max<int64_t>(0, intOf(rec, "bytes"));
        element corr;
        g.correlation = rec.at_key("correlation_id").get(corr) ? kNone : intOf(corr, "internal", kNone);
        b.addGpu(g);
    }
}

std::unique_ptr<RankData> loadProcess(element tool, const std::string& name, const SourceLoadOptions& options) {
    auto r = std::make_unique<RankData>();
    r->path = name;
    r->info.path = name;
    r->info.format = "rocprofv3-json";
    r->info.platform = Platform::Amd;
    r->info.clock.domain = ClockDomain::Boottime;
    applyClockOptions(r->info.clock, options);
    ProcessContext ctx;
    readAgents(tool, *r, ctx);
    readSymbols(tool, ctx);
    element meta;
    if (!tool.at_key("metadata").get(meta)) {
        r->info.traceName = fmt::format("pid {}", intOf(meta, "pid"));
        std::string_view v = strOf(meta, "version");
        if (!v.empty()) r->info.toolVersion = std::string(v);
    }
    RankBuilder b(*r);
    object buffers;
    if (!tool.at_key("buffer_records").get(buffers)) {
        std::string others;
        for (auto field : buffers) {
            array recs;
            if (field.value.get(recs)) continue;
            if (field.key == "kernel_dispatch") readDispatches(recs, b, ctx);
            else if (field.key == "memory_copy") readCopies(recs, b, ctx);
            else if (recs.size() > 0) others += fmt::format("{}{} {}", others.empty() ? "" : ", ", field.key, recs.size());
        }
        if (!others.empty())
            r->diagnostics.push_back(Diagnostic{Severity::Info, Location{name},
                                                "rocprofv3 JSON records not read yet: " + others});
    }
    r->stats.events = r->gpu.size();
    return r;
}

int sniffRocprofv3Json(const SniffInput& in) {
    if (in.isDirectory || !in.sqliteTables.empty()) return 0;
    return in.head.find("\"rocprofiler-sdk-tool\"") != std::string_view::npos ? 90 : 0;
}

Result<std::vector<std::unique_ptr<RankData>>> loadGroupRocprofv3Json(const SourceGroup& g, const SourceLoadOptions& o,
                                                                      const CancelToken& cancel) {
    return loadRocprofv3Json(g, o, cancel);
}

}  // namespace

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofv3JsonText(std::string_view text, const std::string& name,
                                                                     const SourceLoadOptions& options) {
    simdjson::dom::parser parser;
    element doc;
    simdjson::padded_string padded(text);
    if (auto err = parser.parse(padded).get(doc); err)
        return Error(Location{name}, std::string("not valid JSON: ") + simdjson::error_message(err));
    array tools;
    if (doc.at_key("rocprofiler-sdk-tool").get(tools))
        return Error(Location{name}, "no \"rocprofiler-sdk-tool\" array: not a rocprofv3 JSON result");
    std::vector<std::unique_ptr<RankData>> out;
    for (element tool : tools) {
        if (!tool.is_object()) return Error(Location{name}, "an entry of \"rocprofiler-sdk-tool\" is not an object");
        out.push_back(loadProcess(tool, name, options));
        out.back()->info.fileSize = text.size();
    }
    if (out.empty()) return Error(Location{name}, "\"rocprofiler-sdk-tool\" is empty: no process");
    return out;
}

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofv3Json(const SourceGroup& group,
                                                                 const SourceLoadOptions& options,
                                                                 const CancelToken&) {
    if (group.files.empty()) return Error(Location{group.path}, "no file to load");
    const std::string& path = group.files.front();
    auto src = FileSource::open(path);
    if (!src) return src.error();
    std::string text;
    std::string buf(1 << 20, '\0');
    for (;;) {
        auto n = (*src)->read(buf.data(), buf.size());
        if (!n) return n.error();
        if (*n == 0) break;
        text.append(buf.data(), *n);
    }
    auto ranks = loadRocprofv3JsonText(text, path, options);
    if (ranks)
        for (auto& r : *ranks) {
            r->info.fileSize = (*src)->fileSize();
            r->info.gzip = (*src)->gzip();
        }
    return ranks;
}

const SourceFormat kRocprofv3JsonFormat = {
    "rocprofv3-json",   "rocprofv3",           "rocprofv3 --output-format json results (one rank per process)", false,
    sniffRocprofv3Json, loadGroupRocprofv3Json};

}  // namespace strobe::core
