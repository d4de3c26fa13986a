#include "summary_model.h"

#include "engine/display_text.h"

namespace paddock::gui {

int SummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant SummaryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const SummaryLine& l = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case SectionRole: return QString::fromStdString(l.section);
    case LabelRole: return QString::fromStdString(l.label);
    case Qt::DisplayRole:
    case TextRole: return QString::fromStdString(display_text(l.text));
    case TierRole: return QString::fromStdString(l.tier);
    case FileRole: return QString::fromStdString(l.file);
    case RuleRole: return QString::fromStdString(display_text(l.rule));
    case WarnRole: return l.warn;
    case SubjectRole: return l.paths.empty() ? QString() : QString::fromStdString(l.paths.front());
    case DecidedRole: return QString::fromStdString(l.decided);
    case DetailRole: return QString::fromStdString(l.detail);
    default: return {};
  }
}

QHash<int, QByteArray> SummaryModel::roleNames() const {
  return {{SectionRole, "section"}, {LabelRole, "label"}, {TextRole, "text"}, {TierRole, "tier"},
          {FileRole, "file"},       {RuleRole, "rule"},   {WarnRole, "warn"}, {SubjectRole, "subject"},
          {DecidedRole, "decided"}, {DetailRole, "detail"}};
}

void SummaryModel::setLines(std::vector<SummaryLine> lines) {
  beginResetModel();
  rows_ = std::move(lines);
  endResetModel();
  emit countChanged();
  setStatus(ModelStatus::Ready);
}

void SummaryModel::setError(const QString& e) {
  beginResetModel();
  rows_.clear();
  endResetModel();
  emit countChanged();
  setStatus(ModelStatus::Error, e);
}

QString SummaryModel::enforcement() const {
  for (const auto& l : rows_)
    if (l.section == "Enforcement" && l.label == "On this machine") return QString::fromStdString(l.text);
  return {};
}

QString SummaryModel::enforcementDetail() const {
  for (const auto& l : rows_)
    if (l.section == "Enforcement" && l.label == "On this machine") return QString::fromStdString(l.detail);
  return {};
}

bool SummaryModel::enforcementWarns() const {
  for (const auto& l : rows_)
    if (l.section == "Enforcement" && l.warn) return true;
  return false;
}

QString SummaryModel::cardLine(const QString& project) const {
  return QString::fromStdString(card_line(rows_, project.toStdString()));
}

QString SummaryModel::asText() const {
  QStringList out;
  for (const auto& l : rows_)
    out << QString::fromStdString(l.section + " · " + l.label + ": " + l.text);
  return out.join('\n');
}

}  // namespace paddock::gui
