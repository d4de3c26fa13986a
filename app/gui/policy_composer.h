// The profile composer's engine room: evaluates (project, agent, unsaved editor text) with
// paddock::evaluate — the same function `paddock explain` uses — OFF the UI thread, debounced,
// one run at a time, and discards stale results by generation. It feeds the tier stack, IR,
// Diff (vs. the last saved state), Capabilities, Warnings and Why views.
//
// Two evaluations, one meaning each: the live one (the editor's unsaved text as an overlay) is
// what the panes show while typing; the saved one (the files as they are on disk, what `paddock
// explain` and `paddock run` read) is the Diff's baseline and the only source of the tier
// stack's approval and signature states. The layer files, their signatures and the approvals
// file are watched: a change on disk by anyone evaluates the saved state again.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <QByteArray>
#include <QFileSystemWatcher>
#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include "capability_model.h"
#include "diff_model.h"
#include "engine/engine.h"
#include "layer_document.h"
#include "summary_model.h"
#include "model_status.h"
#include "tier_stack_model.h"
#include "warnings_model.h"

namespace paddock::gui {

class PolicyComposer : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString project READ project WRITE setProject NOTIFY inputsChanged)
  Q_PROPERTY(QString agent READ agent WRITE setAgent NOTIFY inputsChanged)
  // The launch's --review (the project's choice), so that the summary says what would run.
  Q_PROPERTY(bool review READ review WRITE setReview NOTIFY inputsChanged)
  Q_PROPERTY(paddock::gui::LayerDocument* document READ document WRITE setDocument NOTIFY inputsChanged)
  Q_PROPERTY(int debounceMs READ debounceMs WRITE setDebounceMs NOTIFY inputsChanged)
  Q_PROPERTY(paddock::gui::ModelStatus::Value status READ status NOTIFY evaluated)
  Q_PROPERTY(QString errorString READ errorString NOTIFY evaluated)
  Q_PROPERTY(QString errorFile READ errorFile NOTIFY evaluated)
  Q_PROPERTY(int errorLine READ errorLine NOTIFY evaluated)
  Q_PROPERTY(int errorColumn READ errorColumn NOTIFY evaluated)
  Q_PROPERTY(QString irJson READ irJson NOTIFY evaluated)
  Q_PROPERTY(QString irHash READ irHash NOTIFY evaluated)
  Q_PROPERTY(QString baselineHash READ baselineHash NOTIFY evaluated)
  Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
  Q_PROPERTY(int generation READ generation NOTIFY evaluated)
  Q_PROPERTY(double lastEvalMs READ lastEvalMs NOTIFY evaluated)
  Q_PROPERTY(paddock::gui::TierStackModel* layers READ layers CONSTANT)
  Q_PROPERTY(paddock::gui::DiffModel* diff READ diff CONSTANT)
  Q_PROPERTY(paddock::gui::CapabilityModel* capabilities READ capabilities CONSTANT)
  Q_PROPERTY(paddock::gui::WarningsModel* warnings READ warnings CONSTANT)
  Q_PROPERTY(paddock::gui::SummaryModel* summary READ summary CONSTANT)
  // The agent's data directory ($AGENT) when the live IR names one that does not exist.
  Q_PROPERTY(QString missingAgentDir READ missingAgentDir NOTIFY evaluated)

 public:
  explicit PolicyComposer(QObject* parent = nullptr);
  ~PolicyComposer() override;

  QString project() const { return project_; }
  void setProject(const QString& p);
  QString agent() const { return agent_; }
  void setAgent(const QString& a);
  bool review() const { return review_; }
  void setReview(bool on);
  LayerDocument* document() const { return document_; }
  void setDocument(LayerDocument* d);
  int debounceMs() const { return debounce_.interval(); }
  void setDebounceMs(int ms);

  ModelStatus::Value status() const { return status_; }
  QString errorString() const { return error_; }
  QString errorFile() const { return error_file_; }
  int errorLine() const { return error_line_; }
  int errorColumn() const { return error_column_; }
  QString irJson() const { return ir_json_; }
  QString irHash() const;
  QString baselineHash() const;
  bool busy() const { return running_; }
  int generation() const { return applied_generation_; }
  double lastEvalMs() const { return last_ms_; }

  TierStackModel* layers() { return &layers_; }
  DiffModel* diff() { return &diff_; }
  CapabilityModel* capabilities() { return &capabilities_; }
  WarningsModel* warnings() { return &warnings_; }
  SummaryModel* summary() { return &summary_; }
  // The live evaluation (nullptr while none is good); the launcher reads its layers.
  std::shared_ptr<const Evaluation> current() const { return current_; }

  // Evaluates now (no debounce); the baseline (last saved state) too.
  Q_INVOKABLE void refresh();
  // `paddock explain --why QUERY` on the live evaluation.
  Q_INVOKABLE QVariantMap why(const QString& query) const;
  // What the saved layer at `row` adds, as pretty JSON (shown before approving).
  Q_INVOKABLE QString approvalPreview(int row) const;
  // Approves the SAVED bytes of the repository-side layer at `row` (never unsaved text).
  Q_INVOKABLE bool approve(int row);
  Q_INVOKABLE QString approvalBlocker(int row) const;
  // The tier stack row of a layer file (-1 when it is not in the stack).
  Q_INVOKABLE int rowOfLayer(const QString& file) const;
  QString missingAgentDir() const;

  // Inputs for one evaluation (exposed for tests and benchmarks).
  Inputs makeInputs(bool with_overlay) const;

 signals:
  void inputsChanged();
  void evaluated();
  void busyChanged();
  void approvalFailed(const QString& message);

 public:
  struct Outcome;  // one evaluation's results, produced on a worker thread

 private:
  void schedule();
  void start();
  void apply(const Outcome& o);
  void setFailure(const Error& e);
  void probeCapabilities();
  // The bytes of every file the saved evaluation read (layers, signatures, fragments, approvals),
  // hashed: a watcher event that leaves it unchanged evaluates nothing.
  QByteArray diskFingerprint() const;
  QStringList watchedFiles() const;
  void rewatch();
  void onDiskEvent();

  QString project_;
  QString agent_;
  bool review_ = false;
  QPointer<LayerDocument> document_;
  std::map<std::string, std::string> environment_;
  QString resources_;

  QTimer debounce_;
  bool running_ = false;
  bool pending_ = false;
  bool baseline_dirty_ = true;
  int generation_ = 0;
  int applied_generation_ = 0;
  double last_ms_ = 0;

  std::shared_ptr<const Evaluation> current_;
  std::shared_ptr<const Evaluation> baseline_;
  ModelStatus::Value status_ = ModelStatus::None;
  QString error_, error_file_;
  int error_line_ = 0, error_column_ = 0;
  QString ir_json_;
  nlohmann::json probe_;

  QFileSystemWatcher disk_watcher_;
  QByteArray disk_fingerprint_;  // of the files as the saved evaluation last read them

  TierStackModel layers_;
  DiffModel diff_;
  CapabilityModel capabilities_;
  WarningsModel warnings_;
  SummaryModel summary_;
};

}  // namespace paddock::gui
