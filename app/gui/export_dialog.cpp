#include "app/gui/export_dialog.h"

#include "app/gui/file_dialogs.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>

namespace strobe::app {

namespace {

constexpr const char* kLastSizeKey = "export/size";
constexpr int kMinSide = 16, kMaxSide = 20000;  // what plots::renderToFile accepts

struct Preset {
    const char* label;
    QSize size;  // empty: the current view
};
const Preset kPresets[] = {{QT_TRANSLATE_NOOP("ExportDialog", "Current view"), QSize()},
                           {QT_TRANSLATE_NOOP("ExportDialog", "HD"), QSize(1280, 720)},
                           {QT_TRANSLATE_NOOP("ExportDialog", "Full HD"), QSize(1920, 1080)},
                           {QT_TRANSLATE_NOOP("ExportDialog", "QHD"), QSize(2560, 1440)},
                           {QT_TRANSLATE_NOOP("ExportDialog", "4K UHD"), QSize(3840, 2160)},
                           {QT_TRANSLATE_NOOP("ExportDialog", "A4 landscape at 150 dpi"), QSize(1754, 1240)}};

}  // namespace

QString lastExportDirectory() { return dialogDirectory(QStringLiteral("export")); }

void rememberExportDirectory(const QString& filePath) { rememberDialogDirectory(QStringLiteral("export"), filePath); }

ExportDialog::ExportDialog(const QString& fileName, QSize viewSize, QWidget* parent)
    : QDialog(parent), m_viewSize(viewSize) {
    setWindowTitle(tr("Export plot"));
    setObjectName(QStringLiteral("exportDialog"));
    auto* form = new QFormLayout(this);

    auto* pathRow = new QHBoxLayout();
    m_path = new QLineEdit(QDir(lastExportDirectory()).filePath(fileName), this);
    m_path->setObjectName(QStringLiteral("exportPath"));
    m_path->setMinimumWidth(420);
    m_path->setToolTip(tr("The extension picks the format: .png, .svg or .pdf"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    form->addRow(tr("File:"), pathRow);

    m_preset = new QComboBox(this);
    m_preset->setObjectName(QStringLiteral("exportPreset"));
    for (const auto& p : kPresets) {
        const QSize s = p.size.isEmpty() ? viewSize : p.size;
        m_preset->addItem(tr("%1 (%2 × %3)").arg(tr(p.label)).arg(s.width()).arg(s.height()), s);
    }
    m_preset->addItem(tr("Custom"), QSize());
    form->addRow(tr("Size:"), m_preset);

    auto* sizeRow = new QHBoxLayout();
    auto spin = [this](const QString& name) {
        auto* s = new QSpinBox(this);
        s->setObjectName(name);
        s->setRange(kMinSide, kMaxSide);
        s->setSuffix(tr(" px"));
        return s;
    };
    m_width = spin(QStringLiteral("exportWidth"));
    m_height = spin(QStringLiteral("exportHeight"));
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(tr("×"), this));
    sizeRow->addWidget(m_height);
    sizeRow->addStretch();
    form->addRow(tr("Width × height:"), sizeRow);
    auto* note = new QLabel(tr("The picture has the plot's title and the runs at the top. SVG and PDF are vector "
                               "formats; the size sets their proportions and text scale."),
                            this);
    note->setWordWrap(true);
    form->addRow(note);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    form->addRow(buttons);

    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(m_preset, &QComboBox::activated, this, &ExportDialog::presetChosen);
    connect(m_width, &QSpinBox::valueChanged, this, &ExportDialog::syncPreset);
    connect(m_height, &QSpinBox::valueChanged, this, &ExportDialog::syncPreset);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(this, &QDialog::accepted, this, [this] {
        QSettings().setValue(QLatin1String(kLastSizeKey), imageSize());
        rememberExportDirectory(path());
    });

    const QSize last = QSettings().value(QLatin1String(kLastSizeKey)).toSize();
    setImageSize(last.isValid() && !last.isEmpty() ? last : viewSize);
}

QString ExportDialog::path() const {
    QString p = m_path->text().trimmed();
    if (!p.isEmpty() && QFileInfo(p).suffix().isEmpty()) p += QStringLiteral(".png");
    return p;
}

QSize ExportDialog::imageSize() const { return QSize(m_width->value(), m_height->value()); }

void ExportDialog::setPath(const QString& path) { m_path->setText(path); }

void ExportDialog::setImageSize(QSize size) {
    {
        const QSignalBlocker a(m_width), b(m_height);
        m_width->setValue(size.width());
        m_height->setValue(size.height());
    }
    syncPreset();
}

void ExportDialog::browse() {
    QString selected;
    QString p = QFileDialog::getSaveFileName(
        this, tr("Export plot"), m_path->text(),
        tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"), &selected);
    if (p.isEmpty()) return;
    if (QFileInfo(p).suffix().isEmpty()) {
        if (selected.contains(QLatin1String("*.svg"))) p += QStringLiteral(".svg");
        else if (selected.contains(QLatin1String("*.pdf"))) p += QStringLiteral(".pdf");
        else p += QStringLiteral(".png");
    }
    m_path->setText(p);
}

void ExportDialog::presetChosen(int index) {
    const QSize s = m_preset->itemData(index).toSize();
    if (s.isValid() && !s.isEmpty()) setImageSize(s);
}

void ExportDialog::syncPreset() {
    // The preset that has this size (the first one: "Current view" when it equals a standard size), else Custom.
    const QSize now = imageSize();
    int match = m_preset->count() - 1;
    for (int i = 0; i < m_preset->count() - 1; ++i)
        if (m_preset->itemData(i).toSize() == now) {
            match = i;
            break;
        }
    const QSignalBlocker block(m_preset);
    m_preset->setCurrentIndex(match);
}

}  // namespace strobe::app
