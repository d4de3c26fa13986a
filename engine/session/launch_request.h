// A launch as the user asked for it: `paddock run`'s options (docs/cli.md) and the command, as
// given, before anything is resolved. Filled by the CLI's parser (app/cli/inputs_options.cpp)
// and by the app's launch panel (app/gui/launcher.cpp); both the argv of `paddock run` and the
// engine's Inputs are derived from it here, so an option can never be carried one way and
// dropped the other. Declared once (engine/schema.h) at the end of this header: each key is its
// option's name, and the argv is derived from the declaration.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/dir_lister.h"
#include "engine/engine.h"
#include "engine/schema.h"
#include "engine/status.h"

namespace paddock::session {

struct LaunchRequest {
  std::string project = ".";
  std::string agent;                       // "" = no agent preset
  std::string profile = "default";
  std::string preset = "balanced";
  std::vector<std::string> policy_files;   // --policy, in order
  std::string net;                         // off | allowlist | strict | ask; "" = as the policy says
  std::vector<std::string> allow_domains;  // D or D:PORT
  std::vector<std::string> allow_reads;
  std::vector<std::string> allow_writes;
  std::string limits;                      // --limits spec; "" = none
  bool git_ssh = false;
  bool review = false;                     // hold the agent's writes for review
  std::string timeout;                     // --timeout DUR (90, 90s, 30m, 2h); "" = none
  std::vector<std::string> publish;        // host loopback ports forwarded in, as typed (1..65535)
  std::vector<std::string> host_ports;     // host loopback ports the sandbox may reach, as typed
  std::string tier;                        // Linux: namespaces | landlock; "" = namespaces
  bool allow_tainted = false;              // run only
  std::vector<std::string> command;        // run only: after "--"
  bool operator==(const LaunchRequest&) const = default;
};

// `paddock run`'s arguments (after the program's name): "run", every option that differs from its
// default, "--", the command.
std::vector<std::string> run_arguments(const LaunchRequest& r);

// What a front end knows that a launch does not say: where relative paths are relative to, the
// environment, its installation's resources and paddock-connect, how to list directories.
struct LaunchContext {
  std::string cwd;                                  // relative paths on the command line are from here
  std::map<std::string, std::string> environment;
  std::string resources_dir;
  std::string connect_path;                         // paddock-connect, used with git_ssh
  std::string os = "linux";
  const DirectoryLister* lister = nullptr;
  std::vector<std::string> placeholders;           // Paddock's own live placeholders (platform/placeholders.h)
  std::map<std::string, std::string> stored_credentials;  // name -> "host:port" of each stored credential
};

// The engine's Inputs for this launch. A bad --net, --timeout, --publish, --host-port or --tier is kBadInput
// naming the option.
Result<Inputs> inputs_of(const LaunchRequest& r, const LaunchContext& ctx);

// `--timeout DUR`: a positive whole number with an optional unit s, m or h (default seconds).
Result<std::int64_t> parse_timeout(const std::string& text);

}  // namespace paddock::session

namespace paddock::schema {

template <>
struct Schema<session::LaunchRequest> {
  using R = session::LaunchRequest;
  static constexpr auto fields = std::make_tuple(
      field("project", &R::project), field("agent", &R::agent), field("profile", &R::profile),
      field("preset", &R::preset), field("policy", &R::policy_files), field("net", &R::net),
      field("allow-domain", &R::allow_domains), field("allow-read", &R::allow_reads),
      field("allow-write", &R::allow_writes), field("limits", &R::limits), field("git-ssh", &R::git_ssh),
      field("review", &R::review), field("timeout", &R::timeout), field("publish", &R::publish),
      field("host-port", &R::host_ports), field("tier", &R::tier), field("allow-tainted", &R::allow_tainted),
      field("command", &R::command));
};

}  // namespace paddock::schema
