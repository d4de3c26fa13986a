// review, apply, discard (docs/review.md): a review-mode session's changes, listed from the host
// side while the session runs and after it ends, applied (conflict-checked, atomic per file,
// flagged changes only when named one by one) or discarded.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/review_output.h"
#include "app/cli/session_store.h"
#include "engine/review/text_diff.h"
#include "platform/review/review_apply.h"
#include "platform/review/review_session.h"

namespace paddock::cli {
namespace {

using nlohmann::json;
using review::Change;
using review::ChangeKind;
using review::EntryType;

struct Opened {
  platform::LoadedReview review;
  std::string project;
};

Result<Opened> open(const std::string& id, CliContext& ctx, bool binary_markers = true) {
  if (auto s = SessionStore::validate_id(id); !s.ok()) return s.error();
  auto layout = ctx.layout();
  if (!layout.ok()) return layout.error();
  SessionStore store(*layout);
  std::error_code ec;
  if (!std::filesystem::is_directory(store.session_dir(id), ec)) return bad_input("no session " + id + " (see 'paddock sessions')");
  const bool running = store.summary(id).state == session::SessionState::kRunning;
  platform::ChangeWalkOptions walk;
  walk.binary_markers = binary_markers;
  auto loaded = platform::load_review(store.session_dir(id), id, ctx.resources_dir().string(), running, walk);
  if (!loaded.ok()) {
    if (loaded.error().code == ErrorCode::kNotFound)
      return bad_input("session " + id + " did not run in review mode: its changes went to the project directly");
    return loaded.error();
  }
  Opened o{std::move(*loaded), {}};
  o.project = o.review.session.ir.meta.project;
  return o;
}

int review_cmd(const std::string& id, bool as_json, bool diff, const std::vector<std::string>& only, CliContext& ctx) {
  auto o = open(id, ctx);
  if (!o.ok()) return fail(o.error());
  const auto& set = o->review.changes;
  const std::string& project = o->project;
  const auto wanted = [&](const Change& c) {
    if (only.empty()) return true;
    for (const auto& p : only)
      if (c.path == p || (c.path.size() > p.size() && c.path.compare(0, p.size(), p) == 0 && c.path[p.size()] == '/'))
        return true;
    return false;
  };
  if (as_json) {
    // One change per line, streamed in one pass: a set of ten thousand changes never becomes one
    // document (nor ten thousand JSON values) in memory first.
    std::string out = review::to_json(set, /*with_changes=*/false).dump(-1, ' ', false, json::error_handler_t::replace);
    out.pop_back();  // its closing brace
    out += ",\"changes\":[";
    out.reserve(std::size_t{1} << 17);
    for (std::size_t i = 0; i < set.changes.size(); ++i) {
      out += i ? ",\n" : "\n";
      review::append_json(set.changes[i], out);
      if (out.size() >= (std::size_t{1} << 16)) {
        std::cout.write(out.data(), static_cast<std::streamsize>(out.size()));
        out.clear();
      }
    }
    out += "\n]}\n";
    std::cout.write(out.data(), static_cast<std::streamsize>(out.size()));
    return 0;
  }
  if (diff) {
    for (const auto& c : set.changes)
      if (c.pending() && wanted(c) && (c.after.type == EntryType::kFile || c.before.type == EntryType::kFile))
        print_diff(o->review.session, c, project);
    return 0;
  }
  std::size_t pending = 0, flagged = 0, conflicts = 0;
  for (const auto& c : set.changes)
    if (c.pending() && wanted(c)) {
      ++pending;
      flagged += c.flagged() ? 1 : 0;
      conflicts += c.conflict.empty() ? 0 : 1;
    }
  std::cout << "session " << id << (set.running ? " (running: more may come)" : "") << ": " << pending
            << (pending == 1 ? " change" : " changes") << " held for review";
  if (flagged) std::cout << ", " << flagged << " flagged";
  if (conflicts) std::cout << ", " << conflicts << (conflicts == 1 ? " conflict" : " conflicts");
  std::cout << "\n";
  if (set.interrupted_apply)
    std::cout << "an apply did not finish: 'paddock apply " << id << "' finishes it (every file is old or new)\n";
  if (!o->review.session.has_layers()) std::cout << "reviewed: what the agent wrote has been applied or discarded\n";
  for (const auto& n : set.notes) std::cout << "  note: " << n << "\n";
  print_change_sections(set, project, wanted,
                        {"paddock apply " + id, "paddock review " + id, "changed on this machine since the session started"});
  return 0;
}

Status check_named(const review::ChangeSet& set, const std::vector<std::string>& paths, const std::string& id) {
  for (const auto& p : paths) {
    bool any = false;
    for (const auto& c : set.changes)
      any = any || (c.pending() && (c.path == p || (c.path.size() > p.size() && c.path.compare(0, p.size(), p) == 0 &&
                                                     c.path[p.size()] == '/')));
    if (!any) return bad_input("no pending change at " + p + " in session " + id + " (see 'paddock review " + id + "')");
  }
  return Status::Ok();
}

int act(const std::string& id, const std::vector<std::string>& raw, bool apply, bool as_json, CliContext& ctx) {
  auto o = open(id, ctx, /*binary_markers=*/false);  // apply and discard show no content
  if (!o.ok()) return fail(o.error());
  platform::ReviewSelection sel;
  sel.paths = absolute_paths(raw);
  if (auto s = check_named(o->review.changes, sel.paths, id); !s.ok()) return fail(s.error());
  auto outcome = apply ? platform::apply_changes(o->review.session, o->review.changes, sel, nullptr, platform::LayerUse::kOnce)
                       : platform::discard_changes(o->review.session, o->review.changes, sel);
  if (!outcome.ok()) return fail(outcome.error());
  if (as_json) {
    json skipped = json::array();
    for (const auto& [p, why] : outcome->skipped) skipped.push_back({{"path", p}, {"why", why}});
    std::cout << json{{"done", outcome->done}, {"skipped", skipped}, {"freed", outcome->freed}}.dump(2, ' ', false,
                                                                                                     json::error_handler_t::replace)
              << "\n";
    return 0;
  }
  const char* verb = apply ? "applied" : "discarded";
  std::cout << verb << " " << outcome->done.size() << (outcome->done.size() == 1 ? " change" : " changes") << " of session "
            << id << "\n";
  for (const auto& [p, why] : outcome->skipped) std::cout << "  not " << verb << ": " << shown(p, o->project) << ": " << why << "\n";
  if (outcome->freed) std::cout << "nothing is left to review: the session's copy of the agent's writes was removed\n";
  return 0;
}

}  // namespace

void add_review_commands(CLI::App& app, CliContext& ctx) {
  auto* review_cmd_ = app.add_subcommand("review", "List a review-mode session's changes (held until you apply them)");
  auto review_id = std::make_shared<std::string>();
  auto review_json = std::make_shared<bool>(false);
  auto review_diff = std::make_shared<bool>(false);
  auto review_paths = std::make_shared<std::vector<std::string>>();
  review_cmd_->add_option("id", *review_id, "Session id")->required()->type_name("SESSION");
  review_cmd_->add_option("paths", *review_paths, "Only these paths (and what is below them)")->type_name("PATH");
  review_cmd_->add_flag("--json", *review_json, "Machine-readable output");
  review_cmd_->add_flag("--diff", *review_diff, "Show the text diff of each changed file");
  review_cmd_->callback([&ctx, review_id, review_json, review_diff, review_paths] {
    ctx.exit_code = review_cmd(*review_id, *review_json, *review_diff, absolute_paths(*review_paths), ctx);
  });

  for (const bool apply : {true, false}) {
    auto* cmd = app.add_subcommand(apply ? "apply" : "discard",
                                   apply ? "Apply a review-mode session's changes to the project (all safe ones, or the named PATHs)"
                                         : "Discard a review-mode session's changes (all, or the named PATHs)");
    auto id = std::make_shared<std::string>();
    auto paths = std::make_shared<std::vector<std::string>>();
    auto as_json = std::make_shared<bool>(false);
    cmd->add_option("id", *id, "Session id")->required()->type_name("SESSION");
    cmd->add_option("paths", *paths,
                    apply ? "Only these paths and what is below them; a flagged change is applied only when named itself"
                          : "Only these paths and what is below them")
        ->type_name("PATH");
    cmd->add_flag("--json", *as_json, "Machine-readable output");
    cmd->callback([&ctx, id, paths, as_json, apply] { ctx.exit_code = act(*id, *paths, apply, *as_json, ctx); });
  }
}

}  // namespace paddock::cli
