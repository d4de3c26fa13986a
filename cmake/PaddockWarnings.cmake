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

# paddock_target(name): common settings for a Paddock target.
function(paddock_target name)
  target_link_libraries(${name} PRIVATE paddock_warnings)
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>")
endfunction()
