# LEC_SANITIZE=address,undefined builds everything with those sanitizers and
# makes UBSan findings fatal, so a test that trips one fails.
if(LEC_SANITIZE)
  set(LEC_SANITIZE_FLAGS -fsanitize=${LEC_SANITIZE} -fno-omit-frame-pointer)
  if(LEC_SANITIZE MATCHES "undefined")
    list(APPEND LEC_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${LEC_SANITIZE_FLAGS})
  add_link_options(${LEC_SANITIZE_FLAGS})
endif()
