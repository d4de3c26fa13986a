// The messages the sandbox's init (and the agent before its exec) sends the helper on the report
// socket (SOCK_SEQPACKET: one message per packet, a JSON object with its "type"):
//
//   setup_failed {message}          setup failed before exec; the session fails with 125
//   placeholders {list: [{path, dir, dev, ino, ctime_ns[, content]}]}
//                                   placeholders the view made on the host for absent protected
//                                   paths (the helper records them for removal), also on failure
//   proxy_listen                    with the in-namespace listening socket (SCM_RIGHTS) for the relay
//   network_namespace               with the sandbox's network namespace (SCM_RIGHTS), for the
//                                   forwarder of published ports (sent only when the plan has some)
//   credential_listen {name}        with the in-namespace listening socket of one brokered
//                                   credential's endpoint (SCM_RIGHTS), one message each
//   host_port_listen                with a listening socket on the sandbox's 127.0.0.1:<port>
//                                   (SCM_RIGHTS), one per host port, for the helper's relay
//   attestation {attestation}       readiness: everything is applied; the agent waits for the
//                                   helper's one-byte answer (kStoredAnswer) before its exec
//   exec_failed {errno, message}    the agent's exec failed (126/127)
//   deadline                        init's own wall-time keeper is ending the session
//   exit {status, pids, cpu_ms, max_rss, timed_out, left_cgroup}
//                                   the agent's wait status and the tree's usage, from init
//
// Each kind's fields are declared once (engine/schema.h) at the end of this header; the encoder
// and the strict decoder are derived from the declaration.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/schema.h"
#include "engine/session/placeholder_record.h"
#include "engine/status.h"

namespace paddock::session {

enum class InitMessageType {
  kSetupFailed, kPlaceholders, kProxyListen, kNetworkNamespace, kCredentialListen, kHostPortListen, kAttestation,
  kExecFailed, kDeadline, kExit
};

// The helper's answer to readiness: the attestation is stored (the agent may exec), or not.
inline constexpr char kStoredAnswer = '1';
inline constexpr char kNotStoredAnswer = '0';

struct InitMessage {
  // What the view made on the host for an absent protected path: the record the helper keeps
  // (engine/session/placeholder_record.h), sent out of the sandbox as it is.
  using Placeholder = PlaceholderRecord;

  InitMessageType type = InitMessageType::kSetupFailed;
  std::string message;       // setup_failed, exec_failed; credential_listen: the credential's name
  int error_number = 0;      // exec_failed: the exec's errno
  std::string attestation;   // attestation: the attestation's JSON, byte for byte as sent
  std::vector<Placeholder> placeholders;
  // exit
  int status = 0;            // the agent's wait status
  std::int64_t pids = 0;
  std::optional<std::int64_t> cpu_ms, max_rss;
  bool timed_out = false;
  bool left_cgroup = false;

  static InitMessage setup_failed(std::string message);
  static InitMessage placeholders_made(std::vector<Placeholder> list);
  static InitMessage proxy_listen();
  static InitMessage network_namespace();
  static InitMessage credential_listen(std::string name);
  static InitMessage host_port_listen();
  static InitMessage ready(std::string attestation_json);
  static InitMessage exec_failed(int error_number, std::string message);
  static InitMessage deadline();
  bool operator==(const InitMessage&) const = default;
};

std::string encode_init_message(const InitMessage& m);

// `readiness`: the readiness message this side expects (encode_init_message(ready(...)) of the
// attestation it prepared). A message equal to it byte for byte decodes without being parsed:
// it is the largest message, and it arrives on the path to the agent's exec.
Result<InitMessage> decode_init_message(std::string_view bytes, std::string_view readiness = {});

}  // namespace paddock::session

namespace paddock::schema {

template <>
struct EnumNames<session::InitMessageType> {
  using T = session::InitMessageType;
  static constexpr NameTable<T, 10> values{{{T::kSetupFailed, "setup_failed"},
                                           {T::kPlaceholders, "placeholders"},
                                           {T::kProxyListen, "proxy_listen"},
                                           {T::kNetworkNamespace, "network_namespace"},
                                           {T::kCredentialListen, "credential_listen"},
                                           {T::kHostPortListen, "host_port_listen"},
                                           {T::kAttestation, "attestation"},
                                           {T::kExecFailed, "exec_failed"},
                                           {T::kDeadline, "deadline"},
                                           {T::kExit, "exit"}}};
};

template <>
struct Tagged<session::InitMessage> {
  using M = session::InitMessage;
  using T = session::InitMessageType;
  static constexpr auto tag = field("type", &M::type);
  static constexpr auto variants = std::make_tuple(
      variant<T::kSetupFailed>(field("message", &M::message)), variant<T::kPlaceholders>(field("list", &M::placeholders)),
      variant<T::kProxyListen>(), variant<T::kNetworkNamespace>(),
      variant<T::kCredentialListen>(field("name", &M::message)), variant<T::kHostPortListen>(),
      variant<T::kAttestation>(field("attestation", &M::attestation, kJsonText)),
      variant<T::kExecFailed>(field("errno", &M::error_number), field("message", &M::message)), variant<T::kDeadline>(),
      variant<T::kExit>(field("status", &M::status), field("pids", &M::pids), field("cpu_ms", &M::cpu_ms, kOmitEmpty),
                        field("max_rss", &M::max_rss, kOmitEmpty), field("timed_out", &M::timed_out, kOmitEmpty),
                        field("left_cgroup", &M::left_cgroup, kOmitEmpty)));
};

}  // namespace paddock::schema
