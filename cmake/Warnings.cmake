# The one list of warnings for all of Lectern's code. lec_warnings(target)
# applies it; LEC_WERROR turns warnings into errors (on in CI).
set(LEC_WARNING_FLAGS
  -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
  -Wformat=2 -Wundef -Wwrite-strings -Wpointer-arith -Wcast-qual
  -Wold-style-definition -Wvla -Wimplicit-fallthrough)

function(lec_warnings target)
  target_compile_options(${target} PRIVATE ${LEC_WARNING_FLAGS})
  if(LEC_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
