// A review-mode session's changes for its Review tab (docs/review.md): the same change set as
// `paddock review` (platform/review), flagged changes first with their reasons, then conflicts,
// then the safe ones; per-file diffs; apply selected, apply all safe, apply one flagged change
// after its own confirmation, discard. Loading and applying run on a worker thread; while the
// session runs the set is read again every two seconds, so its changes appear as they are made.
// With `agent` set instead of a session, the same view shows what the agent changed in its
// Paddock-owned state against the user's own copy (docs/agents.md, "Bringing a change out"):
// apply brings a change out to the user's copy, discard drops the agent's version (`paddock
// agent-state apply|reset`).
#pragma once

#include <memory>
#include <optional>
#include <set>

#include <QFutureWatcher>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>

#include "platform/review/review_session.h"
#include "status_list_model.h"

namespace paddock::gui {

class ReviewModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString sessionDir READ sessionDir WRITE setSessionDir NOTIFY sessionDirChanged)
  // An agent preset's name: its Paddock state is the change set (sessionDir stays empty).
  Q_PROPERTY(QString agent READ agent WRITE setAgent NOTIFY sessionDirChanged)
  // The session still runs: its changes may still grow (set by the session view).
  Q_PROPERTY(bool running READ running WRITE setRunning NOTIFY runningChanged)
  // The session ran in review mode (false: its changes went to the project directly).
  Q_PROPERTY(bool reviewMode READ reviewMode NOTIFY summaryChanged)
  Q_PROPERTY(int pendingCount READ pendingCount NOTIFY summaryChanged)
  Q_PROPERTY(int flaggedCount READ flaggedCount NOTIFY summaryChanged)
  Q_PROPERTY(int conflictCount READ conflictCount NOTIFY summaryChanged)
  Q_PROPERTY(int safeCount READ safeCount NOTIFY summaryChanged)
  Q_PROPERTY(int checkedCount READ checkedCount NOTIFY checkedChanged)
  // One plain sentence: what is held, what was decided.
  Q_PROPERTY(QString summary READ summary NOTIFY summaryChanged)
  // [{ref, repo, commits: [{id, subject}], fastForward, problem}]
  Q_PROPERTY(QVariantList commits READ commits NOTIFY summaryChanged)
  // An apply or discard is under way.
  Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
  // What the last apply or discard did, in words.
  Q_PROPERTY(QString lastResult READ lastResult NOTIFY busyChanged)

 public:
  enum Role {
    PathRole = Qt::UserRole + 1, RelPathRole, NameRole, DirRole, KindRole, SectionRole, FlaggedRole, ReasonsRole,
    ConflictRole, BinaryRole, DetailRole, CheckedRole, IsDirRole
  };
  Q_ENUM(Role)

  explicit ReviewModel(QObject* parent = nullptr);
  ~ReviewModel() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString sessionDir() const { return dir_; }
  void setSessionDir(const QString& dir);
  QString agent() const { return agent_; }
  void setAgent(const QString& agent);
  bool running() const { return running_; }
  void setRunning(bool on);
  bool reviewMode() const { return review_mode_; }
  int pendingCount() const { return static_cast<int>(rows_.size()); }
  int flaggedCount() const { return flagged_; }
  int conflictCount() const { return conflicts_; }
  int safeCount() const { return safe_; }
  int checkedCount() const { return static_cast<int>(checked_.size()); }
  QString summary() const { return summary_; }
  QVariantList commits() const { return commits_; }
  bool busy() const { return busy_; }
  QString lastResult() const { return last_result_; }

  Q_INVOKABLE void refresh();
  Q_INVOKABLE void setChecked(int row, bool on);
  // {unified, before, after, binary, tooLarge, conflict, lines: [{op, text}]} of a file's change.
  Q_INVOKABLE QVariantMap diffOf(int row) const;
  // Every pending change that is neither flagged nor in conflict.
  Q_INVOKABLE bool applySafe();
  // The checked changes that are neither flagged nor in conflict (a flagged one: applyOne).
  Q_INVOKABLE bool applyChecked();
  // One change, flagged ones included: the view asks for its own confirmation first.
  Q_INVOKABLE bool applyOne(int row);
  Q_INVOKABLE bool discardChecked();
  Q_INVOKABLE bool discardAll();

 signals:
  void sessionDirChanged();
  void runningChanged();
  void summaryChanged();
  void checkedChanged();
  void busyChanged();

 private:
  struct Loaded {
    std::optional<platform::LoadedReview> review;  // empty: not a review session, or an error
    bool not_review = false;
    bool agent_running = false;  // agent state: a session of the agent runs
    QString error;
  };
  // `agent` non-empty: the agent's Paddock state, else the session in `dir`.
  static Loaded load(const QString& dir, bool running, const QString& agent);
  void reset_source();
  void take(Loaded loaded);
  bool act(bool apply, std::vector<std::string> paths, bool all_safe);

  QString dir_;
  QString agent_;
  bool agent_running_ = false;
  bool running_ = false;
  bool review_mode_ = false;
  std::optional<platform::LoadedReview> review_;
  std::vector<const review::Change*> rows_;  // into review_->changes, in display order
  std::set<std::string> checked_;            // by path, kept across reloads
  int flagged_ = 0, conflicts_ = 0, safe_ = 0;
  QString summary_;
  QVariantList commits_;
  bool busy_ = false;
  QString last_result_;
  QFutureWatcher<Loaded>* loading_ = nullptr;
  bool load_again_ = false;
  int generation_ = 0;
  QTimer poll_;
};

}  // namespace paddock::gui
