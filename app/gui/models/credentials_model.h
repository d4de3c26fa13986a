// The Settings page's Credentials (docs/credentials.md): the keys stored on this host for the
// credential broker (platform/credential_store.h, the same store `paddock credentials` uses),
// each with the host it is bound to, where its value is kept, the agents whose presets use it and
// when a session last used it; adding, replacing and removing one. A value goes from the form to
// the store and nowhere else: the model never keeps it, and no row ever shows it.
#pragma once

#include <vector>

#include <QStringList>

#include "status_list_model.h"

namespace paddock::gui {

class CredentialsModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  // Where a new key goes now: the desktop's secret service, or the 0600 file (and why).
  Q_PROPERTY(QString storeDetail READ storeDetail NOTIFY storeChanged)
  Q_PROPERTY(bool secretService READ secretService NOTIFY storeChanged)
  // The names agent presets declare, for the add form.
  Q_PROPERTY(QStringList knownNames READ knownNames NOTIFY storeChanged)
  // True while an add, replace or remove runs (the secret service may prompt to unlock).
  Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)

 public:
  enum Role { NameRole = Qt::UserRole + 1, UpstreamRole, BackendRole, AgentsRole, LastUsedRole, LastSessionRole };
  Q_ENUM(Role)

  explicit CredentialsModel(QObject* parent = nullptr);
  ~CredentialsModel() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString storeDetail() const { return store_detail_; }
  bool secretService() const { return secret_service_; }
  QStringList knownNames() const { return known_names_; }
  bool busy() const { return busy_; }

  Q_INVOKABLE void reload();
  // The host an agent preset sends `name` to ("" when none or several do).
  Q_INVOKABLE QString upstreamFor(const QString& name) const;
  // On a worker thread; `finished` says how it went. `value` is dropped once handed to the store.
  Q_INVOKABLE void store(const QString& name, const QString& upstream, QString value, bool replace);
  Q_INVOKABLE void remove(const QString& name);

 signals:
  void storeChanged();
  void busyChanged();
  void finished(bool ok, const QString& message);

 private:
  struct Row {
    QString name, upstream, backend, agents, last_used, last_session;
  };
  void run_on_worker(std::function<QString()> work, const QString& done);
  std::vector<Row> rows_;
  QString store_detail_;
  bool secret_service_ = false;
  QStringList known_names_;
  std::map<std::string, std::string> upstreams_;  // declared name -> its one upstream ("" when several)
  bool busy_ = false;
};

}  // namespace paddock::gui
