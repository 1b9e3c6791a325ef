# LayerOrderTest: builds each layer_order_* target (tests/layer_order/CMakeLists.txt).
# Every *_allowed target must compile; every *_includes_* target must fail
# because its header is not on the layer's include path.
list(LENGTH FORBIDDEN forbidden_count)
list(LENGTH ALLOWED allowed_count)
if(forbidden_count EQUAL 0 OR allowed_count EQUAL 0)
  message(FATAL_ERROR "no layer-order targets to build (allowed ${allowed_count}, forbidden ${forbidden_count})")
endif()
set(failures 0)
foreach(target IN LISTS ALLOWED)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(SEND_ERROR "${target}: a layer's own and declared headers do not compile:\n${output}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
foreach(target header IN ZIP_LISTS FORBIDDEN FORBIDDEN_HEADERS)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(FIND "${output}" "${header}: No such file or directory" not_found)
  if(result EQUAL 0)
    message(SEND_ERROR "${target}: including ${header} compiled, against the layer order")
    math(EXPR failures "${failures} + 1")
  elseif(not_found EQUAL -1)
    message(SEND_ERROR "${target}: failed, but not because ${header} is out of reach:\n${output}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} layer-order check(s) failed")
endif()
message(STATUS "layer order: ${allowed_count} layers compile with their own and declared headers; "
               "${forbidden_count} includes against the order fail to build")
