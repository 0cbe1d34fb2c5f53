# Writes OUT, a C file holding the file IN as the NUL-terminated byte array
# NAME and its length NAME_len (without the NUL). Run at build time: the
# docs host serves the addons' script (src/server/addons/addons.js) from
# the binary, so an installed lectern needs no files beside it.
file(READ ${IN} hex HEX)
file(SIZE ${IN} size)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
get_filename_component(source ${IN} NAME)
file(WRITE ${OUT} "/* Generated from ${source} by cmake/EmbedFile.cmake. */\n#include <stddef.h>\n\nextern const char ${NAME}[];\nextern const size_t ${NAME}_len;\nconst char ${NAME}[] = { ${bytes} 0 };\nconst size_t ${NAME}_len = ${size};\n")
