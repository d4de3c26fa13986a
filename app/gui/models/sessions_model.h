// The sessions list: every directory under $XDG_STATE_HOME/paddock/sessions, including sessions
// started from the CLI; the directory is watched (from its nearest existing ancestor while it
// does not exist yet) so new and ending sessions show up by themselves. A running session is
// re-checked every few seconds: a helper that died without a report (SIGKILL, a crash) has a
// control socket that no longer answers, and the row turns to "crashed" rather than staying
// "running". A helper closes its control socket a moment before it writes the report: a session
// seen running whose socket is gone is "ending" (and watched) for a few seconds before it is
// called crashed, so a normal end never shows, or is announced, as a crash. A session first seen
// with neither a socket nor a report while its log is fresh (its socket not listening yet, or a
// short session already closing it) is "starting" under the same grace, so that a session of a
// few milliseconds never shows as crashed. Request and denial counts are read from events.jsonl incrementally, on a worker
// thread (a log of a million lines is counted without stalling the UI): a row's counts arrive
// after the row.
#pragma once

#include <map>
#include <vector>

#include <QStringList>
#include <QVariantMap>

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
  // Sessions that failed or crashed since the app started (the tray's "needs attention").
  Q_PROPERTY(int failedCount READ failedCount NOTIFY countChanged)

 public:
  // AttentionRole: the session ended without a report or its files do not read.
  enum Role { IdRole = Qt::UserRole + 1, StateRole, CommandRole, IrHashRole, StartedRole,
              DirRole, ProblemRole, AttentionRole, ProjectRole, ProjectNameRole, AgentRole, StateWordsRole,
              StartedMsRole, DurationMsRole, RequestsRole, DeniedRole, ExitCodeRole, ErrorRole, OutputFileRole,
              RunningRole, CpuMsRole, MaxRssRole, PidsRole, CpuLimitRole, MemoryLimitRole, ProcessLimitRole,
              WallLimitRole, ConfigChangesRole };
  Q_ENUM(Role)

  explicit SessionsModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString directory() const { return dir_; }
  void setDirectory(const QString& dir);
  int runningCount() const;
  int failedCount() const;
  QStringList runningDirs() const;
  const std::vector<SessionRecord>& records() const { return rows_; }

  Q_INVOKABLE void reload();
  // The directory of a row ("" when out of range): the page selects the newest session with it.
  Q_INVOKABLE QString dirAt(int row) const;
  Q_INVOKABLE int rowOfDir(const QString& dir) const;
  // Every role of a row by its role name (the detail view reads the selected one).
  Q_INVOKABLE QVariantMap get(int row) const;
  // Removes an ended session's directory and its captured output ("" or why not).
  Q_INVOKABLE QString remove(int row);
  // Re-reads the running sessions (state, counts); the timer calls it while any runs.
  Q_INVOKABLE void recheckRunning();
  // `paddock verify --session ID`: its output, first line "verified ..." or the mismatch.
  Q_INVOKABLE QVariantMap verify(int row) const;

 signals:
  void directoryChanged();
  // A session this model saw running ended as failed or crashed (the tray notifies).
  void sessionFailed(const QString& id, const QString& state, const QString& why);
  // A running session's broker denied more requests (the tray notifies; host of the last one).
  void denialsSeen(const QString& id, int newDenials);

 private:
  // What has been counted of a session's events.jsonl: up to `offset`, with the start of a line
  // not yet complete.
 public:
  struct Count {
    qint64 offset = 0;
    int requests = 0, denied = 0;
    QByteArray partial;
  };
  // Counts the lines appended to `file` since `from` (from the start when the file shrank: it
  // was replaced). Pure; runs on a worker.
  static Count countRequests(const QString& file, Count from);

 private:
  struct Tally {
    Count count;
    bool counting = false;  // a worker is counting for this session
    bool again = false;     // asked again meanwhile: count once more when it is done
    bool notify = false;    // new denials of a running session are reported (denialsSeen)
    int generation = 0;     // a removed session's late result is dropped
  };
  int tally_generations_ = 0;
  void watch();
  // Counts on a worker what was appended; notify: report new denials when the count arrives.
  void tally(const QString& dir, bool notify = false);
  void noteTransitions(const std::vector<SessionRecord>& before);
  // Rows seen running (or ending) whose helper is gone without a report: "ending" until the
  // grace is over, then "abandoned" (crashed); rows first seen so with a fresh log: "starting".
  void settleEnding(std::vector<SessionRecord>& rows, const std::vector<SessionRecord>& before);
  bool anyEnding() const;  // any row "ending" or "starting"
  struct Grace {
    qint64 since = 0;       // when the row was first seen without a socket or a report (ms)
    bool starting = false;  // never seen running: "starting", else "ending"
  };
  std::map<QString, Grace> ending_since_;
 public:
  static constexpr qint64 kEndingGraceMs = 3000;

 private:

  QString dir_;
  std::vector<SessionRecord> rows_;
  std::map<QString, Tally> tallies_;             // by session dir
  std::map<QString, SessionRecord> meta_;  // dir -> what ir.json says (project, agent, limits): it never changes
  QFileSystemWatcher watcher_;
  QTimer coalesce_;  // many file events during a session start become one reload
  QTimer liveness_;  // while a session runs: is its helper still there?
  int failed_ = 0;
};

}  // namespace paddock::gui
