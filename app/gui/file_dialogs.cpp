#include "app/gui/file_dialogs.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QStringList>

namespace strobe::app {

namespace {

QString settingsKey(const QString& purpose) { return QStringLiteral("dialogs/") + purpose; }

struct FormatFamily {
    const char* name;
    const char* patterns;
};

// The families of the README's formats table. Every format is also read from its .gz (SQLite through a
// decompressed copy in the cache directory: core::plainDatabasePath).
constexpr FormatFamily kFamilies[] = {
    {"PyTorch/Kineto and Chrome JSON traces, rocprofv3 JSON", "*.json *.json.gz *.pt.trace.json *.pt.trace.json.gz"},
    {"SQLite: nsys export, rocpd, RPD, rocprof results.db, rocprof-compute", "*.sqlite *.db *.rpd *.sqlite.gz *.db.gz *.rpd.gz"},
    {"CSV: rocprofv3, rocprof, ncu, nvidia-smi, amd-smi, rocm-smi, nsys stats, Strobe sampler", "*.csv *.csv.gz"},
    {"Text logs: nvidia-smi dmon, nccl-tests, library call logs", "*.txt *.log *.txt.gz *.log.gz"},
};

}  // namespace

QString openTracesFilter() {
    QStringList all, families;
    for (const auto& f : kFamilies) {
        all << QString::fromLatin1(f.patterns);
        families << QStringLiteral("%1 (%2)").arg(QString::fromUtf8(f.name), QString::fromLatin1(f.patterns));
    }
    QStringList out;
    out << QStringLiteral("All supported (%1 *.yaml *.yml)").arg(all.join(QLatin1Char(' ')));
    out << families;
    out << QStringLiteral("Strobe sessions (*.yaml *.yml)") << QStringLiteral("All files (*)");
    return out.join(QStringLiteral(";;"));
}

QString dialogDirectory(const QString& purpose) {
    const QString last = QSettings().value(settingsKey(purpose)).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir()) return last;
    return QDir::homePath();
}

void rememberDialogDirectory(const QString& purpose, const QString& path) {
    if (path.isEmpty()) return;
    const QFileInfo info(path);
    const QString dir = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
    QSettings().setValue(settingsKey(purpose), dir);
}

QString proposedSavePath(const QString& purpose, const QString& fileName) {
    QString dir = QSettings().value(settingsKey(purpose)).toString();
    if (dir.isEmpty() || !QFileInfo(dir).isDir()) {
        dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        if (dir.isEmpty() || !QFileInfo(dir).isDir()) dir = QDir::homePath();
    }
    return QDir(dir).filePath(fileName);
}

}  // namespace strobe::app
