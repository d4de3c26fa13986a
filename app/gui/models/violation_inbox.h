// The violation inbox: the requests the broker denied, grouped by host (across the sessions it
// is given), each with a one-click fix that is a reviewed diff: "allow HOST in TIER" opens that
// tier's layer file in a LayerDocument, adds the domain with the same minimal text edit the form
// uses (comments and keys the app does not know stay as they were), shows the diff, and saves
// atomically only when the user confirms — and only if the file did not change in between. An
// ask can be answered the same way (proposeDomain).
//
// Each denied host also says whether the project's saved policy allows it now (a fix saved
// here or anywhere else): the project is evaluated off the UI thread, as `paddock explain`
// would, and the row names the file that allows it instead of offering Allow… again.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include <QAbstractListModel>
#include <QStringList>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include "engine/engine.h"
#include "layer_document.h"

namespace paddock::gui {

class ViolationInbox : public QAbstractListModel {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QStringList sessionDirs READ sessionDirs WRITE setSessionDirs NOTIFY sessionDirsChanged)
  Q_PROPERTY(int count READ count NOTIFY countChanged)
  // The fix waiting for review: {host, tier, file, diff, error, approvalNeeded}.
  Q_PROPERTY(QVariantMap pending READ pending NOTIFY pendingChanged)
  // The last fix saved: {host, file, approvalNeeded} ({} once dismissed), for the confirmation.
  Q_PROPERTY(QVariantMap lastSaved READ lastSaved NOTIFY lastSavedChanged)

 public:
  // AllowedByRole: the file whose saved policy allows the host now ("" = not allowed, or not
  // known yet).
  enum Role { HostRole = Qt::UserRole + 1, PortsRole, CountRole, RuleRole, ReasonRole, ProjectRole, LastSeenRole,
              AllowedByRole };
  Q_ENUM(Role)

  explicit ViolationInbox(QObject* parent = nullptr);
  ~ViolationInbox() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QStringList sessionDirs() const { return dirs_; }
  void setSessionDirs(const QStringList& dirs);
  int count() const { return rowCount(); }
  QVariantMap pending() const { return pending_; }
  QVariantMap lastSaved() const { return last_saved_; }

  Q_INVOKABLE void reload();
  // reload(), and the saved policies are evaluated again (a file may have changed elsewhere).
  Q_INVOKABLE void refresh();
  Q_INVOKABLE void dismissLastSaved();
  // The tiers a fix can go to, with their files for `project`: [{tier, label, file}].
  Q_INVOKABLE static QVariantList fixTiers(const QString& project);
  // Prepares "allow `host` in `tier`" for the project of row `row` (or of `project`) as a diff.
  Q_INVOKABLE bool proposeFix(int row, const QString& tier);
  Q_INVOKABLE bool proposeDomain(const QString& host, const QString& project, const QString& tier);
  // Saves the reviewed edit atomically; "" or why not (the file changed since the review, ...).
  Q_INVOKABLE QString applyPending();
  Q_INVOKABLE void discardPending();

  // A line diff of two texts: "  same", "- removed", "+ added" (small files: a plain LCS).
  static QStringList lineDiff(const QString& before, const QString& after);

 signals:
  void sessionDirsChanged();
  void countChanged();
  void pendingChanged();
  void lastSavedChanged();
  // A fix was saved: the composer re-evaluates, the page says so.
  void fixSaved(const QString& file, const QString& host);

 private:
  struct Group {
    QString host, rule, reason, project, agent, lastSeen;
    QList<int> ports;
    int count = 0;
  };
  void setPendingError(const QString& host, const QString& tier, const QString& error);
  // The saved policy of (project, agent), evaluated once per refresh on a worker.
  struct Policy {
    bool evaluating = false;
    std::shared_ptr<const Evaluation> evaluation;  // null: not evaluated, or it failed
  };
  void evaluatePolicies();
  QString allowedBy(const Group& g) const;
  std::map<QString, Policy> policies_;  // by project + '\n' + agent
  int policy_generation_ = 0;           // a refresh drops the results of earlier runs
  QVariantMap last_saved_;

  QStringList dirs_;
  std::vector<Group> rows_;
  QVariantMap pending_;
  std::unique_ptr<LayerDocument> doc_;
  QByteArray before_;   // the file's bytes when the fix was prepared ("" = no file)
  bool existed_ = false;
};

}  // namespace paddock::gui
