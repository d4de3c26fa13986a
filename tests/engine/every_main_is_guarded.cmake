# Every program's main() (and wmain) hands its body to guarded_main (engine/main_guard.h), so an
# exception never escapes it: a new program without the guard fails this test.
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/app/*.cpp ${ROOT}/helpers/*.cpp ${ROOT}/backends/*.cpp
  ${ROOT}/platform/*.cpp ${ROOT}/engine/*.cpp)
set(bad "")
foreach(f ${sources})
  file(STRINGS ${ROOT}/${f} mains REGEX "^int w?main\\(")
  if(mains)
    file(STRINGS ${ROOT}/${f} guarded REGEX "return paddock::guarded_main\\(")
    if(NOT guarded)
      list(APPEND bad "${f}")
    endif()
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n" bad "${bad}")
  message(FATAL_ERROR "main() without paddock::guarded_main:\n${bad}")
endif()
