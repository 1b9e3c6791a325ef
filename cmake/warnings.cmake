# Warnings for our own targets (not for generated or third-party headers).
function(microarena_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(MICROARENA_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
