// Every running session's pending asks in one list (the tray and the Sessions page show it):
// one asks-only SessionMonitor (no log kept, no file polled) per running session directory,
// kept in step with `sessionDirs`.
#pragma once

#include <map>
#include <memory>

#include <QAbstractListModel>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

#include "session_monitor.h"

namespace paddock::gui {

class AskInbox : public QAbstractListModel {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QStringList sessionDirs READ sessionDirs WRITE setSessionDirs NOTIFY sessionDirsChanged)
  Q_PROPERTY(int count READ count NOTIFY countChanged)

 public:
  enum Role { SessionIdRole = Qt::UserRole + 1, SessionDirRole, AskIdRole, HostRole, PortRole, RaisedRole,
              TimeoutSecsRole };
  Q_ENUM(Role)

  explicit AskInbox(QObject* parent = nullptr);
  ~AskInbox() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QStringList sessionDirs() const { return dirs_; }
  void setSessionDirs(const QStringList& dirs);
  int count() const { return rowCount(); }

  // decision: allow_once | allow_session | deny.
  Q_INVOKABLE void answer(int row, const QString& decision);
  // Stops a running session through its control socket (the tray's Stop); false when the
  // session is not one this inbox watches.
  Q_INVOKABLE bool stopSession(const QString& dir);
  // Answers an ask by its session and id (a notification's answer: rows move as asks come and
  // go); false when that ask is no longer pending.
  Q_INVOKABLE bool answerAsk(const QString& sessionDir, const QString& askId, const QString& decision);
  // Whether that ask still waits for an answer.
  bool isPending(const QString& sessionDir, const QString& askId) const;
  // The host and port of the ask at `row` (the "add to a tier" answer reads them).
  Q_INVOKABLE QVariantMap askAt(int row) const;

 signals:
  void sessionDirsChanged();
  void countChanged();
  void askRaised(const QString& sessionId, const QString& host, int port, const QString& sessionDir,
                 const QString& askId, int timeoutSecs);
  // A watched session's control socket closed: its helper ended or died (re-read the list).
  void sessionClosed(const QString& dir);

 private:
  struct Entry {
    SessionMonitor* monitor;
    QVariantMap ask;
  };
  void rebuild();

  QStringList dirs_;
  std::map<QString, std::unique_ptr<SessionMonitor>> monitors_;  // by session dir
  std::vector<Entry> rows_;
};

}  // namespace paddock::gui
