#include "helpers/windows/app_container_launch.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <userenv.h>

#include <algorithm>
#include <map>
#include <memory>

#include "helpers/windows/command_line.h"

namespace paddock::winhelper {
namespace {

using windows_backend::WindowsSpec;

std::wstring wide(const std::string& s) {
  std::u16string u;
  if (!utf8_to_utf16(s, u)) return L"";
  return std::wstring(u.begin(), u.end());
}

std::string narrow(const std::wstring& w) { return utf16_to_utf8(std::u16string(w.begin(), w.end())); }

std::string last_error(const char* what) { return std::string(what) + " failed (error " + std::to_string(GetLastError()) + ")"; }

// The original DACL of every path we touched, put back when the session ends, so a grant does
// not outlive its session.
class AclJournal {
 public:
  ~AclJournal() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      SetNamedSecurityInfoW(const_cast<wchar_t*>(it->path.c_str()), SE_FILE_OBJECT,
                            DACL_SECURITY_INFORMATION, nullptr, nullptr, it->dacl, nullptr);
      LocalFree(it->descriptor);
    }
  }
  // Adds one ACE for sid on path (grant or deny), keeping the old DACL to restore.
  bool add(const std::wstring& path, PSID sid, DWORD rights, ACCESS_MODE mode, DWORD inherit,
           std::string& error) {
    PACL old_dacl = nullptr;
    PSECURITY_DESCRIPTOR sd = nullptr;
    DWORD rc = GetNamedSecurityInfoW(path.c_str(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                                     nullptr, nullptr, &old_dacl, nullptr, &sd);
    if (rc != ERROR_SUCCESS) {
      error = "cannot read the ACL of " + narrow(path) + " (error " + std::to_string(rc) + ")";
      return false;
    }
    saved_.push_back({path, old_dacl, sd});
    EXPLICIT_ACCESS_W ea{};
    ea.grfAccessPermissions = rights;
    ea.grfAccessMode = mode;
    ea.grfInheritance = inherit;
    ea.Trustee.TrusteeForm = TRUSTEE_IS_SID;
    ea.Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
    ea.Trustee.ptstrName = static_cast<LPWSTR>(sid);
    PACL new_dacl = nullptr;
    rc = SetEntriesInAclW(1, &ea, old_dacl, &new_dacl);  // deny ACEs are placed first
    if (rc != ERROR_SUCCESS) {
      error = "cannot build the ACL for " + narrow(path) + " (error " + std::to_string(rc) + ")";
      return false;
    }
    rc = SetNamedSecurityInfoW(const_cast<wchar_t*>(path.c_str()), SE_FILE_OBJECT,
                               DACL_SECURITY_INFORMATION, nullptr, nullptr, new_dacl, nullptr);
    LocalFree(new_dacl);
    if (rc != ERROR_SUCCESS) {
      error = "cannot set the ACL of " + narrow(path) + " (error " + std::to_string(rc) + ")";
      return false;
    }
    return true;
  }

 private:
  struct Saved {
    std::wstring path;
    PACL dacl;
    PSECURITY_DESCRIPTOR descriptor;
  };
  std::vector<Saved> saved_;
};

struct Handle {
  HANDLE h = nullptr;
  ~Handle() { if (h && h != INVALID_HANDLE_VALUE) CloseHandle(h); }
};

struct SidHolder {
  PSID sid = nullptr;
  ~SidHolder() { if (sid) FreeSid(sid); }
};

constexpr DWORD kWriteRights = FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA |
                               FILE_WRITE_ATTRIBUTES | DELETE | FILE_DELETE_CHILD;

bool profile_sid(const std::wstring& name, SidHolder& out, std::string& error) {
  HRESULT hr = CreateAppContainerProfile(name.c_str(), name.c_str(),
                                         L"Paddock sandbox for one policy", nullptr, 0, &out.sid);
  if (hr == HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS))
    hr = DeriveAppContainerSidFromAppContainerName(name.c_str(), &out.sid);
  if (FAILED(hr)) {
    error = "cannot create the AppContainer profile " + narrow(name) + " (HRESULT " +
            std::to_string(static_cast<long>(hr)) + ")";
    return false;
  }
  return true;
}

// Memory, active processes, user-mode time, kill on close. A limit the Job refuses is a
// refusal of the whole launch, never a quieter launch.
bool configure_job(HANDLE job, const windows_backend::JobLimits& l, std::string& error) {
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION info{};
  DWORD flags = JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  if (l.kill_on_job_close) flags |= JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  if (l.job_memory_bytes) {
    flags |= JOB_OBJECT_LIMIT_JOB_MEMORY;
    info.JobMemoryLimit = static_cast<SIZE_T>(*l.job_memory_bytes);
  }
  if (l.active_processes) {
    flags |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
    info.BasicLimitInformation.ActiveProcessLimit = static_cast<DWORD>(*l.active_processes);
  }
  if (l.job_user_time_secs) {
    flags |= JOB_OBJECT_LIMIT_JOB_TIME;
    info.BasicLimitInformation.PerJobUserTimeLimit.QuadPart = *l.job_user_time_secs * 10000000LL;
  }
  info.BasicLimitInformation.LimitFlags = flags;
  if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &info, sizeof(info))) {
    error = last_error("SetInformationJobObject");
    return false;
  }
  return true;
}

// The environment block: only what the spec sets or passes, sorted case-insensitively as
// Windows expects, TEMP/TMP pointing at the container's private folder.
bool environment_block(const WindowsSpec& spec, PSID sid, std::wstring& block, std::string& error) {
  std::map<std::wstring, std::wstring> env;
  for (const auto& [k, v] : spec.env.set) env[wide(k)] = wide(v);
  for (const auto& name : spec.env.pass) {
    std::wstring n = wide(name);
    DWORD size = GetEnvironmentVariableW(n.c_str(), nullptr, 0);
    if (size == 0) continue;
    std::wstring value(size, L'\0');
    DWORD got = GetEnvironmentVariableW(n.c_str(), value.data(), size);
    value.resize(got);
    env[n] = value;
  }
  if (spec.private_temp) {
    LPWSTR sid_text = nullptr;
    if (!ConvertSidToStringSidW(sid, &sid_text)) {
      error = last_error("ConvertSidToStringSidW");
      return false;
    }
    PWSTR folder = nullptr;
    HRESULT hr = GetAppContainerFolderPath(sid_text, &folder);
    LocalFree(sid_text);
    if (FAILED(hr)) {
      error = "cannot find the AppContainer folder for the private temp directory";
      return false;
    }
    std::wstring temp = std::wstring(folder) + L"\\Temp";
    CoTaskMemFree(folder);
    if (!CreateDirectoryW(temp.c_str(), nullptr) && GetLastError() != ERROR_ALREADY_EXISTS) {
      error = last_error("CreateDirectoryW (private temp)");
      return false;
    }
    env[L"TEMP"] = temp;
    env[L"TMP"] = temp;
  }
  std::vector<std::pair<std::wstring, std::wstring>> sorted(env.begin(), env.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return CompareStringOrdinal(a.first.c_str(), -1, b.first.c_str(), -1, TRUE) == CSTR_LESS_THAN;
  });
  block.clear();
  for (const auto& [k, v] : sorted) {
    block += k + L"=" + v;
    block.push_back(L'\0');
  }
  block.push_back(L'\0');
  return true;
}

}  // namespace

LaunchResult run_in_app_container(const WindowsSpec& spec, const std::vector<std::string>& command) {
  LaunchResult r;
  if (!spec.capabilities.empty()) {
    r.error = "the spec asks for capabilities; this helper grants none (only net off is supported)";
    return r;
  }
  SidHolder sid;
  if (!profile_sid(wide(spec.container_name), sid, r.error)) return r;

  AclJournal acl;  // restored when this function returns, after the Job is closed below
  for (const auto& g : spec.grants) {
    const DWORD rights = g.access == "write"
                             ? (FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE | DELETE)
                             : (FILE_GENERIC_READ | FILE_GENERIC_EXECUTE);
    if (!acl.add(wide(g.path), sid.sid, rights, GRANT_ACCESS, SUB_CONTAINERS_AND_OBJECTS_INHERIT, r.error))
      return r;
  }
  for (const auto& d : spec.denies) {
    // Specific rights, not GENERIC_ALL: generic bits stored in an ACE are not mapped at access check.
    const DWORD rights = d.access == "all" ? FILE_ALL_ACCESS : kWriteRights;
    const DWORD inherit = d.kind == "dir" ? SUB_CONTAINERS_AND_OBJECTS_INHERIT : NO_INHERITANCE;
    if (!acl.add(wide(d.path), sid.sid, rights, DENY_ACCESS, inherit, r.error)) return r;
  }

  Handle job;
  job.h = CreateJobObjectW(nullptr, nullptr);
  if (!job.h) { r.error = last_error("CreateJobObjectW"); return r; }
  if (!configure_job(job.h, spec.job, r.error)) return r;

  std::wstring env;
  if (!environment_block(spec, sid.sid, env, r.error)) return r;

  std::vector<std::u16string> args;
  for (const auto& a : command) {
    std::u16string u;
    if (!utf8_to_utf16(a, u)) { r.error = "command argument is not valid UTF-8"; return r; }
    args.push_back(u);
  }
  const std::u16string line16 = join_command_line(args);
  std::wstring line(line16.begin(), line16.end());

  SECURITY_CAPABILITIES caps{};
  caps.AppContainerSid = sid.sid;
  SIZE_T size = 0;
  InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
  std::vector<unsigned char> attr_buf(size);
  auto* attrs = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(attr_buf.data());
  if (!InitializeProcThreadAttributeList(attrs, 1, 0, &size)) {
    r.error = last_error("InitializeProcThreadAttributeList");
    return r;
  }
  std::unique_ptr<void, void (*)(void*)> attrs_guard(
      attrs, [](void* p) { DeleteProcThreadAttributeList(static_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(p)); });
  if (!UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES, &caps,
                                 sizeof(caps), nullptr, nullptr)) {
    r.error = last_error("UpdateProcThreadAttribute(SECURITY_CAPABILITIES)");
    return r;
  }
  STARTUPINFOEXW si{};
  si.StartupInfo.cb = sizeof(si);
  si.lpAttributeList = attrs;
  PROCESS_INFORMATION pi{};
  // Suspended until it is in the Job, so no instruction runs outside the limits.
  if (!CreateProcessW(nullptr, line.data(), nullptr, nullptr, FALSE,
                      EXTENDED_STARTUPINFO_PRESENT | CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT,
                      env.data(), nullptr, &si.StartupInfo, &pi)) {
    r.exit_code = static_cast<int>(GetLastError() == ERROR_FILE_NOT_FOUND ? ErrorCode::kNotFound
                                                                       : ErrorCode::kRefused);
    r.error = last_error("CreateProcessW");
    return r;
  }
  Handle process, thread;
  process.h = pi.hProcess;
  thread.h = pi.hThread;
  if (!AssignProcessToJobObject(job.h, pi.hProcess)) {
    r.error = last_error("AssignProcessToJobObject");
    TerminateProcess(pi.hProcess, static_cast<int>(ErrorCode::kRefused));
    return r;
  }
  ResumeThread(pi.hThread);
  const DWORD wait_ms = spec.wall_time_secs
                            ? static_cast<DWORD>(std::min<std::int64_t>(*spec.wall_time_secs * 1000, 0xFFFFFFFE))
                            : INFINITE;
  if (WaitForSingleObject(pi.hProcess, wait_ms) == WAIT_TIMEOUT) {
    TerminateJobObject(job.h, static_cast<int>(ErrorCode::kTimeout));
    WaitForSingleObject(pi.hProcess, INFINITE);
    r.exit_code = static_cast<int>(ErrorCode::kTimeout);
    return r;
  }
  DWORD code = 0;
  GetExitCodeProcess(pi.hProcess, &code);
  r.exit_code = static_cast<int>(code);
  // Closing the Job (at scope exit) kills every process left in it (KILL_ON_JOB_CLOSE).
  return r;
}

}  // namespace paddock::winhelper
