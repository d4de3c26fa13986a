// The sessions list: every directory under $XDG_STATE_HOME/paddock/sessions, including sessions
// started from the CLI; the directory is watched so new and ending sessions show up by themselves.
#pragma once

#include <vector>

#include <QStringList>

#include <QFileSystemWatcher>
#include <QTimer>

#include "session_record.h"
#include "status_list_model.h"

namespace paddock::gui {

class SessionsModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString directory READ directory WRITE setDirectory NOTIFY directoryChanged)
  Q_PROPERTY(int runningCount READ runningCount NOTIFY countChanged)
  // The directories of the running sessions (what the ask inbox subscribes to).
  Q_PROPERTY(QStringList runningDirs READ runningDirs NOTIFY countChanged)

 public:
  // AttentionRole: the session ended without a report or its files do not read.
  enum Role { IdRole = Qt::UserRole + 1, StateRole, CommandRole, IrHashRole, StartedRole,
              DirRole, ProblemRole, AttentionRole };
  Q_ENUM(Role)

  explicit SessionsModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString directory() const { return dir_; }
  void setDirectory(const QString& dir);
  int runningCount() const;
  QStringList runningDirs() const;

  Q_INVOKABLE void reload();
  // The directory of a row ("" when out of range): the page selects the newest session with it.
  Q_INVOKABLE QString dirAt(int row) const;

 signals:
  void directoryChanged();

 private:
  QString dir_;
  std::vector<SessionRecord> rows_;
  QFileSystemWatcher watcher_;
  QTimer coalesce_;  // many file events during a session start become one reload
};

}  // namespace paddock::gui
