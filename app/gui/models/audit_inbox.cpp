#include "audit_inbox.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent>

#include "../app_paths.h"
#include "engine/session/audit_record.h"
#include "engine/session/layout.h"
#include "platform/audit/audit.h"

namespace paddock::gui {
namespace {

struct Looked {
  int pending = 0;
  bool audited = false;      // its audit.json exists
  bool audited_now = false;  // the session had ended without its helper and was audited here
};

// Off the UI thread: the audit of a session whose helper was killed walks its write roots.
Looked look(const QString& dir) {
  Looked out;
  const std::string id = QFileInfo(dir).fileName().toStdString();
  if (auto layout = session::from_env(AppPaths::environment()); layout.ok()) {
    auto r = platform::audit_if_abandoned(*layout, id, AppPaths::resourcesDir().toStdString(), "Paddock app");
    out.audited_now = r.ok() && *r;
  }
  const platform::LoadedAudit loaded = platform::load_audit(dir.toStdString());
  out.audited = loaded.record.has_value();
  out.pending = static_cast<int>(loaded.pending());
  return out;
}

bool ended(const QString& state) { return state != "running" && state != "unreadable" && state != "starting"; }

// A session whose audit is not written yet is looked at again this often, this many times: its
// helper (or a front end) writes it under the audit lock, and nothing in the sessions list need
// change once it has (its report may have appeared while the first look ran).
constexpr int kRetryMs = 1000;
constexpr int kMaxRetries = 600;

}  // namespace

AuditInbox::AuditInbox(QObject* parent) : SessionsFollower(parent) {}

int AuditInbox::count() const {
  int n = 0;
  for (const auto& [dir, c] : counts_) n += c.pending;
  return n;
}

int AuditInbox::sessionCount() const {
  int n = 0;
  for (const auto& [dir, c] : counts_) n += c.pending > 0 ? 1 : 0;
  return n;
}

int AuditInbox::pendingOf(const QString& dir) const {
  auto it = counts_.find(dir);
  return it == counts_.end() ? 0 : it->second.pending;
}

QString AuditInbox::projectLine(const QString& project) const {
  int pending = 0, sessions = 0;
  for (const auto& [dir, c] : counts_)
    if (c.pending > 0 && c.project == project) {
      pending += c.pending;
      ++sessions;
    }
  if (pending == 0) return {};
  return sessions == 1 ? tr("An agent left %n file(s) here that a tool on this machine would run: decide what to keep",
                            "", pending)
                       : tr("Agents left %n file(s) here that a tool on this machine would run (%1 sessions): "
                            "decide what to keep", "", pending).arg(sessions);
}

QString AuditInbox::projectSession(const QString& project) const {
  QString best, started;
  for (const auto& [dir, c] : counts_)
    if (c.pending > 0 && c.project == project && (best.isEmpty() || c.started > started)) {
      best = dir;
      started = c.started;
    }
  return best;
}

void AuditInbox::recount(const QString& dir) {
  if (counts_.count(dir)) count_dir(dir, false);
}

// An ended session that wrote a root directly is looked at once when first seen (announced if
// this inbox saw it run, or if it is audited only now); one that ended without start.json never
// again.
void AuditInbox::scan() {
  if (!sessions()) return;
  std::set<QString> present;
  for (const auto& r : sessions()->records()) {
    present.insert(r.dir);
    if (r.state == "running") {
      seen_running_.insert(r.dir);
      continue;
    }
    if (!ended(r.state) || plain_.count(r.dir) || counts_.count(r.dir)) continue;
    if (!QFileInfo::exists(QString::fromStdString(session::audit_start_file(r.dir.toStdString())))) {
      // Review mode, or an agent that never started: nothing written directly. A session still
      // starting looks abandoned until its control socket listens, and its helper writes
      // audit/start.json only after that: not judged until it has a report.
      if (r.state != "abandoned" && r.state != "ending" && r.state != "starting") plain_.insert(r.dir);
      continue;
    }
    counts_[r.dir] = Count{0, r.project, r.started};
    count_dir(r.dir, seen_running_.count(r.dir) > 0);
  }
  bool removed = false;
  for (auto it = counts_.begin(); it != counts_.end();) {
    if (present.count(it->first)) {
      ++it;
    } else {
      it = counts_.erase(it);
      removed = true;
    }
  }
  for (auto it = plain_.begin(); it != plain_.end();) it = present.count(*it) ? std::next(it) : plain_.erase(it);
  for (auto it = retries_.begin(); it != retries_.end();) it = present.count(it->first) ? std::next(it) : retries_.erase(it);
  if (removed) {
    ++revision_;
    emit changed();
  }
}

void AuditInbox::count_dir(const QString& dir, bool announce) {
  if (counting_.count(dir)) {
    again_.insert(dir);  // a decision made while the first look ran: look again after it
    return;
  }
  counting_.insert(dir);
  auto* watcher = new QFutureWatcher<Looked>(this);
  connect(watcher, &QFutureWatcher<Looked>::finished, this, [this, watcher, dir, announce] {
    watcher->deleteLater();
    counting_.erase(dir);
    auto it = counts_.find(dir);
    if (it == counts_.end()) return;  // the session went away meanwhile
    const Looked l = watcher->result();
    if (!l.audited && !again_.count(dir)) {
      // Its helper is still writing the audit (or a front end audits it): looked at again.
      counts_.erase(it);
      if (++retries_[dir] <= kMaxRetries) QTimer::singleShot(kRetryMs, this, &AuditInbox::scan);
      return;
    }
    retries_.erase(dir);
    it->second.pending = l.pending;
    ++revision_;
    emit changed();
    if ((announce || l.audited_now) && l.pending > 0) emit findingsReady(QFileInfo(dir).fileName(), dir, l.pending);
    if (again_.erase(dir)) count_dir(dir, false);
  });
  watcher->setFuture(QtConcurrent::run(&look, dir));
}

}  // namespace paddock::gui
