#!/bin/sh
# Cross-compiles the Windows helper with mingw (posix thread model) and checks that the result is
# a PE executable importing the AppContainer and Job APIs it applies. Exit 77 = skipped (CTest
# SKIP_RETURN_CODE) when the cross compiler is not installed.
# usage: cross_compile.sh SOURCE_DIR OUT_DIR NLOHMANN_INCLUDE_DIR
set -eu
src=$1 out=$2 nlohmann=$3
cxx=x86_64-w64-mingw32-g++-posix
objdump=x86_64-w64-mingw32-objdump
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "SKIP: $cxx not found (apt-get install g++-mingw-w64-x86-64 mingw-w64-x86-64-dev)"
  exit 77
fi
mkdir -p "$out/mingw-include"
# Only the header-only JSON library is shared with the host; no other host header is visible.
ln -sfn "$nlohmann/nlohmann" "$out/mingw-include/nlohmann"
"$cxx" -std=c++20 -municode -O2 -Wall -Wextra -Wshadow -Werror \
  -I "$src" -isystem "$out/mingw-include" \
  "$src"/helpers/windows/*.cpp "$src/backends/windows/windows_spec.cpp" "$src/engine/json_text.cpp" \
  -static -o "$out/paddock-helper.exe" -luserenv -ladvapi32 -lole32
head -c 2 "$out/paddock-helper.exe" | grep -q MZ || { echo "not a PE executable"; exit 1; }
imports=$("$objdump" -p "$out/paddock-helper.exe")
for f in CreateAppContainerProfile DeriveAppContainerSidFromAppContainerName \
         UpdateProcThreadAttribute CreateProcessW SetEntriesInAclW SetNamedSecurityInfoW \
         CreateJobObjectW SetInformationJobObject AssignProcessToJobObject; do
  echo "$imports" | grep -q "$f" || { echo "missing import: $f"; exit 1; }
done
echo "ok: $out/paddock-helper.exe"
