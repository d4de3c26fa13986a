#include "review_model.h"

#include <QDir>
#include <QFileInfo>
#include <QtConcurrent>

#include <algorithm>

#include "../app_paths.h"
#include "engine/review/text_diff.h"
#include "platform/agent_state.h"
#include "platform/agent_state_review.h"
#include "platform/review/review_apply.h"

namespace paddock::gui {
namespace {

using review::Change;
using review::ChangeKind;
using review::EntryType;

QString q(const std::string& s) { return QString::fromStdString(s); }

bool within(const std::string& path, const std::string& root) {
  return !root.empty() && path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/';
}

// The path as the user reads it: relative to the project, "~/..." in the home directory.
QString shown(const std::string& path, const FrozenIr& ir) {
  if (within(path, ir.meta.project)) return q(path.substr(ir.meta.project.size() + 1));
  if (within(path, ir.meta.home)) return "~/" + q(path.substr(ir.meta.home.size() + 1));
  return q(path);
}

QString kind_word(const Change& c) {
  switch (c.kind) {
    case ChangeKind::kAdded: return QObject::tr("added");
    case ChangeKind::kModified: return QObject::tr("modified");
    case ChangeKind::kDeleted: return QObject::tr("deleted");
    case ChangeKind::kRenamed: return QObject::tr("renamed");
  }
  return {};
}

QString detail_of(const Change& c, const FrozenIr& ir) {
  QStringList parts;
  if (c.kind == ChangeKind::kRenamed) parts << QObject::tr("from %1").arg(shown(c.renamed_from, ir));
  if (c.after.type == EntryType::kSymlink) parts << QObject::tr("link to %1").arg(q(c.after.target));
  if (c.before.type != c.after.type && c.before.type != EntryType::kNone && c.after.type != EntryType::kNone)
    parts << QObject::tr("%1 becomes %2").arg(review::to_string(c.before.type), review::to_string(c.after.type));
  if (c.kind == ChangeKind::kModified && c.before.type == c.after.type && c.before.mode != c.after.mode)
    parts << QObject::tr("mode %1 → %2").arg(c.before.mode, 4, 8, QChar('0')).arg(c.after.mode, 4, 8, QChar('0'));
  if (c.binary) parts << QObject::tr("binary");
  if (c.after.type == EntryType::kFile) parts << QObject::tr("%n byte(s)", "", static_cast<int>(std::min<std::int64_t>(c.after.size, INT32_MAX)));
  return parts.join(" · ");
}

// Apply or discard in the agent's Paddock state, on a worker: listed afresh with the state's lock
// held (exclusive: refused while a session of the agent runs), as `paddock agent-state`.
QString act_on_agent_state(const QString& agent, bool apply, const std::vector<std::string>& paths) {
  const std::string resources = AppPaths::resourcesDir().toStdString();
  auto ir = platform::agent_state_ir(agent.toStdString(), "default", AppPaths::environment(), resources);
  if (!ir.ok()) return q(ir.error().message);
  auto v = platform::load_agent_state(*ir, resources, false);
  if (!v.ok()) return q(v.error().message);
  if (v->running) return QObject::tr("A session of %1 is running: apply or discard once it has ended.").arg(agent);
  if (!apply) {
    if (auto st = platform::reset_agent_state(v->state, paths); !st.ok()) return q(st.error().message);
    return QObject::tr("Dropped %n change(s) from %1's Paddock state.", "", static_cast<int>(paths.size())).arg(agent);
  }
  platform::ReviewSelection sel;
  sel.paths = paths;
  auto outcome = platform::apply_changes(v->state, v->changes, sel);
  if (!outcome.ok()) return q(outcome.error().message);
  // What now equals the user's copy leaves the state, so the user's later edits show through.
  if (auto st = platform::drop_applied(v->state, outcome->done); !st.ok()) return q(st.error().message);
  QString text = QObject::tr("Applied %n change(s) to your own copy.", "", static_cast<int>(outcome->done.size()));
  if (!outcome->skipped.empty())
    text += " " + QObject::tr("%n not applied: %1", "", static_cast<int>(outcome->skipped.size()))
                      .arg(q(outcome->skipped.front().first + ": " + outcome->skipped.front().second));
  return text;
}

}  // namespace

ReviewModel::ReviewModel(QObject* parent) : StatusListModel(parent) {
  poll_.setInterval(2000);
  connect(&poll_, &QTimer::timeout, this, &ReviewModel::refresh);
}

ReviewModel::~ReviewModel() {
  // A load still running finishes on its worker; its watcher is this object's child and goes with
  // it, so nothing is delivered to a deleted model.
  if (loading_) loading_->disconnect(this);
}

int ReviewModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }

QHash<int, QByteArray> ReviewModel::roleNames() const {
  return {{PathRole, "path"},       {RelPathRole, "relPath"}, {NameRole, "name"},         {DirRole, "dir"},
          {KindRole, "kind"},       {SectionRole, "section"}, {FlaggedRole, "flagged"},   {ReasonsRole, "reasons"},
          {ConflictRole, "conflict"}, {BinaryRole, "binary"}, {DetailRole, "detail"},     {CheckedRole, "picked"},
          {IsDirRole, "isDir"}};
}

QVariant ReviewModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size()) || !review_) return {};
  const Change& c = *rows_[static_cast<std::size_t>(index.row())];
  const FrozenIr& ir = review_->session.ir;
  const QString rel = shown(c.path, ir);
  switch (role) {
    case PathRole: return q(c.path);
    case RelPathRole: return rel;
    case NameRole: return rel.section('/', -1);
    case DirRole: return rel.contains('/') ? rel.section('/', 0, -2) : QString();
    case KindRole: return kind_word(c);
    case SectionRole:
      return c.flagged() ? tr("Flagged: each needs its own confirmation")
             : !c.conflict.empty() ? tr("Conflicts: changed on this machine meanwhile, never overwritten")
                                   : tr("Changes");
    case FlaggedRole: return c.flagged();
    case ReasonsRole: {
      QStringList lines;
      for (const auto& f : c.flags) lines << q(f.why);
      return lines.join("\n");
    }
    case ConflictRole: return q(c.conflict);
    case BinaryRole: return c.binary;
    case DetailRole: return detail_of(c, ir);
    case CheckedRole: return checked_.count(c.path) > 0;
    case IsDirRole: return c.after.type == EntryType::kDir || (c.kind == ChangeKind::kDeleted && c.before.type == EntryType::kDir);
  }
  return {};
}

void ReviewModel::setSessionDir(const QString& dir) {
  if (dir == dir_) return;
  dir_ = dir;
  reset_source();
}

void ReviewModel::setAgent(const QString& agent) {
  if (agent == agent_) return;
  agent_ = agent;
  reset_source();
}

void ReviewModel::reset_source() {
  ++generation_;
  beginResetModel();
  rows_.clear();
  review_.reset();
  checked_.clear();
  endResetModel();
  review_mode_ = false;
  flagged_ = conflicts_ = safe_ = 0;
  summary_.clear();
  commits_.clear();
  last_result_.clear();
  emit sessionDirChanged();
  emit summaryChanged();
  emit checkedChanged();
  emit countChanged();
  refresh();
}

void ReviewModel::setRunning(bool on) {
  if (on == running_) return;
  running_ = on;
  if (running_) poll_.start();
  else poll_.stop();
  emit runningChanged();
  refresh();  // the last look once it has ended
}

ReviewModel::Loaded ReviewModel::load(const QString& dir, bool running, const QString& agent) {
  Loaded out;
  if (!agent.isEmpty()) {
    const std::string resources = AppPaths::resourcesDir().toStdString();
    auto ir = platform::agent_state_ir(agent.toStdString(), "default", AppPaths::environment(), resources);
    if (!ir.ok()) {
      out.error = q(ir.error().message);
      return out;
    }
    auto v = platform::load_agent_state(*ir, resources, false);
    if (v.ok()) {
      out.agent_running = v->running;
      out.review = platform::LoadedReview{std::move(v->state), std::move(v->changes)};
    } else if (v.error().code == ErrorCode::kNotFound) {
      out.not_review = true;
    } else {
      out.error = q(v.error().message);
    }
    return out;
  }
  if (dir.isEmpty()) {
    out.not_review = true;
    return out;
  }
  const std::string id = QFileInfo(dir).fileName().toStdString();
  auto r = platform::load_review(dir.toStdString(), id, AppPaths::resourcesDir().toStdString(), running);
  if (r.ok()) out.review = std::move(*r);
  else if (r.error().code == ErrorCode::kNotFound) out.not_review = true;
  else out.error = q(r.error().message);
  return out;
}

void ReviewModel::refresh() {
  if (loading_) {
    load_again_ = true;
    return;
  }
  if (dir_.isEmpty() && agent_.isEmpty()) {
    setStatus(ModelStatus::None);
    return;
  }
  if (!review_) setStatus(ModelStatus::Loading);
  loading_ = new QFutureWatcher<Loaded>(this);
  const int generation = generation_;
  connect(loading_, &QFutureWatcher<Loaded>::finished, this, [this, generation] {
    auto* w = std::exchange(loading_, nullptr);
    w->deleteLater();
    if (generation == generation_) take(w->result());
    if (std::exchange(load_again_, false)) refresh();
  });
  loading_->setFuture(QtConcurrent::run(&ReviewModel::load, dir_, running_, agent_));
}

void ReviewModel::take(Loaded loaded) {
  beginResetModel();
  rows_.clear();
  review_ = std::move(loaded.review);
  flagged_ = conflicts_ = safe_ = 0;
  commits_.clear();
  if (review_) {
    std::vector<const Change*> flagged, conflict, safe;
    for (const auto& c : review_->changes.changes) {
      if (!c.pending()) continue;
      if (c.flagged()) flagged.push_back(&c);
      else if (!c.conflict.empty()) conflict.push_back(&c);
      else safe.push_back(&c);
    }
    flagged_ = static_cast<int>(flagged.size());
    conflicts_ = static_cast<int>(conflict.size());
    safe_ = static_cast<int>(safe.size());
    for (auto* v : {&flagged, &conflict, &safe}) rows_.insert(rows_.end(), v->begin(), v->end());
    for (const auto& o : review_->changes.commits) {
      QVariantList list;
      for (const auto& c : o.commits) list << QVariantMap{{"id", q(c.id.substr(0, 12))}, {"subject", q(c.subject)}};
      commits_ << QVariantMap{{"ref", q(o.ref)}, {"repo", shown(o.repo, review_->session.ir)}, {"commits", list},
                              {"fastForward", o.fast_forward}, {"problem", q(o.problem)}};
    }
  }
  // Checks survive a reload for the changes that are still there.
  std::set<std::string> still;
  for (const auto* c : rows_)
    if (checked_.count(c->path)) still.insert(c->path);
  checked_ = std::move(still);
  endResetModel();
  review_mode_ = review_.has_value();
  agent_running_ = loaded.agent_running;
  if (!agent_.isEmpty()) {
    if (!review_)
      summary_ = loaded.not_review ? tr("%1 has no Paddock state yet: its first session in Paddock makes one.").arg(agent_)
                                   : loaded.error;
    else if (rows_.empty())
      summary_ = tr("Nothing in %1's Paddock state differs from your own copy.").arg(agent_);
    else
      summary_ = tr("%n change(s) in %1's Paddock state differ from your own copy: none reaches it until you apply "
                    "it.", "", pendingCount()).arg(agent_);
    if (review_ && flagged_ > 0) summary_ += " " + tr("%n flagged: a tool on your machine would run it.", "", flagged_);
    if (review_ && conflicts_ > 0) summary_ += " " + tr("%n you changed in your own copy meanwhile.", "", conflicts_);
    if (agent_running_) summary_ += " " + tr("A session of %1 is running: apply or discard once it has ended.").arg(agent_);
  } else if (!review_) {
    summary_ = loaded.not_review ? tr("This session ran without review: its changes went to the project directly.")
                                 : loaded.error;
  } else if (rows_.empty()) {
    summary_ = running_ ? tr("No changes yet: what the agent writes is held here until you apply it.")
               : review_->session.has_layers() ? tr("Nothing left to review.")
                                               : tr("Reviewed: everything was applied or discarded.");
  } else {
    summary_ = tr("%n change(s) held for review: nothing reached the project yet.", "", pendingCount());
    if (flagged_ > 0) summary_ += " " + tr("%n flagged: a tool on your machine would run it.", "", flagged_);
    if (conflicts_ > 0) summary_ += " " + tr("%n changed on this machine meanwhile.", "", conflicts_);
  }
  if (review_ && review_->changes.interrupted_apply)
    summary_ += " " + tr("An apply did not finish: applying again finishes it (every file is old or new).");
  setStatus(review_ || loaded.not_review ? ModelStatus::Ready : ModelStatus::Error, loaded.error);
  emit summaryChanged();
  emit checkedChanged();
  emit countChanged();
}

void ReviewModel::setChecked(int row, bool on) {
  if (row < 0 || row >= static_cast<int>(rows_.size())) return;
  const std::string& p = rows_[static_cast<std::size_t>(row)]->path;
  if (on == (checked_.count(p) > 0)) return;
  if (on) checked_.insert(p);
  else checked_.erase(p);
  emit dataChanged(index(row), index(row), {CheckedRole});
  emit checkedChanged();
}

QVariantMap ReviewModel::diffOf(int row) const {
  QVariantMap out;
  if (!review_ || row < 0 || row >= static_cast<int>(rows_.size())) return out;
  const Change& c = *rows_[static_cast<std::size_t>(row)];
  out["binary"] = c.binary;
  out["conflict"] = q(c.conflict);
  if (c.binary || (c.before.type != EntryType::kFile && c.after.type != EntryType::kFile)) return out;
  auto before = platform::read_change_side(review_->session, c, false);
  auto after = platform::read_change_side(review_->session, c, true);
  if (!before.ok() || !after.ok()) {
    out["error"] = q((before.ok() ? after.error() : before.error()).message);
    return out;
  }
  out["before"] = q(*before);
  out["after"] = q(*after);
  const auto d = review::diff_lines(*before, *after);
  out["tooLarge"] = d.too_large;
  QVariantList lines;
  for (const auto& h : d.hunks) {
    lines << QVariantMap{{"op", "@"}, {"text", QString("@@ -%1,%2 +%3,%4 @@").arg(h.old_start).arg(h.old_count).arg(h.new_start).arg(h.new_count)}};
    for (const auto& l : h.lines) lines << QVariantMap{{"op", QString(QChar(l.op))}, {"text", q(l.text)}};
  }
  out["lines"] = lines;
  out["unified"] = q(review::unified(d, "a/" + shown(c.path, review_->session.ir).toStdString(),
                                     "b/" + shown(c.path, review_->session.ir).toStdString()));
  return out;
}

bool ReviewModel::act(bool apply, std::vector<std::string> paths, bool all_safe) {
  if (busy_ || (dir_.isEmpty() && agent_.isEmpty()) || !review_) return false;
  if (!all_safe && paths.empty()) return false;
  // The agent's state: discarding all drops the listed changes only (its own history, logins and
  // caches stay), as `paddock agent-state reset AGENT PATH...`.
  if (!agent_.isEmpty() && !apply && paths.empty())
    for (const auto* c : rows_) paths.push_back(c->path);
  if (!agent_.isEmpty() && !apply && paths.empty()) return false;
  busy_ = true;
  last_result_.clear();
  emit busyChanged();
  const QString dir = dir_;
  const QString agent = agent_;
  const bool running = running_;
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
    watcher->deleteLater();
    busy_ = false;
    last_result_ = watcher->result();
    emit busyChanged();
    refresh();
  });
  if (!agent.isEmpty()) {
    watcher->setFuture(QtConcurrent::run([agent, apply, paths = std::move(paths)]() -> QString {
      return act_on_agent_state(agent, apply, paths);
    }));
    return true;
  }
  watcher->setFuture(QtConcurrent::run([dir, running, apply, paths = std::move(paths)]() -> QString {
    // Listed afresh: the decision is made on what the session holds now.
    Loaded l = load(dir, running, {});
    if (!l.review) return l.error.isEmpty() ? tr("This session has nothing to review.") : l.error;
    platform::ReviewSelection sel;
    sel.paths = paths;
    auto outcome = apply ? platform::apply_changes(l.review->session, l.review->changes, sel, nullptr, platform::LayerUse::kOnce)
                         : platform::discard_changes(l.review->session, l.review->changes, sel);
    if (!outcome.ok()) return q(outcome.error().message);
    QString text = apply ? tr("Applied %n change(s).", "", static_cast<int>(outcome->done.size()))
                         : tr("Discarded %n change(s).", "", static_cast<int>(outcome->done.size()));
    int conflicts = 0, flagged = 0, other = 0;
    for (const auto& [p, why] : outcome->skipped) {
      if (why.rfind("conflict", 0) == 0) ++conflicts;
      else if (why.rfind("flagged", 0) == 0) ++flagged;
      else ++other;
    }
    if (flagged) text += " " + tr("%n flagged change(s) wait for their own confirmation.", "", flagged);
    if (conflicts) text += " " + tr("%n conflict(s) left as they are.", "", conflicts);
    if (other) text += " " + tr("%n not applied: %1", "", other).arg(q(outcome->skipped.front().second));
    if (outcome->freed) text += " " + tr("Nothing is left to review.");
    return text;
  }));
  return true;
}

bool ReviewModel::applySafe() { return act(true, {}, true); }

bool ReviewModel::applyChecked() {
  std::vector<std::string> paths;
  for (const auto* c : rows_)
    if (checked_.count(c->path) && !c->flagged() && c->conflict.empty()) paths.push_back(c->path);
  return act(true, std::move(paths), false);
}

bool ReviewModel::applyOne(int row) {
  if (row < 0 || row >= static_cast<int>(rows_.size())) return false;
  return act(true, {rows_[static_cast<std::size_t>(row)]->path}, false);
}

bool ReviewModel::discardChecked() {
  std::vector<std::string> paths(checked_.begin(), checked_.end());
  return act(false, std::move(paths), false);
}

bool ReviewModel::discardAll() { return act(false, {}, true); }

}  // namespace paddock::gui
