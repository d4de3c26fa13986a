#include "tests/helpers/broker/tls_upstream.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

namespace paddock::broker::test {
namespace {

bool openssl(const std::vector<std::string>& args, std::string* error) {
  std::vector<std::string> argv = {"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = paddock::test::run_process(argv);
  if (r.exit_code == 0) return true;
  *error = "openssl " + args.front() + " failed: " + r.err;
  return false;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

bool TestCa::make(const std::string& parent, const std::vector<std::string>& names) {
  std::string templ = parent + "/paddock-ca-XXXXXX";
  if (!::mkdtemp(templ.data())) {
    error = "mkdtemp under " + parent;
    return false;
  }
  dir = templ;
  ::chmod(dir.c_str(), 0755);
  ca_pem = dir + "/ca.pem";
  cert_pem = dir + "/server.pem";
  key_pem = dir + "/server.key";
  std::string san = "subjectAltName=";
  for (std::size_t i = 0; i < names.size(); ++i) san += (i ? ",DNS:" : "DNS:") + names[i];
  paddock::test::put(dir + "/ext", san + "\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
  return openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/ca.key", "-out", ca_pem, "-days", "2",
                  "-subj", "/CN=Paddock test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                  "keyUsage=critical,keyCertSign"},
                 &error) &&
         openssl({"req", "-newkey", "rsa:2048", "-nodes", "-keyout", key_pem, "-out", dir + "/server.csr", "-subj",
                  "/CN=" + names.front()},
                 &error) &&
         openssl({"x509", "-req", "-in", dir + "/server.csr", "-CA", ca_pem, "-CAkey", dir + "/ca.key", "-CAcreateserial",
                  "-out", cert_pem, "-days", "2", "-extfile", dir + "/ext"},
                 &error) &&
         ::chmod(ca_pem.c_str(), 0644) == 0;
}

TlsUpstream::~TlsUpstream() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    paddock::test::wait_exit(pid_);
  }
}

bool TlsUpstream::start(const TestCa& ca) {
  record_ = ca.dir + "/requests.jsonl";
  const std::string log = ca.dir + "/upstream.out";
  pid_ = paddock::test::spawn_process(
      {"python3", paddock::test::source_dir() + "/tests/helpers/broker/tls_upstream.py", ca.cert_pem, ca.key_pem, record_}, log);
  for (int i = 0; i < 500 && port_ == 0; ++i) {
    std::ifstream f(log);
    int p = 0;
    if (f >> p && p > 0) port_ = p;
    else std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (port_ == 0) error_ = "the TLS upstream did not start: " + paddock::test::slurp(log);
  return port_ != 0;
}

std::vector<nlohmann::json> TlsUpstream::requests() const {
  std::vector<nlohmann::json> out;
  std::istringstream lines(paddock::test::slurp(record_));
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

std::vector<std::string> TlsUpstream::header_values(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& r : requests())
    for (const auto& h : r["headers"])
      if (lower(h[0].get<std::string>()) == lower(name)) out.push_back(h[1].get<std::string>());
  return out;
}

}  // namespace paddock::broker::test
