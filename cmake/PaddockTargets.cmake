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
