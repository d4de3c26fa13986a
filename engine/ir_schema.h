// The IR's schema, declared once with the mechanism every record shares (engine/schema.h): for
// every struct of engine/ir.h, each member with its JSON key, its traits and how the fail-closed
// check asks a backend for it. Everything that walks the IR is derived from these declarations:
// normalize, to_json and ir_from_json (ir.cpp, through engine/schema_codec.h), the canonical
// bytes, the capability rows and requested fields (capability.cpp),
// provenance keys (field_path), the GUI's Diff and the CLI's explain. docs/architecture.md,
// "How to add an IR field", is the recipe; tests/engine/ir_schema_test checks that every member
// is declared and tests/backends/capability_matrix_test that every row has a backend row.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/ir.h"
#include "engine/schema.h"

// The declarations. Order is display order (capability rows, explain, Diff); the JSON and the
// canonical bytes sort keys by byte value whatever the order here. The requests (when_set,
// by_value, ...) are engine/schema.h's.
namespace paddock::schema {

// Rows of the classified fields.
inline constexpr std::string_view kDenyRows[] = {"outside_grants", "inside_read_root", "inside_write_root",
                                                 "absent_inside_write_root"};
inline constexpr std::string_view kDenyWriteRows[] = {"outside_write_roots", "inside_write_root",
                                                      "absent_inside_write_root"};
inline constexpr std::string_view kExtensionRows[] = {"linux", "macos", "windows"};

template <>
struct Schema<SourceLayer> {
  static constexpr auto fields = std::make_tuple(
      field("tier", &SourceLayer::tier, no_enforcement),
      field("file", &SourceLayer::file, no_enforcement),
      field("sha256", &SourceLayer::sha256, no_enforcement));
};

template <>
struct Schema<IrMeta> {
  static constexpr auto fields = std::make_tuple(
      field("ir_version", &IrMeta::ir_version, no_enforcement),
      field("schema_hash", &IrMeta::schema_hash, no_enforcement),
      field("source_layers", &IrMeta::source_layers, no_enforcement),  // precedence order: not a set
      field("project", &IrMeta::project, no_enforcement),
      field("home", &IrMeta::home, no_enforcement),
      field("agent", &IrMeta::agent, no_enforcement),
      field("agent_dir", &IrMeta::agent_dir, no_enforcement),
      field("os", &IrMeta::os, no_enforcement),
      field("linux_tier", &IrMeta::linux_tier, no_enforcement));  // the backend picks its matrix by it
};

template <>
struct Schema<DenyEntry> {
  static constexpr auto fields = std::make_tuple(
      field("path", &DenyEntry::path, no_enforcement),
      field("kind", &DenyEntry::kind, no_enforcement));
};

template <>
struct Schema<WatchedConfig> {
  static constexpr auto fields = std::make_tuple(
      field("path", &WatchedConfig::path, no_enforcement),
      field("format", &WatchedConfig::format, no_enforcement),
      field("keys", &WatchedConfig::keys, no_enforcement));  // the list's order: not a set
};

template <>
struct Schema<AgentSetting> {
  static constexpr auto fields = std::make_tuple(
      field("file", &AgentSetting::file, no_enforcement),
      field("format", &AgentSetting::format, no_enforcement),
      field("set", &AgentSetting::set, no_enforcement),
      field("import_from", &AgentSetting::import_from, no_enforcement),
      field("import_keys", &AgentSetting::import_keys, no_enforcement),  // sorted by the builder
      field("why", &AgentSetting::why, no_enforcement));
};

template <>
struct Schema<AgentStateRoot> {
  static constexpr auto fields = std::make_tuple(
      field("path", &AgentStateRoot::path, no_enforcement),
      field("hidden", &AgentStateRoot::hidden, no_enforcement),      // sorted by the builder
      field("settings", &AgentStateRoot::settings, no_enforcement));  // sorted by the builder
};

template <>
struct Schema<BrokeredCredential> {
  static constexpr auto fields = std::make_tuple(
      field("name", &BrokeredCredential::name, no_enforcement),
      field("upstream", &BrokeredCredential::upstream, no_enforcement),
      field("port", &BrokeredCredential::port, no_enforcement),
      field("header", &BrokeredCredential::header, no_enforcement),
      field("scheme", &BrokeredCredential::scheme, no_enforcement),
      field("basic_user", &BrokeredCredential::basic_user, no_enforcement),
      field("env", &BrokeredCredential::env, no_enforcement),
      field("max_requests", &BrokeredCredential::max_requests, no_enforcement),
      field("max_bytes", &BrokeredCredential::max_bytes, no_enforcement),
      field("max_request_bytes", &BrokeredCredential::max_request_bytes, no_enforcement),
      field("max_response_bytes", &BrokeredCredential::max_response_bytes, no_enforcement));
};

template <>
struct Schema<IrFs> {
  static constexpr auto fields = std::make_tuple(
      field("write_roots", &IrFs::write_roots, when_set, kSet),
      field("read_roots", &IrFs::read_roots, when_set, kSet),
      field("deny", &IrFs::deny, classified(kDenyRows), kSet),
      field("deny_write", &IrFs::deny_write, classified(kDenyWriteRows), kSet),
      field("tmp_isolated", &IrFs::tmp_isolated, when_set),
      field("symlink_policy", &IrFs::symlink_policy, by_value),
      field("mount_semantics", &IrFs::mount_semantics, by_value),
      field("host_mounted_paths", &IrFs::host_mounted_paths, when_set, kSet),
      field("watched_configs", &IrFs::watched_configs, when_set, kSet),
      field("review_roots", &IrFs::review_roots, when_set, kSet),
      field("agent_state_dir", &IrFs::agent_state_dir, enforced_by("fs.agent_state")),
      field("agent_state", &IrFs::agent_state, when_set, kSet),
      field("shared_agent_dirs", &IrFs::shared_agent_dirs, when_set, kSet));
};

template <>
struct Schema<IrEgress> {
  static constexpr auto fields = std::make_tuple(
      field("mode", &IrEgress::mode, by_value),
      field("domains", &IrEgress::domains, enforced_by("egress.mode"), kSet),
      field("strict_ports", &IrEgress::strict_ports, enforced_by("egress.mode"), kSet | kPort),
      field("dns", &IrEgress::dns, by_value_when_networked),
      field("tls", &IrEgress::tls, by_value_when_networked),
      field("cidr", &IrEgress::cidr, when_set, kSet),
      field("bind_ports", &IrEgress::bind_ports, when_set, kSet | kPort),
      field("connect_ports", &IrEgress::connect_ports, when_set, kSet | kPort),
      field("unix_ipc", &IrEgress::unix_ipc, by_value),
      field("unix_socket_files", &IrEgress::unix_socket_files, when_set, kSet),
      field("quotas", &IrEgress::quotas, when_set),
      field("git_ssh", &IrEgress::git_ssh, when_set),
      field("ask_timeout_secs", &IrEgress::ask_timeout_secs, enforced_by("egress.mode"), kNonNegative),
      field("git_ssh_connect", &IrEgress::git_ssh_connect, enforced_by("egress.git_ssh")),
      field("debug_resolve", &IrEgress::debug_resolve, when_set, kSet),
      field("loopback_bind", &IrEgress::loopback_bind, by_value_unless_default),
      field("publish", &IrEgress::publish, when_set, kSet | kPort),
      field("host_ports", &IrEgress::host_ports, when_set, kSet | kPort));
};

template <>
struct Schema<IrProcess> {
  static constexpr auto fields = std::make_tuple(
      field("exec_scope", &IrProcess::exec_scope, by_value),
      field("inheritance", &IrProcess::inheritance, by_value),
      field("detach_policy", &IrProcess::detach_policy, by_value),
      field("privilege_drop", &IrProcess::privilege_drop, when_set),
      field("no_new_privs", &IrProcess::no_new_privs, when_set));
};

template <>
struct Schema<IrSecrets> {
  static constexpr auto fields = std::make_tuple(
      field("default", &IrSecrets::default_, by_value),
      field("brokered_env", &IrSecrets::brokered_env, when_set, kSet),
      field("inherited_credentials", &IrSecrets::inherited_credentials, by_value),
      field("credentials", &IrSecrets::credentials, when_set, kSet),
      field("debug_upstreams", &IrSecrets::debug_upstreams, when_set),
      field("debug_upstream_ca", &IrSecrets::debug_upstream_ca, when_set));
};

template <>
struct Schema<IrEnv> {
  static constexpr auto fields = std::make_tuple(
      field("mode", &IrEnv::mode, by_value),
      field("pass_through", &IrEnv::pass_through, enforced_by("env.passed_names"), kSet),
      field("deny", &IrEnv::deny, enforced_by("env.passed_names"), kSet),
      field("hard_deny", &IrEnv::hard_deny, enforced_by("env.passed_names"), kSet),
      field("passed_names", &IrEnv::passed_names, when_set, kSet),
      field("set", &IrEnv::set, when_set));
};

template <>
struct Schema<IrResources> {
  static constexpr auto fields = std::make_tuple(
      field("cpu_seconds", &IrResources::cpu_seconds, when_set, kNonNegative),
      field("memory_bytes", &IrResources::memory_bytes, when_set, kNonNegative),
      field("processes", &IrResources::processes, when_set, kNonNegative),
      field("open_files", &IrResources::open_files, when_set, kNonNegative),
      field("file_size_bytes", &IrResources::file_size_bytes, when_set, kNonNegative),
      field("wall_time_secs", &IrResources::wall_time_secs, when_set, kNonNegative),
      field("merge", &IrResources::merge, by_value_unless_default));
};

template <>
struct Schema<IrLifecycle> {
  static constexpr auto fields = std::make_tuple(
      field("cleanup", &IrLifecycle::cleanup, by_value),
      field("orphan_policy", &IrLifecycle::orphan_policy, by_value),
      field("crash_handling", &IrLifecycle::crash_handling, by_value));
};

template <>
struct Schema<FrozenIr> {
  static constexpr auto fields = std::make_tuple(
      field("meta", &FrozenIr::meta, no_enforcement),
      field("fs", &FrozenIr::fs, no_enforcement),
      field("egress", &FrozenIr::egress, no_enforcement),
      field("process", &FrozenIr::process, no_enforcement),
      field("secrets", &FrozenIr::secrets, no_enforcement),
      field("env", &FrozenIr::env, no_enforcement),
      field("resources", &FrozenIr::resources, no_enforcement),
      field("lifecycle", &FrozenIr::lifecycle, no_enforcement),
      field("extensions", &FrozenIr::extensions, classified(kExtensionRows)),
      // The helper refuses a tainted plan without --allow-tainted; warnings enforce nothing.
      field("warnings", &FrozenIr::warnings, no_enforcement, kSet | kNoDiff),
      field("taint", &FrozenIr::taint, no_enforcement, kSet));
};

}  // namespace paddock::schema

namespace paddock::ir_schema {

using namespace paddock::schema;

// ---- Walking the declarations ----------------------------------------------------------------

// Types a request can read: "set" for kWhenSet, a value's text for the kValue kinds.
template <class T>
concept Settable = std::is_same_v<T, bool> || std::is_same_v<T, std::optional<std::int64_t>> ||
                   std::is_same_v<T, std::string> || is_vector<T> || is_map<T>;
template <class T>
concept Valued = Enum<T> || std::is_same_v<T, std::string> || std::is_same_v<T, bool>;

// A list normalize can sort: its entries order with <.
template <class T>
concept SortableList = is_vector<T> && requires(const typename T::value_type& a) { a < a; };
template <class T>
concept SortableMap = is_map<T> && SortableList<typename T::mapped_type>;
template <class T>
concept SetField = SortableList<T> || SortableMap<T>;

template <class S, class T>
constexpr bool gate_fits(const Field<S, T>& f) {
  if ((f.info.traits & kSet) && !SetField<T>) return false;
  switch (f.info.gate.request) {
    case Request::kWhenSet: return Settable<T>;
    case Request::kValue:
    case Request::kValueWhenNetworked:
    case Request::kValueUnlessDefault: return Valued<T>;
    case Request::kClassified: return !f.info.gate.rows.empty();
    case Request::kNever: return true;
  }
  return false;
}

template <class S>
constexpr bool gates_fit() {
  return std::apply([](const auto&... f) { return (gate_fits(f) && ...); }, Schema<S>::fields);
}

// Every field of the IR with its path: a section's fields as "section.key", the others (the
// extensions, warnings, taint) as "key". f(path, info, value).
template <class F>
void for_each_ir_field(const FrozenIr& ir, F&& f) {
  for_each_field(ir, [&](const FieldInfo& top, const auto& v) {
    if constexpr (Described<decltype(v)>)
      for_each_field(v, [&](const FieldInfo& info, const auto& x) {
        f(std::string(top.key) + "." + std::string(info.key), info, x);
      });
    else
      f(std::string(top.key), top, v);
  });
}

// The same over two IRs: f(path, info, value in a, value in b).
template <class F>
void for_each_ir_field(const FrozenIr& a, const FrozenIr& b, F&& f) {
  for_each_field(a, b, [&](const FieldInfo& top, const auto& va, const auto& vb) {
    if constexpr (Described<decltype(va)>)
      for_each_field(va, vb, [&](const FieldInfo& info, const auto& xa, const auto& xb) {
        f(std::string(top.key) + "." + std::string(info.key), info, xa, xb);
      });
    else
      f(std::string(top.key), top, va, vb);
  });
}

static_assert(gates_fit<SourceLayer>() && gates_fit<IrMeta>() && gates_fit<DenyEntry>() && gates_fit<WatchedConfig>() &&
                  gates_fit<BrokeredCredential>() && gates_fit<IrFs>() &&
                  gates_fit<IrEgress>() && gates_fit<IrProcess>() && gates_fit<IrSecrets>() && gates_fit<IrEnv>() &&
                  gates_fit<IrResources>() && gates_fit<IrLifecycle>() && gates_fit<FrozenIr>(),
              "a field's request does not fit its type (when_set needs a flag, limit, string, list or map; "
              "by_value a string or an enum; classified its rows; a set a list whose entries order with <)");

// "section.key" of a member, e.g. field_path<&IrFs::deny>() == "fs.deny": the provenance keys
// and lint findings name fields by this, so a name that is not in the schema does not compile.
template <auto Member>
constexpr std::pair<std::string_view, std::string_view> field_path_parts() {
  std::pair<std::string_view, std::string_view> found{};
  std::apply(
      [&](const auto&... top) {
        const auto look = [&](const auto& t) {
          using TopT = std::remove_cvref_t<decltype(FrozenIr{}.*(t.member))>;
          if constexpr (std::is_same_v<decltype(t.member), decltype(Member)>) {
            if (t.member == Member) found = {{}, t.info.key};
          } else if constexpr (Described<TopT>) {
            std::apply(
                [&](const auto&... fd) {
                  const auto one = [&](const auto& d) {
                    if constexpr (std::is_same_v<decltype(d.member), decltype(Member)>)
                      if (d.member == Member) found = {t.info.key, d.info.key};
                  };
                  (one(fd), ...);
                },
                Schema<TopT>::fields);
          }
        };
        (look(top), ...);
      },
      Schema<FrozenIr>::fields);
  return found;
}

template <auto Member>
const std::string& field_path() {
  static constexpr auto parts = field_path_parts<Member>();
  static_assert(!parts.second.empty(), "this member is not declared in the IR schema");
  static const std::string path =
      parts.first.empty() ? std::string(parts.second) : std::string(parts.first) + "." + std::string(parts.second);
  return path;
}

// A value in words, for the GUI's Diff and `paddock explain`: strings as they are, a limit that
// is not set as "no limit", an enum by its name, an entry of a struct as its first field and the
// others in parentheses ("/p/.env (file)"), a list as its entries joined by commas.
template <class T>
std::string text_of(const T& v);

// The entries of a list or a map, one text each (a map entry as "key=value").
template <class T>
std::vector<std::string> entries_of(const T& v) {
  std::vector<std::string> out;
  if constexpr (is_vector<T>) {
    for (const auto& x : v) out.push_back(text_of(x));
  } else if constexpr (is_map<T>) {
    for (const auto& [k, x] : v) out.push_back(k + "=" + text_of(x));
  }
  return out;
}

template <class T>
std::string text_of(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
    return v ? std::to_string(*v) : "no limit";
  } else if constexpr (Enum<T>) {
    return std::string(enum_name(v));
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (is_vector<T> || is_map<T>) {
    std::string out;
    for (const auto& e : entries_of(v)) out += (out.empty() ? "" : ",") + e;
    return out;
  } else if constexpr (Described<T>) {
    // "first (second, third)": the entry, then what it says about it, empty fields left out.
    std::string first, rest;
    for_each_field(v, [&](const FieldInfo&, const auto& member) {
      const std::string t = text_of(member);
      if (first.empty()) first = t;
      else if (!t.empty()) rest += (rest.empty() ? "" : ", ") + t;
    });
    return rest.empty() ? first : first + " (" + rest + ")";
  } else {
    return v.dump();  // the extensions: JSON read from JSON, so it dumps
  }
}

}  // namespace paddock::ir_schema
