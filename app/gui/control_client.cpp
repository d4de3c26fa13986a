#include "control_client.h"

#include <QJsonDocument>

namespace paddock::gui {

namespace {
// A helper never sends a line this long; a peer that does is not a Paddock session.
constexpr qsizetype kMaxLine = 1 << 20;
}  // namespace

ControlClient::ControlClient(QObject* parent) : QObject(parent) {
  connect(&socket_, &QLocalSocket::connected, this, [this] {
    if (!queued_.isEmpty()) socket_.write(std::exchange(queued_, {}));
    emit connected();
  });
  connect(&socket_, &QLocalSocket::readyRead, this, &ControlClient::onReadyRead);
  connect(&socket_, &QLocalSocket::disconnected, this, &ControlClient::closed);
  connect(&socket_, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError e) {
    // The peer closing is the normal end of a session, reported by `closed`, not as a failure.
    if (e == QLocalSocket::PeerClosedError) return;
    queued_.clear();
    emit failed(socket_.errorString());
  });
}

ControlClient::~ControlClient() { socket_.disconnect(this); }

void ControlClient::open(const QString& path) {
  close();
  socket_.connectToServer(path);
}

void ControlClient::close() {
  partial_.clear();
  queued_.clear();
  if (socket_.state() != QLocalSocket::UnconnectedState) socket_.abort();
}

void ControlClient::send(const session::ControlRequest& command) {
  QByteArray line = QByteArray::fromStdString(session::encode_control_request(command)) + '\n';
  if (isOpen()) {
    socket_.write(line);
    socket_.flush();  // an answer must not wait for the next event-loop turn
  } else
    queued_ += line;
}

void ControlClient::onReadyRead() {
  partial_ += socket_.readAll();
  qsizetype nl;
  while ((nl = partial_.indexOf('\n')) >= 0) {
    const QByteArray line = partial_.left(nl);
    partial_.remove(0, nl + 1);
    QJsonParseError err{};
    const auto doc = QJsonDocument::fromJson(line, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
      emit failed(tr("the session sent a line that is not a JSON object: %1").arg(err.errorString()));
      continue;
    }
    emit message(doc.object());
  }
  if (partial_.size() > kMaxLine) {
    emit failed(tr("the session sent a line longer than 1 MiB; disconnected"));
    close();
  }
}

}  // namespace paddock::gui
