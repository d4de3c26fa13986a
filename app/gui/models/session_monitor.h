// One session, live: its event log (engine/session/event.h) as rows — the broker log among them — plus the
// asks waiting for an answer, Stop, and the answers to asks.
//
// The log is read from events.jsonl, which is the session's record; the control socket is used
// to learn *that* something happened (then the file's new lines are read), for the pending asks
// (the helper replays them on subscribe) and to send stop / ask_reply. So the log shows every
// event exactly once and in order, however the socket and the file interleave.
#pragma once

#include <map>
#include <vector>

#include <QDateTime>
#include <QFile>
#include <QJsonObject>
#include <QSet>
#include <QTimer>
#include <QVariantList>

#include "control_client.h"
#include "engine/session/event.h"
#include "status_list_model.h"

namespace paddock::gui {

class SessionMonitor : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString sessionDir READ sessionDir WRITE setSessionDir NOTIFY sessionDirChanged)
  Q_PROPERTY(QString sessionId READ sessionId NOTIFY sessionDirChanged)
  // Connected to a running session's control socket.
  Q_PROPERTY(bool live READ live NOTIFY liveChanged)
  // [{id, host, port, raised (ms since epoch, local receipt)}], oldest first.
  Q_PROPERTY(QVariantList pendingAsks READ pendingAsks NOTIFY pendingAsksChanged)
  Q_PROPERTY(int askTimeoutSecs READ askTimeoutSecs NOTIFY sessionDirChanged)
  // The last thing that went wrong talking to the session (a refused answer, a lost socket).
  Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
  // The captured output of a background launch (<state>/output/<id>.log): its last 256 KiB.
  Q_PROPERTY(QString output READ output NOTIFY outputChanged)
  Q_PROPERTY(bool hasOutput READ hasOutput NOTIFY outputChanged)
  // The log keeps the newest rows only (a window): how many older ones are in the file alone.
  Q_PROPERTY(qint64 droppedRows READ droppedRows NOTIFY countChanged)
  // Each brokered credential's use (docs/credentials.md): [{name, requests, refused, bytesTx,
  // bytesRx}], summed from its credential_request events while the session runs, then the
  // report's own sums once it has ended.
  Q_PROPERTY(QVariantList credentialUsage READ credentialUsage NOTIFY credentialUsageChanged)

 public:
  // AlertRole: a denial, a limit or quota hit, an error, or a line that does not read.
  enum Role { TimeRole = Qt::UserRole + 1, KindRole, HostRole, PortRole, DecisionRole, RuleRole,
              IpRole, BytesTxRole, BytesRxRole, TextRole, AlertRole };
  Q_ENUM(Role)

  explicit SessionMonitor(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString sessionDir() const { return dir_; }
  void setSessionDir(const QString& dir);
  QString sessionId() const;
  bool live() const { return live_; }
  QVariantList pendingAsks() const;
  int askTimeoutSecs() const { return ask_timeout_secs_; }
  QString lastError() const { return last_error_; }
  QString output() const { return QString::fromUtf8(output_); }
  bool hasOutput() const { return has_output_; }
  qint64 droppedRows() const { return dropped_; }
  QVariantList credentialUsage() const;
  // The most rows kept in memory (older ones stay in events.jsonl); tests lower it.
  void setMaxRows(int n) { max_rows_ = n; }
  static constexpr int kDefaultMaxRows = 20000;
  // false: asks, answers and stop only. The log is neither read nor kept and the file is not
  // polled (the ask inbox watches every running session and needs nothing else). Set it before
  // the session dir.
  void setKeepLog(bool keep) { keep_log_ = keep; }

  // decision: allow_once | allow_session | deny.
  Q_INVOKABLE void answerAsk(const QString& askId, const QString& decision);
  Q_INVOKABLE void stop();
  Q_INVOKABLE void reload();

 signals:
  void sessionDirChanged();
  void liveChanged();
  void pendingAsksChanged();
  void lastErrorChanged();
  void outputChanged();
  void askRaised(const QString& askId, const QString& host, int port);
  void credentialUsageChanged();

 public:
  // One line of the log as the Events and Network tabs show it (toRow).
  struct Row {
    QString time, kind, host, decision, rule, ip, text;
    int port = 0;
    qint64 tx = -1, rx = -1;
    bool alert = false;
  };

 private:
  struct Ask {
    QString id, host;
    int port = 0;
    qint64 raised = 0;
  };

  void clearLog();      // forgets what was read of events.jsonl (rows, offset, partial line)
  void readNewLines();  // appends the complete lines written since the last read
  void readOutput();
  // A long log opened for the first time: a worker finds where its tail starts (counting the
  // lines before it); until then nothing is read.
  void startTailScan();
  static constexpr qint64 kSliceBytes = 64 * 1024;
  static constexpr qint64 kTailBytes = 4 * 1024 * 1024;
  void onMessage(const QJsonObject& line);
  // Subscribes to the control socket of a session that has no report yet. A session selected
  // as it starts has no socket for a moment: the poll tries again (quietly) until it connects.
  void connectIfRunning(bool quiet);
  void onPoll();
  void setLive(bool live);
  void setLastError(const QString& e);
  void addAsk(const QJsonObject& ev);
  void resolveAsk(const QString& askId);
  static Row toRow(const session::Event& e);
  // A credential_request adds to its credential's sums; session_ended's report replaces them.
  void absorbCredentialUse(const session::Event& e);
  struct CredentialSum {
    qint64 requests = 0, refused = 0, tx = 0, rx = 0;
  };
  std::map<QString, CredentialSum> credential_sums_;
  bool credential_sums_final_ = false;

  QString dir_;
  std::vector<Row> rows_;
  std::vector<Ask> asks_;
  QSet<QString> seen_asks_;  // an ask may arrive twice (replay + live) or after it was settled
  QFile file_;
  qint64 offset_ = 0;
  long line_no_ = 0;  // lines of events.jsonl read so far
  QByteArray partial_;
  ControlClient client_;
  bool live_ = false;
  bool quiet_connect_ = false;  // a retry from the poll: a refused connection is not news
  bool keep_log_ = true;
  int ask_timeout_secs_ = 30;
  QString last_error_;
  QTimer poll_;  // the file is also re-read now and then: events written with no subscriber
  QByteArray output_;
  qint64 output_offset_ = 0;
  bool has_output_ = false;
  qint64 dropped_ = 0;
  int max_rows_ = kDefaultMaxRows;
  bool more_queued_ = false;
  bool tail_scanned_ = false;   // the first read of this file looked for its tail already
  bool scanning_ = false;       // a worker is looking for the tail now
  quint64 generation_ = 0;      // bumped by reload(): a scan of an earlier file is ignored
};

}  // namespace paddock::gui
