#pragma once
// The plot plugin contract (see DESIGN.md "Plot plugins"). A plot is stateless: it declares its parameters
// as data, prepares (expensive, pure, thread-safe, cancellable) and draws (cheap) onto a Canvas.
// Plots never create widgets.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QPainter>
#include <QPointF>
#include <QRectF>

#include "core/analysis/table.h"
#include "core/engine/progress.h"
#include "core/io/error.h"
#include "core/model/dataset.h"
#include "plots/param_spec.h"

namespace strobe::plots {

// One loaded run with its label and sweep parameter values. Exploring one trace is a RunSet of one.
struct RunEntry {
    std::string label;
    core::DatasetPtr dataset;
    std::map<std::string, std::string> parameters;  // sweep point (e.g. NCCL_NCHANNELS=16)
};
using RunSet = std::vector<RunEntry>;

using ParamValues = std::map<std::string, ParamValue>;

struct Prepared {
    virtual ~Prepared() = default;
    virtual size_t bytes() const = 0;  // for the byte-budgeted prepared cache
};
using PreparedPtr = std::shared_ptr<const Prepared>;

struct Canvas {
    QPainter& painter;
    QRectF rect;          // where to draw
    bool dark = false;    // follow the system palette
};

class Plot {
public:
    virtual ~Plot() = default;
    virtual std::string id() const = 0;
    virtual std::string title() const = 0;
    virtual std::string description() const = 0;
    // Specs may depend on the data (choices of StringList, ranks for RankSet); runs may be empty.
    virtual std::vector<ParamSpec> parameters(const RunSet& runs) const = 0;
    virtual core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values,
                                              const core::CancelToken& cancel,
                                              const core::ProgressFn& progress) const = 0;
    virtual void draw(Canvas& canvas, const Prepared& prepared, const ParamValues& values) const = 0;
    // The table behind the picture (CSV export); must match the analysis it shows.
    virtual core::Table table(const Prepared& prepared, const ParamValues& values) const = 0;
    // Text for the value under the cursor, if any.
    virtual std::optional<std::string> tooltipAt(const Prepared&, const ParamValues&, const QRectF&, QPointF) const {
        return std::nullopt;
    }
};

}  // namespace strobe::plots
