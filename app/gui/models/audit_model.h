// A direct-mode session's audit for its Audit tab (docs/audit.md): the files the agent left in
// the project for a tool on this machine to run, each with the tool and why, and what the user
// decided; Quarantine and Keep per finding do what `paddock quarantine|keep SESSION PATH` do
// (platform/audit/quarantine.h, the same functions). A session that ended without its helper is
// audited by the AuditInbox the first time the app sees it (off the UI thread); the tab reloads
// when the inbox says so. An audit that could not look at everything says which part was not
// audited and why, never an empty list.
#pragma once

#include <string>
#include <vector>

#include <QStringList>

#include "platform/audit/audit.h"
#include "status_list_model.h"

namespace paddock::gui {

class AuditModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString sessionDir READ sessionDir WRITE setSessionDir NOTIFY sessionDirChanged)
  // The session wrote part of the project directly (false: nothing to audit).
  Q_PROPERTY(bool direct READ direct NOTIFY summaryChanged)
  // The audit exists (false for a direct session that still runs).
  Q_PROPERTY(bool audited READ audited NOTIFY summaryChanged)
  Q_PROPERTY(bool complete READ complete NOTIFY summaryChanged)
  // Why part of the project was not audited, one sentence each.
  Q_PROPERTY(QStringList problems READ problems NOTIFY summaryChanged)
  Q_PROPERTY(int pendingCount READ pendingCount NOTIFY summaryChanged)
  // One plain sentence: what the audit found and what waits for a decision.
  Q_PROPERTY(QString summary READ summary NOTIFY summaryChanged)
  // What the last quarantine or keep did, in words.
  Q_PROPERTY(QString lastResult READ lastResult NOTIFY summaryChanged)

 public:
  enum Role { PathRole = Qt::UserRole + 1, RelPathRole, KindRole, TypeRole, ToolsRole, WhyRole, DecisionRole, DecisionTextRole };
  Q_ENUM(Role)

  explicit AuditModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString sessionDir() const { return dir_; }
  void setSessionDir(const QString& dir);
  bool direct() const { return loaded_.start.has_value(); }
  bool audited() const { return loaded_.record.has_value(); }
  bool complete() const { return !loaded_.record || loaded_.record->complete; }
  QStringList problems() const;
  int pendingCount() const { return static_cast<int>(loaded_.pending()); }
  QString summary() const;
  QString lastResult() const { return last_result_; }

  Q_INVOKABLE void refresh();
  Q_INVOKABLE bool quarantine(int row);
  Q_INVOKABLE bool keep(int row);
  // Every finding still waiting for a decision at once.
  Q_INVOKABLE bool quarantineAll();
  Q_INVOKABLE bool keepAll();

 signals:
  void sessionDirChanged();
  void summaryChanged();
  // A quarantine or keep changed what waits for a decision (the Home card and the badge recount).
  void decided();

 private:
  bool decide(int row, bool quarantine);
  bool decide_paths(const std::vector<std::string>& paths, bool quarantine);

  QString dir_;
  platform::LoadedAudit loaded_;
  QString last_result_;
};

}  // namespace paddock::gui
