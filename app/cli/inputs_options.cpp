#include "app/cli/inputs_options.h"

#include "engine/layer_schema.h"
#include "engine/tiers.h"
#include "platform/credential_store.h"
#include "platform/dir_lister.h"
#include "platform/placeholders.h"

#include <filesystem>
#include <system_error>

namespace paddock::cli {
namespace {

std::string words(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

}  // namespace

std::shared_ptr<session::LaunchRequest> add_inputs_options(CLI::App* cmd) {
  auto o = std::make_shared<session::LaunchRequest>();
  cmd->add_option("--project", o->project, "Project directory (default: .)")->type_name("DIR");
  cmd->add_option("--agent", o->agent, "Agent preset: " + words(agent_preset_names()));
  cmd->add_option("--profile", o->profile, "Built-in profile: " + words(profile_names()));
  cmd->add_option("--preset", o->preset, "Preset: " + words(preset_names()));
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
                  "unavailable (Landlock and seccomp only; what it loses: docs/capabilities.md)")
      ->check(CLI::IsMember(layer_schema::linux_tier_words()));
  return o;
}

std::shared_ptr<session::LaunchRequest> add_launch_options(CLI::App* run_cmd) {
  auto o = add_inputs_options(run_cmd);
  run_cmd->add_flag("--allow-tainted", o->allow_tainted, "Run even if an environment switch weakened the policy");
  // Every repeatable option takes one value per occurrence here, so that "--publish 1455 --" can
  // never swallow the "--" that starts the agent's command line (nor the command's own options).
  for (auto* opt : run_cmd->get_options())
    if (!opt->get_positional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
  run_cmd->add_option("command", o->command, "-- CMD [ARGS...]")->type_name("CMD");
  return o;
}

Result<session::LaunchRequest> parse_run_arguments(const std::vector<std::string>& args) {
  CLI::App app;
  auto* run_cmd = app.add_subcommand("run");
  auto request = add_launch_options(run_cmd);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return bad_input(std::string("paddock run: ") + e.what());
  }
  if (!run_cmd->parsed()) return bad_input("paddock run: not a run command line");
  return *request;
}

Result<Inputs> to_engine_inputs(const session::LaunchRequest& r, const CliContext& ctx) {
  session::LaunchContext lc;
  std::error_code ec;
  lc.cwd = std::filesystem::current_path(ec).string();
  lc.environment = ctx.environment;
  lc.resources_dir = ctx.resources_dir().string();
  lc.os = "linux";
  lc.lister = &platform::fast_lister();
  lc.placeholders = platform::live_placeholders(ctx.environment);
  // Which credentials are stored (names and hosts, from the index; never a value): a declared
  // credential is brokered only when it is (docs/credentials.md).
  if (auto layout = ctx.layout(); layout.ok()) {
    auto bound = platform::CredentialStore(*layout, ctx.keyring_path().string()).bindings();
    if (!bound.ok()) return bound.error();
    lc.stored_credentials = std::move(*bound);
  }
  // paddock-connect sits next to paddock-helper (libexec/paddock); --git-ssh binds it into the
  // view, and nothing else reads it (so a run without --git-ssh does not resolve it).
  if (r.git_ssh) {
    const auto connect = ctx.helper_path().parent_path() / "paddock-connect";
    const auto canonical = std::filesystem::weakly_canonical(connect, ec);
    lc.connect_path = (ec ? connect : canonical).string();
  }
  return session::inputs_of(r, lc);
}

}  // namespace paddock::cli
