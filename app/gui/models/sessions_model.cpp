#include "sessions_model.h"

#include <algorithm>

#include <QDateTime>
#include <QDir>
#include <QFutureWatcher>
#include <QtConcurrent>
#include <QFile>
#include <QFileInfo>
#include <QProcess>

#include "app_paths.h"
#include "engine/session/event.h"
#include "engine/session/layout.h"

namespace paddock::gui {
namespace {

void copy_meta(const SessionRecord& from, SessionRecord& to) {
  to.project = from.project;
  to.agent = from.agent;
  to.cpuLimitSecs = from.cpuLimitSecs;
  to.memoryLimit = from.memoryLimit;
  to.processLimit = from.processLimit;
  to.wallLimitSecs = from.wallLimitSecs;
}

}  // namespace

SessionsModel::SessionsModel(QObject* parent) : StatusListModel(parent), dir_(AppPaths::sessionsDir()) {
  coalesce_.setSingleShot(true);
  coalesce_.setInterval(100);
  connect(&coalesce_, &QTimer::timeout, this, &SessionsModel::reload);
  connect(&watcher_, &QFileSystemWatcher::directoryChanged, &coalesce_, qOverload<>(&QTimer::start));
  connect(&watcher_, &QFileSystemWatcher::fileChanged, &coalesce_, qOverload<>(&QTimer::start));
  liveness_.setInterval(2000);
  connect(&liveness_, &QTimer::timeout, this, &SessionsModel::recheckRunning);
  reload();
}

int SessionsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant SessionsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& r = rows_[static_cast<size_t>(index.row())];
  const auto t = tallies_.find(r.dir);
  switch (role) {
    case Qt::DisplayRole:
    case IdRole: return r.id;
    case StateRole: return r.state;
    case StateWordsRole: return state_words(r.state);
    case RunningRole: return r.state == "running";
    case CommandRole: return r.command;
    case IrHashRole: return r.irHash;
    case StartedRole: return r.started;
    case StartedMsRole: {
      const auto at = QDateTime::fromString(r.started, Qt::ISODateWithMs);
      return at.isValid() ? at.toMSecsSinceEpoch() : qint64(0);
    }
    case DurationMsRole: return r.durationMs;
    case DirRole: return r.dir;
    case ProblemRole: return r.problem;
    case ErrorRole: return r.error;
    case ExitCodeRole: return r.exitCode;
    case ProjectRole: return r.project;
    case ProjectNameRole: return r.project.isEmpty() ? QString() : QFileInfo(r.project).fileName();
    case AgentRole: return r.agent;
    case RequestsRole: return t == tallies_.end() ? 0 : t->second.count.requests;
    case DeniedRole: return t == tallies_.end() ? 0 : t->second.count.denied;
    case OutputFileRole: {
      const QString f = AppPaths::outputDir() + "/" + r.id + ".log";
      return QFileInfo::exists(f) ? f : QString();
    }
    case CpuMsRole: return r.cpuMs;
    case MaxRssRole: return r.maxRss;
    case PidsRole: return r.pids;
    case CpuLimitRole: return r.cpuLimitSecs;
    case MemoryLimitRole: return r.memoryLimit;
    case ProcessLimitRole: return r.processLimit;
    case WallLimitRole: return r.wallLimitSecs;
    case ConfigChangesRole: return r.configChanges;
    case AttentionRole: return r.state == "abandoned" || r.state == "unreadable" || !r.problem.isEmpty();
    default: return {};
  }
}

QHash<int, QByteArray> SessionsModel::roleNames() const {
  return {{IdRole, "sessionId"},     {StateRole, "state"},         {CommandRole, "command"},
          {IrHashRole, "irHash"},    {StartedRole, "started"},     {DirRole, "dir"},
          {ProblemRole, "problem"},  {AttentionRole, "attention"}, {ProjectRole, "project"},
          {ProjectNameRole, "projectName"}, {AgentRole, "agent"},  {StateWordsRole, "stateWords"},
          {StartedMsRole, "startedMs"}, {DurationMsRole, "durationMs"}, {RequestsRole, "requests"},
          {DeniedRole, "denied"},    {ExitCodeRole, "exitCode"},   {ErrorRole, "error"},
          {OutputFileRole, "outputFile"}, {RunningRole, "running"}, {CpuMsRole, "cpuMs"},
          {MaxRssRole, "maxRss"},    {PidsRole, "pids"},           {CpuLimitRole, "cpuLimitSecs"},
          {MemoryLimitRole, "memoryLimit"}, {ProcessLimitRole, "processLimit"}, {WallLimitRole, "wallLimitSecs"},
          {ConfigChangesRole, "configChanges"}};
}

void SessionsModel::setDirectory(const QString& dir) {
  if (dir == dir_) return;
  dir_ = dir;
  tallies_.clear();
  meta_.clear();
  emit directoryChanged();
  reload();
}

int SessionsModel::runningCount() const {
  return static_cast<int>(std::count_if(rows_.begin(), rows_.end(),
                                        [](const SessionRecord& r) { return r.state == "running"; }));
}

int SessionsModel::failedCount() const { return failed_; }

QString SessionsModel::dirAt(int row) const {
  return row >= 0 && row < rowCount() ? rows_[static_cast<size_t>(row)].dir : QString();
}

int SessionsModel::rowOfDir(const QString& dir) const {
  for (size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].dir == dir) return static_cast<int>(i);
  return -1;
}

QVariantMap SessionsModel::get(int row) const {
  QVariantMap m;
  if (row < 0 || row >= rowCount()) return m;
  const auto names = roleNames();
  for (auto it = names.begin(); it != names.end(); ++it)
    m.insert(QString::fromUtf8(it.value()), data(index(row), it.key()));
  return m;
}

QStringList SessionsModel::runningDirs() const {
  QStringList out;
  for (const SessionRecord& r : rows_)
    if (r.state == "running") out << r.dir;
  return out;
}

SessionsModel::Count SessionsModel::countRequests(const QString& file, Count t) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return t;
  if (f.size() < t.offset) t = Count{};
  if (f.size() == t.offset || !f.seek(t.offset)) return t;
  // Slices of 4 MiB: the memory a huge log costs here stays bounded.
  for (QByteArray chunk; !(chunk = f.read(qint64{4} << 20)).isEmpty();) {
    t.offset += chunk.size();
    t.partial += chunk;
    qsizetype start = 0, nl;
    while ((nl = t.partial.indexOf('\n', start)) >= 0) {
      const std::string_view line(t.partial.constData() + start, static_cast<std::size_t>(nl - start));
      start = nl + 1;
      auto ev = session::decode_event(line);
      if (!ev.ok() || ev->type != session::EventType::kNetRequest) continue;
      const int n = static_cast<int>(ev->count);
      t.requests += n;
      if (ev->fields.value("decision", "") == "deny") t.denied += n;
    }
    t.partial.remove(0, start);
  }
  return t;
}

// Requests and denials so far: only the bytes appended since the last look are read, on a worker.
void SessionsModel::tally(const QString& dir, bool notify) {
  Tally& t = tallies_[dir];
  if (t.generation == 0) t.generation = ++tally_generations_;
  t.notify = t.notify || notify;
  // Nothing new (a stat, the common case for every ended session at each reload): no worker.
  if (!t.counting && QFileInfo(dir + "/events.jsonl").size() == t.count.offset) return;
  if (t.counting) {
    t.again = true;
    return;
  }
  t.counting = true;
  t.again = false;
  const bool report = std::exchange(t.notify, false);
  const int generation = t.generation;
  auto* watcher = new QFutureWatcher<Count>(this);  // this object's child: no late delivery
  connect(watcher, &QFutureWatcher<Count>::finished, this, [this, watcher, dir, report, generation] {
    watcher->deleteLater();
    auto it = tallies_.find(dir);
    if (it == tallies_.end() || it->second.generation != generation) return;  // removed meanwhile
    Tally& done = it->second;
    const int denied_before = done.count.denied;
    done.count = watcher->result();
    done.counting = false;
    if (const int row = rowOfDir(dir); row >= 0) {
      emit dataChanged(index(row), index(row), {RequestsRole, DeniedRole});
      const int more = done.count.denied - denied_before;
      if (report && more > 0 && rows_[static_cast<size_t>(row)].state == "running")
        emit denialsSeen(rows_[static_cast<size_t>(row)].id, more);
    }
    if (done.again) tally(dir);
  });
  watcher->setFuture(QtConcurrent::run(&SessionsModel::countRequests, dir + "/events.jsonl", t.count));
}

void SessionsModel::watch() {
  if (!watcher_.directories().isEmpty()) watcher_.removePaths(watcher_.directories());
  if (dir_.isEmpty()) return;
  QDir dir(dir_);
  if (dir.exists()) {
    watcher_.addPath(dir_);
    for (const auto& r : rows_)  // report.json appearing = the session ended
      if (r.state == "running" || r.state == "ending" || r.state == "starting") watcher_.addPath(r.dir);
    return;
  }
  // Not there yet: watch the nearest ancestor that is, so the first session (whichever of
  // state/, paddock/ or sessions/ it creates) shows up.
  QString p = QFileInfo(dir_).path();
  while (!QFileInfo(p).isDir() && p != QFileInfo(p).path()) p = QFileInfo(p).path();
  if (QFileInfo(p).isDir()) watcher_.addPath(p);
}

void SessionsModel::settleEnding(std::vector<SessionRecord>& rows, const std::vector<SessionRecord>& before) {
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  for (auto& r : rows) {
    if (r.state != "abandoned") {
      ending_since_.erase(r.dir);
      continue;
    }
    auto it = ending_since_.find(r.dir);
    if (it == ending_since_.end()) {
      const bool was_live = std::any_of(before.begin(), before.end(), [&](const SessionRecord& b) {
        return b.dir == r.dir && (b.state == "running" || b.state == "ending");
      });
      // Never seen running: a log (or, before its first line, a directory) written a moment ago
      // is a session in its first or last milliseconds; a quiet one crashed before this app saw
      // it, and there is nothing to wait for.
      const QFileInfo log(r.dir + "/events.jsonl");
      const QDateTime written = log.exists() ? log.lastModified() : QFileInfo(r.dir).lastModified();
      const bool fresh = now - written.toMSecsSinceEpoch() < kEndingGraceMs;
      if (!was_live && !fresh) continue;
      it = ending_since_.emplace(r.dir, Grace{now, !was_live}).first;
    }
    if (now - it->second.since < kEndingGraceMs) r.state = it->second.starting ? "starting" : "ending";
    else ending_since_.erase(it);
  }
}

bool SessionsModel::anyEnding() const {
  return std::any_of(rows_.begin(), rows_.end(),
                     [](const SessionRecord& r) { return r.state == "ending" || r.state == "starting"; });
}

void SessionsModel::noteTransitions(const std::vector<SessionRecord>& before) {
  for (const auto& was : before) {
    // A row never seen running that turns out crashed is not announced: it may have crashed
    // before this app started (the launcher says so for its own launches).
    if (was.state != "running" && was.state != "ending") continue;
    auto now = std::find_if(rows_.begin(), rows_.end(), [&](const SessionRecord& r) { return r.dir == was.dir; });
    if (now == rows_.end() || now->state == "running" || now->state == "ending" || now->state == "starting") continue;
    if (now->state == "failed" || now->state == "abandoned") {
      ++failed_;
      emit sessionFailed(now->id, state_words(now->state),
                         now->state == "abandoned" ? tr("its helper is gone without a report") : now->error);
    }
  }
}

void SessionsModel::reload() {
  setStatus(ModelStatus::Loading);
  std::vector<SessionRecord> rows;
  QDir dir(dir_);
  if (!dir_.isEmpty() && dir.exists()) {
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
      if (!session::valid_session_id(name.toStdString())) continue;  // not a session's directory
      const QString path = dir.filePath(name);
      SessionRecord r = read_session_dir(path, AppPaths::controlSocketPath(path));
      auto m = meta_.find(path);
      SessionRecord meta;
      if (m == meta_.end()) {
        meta.dir = path;
        read_session_meta(meta);
        if (!meta.project.isEmpty()) meta_[path] = meta;
      } else {
        meta = m->second;
      }
      copy_meta(meta, r);
      tally(path);
      rows.push_back(std::move(r));
    }
  }
  // Newest first; the id breaks ties so the order is stable.
  std::stable_sort(rows.begin(), rows.end(), [](const SessionRecord& a, const SessionRecord& b) {
    return a.started != b.started ? a.started > b.started : a.id > b.id;
  });
  std::vector<SessionRecord> before = std::move(rows_);
  settleEnding(rows, before);
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  watch();
  noteTransitions(before);
  if (runningCount() > 0 || anyEnding()) {
    if (!liveness_.isActive()) liveness_.start();
  } else {
    liveness_.stop();
  }
  emit countChanged();
  setStatus(ModelStatus::Ready);
}

void SessionsModel::recheckRunning() {
  bool ended = false;
  for (size_t i = 0; i < rows_.size(); ++i) {
    SessionRecord& r = rows_[i];
    if (r.state == "ending" || r.state == "starting") {
      // Its report, its socket (a starting session's), or the end of its grace settles it.
      auto since = ending_since_.find(r.dir);
      if (QFileInfo::exists(r.dir + "/report.json") || since == ending_since_.end() ||
          QDateTime::currentMSecsSinceEpoch() - since->second.since >= kEndingGraceMs ||
          (r.state == "starting" &&
           read_session_dir(r.dir, AppPaths::controlSocketPath(r.dir)).state == "running"))
        ended = true;
      continue;
    }
    if (r.state != "running") continue;
    SessionRecord now = read_session_dir(r.dir, AppPaths::controlSocketPath(r.dir));
    copy_meta(r, now);
    tally(r.dir, /*notify=*/true);
    if (now.state != r.state) ended = true;
    else {
      r = std::move(now);
      emit dataChanged(index(static_cast<int>(i)), index(static_cast<int>(i)));
    }
  }
  if (ended) reload();
}

QVariantMap SessionsModel::verify(int row) const {
  if (row < 0 || row >= rowCount()) return {{"ok", false}, {"text", tr("no such session")}};
  QProcess p;
  p.start(AppPaths::cliPath(), {"verify", "--session", rows_[static_cast<size_t>(row)].id});
  if (!p.waitForFinished(20000)) return {{"ok", false}, {"text", tr("paddock verify did not answer")}};
  const QString out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError()).trimmed();
  return {{"ok", p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0}, {"text", out}};
}

QString SessionsModel::remove(int row) {
  if (row < 0 || row >= rowCount()) return tr("no such session");
  const SessionRecord r = rows_[static_cast<size_t>(row)];
  if (r.state == "running") return tr("the session is running; stop it first");
  QDir d(r.dir);
  if (!d.removeRecursively()) return tr("cannot remove %1").arg(r.dir);
  QFile::remove(AppPaths::outputDir() + "/" + r.id + ".log");
  tallies_.erase(r.dir);
  meta_.erase(r.dir);
  reload();
  return {};
}

}  // namespace paddock::gui
