# Writes OUT, a C file holding each THEMES_DIR/*.theme file as a
# NUL-terminated byte array, and the table PREFIX_builtin_themes (of
# struct PREFIX_builtin_theme, declared in HEADER) naming them by file name
# without ".theme", with its count PREFIX_builtin_theme_count. Run at build
# time: the TUI (ui/, PREFIX ui) and the dashboard (src/server/, PREFIX srv)
# compile the same themes in.
set(body "/* Generated from the themes directory by cmake/EmbedThemes.cmake. */\n")
string(APPEND body "#include \"${HEADER}\"\n\n")
file(GLOB THEMES ${THEMES_DIR}/*.theme)
set(table "")
set(i 0)
foreach(file ${THEMES})
  get_filename_component(name ${file} NAME_WE)
  file(READ ${file} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const char theme_${i}[] = { ${bytes} 0 };\n")
  string(APPEND table "\t{ \"${name}\", theme_${i} },\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "\nconst struct ${PREFIX}_builtin_theme ${PREFIX}_builtin_themes[] = {\n${table}};\n")
string(APPEND body "const size_t ${PREFIX}_builtin_theme_count = ${i};\n")
file(WRITE ${OUT} "${body}")
