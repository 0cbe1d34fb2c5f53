# The Debian package: `cmake --build build --target package` makes
# lectern_<version>_amd64.deb (cpack) from the install rules here and in the
# subdirectories, in Debian's layout under /usr:
#
#   bin/lectern                              stripped (CPACK_STRIP_FILES)
#   share/lectern/themes/                    the themes' and site.css's sources
#   share/lectern/demo.git                   the TUI demo's repository (a bare
#                                            git repo of README.md and docs/)
#   share/lectern/lectern-names.sh           names for the completions
#   share/man/man1, man5                     man/ (scdoc, gzipped)
#   share/bash-completion/completions/lectern, share/zsh/vendor-completions/_lectern
#   lib/systemd/user/lectern.service         packaging/systemd/
#   share/doc/lectern/                       copyright, changelog.gz, README.md,
#                                            docs/*.md, examples/lectern.conf.sample
#
# Depends: what dpkg-shlibdeps finds for the binary, plus the programs builds
# run; the documentation generators are Recommends. lintian on the result
# reports no errors (tests/package/test_install.sh checks).
set(LEC_PKG ${PROJECT_SOURCE_DIR}/packaging)
set(LEC_MAINTAINER
  "Lectern maintainers <maintainers@users.noreply.a-seed-c730195e.example>")

install(FILES ${PROJECT_SOURCE_DIR}/themes/site.css DESTINATION share/lectern/themes)
install(FILES ${LEC_PKG}/completion/lectern.bash
  DESTINATION share/bash-completion/completions RENAME lectern)
install(FILES ${LEC_PKG}/completion/lectern.zsh
  DESTINATION share/zsh/vendor-completions RENAME _lectern)
# Both completions run it to list project, version and context names.
install(PROGRAMS ${LEC_PKG}/completion/lectern-names.sh DESTINATION share/lectern)
install(FILES ${LEC_PKG}/systemd/lectern.service DESTINATION lib/systemd/user)

# /usr/share/doc/lectern: what Debian requires (copyright, a changelog
# compressed with gzip -9n) and the documentation.
set(LEC_CHANGELOG ${CMAKE_BINARY_DIR}/packaging/changelog)
configure_file(${LEC_PKG}/debian/changelog.in ${LEC_CHANGELOG} @ONLY)
add_custom_command(OUTPUT ${LEC_CHANGELOG}.gz
  COMMAND gzip -9n -c ${LEC_CHANGELOG} > ${LEC_CHANGELOG}.gz
  DEPENDS ${LEC_CHANGELOG}
  COMMENT "Compressing the package's changelog")

# The TUI demo's repository: a bare git repository holding README.md and
# docs/ as one commit, so an installed lectern imports its own docs through
# the engine's ordinary git import (packaging/demo-repo.sh).
set(LEC_DEMO_REPO ${CMAKE_BINARY_DIR}/packaging/demo.git)
file(GLOB LEC_DEMO_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
add_custom_command(OUTPUT ${LEC_DEMO_REPO}/HEAD
  COMMAND sh ${LEC_PKG}/demo-repo.sh ${PROJECT_SOURCE_DIR} ${LEC_DEMO_REPO}
          ${LEC_VERSION_DATE}
  DEPENDS ${LEC_PKG}/demo-repo.sh ${PROJECT_SOURCE_DIR}/README.md ${LEC_DEMO_DOCS}
  COMMENT "Making the demo repository")
add_custom_target(lec_package_files ALL
  DEPENDS ${LEC_CHANGELOG}.gz ${LEC_DEMO_REPO}/HEAD)
install(DIRECTORY ${LEC_DEMO_REPO} DESTINATION share/lectern)

install(FILES ${LEC_PKG}/debian/copyright ${LEC_CHANGELOG}.gz
  ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/lectern)
install(FILES ${LEC_DEMO_DOCS} DESTINATION share/doc/lectern/docs)
install(FILES ${LEC_PKG}/lectern.conf.sample DESTINATION share/doc/lectern/examples)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME lectern)
set(CPACK_PACKAGE_VERSION ${LEC_VERSION})
set(CPACK_PACKAGE_CONTACT ${LEC_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "documentation workstation: local docs hosting, previews, TUI and CLI")
# The extended description; CPack puts the summary above it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "Lectern imports git repositories, builds their documentation (Sphinx,
MkDocs or a built-in Markdown builder) in a sandbox, indexes it for search
and serves the hosted documentation service's API and the built pages on
localhost. Its terminal UI and command line manage that engine or a remote
instance of the hosted service, and preview a working tree as it is
written.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Builds run in bubblewrap, with the project's Python dependencies in a venv.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "bubblewrap, python3, python3-venv")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
  "python3-sphinx, mkdocs, python3-pip, python3-setuptools, python3-wheel")
# Sphinx projects' PDF downloads: latexmk and the LaTeX Sphinx's builder
# uses (packaging/deps.sh says which and why).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
  "latexmk, texlive-latex-recommended, texlive-latex-extra, texlive-fonts-recommended, tex-gyre")
set(CPACK_STRIP_FILES ON)
# Whatever the builder's umask: directories 0755, as Debian expects.
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
  OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
  WORLD_READ WORLD_EXECUTE)
include(CPack)
