#include "engine/session/run_args.h"

#include <charconv>

namespace paddock::session {
namespace {

struct ValueOption {
  const char* name;
  const char* metavar;
  std::string HelperRunArgs::*member;
  bool required;
};

struct FlagOption {
  const char* name;
  bool HelperRunArgs::*member;
};

constexpr ValueOption kValues[] = {
    {"--ir", "FILE", &HelperRunArgs::ir_file, true},
    {"--plan-hash", "H", &HelperRunArgs::plan_hash, true},
    {"--session-dir", "DIR", &HelperRunArgs::session_dir, true},
    {"--session-id", "ID", &HelperRunArgs::session_id, true},
    {"--control-socket", "PATH", &HelperRunArgs::control_socket, false},
    {"--probe", "FILE", &HelperRunArgs::probe_file, false},
    {"--cwd", "DIR", &HelperRunArgs::cwd, false},
    {"--credentials", "FILE", &HelperRunArgs::credentials_file, false},
    {"--placeholders", "FILE", &HelperRunArgs::placeholders_file, false},
    {"--oci-runtime", "PATH", &HelperRunArgs::oci_runtime, false},
};
constexpr const char* kTimeout = "--timeout";

constexpr FlagOption kFlags[] = {
    {"--allow-tainted", &HelperRunArgs::allow_tainted},
    {"--replaces-caller", &HelperRunArgs::replaces_caller},
    {"--record-session", &HelperRunArgs::record_session},
    {"--probe-cached", &HelperRunArgs::probe_cached},
};

}  // namespace

std::vector<std::string> encode_run_args(const HelperRunArgs& a) {
  std::vector<std::string> out = {"run"};
  for (const auto& o : kValues)
    if (!(a.*o.member).empty()) out.insert(out.end(), {o.name, a.*o.member});
  if (a.timeout_secs) out.insert(out.end(), {kTimeout, std::to_string(*a.timeout_secs)});
  for (const auto& f : kFlags)
    if (a.*f.member) out.emplace_back(f.name);
  out.emplace_back("--");
  out.insert(out.end(), a.command.begin(), a.command.end());
  return out;
}

Result<HelperRunArgs> decode_run_args(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "run") return bad_input("usage: " + helper_usage());
  HelperRunArgs a;
  std::size_t i = 1;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      a.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    bool matched = false;
    for (const auto& f : kFlags)
      if (arg == f.name) {
        a.*f.member = true;
        matched = true;
      }
    if (matched) continue;
    const bool is_timeout = arg == kTimeout;
    const ValueOption* value = nullptr;
    for (const auto& o : kValues)
      if (arg == o.name) value = &o;
    if (!value && !is_timeout) return bad_input("unknown option " + arg + "; usage: " + helper_usage());
    if (i + 1 >= args.size()) return bad_input(arg + " needs a value");
    const std::string& v = args[++i];
    if (value) {
      a.*value->member = v;
      continue;
    }
    std::int64_t secs = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), secs);
    if (ec != std::errc() || end != v.data() + v.size() || secs <= 0)
      return bad_input("--timeout: expected a positive number of seconds, not '" + v + "'");
    a.timeout_secs = secs;
  }
  for (const auto& o : kValues)
    if (o.required && (a.*o.member).empty()) return bad_input(std::string("run needs ") + o.name + "; usage: " + helper_usage());
  if (a.command.empty()) return bad_input("no command given after --; usage: " + helper_usage());
  return a;
}

std::string helper_usage() {
  std::string u = "paddock-helper probe | paddock-helper run";
  for (const auto& o : kValues) u += std::string(o.required ? " " : " [") + o.name + " " + o.metavar + (o.required ? "" : "]");
  u += std::string(" [") + kTimeout + " SECS]";
  for (const auto& f : kFlags) u += std::string(" [") + f.name + "]";
  u += " -- CMD [ARGS...]";
  return u;
}

}  // namespace paddock::session
