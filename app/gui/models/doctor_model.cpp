#include "doctor_model.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "app_paths.h"
#include "backends/linux/kernel_probe.h"
#include "backends/linux/linux_plan.h"
#include "platform/probe.h"

namespace paddock::gui {
namespace {

QString scalar_text(const QJsonValue& v) {
  switch (v.type()) {
    case QJsonValue::Bool: return v.toBool() ? QStringLiteral("yes") : QStringLiteral("no");
    case QJsonValue::Double: return QString::number(v.toDouble());
    case QJsonValue::String: return v.toString().isEmpty() ? QStringLiteral("—") : v.toString();
    case QJsonValue::Array: {
      QStringList parts;
      for (const auto& a : v.toArray()) parts << scalar_text(a);
      return parts.isEmpty() ? QStringLiteral("—") : parts.join(", ");
    }
    case QJsonValue::Null:
    case QJsonValue::Undefined:
    case QJsonValue::Object: return QStringLiteral("—");
  }
  return {};
}

template <class Row>
void flatten(const QJsonObject& obj, const QString& prefix, std::vector<Row>& out) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const QString name = prefix.isEmpty() ? it.key() : prefix + "." + it.key();
    if (it.value().isObject()) flatten(it.value().toObject(), name, out);
    else out.push_back({name, scalar_text(it.value())});
  }
}

}  // namespace

DoctorModel::DoctorModel(QObject* parent) : StatusListModel(parent), helper_(AppPaths::helperPath()) {}

DoctorModel::~DoctorModel() = default;

int DoctorModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant DoctorModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& r = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case NameRole: return r.name;
    case ValueRole: return r.value;
    default: return {};
  }
}

QHash<int, QByteArray> DoctorModel::roleNames() const {
  return {{NameRole, "name"}, {ValueRole, "value"}};
}

void DoctorModel::setHelperPath(const QString& path) {
  if (path == helper_) return;
  helper_ = path;
  emit helperPathChanged();
}

void DoctorModel::refresh() {
  if (probing_) return;  // one probe at a time
  probing_ = true;
  setStatus(ModelStatus::Loading);
  struct ProbeOutcome {
    QByteArray probe;  // the JSON object, or empty with error
    QString error;
    QStringList refusals;
  };
  const std::string helper = helper_.toStdString();
  auto* watcher = new QFutureWatcher<ProbeOutcome>(this);
  connect(watcher, &QFutureWatcher<ProbeOutcome>::finished, this, [this, watcher] {
    const ProbeOutcome o = watcher->result();
    watcher->deleteLater();
    probing_ = false;
    if (!o.error.isEmpty()) {
      setStatus(ModelStatus::Error, o.error);
      return;
    }
    std::vector<Row> rows;
    flatten(QJsonDocument::fromJson(o.probe).object(), QString(), rows);
    beginResetModel();
    rows_ = std::move(rows);
    refusals_ = o.refusals;
    endResetModel();
    emit countChanged();
    setStatus(ModelStatus::Ready);
  });
  watcher->setFuture(QtConcurrent::run([helper] {
    auto probe = platform::run_probe(helper);
    if (!probe.ok()) return ProbeOutcome{{}, QString::fromStdString(probe.error().message), {}};
    ProbeOutcome out{QByteArray::fromStdString(probe->dump()), {}, {}};
    auto kernel = linux_backend::probe_from_json(*probe);
    if (!kernel.ok()) return ProbeOutcome{{}, QString::fromStdString(kernel.error().message), {}};
    for (const auto& line : linux_backend::linux_probe_refusals(*kernel)) out.refusals << QString::fromStdString(line);
    return out;
  }));
}

}  // namespace paddock::gui
