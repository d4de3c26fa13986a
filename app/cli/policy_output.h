// Human-readable output of explain, --why and approve.
#pragma once

#include <ostream>

#include "engine/engine.h"

namespace paddock::cli {

void print_explain(std::ostream& out, const Evaluation& e);
void print_why(std::ostream& out, const WhyAnswer& w);
void print_adds(std::ostream& out, const nlohmann::json& adds);

}  // namespace paddock::cli
