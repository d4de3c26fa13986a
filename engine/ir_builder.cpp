// Merging layers into the builder, with the lockdown and tier rules that make it monotone.
#include "engine/ir_builder.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <system_error>

#include "engine/glob.h"
#include "engine/layer_schema.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

// Tiers that may lift the built-in write protection of files the user's tools execute: the
// user's own (system, user, --policy) and the shipped ones. Repository-side layers come with the
// code whose next open in an editor would run what the agent wrote.
bool may_unprotect(const std::string& tier) {
  return tier == kTierSystem || tier == kTierUser || tier == kTierCliFile || is_builtin(tier);
}

Error lock_error(const Origin& at, const Origin& lock, const std::string& what) {
  return error_at(ErrorCode::kPolicyBlocked, at.pos(),
                  "tier " + at.tier + " may not " + what + ": the system-global policy " + lock.file +
                      " sets security.immutable (ask the administrator to change it)");
}

}  // namespace

void IrBuilder::set_lockdown(const Layer* sys) {
  if (!sys || !sys->immutable.value_or(false)) return;
  locked_ = true;
  lock_at_ = sys->immutable_at;
  lock_layer_ = sys;
}

Status IrBuilder::check_lockdown(const Layer& l) {
  // Shipped tiers (built-in profile, preset, agent preset) are part of the installation; the
  // lock is against what users, repositories and flags add on top of the administrator's policy.
  // What each key may not do is its lock rule (engine/layer_schema.h).
  if (!locked_ || l.tier == kTierSystem || is_builtin(l.tier)) return {};
  if (auto v = layer_schema::lockdown_violation(l, *lock_layer_)) return lock_error(v->at, lock_at_, std::string(v->what));
  return {};
}

Status IrBuilder::add_layer(const Layer& l) {
  if (auto s = check_lockdown(l); !s.ok()) return s;
  if (l.tier != kTierSystem && (l.immutable || l.require_signed))
    warn(l.file + ": security.* is honoured from the system-global policy only; ignored here");
  if (l.agent_credentials.value_or(false) && l.tier != kTierSystem && l.tier != kTierUser && l.tier != kTierCliFile)
    return error_at(ErrorCode::kPolicyBlocked, l.agent_credentials_at.pos(),
                    "tier " + l.tier + " may not opt in to agent credentials (only the system, user or a --policy file may)");

  for (const auto& i : l.allow_write) paths_.push_back({i, PathUse::kWrite, {}, {}, false, {}});
  for (const auto& i : l.allow_read) paths_.push_back({i, PathUse::kRead, {}, {}, false, {}});
  for (const auto& i : l.deny) paths_.push_back({i, PathUse::kDeny, {}, {}, false, {}});
  for (const auto& i : l.deny_write) paths_.push_back({i, PathUse::kDenyWrite, {}, {}, false, {}});
  for (const auto& i : l.unix_sockets_allow) paths_.push_back({i, PathUse::kSocketAllow, {}, {}, false, {}});
  // Positional, in PathRequest's order: item, use, resolved, list, files_only, agent, agent_state.
  for (const auto& i : l.agent.state_dirs) paths_.push_back({i, PathUse::kWrite, {}, {}, false, {}, true});
  if (l.loopback_bind && !*l.loopback_bind && !loopback_forbidden_) loopback_forbidden_ = l.loopback_bind_at;
  publish_.insert(publish_.end(), l.publish.begin(), l.publish.end());
  host_ports_.insert(host_ports_.end(), l.host_ports.begin(), l.host_ports.end());
  for (const auto& p : l.deny_preset)
    if (auto s = add_list(p, PathUse::kDeny); !s.ok()) return s;
  for (const auto& p : l.deny_write_preset)
    if (auto s = add_list(p, PathUse::kDenyWrite); !s.ok()) return s;
  if (!l.unprotect.empty() && !may_unprotect(l.tier))
    return error_at(ErrorCode::kPolicyBlocked, l.unprotect.front().at.pos(),
                    "tier " + l.tier +
                        " may not lift the write protection of files your tools execute (only the system, user or a "
                        "--policy file may: repository layers come with the code those tools would run)");
  for (const auto& i : l.unprotect) unprotect_items_.push_back(i);
  // A credential declaration names the host the user's key is sent to: a repository's layer
  // could name a host of its choosing.
  if (!l.credentials.empty() && is_repository_side(l.tier))
    return error_at(ErrorCode::kPolicyBlocked, l.credentials.front().name.at.pos(),
                    "tier " + l.tier + " may not declare brokered credentials (only the system, user, an agent "
                    "preset or a --policy file may: a repository's layer could send your key to a host of its choosing)");
  for (const auto& c : l.credentials) merge_credential(c);
  if (l.tmpfs_tmp) (*l.tmpfs_tmp ? tmpfs_true_ : tmpfs_false_) = std::make_pair(*l.tmpfs_tmp, l.tmpfs_at);
  if (l.review.value_or(false) && !review_) review_ = l.review_at;
  if (l.linux_tier) {
    // The landlock tier has no namespaces (docs/capabilities.md): only the user's own tiers may
    // trade them away, and any of them may take the choice back.
    if (l.tier != kTierSystem && l.tier != kTierUser && l.tier != kTierCliFile)
      return error_at(ErrorCode::kPolicyBlocked, l.linux_tier_at.pos(),
                      "tier " + l.tier + " may not set sandbox.linux_tier (only the system, user or a --policy file "
                      "may choose how the sandbox is built)");
    linux_tier_ = *l.linux_tier;
  }
  if (l.agent_state) {
    // Shared widens (the agent writes the user's real directories): only the user's own tiers
    // may choose it. Own only narrows, so any tier may insist on it, and it wins.
    if (*l.agent_state == "shared") {
      if (l.tier != kTierSystem && l.tier != kTierUser && l.tier != kTierCliFile)
        return error_at(ErrorCode::kPolicyBlocked, l.agent_state_at.pos(),
                        "tier " + l.tier + " may not set filesystem.agent_state: shared (only the system, user or a "
                        "--policy file may let the agent write your own agent directories)");
      agent_state_shared_ = l.agent_state_at;
    } else if (!agent_state_own_) {
      agent_state_own_ = l.agent_state_at;
    }
  }
  if (l.protect_agent_config.value_or(false) && !protected_agent_config_) {
    protected_agent_config_ = true;
    if (auto s = add_agent_config_protection(l.protect_agent_config_at); !s.ok()) return s;
  }

  // Net mode: defaults from system/user, the agent's own default, and forcing off elsewhere.
  if (l.net_mode) {
    const auto v = std::make_pair(*l.net_mode, l.net_mode_at);
    if (l.tier == kTierSystem) net_system_ = v;
    else if (l.tier == kTierUser) net_user_ = v;
    else if (*l.net_mode == NetMode::kOff) { if (!net_forced_off_) net_forced_off_ = v; }
    else
      return error_at(ErrorCode::kBadInput, l.net_mode_at.pos(),
                      "tier " + l.tier +
                          " may only force 'off' (the mode comes from --net, the agent preset or the user/system policy)");
  }
  if (l.agent.default_net) net_agent_ = std::make_pair(*l.agent.default_net, l.agent.default_net_at);
  if (l.tier == kTierSystem && locked_ && l.net_mode && *l.net_mode == NetMode::kOff) net_forced_off_ = std::make_pair(NetMode::kOff, l.net_mode_at);

  for (const auto& d : l.allow_domains) domains_.push_back(d);
  for (const auto& c : l.allow_cidr) cidrs_.push_back(c);
  for (const auto& [d, ports] : l.strict_ports) {
    domains_.push_back(d);
    for (int p : ports) ports_[d.text].emplace_back(p, d.at);
  }
  for (const auto& [d, q] : l.quotas) {
    auto it = quotas_.find(d.text);
    if (it == quotas_.end() || q < it->second.first) quotas_[d.text] = {q, d.at};
  }
  for (const auto& p : l.net_presets)
    if (auto s = add_network_preset(p); !s.ok()) return s;

  for (const auto& i : l.pass_through) pass_through_.push_back(i);
  for (const auto& i : l.env_deny) env_deny_.push_back(i);
  for (const auto& i : l.brokered_env) brokered_.push_back(i);
  if (l.agent_credentials) {
    if (*l.agent_credentials) agent_credentials_ = l.agent_credentials_at;
    else agent_credentials_.reset();  // a later trusted tier may withdraw the opt-in
  }
  for (int i = 0; i < kLimitCount; ++i) {
    const auto& v = l.limits[i];
    if (v.value && (!limits_[i] || *v.value < limits_[i]->first)) limits_[i] = std::make_pair(*v.value, v.at);
  }
  if (in_.with_report) record_adds(l);
  return {};
}

Result<const BuiltinList*> IrBuilder::builtin(const std::string& name, std::string_view effect, const std::string& named_by) {
  auto it = lists_.find(name);
  if (it == lists_.end()) {
    auto l = load_builtin_list(in_.resources_dir, name);
    if (!l.ok()) return l.error();
    it = lists_.emplace(name, std::move(*l)).first;
  }
  const BuiltinList& list = it->second;
  if (list.effect != effect)
    return internal_error(list.file + ": effect " + list.effect + ", but " + named_by + " reads it as " +
                          std::string(effect) + " (broken installation)");
  return &list;
}

Status IrBuilder::add_network_preset(const Item& name) {
  auto list = builtin(kNetworkPresetsList, "allow_domains", name.at.key);
  if (!list.ok()) return list.error();
  for (const auto& e : (*list)->entries)
    if (e.group == name.text) {
      for (const auto& d : e.domains) domains_.push_back(Item{d, name.at});
      return {};
    }
  return internal_error((*list)->file + " has no preset '" + name.text + "' (broken installation)");
}

Status IrBuilder::add_list(const Item& name, PathUse use) {
  auto loaded = builtin(name.text, use == PathUse::kDeny ? "deny" : "deny_write", name.at.key);
  if (!loaded.ok()) return loaded.error();
  const BuiltinList& list = **loaded;
  // Every entry, whichever agent is selected: agent-logins masks each agent's login for all of
  // them. The selected agent's own entries are lifted after the merge (apply_list_rules) when
  // a trusted tier opted in, since that opt-in may come from a tier after this one.
  Origin at = name.at;
  at.key += " (" + list.name + ")";
  for (const auto& e : list.entries)
    for (const auto& p : e.paths) paths_.push_back({Item{p.text, at}, use, {}, list.name, e.files_only, e.agent});
  return {};
}

// Every agent's settings, whichever agent is selected (another agent's may be writable too, by a
// layer's grant); not its state files, which it must write to work at all: those stay watched.
Status IrBuilder::add_agent_config_protection(const Origin& at_key) {
  auto l = builtin("agent-config", "watch", at_key.key);
  if (!l.ok()) return l.error();
  Origin at = at_key;
  at.key += " (agent-config)";
  for (const auto& e : (*l)->entries)
    if (!e.state_file)
      for (const auto& p : e.paths) paths_.push_back({Item{p.text, at}, PathUse::kDenyWrite, {}, (*l)->name, false, {}});
  return {};
}

Status IrBuilder::apply_list_rules() {
  // Every agent's stored login, before the opt-in below lifts the selected agent's: in own agent
  // state the user's copies of them are hidden whatever the opt-in says (add_agent_state).
  for (const auto& r : paths_)
    if (r.list == "agent-logins") login_paths_.insert(login_paths_.end(), r.resolved.begin(), r.resolved.end());
  for (auto& r : paths_) {
    // The selected agent's own stored login: readable and writable in its own session under
    // the opt-in (its data directory grants it), masked otherwise; never another agent's.
    if (r.agent.empty() || ctx_.agent.empty() || r.agent != ctx_.agent) continue;
    if (!agent_credentials_) {
      for (const auto& p : r.resolved)
        if (std::error_code ec; ctx_.paths->symlink_status(p, ec).type() != fs::file_type::not_found && !ec)
          withheld_.push_back(p);
      continue;
    }
    for (const auto& p : r.resolved)
      prov_.add(r.use == PathUse::kDeny ? prov_key<&IrFs::deny>(p) : prov_key<&IrFs::deny_write>(p), *agent_credentials_, "removed",
                r.item.text + " (the agent's own login: environment.agent_credentials)");
    r.resolved.clear();
  }
  for (auto& r : paths_) {
    if (!r.files_only) continue;
    std::vector<std::string> keep;
    for (const auto& p : r.resolved) {
      std::error_code ec;
      if (ctx_.paths->symlink_status(p, ec).type() == fs::file_type::directory) {
        prov_.add(r.use == PathUse::kDeny ? prov_key<&IrFs::deny>(p) : prov_key<&IrFs::deny_write>(p), r.item.at, "removed",
                  r.item.text + " (a directory; the list names files)");
        continue;
      }
      keep.push_back(p);
    }
    r.resolved = std::move(keep);
  }
  for (const auto& u : unprotect_items_) {
    const std::string label = u.at.where() + ": key '" + u.at.key + "'";
    if (has_glob(u.text))
      return error_at(ErrorCode::kBadInput, u.at.pos(), "unprotect paths are literal (no globs); name the file or directory");
    auto abs = expand_vars(glob_unescape(u.text), ctx_, label);
    if (!abs.ok()) return with_origin(abs.error(), u.at.pos());
    std::error_code ec;
    const auto c = ctx_.paths->weakly_canonical(*abs, ec);
    Unprotect done{u, ec ? *abs : c.string(), {}};
    for (auto& r : paths_) {
      if (r.list != "tool-executed") continue;
      std::vector<std::string> keep;
      for (const auto& p : r.resolved) {
        if (!path_within(p, done.path)) {
          keep.push_back(p);
          continue;
        }
        done.lifted.push_back(p);
        prov_.add(prov_key<&IrFs::deny_write>(p), u.at, "removed", u.text + " (unprotected)");
      }
      r.resolved = std::move(keep);
    }
    std::sort(done.lifted.begin(), done.lifted.end());
    done.lifted.erase(std::unique(done.lifted.begin(), done.lifted.end()), done.lifted.end());
    unprotects_.push_back(std::move(done));
  }
  return {};
}

Status IrBuilder::check_repository_escapes() {
  // Repository-side write grants that reach outside the sandbox in time: the host's shared /tmp
  // (a grant binds the host's directory into the private /tmp, where host programs and other
  // users look for sockets and predictable files), and directories on the launch PATH (a program
  // planted there runs the next time you type its name on the host).
  std::vector<std::pair<std::string, std::string>> dangerous;  // (dir, why)
  dangerous.emplace_back(ctx_.tmp, "the host's shared temporary directory");
  const std::string path_var = ctx_.getenv("PATH");
  for (std::size_t i = 0; i <= path_var.size();) {
    std::size_t j = path_var.find(':', i);
    if (j == std::string::npos) j = path_var.size();
    const std::string dir = path_var.substr(i, j - i);
    i = j + 1;
    if (dir.empty() || dir[0] != '/') continue;
    std::error_code ec;
    const auto c = ctx_.paths->weakly_canonical(dir, ec);
    const std::string canon = ec ? dir : c.string();
    // A PATH directory inside the project is part of the project the write root already is.
    if (path_within(canon, ctx_.project)) continue;
    dangerous.emplace_back(canon, "a directory on PATH, whose programs you run on the host");
  }
  for (const auto& r : paths_) {
    if (r.use != PathUse::kWrite || !is_repository_side(r.item.at.tier)) continue;
    // (path, whether the grant covers what lies below it): a glob's literal base is checked for
    // lying inside a dangerous directory only, since the glob grants what it matches, not the base.
    std::vector<std::pair<std::string, bool>> candidates;
    for (const auto& p : r.resolved) candidates.emplace_back(p, true);
    if (auto abs = expand_base(r.item.text, ctx_, ""); abs.ok()) {
      const std::string& lit = *abs;
      const bool glob = has_glob(r.item.text);
      std::error_code ec;
      const auto c = ctx_.paths->weakly_canonical(lit, ec);
      candidates.emplace_back(ec ? lit : c.string(), !glob);
    }
    for (const auto& [p, covers] : candidates) {
      if (path_within(p, ctx_.project)) continue;  // the project itself may live in /tmp
      for (const auto& [dir, why] : dangerous)
        if (path_within(p, dir) || (covers && path_within(dir, p)))
          return error_at(ErrorCode::kPolicyBlocked, r.item.at.pos(),
                          "tier " + r.item.at.tier + " may not grant write to " + p + " (" + why + " " + dir +
                              "); repository layers may only grant paths inside the project");
    }
  }
  return {};
}

Status IrBuilder::add_cli_flags() {
  Layer l;
  l.tier = kTierCliFlags;
  l.file = "cli:flags";
  auto at = [&](const std::string& key) { return Origin{kTierCliFlags, "cli:flags", key, 0, 0}; };
  for (std::size_t i = 0; i < in_.allow_writes.size(); ++i)
    l.allow_write.push_back({in_.allow_writes[i], at("--allow-write[" + std::to_string(i) + "]")});
  for (std::size_t i = 0; i < in_.allow_reads.size(); ++i)
    l.allow_read.push_back({in_.allow_reads[i], at("--allow-read[" + std::to_string(i) + "]")});
  for (std::size_t i = 0; i < in_.allow_domains.size(); ++i) {
    const std::string& d = in_.allow_domains[i];
    const auto key = "--allow-domain[" + std::to_string(i) + "]";
    const auto colon = d.rfind(':');
    if (colon != std::string::npos && d.find(':') == colon && colon + 1 < d.size() &&
        d.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      const std::string ports = d.substr(colon + 1);
      const long p = ports.size() > 5 ? 0 : std::stol(ports);
      if (p < 1 || p > 65535) return bad_input("--allow-domain " + d + ": port must be 1..65535");
      l.strict_ports.emplace_back(Item{d.substr(0, colon), at(key)}, std::vector<int>{static_cast<int>(p)});
    } else if (colon != std::string::npos && d.find(':') == colon) {
      return bad_input("--allow-domain " + d + ": expected DOMAIN or DOMAIN:PORT (port 1..65535)");
    } else {
      l.allow_domains.push_back({d, at(key)});
    }
  }
  for (std::size_t i = 0; i < in_.publish.size(); ++i) {
    const int p = in_.publish[i];
    if (p < 1 || p > 65535) return bad_input("--publish " + std::to_string(p) + ": port must be 1..65535");
    l.publish.emplace_back(p, at("--publish[" + std::to_string(i) + "]"));
  }
  for (std::size_t i = 0; i < in_.host_ports.size(); ++i) {
    const int p = in_.host_ports[i];
    if (p < 1 || p > 65535) return bad_input("--host-port " + std::to_string(p) + ": port must be 1..65535");
    l.host_ports.emplace_back(p, at("--host-port[" + std::to_string(i) + "]"));
  }
  if (in_.limits) {
    auto spec = parse_limits_spec(*in_.limits);
    if (!spec.ok()) return spec.error();
    for (int i = 0; i < kLimitCount; ++i)
      if ((*spec)[i])
        l.limits[i] = LimitValue{(*spec)[i], at(std::string("--limits ") + layer_schema::limit_yaml_key(static_cast<LimitKey>(i)))};
  }
  if (in_.timeout_secs) {
    auto& w = l.limits[static_cast<int>(LimitKey::kWallTime)];
    if (!w.value || *in_.timeout_secs < *w.value) w = LimitValue{*in_.timeout_secs, at("--timeout")};
  }
  if (in_.review) {
    l.review = true;
    l.review_at = at("--review");
  }
  if (in_.net) {
    if (locked_ && layer_schema::mode_breaks_lockdown(*in_.net, *lock_layer_))
      return lock_error(at("--net"), lock_at_, "change the network mode");
    net_cli_ = std::make_pair(*in_.net, at("--net"));
  }
  if (auto s = add_layer(l); !s.ok()) return s;  // add_layer applies the lockdown check to the flags too
  if (!locked_)
    for (const auto& p : in_.launch_reads)
      paths_.push_back({Item{glob_escape(p), Origin{kTierLaunchCommand, "launch-command", "command", 0, 0}}, PathUse::kRead,
                        {}, {}, false, {}});
  return {};
}

void IrBuilder::record_adds(const Layer& l) { adds_[l.file] = layer_schema::layer_adds(l); }

Status IrBuilder::add_review_roots() {
  if (!review_) return {};
  // Every write root, whoever granted it: a root written directly would be the one way around
  // the review (docs/review.md). An overlay holds a directory; a file granted on its own cannot
  // be held, so the session is refused rather than let it be written directly.
  for (const auto& w : ir_.fs.write_roots) {
    // The agent's own state is held already, and reviewed with `paddock agent-state diff`.
    if (own_agent_state_root(w)) continue;
    std::error_code ec;
    const auto st = ctx_.paths->symlink_status(w, ec);
    if (!ec && st.type() != fs::file_type::directory)
      return error_at(ErrorCode::kRefused, review_->pos(),
                      "review mode holds the writes of directories, and the write root " + w +
                          " is a file; grant its directory instead, or run without review mode");
    ir_.fs.review_roots.push_back(w);
    prov_.add(prov_key<&IrFs::review_roots>(w), *review_, "added", "review: true");
  }
  return {};
}

void IrBuilder::build_limits() {
  for (int i = 0; i < kLimitCount; ++i) {
    const auto which = static_cast<LimitKey>(i);
    std::optional<std::int64_t> v;
    if (limits_[i]) {
      v = limits_[i]->first;
      prov_.add(layer_schema::limit_ir_path(which), limits_[i]->second, "set", std::to_string(*v));
    }
    ir_.resources.*layer_schema::limit_ir_field(which) = v;
  }
}

Result<Built> IrBuilder::finish() {
  ir_.meta.project = ctx_.project;
  ir_.meta.home = ctx_.home;
  ir_.meta.agent = ctx_.agent;
  ir_.meta.agent_dir = ctx_.agent_dir;
  ir_.meta.os = ctx_.os;
  // --tier is the launch's own word; without it, the layers'.
  if (!in_.linux_tier.empty()) ir_.meta.linux_tier = in_.linux_tier;
  else if (linux_tier_) ir_.meta.linux_tier = *linux_tier_;
  // The IR's shape, as a default IR's canonical bytes (engine/ir.h says why not a schema's).
  ir_.meta.schema_hash = sha256_hex(canonical_bytes(FrozenIr{}));
  add_worktree_grants();
  if (auto s = resolve_paths(); !s.ok()) return s.error();
  if (auto s = apply_list_rules(); !s.ok()) return s.error();
  if (auto s = check_repository_writes(); !s.ok()) return s.error();
  if (auto s = check_repository_escapes(); !s.ok()) return s.error();
  build_fs();
  add_git_metadata();
  if (auto s = add_sockets(); !s.ok()) return s.error();
  add_paddock_dirs();
  if (auto s = add_hardlinks(); !s.ok()) return s.error();
  if (auto s = add_agent_state(); !s.ok()) return s.error();
  apply_deny_precedence();
  // An agent state root that deny took away is no longer a write root: its overlay goes with it.
  std::erase_if(ir_.fs.agent_state, [&](const AgentStateRoot& r) {
    return std::find(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end(), r.path) == ir_.fs.write_roots.end();
  });
  if (auto s = add_watched_configs(); !s.ok()) return s.error();
  if (auto s = add_review_roots(); !s.ok()) return s.error();
  if (auto s = build_egress(); !s.ok()) return s.error();
  if (auto s = build_credentials(); !s.ok()) return s.error();
  if (auto s = build_env(); !s.ok()) return s.error();
  build_limits();
  normalize(ir_);
  return Built{std::move(ir_), std::move(prov_)};
}

}  // namespace paddock
