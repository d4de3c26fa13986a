#include "helpers/linux/seccomp_apply.h"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/unique_fd.h"

namespace paddock::helper {
namespace {

class FilterCtx {
 public:
  FilterCtx() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {}
  ~FilterCtx() {
    if (ctx_) seccomp_release(ctx_);
  }
  FilterCtx(const FilterCtx&) = delete;
  FilterCtx& operator=(const FilterCtx&) = delete;
  scmp_filter_ctx get() const { return ctx_; }

 private:
  scmp_filter_ctx ctx_;
};

std::string fail(const std::string& what, int rc) { return what + ": " + std::strerror(-rc); }

}  // namespace

Result<std::vector<sock_filter>> compile_seccomp(const std::vector<linux_backend::SeccompRule>& rules,
                                                 const std::vector<std::string>& notified) {
  FilterCtx ctx;
  if (!ctx.get()) return refused("seccomp_init failed");
  // Foreign-ABI syscalls kill: the rules below are resolved for the native architecture only.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS); rc != 0)
    return refused(fail("seccomp bad-arch action", rc));
  for (const auto& r : rules) {
    int nr = seccomp_syscall_resolve_name(r.syscall.c_str());
    if (nr == __NR_SCMP_ERROR) return refused("seccomp: unknown syscall '" + r.syscall + "' in the plan");
    int rc = 0;
    switch (r.arg_op) {
      case linux_backend::SeccompArgOp::kNone:
        rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(r.errno_value), nr, 0);
        break;
      case linux_backend::SeccompArgOp::kMaskedEq: {
        scmp_arg_cmp cmp{static_cast<unsigned>(r.arg_index), SCMP_CMP_MASKED_EQ, r.arg_mask, r.arg_value};
        rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(r.errno_value), nr, 1, &cmp);
        break;
      }
    }
    // -EEXIST: the same rule twice in the plan; harmless, the filter already has it.
    if (rc != 0 && rc != -EEXIST) return refused(fail("seccomp rule for " + r.syscall, rc));
  }
  for (const auto& name : notified) {
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR) return refused("seccomp: unknown syscall '" + name + "' in the plan");
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_NOTIFY, nr, 0); rc != 0 && rc != -EEXIST)
      return refused(fail("seccomp notification for " + name, rc));
  }
  platform::UniqueFd mem(static_cast<int>(::syscall(SYS_memfd_create, "paddock-seccomp", MFD_CLOEXEC)));
  if (!mem.valid()) return refused(std::string("seccomp: memfd_create: ") + std::strerror(errno));
  if (int rc = seccomp_export_bpf(ctx.get(), mem.get()); rc != 0) return refused(fail("seccomp_export_bpf", rc));
  struct stat st {};
  if (::fstat(mem.get(), &st) != 0 || st.st_size <= 0 || st.st_size % sizeof(sock_filter) != 0)
    return refused("seccomp: libseccomp exported no usable filter");
  std::vector<sock_filter> program(static_cast<std::size_t>(st.st_size) / sizeof(sock_filter));
  if (::pread(mem.get(), program.data(), static_cast<std::size_t>(st.st_size), 0) != st.st_size)
    return refused(std::string("seccomp: cannot read the exported filter: ") + std::strerror(errno));
  return program;
}

Result<int> load_seccomp_program_with_listener(const std::vector<sock_filter>& program) {
  if (program.empty() || program.size() > BPF_MAXINSNS) return refused("seccomp: filter has no valid size");
  sock_fprog fprog{static_cast<unsigned short>(program.size()), const_cast<sock_filter*>(program.data())};
  const long fd = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
  if (fd < 0)
    return refused(std::string("seccomp: cannot load a filter with a listener (Linux 5.0 or newer, and no other "
                               "listener on this process): ") + std::strerror(errno));
  return static_cast<int>(fd);
}

Status load_seccomp_program(const std::vector<sock_filter>& program) {
  if (program.empty() || program.size() > BPF_MAXINSNS) return refused("seccomp: filter has no valid size");
  sock_fprog fprog{static_cast<unsigned short>(program.size()), const_cast<sock_filter*>(program.data())};
  // libseccomp 2.5 (seccomp_load): seccomp(2) with no flags (no TSYNC, LOG, SPEC_ALLOW or
  // listener: none of those attributes is set above), prctl where seccomp(2) is missing.
  long rc = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
  if (rc != 0 && errno == ENOSYS) rc = ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
  if (rc != 0) return refused(std::string("seccomp: cannot load the filter: ") + std::strerror(errno));
  return Status::Ok();
}

}  // namespace paddock::helper
