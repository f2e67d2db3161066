#pragma once
// What the workbench's file dialogs offer and where they start (issue 25): the open dialog lists every kind of file
// Strobe reads (the README's formats table, by the names the tools give them) with "All supported" first; each
// dialog starts in the directory last used for its purpose (QSettings "dialogs/<purpose>"), else the user's home; a
// file Strobe writes (a report, an exported table) is proposed in the last directory written to, else the user's
// documents directory, never the process's working directory.

#include <QString>

namespace strobe::app {

// The name filters of the "Open files" dialog: "All supported (...)" first, then one per family of formats, then
// sessions and "All files (*)". Detection is by content (core/formats/source_detect), so the patterns only help to
// find the files; every pattern names something Strobe reads.
QString openTracesFilter();

// The directory to start a dialog for `purpose` in ("open", "sweep", "report", "export"...): the last one used for
// it while it still exists, else the home directory.
QString dialogDirectory(const QString& purpose);
// Remembers the directory of `path` (a file, or a directory itself) for `purpose`.
void rememberDialogDirectory(const QString& purpose, const QString& path);
// Where to propose writing `fileName`: in the last directory written to for `purpose`, else the documents directory
// (the home directory when there is none).
QString proposedSavePath(const QString& purpose, const QString& fileName);

}  // namespace strobe::app
