#include "sessions_model.h"

#include <algorithm>

#include <QDir>
#include <QFileInfo>

#include "app_paths.h"
#include "engine/session/layout.h"

namespace paddock::gui {

SessionsModel::SessionsModel(QObject* parent) : StatusListModel(parent), dir_(AppPaths::sessionsDir()) {
  coalesce_.setSingleShot(true);
  coalesce_.setInterval(100);
  connect(&coalesce_, &QTimer::timeout, this, &SessionsModel::reload);
  connect(&watcher_, &QFileSystemWatcher::directoryChanged, &coalesce_, qOverload<>(&QTimer::start));
  connect(&watcher_, &QFileSystemWatcher::fileChanged, &coalesce_, qOverload<>(&QTimer::start));
  reload();
}

int SessionsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant SessionsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& r = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case IdRole: return r.id;
    case StateRole: return r.state;
    case CommandRole: return r.command;
    case IrHashRole: return r.irHash;
    case StartedRole: return r.started;
    case DirRole: return r.dir;
    case ProblemRole: return r.problem;
    case AttentionRole: return r.state == "abandoned" || r.state == "unreadable" || !r.problem.isEmpty();
    default: return {};
  }
}

QHash<int, QByteArray> SessionsModel::roleNames() const {
  return {{IdRole, "sessionId"}, {StateRole, "state"}, {CommandRole, "command"},
          {IrHashRole, "irHash"}, {StartedRole, "started"}, {DirRole, "dir"},
          {ProblemRole, "problem"}, {AttentionRole, "attention"}};
}

void SessionsModel::setDirectory(const QString& dir) {
  if (dir == dir_) return;
  dir_ = dir;
  emit directoryChanged();
  reload();
}

int SessionsModel::runningCount() const {
  return static_cast<int>(std::count_if(rows_.begin(), rows_.end(),
                                        [](const SessionRecord& r) { return r.state == "running"; }));
}

QString SessionsModel::dirAt(int row) const {
  return row >= 0 && row < rowCount() ? rows_[static_cast<size_t>(row)].dir : QString();
}

QStringList SessionsModel::runningDirs() const {
  QStringList out;
  for (const SessionRecord& r : rows_)
    if (r.state == "running") out << r.dir;
  return out;
}

void SessionsModel::reload() {
  setStatus(ModelStatus::Loading);
  if (!watcher_.directories().isEmpty()) watcher_.removePaths(watcher_.directories());
  std::vector<SessionRecord> rows;
  QDir dir(dir_);
  if (dir.exists()) {
    watcher_.addPath(dir_);
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
      if (!session::valid_session_id(name.toStdString())) continue;  // not a session's directory
      const QString path = dir.filePath(name);
      watcher_.addPath(path);  // report.json appearing = the session ended
      rows.push_back(read_session_dir(path, AppPaths::controlSocketPath(path)));
    }
  } else {
    // Watch the parent so the first session (which creates sessions/) shows up.
    QDir parent(QFileInfo(dir_).path());
    if (parent.exists()) watcher_.addPath(parent.path());
  }
  // Newest first; the id breaks ties so the order is stable.
  std::stable_sort(rows.begin(), rows.end(), [](const SessionRecord& a, const SessionRecord& b) {
    return a.started != b.started ? a.started > b.started : a.id > b.id;
  });
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  emit countChanged();
  setStatus(ModelStatus::Ready);
}

}  // namespace paddock::gui
