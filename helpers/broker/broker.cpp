#include "helpers/broker/broker.h"

#include "helpers/broker/broker_core.h"

namespace paddock::broker {

Result<std::unique_ptr<Broker>> Broker::create(BrokerOptions options) {
  if (!options.resolver) return internal_error("broker: no resolver");
  if (options.egress.mode == NetMode::kAsk && !options.ask)
    return refused("broker: mode ask needs an ask handler (nothing would answer the prompts)");
  auto policy = EgressPolicy::create(options.egress);
  if (!policy.ok()) return policy.error();
  auto core = std::make_shared<BrokerCore>(std::move(options), std::move(policy.value()));
  return std::unique_ptr<Broker>(new Broker(std::move(core)));
}

Broker::Broker(std::shared_ptr<BrokerCore> core) : core_(std::move(core)) {}
Broker::~Broker() { stop(); }

Status Broker::serve(platform::UniqueFd listen_fd) { return core_->serve(std::move(listen_fd)); }
void Broker::stop() { core_->stop(); }
std::size_t Broker::live_connections() const { return core_->live(); }

}  // namespace paddock::broker
