// paddock-capabilities-doc OUT.md: writes docs/capabilities.md from the capability matrices.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "backends/capability_doc.h"
#include "engine/main_guard.h"

static int program_main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: paddock-capabilities-doc OUT.md\n";
    return 2;
  }
  const std::string text = paddock::backends::render_capabilities_markdown();
  const std::string tmp = std::string(argv[1]) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::cerr << "paddock-capabilities-doc: cannot write " << tmp << "\n";
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), argv[1]) != 0) {
    std::cerr << "paddock-capabilities-doc: cannot replace " << argv[1] << "\n";
    return 1;
  }
  return 0;
}

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int main(int argc, char** argv) {
  return paddock::guarded_main("paddock-capabilities-doc", [&] { return program_main(argc, argv); });
}
