// Agents: the built-in presets with the command each one runs, detected on PATH, plus custom
// commands the user added (they use the `custom` agent preset).
#pragma once

#include <vector>

#include "status_list_model.h"

namespace paddock::gui {

struct AgentEntry {
  QString name;     // shown, and for presets the agent preset id
  QString command;  // program name or custom command line
  QString preset;   // agent preset passed to the engine (claude-code, ..., custom)
  QString found;    // absolute path found on PATH, "" when not found
  bool custom = false;
};

class AgentsModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by Workspace")

 public:
  enum Role { NameRole = Qt::UserRole + 1, CommandRole, PresetRole, FoundRole, DetectedRole, CustomRole };
  Q_ENUM(Role)

  using StatusListModel::StatusListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  // Re-detects presets on `path_env` (a PATH value) and appends the custom entries.
  void rebuild(const QString& path_env, const std::vector<AgentEntry>& custom);
  const std::vector<AgentEntry>& entries() const { return rows_; }
  Q_INVOKABLE int indexOfName(const QString& name) const;
  Q_INVOKABLE QString presetAt(int row) const;
  // The command an agent runs: its program (or the custom command line); "" for no such agent.
  Q_INVOKABLE QString commandOf(const QString& name) const;

 private:
  std::vector<AgentEntry> rows_;
};

}  // namespace paddock::gui
