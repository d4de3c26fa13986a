// Base for every list model of the app: a QAbstractListModel with `status` and `errorString`.
#pragma once

#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include "model_status.h"

namespace paddock::gui {

class StatusListModel : public QAbstractListModel {
  Q_OBJECT
  QML_ANONYMOUS
  Q_PROPERTY(paddock::gui::ModelStatus::Value status READ status NOTIFY statusChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
  Q_PROPERTY(int count READ count NOTIFY countChanged)

 public:
  using QAbstractListModel::QAbstractListModel;

  ModelStatus::Value status() const { return status_; }
  QString errorString() const { return error_; }
  int count() const { return rowCount(); }

 signals:
  void statusChanged();
  void countChanged();

 protected:
  void setStatus(ModelStatus::Value status, const QString& error = {}) {
    if (status == status_ && error == error_) return;
    status_ = status;
    error_ = error;
    emit statusChanged();
  }

 private:
  ModelStatus::Value status_ = ModelStatus::None;
  QString error_;
};

}  // namespace paddock::gui
