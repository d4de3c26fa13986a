#include "audit_model.h"

#include <QFileInfo>

#include "app_paths.h"
#include "engine/session/layout.h"
#include "platform/audit/quarantine.h"

namespace paddock::gui {
namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

Result<session::Layout> layout() { return session::from_env(AppPaths::environment()); }

}  // namespace

AuditModel::AuditModel(QObject* parent) : StatusListModel(parent) {}

int AuditModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !loaded_.record ? 0 : static_cast<int>(loaded_.record->findings.size());
}

QVariant AuditModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const session::AuditFinding& f = loaded_.record->findings[static_cast<std::size_t>(index.row())];
  const session::AuditDecisionRecord* d = loaded_.state.find(f.path);
  switch (role) {
    case Qt::DisplayRole:
    case PathRole: return q(f.path);
    case RelPathRole: {
      const std::string project = loaded_.start ? loaded_.start->project : std::string();
      QString rel = !project.empty() && f.path.rfind(project + "/", 0) == 0 ? q(f.path.substr(project.size() + 1)) : q(f.path);
      return f.type == "dir" ? rel + "/" : rel;
    }
    case KindRole: return QString::fromLatin1(session::to_string(f.kind));
    case TypeRole: return q(f.type);
    case ToolsRole: {
      QStringList tools;
      for (const auto& x : f.flags)
        if (!x.tool.empty() && !tools.contains(q(x.tool))) tools << q(x.tool);
      return tools.join(", ");
    }
    case WhyRole: {
      QStringList why;
      for (const auto& x : f.flags) why << q(x.why);
      return why.join("\n");
    }
    case DecisionRole: return d ? QString::fromLatin1(session::to_string(d->decision)) : QString();
    case DecisionTextRole:
      if (!d) return tr("Waiting for your decision");
      if (d->decision == session::AuditDecision::kKept) return tr("Kept");
      return d->restored ? tr("Quarantined; its content before the session was put back")
                         : tr("Quarantined to %1").arg(dir_ + "/audit/" + q(d->moved_to));
    default: return {};
  }
}

QHash<int, QByteArray> AuditModel::roleNames() const {
  return {{PathRole, "path"}, {RelPathRole, "relPath"}, {KindRole, "kind"}, {TypeRole, "type"},
          {ToolsRole, "tools"}, {WhyRole, "why"}, {DecisionRole, "decision"}, {DecisionTextRole, "decisionText"}};
}

void AuditModel::setSessionDir(const QString& dir) {
  if (dir == dir_) return;
  dir_ = dir;
  last_result_.clear();
  emit sessionDirChanged();
  refresh();
}

QStringList AuditModel::problems() const {
  QStringList out;
  if (loaded_.record)
    for (const auto& p : loaded_.record->problems) out << q(p);
  if (!loaded_.problem.empty()) out << q(loaded_.problem);
  return out;
}

QString AuditModel::summary() const {
  if (!loaded_.problem.empty()) return tr("The audit's records do not read: %1").arg(q(loaded_.problem));
  if (!loaded_.start) return tr("This session wrote no folder directly: nothing to audit.");
  if (!loaded_.record) return tr("Audited when the session ends.");
  const int n = static_cast<int>(loaded_.record->findings.size());
  QString s = n == 0 ? tr("The agent left nothing for a tool on this machine to run.")
                     : tr("The agent left %n file(s) that a tool on this machine would run.", "", n);
  if (pendingCount() > 0) s += " " + tr("%n wait(s) for your decision.", "", pendingCount());
  if (!loaded_.record->complete) s += " " + tr("Part of the project was not audited.");
  return s;
}

void AuditModel::refresh() {
  beginResetModel();
  loaded_ = dir_.isEmpty() ? platform::LoadedAudit{} : platform::load_audit(dir_.toStdString());
  endResetModel();
  const QString error = q(loaded_.problem);
  setStatus(dir_.isEmpty() ? ModelStatus::None : error.isEmpty() ? ModelStatus::Ready : ModelStatus::Error, error);
  emit countChanged();
  emit summaryChanged();
}

bool AuditModel::quarantine(int row) { return decide(row, true); }
bool AuditModel::keep(int row) { return decide(row, false); }

bool AuditModel::quarantineAll() { return pendingCount() > 0 && decide_paths({}, true); }
bool AuditModel::keepAll() {
  // keep_findings with no path keeps nothing: name every finding still waiting.
  std::vector<std::string> paths;
  if (loaded_.record)
    for (const auto& f : loaded_.record->findings)
      if (!loaded_.state.find(f.path)) paths.push_back(f.path);
  return !paths.empty() && decide_paths(paths, false);
}

bool AuditModel::decide(int row, bool quarantine) {
  if (row < 0 || row >= rowCount()) return false;
  return decide_paths({loaded_.record->findings[static_cast<std::size_t>(row)].path}, quarantine);
}

// `paths` empty: every finding still waiting (quarantine only).
bool AuditModel::decide_paths(const std::vector<std::string>& paths, bool quarantine) {
  auto l = layout();
  if (!l.ok()) {
    last_result_ = q(l.error().message);
    emit summaryChanged();
    return false;
  }
  const std::string id = QFileInfo(dir_).fileName().toStdString();
  auto out = quarantine ? platform::quarantine_findings(*l, id, paths) : platform::keep_findings(*l, id, paths);
  if (!out.ok()) {
    last_result_ = q(out.error().message);
  } else if (!out->skipped.empty()) {
    last_result_ = (quarantine ? tr("Not quarantined: %1: %2") : tr("Not kept: %1: %2"))
                       .arg(q(out->skipped.front().first), q(out->skipped.front().second));
  } else if (out->done.size() == 1) {
    last_result_ = (quarantine ? tr("Quarantined %1") : tr("Kept %1")).arg(q(out->done.front()));
  } else {
    last_result_ = quarantine ? tr("Quarantined %n finding(s)", "", static_cast<int>(out->done.size()))
                              : tr("Kept %n finding(s)", "", static_cast<int>(out->done.size()));
  }
  refresh();
  emit decided();
  return out.ok() && out->skipped.empty();
}

}  // namespace paddock::gui
