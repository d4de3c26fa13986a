#include "agents_model.h"

#include <QStandardPaths>

#include "app_paths.h"
#include "engine/tiers.h"

namespace paddock::gui {

int AgentsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant AgentsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& r = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case NameRole: return r.name;
    case CommandRole: return r.command;
    case PresetRole: return r.preset;
    case FoundRole: return r.found;
    case DetectedRole: return !r.found.isEmpty();
    case CustomRole: return r.custom;
    default: return {};
  }
}

QHash<int, QByteArray> AgentsModel::roleNames() const {
  return {{NameRole, "name"}, {CommandRole, "command"}, {PresetRole, "preset"}, {FoundRole, "found"},
          {DetectedRole, "detected"}, {CustomRole, "custom"}};
}

void AgentsModel::rebuild(const QString& path_env, const std::vector<AgentEntry>& custom) {
  setStatus(ModelStatus::Loading);
  const QStringList dirs = path_env.split(':', Qt::SkipEmptyParts);
  std::vector<AgentEntry> rows;
  std::vector<AgentEntry> missing;
  // The presets and the program each starts, as resources/agents says (custom has none: the
  // user's own commands below use it).
  const auto presets = agent_presets(AppPaths::resourcesDir().toStdString());
  if (!presets.ok()) {
    beginResetModel();
    rows_.clear();
    endResetModel();
    emit countChanged();
    setStatus(ModelStatus::Error, QString::fromStdString(presets.error().message));
    return;
  }
  for (const auto& p : *presets) {
    if (p.command.empty()) continue;
    const QString command = QString::fromStdString(p.command), name = QString::fromStdString(p.name);
    AgentEntry e{name, command, name, QStandardPaths::findExecutable(command, dirs), false};
    (e.found.isEmpty() ? missing : rows).push_back(e);
  }
  // Detected agents first; the others stay selectable (their policy can be prepared in advance).
  rows.insert(rows.end(), missing.begin(), missing.end());
  for (auto e : custom) {
    e.custom = true;
    e.preset = "custom";
    const QString program = e.command.section(' ', 0, 0, QString::SectionSkipEmpty);
    e.found = program.isEmpty() ? QString() : QStandardPaths::findExecutable(program, dirs);
    rows.push_back(e);
  }
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  emit countChanged();
  setStatus(ModelStatus::Ready);
}

int AgentsModel::indexOfName(const QString& name) const {
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].name == name) return static_cast<int>(i);
  return -1;
}

QString AgentsModel::presetAt(int row) const {
  return row >= 0 && row < rowCount() ? rows_[static_cast<size_t>(row)].preset : QString();
}

QString AgentsModel::commandOf(const QString& name) const {
  const int i = indexOfName(name);
  return i < 0 ? QString() : rows_[static_cast<size_t>(i)].command;
}

}  // namespace paddock::gui
