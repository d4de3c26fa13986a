# cmake -DPROGRAM=<path> "-DARGS=a b" -DOUTPUT=<file> [-DGZIP=ON] -P generate.cmake
#
# Writes what PROGRAM ARGS prints to OUTPUT (gzip -9n'd with GZIP: no name or time stamp, so the
# same input gives the same bytes). The package build makes the man page and the completion
# scripts with it from `paddock __generate ...`. A failing program fails the build.
foreach(v PROGRAM OUTPUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "generate.cmake: ${v} is not set")
  endif()
endforeach()
separate_arguments(ARGS UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${PROGRAM} ${ARGS} OUTPUT_FILE "${OUTPUT}.tmp" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "generate.cmake: '${PROGRAM} ${ARGS}' failed (${rc})")
endif()
if(GZIP)
  execute_process(COMMAND gzip -9n -c "${OUTPUT}.tmp" OUTPUT_FILE "${OUTPUT}.gz.tmp" RESULT_VARIABLE rc)
  file(REMOVE "${OUTPUT}.tmp")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generate.cmake: gzip of ${OUTPUT} failed (${rc})")
  endif()
  file(RENAME "${OUTPUT}.gz.tmp" "${OUTPUT}")
else()
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
endif()
