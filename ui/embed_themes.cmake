# Writes OUT, a C file holding each THEMES_DIR/*.theme file as a
# NUL-terminated byte array, and the ui_builtin_themes table naming them
# by file name without ".theme". Run at build time by CMakeLists.txt.
set(body "/* Generated from the themes directory by ui/embed_themes.cmake. */\n")
string(APPEND body "#include \"theme.h\"\n\n")
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
string(APPEND body "\nconst struct ui_builtin_theme ui_builtin_themes[] = {\n${table}};\n")
string(APPEND body "const size_t ui_builtin_theme_count = ${i};\n")
file(WRITE ${OUT} "${body}")
