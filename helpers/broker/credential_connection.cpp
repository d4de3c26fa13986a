#include "helpers/broker/credential_connection.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>

#include "engine/session/event.h"
#include "helpers/broker/ip_address.h"
#include "helpers/common/event_log.h"

namespace paddock::broker {

using session::EventType;

CredentialConnection::CredentialConnection(CredentialCore& core, CredentialState& state, asio::ip::tcp::socket client)
    : core_(core), state_(state), client_(std::move(client)), timer_(core.io()) {}

CredentialConnection::~CredentialConnection() { core_.connection_closed(this); }

void CredentialConnection::start() {
  asio::error_code ignored;
  client_.set_option(asio::ip::tcp::no_delay(true), ignored);
  arm_timer(core_.options().header_timeout);
  read_head();
}

// The connection's one deadline (a request head, an idle connection, a connect): moving it costs
// no system call when it moves later, as it does once per exchange; the pending wait wakes at its
// old expiry and waits on to the new deadline. Only an earlier deadline re-arms the timer.
void CredentialConnection::arm_timer(std::chrono::milliseconds after) {
  deadline_ = std::chrono::steady_clock::now() + after;
  if (timer_waiting_ && timer_.expiry() <= deadline_) return;
  wait_for_deadline();
}

void CredentialConnection::disarm_timer() { deadline_ = std::chrono::steady_clock::time_point::max(); }

void CredentialConnection::wait_for_deadline() {
  timer_waiting_ = true;
  timer_.expires_at(deadline_);  // cancels a wait already pending: its handler finds an older generation
  timer_.async_wait([self = shared_from_this(), gen = ++timer_generation_](const asio::error_code& ec) {
    if (gen != self->timer_generation_) return;
    self->timer_waiting_ = false;
    if (ec || self->closed_ || self->deadline_ == std::chrono::steady_clock::time_point::max()) return;
    if (std::chrono::steady_clock::now() < self->deadline_) return self->wait_for_deadline();
    self->disarm_timer();
    if (self->connecting_) {
      // The upstream did not answer in time: abort the connect or handshake; its handler fails.
      self->timed_out_ = true;
      asio::error_code ignored;
      if (self->upstream_) self->upstream_->lowest_layer().close(ignored);
      return;
    }
    if (!self->in_exchange_) self->close();  // no (complete) request head in time
  });
}

// ---- the request head -------------------------------------------------------------------------

void CredentialConnection::read_head() {
  if (closed_) return;
  RequestHead head;
  std::string error;
  switch (parse_request_head(in_, head, error)) {
    case HeadStatus::kOk:
      req_ = std::move(head);
      return on_head();
    case HeadStatus::kMalformed:
      req_ = {};
      in_exchange_ = true;
      emitted_ = false;
      t0_ = std::chrono::steady_clock::now();
      return refuse(400, "credentials." + state_.spec.name + ": malformed request", error);
    case HeadStatus::kOversize:
      req_ = {};
      in_exchange_ = true;
      emitted_ = false;
      t0_ = std::chrono::steady_clock::now();
      return refuse(431, "credentials." + state_.spec.name + ": request head larger than 64 KiB",
                    "the request's headers may be at most 64 KiB");
    case HeadStatus::kNeedMore:
      break;
  }
  reading_client_ = true;
  client_.async_read_some(asio::buffer(client_buf_), [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
    self->reading_client_ = false;
    if (self->closed_) return;
    if (ec) return self->close();  // the agent went away between requests: nothing to report
    self->in_.append(self->client_buf_.data(), n);
    self->read_head();
  });
}

bool CredentialConnection::budget_refusal(std::string& rule, std::string& reason) {
  const CredentialSpec& s = state_.spec;
  if (s.max_bytes && state_.bytes_tx.load() + state_.bytes_rx.load() >= *s.max_bytes) {
    rule = "credentials." + s.name + ": byte budget used (" + std::to_string(*s.max_bytes) + " bytes)";
    reason = "this session's budget of " + std::to_string(*s.max_bytes) + " bytes for " + s.name +
             " is used up; later requests are refused";
    return true;
  }
  const std::int64_t n = state_.started.fetch_add(1);
  if (s.max_requests && n >= *s.max_requests) {
    --state_.started;
    rule = "credentials." + s.name + ": request budget used (" + std::to_string(*s.max_requests) + " requests)";
    reason = "this session's budget of " + std::to_string(*s.max_requests) + " requests for " + s.name +
             " is used up; later requests are refused";
    return true;
  }
  counted_ = true;
  return false;
}

void CredentialConnection::on_head() {
  disarm_timer();
  ++exchange_;
  in_exchange_ = true;
  emitted_ = false;
  t0_ = std::chrono::steady_clock::now();
  counted_ = false;
  client_close_ = false;
  upstream_close_ = false;
  request_done_ = false;
  response_done_ = false;
  resp_head_done_ = false;
  req_chunks_.reset();
  resp_chunks_.reset();
  req_body_ = resp_body_ = 0;
  req_left_ = resp_left_ = 0;
  status_ = 0;
  tx_ = rx_ = 0;
  resp_in_.clear();
  in_.erase(0, req_.size);
  std::string error;
  auto framing = request_framing(req_, error);
  if (!framing) return refuse(400, "credentials." + state_.spec.name + ": malformed request", error);
  req_framing_ = *framing;
  RequestVerdict v = judge_request(req_, req_framing_, state_.spec);
  if (!v.allowed) return refuse(v.status, v.rule, v.reason);
  std::string rule, reason;
  if (budget_refusal(rule, reason)) return refuse(403, rule, reason);
  rule_ = v.rule;
  websocket_ = v.websocket;
  upgraded_ = false;
  client_close_ = lists_token(req_.fields, "connection", "close") ||
                  (req_.minor_version == 0 && !lists_token(req_.fields, "connection", "keep-alive"));
  upstream_head_ = std::move(v.upstream_head);
  // One scrubber per connection (its keys do not change); what an earlier exchange left held back
  // was never sent and is dropped.
  if (!scrubber_)
    scrubber_ = std::make_unique<SecretScrubber>(
        std::vector<std::string>{state_.spec.value, credential_header_value(state_.spec)});
  scrubber_->flush();
  ensure_upstream();
}

void CredentialConnection::emit_exchange(const char* decision, int status, const std::string& rule) {
  if (emitted_) return;
  emitted_ = true;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0_).count();
  core_.emit(session::event_json(session::CredentialRequest{state_.spec.name, state_.spec.upstream, req_.method,
                                                            path_of(req_.target), status, tx_, rx_,
                                                            static_cast<std::int64_t>(ms), decision, rule}));
}

void CredentialConnection::refuse(int status, const std::string& rule, const std::string& reason) {
  ++state_.refused;
  if (counted_) {
    --state_.started;
    counted_ = false;
  }
  auto bytes = std::make_shared<std::string>(broker_response(status, state_.spec.name, rule, reason));
  rx_ += static_cast<std::int64_t>(bytes->size());
  emit_exchange("deny", status, rule);
  in_exchange_ = false;
  ++exchange_;
  asio::async_write(client_, asio::buffer(*bytes), [self = shared_from_this(), bytes](const asio::error_code& ec, std::size_t) {
    if (ec) return self->close();
    self->drain_then_close();
  });
}

// Half-close and read until the agent closes (bounded by a timer), so that unread request bytes
// do not turn the close into a reset that destroys the answer before the agent reads it.
void CredentialConnection::drain_then_close() {
  if (closed_) return;
  asio::error_code ignored;
  client_.shutdown(asio::socket_base::shutdown_send, ignored);
  if (upstream_) upstream_->lowest_layer().close(ignored);
  disarm_timer();
  ++timer_generation_;  // a pending deadline's wait, cancelled below, is not this one
  timer_waiting_ = false;
  timer_.expires_after(std::chrono::seconds(2));
  timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (!ec) self->close();
  });
  client_.async_read_some(asio::buffer(client_buf_), [self = shared_from_this()](const asio::error_code& ec, std::size_t) {
    if (ec || self->closed_) return self->close();
    self->in_.clear();
    self->drain_then_close();
  });
}

void CredentialConnection::fail_upstream(int status, const std::string& why) {
  const std::string rule = "credentials." + state_.spec.name + ": upstream " + state_.spec.upstream + " unreachable";
  if (counted_) {
    --state_.started;
    counted_ = false;
  }
  if (resp_head_done_) {
    // The agent has part of a response already: all it can be told is the close.
    emit_exchange("error", status_, rule + ": " + why);
    return close();
  }
  auto bytes = std::make_shared<std::string>(broker_response(status, state_.spec.name, rule, why));
  rx_ += static_cast<std::int64_t>(bytes->size());
  emit_exchange("error", status, rule + ": " + why);
  in_exchange_ = false;
  ++exchange_;
  upstream_.reset();
  asio::async_write(client_, asio::buffer(*bytes), [self = shared_from_this(), bytes](const asio::error_code& ec, std::size_t) {
    if (ec) return self->close();
    self->drain_then_close();
  });
}

// ---- the upstream -----------------------------------------------------------------------------

bool CredentialConnection::upstream_reusable() const {
  if (!upstream_ || !upstream_->lowest_layer().is_open()) return false;
  // An idle stream the upstream has closed (or wrote to unasked) reads as ready: not reused.
  pollfd p{upstream_->lowest_layer().native_handle(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

void CredentialConnection::ensure_upstream() {
  if (upstream_reusable()) {
    reused_ = true;
    return send_head();
  }
  reused_ = false;
  upstream_.reset();
  const CredentialSpec& s = state_.spec;
  if (!s.connect_to.empty()) {
    // PADDOCK_DEBUG_UPSTREAM: a fixed loopback address instead of a lookup (tainted sessions).
    const auto colon = s.connect_to.rfind(':');
    asio::error_code ec;
    const auto addr = asio::ip::make_address(s.connect_to.substr(0, colon), ec);
    if (ec || colon == std::string::npos) return fail_upstream(502, "bad test upstream " + s.connect_to);
    return on_resolved({asio::ip::tcp::endpoint(addr, static_cast<unsigned short>(std::stoi(s.connect_to.substr(colon + 1))))}, "");
  }
  auto resolver = core_.options().resolver;
  auto vetting = core_.options().vetting;
  auto work = [resolver, vetting, host = s.upstream, port = s.upstream_port]() {
    std::vector<asio::ip::tcp::endpoint> out;
    std::string error;
    try {
      auto r = resolver->resolve(host);
      if (!r.ok()) {
        error = "lookup of " + host + " failed: " + r.error().message;
      } else {
        // The answer set is vetted as the egress broker's is (docs/network.md): a credential's
        // upstream never resolves the broker onto this host or the LAN.
        AnswerVerdict v = vet_answer_set(*r, vetting, host);
        if (!v.ok) error = "refused: " + v.reason;
        for (const auto& a : *r) {
          asio::ip::address addr = a.v6 ? asio::ip::address(asio::ip::address_v6(a.bytes))
                                        : asio::ip::address(asio::ip::address_v4(a.v4_value()));
          out.emplace_back(addr, static_cast<unsigned short>(port));
        }
      }
    } catch (const std::exception& e) {
      error = std::string("resolver failed: ") + e.what();
    }
    if (!error.empty()) out.clear();
    return std::make_pair(std::move(out), std::move(error));
  };
  if (!resolver->may_block()) {
    auto [eps, error] = work();
    return on_resolved(std::move(eps), std::move(error));
  }
  asio::post(core_.lookups(), [self = shared_from_this(), work, ex = exchange_, exec = client_.get_executor()] {
    auto result = work();
    asio::post(exec, [self, ex, result = std::move(result)]() mutable {
      if (self->closed_ || ex != self->exchange_) return;
      self->on_resolved(std::move(result.first), std::move(result.second));
    });
  });
}

void CredentialConnection::on_resolved(std::vector<asio::ip::tcp::endpoint> endpoints, std::string error) {
  if (closed_) return;
  if (!error.empty()) {
    if (error.rfind("refused: ", 0) == 0)
      return refuse(403, "credentials." + state_.spec.name + ": " + error.substr(9),
                    "the upstream's DNS answer contains an address the sandbox never connects to");
    return fail_upstream(502, error);
  }
  endpoints_ = std::move(endpoints);
  next_endpoint_ = 0;
  connect_next();
}

void CredentialConnection::connect_next() {
  if (closed_) return;
  if (next_endpoint_ >= endpoints_.size()) return fail_upstream(502, "no address of " + state_.spec.upstream + " accepted the connection");
  const auto ep = endpoints_[next_endpoint_++];
  upstream_ = std::make_shared<UpstreamTls>(core_.io(), core_.tls().native_handle());
  // The certificate is verified against the system's store and the upstream's name, always.
  if (!upstream_->set_peer(state_.spec.upstream)) {
    upstream_.reset();
    return fail_upstream(502, "TLS with " + state_.spec.upstream + ": OpenSSL refused the name to verify");
  }
  connecting_ = true;
  timed_out_ = false;
  arm_timer(core_.options().connect_timeout);
  upstream_->lowest_layer().async_connect(ep, [self = shared_from_this(), up = upstream_, ex = exchange_](const asio::error_code& ec) {
    if (self->closed_ || ex != self->exchange_ || up != self->upstream_) return;
    if (self->timed_out_) {
      self->connecting_ = false;
      return self->fail_upstream(504, "connecting to " + self->state_.spec.upstream + " timed out");
    }
    if (ec) return self->connect_next();
    asio::error_code ignored;
    self->upstream_->lowest_layer().set_option(asio::ip::tcp::no_delay(true), ignored);
    self->handshake();
  });
}

std::string CredentialConnection::tls_failure(const asio::error_code& ec) const {
  if (upstream_) {
    const long r = SSL_get_verify_result(upstream_->native_handle());
    if (r != X509_V_OK)
      return "the certificate of " + state_.spec.upstream + " is not trusted: " + X509_verify_cert_error_string(r);
  }
  return ec.message();
}

void CredentialConnection::handshake() {
  upstream_->async_handshake([self = shared_from_this(), up = upstream_, ex = exchange_](const asio::error_code& ec) {
    if (self->closed_ || ex != self->exchange_ || up != self->upstream_) return;
    self->connecting_ = false;
    self->disarm_timer();
    if (self->timed_out_) return self->fail_upstream(504, "the TLS handshake with " + self->state_.spec.upstream + " timed out");
    if (ec) return self->fail_upstream(502, "TLS with " + self->state_.spec.upstream + ": " + self->tls_failure(ec));
    self->send_head();
  });
}

void CredentialConnection::send_head() {
  auto head = std::make_shared<std::string>(upstream_head_);
  upstream_->async_write(asio::buffer(*head), [self = shared_from_this(), up = upstream_, head, ex = exchange_](const asio::error_code& ec, std::size_t n) {
    if (self->closed_ || ex != self->exchange_ || up != self->upstream_) return;
    if (ec) {
      // A kept-alive stream the upstream closed meanwhile: once more on a fresh one (nothing of
      // the request has left yet).
      if (self->reused_) {
        self->upstream_.reset();
        return self->ensure_upstream();
      }
      return self->fail_upstream(502, "sending the request to " + self->state_.spec.upstream + ": " + ec.message());
    }
    self->tx_ += static_cast<std::int64_t>(n);
    self->state_.bytes_tx += static_cast<std::int64_t>(n);
    ++self->state_.relayed;
    self->counted_ = false;  // it reached the upstream: it stays counted, whatever happens next
    {
      std::lock_guard lock(self->state_.mu);
      self->state_.last_used = helper::utc_timestamp();
    }
    self->read_response();
    self->pump_request();
  });
}

// ---- the request body, agent -> upstream ------------------------------------------------------

void CredentialConnection::pump_request() {
  switch (req_framing_.kind) {
    case BodyKind::kNone:
    case BodyKind::kUntilClose:  // never for a request (request_framing)
      request_done_ = true;
      return maybe_done();
    case BodyKind::kLength:
      req_left_ = req_framing_.length;
      return request_body_from_buffer();
    case BodyKind::kChunked:
      req_chunks_.emplace();
      return request_body_from_buffer();
  }
}

void CredentialConnection::request_body_from_buffer() {
  if (closed_ || request_done_) return;
  if (!in_.empty()) {
    std::size_t take = 0;
    bool last = false;
    if (req_framing_.kind == BodyKind::kLength) {
      take = static_cast<std::size_t>(std::min<std::int64_t>(req_left_, static_cast<std::int64_t>(in_.size())));
      req_left_ -= static_cast<std::int64_t>(take);
      req_body_ += static_cast<std::int64_t>(take);
      last = req_left_ == 0;
    } else {
      take = req_chunks_->feed(in_.data(), in_.size());
      req_body_ = req_chunks_->data_bytes();
      if (req_chunks_->failed()) {
        emit_exchange("deny", 400, "credentials." + state_.spec.name + ": malformed chunked request body");
        return close();
      }
      last = req_chunks_->done();
    }
    if (req_body_ > state_.spec.max_request_bytes) {
      // Already partly sent: the exchange cannot be answered cleanly any more.
      emit_exchange("deny", 413, "credentials." + state_.spec.name + ": request body larger than max_request (" +
                                     std::to_string(state_.spec.max_request_bytes) + " bytes)");
      return close();
    }
    std::string bytes = in_.substr(0, take);
    in_.erase(0, take);
    return write_request(std::move(bytes), last);
  }
  reading_client_ = true;
  client_.async_read_some(asio::buffer(client_buf_), [self = shared_from_this(), ex = exchange_](const asio::error_code& ec, std::size_t n) {
    self->reading_client_ = false;
    if (self->closed_ || ex != self->exchange_) return;
    if (ec) {
      self->emit_exchange("error", self->status_, "credentials." + self->state_.spec.name +
                                                      ": the agent closed before its request body ended");
      return self->close();
    }
    self->in_.append(self->client_buf_.data(), n);
    self->request_body_from_buffer();
  });
}

void CredentialConnection::write_request(std::string bytes, bool last) {
  auto data = std::make_shared<std::string>(std::move(bytes));
  upstream_->async_write(asio::buffer(*data), [self = shared_from_this(), up = upstream_, data, last, ex = exchange_](const asio::error_code& ec, std::size_t n) {
    if (self->closed_ || ex != self->exchange_ || up != self->upstream_) return;
    if (ec) {
      // The upstream stopped reading (it may have answered already): the response side decides.
      self->request_done_ = true;
      self->upstream_close_ = true;
      self->client_close_ = true;
      return self->maybe_done();
    }
    self->tx_ += static_cast<std::int64_t>(n);
    self->state_.bytes_tx += static_cast<std::int64_t>(n);
    if (last) {
      self->request_done_ = true;
      return self->maybe_done();
    }
    self->request_body_from_buffer();
  });
}

// ---- the response, upstream -> agent ----------------------------------------------------------

void CredentialConnection::read_response() {
  if (closed_) return;
  upstream_->async_read_some(asio::buffer(upstream_buf_), [self = shared_from_this(), up = upstream_, ex = exchange_](const asio::error_code& ec, std::size_t n) {
    if (self->closed_ || ex != self->exchange_ || up != self->upstream_) return;
    if (ec) {
      const bool eof = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
      if (eof && self->resp_head_done_ && self->resp_framing_.kind == BodyKind::kUntilClose) {
        std::string rest = self->scrubber_->flush();
        self->upstream_close_ = true;
        return self->write_response(std::move(rest), true);
      }
      if (!self->resp_head_done_ && self->reused_ && self->tx_ <= static_cast<std::int64_t>(self->upstream_head_.size()) &&
          self->req_framing_.kind == BodyKind::kNone && eof) {
        // The kept-alive stream was closed just as the request went: once more, fresh.
        self->upstream_.reset();
        self->tx_ = 0;
        --self->state_.relayed;
        return self->ensure_upstream();
      }
      return self->fail_upstream(502, "the connection to " + self->state_.spec.upstream + " ended early: " + ec.message());
    }
    self->resp_in_.append(self->upstream_buf_.data(), n);
    self->on_response_bytes();
  });
}

void CredentialConnection::continue_response() {
  if (!resp_in_.empty()) return on_response_bytes();
  read_response();
}

void CredentialConnection::on_response_bytes() {
  if (closed_) return;
  std::string out;  // what goes to the agent in this write
  if (!resp_head_done_) {
    ResponseHead head;
    std::string error;
    switch (parse_response_head(resp_in_, head, error)) {
      case HeadStatus::kNeedMore: return read_response();
      case HeadStatus::kMalformed:
        return fail_upstream(502, "the response of " + state_.spec.upstream + " is not HTTP/1.1: " + error);
      case HeadStatus::kOversize:
        return fail_upstream(502, "the response head of " + state_.spec.upstream + " is larger than 64 KiB");
      case HeadStatus::kOk: break;
    }
    resp_in_.erase(0, head.size);
    if (head.status == 101) {
      if (!websocket_) return fail_upstream(502, state_.spec.upstream + " switched protocols unasked");
      resp_ = std::move(head);
      status_ = 101;
      resp_head_done_ = true;
      return start_websocket();
    }
    if (head.status < 200) {
      // An interim response (100 Continue): passed on; the final one follows.
      std::string interim = client_response_head(head, false);
      scrubber_->feed(interim);
      interim += scrubber_->flush();
      return write_response(std::move(interim), false);
    }
    auto framing = response_framing(head, req_.method, error);
    if (!framing) return fail_upstream(502, "the response of " + state_.spec.upstream + " is ambiguous: " + error);
    resp_framing_ = *framing;
    resp_ = std::move(head);
    status_ = resp_.status;
    resp_head_done_ = true;
    upstream_close_ = upstream_close_ || lists_token(resp_.fields, "connection", "close") || resp_.minor_version == 0 ||
                      resp_framing_.kind == BodyKind::kUntilClose;
    // A body that ends when the connection does can reach the agent only that way too.
    if (resp_framing_.kind == BodyKind::kUntilClose) client_close_ = true;
    if (resp_framing_.kind == BodyKind::kLength) resp_left_ = resp_framing_.length;
    if (resp_framing_.kind == BodyKind::kChunked) resp_chunks_.emplace();
    std::string head_out = client_response_head(resp_, client_close_);
    scrubber_->feed(head_out);
    head_out += scrubber_->flush();
    if (resp_framing_.kind == BodyKind::kNone) {
      if (!resp_in_.empty()) upstream_close_ = true;  // bytes after the response: not reusable
      return write_response(std::move(head_out), true);
    }
    // The body bytes that came with the head go out in the same write: a small answer wakes the
    // agent once, not once for its head and again for its body.
    if (resp_in_.empty()) return write_response(std::move(head_out), false);
    out = std::move(head_out);
  } else if (resp_in_.empty()) {
    return read_response();
  }
  std::size_t take = resp_in_.size();
  bool last = false;
  switch (resp_framing_.kind) {
    case BodyKind::kLength:
      take = static_cast<std::size_t>(std::min<std::int64_t>(resp_left_, static_cast<std::int64_t>(take)));
      resp_left_ -= static_cast<std::int64_t>(take);
      resp_body_ += static_cast<std::int64_t>(take);
      last = resp_left_ == 0;
      break;
    case BodyKind::kChunked:
      take = resp_chunks_->feed(resp_in_.data(), resp_in_.size());
      resp_body_ = resp_chunks_->data_bytes();
      if (resp_chunks_->failed()) return fail_upstream(502, "malformed chunked response from " + state_.spec.upstream);
      last = resp_chunks_->done();
      break;
    case BodyKind::kUntilClose:
      resp_body_ += static_cast<std::int64_t>(take);
      break;
    case BodyKind::kNone:
      take = 0;
      last = true;
      break;
  }
  if (resp_body_ > state_.spec.max_response_bytes) {
    emit_exchange("deny", status_, "credentials." + state_.spec.name + ": response larger than max_response (" +
                                       std::to_string(state_.spec.max_response_bytes) + " bytes)");
    return close();
  }
  std::string chunk;
  if (take == resp_in_.size()) {
    chunk.swap(resp_in_);
  } else {
    chunk = resp_in_.substr(0, take);
    resp_in_.erase(0, take);
  }
  if (last && !resp_in_.empty()) upstream_close_ = true;  // bytes after the response: not reusable
  scrubber_->feed(chunk);
  if (last) chunk += scrubber_->flush();
  if (out.empty()) {
    out = std::move(chunk);
  } else {
    out += chunk;
  }
  write_response(std::move(out), last);
}

void CredentialConnection::write_response(std::string bytes, bool last) {
  if (bytes.empty()) {
    if (last) {
      response_done_ = true;
      return maybe_done();
    }
    return continue_response();
  }
  auto data = std::make_shared<std::string>(std::move(bytes));
  asio::async_write(client_, asio::buffer(*data), [self = shared_from_this(), data, last, ex = exchange_](const asio::error_code& ec, std::size_t n) {
    if (self->closed_ || ex != self->exchange_) return;
    self->rx_ += static_cast<std::int64_t>(n);
    self->state_.bytes_rx += static_cast<std::int64_t>(n);
    if (ec) {
      self->emit_exchange("error", self->status_, "credentials." + self->state_.spec.name + ": the agent closed before the response ended");
      return self->close();
    }
    if (last) {
      self->response_done_ = true;
      return self->maybe_done();
    }
    self->continue_response();
  });
}

// ---- WebSocket --------------------------------------------------------------------------------

void CredentialConnection::start_websocket() {
  upgraded_ = true;
  request_done_ = true;  // a GET: nothing of a body is pending
  std::string head = client_upgrade_head(resp_);
  scrubber_->feed(head);
  head += scrubber_->flush();
  auto data = std::make_shared<std::string>(std::move(head));
  asio::async_write(client_, asio::buffer(*data), [self = shared_from_this(), data, ex = exchange_](const asio::error_code& ec, std::size_t n) {
    if (self->closed_ || ex != self->exchange_) return;
    self->rx_ += static_cast<std::int64_t>(n);
    self->state_.bytes_rx += static_cast<std::int64_t>(n);
    if (ec) return self->end_websocket("the agent went away");
    self->websocket_up();
    self->websocket_down();
  });
}

void CredentialConnection::websocket_up() {
  if (closed_) return;
  if (!in_.empty()) {
    auto data = std::make_shared<std::string>(std::move(in_));
    in_.clear();
    if (req_body_ += static_cast<std::int64_t>(data->size()); req_body_ > state_.spec.max_request_bytes)
      return end_websocket("more than max_request (" + std::to_string(state_.spec.max_request_bytes) + " bytes) sent");
    upstream_->async_write(asio::buffer(*data), [self = shared_from_this(), up = upstream_, data, ex = exchange_](const asio::error_code& ec, std::size_t n) {
      if (self->closed_ || ex != self->exchange_ || up != self->upstream_) return;
      self->tx_ += static_cast<std::int64_t>(n);
      self->state_.bytes_tx += static_cast<std::int64_t>(n);
      if (ec) return self->end_websocket("the upstream went away");
      self->websocket_up();
    });
    return;
  }
  client_.async_read_some(asio::buffer(client_buf_), [self = shared_from_this(), ex = exchange_](const asio::error_code& ec, std::size_t n) {
    if (self->closed_ || ex != self->exchange_) return;
    if (ec) return self->end_websocket("the agent closed the socket");
    self->in_.append(self->client_buf_.data(), n);
    self->websocket_up();
  });
}

void CredentialConnection::websocket_down() {
  if (closed_) return;
  if (!resp_in_.empty()) {
    std::string chunk = std::move(resp_in_);
    resp_in_.clear();
    if (resp_body_ += static_cast<std::int64_t>(chunk.size()); resp_body_ > state_.spec.max_response_bytes)
      return end_websocket("more than max_response (" + std::to_string(state_.spec.max_response_bytes) + " bytes) received");
    scrubber_->feed(chunk);
    if (chunk.empty()) return websocket_down();
    auto data = std::make_shared<std::string>(std::move(chunk));
    asio::async_write(client_, asio::buffer(*data), [self = shared_from_this(), data, ex = exchange_](const asio::error_code& ec, std::size_t n) {
      if (self->closed_ || ex != self->exchange_) return;
      self->rx_ += static_cast<std::int64_t>(n);
      self->state_.bytes_rx += static_cast<std::int64_t>(n);
      if (ec) return self->end_websocket("the agent went away");
      self->websocket_down();
    });
    return;
  }
  upstream_->async_read_some(asio::buffer(upstream_buf_), [self = shared_from_this(), up = upstream_, ex = exchange_](const asio::error_code& ec, std::size_t n) {
    if (self->closed_ || ex != self->exchange_ || up != self->upstream_) return;
    if (ec) return self->end_websocket("the upstream closed the socket");
    self->resp_in_.append(self->upstream_buf_.data(), n);
    self->websocket_down();
  });
}

void CredentialConnection::end_websocket(const std::string& why) {
  if (closed_) return;
  // What the scrubber held back is the start of a key the socket never finished: not sent.
  emit_exchange("allow", 101, rule_ + ": WebSocket ended (" + why + ")");
  in_exchange_ = false;
  close();
}

// ---- the end of an exchange -------------------------------------------------------------------

void CredentialConnection::maybe_done() {
  if (!response_done_) return;
  if (!request_done_) {
    // The upstream answered before it took the whole body (an early 413 or 401): the rest of the
    // body can go nowhere, so both connections end with this exchange.
    upstream_close_ = true;
    client_close_ = true;
    request_done_ = true;
  }
  exchange_done();
}

void CredentialConnection::exchange_done() {
  emit_exchange("allow", status_, rule_);
  in_exchange_ = false;
  counted_ = false;
  if (upstream_close_) upstream_.reset();
  if (client_close_) {
    asio::error_code ignored;
    client_.shutdown(asio::socket_base::shutdown_send, ignored);
    return close();
  }
  ++exchange_;
  arm_timer(core_.options().idle_timeout);
  read_head();  // a pipelined request may be waiting in in_ already
}

void CredentialConnection::close() {
  if (closed_) return;
  if (in_exchange_)
    emit_exchange("error", status_, "credentials." + state_.spec.name + ": closed before the exchange ended");
  if (counted_) {
    --state_.started;
    counted_ = false;
  }
  closed_ = true;
  asio::error_code ignored;
  timer_.cancel();
  client_.close(ignored);
  if (upstream_) upstream_->lowest_layer().close(ignored);
}

}  // namespace paddock::broker
