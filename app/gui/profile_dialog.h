#pragma once
// File ▸ Profile a workload…: what to run (a command line split into argv — never a shell — its working directory
// and extra environment), under which tools (the ToolCatalog of collectors/tool_spec.h, with each tool's kind,
// vendor, availability and version; checked tools in list order, outermost first, each with its parameters as
// ParamEditor widgets), optionally over a sweep grid (KEY and comma-separated values, repeats, order), into which
// output directory, and whether through Slurm. The dialog produces a ProfileRequest; buildCollectArgv() turns it
// into strobe-cli's argv (`collect`, or `sweep launch` when the grid has a row). The launch itself is the
// Profiling runs dock's (app/gui/launch_panel.h).

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QDialog>
#include <QStringList>

#include "app/gui/background_job.h"
#include "collectors/launch_request.h"
#include "collectors/tool_spec.h"
#include "core/params/param_spec.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTreeWidget;
class QTreeWidgetItem;
class QVBoxLayout;

namespace strobe::app {

class ParamEditor;

struct ProfileTool {
    QString name;
    core::ParamValues values;  // only the values that differ from the spec's defaults go on the command line
};

struct ProfileRequest {
    QStringList command;                            // the workload's argv
    QString workingDir;                             // strobe-cli's (so the workload's) working directory; empty: ours
    std::vector<std::pair<QString, QString>> env;   // extra variables for the workload, in order
    std::vector<ProfileTool> tools;                 // outermost first
    std::vector<std::pair<QString, QStringList>> grid;  // sweep axes; non-empty: `sweep launch`
    int repeats = 1;
    bool interleaved = false;
    QString outDir;
    bool slurm = false;
    QStringList slurmArgs;   // more sbatch arguments (--slurm-arg each): the Slurm fields' --partition=, --ntasks=...
    QString host;            // the target: empty runs here, else [USER@]HOST[:PORT] over ssh (--host)
    QString remoteStrobeCli; // strobe-cli on the host (--remote-strobe-cli); empty: its PATH's

    bool isSweep() const { return !grid.empty(); }
};

// The request as collectors' typed launch request (collectors/launch_request.h), which strobe-cli parses its own
// command line into: the dialog's fields are its Qt face.
collectors::LaunchRequest toLaunchRequest(const ProfileRequest& request);

// strobe-cli's arguments (without the program) for `request` (collectors::launchArgv): `collect --out DIR ...` or, with a grid,
// `sweep launch --grid K=V1,V2 ... --repeats N --order O --out DIR ...`, then each --tool (outermost first)
// with its --tool-param NAME.KEY=VALUE for values differing from the default (core::valueToString, in key
// order; `catalog` gives the specs, a tool it lacks passes its values as given), each --env KEY=VALUE, --slurm
// with each --slurm-arg ARG, --host HOST [--remote-strobe-cli PATH] for a remote target, and `--` with the command.
QStringList buildCollectArgv(const ProfileRequest& request, const collectors::ToolCatalog& catalog);

struct ToolAvailability {
    bool known = false;  // false while the probe runs
    bool available = false;
    QString version, message;
};

// What stops `request` from launching, one sentence each (empty: it can launch): collectors::launchProblems (the
// validator strobe-cli runs) with this machine's checks in their place — no command, no output directory,
// an output directory that exists and is not empty, a working directory that does not exist, an unknown tool, a
// checked tool that is unavailable (or still being probed), an environment or grid row without a key or values, a
// target that is not [USER@]HOST[:PORT] or is combined with Slurm; Slurm when sbatch is not on PATH, or with a time
// limit sbatch would refuse; an unreplaced {IDENT} in the command ({KEY} of a sweep axis is replaced, {{ is a
// literal brace: collectors::expandSweepCommand's rule). With a remote target the tools are probed there
// at launch (strobe-cli collect --host refuses, 125, what is missing there), so this machine's probes do not block.
QStringList validateRequest(const ProfileRequest& request, const collectors::ToolCatalog& catalog,
                            const std::map<QString, ToolAvailability>& availability);

// The Slurm form's fields as sbatch arguments, and back: --partition=P, --ntasks=N, --gpus-per-node=N (0: none),
// --time=T, then the extra arguments as given. slurmFieldsOf() takes the four it knows from `args` (each form
// sbatch accepts: --partition=P, --partition P, -p P ...), the rest into `extra`.
struct SlurmFields {
    QString partition;
    int tasks = 0;  // 0: sbatch's default
    int gpusPerNode = 0;
    QString timeLimit;
    QStringList extra;
};
QStringList slurmArgsOf(const SlurmFields& f);
SlurmFields slurmFieldsOf(const QStringList& args);
// Slurm's --time forms: MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or UNLIMITED/INFINITE.
bool validSlurmTime(const QString& text);

// A command line to paste into a POSIX shell: each argument that needs it in single quotes ('\'' for a quote).
QString shellCommand(const QStringList& argv);

// The inverse of QProcess::splitCommand (for showing an argv as one line): an argument that is empty or holds white
// space or a double quote is put in double quotes, with each quote written as three.
QString joinCommand(const QStringList& argv);

// The interpreter a python workload runs ({python} of the tool specs): argv[0] when its file name starts with
// "python", else python3.
QString pythonOf(const QStringList& command);

class ProfileDialog : public QDialog {
    Q_OBJECT
public:
    // `strobeCli` expands {strobe_cli} in the probes (the program the runs dock launches). The probes run as jobs
    // of `runner` (shown in the Jobs panel; a newer probe supersedes one still running), which must outlive the
    // dialog.
    ProfileDialog(const QString& strobeCli, core::JobRunner& runner, QWidget* parent = nullptr);
    ~ProfileDialog() override;  // a probe still running is cancelled (at its next tool) and its result dropped

    ProfileRequest request() const;
    // Fills the fields from `request` (tools it names are checked, in its order, above the others).
    void setRequest(const ProfileRequest& request);
    const collectors::ToolCatalog& catalog() const { return m_catalog; }
    QStringList problems() const { return m_problems; }
    // True once every tool's availability is known (the probes run in the background).
    bool probesDone() const;
    // The editor of tool `tool`'s parameter `key` while that tool is checked, else null.
    ParamEditor* paramEditor(const QString& tool, const std::string& key) const;

    // Widgets, for tests and screenshots.
    QLineEdit* commandEdit() const { return m_command; }
    QLineEdit* outDirEdit() const { return m_outDir; }
    QLineEdit* targetEdit() const { return m_host; }
    QTreeWidget* toolList() const { return m_tools; }
    QPushButton* launchButton() const;

    // The default output directory: a new timestamped directory under the parent last used (else ~/strobe-runs).
    static QString defaultOutDir();

    // Saved tool stacks (QSettings profile/stacks): the checked tools in order with every parameter's value, by name.
    static QStringList savedStacks();
    void saveStack(const QString& name);
    // Checks the stack's tools (in its order, above the others) with its values; false when there is none by that name.
    bool applyStack(const QString& name);
    static void deleteStack(const QString& name);

    // A madengine context (--additional-context-file FILE and/or --additional-context JSON, merged as madengine
    // does: collectors::loadMadengineContexts) into the dialog: its tools checked in its order with their
    // parameters, its env_vars into the environment table (rows already there win), an ad-hoc wrapper's cmd put in
    // front of the command. Returns the error (bad JSON with line and column, an unknown name without cmd naming
    // tools[i]) and changes nothing then; the import's messages show under the tools (contextNote()).
    QString importContext(const QString& file, const QString& inlineJson);
    QString contextNote() const;

    // "strobe-cli ARGS" of the current request as a POSIX shell line (cd DIR && first when a working directory is
    // set), put on the clipboard; returned.
    QString copyCommand();

    // The Slurm probe (sinfo's partitions, or why Slurm cannot be asked) has answered.
    bool slurmProbed() const { return m_slurmProbe.known; }
    // "GPUs: ..." once the GPU probe answered ("" before).
    QString gpuText() const;
    QStringList slurmPartitions() const { return m_slurmProbe.partitions; }

public Q_SLOTS:
    void accept() override;

private:
    void buildToolList();
    void restoreLast();  // the last request's command, directory, Slurm fields and tools; a fresh output directory
    void buildTarget(QWidget* box, QFormLayout* form);
    void startProbes();
    void startRemoteProbes(const QString& host);
    void onProbesDone(std::map<QString, ToolAvailability> availability);
    void rebuildParams();
    void moveTool(int delta);
    void revalidate();
    void buildSlurm(QWidget* box, QFormLayout* form);
    void startSlurmProbe();
    void setSlurmFields(const SlurmFields& f);
    void buildButtons(QVBoxLayout* outer);
    void buildGpuLabel(QWidget* box, QVBoxLayout* layout);
    void buildStacks(QWidget* box, QVBoxLayout* layout);
    void checkTools(const std::vector<ProfileTool>& tools);
    QTreeWidgetItem* toolItem(const QString& name) const;

    QString m_strobeCli;
    collectors::ToolCatalog m_catalog;
    std::map<QString, ToolAvailability> m_availability;
    std::map<QString, core::ParamValues> m_values;  // per tool, kept while it is unchecked
    std::map<QString, std::map<std::string, ParamEditor*>> m_editors;
    QString m_probedPython;
    QString m_probedHost;  // the target the availability is of ("" : this machine)
    BackgroundJob m_probe;
    QStringList m_problems;

    QLineEdit* m_command = nullptr;
    QLineEdit* m_workDir = nullptr;
    QTableWidget* m_env = nullptr;
    QTreeWidget* m_tools = nullptr;
    QWidget* m_params = nullptr;
    QVBoxLayout* m_paramsLayout = nullptr;
    QTableWidget* m_grid = nullptr;
    QSpinBox* m_repeats = nullptr;
    QComboBox* m_order = nullptr;
    QLineEdit* m_outDir = nullptr;
    QCheckBox* m_slurm = nullptr;
    QWidget* m_slurmFields = nullptr;
    QComboBox* m_partition = nullptr;
    QSpinBox* m_tasks = nullptr;
    QSpinBox* m_gpus = nullptr;
    QLineEdit* m_timeLimit = nullptr;
    QLineEdit* m_slurmExtra = nullptr;
    QLabel* m_slurmState = nullptr;
    struct SlurmProbe {
        bool started = false, known = false, ok = false;
        QStringList partitions;
        QString message;
    } m_slurmProbe;
    BackgroundJob m_slurmJob;
    BackgroundJob m_gpuJob;
    QLabel* m_gpuLabel = nullptr;  // which GPUs this machine has, or why none (collectors::describeDevices)
    QComboBox* m_stacks = nullptr;
    QLabel* m_contextNote = nullptr;
    QLineEdit* m_host = nullptr;
    QLineEdit* m_remoteCli = nullptr;
    QLabel* m_problemLabel = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

}  // namespace strobe::app
