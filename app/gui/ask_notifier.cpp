#include "ask_notifier.h"

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QVariantMap>

namespace paddock::gui {
namespace {

constexpr const char* kService = "org.freedesktop.Notifications";
constexpr const char* kPath = "/org/freedesktop/Notifications";
constexpr const char* kInterface = "org.freedesktop.Notifications";

QDBusMessage call(const char* method) { return QDBusMessage::createMethodCall(kService, kPath, kInterface, method); }

}  // namespace

AskNotifier::AskNotifier(QObject* parent) : QObject(parent) {
  QDBusConnection bus = QDBusConnection::sessionBus();
  if (!bus.isConnected()) {
    ready_ = true;
    return;
  }
  bus.connect(kService, kPath, kInterface, "ActionInvoked", this, SLOT(onAction(uint,QString)));
  bus.connect(kService, kPath, kInterface, "NotificationClosed", this, SLOT(onClosed(uint,uint)));
  // Asked once, without waiting: a server that is started on demand (D-Bus activation) starts
  // here, and a bus with nobody for the name answers with an error.
  auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(call("GetCapabilities")), this);
  connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher* w) {
    w->deleteLater();
    QDBusPendingReply<QStringList> reply = *w;
    actions_ = !reply.isError() && reply.value().contains("actions");
    ready_ = true;
    emit changed();
  });
}

void AskNotifier::setInbox(AskInbox* inbox) {
  if (inbox == inbox_) return;
  if (inbox_) disconnect(inbox_, nullptr, this, nullptr);
  inbox_ = inbox;
  if (inbox_) {
    connect(inbox_, &AskInbox::askRaised, this, &AskNotifier::onAsk);
    connect(inbox_, &AskInbox::modelReset, this, &AskNotifier::withdrawSettled);
  }
  emit changed();
}

void AskNotifier::setTray(TrayIcon* tray) {
  if (tray == tray_) return;
  tray_ = tray;
  emit changed();
}

void AskNotifier::onAsk(const QString& sessionId, const QString& host, int port, const QString& sessionDir,
                        const QString& askId, int timeoutSecs) {
  const QString title = tr("Paddock: an agent asks for %1:%2").arg(host).arg(port);
  if (!actions_) {
    if (tray_)
      tray_->notify(title, tr("Session %1. Answer in Paddock's Sessions page, or it is denied.").arg(sessionId));
    return;
  }
  QDBusMessage m = call("Notify");
  const QStringList actions = {"default", tr("Open Paddock"), kAllow, tr("Allow once"), kDeny, tr("Deny")};
  const QVariantMap hints = {{"urgency", QVariant::fromValue<uchar>(2)},  // critical: it waits for the user
                             {"category", "network"},
                             {"desktop-entry", "paddock"}};
  m << QString("Paddock") << uint(0) << QString("paddock") << title
    << tr("Session %1. Denied in %2 s unless you allow it.").arg(sessionId).arg(timeoutSecs) << actions << hints
    << int(timeoutSecs * 1000);
  auto* watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(m), this);
  connect(watcher, &QDBusPendingCallWatcher::finished, this,
          [this, watcher, title, sessionId, sessionDir, askId] {
            watcher->deleteLater();
            QDBusPendingReply<uint> reply = *watcher;
            if (reply.isError()) {  // the service went away: the plain notification instead
              if (tray_) tray_->notify(title, tr("Session %1. Answer in Paddock's Sessions page.").arg(sessionId));
              return;
            }
            open_[reply.value()] = {sessionDir, askId};
            withdrawSettled();  // answered while the notification was on its way
          });
}

void AskNotifier::onAction(uint id, const QString& key) {
  auto it = open_.find(id);
  if (it == open_.end()) return;  // another application's notification, or one already settled
  const Pending p = it->second;
  open_.erase(it);
  if (key == QLatin1String(kAllow) || key == QLatin1String(kDeny)) {
    if (inbox_) inbox_->answerAsk(p.sessionDir, p.askId, key == QLatin1String(kAllow) ? "allow_once" : "deny");
  } else {
    emit showRequested();
  }
  // Servers that keep a notification after an action (resident ones) are told it is done.
  QDBusMessage close = call("CloseNotification");
  close << id;
  QDBusConnection::sessionBus().asyncCall(close);
}

void AskNotifier::onClosed(uint id, uint) { open_.erase(id); }

void AskNotifier::withdrawSettled() {
  for (auto it = open_.begin(); it != open_.end();) {
    if (inbox_ && inbox_->isPending(it->second.sessionDir, it->second.askId)) {
      ++it;
      continue;
    }
    QDBusMessage close = call("CloseNotification");
    close << it->first;
    QDBusConnection::sessionBus().asyncCall(close);
    it = open_.erase(it);
  }
}

}  // namespace paddock::gui
