// The `strobe` Python module: Strobe's loader (the same load job and load cache as the workbench and strobe-cli)
// and its SQL tables, for notebooks. Tables come as read-only NumPy columns that are views of the loaded columns
// (no copy: the run stays alive while any array of it does), names as pandas Categoricals whose codes are the
// interned string ids, and `to_pandas()` DataFrames.
//
//   import strobe
//   run = strobe.load("resources/sample/param-dlrm-8rank")
//   k = run.ranks[0].kernels.to_pandas()
//   run.query("SELECT rank, sum(dur_ns) FROM kernels GROUP BY rank")   # a DataFrame
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine/job_runner.h"
#include "core/engine/load_job.h"
#include "core/engine/memory_budget.h"
#include "core/engine/run_loader.h"
#include "core/analysis/context.h"
#include "core/analysis/registry.h"
#include "core/analysis/window.h"
#include "core/analysis/sweep_compare.h"
#include "core/query/sql_query.h"
#include "core/sweep/sweep_discovery.h"

#ifdef STROBE_HAVE_PLOTS
#include <QBuffer>
#include <QGuiApplication>

#include "plots/plot_registry.h"
#include "plots/render.h"
#endif

#include <spdlog/spdlog.h>

namespace py = pybind11;
#ifdef STROBE_HAVE_PLOTS
namespace plots = strobe::plots;
#endif
namespace core = strobe::core;
using namespace strobe::core;

namespace {

// Keeps the run alive for as long as an array views its columns.
py::capsule keeper(const DatasetPtr& run) {
    auto* hold = new DatasetPtr(run);
    return py::capsule(hold, [](void* p) { delete static_cast<DatasetPtr*>(p); });
}

template <class T>
py::array view(const Column<T>& col, const DatasetPtr& run) {
    py::array a(py::dtype::of<T>(), {static_cast<py::ssize_t>(col.size())}, {static_cast<py::ssize_t>(sizeof(T))},
                col.data(), keeper(run));
    a.attr("setflags")(py::arg("write") = false);
    return a;
}

template <class E>
py::array enumCodes(const Column<E>& col, const DatasetPtr& run) {
    static_assert(sizeof(E) == 1);
    py::array a(py::dtype::of<uint8_t>(), {static_cast<py::ssize_t>(col.size())}, {py::ssize_t{1}},
                reinterpret_cast<const uint8_t*>(col.data()), keeper(run));
    a.attr("setflags")(py::arg("write") = false);
    return a;
}

// pandas.Categorical from integer codes and their names.
py::object categorical(py::array codes, const std::vector<std::string>& names) {
    py::module_ pd = py::module_::import("pandas");
    return pd.attr("Categorical").attr("from_codes")(codes.attr("astype")("int64"), py::arg("categories") = names);
}

std::vector<std::string> poolStrings(const StringPool& pool) {
    std::vector<std::string> out;
    out.reserve(pool.size());
    for (StrId i = 0; i < pool.size(); ++i) out.emplace_back(pool.view(i));
    return out;
}

template <class E>
std::vector<std::string> enumNames(E count) {
    std::vector<std::string> out;
    for (int i = 0; i < static_cast<int>(count); ++i) out.emplace_back(toString(static_cast<E>(i)));
    return out;
}

// One of a rank's tables: named columns, each made on demand.
class PyTable {
public:
    using Make = std::function<py::object()>;
    PyTable(size_t rows, std::vector<std::pair<std::string, Make>> columns) : m_rows(rows), m_columns(std::move(columns)) {}
    size_t rows() const { return m_rows; }
    std::vector<std::string> names() const {
        std::vector<std::string> n;
        for (const auto& c : m_columns) n.push_back(c.first);
        return n;
    }
    py::object column(const std::string& name) const {
        for (const auto& c : m_columns)
            if (c.first == name) return c.second();
        throw py::key_error("no column " + name + " (columns: " + py::str(py::cast(names())).cast<std::string>() + ")");
    }
    py::object toPandas() const {
        py::dict d;
        for (const auto& c : m_columns) d[py::str(c.first)] = c.second();
        return py::module_::import("pandas").attr("DataFrame")(d);
    }

private:
    size_t m_rows;
    std::vector<std::pair<std::string, PyTable::Make>> m_columns;
};

struct Rank {
    DatasetPtr run;
    const RankData* r;

    PyTable kernels() const {
        const auto& g = r->gpu;
        DatasetPtr keep = run;
        const RankData* rd = r;
        std::vector<std::pair<std::string, PyTable::Make>> c = {
            {"ts_ns", [=] { return view(rd->gpu.ts, keep); }},
            {"dur_ns", [=] { return view(rd->gpu.dur, keep); }},
            {"name", [=] { return categorical(view(rd->gpu.name, keep), poolStrings(rd->strings)); }},
            {"kind", [=] { return categorical(enumCodes(rd->gpu.kind, keep), enumNames(EventKind::Count)); }},
            {"device", [=] { return view(rd->gpu.device, keep); }},
            {"stream", [=] { return view(rd->gpu.stream, keep); }},
            {"correlation", [=] { return view(rd->gpu.correlation, keep); }},
            {"grid_x", [=] { return view(rd->gpu.gridX, keep); }},
            {"block_x", [=] { return view(rd->gpu.blockX, keep); }},
            {"bytes", [=] { return view(rd->gpu.bytes, keep); }},
        };
        if (g.category.size() == g.size())
            c.push_back({"category", [=] { return categorical(enumCodes(rd->gpu.category, keep), enumNames(KernelCategory::Count)); }});
        if (g.step.size() == g.size()) c.push_back({"step_index", [=] { return view(rd->gpu.step, keep); }});
        if (g.queue.size() == g.size()) c.push_back({"queue", [=] { return view(rd->gpu.queue, keep); }});
        return PyTable(g.size(), std::move(c));
    }
    PyTable slices() const {
        DatasetPtr keep = run;
        const RankData* rd = r;
        std::vector<std::pair<std::string, PyTable::Make>> c = {
            {"ts_ns", [=] { return view(rd->slices.ts, keep); }},
            {"dur_ns", [=] { return view(rd->slices.dur, keep); }},
            {"name", [=] { return categorical(view(rd->slices.name, keep), poolStrings(rd->strings)); }},
            {"kind", [=] { return categorical(enumCodes(rd->slices.kind, keep), enumNames(EventKind::Count)); }},
            {"track", [=] { return view(rd->slices.track, keep); }},
            {"correlation", [=] { return view(rd->slices.correlation, keep); }},
            {"external_id", [=] { return view(rd->slices.externalId, keep); }},
        };
        if (r->slices.depth.size() == r->slices.size()) c.push_back({"depth", [=] { return view(rd->slices.depth, keep); }});
        if (r->slices.parent.size() == r->slices.size()) c.push_back({"parent", [=] { return view(rd->slices.parent, keep); }});
        return PyTable(r->slices.size(), std::move(c));
    }
    PyTable steps() const {
        DatasetPtr keep = run;
        const RankData* rd = r;
        return PyTable(r->steps.size(), {{"number", [=] { return view(rd->steps.number, keep); }},
                                       {"start_ns", [=] { return view(rd->steps.start, keep); }},
                                       {"end_ns", [=] { return view(rd->steps.end, keep); }}});
    }
};

py::object frameOf(const QueryResult& r) {
    py::dict d;
    for (size_t c = 0; c < r.columns.size(); ++c) {
        py::list values;
        for (const auto& row : r.rows) {
            const QueryValue& v = row[c];
            if (std::holds_alternative<std::monostate>(v)) values.append(py::none());
            else if (const auto* i = std::get_if<int64_t>(&v)) values.append(*i);
            else if (const auto* x = std::get_if<double>(&v)) values.append(*x);
            else values.append(std::get<std::string>(v));
        }
        d[py::str(r.columns[c])] = values;
    }
    py::list order;
    for (const auto& c : r.columns) order.append(c);
    return py::module_::import("pandas").attr("DataFrame")(d, py::arg("columns") = order);
}

struct Run {
    DatasetPtr data;
    std::string label;
    RunParameters parameters = {};  // the sweep point, for runs of strobe.sweep()
    int repeat = 0;
    std::optional<std::string> configuration = {};
    std::vector<std::string> paths = {};

    RunEntry entry() const {
        RunEntry e{label, data, parameters, paths, repeat, configuration};
        return e;
    }
    std::map<std::string, std::string> parameterMap() const { return parameterTexts(parameters); }

    std::vector<Rank> ranks() const {
        std::vector<Rank> out;
        for (const auto& r : data->ranks)
            if (r) out.push_back({data, r.get()});
        return out;
    }
    py::object query(const std::string& sql) const {
        auto engine = QueryEngine::open({{label, data}});
        if (!engine) throw std::runtime_error(engine.error().toString());
        QueryResult result;
        std::optional<Error> error;
        {
            py::gil_scoped_release release;  // a long query leaves other Python threads running
            auto r = (*engine)->run(sql);
            if (r) result = std::move(r.value());
            else error = r.error();
        }
        if (error) throw py::value_error(error->toString());
        return frameOf(result);
    }
};

// One of strobe-cli analyze's analyses on the run: a DataFrame (its CSV read by pandas), the window's description
// and the analysis' messages in df.attrs.
py::object analyze(const Run& run, const std::string& name, const std::string& window, const std::string& steps,
                   const py::kwargs& options) {
    const AnalysisInfo* info = findAnalysis(name);
    if (!info) {
        std::string names;
        for (const auto& a : analysisRegistry()) names += (names.empty() ? "" : ", ") + a.name;
        throw py::value_error("unknown analysis '" + name + "' (analyses: " + names + ")");
    }
    AnalysisRequest req;
    auto w = WindowSpec::parse(window, steps);
    if (!w) throw py::value_error("window: " + w.error().message);
    req.window = w.value();
    for (const auto& [key, value] : options) {
        const std::string k = py::str(key).cast<std::string>();
        std::string dashed = k;  // Python keywords cannot hold a dash: min_gap_us is --min-gap-us
        std::replace(dashed.begin(), dashed.end(), '_', '-');
        const ParamSpec* spec = nullptr;
        for (const auto& o : info->options)
            if (o.key == k || o.key == dashed) spec = &o;
        if (!spec) throw py::value_error("analysis " + name + " has no option " + k);
        auto v = valueFromString(*spec, py::str(value).cast<std::string>());
        if (!v) throw py::value_error(k + ": " + v.error().message);
        req.values[spec->key] = v.value();
    }
    std::string csv, description;
    std::vector<std::string> messages;
    {
        py::gil_scoped_release release;
        auto ctx = AnalysisContext::of(run.data);
        auto table = runAnalysis(*ctx, name, req);
        if (!table) {
            py::gil_scoped_acquire again;
            throw py::value_error(table.error().message);
        }
        std::ostringstream os;
        table->writeCsv(os);
        csv = os.str();
        messages = table->messages;
        auto sel = ctx->select(req.window);
        description = sel ? sel.value()->description : req.window.toString();
    }
    py::object df = py::module_::import("pandas").attr("read_csv")(py::module_::import("io").attr("StringIO")(csv));
    df.attr("attrs")["window"] = description;
    df.attr("attrs")["messages"] = messages;
    return df;
}

Run load(const py::object& paths, bool cache, const std::string& label) {
    std::vector<std::string> files;
    if (py::isinstance<py::str>(paths)) files.push_back(paths.cast<std::string>());
    else files = paths.cast<std::vector<std::string>>();
    RunLoadOptions options;
    options.useCache = cache;
    std::vector<Result<LoadJobResult>> loaded;
    {
        py::gil_scoped_release release;
        JobRunner runner;
        runner.setMemoryLimit(MemoryBudget(options.memoryLimitBytes).limit());
        loaded = loadRunsThroughJobs(runner, {files}, options);
    }
    if (!loaded.front()) throw std::runtime_error(loaded.front().error().toString());
    Run run{loaded.front()->dataset, {}};
    run.paths = files;
    run.label = !label.empty()      ? label
                : files.size() == 1 ? files.front()
                                    : files.front() + " (+" + std::to_string(files.size() - 1) + ")";
    return run;
}

// ---- comparing runs: strobe.compare(runs) and Sweep.compare() (core/analysis/sweep_compare.h)

std::optional<double> msOf(const std::optional<double>& ns) {
    if (!ns) return std::nullopt;
    return *ns / 1e6;
}

// The comparison as strobe-cli sweep compare --json's rows (same column names), plus each axis as a column and the
// per-step statistics; df.attrs holds the method, confidence, baseline and messages.
py::object comparisonFrame(const SweepComparison& c) {
    std::vector<const SweepCompareRow*> rows;
    for (const auto* part : {&c.stepRows, &c.gpuRows, &c.rows})
        for (const auto& r : *part) rows.push_back(&r);
    std::vector<std::string> axes;
    for (const auto* r : rows)
        for (const auto& [k, v] : r->parameters)
            if (std::find(axes.begin(), axes.end(), k) == axes.end()) axes.push_back(k);
    std::sort(axes.begin(), axes.end());
    py::list records;
    for (const SweepCompareRow* r : rows) {
        const bool interval = r->ciLowNs.has_value();
        py::dict d;
        d["kind"] = std::string(toString(r->kind));
        d["group"] = r->group;
        const std::string configuration = parametersText(r->parameters, ",");
        d["configuration"] = configuration.empty() ? r->config : configuration;
        for (const auto& a : axes) {
            auto it = r->parameters.find(a);
            d[py::str(a)] = it == r->parameters.end() ? py::object(py::none()) : py::object(py::str(it->second));
        }
        d["n_runs"] = r->runs;
        d["n_steps"] = r->steps;
        d["count"] = r->count;
        d["per_step_ms"] = r->perStepNs / 1e6;
        d["median_ms"] = r->medianNs / 1e6;
        d["p5_ms"] = r->p5Ns / 1e6;
        d["p95_ms"] = r->p95Ns / 1e6;
        d["cv"] = r->cv;
        d["delta_ms"] = interval ? msOf(r->deltaNs) : std::nullopt;
        d["ci_low_ms"] = msOf(r->ciLowNs);
        d["ci_high_ms"] = msOf(r->ciHighNs);
        d["delta_pct"] = interval ? r->deltaPct : std::nullopt;
        d["ci_low_pct"] = interval ? r->ciLowPct : std::nullopt;
        d["ci_high_pct"] = interval ? r->ciHighPct : std::nullopt;
        d["significant"] = interval ? py::object(py::bool_(r->significant)) : py::object(py::none());
        d["p"] = r->p;
        d["resampled"] = interval ? py::object(py::str(r->resampled)) : py::object(py::none());
        d["reason"] = r->reason.empty() ? py::object(py::none()) : py::object(py::str(r->reason));
        records.append(d);
    }
    py::object df = py::module_::import("pandas").attr("DataFrame").attr("from_records")(records);
    df.attr("attrs")["method"] = c.method;
    df.attr("attrs")["confidence"] = c.confidence;
    df.attr("attrs")["baseline"] = c.baseline;
    df.attr("attrs")["messages"] = c.messages;
    return df;
}

py::object compareRuns(const RunSet& runs, std::string baseline, const std::string& groupBy, int skipSteps, int top,
                       int resamples) {
    SweepCompareOptions o;
    std::string error;
    if (!parseSweepGroupBy(groupBy, o.groupBy, o.groupRegex, error)) throw py::value_error("group_by: " + error);
    o.baseline = baseline.empty() ? defaultSweepBaseline(runs) : baseline;
    o.skipSteps = skipSteps;
    o.top = top;
    if (resamples > 0) o.resamples = resamples;
    SweepComparison c;
    {
        py::gil_scoped_release release;
        c = compareSweep(runs, o);
    }
    if (!o.baseline.empty() && !c.baseline)
        throw py::value_error(c.messages.empty() ? "bad baseline '" + o.baseline + "'" : c.messages.back());
    return comparisonFrame(c);
}

RunSet runSetOf(const std::vector<Run>& runs) {
    RunSet set;
    for (const Run& r : runs) set.push_back(r.entry());
    return set;
}

// ---- sweeps: strobe.sweep(paths) discovers the runs (no load); .load() loads them through the load jobs.

struct Sweep {
    sweep::SweepDiscovery found;
    std::vector<Run> loaded;  // in found.runs' order, once load() ran

    py::object runsFrame() const {
        py::list records;
        for (const RunEntry& r : found.runs) {
            py::dict d;
            d["label"] = r.label;
            d["path"] = r.path();
            d["configuration"] = r.key();
            d["repeat"] = r.repeat;
            for (const auto& [k, v] : parameterTexts(r.parameters)) d[py::str(k)] = v;
            records.append(d);
        }
        return py::module_::import("pandas").attr("DataFrame").attr("from_records")(records);
    }
    const std::vector<Run>& load(bool cache) {
        if (!loaded.empty()) return loaded;
        std::vector<std::vector<std::string>> paths;
        for (const RunEntry& r : found.runs) paths.push_back(r.paths);
        RunLoadOptions options;
        options.useCache = cache;
        std::vector<Result<LoadJobResult>> results;
        {
            py::gil_scoped_release release;
            JobRunner runner;
            runner.setMemoryLimit(MemoryBudget(options.memoryLimitBytes).limit());
            results = loadRunsThroughJobs(runner, paths, options);
        }
        std::vector<Run> out;
        for (size_t i = 0; i < results.size(); ++i) {
            if (!results[i]) throw std::runtime_error(results[i].error().toString());
            const RunEntry& e = found.runs[i];
            out.push_back(Run{results[i]->dataset, e.label, e.parameters, e.repeat, e.configurationKey, e.paths});
        }
        loaded = std::move(out);
        return loaded;
    }
};

Sweep discover(const py::object& paths, const std::string& pattern) {
    std::vector<std::string> list;
    if (py::isinstance<py::str>(paths)) list.push_back(paths.cast<std::string>());
    else list = paths.cast<std::vector<std::string>>();
    Sweep s;
    {
        py::gil_scoped_release release;
        s.found = sweep::discoverSweep(list, pattern);
    }
    if (s.found.runs.empty()) {
        std::string why;
        for (const auto& m : s.found.messages) why += "\n  " + m;
        throw py::value_error("no runs found under the paths given" + why);
    }
    return s;
}

#ifdef STROBE_HAVE_PLOTS
// ---- plots rendered off screen, as strobe-cli plot does (plots/render.h)

// A QGuiApplication for fonts, made once (plots/render.h).
void ensureGuiApplication() {
    // Released: it lives as long as the interpreter (destroying it at exit, after Python's teardown, is not safe).
    static QGuiApplication* app = plots::makeHeadlessGuiApplication().release();
    (void)app;
}

// One plot prepared on runs: .png (bytes), .svg (bytes), .table (DataFrame), .save(path); shown inline in notebooks
// (_repr_png_).
struct Figure {
    const plots::Plot* plot = nullptr;
    plots::PreparedPtr prepared;
    core::ParamValues values;
    RunSet runs;  // keeps the data alive
    int width = 1400, height = 800;
    bool dark = false;

    plots::Caption caption() const {
        std::vector<std::string> labels;
        for (const auto& r : runs) labels.push_back(r.label);
        return plots::exportCaption(*plot, labels);
    }
    py::bytes png() const {
        QImage image = plots::renderToImage(*plot, *prepared, values, QSize(width, height), dark, 1.0, caption());
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        image.save(&buffer, "PNG");
        return py::bytes(bytes.constData(), static_cast<size_t>(bytes.size()));
    }
    py::bytes svg() const {
        QByteArray bytes = plots::renderToSvg(*plot, *prepared, values, QSize(width, height), dark, caption());
        return py::bytes(bytes.constData(), static_cast<size_t>(bytes.size()));
    }
    void save(const std::string& path) const {
        auto format = plots::imageFormatFromPath(path);
        if (!format) throw py::value_error("'" + path + "': expected a .png, .svg or .pdf file");
        if (auto st = plots::renderToFile(*plot, *prepared, values, QSize(width, height), path, format, dark, caption());
            !st)
            throw std::runtime_error(st.error().toString());
    }
    py::object table() const {
        std::ostringstream os;
        plot->table(*prepared, values).writeCsv(os);
        return py::module_::import("pandas").attr("read_csv")(py::module_::import("io").attr("StringIO")(os.str()));
    }
};

Figure makeFigure(RunSet runs, const std::string& id, std::pair<int, int> size, bool dark, const py::kwargs& params) {
    const plots::Plot* plot = plots::PlotRegistry::instance().find(id);
    if (!plot) {
        std::string ids;
        for (const auto* p : plots::PlotRegistry::instance().plots()) ids += (ids.empty() ? "" : ", ") + p->id();
        throw py::value_error("unknown plot '" + id + "' (plots: " + ids + ")");
    }
    if (size.first < 16 || size.second < 16 || size.first > 20000 || size.second > 20000)
        throw py::value_error("size must be (width, height) within 16..20000");
    ensureGuiApplication();
    core::ParamValues values;
    const auto specs = core::specsBeforeData(plot->parameters({}));
    for (const auto& [key, value] : params) {
        // The same key=value rule as strobe-cli plot --set; lists as comma-separated text.
        std::string text = py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)
                               ? py::str(",").attr("join")(py::module_::import("builtins").attr("map")(
                                     py::module_::import("builtins").attr("str"), value)).cast<std::string>()
                               : py::str(value).cast<std::string>();
        if (py::isinstance<py::bool_>(value)) text = value.cast<bool>() ? "true" : "false";
        if (auto st = core::applyAssignment(specs, py::str(key).cast<std::string>() + "=" + text, values); !st)
            throw py::value_error(st.error().toString());
    }
    auto resolved = core::resolveValues(plot->parameters(runs), values);
    if (!resolved) throw py::value_error(resolved.error().toString());
    auto prepared = [&] {
        py::gil_scoped_release release;
        return plot->prepare(runs, *resolved, {}, {});
    }();
    if (!prepared) throw py::value_error(id + ": " + prepared.error().toString());
    return Figure{plot, *prepared, *resolved, std::move(runs), size.first, size.second, dark};
}
#endif

}  // namespace

PYBIND11_MODULE(strobe, m) {
    m.doc() = "Strobe's trace loader and SQL tables for Python (read-only NumPy columns, pandas DataFrames).";
    spdlog::set_level(spdlog::level::warn);  // a notebook shows warnings, not the loader's progress lines
    py::class_<PyTable>(m, "Table", "One table of a rank: len(), .columns, t['col'] (a read-only NumPy view), .to_pandas()")
        .def("__len__", &PyTable::rows)
        .def_property_readonly("columns", &PyTable::names)
        .def("__getitem__", &PyTable::column)
        .def("to_pandas", &PyTable::toPandas);
    py::class_<Rank>(m, "Rank")
        .def_property_readonly("rank", [](const Rank& r) { return r.r->rank; })
        .def_property_readonly("path", [](const Rank& r) { return r.r->path.empty() ? r.r->info.path : r.r->path; })
        .def_property_readonly("platform", [](const Rank& r) { return std::string(toString(r.r->info.platform)); })
        .def_property_readonly("gpu", [](const Rank& r) { return r.r->info.gpuName(); })
        .def_property_readonly("kernels", &Rank::kernels, "GPU activities (kernels, memcpy, memset)")
        .def_property_readonly("slices", &Rank::slices, "CPU-side events")
        .def_property_readonly("steps", &Rank::steps, "ProfilerStep#N ranges")
        .def("__repr__", [](const Rank& r) {
            return "<strobe.Rank " + std::to_string(r.r->rank) + ": " + std::to_string(r.r->gpu.size()) + " GPU activities>";
        });
    py::class_<Run>(m, "Run")
        .def_property_readonly("ranks", &Run::ranks)
        .def_readonly("label", &Run::label)
        .def("query", &Run::query, py::arg("sql"),
             "One read-only SQL statement over the run's tables (as strobe-cli query): a pandas DataFrame")
        .def("analyze", &analyze, py::arg("name"), py::arg("window") = "all", py::arg("steps") = "",
             "One of strobe-cli analyze's analyses (temporal, overlap, idle, kernel-types, straggler, ...) as a "
             "DataFrame; options as keywords (dashes as underscores); df.attrs holds the window and messages")
        .def_property_readonly("parameters", &Run::parameterMap, "the sweep point (axis -> value), for a sweep's runs")
        .def_readonly("repeat", &Run::repeat)
        .def_property_readonly("configuration", [](const Run& r) { return r.entry().key(); })
#ifdef STROBE_HAVE_PLOTS
        .def("plot", [](const Run& r, const std::string& id, std::pair<int, int> size, bool dark, const py::kwargs& kw) {
                 return makeFigure({r.entry()}, id, size, dark, kw);
             }, py::arg("id"), py::arg("size") = std::pair<int, int>{1400, 800}, py::arg("dark") = false,
             "One of strobe-cli plots' plots on this run, parameters as keywords (as plot --set): a Figure")
#endif
        .def("__repr__", [](const Run& r) {
            return "<strobe.Run " + r.label + ": " + std::to_string(r.data->ranks.size()) + " ranks>";
        });
    py::class_<Sweep>(m, "Sweep", "The runs of a parameter sweep, as strobe-cli sweep runs finds them")
        .def_property_readonly("runs", &Sweep::runsFrame, "label, path, configuration, repeat and one column per axis")
        .def_property_readonly("axes", [](const Sweep& s) { return s.found.axes; })
        .def_property_readonly("messages", [](const Sweep& s) { return s.found.messages; })
        .def("__len__", [](const Sweep& s) { return s.found.runs.size(); })
        .def("load", &Sweep::load, py::arg("cache") = true, py::return_value_policy::copy,
             "Loads every run through the load job and cache (once): a list of strobe.Run with their parameters")
        .def("compare", [](Sweep& s, const std::string& baseline, const std::string& groupBy, int skipSteps, int top,
                           int resamples) {
                 s.load(true);
                 return compareRuns(runSetOf(s.loaded), baseline, groupBy, skipSteps, top, resamples);
             }, py::arg("baseline") = "", py::arg("group_by") = "name", py::arg("skip_steps") = 0, py::arg("top") = 0,
             py::arg("resamples") = 0,
             "strobe-cli sweep compare as a DataFrame (same columns as its --json rows; the default baseline is the "
             "first configuration in axis order)")
#ifdef STROBE_HAVE_PLOTS
        .def("plot", [](Sweep& s, const std::string& id, std::pair<int, int> size, bool dark, const py::kwargs& kw) {
                 s.load(true);
                 return makeFigure(runSetOf(s.loaded), id, size, dark, kw);
             }, py::arg("id"), py::arg("size") = std::pair<int, int>{1400, 800}, py::arg("dark") = false,
             "A plot over every run of the sweep (step-time-box, sweep-interaction, ...): a Figure")
#endif
        .def("__repr__", [](const Sweep& s) {
            return "<strobe.Sweep " + std::to_string(s.found.runs.size()) + " runs, axes " +
                   py::str(py::cast(s.found.axes)).cast<std::string>() + ">";
        });
#ifdef STROBE_HAVE_PLOTS
    py::class_<Figure>(m, "Figure", "A prepared plot: .png / .svg bytes, .save(path), .table (a DataFrame)")
        .def_property_readonly("png", &Figure::png)
        .def_property_readonly("svg", &Figure::svg)
        .def_property_readonly("table", &Figure::table)
        .def("save", &Figure::save, py::arg("path"), "Writes a .png, .svg or .pdf (by its extension)")
        .def("_repr_png_", &Figure::png)
        .def("__repr__", [](const Figure& f) { return "<strobe.Figure " + f.plot->id() + ">"; });
    m.def("plots", [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto* p : plots::PlotRegistry::instance().plots()) out.emplace_back(p->id(), p->title());
        return out;
    }, "(id, title) of every plot Run.plot() and Sweep.plot() draw");
#endif
    m.def("sweep", &discover, py::arg("paths"), py::arg("pattern") = "",
          "Finds the runs of a sweep under a directory (or several), as strobe-cli sweep runs does; nothing loaded");
    m.def("compare", [](const std::vector<Run>& runs, const std::string& baseline, const std::string& groupBy,
                        int skipSteps, int top, int resamples) {
              if (runs.size() < 2) throw py::value_error("compare needs two runs or more");
              return compareRuns(runSetOf(runs), baseline, groupBy, skipSteps, top, resamples);
          }, py::arg("runs"), py::arg("baseline") = "", py::arg("group_by") = "name", py::arg("skip_steps") = 0,
          py::arg("top") = 0, py::arg("resamples") = 0,
          "Compares runs (each its own configuration unless they carry sweep parameters): the sweep comparison's "
          "DataFrame, against `baseline` (a run's label; default the first)");
    m.def("load", &load, py::arg("paths"), py::arg("cache") = true, py::arg("label") = "",
          "Loads a run (a trace file, a run directory, or a list of files forming one run) through Strobe's load job "
          "and load cache, as the workbench and strobe-cli do; `label` names it in comparisons and plots (default: the path).");
    m.def("version", [] { return std::string(STROBE_PY_VERSION); });
    m.def("analyses", [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& a : analysisRegistry()) out.emplace_back(a.name, a.description);
        return out;
    }, "(name, description) of every analysis run.analyze() takes");
}
