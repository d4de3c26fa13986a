// paddock-helper: the small Linux enforcement helper. It never parses user YAML.
#include <cstring>
#include <iostream>

#include "helpers/linux/probe.h"

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "probe") == 0) {
    std::cout << paddock::linux_backend::to_json(paddock::helper::probe_kernel()).dump() << "\n";
    return 0;
  }
  std::cerr << "paddock-helper: usage: paddock-helper probe\n";
  return 2;
}
