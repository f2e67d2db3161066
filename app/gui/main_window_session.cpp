// MainWindow: sessions (capture, apply, open, save, and their dialogs). The GUI's part of a session (panes,
// split, window geometry) is read and written through app/gui/session_layout.h.
#include <algorithm>
#include <map>

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>

#include "app/gui/file_dialogs.h"
#include "app/gui/main_window.h"
#include "app/gui/param_values.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_view.h"
#include "app/gui/query_dock.h"
#include "app/gui/run_manager.h"
#include "app/gui/session_layout.h"
#include "plots/plot_registry.h"

namespace strobe::app {

core::Session MainWindow::captureSession() const {
    core::Session s;
    SessionLayout layout;
    std::map<int, int> index;
    for (int id : m_runs->runIds()) {
        const RunRecord* r = m_runs->run(id);
        if (!r) continue;
        index[id] = static_cast<int>(s.runs.size());
        core::SessionRun run;
        run.run = r->entry;
        run.run.dataset = nullptr;
        run.clockOffsetNs = r->clockOffsetNs;
        s.runs.push_back(std::move(run));
    }
    for (int pane = 0; pane < 2; ++pane) {
        for (PlotView* v : m_plotArea->views(pane)) {
            core::SessionPlot p;
            p.plotId = v->plot().id();
            for (int id : v->runIds())
                if (auto it = index.find(id); it != index.end()) p.runs.push_back(it->second);
            for (const auto& [k, val] : v->values()) p.values[k] = val;  // same variant as core::SessionValue
            s.plots.push_back(std::move(p));
            layout.plots.push_back({pane, {}});
        }
    }
    layout.split = m_plotArea->isSplit();
    layout.splitVertical = m_plotArea->isVertical();
    for (int size : m_plotArea->splitSizes()) layout.splitSizes.push_back(size);
    layout.currentTab = {m_plotArea->currentIndex(0), m_plotArea->currentIndex(1)};
    layout.syncTimeAxes = m_plotArea->syncTimeAxes();
    layout.windowGeometry = saveGeometry().toBase64().toStdString();
    layout.windowState = saveState().toBase64().toStdString();
    storeLayout(s, layout);
    if (const QStringList queries = m_query->history(); !queries.isEmpty()) {
        std::vector<std::string> texts;
        for (const QString& q : queries) texts.push_back(q.toStdString());
        s.sections.push_back({"queries", {{"history", texts}}});
    }
    return s;
}

bool MainWindow::applySession(const core::Session& s, const std::vector<int>* useRuns, const QString& sourceName) {
    auto read = readLayout(s, sourceName.toStdString());
    if (!read) {
        showError(tr("Cannot open the session: %1").arg(QString::fromStdString(read.error().toString())));
        return false;
    }
    const SessionLayout& layout = read.value();
    for (const auto& section : s.sections)
        if (section.name == "queries")
            if (const auto* f = core::findViewField(section.fields, "history"))
                if (const auto* texts = std::get_if<std::vector<std::string>>(&f->value)) {
                    QStringList queries;
                    for (const auto& t : *texts) queries << QString::fromStdString(t);
                    m_query->setHistory(queries);
                }
    m_plotArea->closeAll();
    std::vector<int> ids;
    if (useRuns) {
        ids = *useRuns;
    } else {
        m_runs->closeAll();
        for (const auto& r : s.runs) {
            QStringList sources;
            for (const auto& p : r.run.paths) sources << QString::fromStdString(p);
            ids.push_back(openRun(sources, QString::fromStdString(r.run.label), r.run.parameters, r.clockOffsetNs));
        }
    }
    for (int id : ids) m_viewOnLoad.erase(id);  // the session says which plots to show
    if (!layout.windowGeometry.empty())
        restoreGeometry(QByteArray::fromBase64(QByteArray::fromStdString(layout.windowGeometry)));
    if (!layout.windowState.empty())
        restoreState(QByteArray::fromBase64(QByteArray::fromStdString(layout.windowState)));
    m_plotArea->setVertical(layout.splitVertical);
    m_plotArea->setSyncTimeAxes(layout.syncTimeAxes);
    m_actSync->setChecked(layout.syncTimeAxes);
    m_actSplitVertical->setChecked(layout.splitVertical);
    QStringList missing, invalid;
    for (size_t k = 0; k < s.plots.size(); ++k) {
        const core::SessionPlot& p = s.plots[k];
        std::vector<int> runIds;
        for (int i : p.runs) {
            if (ids.empty()) break;
            // On new data with fewer runs, plots of the missing runs go to the last one.
            runIds.push_back(ids[static_cast<size_t>(std::min<int>(i, static_cast<int>(ids.size()) - 1))]);
        }
        if (runIds.empty() && !ids.empty()) runIds.push_back(ids.front());
        const plots::Plot* plot = plots::PlotRegistry::instance().find(p.plotId);
        if (!plot) {
            missing << QString::fromStdString(p.plotId);
            continue;
        }
        core::ParamValues values(p.values.begin(), p.values.end());
        std::vector<std::string> problems;  // values the plot's specs refuse keep their default; say which
        sanitizeValues(plot->parameters({}), values, &problems);
        for (const auto& m : problems) invalid << QString::fromStdString(p.plotId + ": " + m);
        openPlot(p.plotId, runIds, layout.plots[k].pane, &values);
    }
    m_plotArea->setSplit(layout.split && !m_plotArea->views(1).empty());
    if (layout.splitSizes.size() == 2) m_plotArea->setSplitSizes({layout.splitSizes[0], layout.splitSizes[1]});
    for (size_t i = 0; i < layout.currentTab.size() && i < 2; ++i)
        m_plotArea->setCurrentIndex(static_cast<int>(i), layout.currentTab[i]);
    if (!missing.isEmpty()) showError(tr("The session names plots this Strobe does not have: %1").arg(missing.join(QStringLiteral(", "))));
    else if (!invalid.isEmpty()) showError(tr("Session values not applied (defaults used): %1").arg(invalid.join(QStringLiteral("; "))));
    updateActions();
    return true;
}

bool MainWindow::openSession(const QString& path, const QStringList& replacementPaths) {
    auto loaded = core::loadSession(path.toStdString());
    if (!loaded) {
        showError(tr("Cannot open the session: %1").arg(QString::fromStdString(loaded.error().toString())));
        return false;
    }
    if (auto layout = readLayout(loaded.value(), path.toStdString()); !layout) {
        showError(tr("Cannot open the session: %1").arg(QString::fromStdString(layout.error().toString())));
        return false;
    }
    m_sessionPath = path;
    if (!replacementPaths.isEmpty()) {
        m_plotArea->closeAll();
        m_runs->closeAll();
        std::vector<int> ids;
        for (const auto& group : RunManager::groupIntoRuns(replacementPaths)) ids.push_back(openRun(group));
        applySession(loaded.value(), &ids, path);
    } else {
        applySession(loaded.value(), nullptr, path);
    }
    m_sessionModified = false;  // as opened
    statusBar()->showMessage(tr("Session %1 opened").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

bool MainWindow::saveSession(const QString& path) {
    auto st = core::saveSession(captureSession(), path.toStdString());
    if (!st) {
        showError(tr("Cannot save the session: %1").arg(QString::fromStdString(st.error().toString())));
        return false;
    }
    m_sessionPath = path;
    m_sessionModified = false;
    updateActions();
    statusBar()->showMessage(tr("Session saved to %1").arg(path), 5000);
    return true;
}

bool MainWindow::isSessionFile(const QString& path) {
    return path.endsWith(QLatin1String(".yaml"), Qt::CaseInsensitive) ||
           path.endsWith(QLatin1String(".yml"), Qt::CaseInsensitive);
}

void MainWindow::openSessionDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), dialogDirectory(QStringLiteral("session")),
                                                      tr("Strobe sessions (*.yaml *.yml);;All files (*)"));
    if (path.isEmpty()) return;
    rememberDialogDirectory(QStringLiteral("session"), path);
    openSession(path);
}

void MainWindow::saveSessionDialog(bool saveAs) {
    QString path = m_sessionPath;
    if (saveAs || path.isEmpty())
        path = QFileDialog::getSaveFileName(this, tr("Save session"), path.isEmpty() ? proposedSavePath(QStringLiteral("session"), QStringLiteral("session.yaml")) : path,
                                            tr("Strobe sessions (*.yaml *.yml)"));
    if (path.isEmpty()) return;
    if (!isSessionFile(path)) path += QStringLiteral(".yaml");
    saveSession(path);
}

void MainWindow::applySessionDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Apply a session's plots and parameters to the open runs"),
                                                      dialogDirectory(QStringLiteral("session")),
                                                      tr("Strobe sessions (*.yaml *.yml);;All files (*)"));
    if (path.isEmpty()) return;
    auto loaded = core::loadSession(path.toStdString());
    if (!loaded) {
        showError(tr("Cannot open the session: %1").arg(QString::fromStdString(loaded.error().toString())));
        return;
    }
    const auto ids = m_runs->runIds();
    applySession(loaded.value(), &ids, path);
}

}  // namespace strobe::app
