// Test support for the credential broker: a throwaway CA and a server certificate for the names
// a test asks for (openssl, made in a private directory), and the TLS upstream of
// tls_upstream.py on 127.0.0.1 with that certificate, which records every request it gets.
// Nothing here resolves a real name or listens beyond loopback.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace paddock::broker::test {

struct TestCa {
  std::string dir;      // private directory (0755: uid 65534 reads the CA)
  std::string ca_pem;   // the CA certificate
  std::string cert_pem, key_pem;  // the server's, for `names`
  std::string error;
  // Makes both under a new directory below `parent`; false (error set) when openssl fails.
  bool make(const std::string& parent, const std::vector<std::string>& names);
};

class TlsUpstream {
 public:
  ~TlsUpstream();
  // Starts tls_upstream.py with the CA's server certificate; false (error set) when it does not
  // come up within 10 s.
  bool start(const TestCa& ca);
  int port() const { return port_; }
  const std::string& error() const { return error_; }
  // Every request received so far: {method, path, headers: [[name, value], ...]}.
  std::vector<nlohmann::json> requests() const;
  // The values of header `name` (case-insensitive) in every request received so far.
  std::vector<std::string> header_values(const std::string& name) const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string record_, error_;
};

}  // namespace paddock::broker::test
