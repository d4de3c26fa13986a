// A client of one session's control socket ($XDG_RUNTIME_DIR/paddock/<id>.sock, docs/cli.md): JSON lines
// both ways, encoded by engine/session/control.h. The helper answers every command with
// {"ok":...}; after `subscribe` it also sends every event as it happens ({"event":...}). Lines
// that do not parse are reported, never guessed at.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QLocalSocket>
#include <QObject>
#include <QString>

#include "engine/session/control.h"

namespace paddock::gui {

class ControlClient : public QObject {
  Q_OBJECT

 public:
  explicit ControlClient(QObject* parent = nullptr);
  // Silent: the socket's own destructor aborts the connection and says so, when the owner whose
  // handlers would hear it is already half destroyed (docs/architecture.md, "The app's lifetimes").
  ~ControlClient() override;

  // Connects (asynchronously) to the socket at `path`; `connected()` or `failed()` follows.
  void open(const QString& path);
  void close();
  bool isOpen() const { return socket_.state() == QLocalSocket::ConnectedState; }
  // Connected or on the way there.
  bool isBusy() const { return socket_.state() != QLocalSocket::UnconnectedState; }
  // Queued until the socket is connected; dropped (with `failed`) if it never connects.
  void send(const session::ControlRequest& command);

 signals:
  void connected();
  void message(const QJsonObject& line);
  void failed(const QString& reason);
  void closed();

 private:
  void onReadyRead();

  QLocalSocket socket_;
  QByteArray partial_;
  QByteArray queued_;
};

}  // namespace paddock::gui
