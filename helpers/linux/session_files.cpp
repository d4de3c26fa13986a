#include "helpers/linux/session_files.h"

#include <tuple>

#include "engine/session/audit_record.h"

namespace paddock::helper {

void SessionFiles::Staged::stage(const std::string& path, const std::string& prefill) {
  path_ = path;
  staged_ = prefill;
  if (!file_.open(path).ok()) return;
  if (!prefill.empty() && !file_.write(prefill).ok()) file_.discard();
}

Status SessionFiles::Staged::publish(const std::string& rest) {
  if (!file_.is_open()) return platform::write_file_atomic(path_, staged_ + rest);
  if (!rest.empty())
    if (auto s = file_.write(rest); !s.ok()) return s;
  return file_.commit();
}

Status SessionFiles::stage_records(const std::string& ir, const std::string& plan, const std::string& attestation,
                                   const std::string& audit_start) {
  platform::AtomicFile ir_out, plan_out, audit_out;
  for (auto [file, name, bytes] :
       {std::tuple<platform::AtomicFile*, std::string, const std::string*>{&ir_out, dir_ + "/ir.json", &ir},
        {&plan_out, dir_ + "/plan.json", &plan},
        {&audit_out, session::audit_start_file(dir_), &audit_start}})
    if (!bytes->empty()) {
      platform::WriteOptions o;
      o.create_dirs = true;
      Status s = file->open(name, o);
      if (s.ok()) s = file->write(*bytes);
      if (!s.ok()) return s;
    }
  attestation_.stage(dir_ + "/attestation.json", attestation);
  if (auto s = platform::sync_all({&ir_out, &plan_out, &audit_out, attestation_.file()}); !s) return s;
  for (platform::AtomicFile* f : {&ir_out, &plan_out})
    if (f->is_open())
      if (auto s = f->commit(platform::DirSync::kByCaller); !s) return s;
  // In audit/, whose directory the attestation's sync does not cover.
  if (audit_out.is_open())
    if (auto s = audit_out.commit(); !s) return s;
  return Status::Ok();
}

Status SessionFiles::publish_attestation() { return attestation_.publish(); }

void SessionFiles::stage_report() { report_.stage(dir_ + "/report.json"); }

Status SessionFiles::publish_report(const std::string& bytes) {
  if (report_.staged()) return report_.publish(bytes);
  return platform::write_file_atomic(dir_ + "/report.json", bytes);
}

}  // namespace paddock::helper
