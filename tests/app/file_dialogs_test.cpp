// The workbench's file dialogs (issue 25): the open dialog's filters list every kind of file Strobe reads, so that
// each real source in tests/data is offered by "All supported"; dialogs start where the user last was for that
// purpose, and files Strobe writes are proposed in a user directory, never the working directory.

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QStringList>

#include "app/gui/file_dialogs.h"
#include "core/formats/source_detect.h"
#include "tests/app/test_support.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace {

namespace fs = std::filesystem;

// "Name (*.a *.b)" → {"*.a", "*.b"}.
QStringList fileDialogPatterns(const QString& filter) {
    const auto m = QRegularExpression(QStringLiteral("\\(([^)]*)\\)$")).match(filter);
    return m.hasMatch() ? m.captured(1).split(QLatin1Char(' '), Qt::SkipEmptyParts) : QStringList{};
}

bool fileDialogMatches(const QStringList& patterns, const QString& name) {
    return std::any_of(patterns.begin(), patterns.end(), [&](const QString& p) {
        return QRegularExpression(QRegularExpression::wildcardToRegularExpression(p),
                                  QRegularExpression::CaseInsensitiveOption)
            .match(name)
            .hasMatch();
    });
}

TEST(FileDialogs, AllSupportedComesFirstAndHoldsEveryFamily) {
    const QStringList filters = strobe::app::openTracesFilter().split(QStringLiteral(";;"));
    ASSERT_GE(filters.size(), 4);
    EXPECT_TRUE(filters.front().startsWith(QStringLiteral("All supported ("))) << filters.front().toStdString();
    EXPECT_EQ(filters.back(), QStringLiteral("All files (*)"));
    const QStringList all = fileDialogPatterns(filters.front());
    for (const QString& f : filters) {
        const QStringList patterns = fileDialogPatterns(f);
        EXPECT_FALSE(patterns.isEmpty()) << f.toStdString();
        if (f == filters.back()) continue;
        for (const QString& p : patterns) EXPECT_TRUE(all.contains(p)) << p.toStdString() << " of " << f.toStdString();
    }
    // The SQLite and CSV formats the README lists (the dialog offered only Kineto JSON before).
    for (const char* name : {"report.sqlite", "trace.rpd", "results.db", "out_kernel_trace.csv", "smi.csv.gz",
                             "rank0.pt.trace.json.gz", "session.yaml", "dmon.txt"})
        EXPECT_TRUE(fileDialogMatches(all, QString::fromLatin1(name))) << name;
}

// Every real source file in tests/data (found by content, as the workbench finds them) is offered by "All
// supported": a user browsing to it sees it without switching to "All files".
TEST(FileDialogs, EveryRealSourceFileIsOfferedByAllSupported) {
    const QStringList all = fileDialogPatterns(strobe::app::openTracesFilter().split(QStringLiteral(";;")).front());
    std::set<std::string> formats;
    size_t files = 0;
    for (const char* root : {"kineto", "sqlite", "rocprof", "rocprof-compute", "ncu", "telemetry", "nccl-tests"}) {
        const fs::path dir = fs::path(std::string(STROBE_TEST_DATA_DIR)) / root;
        std::vector<fs::path> dirs{dir};
        for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it)
            if (it->is_directory()) dirs.push_back(it->path());
        for (const fs::path& d : dirs) {
            auto groups = strobe::core::detectSources({d.string()});
            if (!groups) continue;
            for (const auto& g : *groups)
                for (const std::string& f : g.files) {
                    if (!fs::is_regular_file(f)) continue;
                    ++files;
                    formats.insert(g.format);
                    EXPECT_TRUE(fileDialogMatches(all, QString::fromStdString(fs::path(f).filename().string())))
                        << g.format << ": " << f;
                }
        }
    }
    EXPECT_GT(files, 30u);
    for (const char* f : {"kineto", "nsys-sqlite", "rocprofv3-csv", "rpd"}) EXPECT_TRUE(formats.count(f)) << f;
}

TEST(FileDialogs, DirectoriesAreRememberedPerPurposeAndNeverTheWorkingDirectory) {
    strobe::test::app();
    strobe::test::TempDir tmp("strobe-file-dialogs");
    const QString dir = QString::fromStdString(tmp.path().string());
    QSettings().remove(QStringLiteral("dialogs"));
    EXPECT_EQ(strobe::app::dialogDirectory(QStringLiteral("open")), QDir::homePath());
    const QString proposed = strobe::app::proposedSavePath(QStringLiteral("report"), QStringLiteral("report.html"));
    EXPECT_NE(QFileInfo(proposed).absolutePath(), QDir::currentPath());
    EXPECT_TRUE(QFileInfo(proposed).isAbsolute()) << proposed.toStdString();
    EXPECT_EQ(QFileInfo(proposed).fileName(), QStringLiteral("report.html"));

    strobe::app::rememberDialogDirectory(QStringLiteral("open"), dir + QStringLiteral("/rank0.json"));
    EXPECT_EQ(strobe::app::dialogDirectory(QStringLiteral("open")), dir);
    EXPECT_EQ(strobe::app::dialogDirectory(QStringLiteral("sweep")), QDir::homePath()) << "one directory per purpose";
    strobe::app::rememberDialogDirectory(QStringLiteral("report"), dir + QStringLiteral("/old.html"));
    EXPECT_EQ(strobe::app::proposedSavePath(QStringLiteral("report"), QStringLiteral("report.html")),
              dir + QStringLiteral("/report.html"));
    QSettings().remove(QStringLiteral("dialogs"));
}

}  // namespace
