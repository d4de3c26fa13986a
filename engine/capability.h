// The capability model shared by every backend (docs/capabilities.md): the fixed list of
// capability rows (IR field paths, some split by value or by where a deny lies), which of them a
// given IR requests, and the fail-closed reading of a capability vector.
#pragma once

#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/plan.h"
#include "engine/status.h"

namespace paddock {

// Every row a backend matrix must describe, in display order. A field whose IR value has no row
// (an unknown enum value, say) is requested under its own name and refused, never ignored.
const std::vector<std::string>& capability_fields();

// Puts a backend's rows in capability_fields() order (rows for other fields go last, sorted),
// so every matrix reads the same way in docs and the GUI.
std::vector<FieldCapability> in_field_order(std::vector<FieldCapability> rows);

// The rows this IR requests, in capability_fields() order (plus unknown ones at the end, sorted).
// Pure function of the IR: "inside a grant" is decided lexically on the canonical IR paths.
std::vector<std::string> requested_fields(const FrozenIr& ir);

// True when path equals root or lies below it ("/" contains everything).
bool path_inside(const std::string& path, const std::string& root);
// The same for Windows paths: case-insensitive, '\\' and '/' alike ("C:\\" contains "c:/x").
bool path_inside_windows(const std::string& path, const std::string& root);

// Picks the matrix rows for the requested fields. A field with no row becomes an unsupported
// row saying so, so that check() refuses it.
std::vector<FieldCapability> capability_vector(const std::vector<FieldCapability>& matrix,
                                               const std::vector<std::string>& fields);

// One sentence per partial row: "<field>: <loss>", sorted.
std::vector<std::string> losses_of(const std::vector<FieldCapability>& rows);

// One actionable line per row that cannot run as asked: unsupported, or needing something
// (admin, vm, host component, entitlement) that the launch path never provides.
std::vector<std::string> refusals_of(const std::string& backend,
                                     const std::vector<FieldCapability>& rows);

// Refusals that follow from the IR alone, whatever the backend: a resolve budget that was
// exceeded (the engine records it as a warning prefixed "resolve_budget_exceeded"), and
// allow_cidr mixed with a domain mode (it would bypass the broker's DNS pinning).
std::vector<std::string> ir_refusals(const FrozenIr& ir);

// A row is valid when partial carries a loss and unsupported says why.
Status validate_row(const FieldCapability& row);

// How every backend writes its matrix rows (`using namespace paddock::capability_rows;`).
namespace capability_rows {
FieldCapability exact(const std::string& field, const std::string& mechanism);
FieldCapability partial(const std::string& field, const std::string& mechanism, const std::string& loss);
FieldCapability unsupported(const std::string& field, const std::string& why, Needs needs = Needs::kNone);
// The three extension rows (extensions.linux, .macos, .windows): the one a backend applies itself
// is refused with `why` (no extension is implemented yet); the other two belong to other backends.
std::vector<FieldCapability> extension_rows(const std::string& own, const std::string& why);
// The Linux brokers' test seams (egress.debug_resolve, secrets.debug_upstreams,
// secrets.debug_upstream_ca), refused on every backend that has neither broker.
std::vector<FieldCapability> linux_test_seams_refused();
}  // namespace capability_rows

}  // namespace paddock
