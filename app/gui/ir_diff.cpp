#include "ir_diff.h"

#include <set>

#include "engine/ir_schema.h"

namespace paddock::gui {

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
        if (!sb.count(x)) out.push_back({field, x, false});
      for (const auto& x : sb)
        if (!sa.count(x)) out.push_back({field, x, true});
    } else {
      const std::string ta = text_of(va), tb = text_of(vb);
      if (ta == tb) return;
      out.push_back({field, ta, false});
      out.push_back({field, tb, true});
    }
  });
  return out;
}

}  // namespace paddock::gui
