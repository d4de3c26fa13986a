#include "tray_menu_model.h"

namespace paddock::gui {

namespace {
constexpr int kMaxRecent = 5;
}

TrayMenuModel::TrayMenuModel(QObject* parent) : QAbstractListModel(parent) { rebuild(); }

int TrayMenuModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

QVariant TrayMenuModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Entry& e = entries_[static_cast<size_t>(index.row())];
  switch (role) {
    case KindRole: return static_cast<int>(e.kind);
    case Qt::DisplayRole:
    case TextRole: return e.text;
    case TargetRole: return e.target;
    default: return {};
  }
}

QHash<int, QByteArray> TrayMenuModel::roleNames() const {
  return {{KindRole, "kind"}, {TextRole, "text"}, {TargetRole, "target"}};
}

void TrayMenuModel::setRunning(const QVariantList& v) {
  if (v == running_) return;
  running_ = v;
  rebuild();
}

void TrayMenuModel::setRecent(const QVariantList& v) {
  if (v == recent_) return;
  recent_ = v;
  rebuild();
}

void TrayMenuModel::rebuild() {
  beginResetModel();
  entries_.clear();
  if (!running_.isEmpty()) {
    entries_.push_back({Header, tr("Running (%n)", "", static_cast<int>(running_.size())), {}});
    for (const QVariant& v : running_) {
      const QVariantMap m = v.toMap();
      entries_.push_back({Session, m.value("label").toString(), m.value("dir").toString()});
    }
    entries_.push_back({Separator, {}, {}});
  }
  if (!recent_.isEmpty()) {
    entries_.push_back({Header, tr("Launch again"), {}});
    for (int i = 0; i < recent_.size() && i < kMaxRecent; ++i)
      entries_.push_back({Recent, recent_.at(i).toMap().value("label").toString(), QString::number(i)});
    entries_.push_back({Separator, {}, {}});
  }
  entries_.push_back({Show, tr("Show Paddock"), {}});
  entries_.push_back({Quit, tr("Quit Paddock…"), {}});
  endResetModel();
  emit changed();
}

QStringList TrayMenuModel::describe() const {
  static const char* kNames[] = {"header", "session", "recent", "separator", "show", "quit"};
  QStringList out;
  for (const Entry& e : entries_)
    out << QString("%1: %2").arg(kNames[e.kind], e.text) + (e.target.isEmpty() ? "" : " -> " + e.target);
  return out;
}

}  // namespace paddock::gui
