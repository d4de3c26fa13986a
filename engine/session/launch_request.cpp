#include "engine/session/launch_request.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <tuple>

#include "engine/layer_schema.h"

namespace paddock::session {
namespace {

// The engine never looks at the working directory: relative paths on the command line are made
// absolute here, against the directory the user typed them in. "~/" and "$VAR" pass unchanged.
std::string absolute_from(const std::string& cwd, const std::string& p) {
  if (p.empty() || p[0] == '/' || p[0] == '~' || p[0] == '$' || cwd.empty()) return p;
  return (std::filesystem::path(cwd) / p).lexically_normal().string();
}

std::vector<std::string> absolute_all(const std::string& cwd, const std::vector<std::string>& v) {
  std::vector<std::string> out;
  for (const auto& p : v) out.push_back(absolute_from(cwd, p));
  return out;
}

// One option's words: "--key value" per value, "--key" for a flag that is set; nothing for a
// value that is its default.
template <class T>
void option(std::vector<std::string>& out, std::string_view key, const T& v, const T& default_value) {
  const std::string flag = "--" + std::string(key);
  if constexpr (std::is_same_v<T, bool>) {
    if (v) out.push_back(flag);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (v != default_value) out.insert(out.end(), {flag, v});
  } else {
    static_assert(std::is_same_v<T, std::vector<std::string>>, "a launch option is a word, words or a flag");
    for (const auto& x : v) out.insert(out.end(), {flag, x});
  }
}

}  // namespace

std::vector<std::string> run_arguments(const LaunchRequest& r) {
  static const LaunchRequest defaults;
  std::vector<std::string> out = {"run"};
  // The project is always said: the app's launches then read the same in any working directory.
  out.insert(out.end(), {"--project", r.project});
  schema::for_each_field(r, defaults, [&](const schema::FieldInfo& info, const auto& v, const auto& d) {
    if (info.key == "project" || info.key == "command") return;
    option(out, info.key, v, d);
  });
  out.push_back("--");
  out.insert(out.end(), r.command.begin(), r.command.end());
  return out;
}

Result<std::int64_t> parse_timeout(const std::string& text) {
  const Error bad = bad_input("--timeout " + text + ": expected a positive duration such as 90, 90s, 30m or 2h");
  std::size_t i = 0;
  std::int64_t value = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (value > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return bad;
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  if (i == 0) return bad;
  std::int64_t unit = 1;
  const std::string suffix = text.substr(i);
  if (suffix == "m") unit = 60;
  else if (suffix == "h") unit = 3600;
  else if (!suffix.empty() && suffix != "s") return bad;
  // Bounded: a century is plenty and keeps steady_clock arithmetic safe.
  if (value <= 0 || value > std::int64_t{100} * 365 * 24 * 3600 / unit) return bad;
  return value * unit;
}

Result<Inputs> inputs_of(const LaunchRequest& r, const LaunchContext& ctx) {
  Inputs in;
  in.lister = ctx.lister;
  in.project = absolute_from(ctx.cwd, r.project.empty() ? "." : r.project);
  in.agent = r.agent;
  in.profile = r.profile.empty() ? "default" : r.profile;
  in.preset = r.preset.empty() ? "balanced" : r.preset;
  in.policy_files = absolute_all(ctx.cwd, r.policy_files);
  if (!r.net.empty()) {
    auto mode = net_mode_from_string(r.net);
    if (!mode) return bad_input("--net " + r.net + ": expected off, allowlist, strict or ask");
    in.net = *mode;
  }
  in.allow_domains = r.allow_domains;
  in.allow_reads = absolute_all(ctx.cwd, r.allow_reads);
  in.allow_writes = absolute_all(ctx.cwd, r.allow_writes);
  if (!r.limits.empty()) in.limits = r.limits;
  if (!r.timeout.empty()) {
    auto secs = parse_timeout(r.timeout);
    if (!secs.ok()) return secs.error();
    in.timeout_secs = *secs;
  }
  for (const auto& [option, typed, out] : {std::tuple{"--publish", &r.publish, &in.publish},
                                           std::tuple{"--host-port", &r.host_ports, &in.host_ports}}) {
    for (const auto& p : *typed) {
      const bool digits = !p.empty() && p.size() <= 5 && p.find_first_not_of("0123456789") == std::string::npos;
      const int port = digits ? std::stoi(p) : 0;
      if (port < 1 || port > 65535) return bad_input(std::string(option) + " " + p + ": expected a port 1..65535");
      out->push_back(port);
    }
  }
  const auto& tiers = layer_schema::linux_tier_words();
  if (!r.tier.empty() && std::find(tiers.begin(), tiers.end(), r.tier) == tiers.end())
    return bad_input("--tier " + r.tier + ": expected namespaces or landlock");
  in.linux_tier = r.tier;
  in.git_ssh = r.git_ssh;
  in.review = r.review;
  // paddock-connect is bound into the view only with --git-ssh (nothing else reads it).
  if (in.git_ssh) in.connect_path = ctx.connect_path;
  in.environment = ctx.environment;
  in.placeholders = ctx.placeholders;
  in.stored_credentials = ctx.stored_credentials;
  in.os = ctx.os;
  in.resources_dir = ctx.resources_dir;
  return in;
}

}  // namespace paddock::session
