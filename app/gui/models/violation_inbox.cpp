#include "violation_inbox.h"

#include <algorithm>
#include <map>

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "app_paths.h"
#include "engine/ir.h"
#include "engine/session/event.h"
#include "platform/read_file.h"

namespace paddock::gui {
namespace {

QString tier_file(const QString& tier, const QString& project) {
  if (tier == "user-global") return AppPaths::configDir().isEmpty() ? QString() : AppPaths::configDir() + "/policy.yaml";
  if (project.isEmpty()) return {};
  if (tier == "repository") return project + "/.paddock/policy.yaml";
  if (tier == "local-override") return project + "/.paddock/local.yaml";
  return {};
}

QString project_of(const QString& session_dir) {
  platform::ReadOptions o;
  o.max_bytes = std::size_t{64} << 20;
  o.no_follow = true;
  auto bytes = platform::read_file_if_exists(QFile::encodeName(session_dir + "/ir.json").toStdString(), o);
  if (!bytes.ok() || !*bytes) return {};
  auto j = nlohmann::json::parse(**bytes, nullptr, false);
  if (j.is_discarded()) return {};
  auto ir = ir_from_json(j);
  return ir.ok() ? QString::fromStdString(ir->meta.project) : QString();
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
    default: return {};
  }
}

QHash<int, QByteArray> ViolationInbox::roleNames() const {
  return {{HostRole, "host"}, {PortsRole, "ports"}, {CountRole, "count"}, {RuleRole, "rule"},
          {ReasonRole, "reason"}, {ProjectRole, "project"}, {LastSeenRole, "lastSeen"}};
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
    QString project;
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
        project = project_of(dir);
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
      if (g.project.isEmpty()) g.project = project;
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
}

QVariantList ViolationInbox::fixTiers(const QString& project) {
  QVariantList out;
  const auto add = [&](const QString& tier, const QString& label) {
    const QString f = tier_file(tier, project);
    if (!f.isEmpty()) out << QVariantMap{{"tier", tier}, {"label", label}, {"file", f}};
  };
  add("local-override", tr("This checkout only (.paddock/local.yaml)"));
  add("repository", tr("The repository's policy (.paddock/policy.yaml, shared with the code)"));
  add("user-global", tr("All my projects (~/.config/paddock/policy.yaml)"));
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
  const QString file = tier_file(tier, project);
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
  pending_.clear();
  doc_.reset();
  emit pendingChanged();
  emit fixSaved(file, host);
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
