#include "review_inbox.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>

#include "../app_paths.h"
#include "engine/session/review_record.h"
#include "platform/review/review_session.h"

namespace paddock::gui {
namespace {

struct Counted {
  int pending = 0, flagged = 0;
};

Counted count_changes(const QString& dir, bool running) {
  Counted c;
  auto r = platform::load_review(dir.toStdString(), QFileInfo(dir).fileName().toStdString(),
                                 AppPaths::resourcesDir().toStdString(), running);
  if (!r.ok()) return c;
  c.pending = static_cast<int>(r->changes.pending_count());
  c.flagged = static_cast<int>(r->changes.flagged_pending_count());
  return c;
}

}  // namespace

ReviewInbox::ReviewInbox(QObject* parent) : SessionsFollower(parent) {}

int ReviewInbox::sessionCount() const {
  int n = 0;
  for (const auto& [dir, c] : counts_) n += !c.running && c.pending > 0 ? 1 : 0;
  return n;
}

int ReviewInbox::count() const {
  int n = 0;
  for (const auto& [dir, c] : counts_) n += c.running ? 0 : c.pending;
  return n;
}

int ReviewInbox::pendingOf(const QString& dir) const {
  auto it = counts_.find(dir);
  return it == counts_.end() ? 0 : it->second.pending;
}

int ReviewInbox::flaggedOf(const QString& dir) const {
  auto it = counts_.find(dir);
  return it == counts_.end() ? 0 : it->second.flagged;
}

void ReviewInbox::recount(const QString& dir) {
  auto it = counts_.find(dir);
  count_dir(dir, it != counts_.end() && it->second.running, false);
}

// Every review-mode session is counted once it is seen, and again when it ends (announced if this
// inbox saw it run).
void ReviewInbox::scan() {
  if (!sessions()) return;
  std::set<QString> present;
  for (const auto& r : sessions()->records()) {
    present.insert(r.dir);
    const bool running = r.state == "running";
    if (plain_.count(r.dir)) continue;
    // roots.json is written before the sandbox starts: a session that ended (with its report)
    // without one ran in direct mode. One just created has neither yet: looked at again later.
    if (!QFileInfo::exists(QString::fromStdString(session::review_roots_file(r.dir.toStdString())))) {
      if (r.state == "exited" || r.state == "failed" || r.state == "timeout" || r.state == "stopped") plain_.insert(r.dir);
      continue;
    }
    auto it = counts_.find(r.dir);
    if (running) seen_running_.insert(r.dir);
    if (it == counts_.end()) {
      counts_[r.dir] = Count{0, 0, running};
      count_dir(r.dir, running, false);
    } else if (running && !it->second.running) {
      it->second.running = true;  // first seen while it was starting up
    } else if (it->second.running && !running) {
      it->second.running = false;
      count_dir(r.dir, false, seen_running_.count(r.dir) > 0);
    }
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
  if (removed) emit changed();
}

void ReviewInbox::count_dir(const QString& dir, bool running, bool announce) {
  if (auto busy = counting_.find(dir); busy != counting_.end()) {
    // A count is under way (of the session while it ran): another follows it, announcing if asked.
    busy->second.pending = true;
    busy->second.announce = busy->second.announce || announce;
    return;
  }
  counting_[dir] = {};
  auto* watcher = new QFutureWatcher<Counted>(this);
  connect(watcher, &QFutureWatcher<Counted>::finished, this, [this, watcher, dir, running, announce] {
    watcher->deleteLater();
    const Again again = counting_[dir];
    counting_.erase(dir);
    auto it = counts_.find(dir);
    if (it == counts_.end()) return;  // the session went away meanwhile
    const Counted c = watcher->result();
    it->second.pending = c.pending;
    it->second.flagged = c.flagged;
    emit changed();
    if (again.pending) {
      count_dir(dir, it->second.running, again.announce);
      return;
    }
    if (announce && !running && c.pending > 0) emit reviewReady(QFileInfo(dir).fileName(), dir, c.pending, c.flagged);
  });
  watcher->setFuture(QtConcurrent::run(&count_changes, dir, running));
}

}  // namespace paddock::gui
