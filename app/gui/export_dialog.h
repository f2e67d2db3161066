#pragma once
// The export dialog: where (the file; its extension picks PNG, SVG or PDF) and at which size (presets such as
// 1920 × 1080 and 3840 × 2160, the current view's size, or any width × height). Exports start in the directory
// of the last export (kept in QSettings), else the home directory — never the working directory.

#include <QDialog>
#include <QSize>
#include <QString>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace strobe::app {

// The directory the next export dialog starts in: the last export's, when it still exists, else the home
// directory.
QString lastExportDirectory();
// Remembers the directory of `filePath` for the next export.
void rememberExportDirectory(const QString& filePath);

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    // `fileName`: the suggested file name (in lastExportDirectory()); `viewSize`: the plot's size on screen.
    ExportDialog(const QString& fileName, QSize viewSize, QWidget* parent = nullptr);

    QString path() const;
    QSize imageSize() const;
    void setPath(const QString& path);
    void setImageSize(QSize size);

private:
    void browse();
    void presetChosen(int index);
    void syncPreset();

    QLineEdit* m_path = nullptr;
    QComboBox* m_preset = nullptr;
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QSize m_viewSize;
};

}  // namespace strobe::app
