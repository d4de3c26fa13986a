#include "engine/lexical_path.h"

#include <vector>

namespace paddock {

std::string lexically_normal(const std::string& path) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < path.size();) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    const std::string seg = path.substr(i, j - i);
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!seg.empty() && seg != ".") {
      parts.push_back(seg);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

}  // namespace paddock
