// Merge + resolve + freeze (docs/policy-layers.md, "Merging"): applied layers go in weakest first,
// a FrozenIr and its provenance come out. Unions for allows and denies, deny monotone, strictest
// limits, single-source net mode, system-global lockdown over the whole never-overridable set.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/builtin_lists.h"
#include "engine/context.h"
#include "engine/domain_name.h"
#include "engine/glob.h"
#include "engine/layer.h"
#include "engine/limits.h"
#include "engine/provenance.h"

namespace paddock {

enum class PathUse { kWrite, kRead, kDeny, kDenyWrite, kSocketAllow };

struct PathRequest {
  Item item;
  PathUse use;
  std::vector<std::string> resolved;  // canonical concrete paths, filled by resolve
  std::string list;                   // the built-in list it came from ("" = written in a layer)
  bool files_only = false;            // the list entry matches files, not directories
  std::string agent;                  // the list entry is this agent's own login ("" = none)
  bool agent_state = false;           // one of the agent preset's agent.state_dirs
  std::vector<std::string> links{};   // deny, deny_write: symlinks as named, whose targets are in resolved
};


// How the builder turns a path into an IR entry (ir_builder_fs.cpp).
namespace ir_paths {
// The path the kernel reaches (symlinks resolved), or the path itself where it cannot be resolved.
std::string canonical(PathCache& cache, const std::string& p);
// What is at p itself (a symlink is kSymlink), kAbsent when nothing is.
PathKind kind_of(PathCache& cache, const std::string& p);
}  // namespace ir_paths

struct Built {
  FrozenIr ir;
  Provenance provenance;
};

class IrBuilder {
 public:
  // Without the report (Inputs::with_report, `paddock run`) neither provenance nor each layer's
  // additions are recorded: they feed explain, lint and the GUI, never the IR.
  IrBuilder(const EvalContext& ctx, const Inputs& in) : ctx_(ctx), in_(in) { prov_.set_enabled(in.with_report); }

  // The system-global layer's lockdown (its security keys), read before any other tier.
  void set_lockdown(const Layer* system_layer);
  // Merges one applied layer; refuses what the lockdown or repository rules forbid (126).
  Status add_layer(const Layer& l);
  // The cli-flags tier, built from Inputs.
  Status add_cli_flags();
  void add_source(const SourceLayer& s) { ir_.meta.source_layers.push_back(s); }
  void warn(const std::string& w) { ir_.warnings.push_back(w); }
  void taint(const std::string& t) { ir_.taint.push_back(t); }
  void set_agent(const Layer& agent_layer) { agent_layer_ = &agent_layer; }

  Result<Built> finish();

  // What each layer added (for LayerInfo.adds and `paddock approve`), keyed by file.
  const std::map<std::string, nlohmann::json>& adds() const { return adds_; }
  // Every filesystem.unprotect that applied, after finish() (lint flags each one).
  const std::vector<Unprotect>& unprotects() const { return unprotects_; }
  // After finish(): the agent preset's own credentials that this session does not get, because
  // no trusted tier set environment.agent_credentials: its key variables set in the launch
  // environment and its stored login files that exist ("ANTHROPIC_API_KEY", "/home/u/.claude/...").
  const std::vector<std::string>& withheld_credentials() const { return withheld_; }

 private:
  Status check_lockdown(const Layer& l);
  // The built-in list `name` (resources/lists), loaded once per evaluation, whose effect must be
  // `effect`: another effect is a broken installation, reported naming `named_by`.
  Result<const BuiltinList*> builtin(const std::string& name, std::string_view effect, const std::string& named_by);
  // Expands a built-in list named by deny_preset / deny_write_preset into path requests.
  Status add_list(const Item& name, PathUse use);
  // network.presets: the preset's domains from resources/lists/network-presets.json.
  Status add_network_preset(const Item& name);
  // filesystem.protect_agent_config: the agent-config list's settings files as deny_write.
  Status add_agent_config_protection(const Origin& at);
  // After every grant and mask: the agent-config list's files the session can write.
  Status add_watched_configs();
  // filesystem.review: every write root in review mode (IrFs::review_roots).
  Status add_review_roots();
  // The agent's own directories (agent.state_dirs): own state (fs.agent_state, the default) or,
  // by the user's choice, shared (fs.shared_agent_dirs). ir_builder_agent_state.cpp.
  Status add_agent_state();
  bool own_agent_state_root(const std::string& path) const;
  // After resolution: list entries that match files only drop directories; unprotect lifts.
  Status apply_list_rules();
  Status check_repository_writes();
  // Repository-side write grants into the shared /tmp or a directory on the launch PATH.
  Status check_repository_escapes();
  Status resolve_paths();
  void resolve_one(PathRequest& r, const std::string& lexical);
  std::vector<std::string> other_workspaces() const;
  void build_fs();
  void add_git_metadata();
  // The project as a linked worktree: its common repository's parts git writes (ir_builder_git.cpp).
  void add_worktree_grants();
  struct Physical {
    std::string path;                // where the path leads (its absent rest as written)
    bool exists = false;
    bool loop = false;               // too many symlinks, or one that cannot be read
    std::vector<std::string> links;  // every symlink followed on the way, in order
  };
  Physical resolve_physical(const std::string& path) const;
  // Socket scan jobs for the literal grants, walked with the deny globs of the same base.
  void add_socket_jobs(std::vector<GlobJob>& jobs);
  void plan_socket_scan(std::vector<std::string> roots, std::vector<GlobJob>& jobs);
  Status add_sockets();
  Status scan_sockets_under(const std::vector<std::string>& roots);
  Status take_socket_matches(std::vector<GlobJob>& jobs, std::size_t first);
  void add_paddock_dirs();
  Status add_hardlinks();
  void apply_deny_precedence();
  Status build_egress();
  Status build_env();
  Status build_credentials();  // credential_policy.cpp
  void merge_credential(const Layer::Credential& c);
  void build_limits();
  void record_adds(const Layer& l);

  const EvalContext& ctx_;
  const Inputs& in_;
  FrozenIr ir_;
  Provenance prov_;
  const Layer* agent_layer_ = nullptr;

  bool locked_ = false;
  Origin lock_at_;
  const Layer* lock_layer_ = nullptr;  // the system-global layer that set security.immutable

  std::vector<PathRequest> paths_;
  std::map<std::string, BuiltinList> lists_;  // loaded once per evaluation
  std::vector<Item> unprotect_items_;
  std::vector<std::string> socket_scanned_;  // grant roots whose sockets are in sockets_found_
  std::vector<std::string> sockets_found_;
  std::vector<Unprotect> unprotects_;
  std::vector<std::string> withheld_;
  std::vector<std::string> nested_git_;  // ".git" entries anywhere in the write roots
  // The project and the other write roots a user's tier granted (other_workspaces()): the lists'
  // project entries apply to each, and none may be given a repository at its top.
  std::vector<std::string> workspace_roots_;
  std::vector<Item> domains_, cidrs_;
  std::map<std::string, std::vector<std::pair<int, Origin>>> ports_;
  std::map<std::string, std::pair<std::int64_t, Origin>> quotas_;
  std::vector<Item> pass_through_, env_deny_, brokered_;
  // Credential declarations merged by name, in the order their names first appear.
  std::vector<Layer::Credential> credentials_;
  // Variables a brokered credential feeds (after build_credentials): Paddock sets them itself.
  std::map<std::string, std::string> credential_env_;
  std::optional<Origin> agent_credentials_;
  std::optional<Origin> loopback_forbidden_;
  std::vector<std::pair<int, Origin>> publish_;
  std::vector<std::pair<int, Origin>> host_ports_;
  std::array<std::optional<std::pair<std::int64_t, Origin>>, kLimitCount> limits_{};
  std::optional<std::pair<bool, Origin>> tmpfs_true_, tmpfs_false_;
  bool protected_agent_config_ = false;
  std::optional<Origin> review_;  // the first tier that asked for review mode
  // filesystem.agent_state: the first tier that said own, and the last trusted one that said shared.
  std::optional<Origin> agent_state_own_, agent_state_shared_;
  std::optional<std::string> linux_tier_;  // sandbox.linux_tier of the last trusted tier saying it
  std::vector<std::string> login_paths_;  // every agent's stored logins (agent-logins), resolved
  // Net mode sources (docs/network.md): cli > agent default > user > system > off; off forced by
  // others.
  std::optional<std::pair<NetMode, Origin>> net_cli_, net_agent_, net_user_, net_system_, net_forced_off_;
  std::map<std::string, nlohmann::json> adds_;
};

}  // namespace paddock
