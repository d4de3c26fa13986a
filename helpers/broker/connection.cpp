#include "helpers/broker/connection.h"

#include "engine/session/event.h"
#include "helpers/broker/address_vetting.h"
#include "helpers/broker/broker_core.h"
#include "helpers/broker/host_name.h"
#include "helpers/broker/request_parser.h"
#include "helpers/broker/responses.h"

namespace paddock::broker {

using session::EventType;
namespace {

constexpr std::size_t kMaxSocksBytes = 600;  // greeting (<= 257) + request (<= 262)

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 200)) out.push_back((c >= 0x20 && c < 0x7f) ? c : '?');
  return out;
}

}  // namespace

Connection::Connection(BrokerCore& core, asio::ip::tcp::socket socket)
    : core_(core), client_(std::move(socket)), upstream_(client_.get_executor()),
      timer_(client_.get_executor()) {}

Connection::~Connection() { core_.connection_closed(); }

void Connection::start() {
  timer_.expires_after(core_.options().header_timeout);
  timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (!ec && !self->request_parsed_ && !self->closed_)
      self->drop("header_timeout", "no complete request within the header timeout");
  });
  read_more();
}

void Connection::shutdown() {
  asio::post(client_.get_executor(), [self = shared_from_this()] { self->close(); });
}

void Connection::read_more() {
  if (closed_) return;
  client_.async_read_some(asio::buffer(read_buf_), [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
    if (self->closed_) return;
    if (ec) {
      self->close();  // the client went away before finishing its request: nothing to report
      return;
    }
    self->buffer_.append(self->read_buf_.data(), n);
    self->on_bytes();
  });
}

void Connection::on_bytes() {
  if (protocol_ == Protocol::kUnknown) {
    if (buffer_.empty()) return read_more();
    protocol_ = static_cast<unsigned char>(buffer_[0]) == 0x05 ? Protocol::kSocks5 : Protocol::kHttp;
  }
  if (protocol_ == Protocol::kHttp) return on_http();
  on_socks();
}

void Connection::on_http() {
  ConnectRequest r = parse_http_connect(buffer_);
  switch (r.status) {
    case ParseStatus::kNeedMore:
      return read_more();
    case ParseStatus::kMalformed:
      return drop("malformed_request", "malformed HTTP request: " + r.error);
    case ParseStatus::kOversize:
      return drop("oversize_request", "HTTP request header larger than 8 KiB");
    case ParseStatus::kNotConnect:
      core_.emit(session::event_json(session::NetRequest{"", 0, "http", "deny", "protocol: only CONNECT is brokered",
                                                         "plain-HTTP " + printable(r.method) + " answered 501", ""}));
      return write_then_close(http_not_implemented(r.method));
    case ParseStatus::kOk:
      break;
  }
  leftover_ = buffer_.substr(r.consumed);
  buffer_.clear();
  handle_target(r.host, r.port);
}

void Connection::on_socks() {
  if (buffer_.size() > kMaxSocksBytes) return drop("oversize_request", "SOCKS5 handshake larger than 600 bytes");
  if (!socks_greeted_) {
    Socks5Greeting g = parse_socks5_greeting(buffer_);
    if (g.status == ParseStatus::kNeedMore) return read_more();
    if (g.status != ParseStatus::kOk) return drop("malformed_request", "malformed SOCKS5 greeting: " + g.error);
    if (!g.offers_no_auth) {
      core_.notice("socks5_no_method", "SOCKS5 client offered no 'no authentication' method");
      return write_then_close(std::string{'\x05', '\xff'});
    }
    buffer_.erase(0, g.consumed);
    socks_greeted_ = true;
    auto reply = std::make_shared<std::string>(std::string{'\x05', '\x00'});
    asio::async_write(client_, asio::buffer(*reply), [self = shared_from_this(), reply](const asio::error_code& ec, std::size_t) {
      if (ec || self->closed_) return self->close();
      self->on_bytes();
    });
    return;
  }
  Socks5Request r = parse_socks5_request(buffer_);
  if (r.status == ParseStatus::kNeedMore) return read_more();
  if (r.status != ParseStatus::kOk) return drop("malformed_request", "malformed SOCKS5 request: " + r.error);
  leftover_ = buffer_.substr(r.consumed);
  buffer_.clear();
  if (r.command != 0x01) {
    host_ = printable(r.host);
    port_ = r.port;
    core_.emit(request_event("deny", "protocol: only SOCKS5 CONNECT is brokered",
                             "SOCKS5 command " + std::to_string(r.command) + " is not supported"));
    return write_then_close(socks5_reply(kSocksCommandNotSupported));
  }
  handle_target(r.host, r.port);
}

void Connection::handle_target(const std::string& raw_host, int port) {
  request_parsed_ = true;
  timer_.cancel();
  port_ = port;
  HostCheck c = normalize_host(raw_host);
  if (!c.ok) {
    host_ = printable(raw_host);
    return refuse("host: " + c.reason, "only DNS host names matching the policy are brokered");
  }
  host_ = c.host;
  if (auto key = core_.policy().quota_key(host_)) {
    quota_key_ = *key;
    if (core_.ledger().remaining(*key) == 0)
      return refuse("egress.quotas: " + *key + " exhausted (" + std::to_string(core_.ledger().limit(*key)) + " bytes)",
                    "the session's byte quota for this domain is used up; new connections are refused");
  }
  PolicyDecision d = core_.policy().decide(host_, port_);
  if (d.verdict == Verdict::kAsk && core_.session_allowed(host_)) {
    d.verdict = Verdict::kAllow;
    d.rule = "ask: " + host_ + " allowed for this session";
    d.reason = "the user allowed this domain for the session";
  }
  switch (d.verdict) {
    case Verdict::kDeny: return refuse(d.rule, d.reason);
    case Verdict::kAsk: return ask_user(d);
    case Verdict::kAllow: return allowed(d);
  }
}

void Connection::ask_user(const PolicyDecision& decision) {
  const AskHandler& handler = core_.options().ask;
  if (!handler) return refuse(decision.rule + " (no one to ask)", "mode ask, but nothing answers asks in this run");
  ask_id_ = core_.next_ask_id();
  ask_pending_ = true;
  auto timeout = core_.ask_timeout();
  // The "ask" event itself is the AskHandler's to emit (the helper adds its control-socket id).
  timer_.expires_after(timeout);
  timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (!ec) self->on_ask_reply(-1);
  });
  std::weak_ptr<Connection> weak = weak_from_this();
  auto live = core_.liveness();
  auto exec = client_.get_executor();
  AskReply reply = [weak, live, exec](AskDecision a) {
    std::lock_guard lock(live->mu);
    if (!live->alive) return;
    if (auto self = weak.lock())
      asio::post(exec, [self, a] { self->on_ask_reply(static_cast<int>(a)); });
  };
  try {
    handler(ask_id_, host_, port_, std::move(reply));
  } catch (...) {
    on_ask_reply(static_cast<int>(AskDecision::kDeny));
  }
}

void Connection::on_ask_reply(int decision) {
  if (!ask_pending_ || closed_) return;
  ask_pending_ = false;
  timer_.cancel();
  if (decision < 0)
    return refuse("ask: no answer within " + std::to_string(core_.ask_timeout().count()) + " ms",
                  "nobody allowed this domain in time, so it is denied");
  switch (static_cast<AskDecision>(decision)) {
    case AskDecision::kDeny:
      return refuse("ask: " + host_ + " denied by the user", "the user denied this domain");
    case AskDecision::kAllowSession:
      core_.allow_for_session(host_);
      return allowed({Verdict::kAllow, "ask: " + host_ + " allowed for this session", "the user allowed it"});
    case AskDecision::kAllowOnce:
      return allowed({Verdict::kAllow, "ask: " + host_ + " allowed once", "the user allowed it once"});
  }
  refuse("ask: unknown reply", "the ask reply was not understood");
}

void Connection::allowed(const PolicyDecision& decision) {
  rule_ = decision.rule;
  auto resolver = core_.options().resolver;
  auto exec = client_.get_executor();
  if (!resolver->may_block()) {
    try {
      auto r = resolver->resolve(host_);
      if (r.ok()) return on_resolved(std::move(r.value()), "");
      return on_resolved({}, r.error().message);
    } catch (const std::exception& e) {
      return on_resolved({}, std::string("resolver failed: ") + e.what());
    }
  }
  asio::post(core_.lookups(), [self = shared_from_this(), resolver, exec, host = host_] {
    std::vector<IpAddress> answers;
    std::string error;
    try {
      auto r = resolver->resolve(host);
      if (r.ok()) answers = std::move(r.value());
      else error = r.error().message;
    } catch (const std::exception& e) {
      error = std::string("resolver failed: ") + e.what();
    }
    asio::post(exec, [self, answers = std::move(answers), error = std::move(error)]() mutable {
      self->on_resolved(std::move(answers), std::move(error));
    });
  });
}

void Connection::on_resolved(std::vector<IpAddress> answers, std::string error) {
  if (closed_) return;
  std::vector<std::string> ips;
  for (const auto& a : answers) ips.push_back(a.to_string());
  if (!error.empty()) {
    core_.emit(session::event_json(session::DnsResolved{host_, ips, "failed", error}));
    core_.emit(request_event("deny", "dns: lookup failed", error));
    return fail_upstream(error);
  }
  AnswerVerdict v = vet_answer_set(answers, core_.options().vetting, host_);
  core_.emit(session::event_json(session::DnsResolved{host_, std::move(ips), v.ok ? "allowed" : "refused",
                                                      v.ok ? "every address passed vetting" : v.reason}));
  if (!v.ok)
    return refuse(v.reason, "the host's DNS answer contains an address the sandbox never connects to");
  core_.emit(request_event("allow", rule_, "allowed; connecting to the vetted address"));
  answers_ = std::move(answers);
  connect_next();
}

void Connection::connect_next() {
  if (closed_) return;
  if (next_answer_ >= answers_.size()) return fail_upstream("no vetted address accepted the connection");
  const IpAddress& a = answers_[next_answer_++];
  asio::ip::address addr = a.v6 ? asio::ip::address(asio::ip::address_v6(a.bytes))
                                 : asio::ip::address(asio::ip::address_v4(a.v4_value()));
  asio::ip::tcp::endpoint ep(addr, static_cast<unsigned short>(port_));
  pinned_ip_ = a.to_string();
  asio::error_code ignored;
  upstream_.close(ignored);
  int attempt = ++attempt_;
  timer_.expires_after(core_.options().connect_timeout);
  timer_.async_wait([self = shared_from_this(), attempt](const asio::error_code& ec) {
    if (!ec && attempt == self->attempt_) {
      asio::error_code e;
      self->upstream_.close(e);  // the pending connect completes with operation_aborted
    }
  });
  // Connect to the vetted address itself: no second lookup, so the answer cannot change.
  upstream_.async_connect(ep, [self = shared_from_this(), attempt](const asio::error_code& ec) {
    if (self->closed_ || attempt != self->attempt_) return;
    self->timer_.cancel();
    if (ec) return self->connect_next();
    self->on_connected();
  });
}

void Connection::on_connected() {
  ++attempt_;  // invalidate the connect timeout
  auto reply = std::make_shared<std::string>(protocol_ == Protocol::kSocks5 ? socks5_reply(kSocksSucceeded)
                                                                             : http_established());
  asio::async_write(client_, asio::buffer(*reply), [self = shared_from_this(), reply](const asio::error_code& ec, std::size_t) {
    if (ec || self->closed_) return self->close();
    if (self->leftover_.empty()) return self->start_tunnel();
    asio::async_write(self->upstream_, asio::buffer(self->leftover_), [self](const asio::error_code& ec2, std::size_t) {
      if (ec2 || self->closed_) return self->close();
      self->start_tunnel();
    });
  });
}

void Connection::start_tunnel() {
  std::int64_t early = static_cast<std::int64_t>(leftover_.size());
  if (!quota_key_.empty() && early > 0) core_.ledger().add(quota_key_, early);
  auto events = [core = &core_](nlohmann::json e) { core->emit(std::move(e)); };
  tunnel_.emplace(&core_.ledger(), events, client_, upstream_, quota_key_, weak_from_this(), [this, early](const Tunnel::Totals& t) {
    core_.emit(session::event_json(session::NetEgress{host_, pinned_ip_, port_, t.tx + early, t.rx, t.end}));
    closed_ = true;
    timer_.cancel();
  });
  std::string error;
  if (!tunnel_->start(&error)) {
    core_.notice("tunnel_failed", host_ + ":" + std::to_string(port_) + ": " + error);
    tunnel_.reset();
    close();
  }
}

nlohmann::json Connection::request_event(const char* decision, const std::string& rule,
                                         const std::string& reason) const {
  // ask_id names the ask this connection raised, so that its settling (by an answer or the
  // timeout) can be matched to it.
  return session::event_json(session::NetRequest{host_, port_, protocol_ == Protocol::kSocks5 ? "socks5" : "connect",
                                                 decision, rule, reason, ask_id_});
}

void Connection::refuse(const std::string& rule, const std::string& reason, bool emit_request) {
  if (emit_request) core_.emit(request_event("deny", rule, reason));
  if (protocol_ == Protocol::kSocks5) return write_then_close(socks5_reply(kSocksNotAllowed));
  write_then_close(http_forbidden(host_, port_, rule, reason));
}

void Connection::fail_upstream(const std::string& why) {
  if (protocol_ == Protocol::kSocks5) return write_then_close(socks5_reply(kSocksHostUnreachable));
  write_then_close(http_bad_gateway(host_, port_, why));
}

void Connection::drop(const std::string& kind, const std::string& message) {
  core_.notice(kind, message);
  close();
}

void Connection::write_then_close(std::string bytes) {
  if (closed_) return;
  request_parsed_ = true;
  timer_.cancel();
  auto data = std::make_shared<std::string>(std::move(bytes));
  asio::async_write(client_, asio::buffer(*data), [self = shared_from_this(), data](const asio::error_code& ec, std::size_t) {
    if (ec) return self->close();
    self->drain_then_close();
  });
}

// Half-close and read until the client closes (bounded by a timer), so that unread request bytes
// do not turn our close into a reset that destroys the response before the client reads it.
void Connection::drain_then_close() {
  asio::error_code ignored;
  client_.shutdown(asio::socket_base::shutdown_send, ignored);
  timer_.expires_after(std::chrono::seconds(2));
  timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (!ec) self->close();
  });
  drain_read();
}

void Connection::drain_read() {
  client_.async_read_some(asio::buffer(read_buf_), [self = shared_from_this()](const asio::error_code& ec, std::size_t) {
    if (ec || self->closed_) return self->close();
    self->drain_read();
  });
}

void Connection::close() {
  if (tunnel_) tunnel_->close("closed");
  if (closed_ && !client_.is_open()) return;
  closed_ = true;
  asio::error_code ignored;
  timer_.cancel();
  client_.close(ignored);
  upstream_.close(ignored);
}

}  // namespace paddock::broker
