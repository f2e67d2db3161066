#include "app/gui/profile_dialog.h"

#include <algorithm>
#include <set>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QInputDialog>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/gui/param_editor.h"
#include "collectors/device_info.h"
#include "collectors/launch_request.h"
#include "collectors/madengine_context.h"
#include "collectors/process_tree.h"
#include "collectors/remote.h"
#include "collectors/slurm.h"
#include "collectors/sweep_launch.h"
#include "core/io/resources.h"

namespace strobe::app {

namespace {

enum ToolColumn { ColName, ColKind, ColVendor, ColAvailable, ColVersion, ProfileDialogColCount };

QString q(const std::string& s) { return QString::fromStdString(s); }

// Rows of a two-column table whose cells are not both empty, trimmed.
std::vector<std::pair<QString, QString>> tableRows(const QTableWidget* t) {
    std::vector<std::pair<QString, QString>> rows;
    for (int r = 0; r < t->rowCount(); ++r) {
        const QString k = t->item(r, 0) ? t->item(r, 0)->text().trimmed() : QString();
        const QString v = t->item(r, 1) ? t->item(r, 1)->text() : QString();
        if (k.isEmpty() && v.trimmed().isEmpty()) continue;
        rows.emplace_back(k, v);
    }
    return rows;
}

void addRow(QTableWidget* t, const QString& k = {}, const QString& v = {}) {
    const int r = t->rowCount();
    t->insertRow(r);
    t->setItem(r, 0, new QTableWidgetItem(k));
    t->setItem(r, 1, new QTableWidgetItem(v));
}

// A two-column key/value table with Add and Remove buttons below it.
QWidget* keyValueEditor(QTableWidget*& table, const QString& keyTitle, const QString& valueTitle, const QString& name,
                        QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    table = new QTableWidget(0, 2, box);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels({keyTitle, valueTitle});
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->setMinimumHeight(80);
    table->setMaximumHeight(110);
    layout->addWidget(table);
    auto* buttons = new QHBoxLayout;
    auto* add = new QPushButton(QObject::tr("Add"), box);
    auto* remove = new QPushButton(QObject::tr("Remove"), box);
    add->setObjectName(name + QStringLiteral("Add"));
    remove->setObjectName(name + QStringLiteral("Remove"));
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch();
    layout->addLayout(buttons);
    QTableWidget* t = table;
    QObject::connect(add, &QPushButton::clicked, t, [t] {
        addRow(t);
        t->setCurrentCell(t->rowCount() - 1, 0);
        t->editItem(t->item(t->rowCount() - 1, 0));
    });
    QObject::connect(remove, &QPushButton::clicked, t, [t] {
        const int r = t->currentRow();
        if (r >= 0) t->removeRow(r);
    });
    return box;
}

// A line edit with a Browse… button that picks a directory.
QWidget* directoryField(QLineEdit*& edit, const QString& caption, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    edit = new QLineEdit(box);
    auto* browse = new QPushButton(QObject::tr("Browse…"), box);
    row->addWidget(edit, 1);
    row->addWidget(browse);
    QLineEdit* e = edit;
    QObject::connect(browse, &QPushButton::clicked, e, [e, caption, box] {
        const QString start = e->text().isEmpty() ? QDir::homePath() : QFileInfo(e->text()).absolutePath();
        const QString dir = QFileDialog::getExistingDirectory(box, caption, start);
        if (!dir.isEmpty()) e->setText(dir);
    });
    return box;
}

std::map<std::string, std::string> probeVariables(const QString& strobeCli, const QString& python) {
    return {{"out", "."},
            {"strobe_cli", strobeCli.toStdString()},
            {"python_dir", core::resourcePath("python").string()},
            {"resources", core::resourceDir().string()},
            {"python", python.toStdString()}};
}

}  // namespace

QString joinCommand(const QStringList& argv) {
    QStringList out;
    for (const QString& a : argv) {
        const bool quote = a.isEmpty() || a.contains(QLatin1Char('"')) ||
                           std::any_of(a.begin(), a.end(), [](QChar c) { return c.isSpace(); });
        if (!quote) {
            out << a;
            continue;
        }
        QString quoted = a;
        quoted.replace(QLatin1String("\""), QLatin1String("\"\"\""));
        out << QLatin1Char('"') + quoted + QLatin1Char('"');
    }
    return out.join(QLatin1Char(' '));
}

QString pythonOf(const QStringList& command) {
    std::vector<std::string> argv;
    for (const QString& a : command) argv.push_back(a.toStdString());
    return QString::fromStdString(collectors::findPython(argv));  // what the session itself will find
}

QStringList slurmArgsOf(const SlurmFields& f) {
    QStringList args;
    if (!f.partition.trimmed().isEmpty()) args << QStringLiteral("--partition=") + f.partition.trimmed();
    if (f.tasks > 0) args << QStringLiteral("--ntasks=%1").arg(f.tasks);
    if (f.gpusPerNode > 0) args << QStringLiteral("--gpus-per-node=%1").arg(f.gpusPerNode);
    if (!f.timeLimit.trimmed().isEmpty()) args << QStringLiteral("--time=") + f.timeLimit.trimmed();
    return args + f.extra;
}

SlurmFields slurmFieldsOf(const QStringList& args) {
    SlurmFields f;
    // sbatch's long forms with '=' or a separate value, and the short ones (-p P, -pP, -n N, -t T).
    const std::vector<std::pair<QString, QString>> names{{QStringLiteral("--partition"), QStringLiteral("-p")},
                                                         {QStringLiteral("--ntasks"), QStringLiteral("-n")},
                                                         {QStringLiteral("--gpus-per-node"), QString()},
                                                         {QStringLiteral("--time"), QStringLiteral("-t")}};
    auto take = [&f](size_t which, const QString& value) {
        bool ok = false;
        switch (which) {
            case 0: f.partition = value; return true;
            case 1: f.tasks = value.toInt(&ok); return ok && f.tasks > 0;
            case 2: f.gpusPerNode = value.toInt(&ok); return ok && f.gpusPerNode > 0;
            default: f.timeLimit = value; return true;
        }
    };
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        bool used = false;
        for (size_t n = 0; n < names.size() && !used; ++n) {
            const auto& [longName, shortName] = names[n];
            QString value;
            int consumed = 0;
            if (a.startsWith(longName + QLatin1Char('='))) value = a.mid(longName.size() + 1);
            else if (a == longName && i + 1 < args.size()) value = args[i + 1], consumed = 1;
            else if (!shortName.isEmpty() && a == shortName && i + 1 < args.size()) value = args[i + 1], consumed = 1;
            else if (!shortName.isEmpty() && a.startsWith(shortName) && a.size() > shortName.size() && !a.startsWith(QStringLiteral("--")))
                value = a.mid(shortName.size());
            else continue;
            const SlurmFields before = f;
            if (!take(n, value)) {
                f = before;  // not a form the fields hold (-n abc): kept as an extra argument
                continue;
            }
            used = true;
            i += consumed;
        }
        if (!used) f.extra << a;
    }
    return f;
}

bool validSlurmTime(const QString& text) {
    static const QRegularExpression re(QStringLiteral(
        "^(\\d+|\\d+:\\d{1,2}|\\d+:\\d{1,2}:\\d{1,2}|\\d+-\\d+|\\d+-\\d+:\\d{1,2}|\\d+-\\d+:\\d{1,2}:\\d{1,2})$"));
    const QString t = text.trimmed();
    return t.compare(QStringLiteral("UNLIMITED"), Qt::CaseInsensitive) == 0 ||
           t.compare(QStringLiteral("INFINITE"), Qt::CaseInsensitive) == 0 || re.match(t).hasMatch();
}

QString shellCommand(const QStringList& argv) {
    QStringList words;
    for (const QString& a : argv) words << q(collectors::shellQuote(a.toStdString()));
    return words.join(QLatin1Char(' '));
}

collectors::LaunchRequest toLaunchRequest(const ProfileRequest& request) {
    collectors::LaunchRequest r;
    for (const QString& a : request.command) r.command.push_back(a.toStdString());
    r.workingDir = request.workingDir.toStdString();
    for (const auto& [key, value] : request.env) r.env.emplace_back(key.toStdString(), value.toStdString());
    for (const auto& t : request.tools) r.tools.push_back({t.name.toStdString(), t.values});
    for (const auto& [key, values] : request.grid) {
        collectors::GridAxis axis{key.toStdString(), {}};
        for (const QString& v : values) axis.values.push_back(v.toStdString());
        r.grid.push_back(std::move(axis));
    }
    r.repeats = request.repeats;
    r.interleaved = request.interleaved;
    r.outDir = request.outDir.toStdString();
    r.slurm = request.slurm;
    for (const QString& a : request.slurmArgs) r.slurmArgs.push_back(a.toStdString());
    r.host = request.host.toStdString();
    r.remoteStrobeCli = request.remoteStrobeCli.toStdString();
    return r;
}

QStringList buildCollectArgv(const ProfileRequest& request, const collectors::ToolCatalog& catalog) {
    QStringList argv;
    for (const auto& a : collectors::launchArgv(toLaunchRequest(request), catalog)) argv << q(a);
    return argv;
}

QStringList validateRequest(const ProfileRequest& request, const collectors::ToolCatalog& catalog,
                            const std::map<QString, ToolAvailability>& availability) {
    // The one validator of a launch (collectors::launchProblems, which strobe-cli runs too), with what only this
    // machine can say put in its place: the output and working directories, and each tool's probe.
    const auto shared = collectors::launchProblems(toLaunchRequest(request), catalog);
    QStringList first, rest;
    for (const auto& p : shared) {
        QString text = q(p);
        if (!request.host.isEmpty()) text.replace(QStringLiteral("--host"), QObject::tr("Target"));
        text.replace(QStringLiteral("a --grid key"), QObject::tr("a sweep axis"));
        if (text.startsWith(QStringLiteral("Command ")) && text.contains(QStringLiteral("{{")))
            text.replace(QStringLiteral(" for a literal brace."), QObject::tr(" for a literal brace (or add the sweep axis)."));
        (p.rfind("Enter the command", 0) == 0 || p.rfind("Choose an output", 0) == 0 ? first : rest) << text;
    }
    QStringList problems = first;
    if (!request.outDir.trimmed().isEmpty()) {
        const QFileInfo out(request.outDir);
        if (out.exists() && !out.isDir())
            problems << QObject::tr("The output directory %1 is a file.").arg(request.outDir);
        else if (out.isDir() && !QDir(request.outDir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
            problems << QObject::tr("The output directory %1 is not empty: choose a new one.").arg(request.outDir);
    }
    if (!request.workingDir.isEmpty() && !QFileInfo(request.workingDir).isDir())
        problems << QObject::tr("The working directory %1 does not exist.").arg(request.workingDir);
    for (const auto& tool : request.tools) {
        if (!catalog.find(tool.name.toStdString())) continue;  // launchProblems names it
        auto it = availability.find(tool.name);
        if (!request.host.isEmpty()) {
            // The host's own probes (shown in the tools list) refuse a tool it lacks; until they answer (or when the
            // host cannot be asked) launch decides there (collect --host refuses, 125, what is missing).
            if (it != availability.end() && it->second.known && !it->second.available)
                problems << QObject::tr("%1 is not available on %2%3.")
                                .arg(tool.name, request.host,
                                     it->second.message.isEmpty() ? QString() : QStringLiteral(": ") + it->second.message);
            continue;
        }
        if (it == availability.end() || !it->second.known)
            problems << QObject::tr("Checking whether %1 is installed…").arg(tool.name);
        else if (!it->second.available)
            problems << QObject::tr("%1 is not available%2.")
                            .arg(tool.name, it->second.message.isEmpty() ? QString() : QStringLiteral(": ") + it->second.message);
    }
    problems << rest;
    if (request.slurm) {
        if (QStandardPaths::findExecutable(QStringLiteral("sbatch")).isEmpty())
            problems << QObject::tr("Slurm: sbatch is not on PATH (install Slurm's client, or uncheck Slurm).");
        const SlurmFields f = slurmFieldsOf(request.slurmArgs);
        if (!f.timeLimit.isEmpty() && !validSlurmTime(f.timeLimit))
            problems << QObject::tr("Slurm time limit '%1': write MINUTES, HH:MM:SS or D-HH:MM:SS.").arg(f.timeLimit);
    }
    return problems;
}

QString ProfileDialog::defaultOutDir() {
    const QString parent = QSettings().value(QStringLiteral("profile/lastParent"),
                                             QDir::home().filePath(QStringLiteral("strobe-runs"))).toString();
    const QString stem = QStringLiteral("run-") + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString path = QDir(parent).filePath(stem);
    for (int n = 2; QFileInfo::exists(path); ++n) path = QDir(parent).filePath(stem + QStringLiteral("-%1").arg(n));
    return path;
}

ProfileDialog::ProfileDialog(const QString& strobeCli, core::JobRunner& runner, QWidget* parent)
    : QDialog(parent),
      m_strobeCli(strobeCli),
      m_catalog(collectors::loadToolCatalog()),
      m_probe(runner, backgroundSlot("tool-probes", this)),
      m_slurmJob(runner, backgroundSlot("slurm-probe", this)),
      m_gpuJob(runner, backgroundSlot("gpu-probe", this)) {
    setObjectName(QStringLiteral("profileDialog"));
    setWindowTitle(tr("Profile a workload"));
    auto* outer = new QVBoxLayout(this);
    auto* split = new QSplitter(Qt::Horizontal, this);
    outer->addWidget(split, 1);

    // Left: what runs, where it goes.
    auto* left = new QWidget(split);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 6, 0);
    auto* runBox = new QGroupBox(tr("Workload"), left);
    auto* form = new QFormLayout(runBox);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_command = new QLineEdit(runBox);
    m_command->setObjectName(QStringLiteral("profileCommand"));
    m_command->setPlaceholderText(tr("python3 train.py --epochs 1"));
    m_command->setToolTip(tr("Split into arguments at spaces (\"double quotes\" keep words together, \"\"\" is a "
                             "literal quote) and run directly: no shell, no pipes or variables. In a sweep, {KEY} is "
                             "replaced by the value."));
    form->addRow(tr("Command:"), m_command);
    form->addRow(tr("Working directory:"), directoryField(m_workDir, tr("Working directory"), runBox));
    m_workDir->setObjectName(QStringLiteral("profileWorkDir"));
    m_workDir->setPlaceholderText(tr("(Strobe's current directory)"));
    form->addRow(tr("Environment:"), keyValueEditor(m_env, tr("Name"), tr("Value"), QStringLiteral("profileEnv"), runBox));
    leftLayout->addWidget(runBox);

    auto* sweepBox = new QGroupBox(tr("Sweep (optional)"), left);
    sweepBox->setToolTip(tr("Each row is an axis: the workload runs once per combination of values and repeat, with "
                            "KEY set in its environment (strobe-cli sweep launch)"));
    auto* sweepForm = new QFormLayout(sweepBox);
    sweepForm->addRow(keyValueEditor(m_grid, tr("Key"), tr("Values (comma-separated)"), QStringLiteral("profileGrid"), sweepBox));
    m_repeats = new QSpinBox(sweepBox);
    m_repeats->setObjectName(QStringLiteral("profileRepeats"));
    m_repeats->setRange(1, 10000);
    m_order = new QComboBox(sweepBox);
    m_order->setObjectName(QStringLiteral("profileOrder"));
    m_order->addItem(tr("sequential (every repeat of a point, then the next)"), QStringLiteral("sequential"));
    m_order->addItem(tr("interleaved (every point once, then again)"), QStringLiteral("interleaved"));
    sweepForm->addRow(tr("Repeats:"), m_repeats);
    sweepForm->addRow(tr("Order:"), m_order);
    leftLayout->addWidget(sweepBox);

    auto* outBox = new QGroupBox(tr("Output"), left);
    auto* outForm = new QFormLayout(outBox);
    outForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    outForm->addRow(tr("Directory:"), directoryField(m_outDir, tr("Output directory"), outBox));
    m_outDir->setObjectName(QStringLiteral("profileOutDir"));
    m_outDir->setToolTip(tr("A new or empty directory: the run directory, or the sweep's"));
    m_slurm = new QCheckBox(tr("Run through Slurm (--slurm)"), outBox);
    m_slurm->setObjectName(QStringLiteral("profileSlurm"));
    outForm->addRow(QString(), m_slurm);
    buildSlurm(outBox, outForm);
    buildTarget(outBox, outForm);
    leftLayout->addWidget(outBox);
    leftLayout->addStretch();

    // Right: tools and their parameters.
    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(6, 0, 0, 0);
    buildStacks(right, rightLayout);
    auto* toolBox = new QGroupBox(tr("Tools (checked ones run, outermost first)"), right);
    auto* toolLayout = new QHBoxLayout(toolBox);
    m_tools = new QTreeWidget(toolBox);
    m_tools->setObjectName(QStringLiteral("profileTools"));
    m_tools->setRootIsDecorated(false);
    m_tools->setHeaderLabels({tr("Tool"), tr("Kind"), tr("Vendor"), tr("Available"), tr("Version")});
    m_tools->setMinimumHeight(150);
    toolLayout->addWidget(m_tools, 1);
    auto* moves = new QVBoxLayout;
    auto* up = new QToolButton(toolBox);
    up->setObjectName(QStringLiteral("profileToolUp"));
    up->setArrowType(Qt::UpArrow);
    up->setToolTip(tr("Move the selected tool outwards (earlier)"));
    auto* down = new QToolButton(toolBox);
    down->setObjectName(QStringLiteral("profileToolDown"));
    down->setArrowType(Qt::DownArrow);
    down->setToolTip(tr("Move the selected tool inwards (later)"));
    moves->addWidget(up);
    moves->addWidget(down);
    moves->addStretch();
    toolLayout->addLayout(moves);
    rightLayout->addWidget(toolBox, 2);
    buildGpuLabel(right, rightLayout);
    m_contextNote = new QLabel(right);
    m_contextNote->setObjectName(QStringLiteral("profileContextNote"));
    m_contextNote->setWordWrap(true);
    m_contextNote->setVisible(false);
    rightLayout->addWidget(m_contextNote);
    connect(up, &QToolButton::clicked, this, [this] { moveTool(-1); });
    connect(down, &QToolButton::clicked, this, [this] { moveTool(1); });

    auto* paramBox = new QGroupBox(tr("Tool parameters"), right);
    auto* paramOuter = new QVBoxLayout(paramBox);
    auto* scroll = new QScrollArea(paramBox);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_params = new QWidget(scroll);
    m_params->setObjectName(QStringLiteral("profileParams"));
    m_paramsLayout = new QVBoxLayout(m_params);
    m_paramsLayout->setContentsMargins(0, 0, 0, 0);
    scroll->setWidget(m_params);
    paramOuter->addWidget(scroll);
    rightLayout->addWidget(paramBox, 3);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);

    buildButtons(outer);

    buildToolList();

    restoreLast();

    auto* reprobe = new QTimer(this);
    reprobe->setSingleShot(true);
    reprobe->setInterval(600);
    connect(reprobe, &QTimer::timeout, this, &ProfileDialog::startProbes);
    connect(m_command, &QLineEdit::textChanged, this, [this, reprobe] {
        // Another interpreter: what the tools' probes said no longer holds (torch in one python, not another).
        if (pythonOf(QProcess::splitCommand(m_command->text())) != m_probedPython) {
            for (auto& [name, a] : m_availability) a.known = false;
            for (int i = 0; i < m_tools->topLevelItemCount(); ++i)
                m_tools->topLevelItem(i)->setText(ColAvailable, tr("checking…"));
            reprobe->start();
        }
        revalidate();
    });
    for (QLineEdit* e : {m_workDir, m_outDir}) connect(e, &QLineEdit::textChanged, this, &ProfileDialog::revalidate);
    for (QTableWidget* t : {m_env, m_grid}) {
        connect(t, &QTableWidget::cellChanged, this, &ProfileDialog::revalidate);
        connect(t->model(), &QAbstractItemModel::rowsRemoved, this, &ProfileDialog::revalidate);
    }
    connect(m_tools, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem*, int column) {
        if (column != ColName) return;
        rebuildParams();
        revalidate();
    });
    rebuildParams();
    startProbes();
    revalidate();
    resize(1180, 720);
    m_command->setFocus();
}

ProfileDialog::~ProfileDialog() = default;

// The problems (why Launch is disabled) and the buttons: Launch, Cancel, Copy command.
void ProfileDialog::buildButtons(QVBoxLayout* outer) {
    m_problemLabel = new QLabel(this);
    m_problemLabel->setObjectName(QStringLiteral("profileProblems"));
    m_problemLabel->setWordWrap(true);
    m_problemLabel->setStyleSheet(QStringLiteral("color: #c0392b;"));
    outer->addWidget(m_problemLabel);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Launch"));
    auto* copy = m_buttons->addButton(tr("Copy command"), QDialogButtonBox::ActionRole);
    copy->setObjectName(QStringLiteral("profileCopyCommand"));
    copy->setToolTip(tr("Put the strobe-cli command line of this launch on the clipboard, to run it in a shell or a script"));
    connect(copy, &QPushButton::clicked, this, [this] { copyCommand(); });
    outer->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ProfileDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

// Which GPUs this machine has (or why none), found in the background: what the vendor tools and --gpu-telemetry
// go by.
void ProfileDialog::buildGpuLabel(QWidget* box, QVBoxLayout* layout) {
    m_gpuLabel = new QLabel(tr("GPUs: checking…"), box);
    m_gpuLabel->setObjectName(QStringLiteral("profileGpus"));
    m_gpuLabel->setWordWrap(true);
    m_gpuLabel->setToolTip(tr("What the vendor tools and --gpu-telemetry go by: HSA on AMD, nvidia-smi on NVIDIA"));
    layout->addWidget(m_gpuLabel);
    m_gpuJob.start<QString>(
        tr("Find this machine's GPUs"),
        [](const core::JobContext&) { return q(collectors::describeDevices(collectors::probeDevices())); },
        [this](QString text) { m_gpuLabel->setText(tr("GPUs: %1").arg(text)); },
        [this](const QString& why) { m_gpuLabel->setText(tr("GPUs: not checked (%1)").arg(why)); });
}

void ProfileDialog::restoreLast() {
    // The last request's command, directory and tools, and a fresh output directory.
    QSettings s;
    m_command->setText(s.value(QStringLiteral("profile/command")).toString());
    m_workDir->setText(s.value(QStringLiteral("profile/workingDir")).toString());
    m_slurm->setChecked(s.value(QStringLiteral("profile/slurm"), false).toBool());
    setSlurmFields(slurmFieldsOf(s.value(QStringLiteral("profile/slurmArgs")).toStringList()));
    const QStringList lastTools = s.value(QStringLiteral("profile/tools")).toStringList();
    for (int i = lastTools.size() - 1; i >= 0; --i)
        if (QTreeWidgetItem* item = toolItem(lastTools[i])) {
            m_tools->takeTopLevelItem(m_tools->indexOfTopLevelItem(item));
            m_tools->insertTopLevelItem(0, item);
            item->setCheckState(ColName, Qt::Checked);
        }
    m_outDir->setText(defaultOutDir());
}

// Target: Local, or a host the session runs on over ssh (collectors/remote.h), with that host's strobe-cli.
void ProfileDialog::buildTarget(QWidget* box, QFormLayout* form) {
    m_host = new QLineEdit(box);
    m_host->setObjectName(QStringLiteral("profileTarget"));
    m_host->setPlaceholderText(tr("Local (this machine); or [user@]host[:port] to run there over ssh"));
    m_host->setToolTip(tr("strobe-cli collect --host: the system's ssh with your keys and ~/.ssh/config (never a "
                          "password prompt); the host's own strobe-cli runs the session, probes the tools and GPUs "
                          "there, streams the output back and the run directory is copied here"));
    m_remoteCli = new QLineEdit(box);
    m_remoteCli->setObjectName(QStringLiteral("profileRemoteCli"));
    m_remoteCli->setPlaceholderText(tr("strobe-cli on the host's PATH"));
    form->addRow(tr("Target:"), m_host);
    form->addRow(tr("Remote strobe-cli:"), m_remoteCli);
    QSettings s;
    m_host->setText(s.value(QStringLiteral("profile/host")).toString());
    m_remoteCli->setText(s.value(QStringLiteral("profile/remoteStrobeCli")).toString());
    // The tools list shows the target's probes: this machine's, or the host's own (strobe-cli tools --json there,
    // after the same version preflight as a launch), asked once the target has not changed for a moment.
    auto* reprobeHost = new QTimer(this);
    reprobeHost->setSingleShot(true);
    reprobeHost->setInterval(800);
    connect(reprobeHost, &QTimer::timeout, this, &ProfileDialog::startProbes);
    auto targetChanged = [this, reprobeHost] {
        const bool remote = !m_host->text().trimmed().isEmpty();
        m_remoteCli->setEnabled(remote);
        reprobeHost->start();
        revalidate();
    };
    connect(m_host, &QLineEdit::textChanged, this, targetChanged);
    connect(m_remoteCli, &QLineEdit::textChanged, this, [this, reprobeHost] {
        m_probedHost.clear();  // another strobe-cli there: ask again
        reprobeHost->start();
        revalidate();
    });
    connect(m_slurm, &QCheckBox::toggled, this, &ProfileDialog::revalidate);
    m_remoteCli->setEnabled(!m_host->text().trimmed().isEmpty());
}

// Slurm: the sbatch arguments users set most as fields (partition, tasks, GPUs per node, time limit) plus any others;
// shown while "Run through Slurm" is checked. Checking it asks sinfo (in the background) for the partitions: the
// partition field offers them, and a controller that cannot be asked is said before launch, not after sbatch fails.
void ProfileDialog::buildSlurm(QWidget* box, QFormLayout* form) {
    m_slurmFields = new QWidget(box);
    m_slurmFields->setObjectName(QStringLiteral("profileSlurmFields"));
    auto* f = new QFormLayout(m_slurmFields);
    f->setContentsMargins(18, 0, 0, 0);
    f->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_partition = new QComboBox(m_slurmFields);
    m_partition->setObjectName(QStringLiteral("profileSlurmPartition"));
    m_partition->setEditable(true);
    m_partition->lineEdit()->setPlaceholderText(tr("(the cluster's default)"));
    m_partition->setToolTip(tr("sbatch --partition"));
    m_tasks = new QSpinBox(m_slurmFields);
    m_tasks->setObjectName(QStringLiteral("profileSlurmTasks"));
    m_tasks->setRange(0, 100000);
    m_tasks->setSpecialValueText(tr("default"));
    m_tasks->setToolTip(tr("sbatch --ntasks: one session per task, each into DIR/rank<N>"));
    m_gpus = new QSpinBox(m_slurmFields);
    m_gpus->setObjectName(QStringLiteral("profileSlurmGpus"));
    m_gpus->setRange(0, 64);
    m_gpus->setSpecialValueText(tr("none"));
    m_gpus->setToolTip(tr("sbatch --gpus-per-node"));
    m_timeLimit = new QLineEdit(m_slurmFields);
    m_timeLimit->setObjectName(QStringLiteral("profileSlurmTime"));
    m_timeLimit->setPlaceholderText(tr("(the partition's default) e.g. 00:30:00"));
    m_timeLimit->setToolTip(tr("sbatch --time: MINUTES, HH:MM:SS or D-HH:MM:SS"));
    m_slurmExtra = new QLineEdit(m_slurmFields);
    m_slurmExtra->setObjectName(QStringLiteral("profileSlurmExtra"));
    m_slurmExtra->setPlaceholderText(tr("more sbatch arguments, e.g. --account=proj --exclusive"));
    m_slurmState = new QLabel(m_slurmFields);
    m_slurmState->setObjectName(QStringLiteral("profileSlurmState"));
    m_slurmState->setWordWrap(true);
    f->addRow(tr("Partition:"), m_partition);
    f->addRow(tr("Tasks:"), m_tasks);
    f->addRow(tr("GPUs per node:"), m_gpus);
    f->addRow(tr("Time limit:"), m_timeLimit);
    f->addRow(tr("sbatch arguments:"), m_slurmExtra);
    f->addRow(QString(), m_slurmState);
    form->addRow(m_slurmFields);
    m_slurmFields->setVisible(false);
    connect(m_slurm, &QCheckBox::toggled, this, [this](bool on) {
        m_slurmFields->setVisible(on);
        if (on) startSlurmProbe();
    });
    connect(m_partition, &QComboBox::currentTextChanged, this, &ProfileDialog::revalidate);
    for (QSpinBox* b : {m_tasks, m_gpus}) connect(b, &QSpinBox::valueChanged, this, &ProfileDialog::revalidate);
    for (QLineEdit* e : {m_timeLimit, m_slurmExtra}) connect(e, &QLineEdit::textChanged, this, &ProfileDialog::revalidate);
}

void ProfileDialog::setSlurmFields(const SlurmFields& f) {
    m_partition->setEditText(f.partition);
    m_tasks->setValue(f.tasks);
    m_gpus->setValue(f.gpusPerNode);
    m_timeLimit->setText(f.timeLimit);
    m_slurmExtra->setText(joinCommand(f.extra));
}

void ProfileDialog::startSlurmProbe() {
    if (m_slurmProbe.started) return;  // once per dialog: the cluster does not change while it is open
    m_slurmProbe.started = true;
    m_slurmState->setText(tr("Asking Slurm for its partitions…"));
    m_slurmJob.start<SlurmProbe>(
        tr("Ask Slurm for its partitions (sinfo)"),
        [](const core::JobContext&) {
            SlurmProbe p;
            p.known = true;
            if (QStandardPaths::findExecutable(QStringLiteral("sinfo")).isEmpty()) {
                p.message = tr("sinfo is not on PATH: Slurm's client is not installed here");
                return p;
            }
            collectors::ProcessSpec spec;
            spec.argv = {"sinfo", "--noheader", "--format=%R"};
            auto run = collectors::runCaptured(spec, std::chrono::seconds(15));
            if (!run) {
                p.message = q(run.error().message);
                return p;
            }
            if (!run->exit || run->exit->status != 0) {
                QString why = q(run->err).trimmed();
                if (why.isEmpty()) why = run->exit ? tr("exit %1").arg(run->exit->status) : tr("no answer in 15 s");
                p.message = tr("sinfo failed (%1): the controller cannot be asked, so sbatch would fail too").arg(why);
                return p;
            }
            p.ok = true;
            for (const QString& line : q(run->out).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
                if (!p.partitions.contains(line.trimmed())) p.partitions << line.trimmed();
            return p;
        },
        [this](SlurmProbe p) {
            m_slurmProbe = std::move(p);
            m_slurmProbe.started = true;
            const QString typed = m_partition->currentText();
            const QSignalBlocker block(m_partition);
            m_partition->clear();
            m_partition->addItems(m_slurmProbe.partitions);
            m_partition->setEditText(typed);
            m_slurmState->setText(m_slurmProbe.ok ? tr("Partitions: %1").arg(m_slurmProbe.partitions.join(QStringLiteral(", ")))
                                                  : m_slurmProbe.message);
            revalidate();
        },
        [this](const QString& why) {
            m_slurmProbe.started = false;  // asked again when Slurm is checked again
            m_slurmState->setText(tr("Slurm not asked: %1").arg(why));
        });
}

// Saved stacks and madengine contexts, above the tools list.
void ProfileDialog::buildStacks(QWidget* box, QVBoxLayout* layout) {
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Tool stack:"), box));
    m_stacks = new QComboBox(box);
    m_stacks->setObjectName(QStringLiteral("profileStacks"));
    m_stacks->setToolTip(tr("Check a saved stack's tools with their parameters"));
    m_stacks->setMinimumContentsLength(14);
    auto refill = [this] {
        const QSignalBlocker block(m_stacks);
        m_stacks->clear();
        m_stacks->addItem(tr("(saved stacks)"));
        m_stacks->addItems(savedStacks());
    };
    refill();
    auto* save = new QPushButton(tr("Save…"), box);
    save->setObjectName(QStringLiteral("profileStackSave"));
    save->setToolTip(tr("Save the checked tools and their parameters under a name"));
    auto* remove = new QPushButton(tr("Delete"), box);
    remove->setObjectName(QStringLiteral("profileStackDelete"));
    auto* import = new QPushButton(tr("Import madengine context…"), box);
    import->setObjectName(QStringLiteral("profileImportContext"));
    import->setToolTip(tr("A madengine --additional-context JSON (a file, or pasted): its tools list becomes the checked "
                          "tools, its env_vars the environment"));
    row->addWidget(m_stacks, 1);
    row->addWidget(save);
    row->addWidget(remove);
    row->addWidget(import);
    layout->addLayout(row);
    connect(m_stacks, &QComboBox::activated, this, [this](int index) {
        if (index > 0) applyStack(m_stacks->itemText(index));
    });
    connect(save, &QPushButton::clicked, this, [this, refill] {
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Save tool stack"), tr("Name:"), QLineEdit::Normal,
                                                   m_stacks->currentIndex() > 0 ? m_stacks->currentText() : QString(), &ok)
                                 .trimmed();
        if (!ok || name.isEmpty()) return;
        saveStack(name);
        refill();
        m_stacks->setCurrentText(name);
    });
    connect(remove, &QPushButton::clicked, this, [this, refill] {
        if (m_stacks->currentIndex() <= 0) return;
        deleteStack(m_stacks->currentText());
        refill();
    });
    connect(import, &QPushButton::clicked, this, [this] {
        QDialog ask(this);
        ask.setWindowTitle(tr("Import a madengine context"));
        auto* v = new QVBoxLayout(&ask);
        v->addWidget(new QLabel(tr("Paste the --additional-context JSON, or choose its file:"), &ask));
        auto* text = new QPlainTextEdit(&ask);
        text->setPlaceholderText(QStringLiteral("{\"tools\": [{\"name\": \"rocprof\", \"cmd\": \"rocprofv3 --hip-trace --\"}]}"));
        v->addWidget(text, 1);
        QString file;
        auto* pick = new QPushButton(tr("Choose file…"), &ask);
        v->addWidget(pick);
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &ask);
        v->addWidget(buttons);
        connect(pick, &QPushButton::clicked, &ask, [&] {
            file = QFileDialog::getOpenFileName(&ask, tr("madengine context"), QString(), tr("JSON (*.json);;All files (*)"));
            if (!file.isEmpty()) pick->setText(tr("File: %1").arg(file));
        });
        connect(buttons, &QDialogButtonBox::accepted, &ask, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &ask, &QDialog::reject);
        ask.resize(560, 320);
        if (ask.exec() != QDialog::Accepted) return;
        if (const QString error = importContext(file, text->toPlainText().trimmed()); !error.isEmpty())
            QMessageBox::warning(this, tr("Import a madengine context"), error);
    });
}

QStringList ProfileDialog::savedStacks() {
    QSettings s;
    s.beginGroup(QStringLiteral("profile/stacks"));
    QStringList names;
    for (const QString& key : s.childKeys()) names << QByteArray::fromPercentEncoding(key.toUtf8());
    names.sort(Qt::CaseInsensitive);
    return names;
}

namespace {
QString stackKey(const QString& name) {
    return QStringLiteral("profile/stacks/") + QString::fromUtf8(name.toUtf8().toPercentEncoding());
}
}  // namespace

// A stack is JSON: [{"tool": NAME, "params": {KEY: text}}] in order, every parameter as core::valueToString writes it
// (read back through the spec's coercion, so a spec whose parameter changed type fails loudly, not silently).
void ProfileDialog::saveStack(const QString& name) {
    QJsonArray tools;
    for (const ProfileTool& t : request().tools) {
        QJsonObject params;
        if (const collectors::ToolSpec* spec = m_catalog.find(t.name.toStdString()))
            for (const auto& [key, value] : t.values)
                if (const core::ParamSpec* ps = core::findSpec(spec->params, key))
                    params[q(key)] = q(core::valueToString(*ps, value));
        tools.append(QJsonObject{{QStringLiteral("tool"), t.name}, {QStringLiteral("params"), params}});
    }
    QSettings().setValue(stackKey(name), QString::fromUtf8(QJsonDocument(tools).toJson(QJsonDocument::Compact)));
}

bool ProfileDialog::applyStack(const QString& name) {
    const QVariant v = QSettings().value(stackKey(name));
    if (!v.isValid()) return false;
    std::vector<ProfileTool> tools;
    QStringList dropped;
    for (const QJsonValue& e : QJsonDocument::fromJson(v.toString().toUtf8()).array()) {
        const QJsonObject o = e.toObject();
        ProfileTool t;
        t.name = o[QStringLiteral("tool")].toString();
        const collectors::ToolSpec* spec = m_catalog.find(t.name.toStdString());
        if (!spec) {
            dropped << t.name;
            continue;
        }
        const QJsonObject params = o[QStringLiteral("params")].toObject();
        for (auto it = params.begin(); it != params.end(); ++it) {
            const core::ParamSpec* ps = core::findSpec(spec->params, it.key().toStdString());
            if (!ps) continue;
            if (auto c = core::coerceValue(*ps, core::ParamValue(it.value().toString().toStdString()))) t.values[ps->key] = *c;
            else dropped << QStringLiteral("%1.%2").arg(t.name, it.key());
        }
        tools.push_back(std::move(t));
    }
    checkTools(tools);
    m_contextNote->setText(dropped.isEmpty() ? QString()
                                             : tr("Stack %1: not applied (no longer known): %2").arg(name, dropped.join(QStringLiteral(", "))));
    m_contextNote->setVisible(!dropped.isEmpty());
    return true;
}

void ProfileDialog::deleteStack(const QString& name) { QSettings().remove(stackKey(name)); }

QString ProfileDialog::importContext(const QString& file, const QString& inlineJson) {
    if (file.isEmpty() && inlineJson.isEmpty()) return tr("Give a context file or its JSON.");
    collectors::ToolCatalog catalog = m_catalog;
    auto context = collectors::loadMadengineContexts(file.toStdString(), inlineJson.toStdString(), catalog);
    if (!context) return q(context.error().toString());
    if (!context->refusal.empty()) return q(context->refusal);
    // Ad-hoc wrappers (an unknown name with a cmd: "timeout 600") wrap the workload: in the dialog they go in front of
    // the command, innermost tool first as madengine applies them.
    QStringList command = QProcess::splitCommand(m_command->text());
    QStringList notes;
    for (const auto& m : context->messages) notes << q(m);
    for (auto it = context->adhocTools.rbegin(); it != context->adhocTools.rend(); ++it) {
        QStringList wrapper;
        for (const auto& a : it->command) wrapper << q(a);
        command = wrapper + command;
        notes << tr("%1: put in front of the command (%2)").arg(q(it->name), joinCommand(wrapper));
    }
    std::vector<ProfileTool> tools;
    for (const auto& use : context->tools) {
        if (!m_catalog.find(use.name)) continue;  // an ad-hoc wrapper: in the command now
        tools.push_back({q(use.name), use.values});
    }
    if (command != QProcess::splitCommand(m_command->text())) m_command->setText(joinCommand(command));
    const auto rows = tableRows(m_env);
    for (const auto& [key, value] : context->env)
        if (std::none_of(rows.begin(), rows.end(), [&](const auto& r) { return r.first == q(key); })) addRow(m_env, q(key), q(value));
    checkTools(tools);
    notes.prepend(tr("Imported from %1: %2 tool(s).").arg(file.isEmpty() ? tr("the pasted context") : file).arg(tools.size()));
    m_contextNote->setText(notes.join(QLatin1Char('\n')));
    m_contextNote->setVisible(true);
    return {};
}

QString ProfileDialog::gpuText() const {
    return m_gpuLabel->text().endsWith(QStringLiteral("checking…")) ? QString() : m_gpuLabel->text();
}

QString ProfileDialog::contextNote() const { return m_contextNote->isHidden() ? QString() : m_contextNote->text(); }

QString ProfileDialog::copyCommand() {
    const ProfileRequest r = request();
    QString line = shellCommand(QStringList{m_strobeCli} + buildCollectArgv(r, m_catalog));
    if (!r.workingDir.isEmpty()) line = QStringLiteral("cd ") + shellCommand({r.workingDir}) + QStringLiteral(" && ") + line;
    QApplication::clipboard()->setText(line);
    return line;
}

void ProfileDialog::buildToolList() {
    for (const auto& t : m_catalog.tools) {
        auto* item = new QTreeWidgetItem(m_tools);
        item->setText(ColName, q(t.name));
        item->setText(ColKind, QString::fromLatin1(collectors::toString(t.kind)));
        item->setText(ColVendor, q(t.vendor));
        item->setText(ColAvailable, tr("checking…"));
        item->setToolTip(ColName, q(t.description) + QStringLiteral("\n") + q(t.source));
        item->setFlags((item->flags() | Qt::ItemIsUserCheckable) & ~Qt::ItemIsEditable);
        item->setCheckState(ColName, Qt::Unchecked);
        item->setData(ColName, Qt::UserRole, q(t.name));
    }
    for (int c = 0; c < ProfileDialogColCount; ++c) m_tools->resizeColumnToContents(c);
    m_tools->setColumnWidth(ColName, std::max(m_tools->columnWidth(ColName) + 30, 150));
}

QTreeWidgetItem* ProfileDialog::toolItem(const QString& name) const {
    for (int i = 0; i < m_tools->topLevelItemCount(); ++i)
        if (m_tools->topLevelItem(i)->data(ColName, Qt::UserRole).toString() == name) return m_tools->topLevelItem(i);
    return nullptr;
}

void ProfileDialog::startProbes() {
    const QString host = m_host ? m_host->text().trimmed() : QString();
    if (!host.isEmpty()) {
        startRemoteProbes(host);
        return;
    }
    if (!m_probedHost.isEmpty()) {  // back from a remote target: this machine's probes again
        m_probedHost.clear();
        m_probedPython.clear();
        m_availability.clear();
    }
    m_tools->headerItem()->setText(ColAvailable, tr("Available"));
    m_tools->headerItem()->setToolTip(ColAvailable, tr("This machine's probes"));
    const QString python = pythonOf(QProcess::splitCommand(m_command->text()));
    const bool allKnown = !m_availability.empty() &&
                          std::all_of(m_availability.begin(), m_availability.end(), [](const auto& kv) { return kv.second.known; });
    if (python == m_probedPython && (allKnown || m_probe.pending())) return;
    m_probedPython = python;
    for (auto& [name, a] : m_availability) a.known = false;
    for (int i = 0; i < m_tools->topLevelItemCount(); ++i) m_tools->topLevelItem(i)->setText(ColAvailable, tr("checking…"));
    const auto vars = probeVariables(m_strobeCli, python);
    const std::vector<collectors::ToolSpec> tools = m_catalog.tools;
    // One job runs the probes one after the other (collectors::ProcessTree has one owner at a time); a probe for
    // another interpreter supersedes it, and it stops at the next tool.
    m_probe.start<std::map<QString, ToolAvailability>>(
        tr("Check which profiling tools are installed"),
        [tools, vars](const core::JobContext& ctx) {
            std::map<QString, ToolAvailability> out;
            for (const auto& t : tools) {
                if (ctx.cancel.cancelled()) break;
                ToolAvailability a;
                a.known = true;
                auto tv = collectors::toolVariables(t, {}, vars);
                if (!tv) {
                    a.message = q(tv.error().message);
                } else {
                    const collectors::ToolProbe p = collectors::probeTool(t, *tv);
                    a.available = p.available;
                    a.version = q(p.version);
                    a.message = q(p.message);
                }
                out[q(t.name)] = a;
            }
            return out;
        },
        [this](std::map<QString, ToolAvailability> availability) { onProbesDone(std::move(availability)); },
        [this](const QString& why) {
            for (int i = 0; i < m_tools->topLevelItemCount(); ++i)
                m_tools->topLevelItem(i)->setText(ColAvailable, tr("not checked (%1)").arg(why));
            m_probedPython.clear();  // asked again on the next edit
            revalidate();
        });
    revalidate();
}

void ProfileDialog::startRemoteProbes(const QString& host) {
    std::string error;
    const auto target = collectors::parseRemoteTarget(host.toStdString(), error);
    if (!target) return;  // revalidate() says what is wrong with it
    const bool allKnown = !m_availability.empty() &&
                          std::all_of(m_availability.begin(), m_availability.end(), [](const auto& kv) { return kv.second.known; });
    if (host == m_probedHost && (allKnown || m_probe.pending())) return;
    m_probedHost = host;
    m_probedPython = pythonOf(QProcess::splitCommand(m_command->text()));
    m_tools->headerItem()->setText(ColAvailable, tr("Available on %1").arg(host));
    m_tools->headerItem()->setToolTip(ColAvailable, tr("The host's own probes: strobe-cli tools --json over ssh"));
    for (auto& [name, a] : m_availability) a.known = false;
    for (int i = 0; i < m_tools->topLevelItemCount(); ++i)
        m_tools->topLevelItem(i)->setText(ColAvailable, tr("checking on %1…").arg(host));
    const QString remoteCli = m_remoteCli->text().trimmed();
    const std::string cli = remoteCli.isEmpty() ? std::string("strobe-cli") : remoteCli.toStdString();
    const collectors::RemoteTarget t = *target;
    m_probe.start<std::map<QString, ToolAvailability>>(
        tr("Check which profiling tools %1 has").arg(host),
        [t, cli](const core::JobContext&) -> std::map<QString, ToolAvailability> {
            auto doc = collectors::remoteToolsJson(t, {}, cli, std::string("strobe-cli ") + STROBE_VERSION);
            if (!doc) throw std::runtime_error(doc.error().message);
            std::map<QString, ToolAvailability> out;
            const QJsonArray tools = QJsonDocument::fromJson(QByteArray::fromStdString(*doc)).object()[QStringLiteral("tools")].toArray();
            for (const QJsonValue& v : tools) {
                const QJsonObject o = v.toObject();
                ToolAvailability a;
                a.known = true;
                a.available = o[QStringLiteral("available")].toBool();
                a.version = o[QStringLiteral("version")].toString();
                a.message = o[QStringLiteral("missing")].toString();
                out[o[QStringLiteral("name")].toString()] = a;
            }
            if (out.empty()) throw std::runtime_error("the host's strobe-cli listed no tools");
            return out;
        },
        [this](std::map<QString, ToolAvailability> availability) { onProbesDone(std::move(availability)); },
        [this, host](const QString& why) {
            // Why the host could not be asked (the preflight's message: unreachable, key, strobe-cli missing or
            // another version), on every row and the column's header; launch would be refused for the same reason.
            for (int i = 0; i < m_tools->topLevelItemCount(); ++i) {
                QTreeWidgetItem* item = m_tools->topLevelItem(i);
                item->setText(ColAvailable, tr("not checked"));
                item->setToolTip(ColAvailable, why);
            }
            m_tools->headerItem()->setText(ColAvailable, tr("%1: not reachable").arg(host));
            m_tools->headerItem()->setToolTip(ColAvailable, why);
            m_probedHost.clear();  // asked again on the next edit
            revalidate();
        });
    revalidate();
}

void ProfileDialog::onProbesDone(std::map<QString, ToolAvailability> availability) {
    m_availability = std::move(availability);
    for (const auto& [name, a] : m_availability)
        if (QTreeWidgetItem* item = toolItem(name)) {
            item->setText(ColAvailable, a.available ? tr("yes") : tr("no"));
            item->setForeground(ColAvailable, a.available ? palette().text() : QBrush(QColor(192, 57, 43)));
            item->setText(ColVersion, a.version);
            item->setToolTip(ColAvailable, a.message);
        }
    for (int c = ColKind; c < ColVersion; ++c) m_tools->resizeColumnToContents(c);  // the version column stretches
    revalidate();
    if (pythonOf(QProcess::splitCommand(m_command->text())) != m_probedPython ||
        (m_host && m_host->text().trimmed() != m_probedHost))
        startProbes();
}

bool ProfileDialog::probesDone() const {
    if (m_probe.pending()) return false;
    if (m_host && m_host->text().trimmed() != m_probedHost) return false;  // the target's probes are due
    if (pythonOf(QProcess::splitCommand(m_command->text())) != m_probedPython) return false;  // a probe is due
    return std::all_of(m_availability.begin(), m_availability.end(), [](const auto& kv) { return kv.second.known; }) &&
           !m_availability.empty();
}

void ProfileDialog::moveTool(int delta) {
    QTreeWidgetItem* item = m_tools->currentItem();
    if (!item) return;
    const int from = m_tools->indexOfTopLevelItem(item);
    const int to = from + delta;
    if (to < 0 || to >= m_tools->topLevelItemCount()) return;
    m_tools->takeTopLevelItem(from);
    m_tools->insertTopLevelItem(to, item);
    m_tools->setCurrentItem(item);
    rebuildParams();
    revalidate();
}

void ProfileDialog::rebuildParams() {
    // Keep what was edited, then rebuild one group per checked tool in order.
    for (const auto& [tool, editors] : m_editors)
        for (const auto& [key, editor] : editors) m_values[tool][key] = editor->value();
    m_editors.clear();
    while (auto* item = m_paramsLayout->takeAt(0)) {
        if (auto* w = item->widget()) w->deleteLater();
        delete item;
    }
    int shown = 0;
    for (int i = 0; i < m_tools->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_tools->topLevelItem(i);
        if (item->checkState(ColName) != Qt::Checked) continue;
        const QString name = item->data(ColName, Qt::UserRole).toString();
        const collectors::ToolSpec* spec = m_catalog.find(name.toStdString());
        if (!spec) continue;
        ++shown;
        auto* box = new QGroupBox(QStringLiteral("%1. %2").arg(shown).arg(name), m_params);
        box->setObjectName(QStringLiteral("params_") + name);
        box->setToolTip(q(spec->description));
        auto* form = new QFormLayout(box);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        if (spec->params.empty()) {
            auto* none = new QLabel(tr("No parameters."), box);
            none->setEnabled(false);
            form->addRow(none);
        }
        for (const auto& ps : spec->params) {
            ParamEditor* editor = ParamEditor::create(ps, {}, box);  // the one ParamSpec → widget code
            if (auto it = m_values[name].find(ps.key); it != m_values[name].end()) editor->setValue(it->second);
            m_editors[name][ps.key] = editor;
            auto* label = new QLabel(q(ps.label.empty() ? ps.key : ps.label), box);
            label->setToolTip(q(ps.tooltip));
            form->addRow(label, editor);
        }
        m_paramsLayout->addWidget(box);
    }
    if (shown == 0) {
        auto* hint = new QLabel(tr("Check a tool to see its parameters here."), m_params);
        hint->setEnabled(false);
        m_paramsLayout->addWidget(hint);
    }
    m_paramsLayout->addStretch();
}

ParamEditor* ProfileDialog::paramEditor(const QString& tool, const std::string& key) const {
    auto t = m_editors.find(tool);
    if (t == m_editors.end()) return nullptr;
    auto e = t->second.find(key);
    return e == t->second.end() ? nullptr : e->second;
}

ProfileRequest ProfileDialog::request() const {
    ProfileRequest r;
    r.command = QProcess::splitCommand(m_command->text());
    r.workingDir = m_workDir->text().trimmed();
    r.env = tableRows(m_env);
    for (int i = 0; i < m_tools->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_tools->topLevelItem(i);
        if (item->checkState(ColName) != Qt::Checked) continue;
        ProfileTool t;
        t.name = item->data(ColName, Qt::UserRole).toString();
        if (auto e = m_editors.find(t.name); e != m_editors.end())
            for (const auto& [key, editor] : e->second) t.values[key] = editor->value();
        r.tools.push_back(std::move(t));
    }
    for (const auto& [key, text] : tableRows(m_grid)) {
        QStringList values;
        for (const QString& v : text.split(QLatin1Char(','))) {
            if (!v.trimmed().isEmpty()) values << v.trimmed();
        }
        r.grid.emplace_back(key, values);
    }
    r.repeats = m_repeats->value();
    r.interleaved = m_order->currentData().toString() == QLatin1String("interleaved");
    r.outDir = m_outDir->text().trimmed();
    if (!r.outDir.isEmpty()) r.outDir = QDir::cleanPath(QDir(r.outDir).absolutePath());
    r.slurm = m_slurm->isChecked();
    if (r.slurm) {
        SlurmFields f;
        f.partition = m_partition->currentText().trimmed();
        f.tasks = m_tasks->value();
        f.gpusPerNode = m_gpus->value();
        f.timeLimit = m_timeLimit->text().trimmed();
        f.extra = QProcess::splitCommand(m_slurmExtra->text());
        r.slurmArgs = slurmArgsOf(f);
    }
    if (m_host) {
        r.host = m_host->text().trimmed();
        r.remoteStrobeCli = m_remoteCli->text().trimmed();
    }
    return r;
}

void ProfileDialog::setRequest(const ProfileRequest& r) {
    m_command->setText(joinCommand(r.command));
    m_workDir->setText(r.workingDir);
    m_env->setRowCount(0);
    for (const auto& [k, v] : r.env) addRow(m_env, k, v);
    m_grid->setRowCount(0);
    for (const auto& [k, values] : r.grid) addRow(m_grid, k, values.join(QLatin1Char(',')));
    m_repeats->setValue(r.repeats);
    m_order->setCurrentIndex(r.interleaved ? 1 : 0);
    m_outDir->setText(r.outDir);
    m_slurm->setChecked(r.slurm);
    setSlurmFields(slurmFieldsOf(r.slurmArgs));
    m_host->setText(r.host);
    m_remoteCli->setText(r.remoteStrobeCli);
    checkTools(r.tools);
}

// Exactly `tools` checked, in their order above the others, with their values.
void ProfileDialog::checkTools(const std::vector<ProfileTool>& tools) {
    {
        const QSignalBlocker block(m_tools);
        for (int i = 0; i < m_tools->topLevelItemCount(); ++i) m_tools->topLevelItem(i)->setCheckState(ColName, Qt::Unchecked);
        for (auto it = tools.rbegin(); it != tools.rend(); ++it)
            if (QTreeWidgetItem* item = toolItem(it->name)) {
                m_tools->takeTopLevelItem(m_tools->indexOfTopLevelItem(item));
                m_tools->insertTopLevelItem(0, item);
                item->setCheckState(ColName, Qt::Checked);
                m_values[it->name] = it->values;
            }
    }
    m_editors.clear();  // their values were just replaced
    rebuildParams();
    revalidate();
}

QPushButton* ProfileDialog::launchButton() const { return m_buttons->button(QDialogButtonBox::Ok); }

void ProfileDialog::revalidate() {
    const ProfileRequest r = request();
    m_problems = validateRequest(r, m_catalog, m_availability);
    if (r.slurm && m_slurmProbe.known) {
        // What sinfo said: the controller cannot be asked (sbatch would fail the same way), or no such partition.
        const QString partition = slurmFieldsOf(r.slurmArgs).partition;
        if (!m_slurmProbe.ok)
            m_problems << tr("Slurm: %1").arg(m_slurmProbe.message);
        else if (!partition.isEmpty() && !m_slurmProbe.partitions.isEmpty() && !m_slurmProbe.partitions.contains(partition))
            m_problems << tr("Slurm has no partition '%1' (it has %2).").arg(partition, m_slurmProbe.partitions.join(QStringLiteral(", ")));
    }
    m_problemLabel->setText(m_problems.join(QLatin1Char('\n')));
    m_problemLabel->setVisible(!m_problems.isEmpty());
    launchButton()->setEnabled(m_problems.isEmpty());
}

void ProfileDialog::accept() {
    revalidate();
    if (!m_problems.isEmpty()) return;
    const ProfileRequest r = request();
    QSettings s;
    s.setValue(QStringLiteral("profile/lastParent"), QFileInfo(r.outDir).absolutePath());
    s.setValue(QStringLiteral("profile/command"), m_command->text());
    s.setValue(QStringLiteral("profile/workingDir"), r.workingDir);
    s.setValue(QStringLiteral("profile/slurm"), r.slurm);
    if (r.slurm) s.setValue(QStringLiteral("profile/slurmArgs"), r.slurmArgs);
    s.setValue(QStringLiteral("profile/host"), r.host);
    s.setValue(QStringLiteral("profile/remoteStrobeCli"), r.remoteStrobeCli);
    QStringList tools;
    for (const auto& t : r.tools) tools << t.name;
    s.setValue(QStringLiteral("profile/tools"), tools);
    QDialog::accept();
}

}  // namespace strobe::app
