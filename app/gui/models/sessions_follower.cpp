#include "sessions_follower.h"

namespace paddock::gui {

void SessionsFollower::setSessions(SessionsModel* s) {
  if (s == sessions_) return;
  if (sessions_) sessions_->disconnect(this);
  sessions_ = s;
  if (sessions_) {
    connect(sessions_, &QAbstractItemModel::modelReset, this, &SessionsFollower::scan);
    connect(sessions_, &QAbstractItemModel::rowsInserted, this, &SessionsFollower::scan);
    connect(sessions_, &QAbstractItemModel::rowsRemoved, this, &SessionsFollower::scan);
    connect(sessions_, &QAbstractItemModel::dataChanged, this, &SessionsFollower::scan);
  }
  emit sessionsChanged();
  scan();
}

}  // namespace paddock::gui
