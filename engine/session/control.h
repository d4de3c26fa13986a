// The session's control socket ($XDG_RUNTIME_DIR/paddock/<id>.sock, mode 0600): JSON lines both
// ways, one request per line, one reply line per request. The helper serves it
// (helpers/linux/control_server.h); the CLI (`paddock stop`, `sessions`, `ask`) and the app
// (app/gui/control_client.h) ask. This is the one encoder and decoder all three use.
//
//   {"cmd":"stop"}                                  -> {"ok":true}; the session is stopped
//   {"cmd":"asks"}                                  -> {"ok":true,"asks":[{"id","host","port","ts"}...]}
//   {"cmd":"subscribe"}                             -> {"ok":true}; then the pending asks as `ask`
//                                                      events, then every event as it happens
//   {"cmd":"ask_reply","id":ID,"decision":D}        -> {"ok":true} or {"ok":false,"error":...}
//     D is allow_once, allow_session or deny.
//   {"cmd":"usage"}                                 -> the tree's usage now and its limits; that reply
//                                                      is engine/session/usage_message.h's
//
// A request that does not decode gets {"ok":false,"error":...}; the error is one line a user can
// read (the CLI prints it as it is). The requests, the replies and the pending asks are declared
// once (engine/schema.h) at the end of this header; their JSON is derived from the declarations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/schema.h"
#include "engine/status.h"

namespace paddock::session {

enum class ControlCommand { kStop, kAsks, kSubscribe, kAskReply, kUsage };
enum class AskAnswer { kAllowOnce, kAllowSession, kDeny };

// "allow_once", "allow_session", "deny": the protocol's words.
const char* ask_answer_name(AskAnswer a);
std::optional<AskAnswer> parse_ask_answer(std::string_view name);

struct ControlRequest {
  ControlCommand cmd = ControlCommand::kStop;
  std::string ask_id;                       // kAskReply
  AskAnswer answer = AskAnswer::kDeny;      // kAskReply
  bool operator==(const ControlRequest&) const = default;
};
ControlRequest request_of(ControlCommand cmd);  // stop, asks, subscribe, usage
ControlRequest ask_reply_request(std::string ask_id, AskAnswer answer);

// One line, without the newline.
std::string encode_control_request(const ControlRequest& r);
// Never throws; the error says what was wrong with the line.
Result<ControlRequest> decode_control_request(std::string_view line);

// A connection the broker holds until the user answers (the `ask` event's fields).
struct PendingAsk {
  std::string id, host;
  int port = 0;
  std::string ts;  // when it was raised (UTC)
  bool operator==(const PendingAsk&) const = default;
};

// The `ask` event announcing it ({"event":"ask","id","host","port","ts"}): what subscribers get.
nlohmann::json ask_event(const PendingAsk& a);

struct ControlReply {
  bool ok = true;
  std::string error;              // when !ok
  std::vector<PendingAsk> asks;   // the answer to kAsks
  bool operator==(const ControlReply&) const = default;
};
std::string encode_control_reply(const ControlReply& r);
// `what` names the peer in errors ("session <id>").
Result<ControlReply> decode_control_reply(std::string_view line, const std::string& what);

}  // namespace paddock::session

namespace paddock::schema {

template <>
struct EnumNames<session::ControlCommand> {
  using C = session::ControlCommand;
  static constexpr NameTable<C, 5> values{
      {{C::kStop, "stop"}, {C::kAsks, "asks"}, {C::kSubscribe, "subscribe"}, {C::kAskReply, "ask_reply"}, {C::kUsage, "usage"}}};
};

template <>
struct EnumNames<session::AskAnswer> {
  using A = session::AskAnswer;
  static constexpr NameTable<A, 3> values{
      {{A::kAllowOnce, "allow_once"}, {A::kAllowSession, "allow_session"}, {A::kDeny, "deny"}}};
};

template <>
struct Tagged<session::ControlRequest> {
  using R = session::ControlRequest;
  using C = session::ControlCommand;
  static constexpr auto tag = field("cmd", &R::cmd);
  static constexpr auto variants =
      std::make_tuple(variant<C::kStop>(), variant<C::kAsks>(), variant<C::kSubscribe>(),
                      variant<C::kAskReply>(field("id", &R::ask_id), field("decision", &R::answer)), variant<C::kUsage>());
};

template <>
struct Schema<session::PendingAsk> {
  using A = session::PendingAsk;
  static constexpr auto fields = std::make_tuple(field("id", &A::id), field("host", &A::host),
                                                 field("port", &A::port, kPort), field("ts", &A::ts));
};

template <>
struct Schema<session::ControlReply> {
  using R = session::ControlReply;
  static constexpr auto fields = std::make_tuple(field("ok", &R::ok), field("error", &R::error, kOmitEmpty),
                                                 field("asks", &R::asks, kOmitEmpty));
};

}  // namespace paddock::schema
