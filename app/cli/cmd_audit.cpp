// audit, quarantine, keep (docs/audit.md): what a direct-mode session left in the project for a
// tool on this machine to run, found when it ended, and the user's decision on each finding.
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/session_store.h"
#include "engine/json_text.h"
#include "engine/session/audit_record.h"
#include "platform/audit/audit.h"
#include "platform/audit/quarantine.h"

namespace paddock::cli {
namespace {

using nlohmann::json;

std::string audit_escaped(const std::string& s) { return session::terminal_safe(s); }

std::string audit_shown(const std::string& path, const std::string& project) {
  if (!project.empty() && path.size() > project.size() && path.compare(0, project.size(), project) == 0 &&
      path[project.size()] == '/')
    return audit_escaped(path.substr(project.size() + 1));
  return audit_escaped(path);
}

Result<session::Layout> layout_for(const std::string& id, CliContext& ctx) {
  if (auto s = SessionStore::validate_id(id); !s.ok()) return s.error();
  auto layout = ctx.layout();
  if (!layout.ok()) return layout.error();
  std::error_code ec;
  if (!std::filesystem::is_directory(layout->session_dir(id), ec))
    return bad_input("no session " + id + " (see 'paddock sessions')");
  return *layout;
}

json finding_json(const session::AuditFinding& f, const session::AuditState& state) {
  json flags = json::array();
  for (const auto& x : f.flags)
    flags.push_back({{"rule", x.rule}, {"tool", x.tool}, {"why", encode_json_text(x.why)}, {"source", encode_json_text(x.source)}});
  json j = {{"path", encode_json_text(f.path)}, {"kind", session::to_string(f.kind)}, {"type", f.type},
            {"flags", std::move(flags)},        {"inside", f.inside},                  {"restorable", !f.previous.empty()}};
  if (const auto* d = state.find(f.path)) {
    j["decision"] = session::to_string(d->decision);
    if (!d->moved_to.empty()) j["moved_to"] = encode_json_text(d->moved_to);
    j["restored"] = d->restored;
  } else {
    j["decision"] = nullptr;
  }
  return j;
}

int audit_cmd(const std::string& id, bool as_json, CliContext& ctx) {
  auto layout = layout_for(id, ctx);
  if (!layout.ok()) return fail(layout.error());
  // A session whose helper was killed is audited the first time it is looked at.
  if (auto r = platform::audit_if_abandoned(*layout, id, ctx.resources_dir().string(), "paddock audit"); !r.ok())
    return fail(r.error());
  const platform::LoadedAudit a = platform::load_audit(layout->session_dir(id));
  if (!a.problem.empty()) return fail(bad_input("session " + id + ": " + a.problem));
  if (!a.start) return fail(bad_input("session " + id + " has no audit: it wrote no directory directly"));
  if (!a.record) return fail(bad_input("session " + id + " has not been audited yet (it still runs: see 'paddock sessions')"));
  const session::AuditRecord& r = *a.record;
  const std::string& project = a.start->project;
  if (as_json) {
    json findings = json::array();
    for (const auto& f : r.findings) findings.push_back(finding_json(f, a.state));
    json problems = json::array();
    for (const auto& p : r.problems) problems.push_back(encode_json_text(p));
    std::cout << json{{"session_id", id},
                      {"project", encode_json_text(project)},
                      {"audited", r.audited},
                      {"by", r.by},
                      {"method", r.method},
                      {"complete", r.complete},
                      {"problems", problems},
                      {"entries", r.entries},
                      {"pending", a.pending()},
                      {"interrupted_quarantine", a.journal.has_value()},
                      {"findings", findings}}
                     .dump(2, ' ', false, json::error_handler_t::replace)
              << "\n";
    return 0;
  }
  std::cout << "session " << id << ": " << r.findings.size() << (r.findings.size() == 1 ? " finding" : " findings") << ", "
            << a.pending() << " undecided (audited by " << r.by << ", " << r.entries << " entries looked at)\n";
  for (const auto& p : r.problems) std::cout << "  not audited: " << audit_escaped(p) << "\n";
  if (a.journal) std::cout << "a quarantine did not finish: 'paddock quarantine " << id << "' finishes it\n";
  for (const auto& f : r.findings) {
    const auto* d = a.state.find(f.path);
    std::string state = d ? std::string(session::to_string(d->decision)) : "undecided";
    if (d && d->decision == session::AuditDecision::kQuarantined)
      state += d->restored ? ", its content before the session put back" : ", moved to " + layout->session_dir(id) + "/audit/" + d->moved_to;
    std::cout << "  " << (d ? " " : "!") << " " << (f.kind == session::FindingKind::kAdded ? "A" : "M") << " "
              << audit_shown(f.path, project) << (f.type == "dir" ? "/" : "")
              << (f.inside ? "  (" + std::to_string(f.inside) + " more inside)" : "") << "  [" << state << "]\n";
    for (const auto& x : f.flags)
      std::cout << "        " << x.rule << (x.tool.empty() ? "" : " (" + audit_escaped(x.tool) + ")") << ": " << audit_escaped(x.why) << "\n";
  }
  if (a.pending())
    std::cout << "\npaddock quarantine " << id << " [PATH...] moves them out of the project (a changed file gets its "
              << "content before the session back where it was kept);\npaddock keep " << id << " PATH... accepts them.\n";
  return 0;
}

int decide(const std::string& id, const std::vector<std::string>& raw, bool quarantine, bool as_json, CliContext& ctx) {
  auto layout = layout_for(id, ctx);
  if (!layout.ok()) return fail(layout.error());
  if (auto r = platform::audit_if_abandoned(*layout, id, ctx.resources_dir().string(), "paddock"); !r.ok())
    return fail(r.error());
  const std::vector<std::string> paths = absolute_paths(raw);
  auto out = quarantine ? platform::quarantine_findings(*layout, id, paths) : platform::keep_findings(*layout, id, paths);
  if (!out.ok()) return fail(out.error());
  if (as_json) {
    json skipped = json::array();
    for (const auto& [p, why] : out->skipped) skipped.push_back({{"path", encode_json_text(p)}, {"why", encode_json_text(why)}});
    json done = json::array();
    for (const auto& p : out->done) done.push_back(encode_json_text(p));
    std::cout << json{{"done", done}, {"skipped", skipped}, {"pending", out->pending}}.dump(2, ' ', false,
                                                                                           json::error_handler_t::replace)
              << "\n";
    return out->skipped.empty() ? 0 : 1;
  }
  const char* verb = quarantine ? "quarantined" : "kept";
  for (const auto& p : out->done) std::cout << verb << " " << audit_escaped(p) << "\n";
  for (const auto& [p, why] : out->skipped) std::cout << "not " << verb << ": " << audit_escaped(p) << ": " << audit_escaped(why) << "\n";
  std::cout << out->pending << (out->pending == 1 ? " finding" : " findings") << " of session " << id << " undecided\n";
  return out->skipped.empty() ? 0 : 1;
}

}  // namespace

void add_audit_commands(CLI::App& app, CliContext& ctx) {
  auto* audit = app.add_subcommand("audit", "List what a direct-mode session left for a tool on this machine to run");
  auto audit_id = std::make_shared<std::string>();
  auto audit_json = std::make_shared<bool>(false);
  audit->add_option("id", *audit_id, "Session id")->required()->type_name("SESSION");
  audit->add_flag("--json", *audit_json, "Machine-readable output");
  audit->callback([&ctx, audit_id, audit_json] { ctx.exit_code = audit_cmd(*audit_id, *audit_json, ctx); });

  for (const bool quarantine : {true, false}) {
    auto* cmd = app.add_subcommand(
        quarantine ? "quarantine" : "keep",
        quarantine ? "Move a direct-mode session's findings out of the project into the session's directory (all "
                     "undecided ones, or the named PATHs)"
                   : "Accept the named findings of a direct-mode session as they are");
    auto id = std::make_shared<std::string>();
    auto paths = std::make_shared<std::vector<std::string>>();
    auto as_json = std::make_shared<bool>(false);
    cmd->add_option("id", *id, "Session id")->required()->type_name("SESSION");
    auto* p = cmd->add_option("paths", *paths, quarantine ? "Only these findings" : "The findings to keep")->type_name("PATH");
    if (!quarantine) p->required();
    cmd->add_flag("--json", *as_json, "Machine-readable output");
    cmd->callback([&ctx, id, paths, as_json, quarantine] { ctx.exit_code = decide(*id, *paths, quarantine, *as_json, ctx); });
  }
}

}  // namespace paddock::cli
