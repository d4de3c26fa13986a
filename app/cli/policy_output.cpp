#include "app/cli/policy_output.h"

#include <type_traits>

#include "engine/display_text.h"
#include "engine/ir_schema.h"

namespace paddock::cli {
namespace {

const char* approval(ApprovalState a) {
  switch (a) {
    case ApprovalState::kNotNeeded: return "";
    case ApprovalState::kApproved: return ", approved";
    case ApprovalState::kUnapproved: return ", NOT APPROVED";
  }
  return "";
}

const char* signature(SignatureState s) {
  switch (s) {
    case SignatureState::kUnsigned: return "";
    case SignatureState::kVerified: return ", signature verified";
    case SignatureState::kFailed: return ", SIGNATURE FAILED";
  }
  return "";
}

}  // namespace

void print_explain(std::ostream& out, const Evaluation& e) {
  const auto& ir = e.ir;
  out << "ir_hash " << e.ir_hash << "\n"
      << "project " << ir.meta.project << "   agent " << (ir.meta.agent.empty() ? "(none)" : ir.meta.agent) << "\n\n"
      << "layers (weakest first):\n";
  for (const auto& l : e.layers) {
    if (!l.exists) continue;
    out << "  " << (l.applies ? "[x] " : "[ ] ") << l.tier << "  " << display_text(l.file) << approval(l.approval)
        << signature(l.signature) << (l.immutable ? ", IMMUTABLE" : "")
        << (l.condition.empty() ? "" : "  when: " + display_text(l.condition)) << "\n";
  }
  // The IR field by field, as the schema declares it (engine/ir_schema.h): a field the IR gains
  // later is printed without a change here.
  std::string section = "layers";
  ir_schema::for_each_ir_field(ir, [&](const std::string& path, const ir_schema::FieldInfo&, const auto& v) {
    using T = std::remove_cvref_t<decltype(v)>;
    const std::string sec = path.substr(0, path.find('.'));
    if (sec != section) out << "\n";
    section = sec;
    if constexpr (ir_schema::is_vector<T> || ir_schema::is_map<T>) {
      const auto entries = ir_schema::entries_of(v);
      out << path << ":" << (entries.empty() ? " (none)" : "") << "\n";
      for (const auto& x : entries) out << "  " << display_text(x) << "\n";
    } else {
      out << path << ": " << display_text(ir_schema::text_of(v)) << "\n";
    }
  });
  if (!e.lint.empty()) {
    out << "\nlint:\n";
    for (const auto& f : e.lint) out << "  " << f.rule << ": " << display_text(f.message) << "\n";
  }
}

void print_why(std::ostream& out, const WhyAnswer& w) {
  out << display_text(w.subject) << ": " << (w.allowed ? "ALLOWED" : "DENIED");
  if (w.kind == "path") out << " (access: " << w.access << ")";
  out << "\n  " << display_text(w.reason) << "\n";
  if (!w.tier.empty())
    out << "  decided by tier " << display_text(w.tier) << (w.file.empty() ? "" : ", " + display_text(w.file)) << "\n";
  if (!w.rule.empty()) out << "  rule " << display_text(w.rule) << "\n";
}

void print_adds(std::ostream& out, const nlohmann::json& adds) {
  if (adds.empty()) {
    out << "  (adds nothing)\n";
    return;
  }
  // JSON text escapes C0 controls but keeps C1 controls and bidirectional overrides as they are.
  for (auto it = adds.begin(); it != adds.end(); ++it) out << "  " << it.key() << ": " << display_text(it.value().dump()) << "\n";
}

}  // namespace paddock::cli
