// evaluate(): the whole pipeline (docs/architecture.md) from launch inputs to a frozen IR, its
// provenance, the tier stack as the GUI shows it, and lint.
#include <deque>
#include <filesystem>
#include <optional>
#include <system_error>

#include "engine/approvals.h"
#include "engine/builtin_lists.h"
#include "engine/conditions.h"
#include "engine/engine.h"
#include "engine/ir_builder.h"
#include "engine/lint.h"
#include "engine/signing.h"
#include "engine/tiers.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

void add_taint(const Inputs& in, IrBuilder& b) {
  // Switches that can weaken the boundary from outside the policy are recorded, never hidden.
  for (const auto& [k, v] : in.environment) {
    if (k == "PADDOCK_SYSTEM_DIR") b.taint("PADDOCK_SYSTEM_DIR: system policy and trusted keys read from " + v);
    else if (k == "PADDOCK_FORCE_TIER") b.taint("PADDOCK_FORCE_TIER: enforcement tier forced to " + v);
    else if (k == "PADDOCK_DEBUG_RESOLVE")
      b.taint("PADDOCK_DEBUG_RESOLVE: test seam: the egress broker answers " + v +
              " from this table instead of the host resolver and lets those loopback addresses through "
              "vetting, so the sandbox reaches services on this host under those names");
    else if (k == "PADDOCK_DEBUG_UPSTREAM")
      b.taint("PADDOCK_DEBUG_UPSTREAM: test seam: the credential broker connects to " + v +
              " instead of those upstreams' real addresses, so brokered keys go to servers on this host");
    else if (k == "PADDOCK_DEBUG_UPSTREAM_CA")
      b.taint("PADDOCK_DEBUG_UPSTREAM_CA: test seam: the credential broker also trusts the CA certificates in " + v +
              " for credential upstreams");
    else if (k.rfind("PADDOCK_DEBUG", 0) == 0) b.taint(k + ": debug switch set");
  }
}

}  // namespace

Result<std::vector<std::string>> agent_state_dirs(const Inputs& in) {
  std::vector<std::string> out;
  if (in.agent.empty()) return out;
  auto ctx = make_context(in);
  if (!ctx.ok()) return ctx.error();
  auto sources = discover_layers(in, *ctx);
  if (!sources.ok()) return sources.error();
  for (const auto& s : *sources) {
    if (s.tier != kTierAgent || !s.exists) continue;
    auto l = parse_layer(s.bytes, s.tier, s.file);
    if (!l.ok()) return l.error();
    const Item& d = l->agent.data_dir;
    auto dir = expand_vars(d.text, *ctx, d.at.where() + ": key 'agent.data_dir'");
    if (!dir.ok()) return dir.error();
    ctx->agent_dir = fs::path(*dir).lexically_normal().string();
    for (const auto& i : l->agent.state_dirs) {
      auto p = expand_vars(i.text, *ctx, i.at.where() + ": key '" + i.at.key + "'");
      if (!p.ok()) return p.error();
      std::string n = fs::path(*p).lexically_normal().string();
      while (n.size() > 1 && n.back() == '/') n.pop_back();
      out.push_back(n);
    }
  }
  return out;
}

Result<Evaluation> evaluate(const Inputs& in) {
  // libsodium is initialised where it is used (signing.cpp, the portable SHA-256), not here: its
  // CPU probe costs ~50 us (CPUID traps in a VM) and a run of shipped layers never needs it.
  auto ctx_r = make_context(in);
  if (!ctx_r.ok()) return ctx_r.error();
  EvalContext ctx = std::move(*ctx_r);
  auto sources_r = discover_layers(in, ctx);
  if (!sources_r.ok()) return sources_r.error();
  const auto& sources = *sources_r;

  // Parse every existing layer first: a broken file is an error whether or not it applies.
  std::deque<std::optional<Layer>> parsed;
  for (const auto& s : sources) {
    if (!s.exists || s.tier == kTierCliFlags) { parsed.emplace_back(); continue; }
    auto l = parse_layer(s.bytes, s.tier, s.file);
    if (!l.ok()) return l.error();
    l->sha256 = s.sha256;
    parsed.emplace_back(std::move(*l));
  }
  const Layer* system = (!sources.empty() && sources[0].tier == kTierSystem && parsed[0]) ? &*parsed[0] : nullptr;
  std::optional<Layer> system_restrictions;
  if (system) {
    // The system layer's lockdown and signing rule hold only when the layer itself applies; a
    // condition that reads the project never lifts them (the agent writes the project).
    auto cond = evaluate_when(system->when, ctx);
    if (!cond.ok()) return cond.error();
    if (!cond->host_facts_hold) system = nullptr;
    else if (!cond->holds) system = &system_restrictions.emplace(restrictions_of(*system));
  }
  const bool require_signed = system && system->require_signed.value_or(false);

  std::vector<std::string> keys;
  for (const auto& dir : {ctx.system_dir, ctx.config_dir}) {
    auto k = read_trusted_keys(dir + "/trusted_keys");
    if (!k.ok()) return k.error();
    keys.insert(keys.end(), k->begin(), k->end());
  }
  auto approved = load_approvals(ctx.state_dir, ctx.project);
  if (!approved.ok()) return approved.error();

  // $AGENT comes from the agent preset, before any path is resolved.
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].tier != kTierAgent || !parsed[i]) continue;
    const Item& d = parsed[i]->agent.data_dir;
    if (d.text.rfind("$AGENT", 0) == 0) return error_at(ErrorCode::kBadInput, d.at.pos(), "may not use $AGENT");
    auto abs = expand_vars(d.text, ctx, d.at.where() + ": key 'agent.data_dir'");
    if (!abs.ok()) return with_origin(abs.error(), d.at.pos());
    std::error_code ec;
    ctx.agent_dir = ctx.paths->weakly_canonical(*abs, ec).string();
  }

  IrBuilder b(ctx, in);
  add_taint(in, b);
  b.set_lockdown(system);
  Evaluation ev;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& s = sources[i];
    LayerInfo info;
    info.tier = s.tier;
    info.file = s.file;
    info.sha256 = s.sha256;
    info.exists = s.exists;
    if (!s.exists) { ev.layers.push_back(std::move(info)); continue; }
    if (s.tier == kTierCliFlags) {
      if (auto st = b.add_cli_flags(); !st.ok()) return st.error();
      info.applies = true;
      b.add_source(SourceLayer{s.tier, s.file, ""});
      ev.layers.push_back(std::move(info));
      continue;
    }
    const Layer& l = *parsed[i];
    if (!is_builtin(s.tier)) {
      info.signature = signature_state(s.bytes, s.fs_path + ".sig", keys, in.lister);
      if (info.signature == SignatureState::kFailed)
        return blocked(s.file + ".sig: signature of tier " + s.tier + " does not verify with any trusted key "
                       "(file modified or signature malformed); re-sign it with 'paddock sign " + s.file + "'");
      if (require_signed && s.tier != kTierSystem && info.signature != SignatureState::kVerified)
        return blocked(s.file + ": tier " + s.tier + " is not signed, and the system-global policy sets "
                       "security.require_signed; sign it with 'paddock sign " + s.file + "'");
    }
    info.immutable = s.tier == kTierSystem && l.immutable.value_or(false);
    auto cond = evaluate_when(l.when, ctx);
    if (!cond.ok()) return cond.error();
    info.condition = cond->description;
    info.applies = cond->holds;
    // A condition on the project is the agent's to change: when it does not hold, the layer's
    // restrictions apply all the same, and only its grants wait for it (docs/policy-layers.md,
    // "Conditions").
    std::optional<Layer> restricted;
    if (!cond->holds && cond->host_facts_hold && cond->reads_project) {
      restricted.emplace(restrictions_of(l));
      info.condition += "; its restrictions apply all the same: the condition reads the project, which the agent can change";
    }
    if (is_repository_side(s.tier))
      info.approval = is_approved(*approved, s.file, s.tier, s.sha256) ? ApprovalState::kApproved : ApprovalState::kUnapproved;
    if (!info.applies && !restricted) { ev.layers.push_back(std::move(info)); continue; }
    if (info.approval == ApprovalState::kUnapproved) {
      const std::string fix = "run 'paddock approve --project " + ctx.project + "' after reviewing it";
      if (in.require_approvals)
        return blocked(s.file + ": tier " + s.tier + " layer " + s.sha256 + " is not approved; " + fix);
      b.warn("unapproved " + s.tier + " layer " + s.file + " (" + s.sha256 + "); " + fix);
    }
    if (s.tier == kTierAgent && !restricted) {
      b.set_agent(l);
      for (const auto& c : l.agent.credential_env) ev.agent_credential_env.push_back(c.text);
    }
    if (auto st = b.add_layer(restricted ? *restricted : l); !st.ok()) return st.error();
    b.add_source(SourceLayer{s.tier, s.file, s.sha256});
    ev.layers.push_back(std::move(info));
  }
  if (std::error_code ec; !ctx.agent_dir.empty() && !fs::exists(ctx.paths->status(ctx.agent_dir, ec)))
    b.warn("agent data directory " + ctx.agent_dir + " ($AGENT) does not exist, so it is not granted; "
           "'paddock run' creates it (and the preset's agent.state_dirs) before launching");
  auto built = b.finish();
  if (!built.ok()) return built.error();
  ev.withheld_credentials = b.withheld_credentials();
  for (auto& info : ev.layers)
    if (auto it = b.adds().find(info.file); it != b.adds().end()) info.adds = it->second;
  ev.ir = std::move(built->ir);
  ev.ir_bytes = canonical_bytes(ev.ir);
  ev.ir_hash = sha256_hex(ev.ir_bytes);
  if (in.with_report) {
    auto secrets = load_builtin_list(in.resources_dir, "project-secrets");
    if (!secrets.ok()) return secrets.error();
    ev.lint = lint_ir(ev.ir, built->provenance, ctx, LintInputs{b.unprotects(), &*secrets});
    for (std::size_t i = 0; i < sources.size(); ++i)
      if (parsed[i] && (parsed[i]->when.branch || parsed[i]->when.file_exists || parsed[i]->when.project_contains))
        ev.lint.push_back({"R8",
                           sources[i].file + ": the condition (when: branch, file_exists or project_contains) reads the "
                                             "project, which the agent writes: it may make the condition hold or not. Its "
                                             "restrictions apply either way; its grants apply when it holds, which the "
                                             "agent can arrange",
                           sources[i].tier, sources[i].file});
    ev.provenance = built->provenance.to_json();
  }
  return ev;
}

}  // namespace paddock
