#include "violation_inbox.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>

#include "app_paths.h"
#include "backends/backend.h"
#include "engine/layer.h"
#include "engine/tiers.h"
#include "engine/ir.h"
#include "engine/session/event.h"
#include "platform/dir_lister.h"
#include "platform/read_file.h"
#include "session_record.h"

namespace paddock::gui {
namespace {

// The file a fix in `tier` is written to (the engine's tier_file); "" where it is not one file.
QString fix_file(const QString& tier, const QString& project) {
  if (tier == kTierSystem) return {};  // the app never writes the system's policy
  return QString::fromStdString(
      paddock::tier_file(tier.toStdString(), project.toStdString(), AppPaths::configDir().toStdString()));
}

// "~/x" for a path under the home directory, as a label shows it.
QString shown_path(const QString& path) {
  const QString home = QDir::homePath();
  return path.startsWith(home + "/") ? "~" + path.mid(home.size()) : path;
}

// The project and agent preset a session ran with (its ir.json's meta; the engine's reader).
std::pair<QString, QString> project_of(const QString& session_dir) {
  SessionRecord r;
  r.dir = session_dir;
  read_session_meta(r);
  return {r.project, r.agent};
}

// The project's saved policy as a new session of this agent would get it, with the network
// filtered (the question is whether the domain is listed, whatever this run's mode).
std::shared_ptr<const Evaluation> evaluate_saved(const QString& project, const QString& agent) {
  Inputs in;
  in.lister = &platform::fast_lister();
  in.project = QFile::encodeName(project).toStdString();
  in.agent = agent.toStdString();
  in.net = NetMode::kAllowlist;
  in.environment = AppPaths::environment();
  in.resources_dir = AppPaths::resourcesDir().toStdString();
  in.os = backends::to_string(backends::host_backend());
  in.with_report = true;
  try {
    auto r = evaluate(in);
    if (r.ok()) return std::make_shared<const Evaluation>(std::move(*r));
  } catch (const std::exception&) {
  }
  return nullptr;
}

}  // namespace

ViolationInbox::ViolationInbox(QObject* parent) : QAbstractListModel(parent) {}
ViolationInbox::~ViolationInbox() = default;

int ViolationInbox::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant ViolationInbox::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Group& g = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case HostRole: return g.host;
    case PortsRole: {
      QStringList p;
      for (int port : g.ports) p << QString::number(port);
      return p.join(", ");
    }
    case CountRole: return g.count;
    case RuleRole: return g.rule;
    case ReasonRole: return g.reason;
    case ProjectRole: return g.project;
    case LastSeenRole: return g.lastSeen;
    case AllowedByRole: return allowedBy(g);
    default: return {};
  }
}

QHash<int, QByteArray> ViolationInbox::roleNames() const {
  return {{HostRole, "host"}, {PortsRole, "ports"}, {CountRole, "count"}, {RuleRole, "rule"},
          {ReasonRole, "reason"}, {ProjectRole, "project"}, {LastSeenRole, "lastSeen"},
          {AllowedByRole, "allowedBy"}};
}

void ViolationInbox::setSessionDirs(const QStringList& dirs) {
  if (dirs == dirs_) return;
  dirs_ = dirs;
  emit sessionDirsChanged();
  reload();
}

void ViolationInbox::reload() {
  std::map<QString, Group> by_host;
  for (const QString& dir : dirs_) {
    QFile f(dir + "/events.jsonl");
    if (!f.open(QIODevice::ReadOnly)) continue;
    QString project, agent;
    bool project_read = false;
    while (!f.atEnd()) {
      const QByteArray line = f.readLine();
      if (!line.endsWith('\n')) break;  // being written
      auto ev = session::decode_event(std::string_view(line.constData(), static_cast<std::size_t>(line.size())));
      if (!ev.ok() || ev->type != session::EventType::kNetRequest) continue;
      if (ev->fields.value("decision", "") != "deny") continue;
      const QString host = QString::fromStdString(ev->fields.value("host", ""));
      if (host.isEmpty()) continue;
      if (!project_read) {
        std::tie(project, agent) = project_of(dir);
        project_read = true;
      }
      Group& g = by_host[host];
      g.host = host;
      g.count += static_cast<int>(ev->count);
      const int port = ev->fields.value("port", 0);
      if (port > 0 && !g.ports.contains(port)) g.ports << port;
      g.rule = QString::fromStdString(ev->fields.value("rule", ""));
      g.reason = QString::fromStdString(ev->fields.value("reason", ""));
      g.lastSeen = QString::fromStdString(ev->last_ts.empty() ? ev->ts : ev->last_ts);
      if (g.project.isEmpty()) {
        g.project = project;
        g.agent = agent;
      }
    }
  }
  std::vector<Group> rows;
  for (auto& [h, g] : by_host) rows.push_back(std::move(g));
  // Most denied first.
  std::stable_sort(rows.begin(), rows.end(), [](const Group& a, const Group& b) { return a.count > b.count; });
  const int before = rowCount();
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  if (before != rowCount()) emit countChanged();
  evaluatePolicies();
}

void ViolationInbox::refresh() {
  policies_.clear();
  ++policy_generation_;
  reload();
}

void ViolationInbox::dismissLastSaved() {
  if (last_saved_.isEmpty()) return;
  last_saved_.clear();
  emit lastSavedChanged();
}

void ViolationInbox::evaluatePolicies() {
  for (const Group& g : rows_) {
    if (g.project.isEmpty()) continue;
    const QString key = g.project + '\n' + g.agent;
    if (policies_.count(key)) continue;
    policies_[key].evaluating = true;
    const int generation = policy_generation_;
    auto* watcher = new QFutureWatcher<std::shared_ptr<const Evaluation>>(this);
    connect(watcher, &QFutureWatcher<std::shared_ptr<const Evaluation>>::finished, this, [this, watcher, key, generation] {
      watcher->deleteLater();
      if (generation != policy_generation_) return;  // refreshed meanwhile: a newer run is on its way
      Policy& p = policies_[key];
      p.evaluating = false;
      p.evaluation = watcher->result();
      if (!rows_.empty()) emit dataChanged(index(0), index(rowCount() - 1), {AllowedByRole});
    });
    watcher->setFuture(QtConcurrent::run(evaluate_saved, g.project, g.agent));
  }
}

QString ViolationInbox::allowedBy(const Group& g) const {
  auto it = policies_.find(g.project + '\n' + g.agent);
  if (it == policies_.end() || !it->second.evaluation) return {};
  const WhyAnswer w = why(*it->second.evaluation, g.host.toStdString());
  if (!w.allowed) return {};
  return w.file.empty() ? QString::fromStdString(w.tier) : QString::fromStdString(w.file);
}

QVariantList ViolationInbox::fixTiers(const QString& project) {
  QVariantList out;
  const auto add = [&](const QString& tier, const QString& label) {
    const QString f = fix_file(tier, project);
    if (!f.isEmpty()) out << QVariantMap{{"tier", tier}, {"label", label}, {"file", f}};
  };
  const auto name = [](const char* tier) { return QString::fromStdString(tier_file_name(tier)); };
  add(kTierLocal, tr("This checkout only (%1)").arg(name(kTierLocal)));
  add(kTierRepo, tr("The repository's policy (%1, shared with the code)").arg(name(kTierRepo)));
  add(kTierUser, tr("All my projects (%1)").arg(shown_path(fix_file(kTierUser, project))));
  return out;
}

bool ViolationInbox::proposeFix(int row, const QString& tier) {
  if (row < 0 || row >= rowCount()) return false;
  const Group& g = rows_[static_cast<size_t>(row)];
  return proposeDomain(g.host, g.project, tier);
}

void ViolationInbox::setPendingError(const QString& host, const QString& tier, const QString& error) {
  pending_ = QVariantMap{{"host", host}, {"tier", tier}, {"error", error}};
  doc_.reset();
  emit pendingChanged();
}

bool ViolationInbox::proposeDomain(const QString& host, const QString& project, const QString& tier) {
  const QString file = fix_file(tier, project);
  if (file.isEmpty()) {
    setPendingError(host, tier, tr("no file for tier %1 (no project or no config directory)").arg(tier));
    return false;
  }
  doc_ = std::make_unique<LayerDocument>();
  existed_ = QFileInfo::exists(file);
  before_.clear();
  if (existed_) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
      setPendingError(host, tier, tr("cannot read %1").arg(file));
      return false;
    }
    before_ = f.readAll();
  }
  if (!doc_->open(file, tier)) {
    setPendingError(host, tier, doc_ ? doc_->errorString() : QString());
    return false;
  }
  // A new file starts as the smallest layer there is, not as the editor's commented template.
  if (!existed_) doc_->setText("version: 1\n");
  const QStringList now = doc_->list("network", "allow_domains");
  if (now.contains(host)) {
    setPendingError(host, tier, tr("%1 already lists %2; the denial came from a stronger rule (see the rule above)")
                                    .arg(file, host));
    return false;
  }
  if (!doc_->addItem("network", "allow_domains", host)) {
    setPendingError(host, tier, doc_->errorString());
    return false;
  }
  const QString before_text = existed_ ? QString::fromUtf8(before_) : QString();
  pending_ = QVariantMap{{"host", host},
                         {"tier", tier},
                         {"file", file},
                         {"created", !existed_},
                         {"diff", lineDiff(before_text, doc_->text()).join('\n')},
                         {"after", doc_->text()},
                         {"approvalNeeded", tier == "repository" || tier == "local-override"},
                         {"error", QString()}};
  emit pendingChanged();
  return true;
}

QString ViolationInbox::applyPending() {
  if (!doc_ || pending_.value("file").toString().isEmpty()) return tr("nothing to save");
  const QString file = pending_.value("file").toString();
  // The diff the user saw is the diff that is written: a file changed since is not overwritten.
  QByteArray disk;
  const bool exists = QFileInfo::exists(file);
  if (exists) {
    QFile f(file);
    if (f.open(QIODevice::ReadOnly)) disk = f.readAll();
  }
  if (exists != existed_ || disk != before_) {
    const QString e = tr("%1 changed since the diff was shown; review it again").arg(file);
    pending_.insert("error", e);
    emit pendingChanged();
    return e;
  }
  if (!doc_->save()) {
    const QString e = doc_->errorString();
    pending_.insert("error", e);
    emit pendingChanged();
    return e;
  }
  const QString host = pending_.value("host").toString();
  last_saved_ = QVariantMap{{"host", host}, {"file", file}, {"approvalNeeded", pending_.value("approvalNeeded")}};
  pending_.clear();
  doc_.reset();
  emit pendingChanged();
  emit lastSavedChanged();
  emit fixSaved(file, host);
  refresh();  // the host is allowed now: its row says so instead of offering Allow… again
  return {};
}

void ViolationInbox::discardPending() {
  pending_.clear();
  doc_.reset();
  emit pendingChanged();
}

QStringList ViolationInbox::lineDiff(const QString& before, const QString& after) {
  const QStringList a = before.isEmpty() ? QStringList() : before.split('\n');
  const QStringList b = after.split('\n');
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  std::vector<std::vector<int>> lcs(static_cast<size_t>(n + 1), std::vector<int>(static_cast<size_t>(m + 1), 0));
  for (int i = n - 1; i >= 0; --i)
    for (int j = m - 1; j >= 0; --j)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  QStringList out;
  int i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out << "  " + a[i];
      ++i;
      ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out << "+ " + b[j++];
    } else {
      out << "- " + a[i++];
    }
  }
  while (!out.isEmpty() && out.last().trimmed().isEmpty()) out.removeLast();
  return out;
}

}  // namespace paddock::gui
