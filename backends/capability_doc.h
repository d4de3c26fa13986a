// Renders docs/capabilities.md from the three capability matrices, so the document cannot drift
// from what check() enforces (backends/docgen writes it; a test compares the committed copy).
#pragma once

#include <string>

namespace paddock::backends {

std::string render_capabilities_markdown();

}  // namespace paddock::backends
