// WindowsSpec <-> JSON. Kept apart from the compiler so that the Windows helper (cross-compiled
// with mingw) links this file alone and reads exactly what the backend wrote.
#include <initializer_list>
#include <set>

#include "backends/windows/windows_plan.h"

namespace paddock::windows_backend {
namespace {

using nlohmann::json;

json opt(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }

bool keys_exactly(const json& j, std::initializer_list<const char*> keys, std::string& error,
                  const std::string& where) {
  if (!j.is_object()) {
    error = where + ": expected an object";
    return false;
  }
  std::set<std::string> allowed(keys.begin(), keys.end());
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key())) {
      error = where + "." + it.key() + ": unknown field";
      return false;
    }
  for (const auto& k : allowed)
    if (!j.contains(k)) {
      error = where + "." + k + ": missing field";
      return false;
    }
  return true;
}

std::optional<std::int64_t> opt_int(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<std::int64_t>();
}

}  // namespace

json to_json(const WindowsSpec& s) {
  json grants = json::array();
  for (const auto& g : s.grants) grants.push_back({{"path", g.path}, {"access", g.access}});
  json denies = json::array();
  for (const auto& d : s.denies)
    denies.push_back({{"path", d.path}, {"kind", d.kind}, {"access", d.access}});
  return json{{"container_name", s.container_name},
              {"capabilities", s.capabilities},
              {"grants", grants},
              {"denies", denies},
              {"job", {{"job_memory_bytes", opt(s.job.job_memory_bytes)},
                       {"active_processes", opt(s.job.active_processes)},
                       {"job_user_time_secs", opt(s.job.job_user_time_secs)},
                       {"kill_on_job_close", s.job.kill_on_job_close}}},
              {"env", {{"set", s.env_set}, {"pass", s.env_pass}}},
              {"private_temp", s.private_temp},
              {"wall_time_secs", opt(s.wall_time_secs)}};
}

Result<WindowsSpec> spec_from_json(const json& j) {
  std::string err;
  WindowsSpec s;
  try {
    if (!keys_exactly(j, {"container_name", "capabilities", "grants", "denies", "job", "env",
                          "private_temp", "wall_time_secs"}, err, "spec"))
      return bad_input("Windows spec " + err);
    s.container_name = j.at("container_name").get<std::string>();
    s.capabilities = j.at("capabilities").get<std::vector<std::string>>();
    for (const json& g : j.at("grants")) {
      if (!keys_exactly(g, {"path", "access"}, err, "spec.grants[]")) return bad_input("Windows spec " + err);
      PathGrant pg{g.at("path").get<std::string>(), g.at("access").get<std::string>()};
      if (pg.access != "read" && pg.access != "write")
        return bad_input("Windows spec spec.grants[].access: expected read or write");
      s.grants.push_back(pg);
    }
    for (const json& d : j.at("denies")) {
      if (!keys_exactly(d, {"path", "kind", "access"}, err, "spec.denies[]")) return bad_input("Windows spec " + err);
      PathDeny pd{d.at("path").get<std::string>(), d.at("kind").get<std::string>(),
                  d.at("access").get<std::string>()};
      if ((pd.kind != "dir" && pd.kind != "file") || (pd.access != "all" && pd.access != "write"))
        return bad_input("Windows spec spec.denies[]: kind must be dir|file, access all|write");
      s.denies.push_back(pd);
    }
    const json& job = j.at("job");
    if (!keys_exactly(job, {"job_memory_bytes", "active_processes", "job_user_time_secs",
                            "kill_on_job_close"}, err, "spec.job"))
      return bad_input("Windows spec " + err);
    s.job.job_memory_bytes = opt_int(job.at("job_memory_bytes"));
    s.job.active_processes = opt_int(job.at("active_processes"));
    s.job.job_user_time_secs = opt_int(job.at("job_user_time_secs"));
    s.job.kill_on_job_close = job.at("kill_on_job_close").get<bool>();
    const json& env = j.at("env");
    if (!keys_exactly(env, {"set", "pass"}, err, "spec.env")) return bad_input("Windows spec " + err);
    s.env_set = env.at("set").get<std::map<std::string, std::string>>();
    s.env_pass = env.at("pass").get<std::vector<std::string>>();
    s.private_temp = j.at("private_temp").get<bool>();
    s.wall_time_secs = opt_int(j.at("wall_time_secs"));
  } catch (const json::exception& e) {
    return bad_input(std::string("Windows spec: ") + e.what());
  }
  return s;
}

}  // namespace paddock::windows_backend
