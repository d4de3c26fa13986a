#include "helpers/linux/agent_state_layers.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/agent_settings.h"
#include "engine/session/agent_state_layout.h"
#include "engine/session/layout.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"

namespace paddock::helper {
namespace {

using linux_backend::MountOp;

// Settings files are kilobytes; Claude Code's state file grows to a few megabytes at most.
constexpr std::size_t kMaxSettingsBytes = std::size_t{16} << 20;

Result<OverlayDir> layer(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return refused("agent state: cannot read " + path + ": " + std::strerror(errno) + " (nothing was run)");
  return OverlayDir{path, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

std::string relative(const std::string& path, const std::string& root) { return path.substr(root.size() + 1); }

}  // namespace

Result<AgentStateLayers> AgentStateLayers::prepare(const IrFs& fs, const std::vector<linux_backend::MountStep>& steps,
                                                   const std::string& session_id) {
  AgentStateLayers out;
  std::vector<const AgentStateRoot*> roots;
  for (const auto& s : steps) {
    if (s.op != MountOp::kAgentState) continue;
    auto it = std::find_if(fs.agent_state.begin(), fs.agent_state.end(), [&](const AgentStateRoot& r) { return r.path == s.target; });
    if (it == fs.agent_state.end()) return refused("agent state: the plan mounts " + s.target + ", which the IR does not list");
    roots.push_back(&*it);
  }
  if (roots.empty()) return out;
  if (!session::valid_session_id(session_id)) return refused("agent state: no session id to keep this session's writes under");
  const std::string& dir = fs.agent_state_dir;
  if (auto s = platform::make_dirs(dir); !s.ok())
    return refused("agent state: cannot make " + dir + ": " + s.error().message + " (nothing was run)");

  // Writes that ended sessions left are committed when no other session of this agent runs;
  // otherwise they stay as they are and are shown to this session as a layer of their own.
  auto exclusive = platform::FileLock::try_acquire(session::agent_state_lock(dir), /*exclusive=*/true);
  if (!exclusive) return refused("agent state: " + exclusive.error().message + " (nothing was run)");
  if (*exclusive) {
    if (auto done = platform::commit_ended_sessions(dir); !done)
      return refused("agent state: cannot commit what earlier sessions wrote: " + done.error().message + " (nothing was run)");
    if (auto s = (*exclusive)->downgrade(); !s.ok()) return refused("agent state: " + s.error().message);
    out.state_lock_ = std::move(**exclusive);
  } else {
    auto shared = platform::FileLock::acquire(session::agent_state_lock(dir), /*exclusive=*/false);
    if (!shared) return refused("agent state: " + shared.error().message + " (nothing was run)");
    out.state_lock_ = std::move(*shared);
  }
  std::vector<std::string> paths;
  for (const auto* r : roots) paths.push_back(r->path);
  auto record = platform::prepare_agent_state(dir, paths);
  if (!record) return refused("agent state: " + record.error().message + " (nothing was run)");
  const auto index_of = [&](const std::string& path) {
    for (const auto& r : record->roots)
      if (r.root == path) return r.index;
    return -1;
  };

  // This session's directory is made and locked under a dot name, then renamed into place: a
  // session that is listed is always either running (locked) or over.
  const std::string sessions = session::agent_state_sessions(dir);
  const std::string making = sessions + "/." + session_id, final_dir = session::agent_state_session(dir, session_id);
  if (auto s = platform::make_dirs(making); !s.ok()) return refused("agent state: " + s.error().message);
  auto own = platform::FileLock::acquire(making + "/lock", /*exclusive=*/true);
  if (!own) return refused("agent state: " + own.error().message);
  out.session_lock_ = std::move(*own);
  const std::vector<std::string> ended = platform::ended_sessions(dir, session_id);

  for (const auto* r : roots) {
    const int n = index_of(r->path);
    const std::string base = making + "/" + std::to_string(n);
    for (const char* l : {"upper", "work", "top", "base"})
      if (auto s = platform::make_dirs(base + "/" + l); !s.ok()) return refused("agent state: " + s.error().message);
    // The merged view's top directory is the upper layer's: the user's directory's mode.
    struct stat st {};
    if (::stat(r->path.c_str(), &st) == 0) ::chmod((base + "/upper").c_str(), st.st_mode & 07777);
    for (const auto& h : r->hidden)
      if (auto s = platform::make_whiteout(base + "/base", relative(h, r->path)); !s.ok())
        return refused("agent state: " + s.error().message + " (nothing was run)");
    // The layers below Paddock's own, as the settings are read through them: ended sessions'
    // writes (newest first), the committed state, the whiteouts, the user's directory.
    std::vector<std::string> below;
    for (auto it = ended.rbegin(); it != ended.rend(); ++it)
      if (struct stat es {}; ::lstat(session::agent_state_session_layer(dir, *it, n, "upper").c_str(), &es) == 0)
        below.push_back(session::agent_state_session_layer(dir, *it, n, "upper"));
    below.push_back(session::review_upper(dir, n));
    below.push_back(base + "/base");
    below.push_back(r->path);
    for (const auto& setting : r->settings) {
      const std::string rel = relative(setting.file, r->path);
      auto current = platform::read_through_layers(below, rel, kMaxSettingsBytes);
      std::optional<std::string> imported;
      if (!setting.import_from.empty()) {
        platform::ReadOptions o;
        o.max_bytes = kMaxSettingsBytes;
        if (auto b = platform::read_file_if_exists(setting.import_from, o); b) imported = std::move(*b);
      }
      Result<std::string> bytes = current ? apply_agent_setting(setting, *current, imported)
                                          : Result<std::string>(current.error());
      if (!bytes) {
        out.problems_.push_back("could not write Paddock's settings into the agent's " + setting.file + " (" +
                                bytes.error().message + "): " + setting.why + " does not hold in this session");
        continue;
      }
      if (auto s = platform::put_layer_file(base + "/top", rel, *bytes, 0600); !s.ok())
        return refused("agent state: " + s.error().message + " (nothing was run)");
    }
  }
  if (::rename(making.c_str(), final_dir.c_str()) != 0)
    return refused("agent state: cannot make " + final_dir + ": " + std::strerror(errno) + " (nothing was run)");

  for (const auto* r : roots) {
    const int n = index_of(r->path);
    OverlayDirs d;
    auto upper = layer(session::agent_state_session_layer(dir, session_id, n, "upper"));
    auto work = layer(session::agent_state_session_layer(dir, session_id, n, "work"));
    if (!upper) return upper.error();
    if (!work) return work.error();
    d.upper = *upper;
    d.work = *work;
    std::vector<std::string> lowers = {session::agent_state_session_layer(dir, session_id, n, "top")};
    for (auto it = ended.rbegin(); it != ended.rend(); ++it)
      if (struct stat es {}; ::lstat(session::agent_state_session_layer(dir, *it, n, "upper").c_str(), &es) == 0)
        lowers.push_back(session::agent_state_session_layer(dir, *it, n, "upper"));
    lowers.push_back(session::review_upper(dir, n));
    lowers.push_back(session::agent_state_session_layer(dir, session_id, n, "base"));
    for (const auto& l : lowers) {
      auto od = layer(l);
      if (!od) return od.error();
      d.lowers.push_back(*od);
    }
    out.dirs_.push_back(std::move(d));
  }
  out.dir_ = dir;
  out.id_ = session_id;
  return out;
}

std::string AgentStateLayers::finish() {
  if (dir_.empty()) return "";
  session_lock_.release();
  state_lock_.release();
  auto exclusive = platform::FileLock::try_acquire(session::agent_state_lock(dir_), /*exclusive=*/true);
  if (!exclusive) return exclusive.error().message;
  if (!*exclusive) return "";  // another session of this agent runs: the last one to end commits
  auto done = platform::commit_ended_sessions(dir_);
  return done ? "" : done.error().message;
}

}  // namespace paddock::helper
