# Writes OUT, a C header defining the NUL-terminated byte array NAME with
# the bytes of IN: a file of another language (the warm generator's
# Python) kept as itself in the source tree and compiled into the engine.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* Generated from ${IN} by cmake/EmbedText.cmake. */\nstatic const char ${NAME}[] = { ${bytes} 0 };\n")
