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
#include "core/query/sql_query.h"

#include <spdlog/spdlog.h>

namespace py = pybind11;
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

Run load(const py::object& paths, bool cache) {
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
    run.label = files.size() == 1 ? files.front() : files.front() + " (+" + std::to_string(files.size() - 1) + ")";
    return run;
}

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
        .def("__repr__", [](const Run& r) {
            return "<strobe.Run " + r.label + ": " + std::to_string(r.data->ranks.size()) + " ranks>";
        });
    m.def("load", &load, py::arg("paths"), py::arg("cache") = true,
          "Loads a run (a trace file, a run directory, or a list of files forming one run) through Strobe's load job "
          "and load cache, as the workbench and strobe-cli do.");
    m.def("version", [] { return std::string(STROBE_PY_VERSION); });
    m.def("analyses", [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& a : analysisRegistry()) out.emplace_back(a.name, a.description);
        return out;
    }, "(name, description) of every analysis run.analyze() takes");
}
