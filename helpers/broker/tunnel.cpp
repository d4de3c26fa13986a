#include "helpers/broker/tunnel.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/session/event.h"
#include "helpers/broker/quota_ledger.h"

namespace paddock::broker {
namespace {

constexpr int kPipeBytes = 1 << 20;  // fewer wake-ups per MiB; falls back to the default size
constexpr int kStepsBeforeYield = 16;      // fairness between connections on one I/O thread

}  // namespace

Tunnel::Tunnel(QuotaLedger* ledger, std::function<void(nlohmann::json)> events, asio::ip::tcp::socket& client,
               asio::ip::tcp::socket& upstream, std::string quota_key, std::weak_ptr<void> keepalive, Done done)
    : ledger_(ledger), events_(std::move(events)), client_(client), upstream_(upstream), quota_key_(std::move(quota_key)),
      keepalive_(std::move(keepalive)), done_(std::move(done)) {}

bool Tunnel::start(std::string* error) {
  for (Direction* d : {&up_, &down_}) {
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
      *error = std::string("pipe2: ") + std::strerror(errno);
      return false;
    }
    d->pipe_r.reset(p[0]);
    d->pipe_w.reset(p[1]);
    // Larger pipes move more per splice; unprivileged callers are capped by pipe-max-size, so
    // a refusal just leaves the default 64 KiB.
    int size = fcntl(p[1], F_SETPIPE_SZ, kPipeBytes);
    if (size <= 0) size = fcntl(p[1], F_GETPIPE_SZ);
    d->capacity = size > 0 ? static_cast<std::size_t>(size) : 65536;
  }
  asio::error_code ec;
  // An opaque relay must not add Nagle delays of its own; the endpoints keep their settings.
  client_.set_option(asio::ip::tcp::no_delay(true), ec);
  upstream_.set_option(asio::ip::tcp::no_delay(true), ec);
  client_.native_non_blocking(true, ec);
  if (!ec) upstream_.native_non_blocking(true, ec);
  if (ec) {
    *error = "non-blocking mode: " + ec.message();
    return false;
  }
  up_.src = &client_;
  up_.dst = &upstream_;
  up_.counter = &totals_.tx;
  down_.src = &upstream_;
  down_.dst = &client_;
  down_.counter = &totals_.rx;
  step(up_);
  step(down_);
  return true;
}

bool Tunnel::quota_exceeded_now(std::size_t want) {
  if (quota_key_.empty()) return false;
  std::int64_t left = ledger_->remaining(quota_key_);
  return left >= 0 && static_cast<std::int64_t>(want) > left;
}

void Tunnel::step(Direction& d) {
  if (closed_ || d.finished) return;
  for (int i = 0; i < kStepsBeforeYield; ++i) {
    if (!quota_key_.empty() && ledger_->exceeded(quota_key_)) {
      close("quota");
      return;
    }
    if (d.pending > 0) {
      ssize_t n = splice(d.pipe_r.get(), nullptr, d.dst->native_handle(), nullptr, d.pending,
                         SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n > 0) {
        d.pending -= static_cast<std::size_t>(n);
        *d.counter += n;
        if (!quota_key_.empty()) ledger_->add(quota_key_, n);
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        d.dst->async_wait(asio::socket_base::wait_write,
                          [this, &d, k = keepalive_.lock()](const asio::error_code& ec) {
                            if (!ec) step(d);
                          });
        return;
      }
      close(std::string("error: write: ") + (n < 0 ? std::strerror(errno) : "no progress"));
      return;
    }
    if (d.eof) {
      // Half-close: the peer sees EOF in this direction while the other keeps flowing.
      asio::error_code ignored;
      d.dst->shutdown(asio::socket_base::shutdown_send, ignored);
      d.finished = true;
      finish_if_both_done();
      return;
    }
    // Ask for at most one byte more than the quota leaves: getting it proves the quota would
    // be exceeded without delivering a byte beyond it.
    std::size_t want = d.capacity;
    if (!quota_key_.empty()) {
      std::int64_t left = ledger_->remaining(quota_key_);
      if (left >= 0 && static_cast<std::int64_t>(want) > left + 1) want = static_cast<std::size_t>(left + 1);
    }
    ssize_t n = splice(d.src->native_handle(), nullptr, d.pipe_w.get(), nullptr, want,
                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n > 0) {
      d.pending = static_cast<std::size_t>(n);
      if (quota_exceeded_now(d.pending)) {
        if (ledger_->mark_exceeded(quota_key_)) {
          if (events_)
            events_(session::event_json(
                session::QuotaExceeded{quota_key_, ledger_->limit(quota_key_), ledger_->used(quota_key_)}));
        }
        close("quota");
        return;
      }
      continue;
    }
    if (n == 0) {
      d.eof = true;
      continue;
    }
    if (errno == EAGAIN || errno == EINTR) {
      d.src->async_wait(asio::socket_base::wait_read,
                        [this, &d, k = keepalive_.lock()](const asio::error_code& ec) {
                          if (!ec) step(d);
                        });
      return;
    }
    close(std::string("error: read: ") + std::strerror(errno));
    return;
  }
  // Yield to other connections, then carry on.
  asio::post(client_.get_executor(), [this, &d, k = keepalive_.lock()] { step(d); });
}

void Tunnel::finish_if_both_done() {
  if (up_.finished && down_.finished) close("eof");
}

void Tunnel::close(const std::string& why) {
  if (closed_) return;
  closed_ = true;
  totals_.end = why;
  asio::error_code ignored;
  client_.close(ignored);
  upstream_.close(ignored);
  up_.pipe_r.reset();
  up_.pipe_w.reset();
  down_.pipe_r.reset();
  down_.pipe_w.reset();
  if (done_) done_(totals_);
}

}  // namespace paddock::broker
