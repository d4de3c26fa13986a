// What the tray menu shows, as data (the tray icon builds its QMenu from it, and tests read it):
// the running sessions (each: open, stop), the recent launches (relaunch), Show Paddock and
// Quit. Fed from QML with the sessions list and the workspace's recent launches.
#pragma once

#include <vector>

#include <QAbstractListModel>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

namespace paddock::gui {

class TrayMenuModel : public QAbstractListModel {
  Q_OBJECT
  QML_ELEMENT
  // [{dir, label}] of the running sessions, newest first.
  Q_PROPERTY(QVariantList running READ running WRITE setRunning NOTIFY changed)
  // [{label}] of the recent launches, newest first (relaunch by index).
  Q_PROPERTY(QVariantList recent READ recent WRITE setRecent NOTIFY changed)
  Q_PROPERTY(int count READ count NOTIFY changed)

 public:
  // header: a disabled caption; session: a submenu with Open and Stop; recent: relaunch.
  enum Kind { Header, Session, Recent, Separator, Show, Quit };
  Q_ENUM(Kind)
  enum Role { KindRole = Qt::UserRole + 1, TextRole, TargetRole };

  explicit TrayMenuModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QVariantList running() const { return running_; }
  void setRunning(const QVariantList& v);
  QVariantList recent() const { return recent_; }
  void setRecent(const QVariantList& v);
  int count() const { return rowCount(); }

  struct Entry {
    Kind kind;
    QString text;
    QString target;  // session dir, or the recent launch's index
  };
  const std::vector<Entry>& entries() const { return entries_; }
  // Every entry as one line ("session: p · claude-code"): what a test compares.
  Q_INVOKABLE QStringList describe() const;

 signals:
  void changed();

 private:
  void rebuild();

  QVariantList running_, recent_;
  std::vector<Entry> entries_;
};

}  // namespace paddock::gui
