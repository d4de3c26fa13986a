#include "helpers/broker/quota_ledger.h"

namespace paddock::broker {

void QuotaLedger::set_limit(const std::string& key, std::int64_t limit) {
  std::lock_guard lock(mu_);
  entries_[key].limit = limit;
}

std::int64_t QuotaLedger::remaining(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return -1;
  if (it->second.exceeded) return 0;
  std::int64_t left = it->second.limit - it->second.used;
  return left > 0 ? left : 0;
}

void QuotaLedger::add(const std::string& key, std::int64_t bytes) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) it->second.used += bytes;
}

bool QuotaLedger::mark_exceeded(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.exceeded) return false;
  it->second.exceeded = true;
  return true;
}

bool QuotaLedger::exceeded(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.exceeded;
}

std::int64_t QuotaLedger::used(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? 0 : it->second.used;
}

std::int64_t QuotaLedger::limit(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? -1 : it->second.limit;
}

}  // namespace paddock::broker
