# What every Paddock target shares: warnings, the include root, and the build-speed settings
# docs/architecture.md ("Build") explains.

# Warnings for Paddock's own code (never applied to third-party headers).
add_library(paddock_warnings INTERFACE)
target_compile_options(paddock_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wswitch-enum -Werror=format-security -Werror
  -Wno-error=deprecated-declarations)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 false positives in libstdc++ headers at -O2 (std::variant / std::string copies).
  target_compile_options(paddock_warnings INTERFACE -Wno-maybe-uninitialized -Wno-restrict
    -Wno-array-bounds -Wno-stringop-overflow)
endif()

# The headers nearly every engine, backend, platform, broker and CLI file includes; each family
# of targets built with the same flags precompiles them once.
set(PADDOCK_PCH_HEADERS <filesystem> <map> <nlohmann/json.hpp> <optional> <string> <vector>)

# paddock_target(name): common settings for a Paddock target.
function(paddock_target name)
  target_link_libraries(${name} PRIVATE paddock_warnings)
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>")
  # AUTOMOC's mocs_compilation.cpp is empty when every moc output is included by its source (as
  # in every test): with the target's precompiled header forced in, it cost ~2.4 s each.
  set_source_files_properties("${CMAKE_CURRENT_BINARY_DIR}/${name}_autogen/mocs_compilation.cpp"
    TARGET_DIRECTORY ${name} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
endfunction()

# paddock_unity(name batch): compile the target's sources `batch` at a time as unity sources. Where
# every file instantiates the same header-only library code (CLI11 in the CLI, Asio in the broker),
# generating it once per batch instead of once per file saves most of the time; where a file's own
# code dominates (the engine, the helper) it saves nothing and is not used. A file-local name must
# then be unique within the target (the build fails on a clash: share the helper, or rename).
function(paddock_unity name batch)
  set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
endfunction()
