// `paddock credentials add|replace|remove|list` (docs/cli.md, docs/credentials.md): the keys the
// credential broker adds to an agent's requests, kept on the host (platform/credential_store.h).
// A value is read from the terminal without echo, from standard input, or from a variable named
// with --from-env; never from an argument.
#include <termios.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "engine/credentials.h"
#include "engine/session/credential_records.h"
#include "platform/credential_store.h"
#include "platform/read_file.h"

namespace paddock::cli {
namespace {

using nlohmann::json;

struct CredentialAddOptions {
  std::string name;
  std::string upstream;
  std::string from_env;
};

Result<std::string> read_key(const CredentialAddOptions& o, const CliContext& ctx) {
  if (!o.from_env.empty()) {
    auto it = ctx.environment.find(o.from_env);
    if (it == ctx.environment.end() || it->second.empty()) return bad_input("--from-env " + o.from_env + ": the variable is not set");
    return it->second;
  }
  const bool tty = ::isatty(STDIN_FILENO) != 0;
  termios saved{};
  if (tty) {
    std::cerr << "Key for " << o.name << " (not shown): " << std::flush;
    ::tcgetattr(STDIN_FILENO, &saved);
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  std::string value;
  std::getline(std::cin, value);
  if (tty) {
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    std::cerr << "\n";
  }
  while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
  if (value.empty()) return bad_input("no key given (type it, pipe it on standard input, or use --from-env VAR)");
  return value;
}

// The upstream to bind a new credential to: --upstream, else the one every agent preset that
// declares this name sends it to.
Result<std::string> upstream_for(const CredentialAddOptions& o, const CliContext& ctx,
                                 const std::vector<platform::StoredCredential>& stored) {
  if (!o.upstream.empty()) {
    auto u = parse_credential_upstream(o.upstream);
    if (!u.ok()) return bad_input("--upstream " + o.upstream + ": " + u.error().message);
    return u->binding();
  }
  for (const auto& s : stored)
    if (s.name == o.name) return s.entry.upstream;
  auto decl = agent_credential_declarations(ctx.resources_dir().string());
  if (!decl.ok()) return decl.error();
  auto it = decl->find(o.name);
  if (it == decl->end())
    return bad_input("no agent preset declares " + o.name + "; name its host with --upstream HOST[:PORT] (and declare "
                     "it in a policy layer's credentials section, docs/credentials.md)");
  for (const auto& d : it->second)
    if (d.upstream != it->second.front().upstream)
      return bad_input("agent presets send " + o.name + " to different hosts; choose one with --upstream");
  return it->second.front().upstream;
}

int add_credential(const CredentialAddOptions& o, bool replace, CliContext& ctx) {
  auto layout = ctx.layout();
  if (!layout.ok()) return fail(layout.error());
  if (!valid_credential_name(o.name))
    return fail(bad_input("'" + o.name + "' is not a credential name (a-z, 0-9, '.', '_', '-'; at most 64)"));
  platform::CredentialStore store(*layout, ctx.keyring_path().string());
  auto stored = store.list();
  if (!stored.ok()) return fail(stored.error());
  auto upstream = upstream_for(o, ctx, *stored);
  if (!upstream.ok()) return fail(upstream.error());
  auto value = read_key(o, ctx);
  if (!value.ok()) return fail(value.error());
  if (auto s = store.add(o.name, *upstream, *value, replace); !s.ok()) return fail(s.error());
  std::fill(value->begin(), value->end(), '\0');
  auto after = store.list();
  std::string where = "the desktop's secret service";
  if (after.ok())
    for (const auto& s : *after)
      if (s.name == o.name && s.entry.backend == session::CredentialBackend::kFile)
        where = layout->credential_file_store() + " (0600; no secret service answers: see 'paddock doctor')";
  std::cout << (replace ? "replaced " : "stored ") << o.name << " for " << *upstream << " in " << where << "\n";
  return 0;
}

int remove_credential(const std::string& name, CliContext& ctx) {
  auto layout = ctx.layout();
  if (!layout.ok()) return fail(layout.error());
  platform::CredentialStore store(*layout, ctx.keyring_path().string());
  if (auto s = store.remove(name); !s.ok()) return fail(s.error());
  std::cout << "removed " << name << "\n";
  return 0;
}

int list_credentials(bool as_json, CliContext& ctx) {
  auto layout = ctx.layout();
  if (!layout.ok()) return fail(layout.error());
  platform::CredentialStore store(*layout, ctx.keyring_path().string());
  auto stored = store.list();
  if (!stored.ok()) return fail(stored.error());
  auto decl = agent_credential_declarations(ctx.resources_dir().string());
  if (!decl.ok()) return fail(decl.error());
  session::CredentialUseRecord used;
  if (auto bytes = platform::read_file_if_exists(layout->credential_use_file()); bytes.ok() && *bytes)
    if (auto u = session::decode_credential_use(**bytes); u.ok()) used = std::move(*u);
  json out = json::array();
  for (const auto& s : *stored) {
    json agents = json::array();
    if (auto it = decl->find(s.name); it != decl->end())
      for (const auto& d : it->second) agents.push_back(d.agent);
    const auto u = used.find(s.name);
    out.push_back({{"name", s.name},
                   {"upstream", s.entry.upstream},
                   {"backend", session::to_string(s.entry.backend)},
                   {"created", s.entry.created},
                   {"agents", agents},
                   {"last_used", u == used.end() ? "" : u->second.last_used},
                   {"last_session", u == used.end() ? "" : u->second.session}});
  }
  if (as_json) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (out.empty()) std::cout << "no credentials stored ('paddock credentials add NAME' stores one)\n";
  for (const auto& c : out) {
    std::string agents;
    for (const auto& a : c["agents"]) agents += (agents.empty() ? "" : ", ") + a.get<std::string>();
    const std::string last = c["last_used"].get<std::string>();
    std::cout << c["name"].get<std::string>() << "  " << c["upstream"].get<std::string>() << "  "
              << c["backend"].get<std::string>() << "  " << (agents.empty() ? "your policy" : agents) << "  "
              << (last.empty() ? "never used" : "last used " + last) << "\n";
  }
  return 0;
}

}  // namespace

void add_credentials_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("credentials", "Keys the credential broker adds to agents' requests (kept on this host)");
  cmd->require_subcommand(1);
  for (const bool replace : {false, true}) {
    auto o = std::make_shared<CredentialAddOptions>();
    auto* sub = cmd->add_subcommand(replace ? "replace" : "add",
                                    replace ? "Replace a stored credential's key" : "Store a credential's key");
    sub->add_option("name", o->name, "The credential's name, as policies declare it (e.g. anthropic-api-key)")->required();
    sub->add_option("--upstream", o->upstream, "The one host (HOST or HOST:PORT) this key is ever sent to");
    sub->add_option("--from-env", o->from_env, "Read the key from this environment variable instead of standard input");
    sub->callback([&ctx, o, replace] { ctx.exit_code = add_credential(*o, replace, ctx); });
  }
  auto name = std::make_shared<std::string>();
  auto* rm = cmd->add_subcommand("remove", "Remove a stored credential");
  rm->add_option("name", *name, "The credential's name")->required();
  rm->callback([&ctx, name] { ctx.exit_code = remove_credential(*name, ctx); });
  auto as_json = std::make_shared<bool>(false);
  auto* ls = cmd->add_subcommand("list", "List the stored credentials (never their keys)");
  ls->add_flag("--json", *as_json, "Machine-readable list");
  ls->callback([&ctx, as_json] { ctx.exit_code = list_credentials(*as_json, ctx); });
}

}  // namespace paddock::cli
