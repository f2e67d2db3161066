#include <QApplication>
#include <QMainWindow>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Strobe"));
    QApplication::setApplicationVersion(QStringLiteral(STROBE_VERSION));
    QMainWindow w;
    w.setWindowTitle(QStringLiteral("Strobe"));
    w.resize(1200, 800);
    w.show();
    return QApplication::exec();
}
