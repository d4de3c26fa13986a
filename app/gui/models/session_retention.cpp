#include "session_retention.h"

#include <QFutureWatcher>
#include <QtConcurrent>

#include "../app_paths.h"
#include "platform/sessions.h"

namespace paddock::gui {

SessionRetention::SessionRetention(QObject* parent) : QObject(parent), keep_days_(session::kDefaultKeepDays) {
  auto layout = session::from_env(AppPaths::environment());
  if (!layout.ok()) {
    error_ = QString::fromStdString(layout.error().message);
    writable_ = false;
    return;
  }
  auto r = platform::load_retention(*layout);
  if (r.ok()) {
    keep_days_ = r->keep_days;
  } else {
    error_ = tr("%1 (left as it is; fix or remove it)").arg(QString::fromStdString(r.error().message));
    writable_ = false;
  }
}

void SessionRetention::setKeepDays(int days) {
  days = std::clamp(days, 0, 36500);
  if (days == keep_days_ || !writable_) return;
  keep_days_ = days;
  auto layout = session::from_env(AppPaths::environment());
  const Status st = layout.ok() ? platform::save_retention(*layout, {days}) : Status(layout.error());
  error_ = st.ok() ? QString() : QString::fromStdString(st.error().message);
  emit changed();
}

void SessionRetention::pruneNow() {
  if (busy_ || !writable_) return;
  busy_ = true;
  emit changed();
  auto* watcher = new QFutureWatcher<QPair<int, QString>>(this);
  connect(watcher, &QFutureWatcher<QPair<int, QString>>::finished, this, [this, watcher] {
    watcher->deleteLater();
    const auto [removed, text] = watcher->result();
    busy_ = false;
    last_prune_ = text;
    emit changed();
    emit pruned(removed);
  });
  const int days = keep_days_;
  watcher->setFuture(QtConcurrent::run([days]() -> QPair<int, QString> {
    auto layout = session::from_env(AppPaths::environment());
    if (!layout.ok()) return {0, QString::fromStdString(layout.error().message)};
    auto out = platform::prune_sessions(*layout, AppPaths::resourcesDir().toStdString(), days);
    if (!out.ok()) return {0, QString::fromStdString(out.error().message)};
    QString text = tr("Removed %n session record(s) older than %1 days.", "", out->removed).arg(days);
    if (out->kept_for_review > 0)
      text += " " + tr("Kept %n that still hold changes for review.", "", out->kept_for_review);
    if (!out->errors.empty()) text += " " + QString::fromStdString(out->errors.front());
    return {out->removed, text};
  }));
}

}  // namespace paddock::gui
