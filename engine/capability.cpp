#include "engine/capability.h"

#include <algorithm>
#include <map>
#include <set>
#include <type_traits>

#include "engine/ir_schema.h"

namespace paddock {

bool path_inside(const std::string& path, const std::string& root) {
  if (root == "/") return !path.empty() && path[0] == '/';
  if (path == root) return true;
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
         path[root.size()] == '/';
}

namespace {

// Windows paths compare case-insensitively with either separator (lexically: 8.3 short names
// and junction aliases are not modelled, which the Windows matrix reports).
std::string windows_key(std::string p) {
  for (char& c : p) {
    if (c == '\\') c = '/';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

bool inside_any(const std::string& path, const std::vector<std::string>& roots, bool windows) {
  return std::any_of(roots.begin(), roots.end(), [&](const std::string& r) {
    return windows ? path_inside_windows(path, r) : path_inside(path, r);
  });
}

}  // namespace

bool path_inside_windows(const std::string& path, const std::string& root) {
  const std::string p = windows_key(path), r = windows_key(root);
  if (p == r) return true;
  return p.size() > r.size() && p.compare(0, r.size(), r) == 0 &&
         (p[r.size()] == '/' || r.back() == '/');
}

namespace {

using namespace ir_schema;

// Text of a field's value in a "<path>=<value>" row.
template <Valued T>
std::string row_value(const T& v) {
  if constexpr (Enum<T>) return std::string(enum_name(v));
  else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
  else return v;
}

template <Settable T>
bool is_set(const T& v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) return v.has_value();
  else return !v.empty();
}

// Which row each deny lies in: "inside a grant" is decided lexically on the canonical paths.
void classify_deny(const FrozenIr& ir, std::set<std::string>& want) {
  const IrFs& fs = ir.fs;
  const bool win = ir.meta.os == "windows";
  for (const DenyEntry& d : fs.deny) {
    const bool in_write = inside_any(d.path, fs.write_roots, win);
    const bool in_read = inside_any(d.path, fs.read_roots, win);
    if (in_write && is_absent(d.kind))
      want.insert("fs.deny.absent_inside_write_root");
    else if (in_write)
      want.insert("fs.deny.inside_write_root");
    else if (in_read)
      want.insert("fs.deny.inside_read_root");
    else
      want.insert("fs.deny.outside_grants");
  }
}

void classify_deny_write(const FrozenIr& ir, std::set<std::string>& want) {
  const IrFs& fs = ir.fs;
  const bool win = ir.meta.os == "windows";
  for (const DenyEntry& d : fs.deny_write) {
    const bool in_write = inside_any(d.path, fs.write_roots, win);
    if (in_write && is_absent(d.kind))
      want.insert("fs.deny_write.absent_inside_write_root");
    else if (in_write)
      want.insert("fs.deny_write.inside_write_root");
    else
      want.insert("fs.deny_write.outside_write_roots");
  }
}

// Each extension that says anything asks for its own row (an unknown key for a row of its own,
// which no backend has, so check() refuses it).
void classify_extensions(const FrozenIr& ir, std::set<std::string>& want) {
  if (ir.extensions.is_object())
    for (auto it = ir.extensions.begin(); it != ir.extensions.end(); ++it)
      if (!(it.value().is_object() && it.value().empty()) && !it.value().is_null())
        want.insert("extensions." + it.key());
}

using Classifier = void (*)(const FrozenIr&, std::set<std::string>&);

// The classified fields of the schema. A classified field missing here is asked for under its
// bare path, which no backend row has, so it is refused until its rule is written.
Classifier classifier_of(const std::string& path) {
  static const std::map<std::string, Classifier> kClassifiers = {
      {"fs.deny", classify_deny},
      {"fs.deny_write", classify_deny_write},
      {"extensions", classify_extensions},
  };
  auto it = kClassifiers.find(path);
  return it == kClassifiers.end() ? nullptr : it->second;
}

// The default value's text of every kValueUnlessDefault field.
const std::map<std::string, std::string>& unless_default_values() {
  static const std::map<std::string, std::string> kDefaults = [] {
    std::map<std::string, std::string> out;
    for_each_ir_field(FrozenIr{}, [&](const std::string& path, const FieldInfo& info, const auto& v) {
      if constexpr (Valued<std::remove_cvref_t<decltype(v)>>)
        if (info.gate.request == Request::kValueUnlessDefault) out[path] = row_value(v);
    });
    return out;
  }();
  return kDefaults;
}

}  // namespace

const std::vector<std::string>& capability_fields() {
  static const std::vector<std::string> kFields = [] {
    std::vector<std::string> out;
    for_each_ir_field(FrozenIr{}, [&](const std::string& path, const FieldInfo& info, const auto& v) {
      using T = std::remove_cvref_t<decltype(v)>;
      switch (info.gate.request) {
        case Request::kWhenSet: out.push_back(path); break;
        case Request::kValue:
        case Request::kValueWhenNetworked:
          if constexpr (Enum<T>) {
            for (const auto& [value, name] : EnumNames<T>::values) out.push_back(path + "=" + std::string(name));
          } else if constexpr (std::is_same_v<T, std::string>) {
            out.push_back(path + "=" + v);  // the default is the one value every backend describes
          }
          break;
        case Request::kClassified:
          for (std::string_view row : info.gate.rows) out.push_back(path + "." + std::string(row));
          break;
        case Request::kValueUnlessDefault:
          // A switch: its other value is the one row a backend must describe.
          if constexpr (std::is_same_v<T, bool>) out.push_back(path + "=" + row_value(!v));
          break;
        case Request::kNever: break;
      }
    });
    return out;
  }();
  return kFields;
}

std::vector<std::string> requested_fields(const FrozenIr& ir) {
  std::set<std::string> want;
  const bool networked = ir.egress.mode != NetMode::kOff;
  for_each_ir_field(ir, [&](const std::string& path, const FieldInfo& info, const auto& v) {
    using T = std::remove_cvref_t<decltype(v)>;
    switch (info.gate.request) {
      case Request::kNever: break;
      // ir_schema.h checks at compile time that each request fits its field's type.
      case Request::kWhenSet:
        if constexpr (Settable<T>)
          if (is_set(v)) want.insert(path);
        break;
      case Request::kValue:
      case Request::kValueWhenNetworked:
      case Request::kValueUnlessDefault:
        if constexpr (Valued<T>) {
          if (info.gate.request == Request::kValueWhenNetworked && !networked) break;
          const std::string value = row_value(v);
          if (info.gate.request == Request::kValueUnlessDefault && unless_default_values().at(path) == value) break;
          want.insert(path + "=" + value);
        }
        break;
      case Request::kClassified:
        if (Classifier c = classifier_of(path)) c(ir, want);
        else want.insert(path);
        break;
    }
  });

  std::vector<std::string> out;
  for (const std::string& f : capability_fields())
    if (want.erase(f)) out.push_back(f);
  out.insert(out.end(), want.begin(), want.end());  // unknown values: refused by check()
  return out;
}

std::vector<FieldCapability> in_field_order(std::vector<FieldCapability> rows) {
  const auto& fields = capability_fields();
  const auto rank = [&](const FieldCapability& c) {
    return static_cast<std::size_t>(std::find(fields.begin(), fields.end(), c.field) - fields.begin());
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const FieldCapability& a, const FieldCapability& b) {
    const std::size_t ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a.field < b.field;
  });
  return rows;
}

std::vector<FieldCapability> capability_vector(const std::vector<FieldCapability>& matrix,
                                               const std::vector<std::string>& fields) {
  std::vector<FieldCapability> out;
  for (const std::string& f : fields) {
    auto it = std::find_if(matrix.begin(), matrix.end(),
                           [&](const FieldCapability& c) { return c.field == f; });
    if (it != matrix.end()) {
      out.push_back(*it);
    } else {
      FieldCapability c;
      c.field = f;
      c.support = Support::kUnsupported;
      c.loss = "this backend has no enforcement for this value; use a value the capability "
               "matrix lists (docs/capabilities.md)";
      out.push_back(c);
    }
  }
  return out;
}

std::vector<std::string> losses_of(const std::vector<FieldCapability>& rows) {
  std::vector<std::string> out;
  for (const FieldCapability& c : rows)
    if (c.support == Support::kPartial) out.push_back(c.field + ": " + c.loss);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> refusals_of(const std::string& backend,
                                     const std::vector<FieldCapability>& rows) {
  std::vector<std::string> out;
  for (const FieldCapability& c : rows) {
    if (c.support == Support::kUnsupported) {
      out.push_back(backend + " cannot enforce " + c.field + ": " + c.loss);
    } else if (c.needs != Needs::kNone) {
      out.push_back(backend + " enforces " + c.field + " only with " + to_string(c.needs) +
                    ", which the launch path never provides: " +
                    (c.loss.empty() ? std::string("remove it from the policy") : c.loss));
    }
  }
  return out;
}

std::vector<std::string> ir_refusals(const FrozenIr& ir) {
  std::vector<std::string> out;
  for (const std::string& w : ir.warnings)
    if (w.rfind("resolve_budget_exceeded", 0) == 0)
      out.push_back("the policy's path resolution exceeded its budget (" + w +
                    "); narrow the globs so that they match fewer files");
  if (!ir.egress.cidr.empty() && ir.egress.mode != NetMode::kOff)
    out.push_back(std::string("allow_cidr cannot be combined with net mode ") +
                  to_string(ir.egress.mode) +
                  ": raw IP grants would bypass the broker's DNS pinning; remove "
                  "network.allow_cidr or use allow_domains only");
  if (ir.egress.git_ssh && ir.egress.mode == NetMode::kOff)
    out.push_back("--git-ssh routes ssh through the egress broker, which net mode off does not "
                  "start; add --net allowlist (or strict) with --allow-domain HOST:22, or drop --git-ssh");
  if (ir.egress.git_ssh && ir.egress.git_ssh_connect.empty())
    out.push_back("--git-ssh needs paddock-connect, and this front end did not name one; run it from "
                  "the paddock CLI, which installs paddock-connect next to paddock-helper");
  return out;
}

Status validate_row(const FieldCapability& row) {
  if (row.field.empty()) return internal_error("capability row without a field name");
  if (row.support == Support::kPartial && row.loss.empty())
    return internal_error("capability row " + row.field + " is partial without a loss sentence");
  if (row.support == Support::kUnsupported && row.loss.empty())
    return internal_error("capability row " + row.field + " is unsupported without a reason");
  if (row.support != Support::kUnsupported && row.mechanism.empty())
    return internal_error("capability row " + row.field + " names no mechanism");
  return Status::Ok();
}

namespace capability_rows {
FieldCapability exact(const std::string& field, const std::string& mechanism) {
  return {field, Support::kExact, Needs::kNone, "", mechanism};
}
FieldCapability partial(const std::string& field, const std::string& mechanism, const std::string& loss) {
  return {field, Support::kPartial, Needs::kNone, loss, mechanism};
}
FieldCapability unsupported(const std::string& field, const std::string& why, Needs needs) {
  return {field, Support::kUnsupported, needs, why, ""};
}
std::vector<FieldCapability> extension_rows(const std::string& own, const std::string& why) {
  std::vector<FieldCapability> out;
  for (const auto& [os, name] : {std::pair{"linux", "Linux"}, {"macos", "macOS"}, {"windows", "Windows"}}) {
    const std::string field = std::string("extensions.") + os;
    out.push_back(os == own ? unsupported(field, why)
                            : exact(field, std::string("belongs to the ") + name + " backend; nothing to apply here"));
  }
  return out;
}
std::vector<FieldCapability> linux_test_seams_refused() {
  std::vector<FieldCapability> out = {unsupported(
      "egress.debug_resolve", "PADDOCK_DEBUG_RESOLVE is a test seam of the Linux egress broker only; unset it")};
  for (const char* f : {"secrets.debug_upstreams", "secrets.debug_upstream_ca"})
    out.push_back(unsupported(f, "PADDOCK_DEBUG_UPSTREAM and PADDOCK_DEBUG_UPSTREAM_CA are test seams of the "
                                 "Linux credential broker only; unset them"));
  return out;
}
}  // namespace capability_rows

}  // namespace paddock
