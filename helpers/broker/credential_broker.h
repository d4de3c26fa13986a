// The credential broker (docs/credentials.md): serves each brokered credential's endpoint (a
// listening socket on the sandbox's loopback, created inside its network namespace and handed
// out, or 127.0.0.1 for tests), one HTTP/1.1 exchange after another on each connection. A
// request that carries the session's placeholder, for the bound upstream, is sent with the real
// key in the upstream's header over TLS that this process originates and verifies (the system's
// CA store, the upstream's name); the response streams back as it arrives. Nothing else is
// relayed. Budgets per credential and session; one event per exchange, never with the key.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/report.h"
#include "engine/status.h"
#include "helpers/broker/address_vetting.h"
#include "helpers/broker/credential_rules.h"
#include "helpers/broker/resolver.h"
#include "platform/unique_fd.h"

namespace paddock::broker {

struct CredentialBrokerOptions {
  std::vector<CredentialSpec> credentials;
  std::vector<platform::UniqueFd> listeners;  // one per credential, same order; bound TCP sockets
  std::shared_ptr<Resolver> resolver;         // the upstreams' one lookup per connection
  VettingOptions vetting;                     // the answer set is vetted as the egress broker's is
  std::string extra_ca_file;                  // PADDOCK_DEBUG_UPSTREAM_CA (tests), "" = system store only
  // credential_request and notice events (without "ts"); called from the broker's thread.
  std::function<void(nlohmann::json)> events;
  std::chrono::milliseconds header_timeout{30000};  // a request head, once a connection is open
  std::chrono::milliseconds idle_timeout{300000};   // between exchanges on a kept-alive connection
  std::chrono::milliseconds connect_timeout{15000};  // TCP and TLS to the upstream
  std::size_t max_connections = kMaxCredentialConnections;

  static constexpr std::size_t kMaxCredentialConnections = 128;
};

// Descriptors one connection holds: the agent's socket and the upstream's.
inline constexpr std::size_t kFdsPerCredentialConnection = 2;

class CredentialCore;

class CredentialBroker {
 public:
  // Validates the credentials (a value and placeholder a header can carry), builds the TLS
  // context, adopts the listening sockets and starts serving on its own thread.
  static Result<std::unique_ptr<CredentialBroker>> start(CredentialBrokerOptions options);
  ~CredentialBroker();
  CredentialBroker(const CredentialBroker&) = delete;
  CredentialBroker& operator=(const CredentialBroker&) = delete;

  // Stops accepting, closes every connection, joins the thread. Idempotent.
  void stop();
  // What each credential's endpoint relayed so far (the report's credentials), by name.
  std::vector<session::CredentialUsage> usage() const;

 private:
  explicit CredentialBroker(std::shared_ptr<CredentialCore> core);
  std::shared_ptr<CredentialCore> core_;
};

}  // namespace paddock::broker
