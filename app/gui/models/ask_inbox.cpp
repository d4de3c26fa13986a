#include "ask_inbox.h"

#include <algorithm>

namespace paddock::gui {

AskInbox::AskInbox(QObject* parent) : QAbstractListModel(parent) {}
AskInbox::~AskInbox() = default;

int AskInbox::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant AskInbox::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Entry& e = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case SessionIdRole: return e.monitor->sessionId();
    case SessionDirRole: return e.monitor->sessionDir();
    case AskIdRole: return e.ask.value("id");
    case HostRole: return e.ask.value("host");
    case PortRole: return e.ask.value("port");
    case RaisedRole: return e.ask.value("raised");
    case TimeoutSecsRole: return e.monitor->askTimeoutSecs();
    default: return {};
  }
}

QHash<int, QByteArray> AskInbox::roleNames() const {
  return {{SessionIdRole, "sessionId"}, {SessionDirRole, "sessionDir"}, {AskIdRole, "askId"},
          {HostRole, "host"},           {PortRole, "port"},             {RaisedRole, "raised"},
          {TimeoutSecsRole, "timeoutSecs"}};
}

void AskInbox::setSessionDirs(const QStringList& dirs) {
  if (dirs == dirs_) return;
  dirs_ = dirs;
  // A session that stopped running takes its monitor (and its asks) with it; new ones start.
  // This runs inside that monitor's own signals (its socket closed -> sessionClosed -> the
  // sessions list reloads -> these dirs change), so the monitor is only handed to the event loop
  // to delete: its handler, and its socket's, go on after this returns.
  for (auto it = monitors_.begin(); it != monitors_.end();) {
    if (dirs_.contains(it->first)) {
      ++it;
      continue;
    }
    SessionMonitor* gone = it->second.release();
    gone->disconnect(this);
    gone->deleteLater();
    it = monitors_.erase(it);
  }
  for (const QString& dir : dirs_) {
    if (monitors_.count(dir)) continue;
    auto m = std::make_unique<SessionMonitor>();
    m->setKeepLog(false);  // asks come over the control socket; the log is the Sessions page's
    connect(m.get(), &SessionMonitor::pendingAsksChanged, this, &AskInbox::rebuild);
    SessionMonitor* raw = m.get();
    connect(m.get(), &SessionMonitor::askRaised, this,
            [this, raw](const QString& id, const QString& host, int port) {
              emit askRaised(raw->sessionId(), host, port, raw->sessionDir(), id, raw->askTimeoutSecs());
            });
    // Posted, never emitted from here: a monitor finds a session that ended before it looked while
    // setSessionDir runs below, and a reload of the sessions list inside this setter would set
    // sessionDirs again from within itself (a QML binding loop). Only the directory travels, never
    // the monitor, which may be gone by then.
    connect(m.get(), &SessionMonitor::liveChanged, this, [this, raw] {
      if (raw->live()) return;
      QMetaObject::invokeMethod(this, [this, dir = raw->sessionDir()] { emit sessionClosed(dir); }, Qt::QueuedConnection);
    });
    m->setSessionDir(dir);
    monitors_[dir] = std::move(m);
  }
  emit sessionDirsChanged();
  rebuild();
}

void AskInbox::answer(int row, const QString& decision) {
  if (row < 0 || row >= rowCount()) return;
  const Entry e = rows_[static_cast<size_t>(row)];
  e.monitor->answerAsk(e.ask.value("id").toString(), decision);
}

bool AskInbox::answerAsk(const QString& sessionDir, const QString& askId, const QString& decision) {
  if (!isPending(sessionDir, askId)) return false;
  monitors_.at(sessionDir)->answerAsk(askId, decision);
  return true;
}

bool AskInbox::isPending(const QString& sessionDir, const QString& askId) const {
  auto it = monitors_.find(sessionDir);
  if (it == monitors_.end()) return false;
  const QVariantList asks = it->second->pendingAsks();
  return std::any_of(asks.begin(), asks.end(), [&](const QVariant& a) { return a.toMap().value("id") == askId; });
}

bool AskInbox::stopSession(const QString& dir) {
  auto it = monitors_.find(dir);
  if (it == monitors_.end()) return false;
  it->second->stop();
  return true;
}

QVariantMap AskInbox::askAt(int row) const {
  if (row < 0 || row >= rowCount()) return {};
  const Entry& e = rows_[static_cast<size_t>(row)];
  QVariantMap m = e.ask;
  m.insert("sessionDir", e.monitor->sessionDir());
  return m;
}

void AskInbox::rebuild() {
  std::vector<Entry> rows;
  for (const auto& [dir, m] : monitors_)
    for (const QVariant& a : m->pendingAsks()) rows.push_back({m.get(), a.toMap()});
  // Oldest question first: it is the one closest to its timeout.
  std::stable_sort(rows.begin(), rows.end(), [](const Entry& a, const Entry& b) {
    return a.ask.value("raised").toLongLong() < b.ask.value("raised").toLongLong();
  });
  const int before = rowCount();
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  if (before != rowCount()) emit countChanged();
}

}  // namespace paddock::gui
