// Per-domain byte quotas (IrEgress.quotas): bytes both ways, summed over every connection whose
// host draws on the key. Accounting plus close, not a bandwidth boundary (docs/network.md).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace paddock::broker {

class QuotaLedger {
 public:
  void set_limit(const std::string& key, std::int64_t limit);
  // Bytes still allowed for `key` (0 when exhausted); -1 when the key has no quota.
  std::int64_t remaining(const std::string& key) const;
  // Records delivered bytes.
  void add(const std::string& key, std::int64_t bytes);
  // Marks the key exhausted; true for the one caller that flipped it (it reports the event).
  bool mark_exceeded(const std::string& key);
  bool exceeded(const std::string& key) const;
  std::int64_t used(const std::string& key) const;
  std::int64_t limit(const std::string& key) const;

 private:
  struct Entry {
    std::int64_t limit = 0;
    std::int64_t used = 0;
    bool exceeded = false;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace paddock::broker
