#include "project_summaries.h"

#include <memory>

#include <QFutureWatcher>
#include <QtConcurrent>

#include "app_paths.h"
#include "backends/backend.h"
#include "platform/dir_lister.h"
#include "platform/placeholders.h"
#include "policy_summary.h"

namespace paddock::gui {
namespace {

// On the worker: the card's line, or why there is none.
QString evaluate_card(const Inputs& in) {
  try {
    auto ev = evaluate(in);
    if (!ev.ok()) return QObject::tr("the policy does not evaluate; open Customize");
    SummaryInputs si{&ev.value(), nullptr, {}, {}, in.resources_dir};
    return QString::fromStdString(card_line(summarize_policy(si), ev->ir.meta.project));
  } catch (const std::exception&) {
    return QObject::tr("the policy does not evaluate; open Customize");
  }
}

}  // namespace

ProjectSummaries::ProjectSummaries(QObject* parent)
    : QObject(parent), environment_(AppPaths::environment()), resources_(AppPaths::resourcesDir()) {}

QString ProjectSummaries::lineFor(const QString& project, const QString& agentPreset) {
  if (project.isEmpty()) return {};
  Entry& e = cache_[{project, agentPreset}];
  if (!e.fresh && !e.queued) {
    e.queued = true;
    queue_.push_back({project, agentPreset});
    // Not from inside the binding that asked: the worker starts on the next turn of the loop.
    QMetaObject::invokeMethod(this, &ProjectSummaries::next, Qt::QueuedConnection);
  }
  return e.line;
}

void ProjectSummaries::refresh() {
  for (auto& [key, e] : cache_) e.fresh = false;
  stale_running_ = running_;
  ++revision_;
  emit changed();  // bindings ask again, which queues the evaluations
}

void ProjectSummaries::next() {
  if (running_ || queue_.empty()) return;
  const Key key = queue_.front();
  queue_.pop_front();
  Inputs in;
  in.lister = &platform::fast_lister();
  in.project = key.first.toStdString();
  in.agent = key.second.toStdString();
  in.environment = environment_;
  in.placeholders = platform::live_placeholders(in.environment);
  in.resources_dir = resources_.toStdString();
  in.os = backends::to_string(backends::host_backend());
  running_ = true;
  // The watcher is this object's child: destroyed with it, it never delivers a late result.
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, key] {
    watcher->deleteLater();
    running_ = false;
    ++evaluations_;
    Entry& e = cache_[key];
    e.queued = false;
    e.fresh = !std::exchange(stale_running_, false);
    e.line = watcher->result();
    ++revision_;
    emit changed();
    next();
  });
  watcher->setFuture(QtConcurrent::run(evaluate_card, std::move(in)));
}

}  // namespace paddock::gui
