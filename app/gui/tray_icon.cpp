#include "tray_icon.h"

#include <QApplication>
#include <QIcon>
#include <QMenu>
#include <QSystemTrayIcon>

namespace paddock::gui {

TrayIcon::TrayIcon(QObject* parent) : QObject(parent) {
  // QMenu and QSystemTrayIcon need a QApplication; under QGuiApplication (QML tests) there is
  // neither menu nor tray.
  if (!qobject_cast<QApplication*>(QCoreApplication::instance())) return;
  qmenu_ = std::make_unique<QMenu>();
  rebuildMenu();
  if (!QSystemTrayIcon::isSystemTrayAvailable()) return;
  icon_ = std::make_unique<QSystemTrayIcon>();
  icon_->setContextMenu(qmenu_.get());
  connect(icon_.get(), &QSystemTrayIcon::activated, this,
          [this](QSystemTrayIcon::ActivationReason r) {
            if (r == QSystemTrayIcon::Trigger || r == QSystemTrayIcon::DoubleClick) emit showRequested();
          });
  // With a tray, closing the window hides it; Quit is in the tray menu.
  QApplication::setQuitOnLastWindowClosed(!keep_running_);
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

void TrayIcon::setKeepRunning(bool on) {
  if (on == keep_running_) return;
  keep_running_ = on;
  if (icon_) QApplication::setQuitOnLastWindowClosed(!on);
  emit stateChanged();
}

void TrayIcon::setMenu(TrayMenuModel* m) {
  if (m == model_) return;
  if (model_) model_->disconnect(this);
  model_ = m;
  if (m) connect(m, &TrayMenuModel::changed, this, &TrayIcon::rebuildMenu);
  rebuildMenu();
  emit menuChanged();
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

void TrayIcon::rebuildMenu() {
  if (!qmenu_) return;
  qmenu_->clear();
  if (!model_) {
    qmenu_->addAction(tr("Show Paddock"), this, &TrayIcon::showRequested);
    qmenu_->addAction(tr("Quit Paddock…"), this, &TrayIcon::quitRequested);
    return;
  }
  for (const auto& e : model_->entries()) {
    switch (e.kind) {
      case TrayMenuModel::Header: qmenu_->addSection(e.text); break;
      case TrayMenuModel::Separator: qmenu_->addSeparator(); break;
      case TrayMenuModel::Session: {
        QMenu* sub = qmenu_->addMenu(e.text);
        const QString dir = e.target;
        sub->addAction(tr("Open"), this, [this, dir] { emit openSessionRequested(dir); });
        sub->addAction(tr("Stop"), this, [this, dir] { emit stopSessionRequested(dir); });
        break;
      }
      case TrayMenuModel::Recent: {
        const int i = e.target.toInt();
        qmenu_->addAction(e.text, this, [this, i] { emit relaunchRequested(i); });
        break;
      }
      case TrayMenuModel::Show: qmenu_->addAction(e.text, this, &TrayIcon::showRequested); break;
      case TrayMenuModel::Quit: qmenu_->addAction(e.text, this, &TrayIcon::quitRequested); break;
    }
  }
}

QStringList TrayIcon::menuText() const {
  QStringList out;
  if (!qmenu_) return out;
  for (QAction* a : qmenu_->actions()) {
    if (a->isSeparator() && a->text().isEmpty()) {
      out << "---";
      continue;
    }
    QString line = a->text();
    if (QMenu* sub = a->menu()) {
      QStringList subs;
      for (QAction* s : sub->actions()) subs << s->text();
      line += " > " + subs.join(" | ");
    }
    out << line;
  }
  return out;
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
