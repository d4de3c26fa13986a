#include "helpers/broker/upstream_tls.h"

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include <asio/ssl/error.hpp>

namespace paddock::broker {

namespace {

int clamp(std::size_t n) { return static_cast<int>(std::min<std::size_t>(n, INT_MAX)); }

}  // namespace

UpstreamTls::UpstreamTls(asio::io_context& io, SSL_CTX* ctx) : socket_(io), ssl_(SSL_new(ctx)) {
  if (!ssl_) return;
  // Partial writes let a write resume where the socket stopped taking bytes.
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_set_read_ahead(ssl_, 1);
  SSL_set_default_read_buffer_len(ssl_, kReadAhead);
}

UpstreamTls::~UpstreamTls() {
  if (ssl_) SSL_free(ssl_);  // the socket is closed by its own destructor, after
}

bool UpstreamTls::set_peer(const std::string& host) {
  if (!ssl_) return false;
  SSL_set_verify(ssl_, SSL_VERIFY_PEER, nullptr);
  asio::error_code ec;
  asio::ip::make_address(host, ec);
  if (!ec) {
    // An IP literal: checked against the certificate's IP addresses; no SNI for an address.
    return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str()) == 1;
  }
  return SSL_set_tlsext_host_name(ssl_, host.c_str()) == 1 && SSL_set1_host(ssl_, host.c_str()) == 1;
}

bool UpstreamTls::attach(asio::error_code& ec) {
  if (!ssl_) {
    ec = asio::error::no_memory;
    return false;
  }
  if (attached_) return true;
  socket_.non_blocking(true, ec);
  if (ec) return false;
  if (SSL_set_fd(ssl_, socket_.native_handle()) != 1) {
    ec = asio::error::bad_descriptor;
    return false;
  }
  attached_ = true;
  return true;
}

asio::error_code UpstreamTls::error_of(int ssl_error) const {
  switch (ssl_error) {
    case SSL_ERROR_ZERO_RETURN:
      return asio::error::eof;
    case SSL_ERROR_SYSCALL:
      if (ERR_peek_error() == 0) {
        if (errno != 0) return asio::error_code(errno, asio::error::get_system_category());
        return asio::ssl::error::stream_truncated;
      }
      break;
    default:
      break;
  }
  const unsigned long e = ERR_peek_last_error();
  if (ERR_GET_LIB(e) == ERR_LIB_SSL && ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
    return asio::ssl::error::stream_truncated;
  if (e == 0) return asio::error::connection_aborted;
  return asio::error_code(static_cast<int>(e), asio::error::get_ssl_category());
}

int UpstreamTls::outcome(int r, int& want, asio::error_code& ec) {
  const int e = SSL_get_error(ssl_, r);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
    want = e;
    ERR_clear_error();
    return 0;
  }
  ec = error_of(e);
  ERR_clear_error();
  return -1;
}

int UpstreamTls::transfer(bool reading, char* p, std::size_t size, std::size_t& done, int& want, asio::error_code& ec) {
  while (done < size) {
    ERR_clear_error();
    errno = 0;
    const int n = reading ? SSL_read(ssl_, p + done, clamp(size - done)) : SSL_write(ssl_, p + done, clamp(size - done));
    if (n <= 0) return outcome(n, want, ec);
    done += static_cast<std::size_t>(n);
    // A read stops once OpenSSL holds nothing more: everything that had arrived is decrypted, and
    // asking the socket again would only return EAGAIN (one wasted recv(2) per response).
    if (reading && !SSL_has_pending(ssl_)) return 0;
  }
  return 1;
}

void UpstreamTls::read_now(asio::mutable_buffer b, std::size_t& got, int& want, asio::error_code& ec) {
  if (read_error_) {
    ec = read_error_;
    return;
  }
  if (!attached_) {
    ec = asio::error::not_connected;
    return;
  }
  asio::error_code failed;
  if (transfer(true, static_cast<char*>(b.data()), b.size(), got, want, failed) < 0) read_error_ = failed;
  if (got == 0) ec = read_error_;
}

int UpstreamTls::handshake_now(int& want, asio::error_code& ec) {
  ERR_clear_error();
  errno = 0;
  const int r = SSL_connect(ssl_);
  return r == 1 ? 1 : outcome(r, want, ec);
}

int UpstreamTls::write_now(asio::const_buffer b, std::size_t& done, int& want, asio::error_code& ec) {
  if (!attached_) {
    ec = asio::error::not_connected;
    return -1;
  }
  // SSL_write only reads from the buffer; transfer takes a char* for both directions.
  return transfer(false, const_cast<char*>(static_cast<const char*>(b.data())), b.size(), done, want, ec);
}

}  // namespace paddock::broker
