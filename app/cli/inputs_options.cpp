#include "app/cli/inputs_options.h"

#include "app/cli/run_duration.h"
#include "platform/credential_store.h"
#include "platform/dir_lister.h"
#include "platform/placeholders.h"

#include <filesystem>
#include <system_error>

namespace paddock::cli {

std::shared_ptr<InputsOptions> add_inputs_options(CLI::App* cmd) {
  auto o = std::make_shared<InputsOptions>();
  cmd->add_option("--project", o->project, "Project directory (default: .)")->type_name("DIR");
  cmd->add_option("--agent", o->agent, "Agent preset: claude-code codex gemini-cli aider opencode copilot custom");
  cmd->add_option("--profile", o->profile, "Built-in profile: default strict audit permissive");
  cmd->add_option("--preset", o->preset, "Preset: paranoid balanced yolo");
  cmd->add_option("--policy", o->policy_files, "Extra policy layer file (repeatable)")->type_name("FILE");
  cmd->add_option("--net", o->net, "Network mode: off allowlist strict ask");
  cmd->add_option("--allow-domain", o->allow_domains, "Allow a domain, D or D:PORT (repeatable)");
  cmd->add_option("--allow-read", o->allow_reads, "Allow reading a path (repeatable)")->type_name("PATH");
  cmd->add_option("--allow-write", o->allow_writes, "Allow writing a path (repeatable)")->type_name("PATH");
  cmd->add_option("--limits", o->limits, "Limits, e.g. cpu=300,mem=4GiB,procs=256,nofile=1024,fsize=2M,wall=2h");
  cmd->add_flag("--git-ssh", o->git_ssh, "Route git's ssh through the egress broker");
  cmd->add_flag("--review", o->review,
                "Hold the agent's writes for review: nothing reaches the project until 'paddock apply'");
  cmd->add_option("--publish", o->publish,
                  "Forward the host's 127.0.0.1:PORT to the sandbox's 127.0.0.1:PORT (repeatable)")
      ->type_name("PORT")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--host-port", o->host_ports,
                  "Let the sandbox's 127.0.0.1:PORT reach the host's 127.0.0.1:PORT, e.g. a local model "
                  "server (repeatable)")
      ->type_name("PORT")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--timeout", o->timeout, "Wall-clock limit, e.g. 90s, 30m, 2h (run exits 124)");
  cmd->add_option("--tier", o->tier,
                  "Linux sandbox tier: namespaces (default), or landlock where user namespaces are "
                  "unavailable (Landlock and seccomp only; its losses: docs/capabilities.md)")
      ->check(CLI::IsMember({"namespaces", "landlock"}));
  return o;
}

namespace {

// The engine never looks at the working directory: relative paths on the command line are made
// absolute here, against the directory the user typed them in. "~/" and "$VAR" pass unchanged.
std::string absolute_from_cwd(const std::string& p) {
  if (p.empty() || p[0] == '/' || p[0] == '~' || p[0] == '$') return p;
  std::error_code ec;
  return (std::filesystem::current_path(ec) / p).lexically_normal().string();
}

std::vector<std::string> absolute_all(const std::vector<std::string>& v) {
  std::vector<std::string> out;
  for (const auto& p : v) out.push_back(absolute_from_cwd(p));
  return out;
}

}  // namespace

Result<Inputs> to_engine_inputs(const InputsOptions& o, const CliContext& ctx) {
  Inputs in;
  in.lister = &platform::fast_lister();
  in.project = absolute_from_cwd(o.project.empty() ? "." : o.project);
  in.agent = o.agent;
  in.profile = o.profile;
  in.preset = o.preset;
  in.policy_files = absolute_all(o.policy_files);
  if (!o.net.empty()) {
    auto mode = net_mode_from_string(o.net);
    if (!mode) return bad_input("--net " + o.net + ": expected off, allowlist, strict or ask");
    in.net = *mode;
  }
  in.allow_domains = o.allow_domains;
  in.allow_reads = absolute_all(o.allow_reads);
  in.allow_writes = absolute_all(o.allow_writes);
  if (!o.limits.empty()) in.limits = o.limits;
  if (!o.timeout.empty()) {
    auto secs = parse_duration_secs(o.timeout);
    if (!secs.ok()) return secs.error();
    in.timeout_secs = *secs;
  }
  in.git_ssh = o.git_ssh;
  in.review = o.review;
  in.linux_tier = o.tier;
  in.publish = o.publish;
  in.host_ports = o.host_ports;
  in.environment = ctx.environment;
  // Which credentials are stored (names and hosts, from the index; never a value): a declared
  // credential is brokered only when it is (docs/credentials.md).
  if (auto layout = ctx.layout(); layout.ok()) {
    auto bound = platform::CredentialStore(*layout, ctx.keyring_path().string()).bindings();
    if (!bound.ok()) return bound.error();
    in.stored_credentials = std::move(*bound);
  }
  in.placeholders = platform::live_placeholders(in.environment);
  in.os = "linux";
  in.resources_dir = ctx.resources_dir().string();
  // paddock-connect sits next to paddock-helper (libexec/paddock); --git-ssh binds it into the
  // view, and nothing else reads it (so a run without --git-ssh does not resolve it).
  if (in.git_ssh) {
    std::error_code ec;
    const auto connect = ctx.helper_path().parent_path() / "paddock-connect";
    const auto canonical = std::filesystem::weakly_canonical(connect, ec);
    in.connect_path = (ec ? connect : canonical).string();
  }
  return in;
}

}  // namespace paddock::cli
