#include <QApplication>
#include <QIcon>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QtQml/qqmlextensionplugin.h>

#include <cstdio>

#include "command_line.h"
#include "display_check.h"

Q_IMPORT_QML_PLUGIN(PaddockPlugin)

int main(int argc, char** argv) {
  if (int code = paddock::gui::answer_help_or_version(argc, argv, PADDOCK_VERSION); code >= 0) return code;
  // Checked before QApplication: without a display Qt aborts with a platform-plugin dump.
  if (!paddock::gui::has_display(paddock::gui::process_environment())) {
    std::fputs(paddock::gui::kNoDisplayMessage, stderr);
    return 2;
  }
  // Qt Quick's software renderer unless the user picks another (QT_QUICK_BACKEND): the app is
  // lists, forms and text, which it draws as well, and without a GL context (Mesa's llvmpipe
  // where there is no GPU) the app starts in about half the memory (docs/gui.md).
  if (qEnvironmentVariableIsEmpty("QT_QUICK_BACKEND")) QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
  QApplication app(argc, argv);  // Widgets: QSystemTrayIcon needs it
  QApplication::setApplicationName("paddock-gui");
  // The Wayland app id: docks match the window to paddock.desktop (its name and icon) by it.
  QGuiApplication::setDesktopFileName("paddock");
  QApplication::setWindowIcon(QIcon(":/Paddock/icons/paddock.png"));
  QQuickStyle::setStyle("Fusion");  // follows the system palette, light or dark
  QQmlApplicationEngine engine;
  QObject::connect(&engine, &QQmlApplicationEngine::objectCreated, &app,
                   [](QObject* root, const QUrl&) { if (!root) QCoreApplication::exit(1); },
                   Qt::QueuedConnection);
  engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
  return app.exec();
}
