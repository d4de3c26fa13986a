// WindowsSpec <-> JSON, derived from its declaration (windows_plan.h). Kept apart from the
// compiler so that the Windows helper (cross-compiled with mingw) links this file alone and reads
// exactly what the backend wrote.
#include "backends/windows/windows_plan.h"
#include "engine/schema_codec.h"

namespace paddock::windows_backend {

nlohmann::json to_json(const WindowsSpec& s) { return schema::to_json_value(s); }

Result<WindowsSpec> spec_from_json(const nlohmann::json& j) {
  auto s = schema::from_json_value<WindowsSpec>(j, "Windows spec ", "spec");
  if (!s.ok()) return s.error();
  // What the declaration cannot say: the words the helper maps to access rights.
  for (const auto& g : s->grants)
    if (g.access != "read" && g.access != "write") return bad_input("Windows spec spec.grants[].access: expected read or write");
  for (const auto& d : s->denies)
    if ((d.kind != "dir" && d.kind != "file") || (d.access != "all" && d.access != "write"))
      return bad_input("Windows spec spec.denies[]: kind must be dir|file, access all|write");
  return s;
}

}  // namespace paddock::windows_backend
