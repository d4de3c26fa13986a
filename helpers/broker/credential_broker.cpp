// The credential broker's machinery: one I/O thread (TLS and the exchanges), one lookup thread.
// Each accepted connection is a CredentialConnection (credential_connection.h) that owns its
// upstream TLS stream; the core keeps the TLS context, the counters and the connections to close.
#include "helpers/broker/credential_broker.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "engine/session/credential_records.h"
#include "engine/session/event.h"
#include "helpers/broker/credential_connection.h"

namespace paddock::broker {

CredentialCore::CredentialCore(CredentialBrokerOptions options)
    : options_(std::move(options)), tls_(asio::ssl::context::tls_client) {
  io_.emplace(1);
  work_.emplace(asio::make_work_guard(*io_));
  for (auto& spec : options_.credentials) {
    auto s = std::make_unique<CredentialState>();
    s->spec = spec;
    states_.push_back(std::move(s));
  }
}

CredentialCore::~CredentialCore() {
  stop();
  acceptors_.clear();
  work_.reset();
  io_.reset();
}

Status CredentialCore::setup_tls() {
  asio::error_code ec;
  tls_.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1,
                   ec);
  if (ec) return internal_error("credential broker: TLS options: " + ec.message());
  // The system's store as this OpenSSL was built to find it, never SSL_CERT_FILE or
  // SSL_CERT_DIR from this process's environment.
  if (SSL_CTX_load_verify_locations(tls_.native_handle(), X509_get_default_cert_file(), X509_get_default_cert_dir()) != 1 &&
      SSL_CTX_load_verify_locations(tls_.native_handle(), nullptr, X509_get_default_cert_dir()) != 1)
    return refused(std::string("credential broker: cannot load the system's CA certificates from ") +
                   X509_get_default_cert_file() + " or " + X509_get_default_cert_dir() + " (install ca-certificates)");
  if (!options_.extra_ca_file.empty()) {
    tls_.load_verify_file(options_.extra_ca_file, ec);
    if (ec) return refused("credential broker: cannot load the CA file " + options_.extra_ca_file + ": " + ec.message());
  }
  tls_.set_verify_mode(asio::ssl::verify_peer);
  // Only HTTP/1.1 is spoken upstream: say so, so that no server picks HTTP/2.
  static const unsigned char kAlpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  SSL_CTX_set_alpn_protos(tls_.native_handle(), kAlpn, sizeof kAlpn);
  return Status::Ok();
}

Status CredentialCore::serve() {
  if (options_.listeners.size() != states_.size())
    return internal_error("credential broker: one listening socket per credential expected");
  for (std::size_t i = 0; i < states_.size(); ++i) {
    platform::UniqueFd& fd = options_.listeners[i];
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (!fd.valid() || getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0 ||
        (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
      return internal_error("credential broker: the endpoint of " + states_[i]->spec.name + " is not a TCP socket");
    int listening = 0;
    socklen_t optlen = sizeof listening;
    if ((getsockopt(fd.get(), SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) != 0 || !listening) &&
        ::listen(fd.get(), 64) != 0)
      return internal_error(std::string("credential broker: listen: ") + std::strerror(errno));
    auto a = std::make_unique<asio::ip::tcp::acceptor>(*io_);
    asio::error_code ec;
    a->assign(ss.ss_family == AF_INET ? asio::ip::tcp::v4() : asio::ip::tcp::v6(), fd.get(), ec);
    if (ec) return internal_error("credential broker: cannot adopt the endpoint socket: " + ec.message());
    fd.release();
    acceptors_.push_back(std::move(a));
  }
  for (std::size_t i = 0; i < acceptors_.size(); ++i) accept_next(i);
  thread_ = std::thread([this] {
    // A write to an agent that went away fails with EPIPE on this thread instead of a signal.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    io_->run();
  });
  return Status::Ok();
}

void CredentialCore::accept_next(std::size_t index) {
  acceptors_[index]->async_accept([this, index](const asio::error_code& ec, asio::ip::tcp::socket s) {
    if (stopped_) return;
    if (ec) {
      if (ec == asio::error::operation_aborted) return;
      notice("accept_failed", "credential endpoint " + states_[index]->spec.name + ": accept: " + ec.message());
      auto timer = std::make_shared<asio::steady_timer>(*io_, std::chrono::milliseconds(100));
      timer->async_wait([this, index, timer](const asio::error_code& e) {
        if (!e && !stopped_) accept_next(index);
      });
      return;
    }
    if (live_ >= options_.max_connections) {
      notice("connection_limit", std::to_string(options_.max_connections) +
                                     " credential connections open, the most this session serves; closed a new one");
      asio::error_code ignored;
      s.close(ignored);
    } else {
      ++live_;
      auto c = std::make_shared<CredentialConnection>(*this, *states_[index], std::move(s));
      connections_.insert(c);
      c->start();
    }
    accept_next(index);
  });
}

void CredentialCore::connection_closed(CredentialConnection* c) {
  // On the I/O thread (the connection's last handler): forget it.
  for (auto it = connections_.begin(); it != connections_.end();) {
    auto locked = it->lock();
    it = (!locked || locked.get() == c) ? connections_.erase(it) : std::next(it);
  }
  if (live_ > 0) --live_;
}

void CredentialCore::emit(nlohmann::json event) const {
  if (!options_.events) return;
  try {
    options_.events(std::move(event));
  } catch (...) {
    // Events are advisory: a failing sink never takes the broker down.
  }
}

void CredentialCore::notice(const std::string& kind, const std::string& message) const {
  emit(session::event_json(session::EventType::kNotice,
                           {{"source", "credential_broker"}, {"kind", kind}, {"message", message}}));
}

void CredentialCore::stop() {
  if (stopped_.exchange(true)) return;
  if (thread_.joinable()) {
    asio::post(*io_, [this] {
      for (auto& a : acceptors_) {
        asio::error_code ignored;
        a->close(ignored);
      }
      std::vector<std::shared_ptr<CredentialConnection>> open;
      for (const auto& w : connections_)
        if (auto c = w.lock()) open.push_back(std::move(c));
      for (auto& c : open) c->close();
    });
    work_.reset();
    // Closed connections finish their last handlers quickly; then whatever is left stops.
    for (int i = 0; i < 200 && live_ > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    io_->stop();
    thread_.join();
  }
  lookups_.join();
}

std::vector<session::CredentialUsage> CredentialCore::usage() const {
  std::vector<session::CredentialUsage> out;
  for (const auto& s : states_) {
    session::CredentialUsage u;
    u.name = s->spec.name;
    u.upstream = s->spec.upstream + ":" + std::to_string(s->spec.upstream_port);
    u.requests = s->relayed.load();
    u.refused = s->refused.load();
    u.bytes_tx = s->bytes_tx.load();
    u.bytes_rx = s->bytes_rx.load();
    std::lock_guard lock(s->mu);
    u.last_used = s->last_used;
    out.push_back(std::move(u));
  }
  return out;
}

Result<std::unique_ptr<CredentialBroker>> CredentialBroker::start(CredentialBrokerOptions options) {
  if (!options.resolver) return internal_error("credential broker: no resolver");
  for (const auto& c : options.credentials) {
    if (!session::valid_credential_value(c.value))
      return bad_input("credential " + c.name + ": the stored key is not one a header can carry (printable ASCII, no spaces)");
    if (!session::valid_credential_value(c.placeholder))
      return bad_input("credential " + c.name + ": the placeholder is not one a header can carry");
    if (c.upstream.empty() || c.upstream_port < 1 || c.upstream_port > 65535 || c.endpoint_port < 1)
      return bad_input("credential " + c.name + ": no upstream or endpoint");
  }
  auto core = std::make_shared<CredentialCore>(std::move(options));
  if (Status s = core->setup_tls(); !s) return s.error();
  if (Status s = core->serve(); !s) return s.error();
  return std::unique_ptr<CredentialBroker>(new CredentialBroker(std::move(core)));
}

CredentialBroker::CredentialBroker(std::shared_ptr<CredentialCore> core) : core_(std::move(core)) {}
CredentialBroker::~CredentialBroker() { stop(); }
void CredentialBroker::stop() { core_->stop(); }
std::vector<session::CredentialUsage> CredentialBroker::usage() const { return core_->usage(); }

}  // namespace paddock::broker
