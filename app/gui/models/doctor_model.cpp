#include "doctor_model.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "app_paths.h"

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

DoctorModel::~DoctorModel() {
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(1000);
  }
}

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
  if (process_) return;  // one probe at a time
  if (!QFileInfo(helper_).isExecutable()) {
    setStatus(ModelStatus::Error,
              tr("paddock-helper not found at %1; build the paddock-helper target or reinstall")
                  .arg(helper_));
    return;
  }
  setStatus(ModelStatus::Loading);
  process_ = std::make_unique<QProcess>();
  connect(process_.get(), &QProcess::finished, this, &DoctorModel::finished);
  connect(process_.get(), &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    setStatus(ModelStatus::Error, tr("could not start %1: %2").arg(helper_, process_->errorString()));
    process_.release()->deleteLater();
  });
  process_->start(helper_, {"probe"});
}

void DoctorModel::finished(int exit_code, QProcess::ExitStatus status) {
  std::unique_ptr<QProcess> p = std::move(process_);
  p->disconnect(this);
  const QByteArray out = p->readAllStandardOutput();
  const QString err = QString::fromUtf8(p->readAllStandardError()).trimmed().section('\n', 0, 0);
  p.release()->deleteLater();  // we are inside its signal
  if (status != QProcess::NormalExit || exit_code != 0) {
    setStatus(ModelStatus::Error, tr("%1 probe failed (exit %2)%3")
                                      .arg(helper_).arg(exit_code).arg(err.isEmpty() ? "" : ": " + err));
    return;
  }
  QJsonParseError perr{};
  auto doc = QJsonDocument::fromJson(out, &perr);
  if (!doc.isObject()) {
    setStatus(ModelStatus::Error, tr("%1 probe printed something that is not a JSON object: %2")
                                      .arg(helper_, perr.errorString()));
    return;
  }
  std::vector<Row> rows;
  flatten(doc.object(), QString(), rows);
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  emit countChanged();
  setStatus(ModelStatus::Ready);
}

}  // namespace paddock::gui
