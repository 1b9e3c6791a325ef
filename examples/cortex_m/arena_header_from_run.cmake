# Writes arena_config.h (kTensorArenaSize) from `microarena run MODEL --json`:
# the exact minimum arena measured on the host.
#   cmake -DCLI=... -DMODEL=... -DOUTPUT=.../arena_config.h -P arena_header_from_run.cmake
get_filename_component(output_dir ${OUTPUT} DIRECTORY)
execute_process(COMMAND ${CLI} run ${MODEL} --json --output-dir ${output_dir}
                OUTPUT_VARIABLE json RESULT_VARIABLE status ERROR_VARIABLE error)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "microarena run ${MODEL} failed: ${error}")
endif()
string(JSON used GET "${json}" arena_used_bytes)
file(WRITE ${OUTPUT} "// Generated from `microarena run --json` on the host; do not edit.\n#pragma once\n\n#include <cstddef>\n\nconstexpr size_t kTensorArenaSize = ${used};\n")
