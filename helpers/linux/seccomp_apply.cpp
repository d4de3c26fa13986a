#include "helpers/linux/seccomp_apply.h"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

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

Result<int> family_number(const std::string& name) {
  if (name == "unix") return AF_UNIX;
  if (name == "inet") return AF_INET;
  if (name == "inet6") return AF_INET6;
  return refused("unknown socket family '" + name + "' in the plan");
}

std::string fail(const std::string& what, int rc) { return what + ": " + std::strerror(-rc); }

}  // namespace

Result<std::vector<sock_filter>> compile_seccomp(const std::vector<linux_backend::SeccompRule>& rules,
                                                 const std::vector<std::string>& socket_families_allowed) {
  FilterCtx ctx;
  if (!ctx.get()) return refused("seccomp_init failed");
  // Foreign-ABI syscalls kill: the rules below are resolved for the native architecture only.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS); rc != 0)
    return refused(fail("seccomp bad-arch action", rc));

  std::set<int> allowed;
  for (const auto& f : socket_families_allowed) {
    auto n = family_number(f);
    if (!n) return n.error();
    allowed.insert(*n);
  }
  bool plan_filters_socket = false;
  for (const auto& r : rules) {
    int nr = seccomp_syscall_resolve_name(r.syscall.c_str());
    if (nr == __NR_SCMP_ERROR) return refused("seccomp: unknown syscall '" + r.syscall + "' in the plan");
    if (r.syscall == "socket") plan_filters_socket = true;
    int rc = 0;
    if (r.arg_index < 0) {
      rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(r.errno_value), nr, 0);
    } else {
      scmp_compare op = SCMP_CMP_EQ;
      std::uint64_t a = r.arg_value, b = 0;
      if (r.arg_op == "eq") {
        op = SCMP_CMP_EQ;
      } else if (r.arg_op == "ne") {
        op = SCMP_CMP_NE;
      } else if (r.arg_op == "masked_eq") {
        op = SCMP_CMP_MASKED_EQ;
        a = r.arg_mask;
        b = r.arg_value;
      } else if (r.arg_op == "ge") {
        op = SCMP_CMP_GE;
      } else {
        return refused("seccomp: unknown argument comparison '" + r.arg_op + "' for " + r.syscall);
      }
      scmp_arg_cmp cmp{static_cast<unsigned>(r.arg_index), op, a, b};
      rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(r.errno_value), nr, 1, &cmp);
    }
    // -EEXIST: the same rule twice in the plan; harmless, the filter already has it.
    if (rc != 0 && rc != -EEXIST) return refused(fail("seccomp rule for " + r.syscall, rc));
  }
  // Socket families: deny every family outside the allowed set, and any value past the last
  // known family, unless the plan already spelled the socket rules out itself.
  if (!plan_filters_socket && !allowed.empty()) {
    for (int fam = 0; fam < AF_MAX; ++fam) {
      if (allowed.count(fam)) continue;
      int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                                SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(fam)));
      if (rc != 0) return refused(fail("seccomp socket family rule", rc));
    }
    int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                              SCMP_A0(SCMP_CMP_GE, static_cast<scmp_datum_t>(AF_MAX)));
    if (rc != 0) return refused(fail("seccomp socket family rule", rc));
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

Status apply_seccomp(const std::vector<linux_backend::SeccompRule>& rules,
                     const std::vector<std::string>& socket_families_allowed) {
  auto program = compile_seccomp(rules, socket_families_allowed);
  if (!program) return program.error();
  return load_seccomp_program(*program);
}

}  // namespace paddock::helper
