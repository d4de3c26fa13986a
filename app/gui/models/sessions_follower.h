// A front-end model that follows the sessions list (the audit and review inboxes): it looks at
// the sessions again whenever the list changes — a session appears, goes, or changes state.
#pragma once

#include <QObject>
#include <QPointer>
#include <QtQml/qqmlregistration.h>

#include "sessions_model.h"

namespace paddock::gui {

class SessionsFollower : public QObject {
  Q_OBJECT
  QML_ANONYMOUS
  Q_PROPERTY(paddock::gui::SessionsModel* sessions READ sessions WRITE setSessions NOTIFY sessionsChanged)

 public:
  using QObject::QObject;

  SessionsModel* sessions() const { return sessions_; }
  void setSessions(SessionsModel* s);

 signals:
  void sessionsChanged();

 protected:
  // Runs on the UI thread at every change of the list and once a list is set.
  virtual void scan() {}

 private:
  QPointer<SessionsModel> sessions_;
};

}  // namespace paddock::gui
