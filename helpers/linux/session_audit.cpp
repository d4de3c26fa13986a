#include "helpers/linux/session_audit.h"

#include <time.h>
#include <unistd.h>

#include <cstdio>

#include "engine/json_text.h"
#include "engine/session/event.h"
#include "platform/atomic_file.h"
#include "platform/audit/audit.h"
#include "platform/utc_time.h"

namespace paddock::helper {
namespace {

// A file's ctime comes from the kernel's coarse clock; twice its resolution before the sandbox
// exists is earlier than anything the agent can write.
std::int64_t start_time_ns() {
  timespec now{}, res{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
  if (::clock_getres(CLOCK_REALTIME_COARSE, &res) != 0) res = {0, 10000000};
  const std::int64_t margin = 2 * (static_cast<std::int64_t>(res.tv_sec) * 1000000000 + res.tv_nsec);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec - margin;
}

std::string shown(const std::string& s) { return session::terminal_safe(s); }

void line(const std::string& message) {
  const std::string text = "paddock: " + message + "\n";
  std::fputs(text.c_str(), stderr);
}

}  // namespace

SessionAudit SessionAudit::prepare(const FrozenIr& ir) {
  SessionAudit a;
  a.start_.roots = platform::direct_roots(ir);
  if (a.start_.roots.empty()) return a;
  a.active_ = true;
  a.ir_ = ir;
  a.start_.started_ns = start_time_ns();
  a.start_.project = ir.meta.project;
  // fanotify cannot watch a tree for an unprivileged caller (only inode marks without
  // CAP_SYS_ADMIN): every session's record is the walk at its end (docs/audit.md).
  a.start_.record = "walk";
  a.preserver_ = platform::Preserver::open(platform::files_to_preserve(ir, a.start_.roots));
  a.start_.preserved = a.preserver_.stamps();
  return a;
}

std::string SessionAudit::start_record() const { return active_ ? session::encode_audit_start(start_) : std::string(); }

void SessionAudit::hold_lock(const std::string& session_dir) {
  if (active_ && !session_dir.empty()) lock_ = platform::try_lock_audit(session_dir);
}

void SessionAudit::finish(const Context& ctx, EventLog& events, const std::vector<session::ConfigChange>& config_changes,
                          bool agent_ran) {
  if (!active_ || ctx.session_dir.empty()) return;
  if (!agent_ran) {
    // Nothing ran: nothing to audit, and no front end audits it later.
    ::unlink(session::audit_start_file(ctx.session_dir).c_str());
    ::unlink(session::audit_lock_file(ctx.session_dir).c_str());
    ::rmdir(session::audit_dir(ctx.session_dir).c_str());
    return;
  }
  platform::AuditInputs in;
  in.session_id = ctx.session_id;
  in.session_dir = ctx.session_dir;
  in.ir = ir_;
  in.start = start_;
  in.resources_dir = ctx.resources_dir;
  in.by = "helper";
  in.config_changes = config_changes;
  in.preserved = preserver_.save_changed(ctx.session_dir);
  auto audited = platform::audit_session(in);
  session::AuditRecord record;
  if (audited) {
    record = std::move(*audited);
  } else {
    record.session_id = ctx.session_id;
    record.by = "helper";
    record.method = start_.record;
    record.complete = false;
    record.audited = platform::utc_timestamp();
    record.problems.push_back(audited.error().message + ": the session was not audited");
  }
  Status written = ctx.layout ? platform::write_audit(*ctx.layout, ctx.session_dir, record, start_.project)
                              : [&] {
                                  platform::WriteOptions o;
                                  o.create_dirs = true;
                                  return platform::write_file_atomic(session::audit_file(ctx.session_dir),
                                                                     session::encode_audit(record), o);
                                }();
  if (!written) record.problems.push_back("audit/audit.json could not be written: " + written.error().message);

  for (const auto& f : record.findings) {
    for (const auto& x : f.flags)
      events.emit(session::make_event(session::AuditFindingEvent{f.path, session::to_string(f.kind), f.type,
                                                            x.rule, x.tool, x.why, f.inside, "high"}));
    const session::AuditFlag& first = f.flags.front();
    std::string what = shown(f.path) + (f.type == "dir" ? "/" : "") + " " +
                       (f.kind == session::FindingKind::kAdded ? "created" : "changed") + " during the session";
    if (f.inside > 0) what += " (with " + std::to_string(f.inside) + " more inside)";
    line(what + ": " + (first.tool.empty() ? std::string("a tool on this machine") : shown(first.tool)) +
         " would run it (" + shown(first.why) + ")");
  }
  for (const auto& p : record.problems) {
    events.emit(session::make_event(session::AuditIncomplete{p, "high"}));
    line("not audited: " + shown(p));
  }
  if (!record.findings.empty())
    line("decide: paddock quarantine " + ctx.session_id + " [PATH...] moves them out of the project, paddock keep " +
         ctx.session_id + " PATH... accepts them (paddock audit " + ctx.session_id + " lists them)");
}

}  // namespace paddock::helper
