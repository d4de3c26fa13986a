#include "platform/sessions.h"

#include <time.h>

#include <algorithm>
#include <filesystem>

#include "platform/atomic_file.h"
#include "platform/read_file.h"
#include "platform/review/review_apply.h"
#include "platform/review/review_session.h"
#include "platform/unix_socket.h"

namespace paddock::platform {

std::vector<std::string> list_session_ids(const session::Layout& layout) {
  std::vector<std::string> ids;
  std::error_code ec;
  // Error codes throughout: whatever the directory holds, listing it never throws.
  for (std::filesystem::directory_iterator it(layout.sessions_dir(), ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    const std::string name = it->path().filename().string();
    if (it->is_directory(type_ec) && session::valid_session_id(name)) ids.push_back(name);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<FrozenIr> read_session_ir(const std::string& session_dir) {
  const std::string file = session_dir + "/ir.json";
  ReadOptions o;
  o.no_follow = true;
  auto bytes = read_file(file, o);
  if (!bytes) return bytes.error();
  const auto j = nlohmann::json::parse(*bytes, nullptr, false);
  if (j.is_discarded()) return bad_input(file + ": not JSON");
  auto ir = ir_from_json(j);
  if (!ir) return bad_input(file + ": " + ir.error().message);
  return ir;
}

session::SessionSummary read_session_summary(const session::Layout& layout, const std::string& id) {
  const std::string dir = layout.session_dir(id);
  session::SessionFiles files;
  ReadOptions record;
  record.max_bytes = std::size_t{1} << 20;
  record.no_follow = true;
  if (auto r = read_file_if_exists(dir + "/report.json", record); r.ok()) files.report = std::move(*r);
  else files.read_error = r.error().message;
  ReadOptions head = record;
  head.prefix = true;
  if (auto e = read_file_if_exists(dir + "/events.jsonl", head); e.ok()) files.events_head = std::move(*e);
  else if (files.read_error.empty()) files.read_error = e.error().message;
  // No report yet: running if its helper is there to answer, else it went away without one.
  if (!files.report) files.live = unix_socket_accepts(layout.control_socket(id));
  return session::summarize(id, files);
}

Result<session::Retention> load_retention(const session::Layout& layout) {
  auto text = read_file_if_exists(layout.retention_file());
  if (!text) return text.error();
  if (!*text) return session::Retention{};
  auto r = session::decode_retention(**text);
  if (!r) return bad_input(layout.retention_file() + ": " + r.error().message);
  return *r;
}

Status save_retention(const session::Layout& layout, const session::Retention& r) {
  WriteOptions o;
  o.create_dirs = true;
  o.keep_mode = true;
  return write_file_atomic(layout.retention_file(), session::encode_retention(r), o);
}

Result<PruneOutcome> prune_sessions(const session::Layout& layout, const std::string& resources_dir,
                                    std::optional<int> keep_days) {
  auto keep = load_retention(layout);
  if (!keep) return keep.error();
  if (keep_days) keep->keep_days = *keep_days;
  PruneOutcome out;
  out.keep_days = keep->keep_days;
  const std::int64_t now = static_cast<std::int64_t>(::time(nullptr));
  for (const auto& id : list_session_ids(layout)) {
    const auto summary = read_session_summary(layout, id);
    const std::string dir = layout.session_dir(id);
    bool holds = false;
    if (summary.state != session::SessionState::kRunning) {
      auto review = open_review_session(dir, id);
      if (review.ok() && review->has_layers()) {
        auto loaded = load_review(dir, id, resources_dir, false);
        holds = !loaded.ok() || loaded->changes.pending_count() > 0;
        if (!holds) (void)free_review_layers(loaded->session);
      } else if (!review.ok() && review.error().code != ErrorCode::kNotFound) {
        holds = true;  // review records that do not read: kept, never guessed empty
      }
    }
    if (!session::prunable(summary, holds, now, *keep)) {
      if (holds && session::prunable(summary, false, now, *keep)) ++out.kept_for_review;
      continue;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec) out.errors.push_back("cannot remove " + dir + ": " + ec.message());
    else ++out.removed;
  }
  return out;
}

}  // namespace paddock::platform
