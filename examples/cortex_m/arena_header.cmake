# Writes the firmware's arena header with whichever setup needs the smaller
# arena on the device: the plan as it is, or with kernel-approved overlap
# (`plan --overlap`). Overlap shares an output's bytes with an input that
# dies at the same op, but its records cost temp memory during
# AllocateTensors, so on models whose temp peak sets the arena it can lose.
# The header records the choice (kTensorArenaAllowOverlap) and the firmware
# builds its InterpreterOptions from it. PRECOMPUTED=ON: the header also
# carries the head's layout, planned on the host with the exact planner
# (`--precomputed-plan`), and the firmware allocates with it. TILED=ON: the
# figures, the plan and the header's segments are for the model run with the
# tiling it carries (`--tile`).
#
# cmake -DCLI=<microarena> -DMODEL=<.tflite> -DOUT=<header> -DPLAN_TEXT=<plan.txt> [-DPRECOMPUTED=ON] [-DTILED=ON]
#       -P arena_header.cmake
foreach(variable CLI MODEL OUT PLAN_TEXT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "arena_header.cmake needs -D${variable}=...")
  endif()
endforeach()

set(precomputed_flag "")
if(PRECOMPUTED)
  set(precomputed_flag "--precomputed-plan")
endif()
if(TILED)
  list(APPEND precomputed_flag "--tile")
endif()

function(write_header suffix flags result_variable)
  execute_process(
    COMMAND ${CLI} plan ${MODEL} --target cortex-m ${flags} ${precomputed_flag} --header ${OUT}${suffix}
    OUTPUT_FILE ${PLAN_TEXT}${suffix}
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "microarena plan ${flags} failed for ${MODEL} (exit ${status}); see ${PLAN_TEXT}${suffix}")
  endif()
  file(STRINGS ${OUT}${suffix} line REGEX "^constexpr size_t kTensorArenaSize = [0-9]+;")
  string(REGEX MATCH "[0-9]+" bytes "${line}")
  if(bytes STREQUAL "")
    message(FATAL_ERROR "no kTensorArenaSize in ${OUT}${suffix}")
  endif()
  set(${result_variable} ${bytes} PARENT_SCOPE)
endfunction()

write_header(".plain" "" plain_bytes)
write_header(".overlap" "--overlap" overlap_bytes)
if(overlap_bytes LESS plain_bytes)
  set(chosen ".overlap")
else()
  set(chosen ".plain")
endif()
file(RENAME ${OUT}${chosen} ${OUT})
file(RENAME ${PLAN_TEXT}${chosen} ${PLAN_TEXT})
message(STATUS "arena header: ${plain_bytes} B as planned, ${overlap_bytes} B with overlap; kept ${chosen}")
