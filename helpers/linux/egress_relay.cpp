// EgressRelay (helpers/linux/egress_relay.h) on top of the broker library: the helper passes the
// listening socket it created inside the sandbox's network namespace; the broker serves it from
// the host side with the host's resolver. Depends only on paddock_broker and the engine.
#include "helpers/linux/egress_relay.h"

#include <sys/resource.h>

#include "helpers/broker/broker.h"
#include "helpers/linux/host_ports.h"
#include "helpers/linux/port_forward.h"

namespace paddock::helper {
namespace {

// Fewer connections than this would break ordinary agents (a package manager opens a dozen).
constexpr std::size_t kMinConnections = 16;

class BrokerRelay : public EgressRelay {
 public:
  explicit BrokerRelay(std::unique_ptr<broker::Broker> b) : broker_(std::move(b)) {}
  ~BrokerRelay() override { stop(); }
  void stop() override {
    if (broker_) broker_->stop();
  }

 private:
  std::unique_ptr<broker::Broker> broker_;
};

broker::AskDecision to_broker(AskDecision d) {
  switch (d) {
    case AskDecision::kAllowOnce: return broker::AskDecision::kAllowOnce;
    case AskDecision::kAllowSession: return broker::AskDecision::kAllowSession;
    case AskDecision::kDeny: return broker::AskDecision::kDeny;
  }
  return broker::AskDecision::kDeny;
}

}  // namespace

Result<std::unique_ptr<EgressRelay>> EgressRelay::start(platform::UniqueFd listen_fd, const IrEgress& egress,
                                                        EventSink events, AskHandler ask, PeerFilter accept_peer) {
  if (egress.mode == NetMode::kOff)
    return refused("egress relay: net mode is off; the sandbox gets an empty network namespace instead");
  broker::BrokerOptions options;
  options.egress = egress;
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) != 0) return refused("egress relay: cannot read the open-file limit");
  // Published ports' forwarded connections have their own share, kept out of the broker's.
  const std::uint64_t reserved =
      kHelperReservedFds + forward_fd_budget(egress.publish.size()) + host_port_fd_budget(egress.host_ports.size());
  options.max_connections = broker::connection_cap(nofile.rlim_cur, reserved);
  if (options.max_connections < kMinConnections)
    return refused("egress relay: the open-file limit " + std::to_string(nofile.rlim_cur) + " leaves room for only " +
                   std::to_string(options.max_connections) + " proxied connections after the helper's own " +
                   std::to_string(reserved) + "; raise the hard limit (ulimit -Hn) or run with --net off");
  if (egress.debug_resolve.empty()) {
    options.resolver = std::make_shared<broker::SystemResolver>();
  } else {
    // The tainted PADDOCK_DEBUG_RESOLVE seam, read from the frozen IR (never from this process's
    // environment): only these names resolve, each to its loopback table, and vetting lets
    // loopback through for exactly these names. Every other name fails its lookup.
    auto table = std::make_shared<broker::StaticResolver>();
    for (const auto& [name, ips] : egress.debug_resolve) {
      for (const auto& ip : ips) {
        auto a = broker::IpAddress::parse(ip);
        if (!a || !(a->v6 ? a->to_string() == "::1" : a->bytes[0] == 127))
          return bad_input("egress.debug_resolve: " + name + " -> " + ip + " is not a loopback address");
        table->add(name, *a);
      }
      options.vetting.loopback_hosts.insert(name);
    }
    options.resolver = std::move(table);
  }
  if (!egress.debug_resolve.empty() && events) {
    // Like paddock-broker's unsafe switch: every event of a seam session says so, so that a log
    // read on its own cannot be mistaken for a real session's.
    options.events = [sink = std::move(events)](nlohmann::json e) {
      e["taint"] = "PADDOCK_DEBUG_RESOLVE";
      sink(std::move(e));
    };
  } else {
    options.events = std::move(events);
  }
  if (ask) {
    options.ask = [ask = std::move(ask)](const std::string& id, const std::string& host, int port,
                                         broker::AskReply reply) {
      ask(id, host, port, [reply = std::move(reply)](AskDecision d) { reply(to_broker(d)); });
    };
  }
  options.accept_peer = std::move(accept_peer);
  auto b = broker::Broker::create(std::move(options));
  if (!b.ok()) return b.error();
  if (Status s = (*b)->serve(std::move(listen_fd)); !s) return s.error();
  return std::unique_ptr<EgressRelay>(new BrokerRelay(std::move(b.value())));
}

}  // namespace paddock::helper
