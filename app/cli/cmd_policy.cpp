// explain, hash, lint, approve (docs/cli.md): thin front ends over engine::evaluate().
#include <iostream>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/inputs_options.h"
#include "app/cli/policy_output.h"
#include "engine/approvals.h"
#include "engine/context.h"
#include "engine/display_text.h"
#include "platform/engine_files.h"

namespace paddock::cli {
namespace {

struct ExplainFlags {
  bool json = false;
  bool canonical = false;
  std::string why;
};

// Evaluates INPUTS or prints the one-line error; returns nullopt with ctx.exit_code set.
std::optional<Evaluation> run_evaluate(const session::LaunchRequest& o, CliContext& ctx, bool require_approvals) {
  auto in = to_engine_inputs(o, ctx);
  if (!in.ok()) {
    print_error(in.error().message);
    ctx.exit_code = in.error().exit_code();
    return std::nullopt;
  }
  in->require_approvals = require_approvals;
  auto ev = evaluate(*in);
  if (!ev.ok()) {
    print_error(ev.error().message);
    ctx.exit_code = ev.error().exit_code();
    return std::nullopt;
  }
  return std::move(*ev);
}

int explain(const session::LaunchRequest& o, const ExplainFlags& f, CliContext& ctx) {
  auto ev = run_evaluate(o, ctx, false);
  if (!ev) return ctx.exit_code;
  if (!f.why.empty()) {
    const WhyAnswer w = why(*ev, f.why);
    if (f.json) std::cout << to_json(w).dump(2) << "\n";
    else print_why(std::cout, w);
    return 0;
  }
  if (f.canonical) std::cout << canonical_bytes(ev->ir);  // no newline: sha256sum must match
  else if (f.json) std::cout << explain_json(*ev).dump(2) << "\n";
  else print_explain(std::cout, *ev);
  return 0;
}

int lint(const session::LaunchRequest& o, bool strict, CliContext& ctx) {
  auto ev = run_evaluate(o, ctx, false);
  if (!ev) return ctx.exit_code;
  for (const auto& f : ev->lint)
    std::cout << f.rule << ": " << display_text(f.message)
              << (f.tier.empty() ? "" : " [" + display_text(f.tier) + " " + display_text(f.file) + "]") << "\n";
  if (ev->lint.empty()) std::cout << "no findings\n";
  return strict && !ev->lint.empty() ? 1 : 0;
}

int approve(const session::LaunchRequest& o, CliContext& ctx) {
  auto ev = run_evaluate(o, ctx, false);
  if (!ev) return ctx.exit_code;
  int count = 0;
  for (const auto& l : ev->layers) {
    if (l.approval != ApprovalState::kUnapproved || !l.applies) continue;
    std::cout << "approving " << l.tier << " " << display_text(l.file) << " (" << l.sha256 << ")\n";
    print_adds(std::cout, l.adds);
    // What lint calls escape-equivalent is said again where the user decides about it.
    for (const auto& f : ev->lint)
      if (f.rule == "ESC" && f.file == l.file) std::cout << "  ESCAPE-EQUIVALENT: " << display_text(f.message) << "\n";
    ++count;
  }
  if (count == 0) {
    std::cout << "nothing to approve: every repository layer that applies is already approved\n";
    return 0;
  }
  auto in = to_engine_inputs(o, ctx);
  auto c = make_context(*in);
  if (!c.ok()) { print_error(c.error().message); return c.error().exit_code(); }
  if (auto s = record_approvals(c->state_dir, c->project, ev->layers, platform::AtomicFileWriter{}); !s.ok()) {
    print_error(s.error().message);
    return s.error().exit_code();
  }
  std::cout << "recorded in " << display_text(approvals_path(c->state_dir)) << "\n";
  return 0;
}

}  // namespace

void add_policy_commands(CLI::App& app, CliContext& ctx) {
  {
    auto* cmd = app.add_subcommand("explain", "Show the effective policy (frozen IR) and where each entry came from");
    auto o = add_inputs_options(cmd);
    auto f = std::make_shared<ExplainFlags>();
    auto* j = cmd->add_flag("--json", f->json, "{ir, ir_hash, provenance, warnings, lint} as JSON");
    cmd->add_flag("--canonical", f->canonical, "The canonical IR bytes (sha256sum gives ir_hash)")->excludes(j);
    cmd->add_option("--why", f->why, "Explain one PATH, DOMAIN or ENVVAR: allowed or denied, and which rule decided");
    cmd->callback([&ctx, o, f] { ctx.exit_code = explain(*o, *f, ctx); });
  }
  {
    auto* cmd = app.add_subcommand("hash", "Print the ir_hash of the effective policy");
    auto o = add_inputs_options(cmd);
    cmd->callback([&ctx, o] {
      auto ev = run_evaluate(*o, ctx, false);
      if (!ev) return;
      std::cout << ev->ir_hash << "\n";
      ctx.exit_code = 0;
    });
  }
  {
    auto* cmd = app.add_subcommand("lint", "Check the effective policy for risky grants (R1-R7, escape-equivalent sockets and directories)");
    auto o = add_inputs_options(cmd);
    auto strict = std::make_shared<bool>(false);
    cmd->add_flag("--strict", *strict, "Exit 1 on any finding");
    cmd->callback([&ctx, o, strict] { ctx.exit_code = lint(*o, *strict, ctx); });
  }
  {
    auto* cmd = app.add_subcommand("approve", "Review and approve the project's repository-side policy layers");
    auto o = add_inputs_options(cmd);
    cmd->callback([&ctx, o] { ctx.exit_code = approve(*o, ctx); });
  }
}

}  // namespace paddock::cli
