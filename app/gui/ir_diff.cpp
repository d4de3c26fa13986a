#include "ir_diff.h"

#include <set>

#include "engine/ir_schema.h"
#include "policy_summary.h"

namespace paddock::gui {
namespace {

// A whole number of bytes or seconds in units ("16 GiB", "2 h"); other text as it is.
std::string in_units(const std::string& text, bool bytes) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 18) return text;
  const std::int64_t n = std::stoll(text);
  return bytes ? human_bytes(n) : human_seconds(n);
}

}  // namespace

std::string value_in_units(const std::string& field, const std::string& value) {
  const auto ends = [&](const char* suffix) {
    const std::string s(suffix);
    return field.size() >= s.size() && field.compare(field.size() - s.size(), s.size(), s) == 0;
  };
  if (ends("_bytes")) return in_units(value, true);
  if (ends("_seconds") || ends("_secs")) return in_units(value, false);
  if (field == "egress.quotas")  // domain=bytes
    if (const auto eq = value.rfind('='); eq != std::string::npos)
      return value.substr(0, eq + 1) + in_units(value.substr(eq + 1), true);
  return value;
}

std::vector<IrChange> diff_ir(const FrozenIr& a, const FrozenIr& b) {
  using namespace ir_schema;
  std::vector<IrChange> out;
  // Every field the schema declares, so a field the IR gains later is never missing here.
  for_each_ir_field(a, b, [&](const std::string& field, const FieldInfo& info, const auto& va, const auto& vb) {
    using T = std::remove_cvref_t<decltype(va)>;
    if (info.traits & kNoDiff) return;
    if constexpr (is_vector<T> || is_map<T>) {
      const auto ea = entries_of(va), eb = entries_of(vb);
      const std::set<std::string> sa(ea.begin(), ea.end()), sb(eb.begin(), eb.end());
      for (const auto& x : sa)
        if (!sb.count(x)) out.push_back({field, value_in_units(field, x), false});
      for (const auto& x : sb)
        if (!sa.count(x)) out.push_back({field, value_in_units(field, x), true});
    } else {
      const std::string ta = text_of(va), tb = text_of(vb);
      if (ta == tb) return;
      out.push_back({field, value_in_units(field, ta), false});
      out.push_back({field, value_in_units(field, tb), true});
    }
  });
  return out;
}

}  // namespace paddock::gui
