#include "credentials_model.h"

#include <QFutureWatcher>
#include <QtConcurrent>

#include "app_paths.h"
#include "engine/credentials.h"
#include "engine/session/credential_records.h"
#include "engine/session/layout.h"
#include "platform/credential_store.h"
#include "platform/read_file.h"

namespace paddock::gui {
namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

Result<session::Layout> layout() { return session::from_env(AppPaths::environment()); }

platform::CredentialStore store_of(const session::Layout& l) {
  return platform::CredentialStore(l, AppPaths::keyringPath().toStdString());
}

}  // namespace

CredentialsModel::CredentialsModel(QObject* parent) : StatusListModel(parent) { reload(); }

CredentialsModel::~CredentialsModel() = default;

int CredentialsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant CredentialsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& r = rows_[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case NameRole: return r.name;
    case UpstreamRole: return r.upstream;
    case BackendRole: return r.backend;
    case AgentsRole: return r.agents;
    case LastUsedRole: return r.last_used;
    case LastSessionRole: return r.last_session;
    default: return {};
  }
}

QHash<int, QByteArray> CredentialsModel::roleNames() const {
  return {{NameRole, "name"},         {UpstreamRole, "upstream"}, {BackendRole, "backend"},
          {AgentsRole, "agents"},     {LastUsedRole, "lastUsed"}, {LastSessionRole, "lastSession"}};
}

void CredentialsModel::reload() {
  auto l = layout();
  if (!l.ok()) return setStatus(ModelStatus::Error, q(l.error().message));
  const auto store = store_of(*l);
  auto stored = store.list();
  if (!stored.ok()) return setStatus(ModelStatus::Error, q(stored.error().message));
  auto decl = agent_credential_declarations(AppPaths::resourcesDir().toStdString());
  if (!decl.ok()) return setStatus(ModelStatus::Error, q(decl.error().message));
  session::CredentialUseRecord used;
  if (auto bytes = platform::read_file_if_exists(l->credential_use_file()); bytes.ok() && *bytes)
    if (auto u = session::decode_credential_use(**bytes); u.ok()) used = std::move(*u);
  std::vector<Row> rows;
  for (const auto& s : *stored) {
    Row r;
    r.name = q(s.name);
    r.upstream = q(s.entry.upstream);
    r.backend = s.entry.backend == session::CredentialBackend::kFile ? tr("file (0600)") : tr("secret service");
    QStringList agents;
    if (auto it = decl->find(s.name); it != decl->end())
      for (const auto& d : it->second) agents << q(d.agent);
    r.agents = agents.isEmpty() ? tr("your policy") : agents.join(", ");
    if (auto u = used.find(s.name); u != used.end()) {
      r.last_used = q(u->second.last_used);
      r.last_session = q(u->second.session);
    }
    rows.push_back(std::move(r));
  }
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  emit countChanged();
  known_names_.clear();
  upstreams_.clear();
  for (const auto& [name, list] : *decl) {
    known_names_ << q(name);
    std::string up = list.front().upstream;
    for (const auto& d : list)
      if (d.upstream != up) up.clear();
    upstreams_[name] = up;
  }
  const auto status = store.status();
  store_detail_ = q(status.detail);
  secret_service_ = status.secret_service;
  emit storeChanged();
  setStatus(ModelStatus::Ready);
}

QString CredentialsModel::upstreamFor(const QString& name) const {
  auto it = upstreams_.find(name.toStdString());
  return it == upstreams_.end() ? QString() : q(it->second);
}

void CredentialsModel::run_on_worker(std::function<QString()> work, const QString& done) {
  if (busy_) return;
  busy_ = true;
  emit busyChanged();
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, done] {
    watcher->deleteLater();
    const QString error = watcher->result();
    busy_ = false;
    emit busyChanged();
    reload();
    emit finished(error.isEmpty(), error.isEmpty() ? done : error);
  });
  watcher->setFuture(QtConcurrent::run(std::move(work)));
}

void CredentialsModel::store(const QString& name, const QString& upstream, QString value, bool replace) {
  std::string key = value.trimmed().toStdString();
  value.fill(QChar(' '));
  const std::string n = name.trimmed().toStdString();
  std::string up = upstream.trimmed().toStdString();
  if (up.empty()) {
    up = upstreamFor(name.trimmed()).toStdString();
    if (up.empty()) {
      emit finished(false, tr("Name the one host this key is sent to."));
      return;
    }
  }
  run_on_worker([n, up, key = std::move(key), replace]() mutable -> QString {
    auto l = layout();
    if (!l.ok()) return q(l.error().message);
    const Status s = store_of(*l).add(n, up, key, replace);
    std::fill(key.begin(), key.end(), '\0');
    return s.ok() ? QString() : q(s.error().message);
  }, replace ? tr("Replaced %1.").arg(name) : tr("Stored %1.").arg(name));
}

void CredentialsModel::remove(const QString& name) {
  const std::string n = name.toStdString();
  run_on_worker([n]() -> QString {
    auto l = layout();
    if (!l.ok()) return q(l.error().message);
    const Status s = store_of(*l).remove(n);
    return s.ok() ? QString() : q(s.error().message);
  }, tr("Removed %1.").arg(name));
}

}  // namespace paddock::gui
