# Lectern's version, one string for `lectern --version` and the .deb:
# LEC_VERSION. From a git checkout it is the newest v* tag without the "v"
# (1.2.0), with "+git<date>.<hash>" after it when HEAD is past that tag,
# and "0.0~git<date>.<hash>" while the repository has no tag; dpkg wants a
# leading digit and sorts "~" before anything, so these order as the
# history does. Outside git (a source tarball) it is PROJECT_VERSION.
#
# LEC_VERSION_COMMIT and LEC_VERSION_DATE (RFC 2822, UTC) name the commit
# for the package's changelog: the commit's date, or now outside git.
#
# Computed at configure time; a new commit or a switched branch reruns the
# configure step (the ref files are configure dependencies), so the binary
# and the package never name an older commit.

function(lec_git out)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TZ=UTC git ${ARGN}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_QUIET
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0)
    set(${out} "${text}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

set(LEC_VERSION ${PROJECT_VERSION})
set(LEC_VERSION_COMMIT "unknown")
string(TIMESTAMP LEC_VERSION_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
find_program(LEC_GIT git)
if(LEC_GIT)
  lec_git(hash rev-parse --short=7 HEAD)
endif()
if(LEC_GIT AND hash)
  set(LEC_VERSION_COMMIT ${hash})
  lec_git(date log -1 --format=%cd --date=format-local:%Y%m%d HEAD)
  lec_git(LEC_VERSION_DATE log -1 --format=%cd
          "--date=format-local:%a, %d %b %Y %H:%M:%S +0000" HEAD)
  lec_git(tag describe --tags --abbrev=0 --match v[0-9]* HEAD)
  if(tag)
    string(REGEX REPLACE "^v" "" LEC_VERSION "${tag}")
    lec_git(tagged rev-parse --short=7 "${tag}^{commit}")
    if(NOT tagged STREQUAL hash)
      string(APPEND LEC_VERSION "+git${date}.${hash}")
    endif()
  else()
    set(LEC_VERSION "0.0~git${date}.${hash}")
  endif()

  # Reconfigure when HEAD moves: HEAD itself (a branch switch), the
  # branch's loose ref (a commit) and packed-refs (a gc, a fetch).
  lec_git(ref rev-parse --symbolic-full-name HEAD)
  foreach(name HEAD ${ref} packed-refs)
    lec_git(path rev-parse --path-format=absolute --git-path ${name})
    if(path AND EXISTS ${path})
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${path})
    endif()
  endforeach()
endif()
message(STATUS "Lectern version: ${LEC_VERSION}")
