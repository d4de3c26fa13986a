// The bytes the broker answers with. A refusal must tell the agent that a sandbox policy, not the
// network, said no, and which rule, so that it stops retrying around it.
#pragma once

#include <cstdint>
#include <string>

namespace paddock::broker {

std::string http_established();                       // 200 Connection established
std::string http_forbidden(const std::string& host, int port, const std::string& rule,
                           const std::string& reason);  // 403
std::string http_not_implemented(const std::string& method);  // 501
std::string http_bad_gateway(const std::string& host, int port, const std::string& why);  // 502
std::string socks5_reply(std::uint8_t code);          // VER REP RSV ATYP=1 0.0.0.0:0

}  // namespace paddock::broker
