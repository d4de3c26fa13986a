#include "policy_composer.h"

#include <algorithm>
#include <chrono>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QtConcurrent>

#include "app_paths.h"
#include "backends/backend.h"
#include "engine/approvals.h"
#include "engine/layer.h"
#include "engine/tiers.h"
#include "ir_diff.h"
#include "platform/dir_lister.h"
#include "platform/engine_files.h"
#include "platform/placeholders.h"
#include "platform/probe.h"
#include "policy_summary.h"

namespace paddock::gui {

struct PolicyComposer::Outcome {
  int generation = 0;
  std::optional<Result<Evaluation>> current;
  std::optional<Result<Evaluation>> baseline;  // only when it was recomputed
  std::set<std::string> requested;             // capability fields the live IR requests
  std::vector<SummaryLine> summary;            // the live IR in plain words
  // When the live evaluation fails: the tier stack as the files are (no parse), so the cards
  // stay on screen with the error on the one that caused it.
  std::vector<LayerInfo> stack;
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

// The tier stack as the app shows it: the live layers (the editor's text included), with the
// approval and signature states of the saved files — what `paddock explain` and `paddock run`
// see. A layer that exists only in the editor is not approved by anything yet.
std::vector<LayerInfo> with_saved_states(std::vector<LayerInfo> live, const Evaluation* saved) {
  if (!saved) return live;
  for (auto& l : live) {
    const auto it = std::find_if(saved->layers.begin(), saved->layers.end(),
                                 [&](const LayerInfo& s) { return s.file == l.file && s.tier == l.tier; });
    if (it != saved->layers.end() && it->exists) {
      l.approval = it->approval;
      l.signature = it->signature;
    } else if (l.approval != ApprovalState::kNotNeeded) {
      l.approval = ApprovalState::kUnapproved;
      l.signature = SignatureState::kUnsigned;
    }
  }
  return live;
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
  if (!o.current->ok()) {
    if (auto ctx = make_context(live); ctx.ok())
      if (auto sources = discover_layers(live, *ctx); sources.ok())
        for (const auto& src : *sources) {
          LayerInfo l;
          l.tier = src.tier;
          l.file = src.file;
          l.exists = src.exists;
          l.applies = src.exists;  // its condition is not known without a parse
          l.sha256 = src.sha256;
          o.stack.push_back(std::move(l));
        }
  }
  if (o.current->ok()) {
    try {
      SummaryInputs si{&o.current->value(), nullptr, {}, std::move(names), live.resources_dir};
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
  connect(&disk_watcher_, &QFileSystemWatcher::fileChanged, this, &PolicyComposer::onDiskEvent);
  connect(&disk_watcher_, &QFileSystemWatcher::directoryChanged, this, &PolicyComposer::onDiskEvent);
  probeCapabilities();
}

QStringList PolicyComposer::watchedFiles() const {
  QStringList files;
  const auto* ev = baseline_ ? baseline_.get() : current_.get();
  if (ev)
    for (const auto& l : ev->layers)
      if (!l.file.empty() && l.file.front() == '/') files << QString::fromStdString(l.file) << QString::fromStdString(l.file + ".sig");
  if (!project_.isEmpty()) {
    const std::string project = project_.toStdString();
    for (const char* tier : {kTierRepo, kTierLocal}) files << QString::fromStdString(tier_file(tier, project, {}));
    const QDir fragments(QString::fromStdString(fragments_dir(project)));
    for (const QString& f : fragments.entryList({"*.yaml"}, QDir::Files | QDir::System, QDir::Name))
      files << fragments.filePath(f);
  }
  if (!AppPaths::configDir().isEmpty())
    files << QString::fromStdString(tier_file(kTierUser, {}, AppPaths::configDir().toStdString()));
  if (!AppPaths::stateDir().isEmpty())
    files << QString::fromStdString(approvals_path(AppPaths::stateDir().toStdString()));
  files.removeDuplicates();
  return files;
}

QByteArray PolicyComposer::diskFingerprint() const {
  QCryptographicHash h(QCryptographicHash::Sha256);
  for (const QString& path : watchedFiles()) {
    h.addData(path.toUtf8());
    QFile f(path);
    if (f.open(QIODevice::ReadOnly)) {
      h.addData(QByteArrayView("\1", 1));
      h.addData(&f);
    } else {
      h.addData(QByteArrayView("\0", 1));
    }
  }
  return h.result();
}

void PolicyComposer::rewatch() {
  // Each file where it exists, else its nearest existing directory (where it would appear); an
  // atomic save replaces a file, which its directory reports.
  QStringList want;
  for (const QString& f : watchedFiles()) {
    if (QFileInfo::exists(f)) want << f;
    QString dir = QFileInfo(f).absolutePath();
    while (!dir.isEmpty() && dir != "/" && !QFileInfo(dir).isDir()) dir = QFileInfo(dir).absolutePath();
    if (!dir.isEmpty() && dir != "/") want << dir;
  }
  if (!project_.isEmpty()) {
    const QString fragments = QString::fromStdString(fragments_dir(project_.toStdString()));
    if (QFileInfo(fragments).isDir()) want << fragments;
  }
  want.removeDuplicates();
  QStringList have = disk_watcher_.files() + disk_watcher_.directories();
  QStringList drop;
  for (const QString& p : have)
    if (!want.contains(p)) drop << p;
  if (!drop.isEmpty()) disk_watcher_.removePaths(drop);
  QStringList add;
  for (const QString& p : want)
    if (!have.contains(p)) add << p;
  if (!add.isEmpty()) disk_watcher_.addPaths(add);
}

void PolicyComposer::onDiskEvent() {
  rewatch();
  if (project_.isEmpty() || diskFingerprint() == disk_fingerprint_) return;
  baseline_dirty_ = true;
  schedule();
}

PolicyComposer::~PolicyComposer() = default;

void PolicyComposer::setReview(bool on) {
  if (on == review_) return;
  review_ = on;
  baseline_dirty_ = true;
  emit inputsChanged();
  schedule();
}

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
  in.review = review_;
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
    // The cards stay while the text does not evaluate: the error is shown on them.
    if (layers_.count() == 0) layers_.setLoading();
    diff_.setLoading();
    warnings_.setLoading();
    summary_.setLoading();
  }
  const int gen = ++generation_;
  std::optional<Inputs> baseline;
  if (baseline_dirty_ || !baseline_) {
    baseline = makeInputs(false);
    disk_fingerprint_ = diskFingerprint();  // before the read: a change from now on is seen
  }
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
    rewatch();
  }
  if (!o.current->ok()) {
    setFailure(o.current->error());
    ir_json_.clear();
    current_.reset();
    diff_.setError(error_);
    warnings_.setError(error_);
    summary_.setError(error_);
    // The stack keeps its last good cards (they do not vanish while a word is half typed), or
    // shows the files as they are; the error goes on the card of the file that has it.
    if (!o.stack.empty()) {
      // The files as they are now (one may have just appeared), with what the last good
      // evaluation said of each (applies, its condition, the lock).
      std::vector<LayerInfo> stack = o.stack;
      for (auto& l : stack)
        for (const auto& before : layers_.layers())
          if (before.file == l.file && before.tier == l.tier && before.exists) {
            l.applies = before.applies;
            l.condition = before.condition;
            l.immutable = before.immutable;
            l.approval = before.approval;
          }
      layers_.setLayers(with_saved_states(std::move(stack), baseline_.get()));
    }
    if (layers_.count() == 0) layers_.setError(error_);
    layers_.setLayerError(error_file_.isEmpty() ? QString() : error_file_,
                          error_line_ > 0 ? tr("does not evaluate (line %1, column %2): %3")
                                                .arg(error_line_).arg(error_column_)
                                                .arg(QString(error_).remove(QRegularExpression("^.*?:\\d+:\\d+:\\s*")))
                                          : error_);
    emit evaluated();
    return;
  }
  current_ = std::make_shared<const Evaluation>(o.current->value());
  status_ = ModelStatus::Ready;
  error_.clear();
  error_file_.clear();
  error_line_ = error_column_ = 0;
  ir_json_ = QString::fromStdString(to_json(current_->ir).dump(2));
  layers_.setLayers(with_saved_states(current_->layers, baseline_.get()));
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

namespace {

// What a layer adds, one key a line, in the words of its YAML ("filesystem.allow_write:
// $PROJECT/dist"), with byte counts and durations in units ("limits.memory: 8 GiB").
std::string adds_in_words(const nlohmann::json& adds) {
  const auto scalar = [](const std::string& key, const nlohmann::json& v) -> std::string {
    if (!v.is_number_integer()) return v.is_string() ? v.get<std::string>() : v.dump();
    const std::int64_t n = v.get<std::int64_t>();
    if (key == "limits.memory" || key == "limits.file_size" || key == "network.quotas") return human_bytes(n);
    if (key == "limits.cpu_seconds" || key == "limits.wall_time") return human_seconds(n);
    return std::to_string(n);
  };
  std::string out;
  for (auto it = adds.begin(); it != adds.end(); ++it) {
    std::string line = it.key() + ":";
    if (it->is_array()) {
      for (std::size_t i = 0; i < it->size(); ++i) line += (i ? ", " : " ") + scalar(it.key(), (*it)[i]);
    } else if (it->is_object()) {
      bool first = true;
      for (auto e = it->begin(); e != it->end(); ++e) {
        std::string v = e->is_array() ? std::string() : scalar(it.key(), *e);
        if (e->is_array())
          for (std::size_t i = 0; i < e->size(); ++i) v += (i ? ", " : "") + scalar(it.key(), (*e)[i]);
        line += (first ? " " : "; ") + e.key() + " " + v;
        first = false;
      }
    } else {
      line += " " + scalar(it.key(), *it);
    }
    out += line + "\n";
  }
  return out.empty() ? "nothing (the layer grants nothing)\n" : out;
}

}  // namespace

QString PolicyComposer::approvalPreview(int row) const {
  if (!baseline_ || row < 0 || row >= static_cast<int>(baseline_->layers.size())) return {};
  const auto& l = baseline_->layers[static_cast<size_t>(row)];
  return QString::fromStdString(l.file + "\n" + l.sha256 + "\n\n" + adds_in_words(l.adds));
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
    for (backends::BackendId b : backends::all_backends()) m.push_back(backends::capability_matrix_here(b, probe_));
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
