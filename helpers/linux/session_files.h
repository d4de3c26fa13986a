// The session's records on disk, each written atomically (platform/atomic_file.h) and staged
// ahead of time: ir.json and plan.json (the bytes the helper read and the plan whose hash it
// checked), attestation.json, stored before the agent may exec, and report.json at the end.
// Staging creates and fills a record's temporary (an inode allocation, 0.1 to several ms on a
// busy disk) while the sandbox builds its view, so that what is left on the path to the agent's
// exec, or at the session's end, is a rename and a directory sync. A record that could not be
// staged is written whole when it is due.
#pragma once

#include <string>

#include "engine/status.h"
#include "platform/atomic_file.h"

namespace paddock::helper {

class SessionFiles {
 public:
  explicit SessionFiles(std::string session_dir) : dir_(std::move(session_dir)) {}

  // ir.json and plan.json (each when not empty) are written and renamed into place, and the
  // attestation staged: the three syncs run at once, and publish_attestation() syncs the
  // directory once for all three renames. `audit_start` (when not empty): the direct-mode
  // audit's start record (engine/session/audit_record.h), written with them.
  Status stage_records(const std::string& ir, const std::string& plan, const std::string& attestation,
                       const std::string& audit_start = "");
  Status publish_attestation();
  // Once the agent runs: report.json's temporary.
  void stage_report();
  Status publish_report(const std::string& bytes);

  const std::string& dir() const { return dir_; }

 private:
  class Staged {
   public:
    void stage(const std::string& path, const std::string& prefill = "");
    bool staged() const { return !path_.empty(); }
    platform::AtomicFile* file() { return &file_; }
    Status publish(const std::string& rest = "");

   private:
    std::string path_, staged_;
    platform::AtomicFile file_;
  };

  std::string dir_;
  Staged attestation_, report_;
};

}  // namespace paddock::helper
