#include "tray_icon.h"

#include <QApplication>
#include <QIcon>
#include <QMenu>
#include <QSystemTrayIcon>

namespace paddock::gui {

TrayIcon::TrayIcon(QObject* parent) : QObject(parent) {
  // QSystemTrayIcon needs a QApplication; under QGuiApplication (QML tests) there is no tray.
  if (!qobject_cast<QApplication*>(QCoreApplication::instance()) ||
      !QSystemTrayIcon::isSystemTrayAvailable())
    return;
  menu_ = std::make_unique<QMenu>();
  menu_->addAction(tr("Show Paddock"), this, &TrayIcon::showRequested);
  menu_->addSeparator();
  menu_->addAction(tr("Quit"), qApp, &QCoreApplication::quit);
  icon_ = std::make_unique<QSystemTrayIcon>();
  icon_->setContextMenu(menu_.get());
  connect(icon_.get(), &QSystemTrayIcon::activated, this,
          [this](QSystemTrayIcon::ActivationReason r) {
            if (r == QSystemTrayIcon::Trigger || r == QSystemTrayIcon::DoubleClick) emit showRequested();
          });
  // With a tray, closing the window hides it; Quit is in the tray menu.
  QApplication::setQuitOnLastWindowClosed(false);
  refresh();
  icon_->show();
}

TrayIcon::~TrayIcon() = default;

bool TrayIcon::available() const { return icon_ != nullptr; }

void TrayIcon::setState(State s) {
  if (s == state_) return;
  state_ = s;
  refresh();
  emit stateChanged();
}

void TrayIcon::setDetail(const QString& d) {
  if (d == detail_) return;
  detail_ = d;
  refresh();
  emit stateChanged();
}

QString TrayIcon::toolTip() const {
  QString base;
  switch (state_) {
    case Idle: base = tr("Paddock: idle"); break;
    case Running: base = tr("Paddock: running"); break;
    case NeedsAttention: base = tr("Paddock: needs attention"); break;
  }
  return detail_.isEmpty() ? base : base + " — " + detail_;
}

void TrayIcon::notify(const QString& title, const QString& message) {
  if (icon_ && QSystemTrayIcon::supportsMessages()) icon_->showMessage(title, message);
}

void TrayIcon::refresh() {
  if (!icon_) return;
  const char* file = ":/Paddock/icons/paddock.png";
  switch (state_) {
    case Idle: break;
    case Running: file = ":/Paddock/icons/paddock-running.png"; break;
    case NeedsAttention: file = ":/Paddock/icons/paddock-attention.png"; break;
  }
  icon_->setIcon(QIcon(file));
  icon_->setToolTip(toolTip());
}

}  // namespace paddock::gui
