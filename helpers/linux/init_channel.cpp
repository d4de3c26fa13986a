#include "helpers/linux/init_channel.h"

#include <sys/socket.h>

#include <string_view>

#include "platform/fd_passing.h"

namespace paddock::helper {

using session::InitMessageType;

namespace {
constexpr std::size_t kMessageMax = 1 << 20;
}  // namespace

InitAction absorb_init_message(InitOutcome& out, const Result<session::InitMessage>& message) {
  if (!message.ok()) {
    // Only Paddock's own init writes here: anything else means the sandbox is not as built.
    out.setup_error = message.error().message;
    return InitAction::kStop;
  }
  const session::InitMessage& m = *message;
  switch (m.type) {
    case InitMessageType::kSetupFailed:
      out.setup_error = m.message;
      return InitAction::kNone;
    case InitMessageType::kProxyListen: return InitAction::kStartRelay;
    case InitMessageType::kNetworkNamespace: return InitAction::kStartForward;
    case InitMessageType::kCredentialListen: return InitAction::kStartCredential;
    case InitMessageType::kHostPortListen: return InitAction::kAddHostPort;
    case InitMessageType::kAttestation: return out.attested ? InitAction::kNone : InitAction::kStoreAttestation;
    case InitMessageType::kPlaceholders:
      for (const auto& p : m.placeholders)
        out.placeholders.push_back({p.path, p.dir, p.dev, p.ino, p.ctime_ns, p.content});
      return InitAction::kNone;
    case InitMessageType::kExecFailed:
      out.exec_error = m.message;
      return InitAction::kNone;
    case InitMessageType::kDeadline:
      out.init_timed_out = true;
      return InitAction::kNone;
    case InitMessageType::kExit:
      out.have_exit = true;
      out.init_timed_out = out.init_timed_out || m.timed_out;
      out.agent_status = m.status;
      out.pids = static_cast<long>(m.pids);
      if (m.cpu_ms && m.max_rss) {
        out.cpu_ms = static_cast<long>(*m.cpu_ms);
        out.max_rss = static_cast<long>(*m.max_rss);
      }
      out.left_cgroup = m.left_cgroup;
      return InitAction::kNone;
  }
  return InitAction::kNone;
}

InitChannel::InitChannel(platform::UniqueFd socket, std::string readiness)
    : socket_(std::move(socket)), readiness_(std::move(readiness)), buf_(new char[kMessageMax]) {}

std::optional<InitChannel::Received> InitChannel::next() {
  platform::UniqueFd passed;
  const ssize_t n = platform::receive_message(socket_.get(), buf_.get(), kMessageMax, &passed, MSG_DONTWAIT);
  if (n <= 0) return std::nullopt;
  return Received{session::decode_init_message(std::string_view(buf_.get(), static_cast<std::size_t>(n)), readiness_),
                  std::move(passed)};
}

void InitChannel::answer(bool stored) {
  const char byte = stored ? session::kStoredAnswer : session::kNotStoredAnswer;
  (void)::send(socket_.get(), &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace paddock::helper
