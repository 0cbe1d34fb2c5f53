# Builds one man page: SRC (scdoc) with @LEC_VERSION@ and, when KEYS and
# COMMANDS name files, @TUI_KEYS@ and @TUI_COMMANDS@ replaced, through
# SCDOC into OUT, gzipped as Debian wants man pages (-9, no name or time
# stamp, so builds are reproducible). Run by man/CMakeLists.txt at build
# time.
file(READ ${SRC} text)
string(REPLACE "@LEC_VERSION@" "${VERSION}" text "${text}")
if(KEYS)
  file(READ ${KEYS} keys)
  string(REPLACE "@TUI_KEYS@" "${keys}" text "${text}")
endif()
if(COMMANDS)
  file(READ ${COMMANDS} commands)
  string(REPLACE "@TUI_COMMANDS@" "${commands}" text "${text}")
endif()
string(REGEX REPLACE "\\.gz$" "" page ${OUT})
file(WRITE ${page}.scd "${text}")
execute_process(COMMAND ${SCDOC} INPUT_FILE ${page}.scd OUTPUT_FILE ${page}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scdoc failed on ${SRC}")
endif()
execute_process(COMMAND gzip -9n -c ${page} OUTPUT_FILE ${OUT}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip failed on ${page}")
endif()
