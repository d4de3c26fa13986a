#include "app/cli/policy_output.h"

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

void list(std::ostream& out, const char* title, const std::vector<std::string>& v) {
  out << title << ":" << (v.empty() ? " (none)" : "") << "\n";
  for (const auto& x : v) out << "  " << x << "\n";
}

std::string opt(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "unlimited"; }

}  // namespace

void print_explain(std::ostream& out, const Evaluation& e) {
  const auto& ir = e.ir;
  out << "ir_hash " << e.ir_hash << "\n"
      << "project " << ir.meta.project << "   agent " << (ir.meta.agent.empty() ? "(none)" : ir.meta.agent) << "\n\n"
      << "layers (weakest first):\n";
  for (const auto& l : e.layers) {
    if (!l.exists) continue;
    out << "  " << (l.applies ? "[x] " : "[ ] ") << l.tier << "  " << l.file << approval(l.approval)
        << signature(l.signature) << (l.immutable ? ", IMMUTABLE" : "")
        << (l.condition.empty() ? "" : "  when: " + l.condition) << "\n";
  }
  out << "\n";
  list(out, "write", ir.fs.write_roots);
  list(out, "read", ir.fs.read_roots);
  out << "deny:" << (ir.fs.deny.empty() ? " (none)" : "") << "\n";
  for (const auto& d : ir.fs.deny) out << "  " << d.path << " (" << to_string(d.kind) << ")\n";
  out << "deny write:" << (ir.fs.deny_write.empty() ? " (none)" : "") << "\n";
  for (const auto& d : ir.fs.deny_write) out << "  " << d.path << " (" << to_string(d.kind) << ")\n";
  out << "private /tmp: " << (ir.fs.tmp_isolated ? "yes" : "no") << "\n\n"
      << "network: " << to_string(ir.egress.mode) << "\n";
  list(out, "domains", ir.egress.domains);
  for (const auto& [d, ports] : ir.egress.strict_ports) {
    out << "  " << d << " ports";
    for (int p : ports) out << " " << p;
    out << "\n";
  }
  if (!ir.egress.cidr.empty()) list(out, "cidr", ir.egress.cidr);
  if (!ir.egress.unix_socket_files.empty()) list(out, "unix sockets", ir.egress.unix_socket_files);
  out << "\n";
  list(out, "environment passed", ir.env.passed_names);
  out << "environment set:\n";
  for (const auto& [k, v] : ir.env.set) out << "  " << k << "=" << v << "\n";
  out << "\nlimits: cpu " << opt(ir.resources.cpu_seconds) << " s, memory " << opt(ir.resources.memory_bytes)
      << " B, processes " << opt(ir.resources.processes) << ", open files " << opt(ir.resources.open_files)
      << ", file size " << opt(ir.resources.file_size_bytes) << " B, wall " << opt(ir.resources.wall_time_secs) << " s\n";
  if (!ir.taint.empty()) list(out, "\nTAINTED", ir.taint);
  if (!ir.warnings.empty()) list(out, "\nwarnings", ir.warnings);
  if (!e.lint.empty()) {
    out << "\nlint:\n";
    for (const auto& f : e.lint) out << "  " << f.rule << ": " << f.message << "\n";
  }
}

void print_why(std::ostream& out, const WhyAnswer& w) {
  out << w.subject << ": " << (w.allowed ? "ALLOWED" : "DENIED");
  if (w.kind == "path") out << " (access: " << w.access << ")";
  out << "\n  " << w.reason << "\n";
  if (!w.tier.empty()) out << "  decided by tier " << w.tier << (w.file.empty() ? "" : ", " + w.file) << "\n";
  if (!w.rule.empty()) out << "  rule " << w.rule << "\n";
}

void print_adds(std::ostream& out, const nlohmann::json& adds) {
  if (adds.empty()) {
    out << "  (adds nothing)\n";
    return;
  }
  for (auto it = adds.begin(); it != adds.end(); ++it) out << "  " << it.key() << ": " << it.value().dump() << "\n";
}

}  // namespace paddock::cli
