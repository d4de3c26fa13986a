#include "policy_composer.h"

#include <chrono>

#include <QFileInfo>
#include <QJsonDocument>
#include <QtConcurrent>

#include "app_paths.h"
#include "backends/backend.h"
#include "engine/approvals.h"
#include "ir_diff.h"
#include "platform/dir_lister.h"
#include "platform/engine_files.h"
#include "platform/placeholders.h"
#include "platform/probe.h"

namespace paddock::gui {

struct PolicyComposer::Outcome {
  int generation = 0;
  std::optional<Result<Evaluation>> current;
  std::optional<Result<Evaluation>> baseline;  // only when it was recomputed
  std::set<std::string> requested;             // capability fields the live IR requests
  std::vector<SummaryLine> summary;            // the live IR in plain words
  double ms = 0;
};

namespace {

// The app evaluates whatever the project holds as the user types: an exception (a bug) is an
// evaluation that failed, shown as such, never one that ends the app.
Result<Evaluation> evaluate_guarded(const Inputs& in) {
  try {
    return evaluate(in);
  } catch (const std::exception& e) {
    return refused(std::string("the policy could not be evaluated (a bug; please report it): ") + e.what());
  }
}

PolicyComposer::Outcome run_evaluation(int generation, const Inputs& live, std::optional<Inputs> baseline,
                                       const nlohmann::json& probe) {
  std::vector<std::string> names;
  for (const auto& [k, v] : live.environment) names.push_back(k);
  const auto t0 = std::chrono::steady_clock::now();
  PolicyComposer::Outcome o;
  o.generation = generation;
  o.current = evaluate_guarded(live);
  if (baseline) o.baseline = evaluate_guarded(*baseline);
  if (o.current->ok()) {
    try {
      SummaryInputs si{&o.current->value(), nullptr, {}, std::move(names)};
      // Without a probe (not run yet, or failed) the plan would be checked against nothing.
      std::optional<Result<BackendPlan>> plan;
      if (!probe.empty()) plan = backends::compile(o.current->value().ir, backends::host_backend(), probe);
      if (plan && plan->ok()) {
        for (const auto& c : (*plan)->capability_vector) o.requested.insert(c.field);
        if (Status st = backends::check(plan->value()); !st.ok()) si.plan_error = st.error().message;
        si.plan = &plan->value();
      } else if (plan) {
        si.plan_error = plan->error().message;
      }
      o.summary = summarize_policy(si);
    } catch (const std::exception& e) {
      o.current = refused(std::string("the plan could not be compiled (a bug; please report it): ") + e.what());
    }
  }
  o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

}  // namespace

PolicyComposer::PolicyComposer(QObject* parent)
    : QObject(parent), environment_(AppPaths::environment()), resources_(AppPaths::resourcesDir()) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(150);  // typing speed: evaluate after a pause, never per keystroke
  connect(&debounce_, &QTimer::timeout, this, &PolicyComposer::start);
  probeCapabilities();
}

PolicyComposer::~PolicyComposer() = default;

void PolicyComposer::setProject(const QString& p) {
  if (p == project_) return;
  project_ = p;
  baseline_dirty_ = true;
  emit inputsChanged();
  schedule();
}

void PolicyComposer::setAgent(const QString& a) {
  if (a == agent_) return;
  agent_ = a;
  baseline_dirty_ = true;
  emit inputsChanged();
  schedule();
}

void PolicyComposer::setDocument(LayerDocument* d) {
  if (d == document_) return;
  if (document_) document_->disconnect(this);
  document_ = d;
  if (d) {
    connect(d, &LayerDocument::textChanged, this, &PolicyComposer::schedule);
    connect(d, &LayerDocument::pathChanged, this, &PolicyComposer::schedule);
    connect(d, &LayerDocument::saved, this, [this] {
      baseline_dirty_ = true;  // the Diff compares against what is on disk
      schedule();
    });
  }
  emit inputsChanged();
  schedule();
}

void PolicyComposer::setDebounceMs(int ms) {
  if (ms == debounce_.interval()) return;
  debounce_.setInterval(ms);
  emit inputsChanged();
}

QString PolicyComposer::irHash() const { return current_ ? QString::fromStdString(current_->ir_hash) : QString(); }
QString PolicyComposer::baselineHash() const {
  return baseline_ ? QString::fromStdString(baseline_->ir_hash) : QString();
}

Inputs PolicyComposer::makeInputs(bool with_overlay) const {
  Inputs in;
  in.lister = &platform::fast_lister();
  in.project = project_.toStdString();
  in.agent = agent_.toStdString();
  in.environment = environment_;
  in.placeholders = platform::live_placeholders(in.environment);
  in.resources_dir = resources_.toStdString();
  in.os = backends::to_string(backends::host_backend());
  if (with_overlay && document_ && document_->loaded())
    in.overlay[document_->path().toStdString()] = document_->text().toStdString();
  return in;
}

void PolicyComposer::refresh() {
  baseline_dirty_ = true;
  debounce_.stop();
  start();
}

void PolicyComposer::schedule() {
  if (project_.isEmpty()) return;
  debounce_.start();
}

void PolicyComposer::start() {
  if (project_.isEmpty()) return;
  if (running_) {
    pending_ = true;  // one run at a time; the newest inputs run when this one is done
    return;
  }
  running_ = true;
  emit busyChanged();
  if (!current_) {
    layers_.setLoading();
    diff_.setLoading();
    warnings_.setLoading();
    summary_.setLoading();
  }
  const int gen = ++generation_;
  std::optional<Inputs> baseline;
  if (baseline_dirty_ || !baseline_) baseline = makeInputs(false);
  baseline_dirty_ = false;
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher] {
    const Outcome o = watcher->result();
    watcher->deleteLater();
    running_ = false;
    apply(o);
    if (pending_) {
      pending_ = false;
      start();
    } else {
      emit busyChanged();
    }
  });
  watcher->setFuture(QtConcurrent::run(run_evaluation, gen, makeInputs(true), baseline, probe_));
}

void PolicyComposer::setFailure(const Error& e) {
  status_ = ModelStatus::Error;
  error_ = QString::fromStdString(e.message);
  // The editor marks the place when it is its file and the input has lines.
  const bool at_line = e.origin && e.origin->line > 0;
  error_file_ = at_line ? QString::fromStdString(e.origin->file) : QString();
  error_line_ = at_line ? e.origin->line : 0;
  error_column_ = at_line ? e.origin->column : 0;
}

void PolicyComposer::apply(const Outcome& o) {
  if (o.generation != generation_ && pending_) return;  // a newer run is queued: this is stale
  if (o.generation < applied_generation_) return;
  applied_generation_ = o.generation;
  last_ms_ = o.ms;
  if (o.baseline) {
    if (o.baseline->ok()) baseline_ = std::make_shared<const Evaluation>(o.baseline->value());
    else baseline_.reset();
  }
  if (!o.current->ok()) {
    setFailure(o.current->error());
    ir_json_.clear();
    current_.reset();
    diff_.setError(error_);
    warnings_.setError(error_);
    summary_.setError(error_);
    // The stack keeps its last good cards: they do not vanish while a word is half typed.
    if (layers_.count() == 0) layers_.setError(error_);
    emit evaluated();
    return;
  }
  current_ = std::make_shared<const Evaluation>(o.current->value());
  status_ = ModelStatus::Ready;
  error_.clear();
  error_file_.clear();
  error_line_ = error_column_ = 0;
  ir_json_ = QString::fromStdString(to_json(current_->ir).dump(2));
  layers_.setLayers(current_->layers);
  warnings_.setEvaluation(*current_);
  if (baseline_) {
    diff_.setDiff(diff_ir(baseline_->ir, current_->ir), QString::fromStdString(baseline_->ir_hash),
                  QString::fromStdString(current_->ir_hash), tr("last saved"));
  } else {
    diff_.setError(tr("the saved files do not evaluate, so there is nothing to compare with: %1")
                       .arg(o.baseline && !o.baseline->ok() ? QString::fromStdString(o.baseline->error().message)
                                                            : tr("not evaluated yet")));
  }
  capabilities_.setRequested(o.requested);
  summary_.setLines(o.summary);
  emit evaluated();
}

QVariantMap PolicyComposer::why(const QString& query) const {
  if (!current_) return {{"error", error_.isEmpty() ? tr("no policy evaluated yet") : error_}};
  if (query.trimmed().isEmpty()) return {};
  const WhyAnswer w = paddock::why(*current_, query.trimmed().toStdString());
  return QJsonDocument::fromJson(QByteArray::fromStdString(to_json(w).dump())).object().toVariantMap();
}

QString PolicyComposer::approvalBlocker(int row) const {
  if (!baseline_) return tr("the saved files do not evaluate; fix them first");
  if (row < 0 || row >= static_cast<int>(baseline_->layers.size())) return tr("no such layer");
  const auto& l = baseline_->layers[static_cast<size_t>(row)];
  if (l.approval == ApprovalState::kNotNeeded) return tr("this tier needs no approval");
  if (l.approval == ApprovalState::kApproved) return tr("already approved");
  if (!l.applies) return tr("this layer does not apply now, so there is nothing to approve");
  if (document_ && document_->dirty() && document_->path().toStdString() == l.file)
    return tr("save or undo your edits first: approval covers the saved file only");
  return {};
}

int PolicyComposer::rowOfLayer(const QString& file) const {
  const auto& layers = baseline_ ? baseline_->layers : std::vector<LayerInfo>{};
  for (size_t i = 0; i < layers.size(); ++i)
    if (QString::fromStdString(layers[i].file) == file) return static_cast<int>(i);
  return -1;
}

QString PolicyComposer::missingAgentDir() const {
  if (!current_ || current_->ir.meta.agent_dir.empty()) return {};
  const QString dir = QString::fromStdString(current_->ir.meta.agent_dir);
  return QFileInfo::exists(dir) ? QString() : dir;
}

QString PolicyComposer::approvalPreview(int row) const {
  if (!baseline_ || row < 0 || row >= static_cast<int>(baseline_->layers.size())) return {};
  const auto& l = baseline_->layers[static_cast<size_t>(row)];
  return QString::fromStdString(l.file + "\n" + l.sha256 + "\n\n" + l.adds.dump(2));
}

bool PolicyComposer::approve(int row) {
  if (const QString b = approvalBlocker(row); !b.isEmpty()) {
    emit approvalFailed(b);
    return false;
  }
  const auto& l = baseline_->layers[static_cast<size_t>(row)];
  const Status st =
      record_approvals(AppPaths::stateDir().toStdString(), baseline_->ir.meta.project, {l}, platform::AtomicFileWriter{});
  if (!st.ok()) {
    emit approvalFailed(QString::fromStdString(st.error().message));
    return false;
  }
  refresh();
  return true;
}

void PolicyComposer::probeCapabilities() {
  capabilities_.setLoading();
  const std::string helper = AppPaths::helperPath().toStdString();
  struct ProbeOutcome {
    nlohmann::json probe = nlohmann::json::object();
    QString problem;
  };
  auto* watcher = new QFutureWatcher<ProbeOutcome>(this);
  connect(watcher, &QFutureWatcher<ProbeOutcome>::finished, this, [this, watcher] {
    const ProbeOutcome o = watcher->result();
    watcher->deleteLater();
    probe_ = o.probe;
    CapabilityModel::Matrices m;
    m.linux_caps = backends::capability_matrix(backends::BackendId::kLinux, probe_);
    m.macos_caps = backends::capability_matrix(backends::BackendId::kMacos, nlohmann::json::object());
    m.windows_caps = backends::capability_matrix(backends::BackendId::kWindows, nlohmann::json::object());
    if (!o.problem.isEmpty()) {
      capabilities_.setError(tr("%1, so this kernel's capabilities are unknown").arg(o.problem));
      return;
    }
    capabilities_.setMatrices(m, {});
    if (current_) schedule();  // recompute the requested set with the real probe
  });
  watcher->setFuture(QtConcurrent::run([helper] {
    auto probe = platform::run_probe(helper);
    if (!probe.ok()) return ProbeOutcome{nlohmann::json::object(), QString::fromStdString(probe.error().message)};
    return ProbeOutcome{std::move(*probe), {}};
  }));
}

}  // namespace paddock::gui
