// The credential broker's TLS client stream to an upstream: OpenSSL driven straight on the
// non-blocking socket, with Asio only waiting for readiness. Asio's ssl::stream moves at most one
// TLS record (17 KiB) from the socket into OpenSSL per read, so a fast response costs one read,
// one event-loop turn and one write to the agent per 16 KiB. Here OpenSSL reads ahead into a
// large buffer, and one read decrypts every record that has arrived, up to the caller's buffer.
//
// Verification is OpenSSL's own: the peer's chain against the context's store (the system's CA
// store, plus the test seam's CA) and its name (DNS name, or IP literal) checked by OpenSSL
// during the handshake; SSL_get_verify_result says why a handshake failed.
//
// At most one read and one write may be pending at a time (they may overlap). Completion
// handlers are never called from inside the initiating call; callers keep the stream alive by
// holding a shared_ptr to it in their handlers, as they do for any Asio stream.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include <asio.hpp>

namespace paddock::broker {

class UpstreamTls : public std::enable_shared_from_this<UpstreamTls> {
 public:
  // OpenSSL's read-ahead buffer: one recv(2) takes up to this much ciphertext.
  static constexpr int kReadAhead = 256 * 1024;

  UpstreamTls(asio::io_context& io, SSL_CTX* ctx);
  ~UpstreamTls();
  UpstreamTls(const UpstreamTls&) = delete;
  UpstreamTls& operator=(const UpstreamTls&) = delete;

  asio::ip::tcp::socket& lowest_layer() { return socket_; }
  SSL* native_handle() { return ssl_; }
  // The name sent (SNI, for a DNS name) and verified (DNS name or IP literal); false if OpenSSL
  // could not take it, and the stream must not be used.
  bool set_peer(const std::string& host);

  // After the socket connected: the client handshake. handler(error_code).
  template <class Handler>
  void async_handshake(Handler&& handler) {
    asio::error_code ec;
    if (!attach(ec)) return post(std::forward<Handler>(handler), ec);
    handshake_step(std::forward<Handler>(handler));
  }

  // Up to b.size() decrypted bytes: everything already received, or, if nothing is, what the
  // next arrival brings. handler(error_code, bytes); asio::error::eof after the peer's
  // close_notify, asio::ssl::error::stream_truncated when the socket ended without it.
  template <class Handler>
  void async_read_some(asio::mutable_buffer b, Handler&& handler) {
    std::size_t got = 0;
    int want = 0;
    asio::error_code ec;
    read_now(b, got, want, ec);
    if (got > 0 || ec) {
      return asio::post(socket_.get_executor(), [h = std::forward<Handler>(handler), ec, got]() mutable {
        h(got > 0 ? asio::error_code() : ec, got);
      });
    }
    wait(want, [self = shared_from_this(), b, h = std::forward<Handler>(handler)](const asio::error_code& e) mutable {
      if (e) return h(e, std::size_t{0});
      self->async_read_some(b, std::move(h));
    });
  }

  // All of b, encrypted and sent. handler(error_code, bytes of b sent).
  template <class Handler>
  void async_write(asio::const_buffer b, Handler&& handler) {
    write_step(b, 0, std::forward<Handler>(handler));
  }

 private:
  bool attach(asio::error_code& ec);
  // Decrypts into b what OpenSSL can without blocking; `want` is the SSL_ERROR_WANT_* to wait
  // for when nothing came; `ec` a failure (kept for the next call once bytes are delivered).
  void read_now(asio::mutable_buffer b, std::size_t& got, int& want, asio::error_code& ec);
  // One SSL_connect: 1 done, 0 wait for `want`, -1 failed (`ec`).
  int handshake_now(int& want, asio::error_code& ec);
  // Writes what the socket takes: bytes written so far in `done`; 0 wait for `want`, -1 failed.
  int write_now(asio::const_buffer b, std::size_t& done, int& want, asio::error_code& ec);
  asio::error_code error_of(int ssl_error) const;
  // Both directions' loop: SSL_read or SSL_write into/from p[done, size) until it is done (1),
  // OpenSSL must wait for the socket (0, `want`) or the stream failed (-1, `ec`). A read also
  // returns 0 once it got bytes and OpenSSL holds no more (`want` then stays 0).
  int transfer(bool reading, char* p, std::size_t size, std::size_t& done, int& want, asio::error_code& ec);
  // What a failed SSL_* call means: 0 wait for `want`, -1 failed (`ec`).
  int outcome(int r, int& want, asio::error_code& ec);

  template <class Handler>
  void post(Handler&& handler, asio::error_code ec) {
    asio::post(socket_.get_executor(), [h = std::forward<Handler>(handler), ec]() mutable { h(ec); });
  }

  template <class Handler>
  void wait(int want, Handler&& handler) {
    socket_.async_wait(want == SSL_ERROR_WANT_WRITE ? asio::socket_base::wait_write : asio::socket_base::wait_read,
                       std::forward<Handler>(handler));
  }

  template <class Handler>
  void handshake_step(Handler&& handler) {
    int want = 0;
    asio::error_code ec;
    const int r = handshake_now(want, ec);
    if (r != 0) return post(std::forward<Handler>(handler), ec);
    wait(want, [self = shared_from_this(), h = std::forward<Handler>(handler)](const asio::error_code& e) mutable {
      if (e) return h(e);
      self->handshake_step(std::move(h));
    });
  }

  template <class Handler>
  void write_step(asio::const_buffer b, std::size_t done, Handler&& handler) {
    int want = 0;
    asio::error_code ec;
    const int r = write_now(b, done, want, ec);
    if (r != 0) {
      return asio::post(socket_.get_executor(), [h = std::forward<Handler>(handler), ec, done]() mutable { h(ec, done); });
    }
    wait(want, [self = shared_from_this(), b, done, h = std::forward<Handler>(handler)](const asio::error_code& e) mutable {
      if (e) return h(e, done);
      self->write_step(b, done, std::move(h));
    });
  }

  asio::ip::tcp::socket socket_;
  SSL* ssl_ = nullptr;
  bool attached_ = false;
  asio::error_code read_error_;  // a failure found after bytes that were delivered first
};

}  // namespace paddock::broker
