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

 signals:
  void sessionDirsChanged();
  void countChanged();
  void askRaised(const QString& sessionId, const QString& host, int port);

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
