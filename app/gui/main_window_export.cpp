// MainWindow: export of the current plot (PNG, SVG, PDF, CSV) in the background, and copying its image.
#include <optional>

#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QStatusBar>
#include <QPointer>

#include "app/gui/export_dialog.h"
#include "app/gui/main_window.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "core/engine/job_runner.h"
#include "plots/render.h"

namespace strobe::app {

bool MainWindow::exportCurrentPlot(const QString& path, QSize imageSize) {
    PlotView* view = m_plotArea->currentView();
    if (!view || !view->prepared()) {
        showError(tr("Nothing to export yet: the plot is still being prepared."));
        return false;
    }
    const plots::Plot* plot = &view->plot();
    const plots::PreparedPtr prepared = view->prepared();
    const plots::ParamValues values = view->values();
    const QSize size = imageSize.isEmpty() ? view->size().expandedTo(QSize(640, 400)) : imageSize;
    const bool dark = view->isDark();
    // The file says what it shows: the plot's title (when the plot draws none) and the runs.
    std::vector<std::string> labels;
    for (int id : view->runIds())
        if (const RunRecord* r = m_runs->run(id)) labels.push_back(r->entry.label);
    const plots::Caption caption = plots::exportCaption(view->plot(), labels);
    const std::string file = path.toStdString();
    const bool csv = path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive);
    // Rendering and writing run off the GUI thread (the Prepared is immutable, draw() is const), as a job of the
    // runner (the jobs panel shows it); a second export to the same file supersedes the first.
    QPointer<MainWindow> self(this);
    m_runner->submit("export:" + file, tr("Export %1").arg(QFileInfo(path).fileName()).toStdString(),
                     [plot, prepared, values, size, dark, caption, file, csv, self, path](const core::JobContext&) {
                         const core::Status st = csv ? plots::writeTableCsv(*plot, *prepared, values, file)
                                                     : plots::renderToFile(*plot, *prepared, values, size, file,
                                                                           std::nullopt, dark, caption);
                         return std::function<void()>([self, st, path] {
                             QMetaObject::invokeMethod(qApp, [self, st, path] {
                                 if (!self) return;
                                 if (st.ok()) self->statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
                                 else self->showError(tr("Export failed: %1").arg(QString::fromStdString(st.error().toString())));
                             }, Qt::QueuedConnection);
                         });
                     });
    return true;
}

void MainWindow::exportDialog(bool table) {
    PlotView* view = m_plotArea->currentView();
    if (!view) return;
    const QString base = QString::fromStdString(view->plot().id());
    if (table) {
        QString path = QFileDialog::getSaveFileName(this, tr("Export plot table"),
                                                    QDir(lastExportDirectory()).filePath(base + QStringLiteral(".csv")),
                                                    tr("CSV table (*.csv)"));
        if (path.isEmpty()) return;
        if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".csv");
        rememberExportDirectory(path);
        exportCurrentPlot(path);
        return;
    }
    ExportDialog dialog(base + QStringLiteral(".png"), view->size(), this);
    if (dialog.exec() != QDialog::Accepted || dialog.path().isEmpty()) return;
    exportCurrentPlot(dialog.path(), dialog.imageSize());
}

void MainWindow::copyImageToClipboard() {
    PlotView* view = m_plotArea->currentView();
    if (!view) return;
    const QImage img = view->renderImage(view->size());
    if (img.isNull()) {
        showError(tr("Nothing to copy yet: the plot is still being prepared."));
        return;
    }
    QGuiApplication::clipboard()->setImage(img);
    statusBar()->showMessage(tr("Plot image copied to the clipboard"), 4000);
}

}  // namespace strobe::app
