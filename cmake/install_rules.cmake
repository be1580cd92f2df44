# What `cmake --install BUILD --prefix P` installs, and what the .deb holds (packaging/
# includes this file too, with the binary a build made). Before including it, set:
#   FRAMEPIPE_INSTALL_BINARY  the framepipe program (a path, or $<TARGET_FILE:framepipe>)
#   FRAMEPIPE_CLI_DOCS_DIR    the folder holding framepipe.1.gz and framepipe.bash-completion
#                             (written from the program's own options: cmake/cli_docs.cmake)
# Paths come from GNUInstallDirs and from systemd's pkg-config file; none is written here.
# Files whose text names install paths (the unit, the man page's FILES) are configured with
# CMAKE_INSTALL_PREFIX as configured: configure with the prefix you install to.
include(GNUInstallDirs)

# A prefix of /usr is the system's own: configuration in /etc and state in /var (absolute:
# GNUInstallDirs' FULL paths), and systemd's files where systemd.pc says (/lib/systemd/system
# on Debian 12). Any other prefix P keeps everything beneath P (relative destinations), so
# that `cmake --install build --prefix P` writes nothing outside P.
set(_framepipe_system_prefix OFF)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(_framepipe_system_prefix ON)
endif()

function(_framepipe_destination out full relative)
  if(_framepipe_system_prefix)
    set(${out} "${full}" PARENT_SCOPE)
  else()
    set(${out} "${relative}" PARENT_SCOPE)
  endif()
endfunction()
_framepipe_destination(FRAMEPIPE_ETC_DIR "${CMAKE_INSTALL_FULL_SYSCONFDIR}" "${CMAKE_INSTALL_SYSCONFDIR}")

# systemd's directories for this prefix: its pkg-config variables with the prefix put in
# (root_prefix is empty for /usr: units live in /lib/systemd/system there). Without
# systemd.pc, systemd's own layout under the prefix.
find_package(PkgConfig QUIET)
function(_framepipe_systemd_dir out variable fallback)
  set(root_prefix "${CMAKE_INSTALL_PREFIX}")
  if(_framepipe_system_prefix)
    set(root_prefix "")
  endif()
  set(dir "${CMAKE_INSTALL_PREFIX}/${fallback}")
  if(PKG_CONFIG_FOUND)
    execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --define-variable=prefix=${CMAKE_INSTALL_PREFIX}
                            --define-variable=root_prefix=${root_prefix} --variable=${variable} systemd
                    OUTPUT_VARIABLE found OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed ERROR_QUIET)
    if(NOT failed AND found)
      set(dir "${found}")
    endif()
  endif()
  if(NOT _framepipe_system_prefix)
    file(RELATIVE_PATH dir "${CMAKE_INSTALL_PREFIX}" "${dir}")
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()
_framepipe_systemd_dir(FRAMEPIPE_SYSTEMD_UNIT_DIR systemdsystemunitdir lib/systemd/system)
_framepipe_systemd_dir(FRAMEPIPE_SYSUSERS_DIR sysusersdir lib/sysusers.d)
_framepipe_systemd_dir(FRAMEPIPE_TMPFILES_DIR tmpfilesdir lib/tmpfiles.d)

set(_framepipe_configured "${CMAKE_CURRENT_BINARY_DIR}/framepipe-install")
foreach(file framepipe.service framepipe.sysusers.conf framepipe.tmpfiles.conf framepipe.default)
  configure_file("${PROJECT_SOURCE_DIR}/deploy/systemd/${file}.in" "${_framepipe_configured}/${file}" @ONLY)
endforeach()

# The program.
install(PROGRAMS "${FRAMEPIPE_INSTALL_BINARY}" DESTINATION "${CMAKE_INSTALL_BINDIR}")

# The example pipelines (config/), and the stream list example.
file(GLOB _framepipe_examples "${PROJECT_SOURCE_DIR}/config/*.yaml")
install(FILES ${_framepipe_examples} DESTINATION "${CMAKE_INSTALL_DATADIR}/framepipe/pipelines")
install(FILES "${PROJECT_SOURCE_DIR}/config/streams/cams.yaml" DESTINATION "${CMAKE_INSTALL_DATADIR}/framepipe/streams")

# Documentation: the README, docs/ (its pages and the README's pictures), the alert rules.
install(FILES "${PROJECT_SOURCE_DIR}/README.md" "${PROJECT_SOURCE_DIR}/deploy/prometheus/framepipe-alerts.yml"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}")
file(GLOB _framepipe_doc_pages "${PROJECT_SOURCE_DIR}/docs/*.md")
install(FILES ${_framepipe_doc_pages} DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/images" DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs")

# The man page and bash completion, written from the program's own options.
install(FILES "${FRAMEPIPE_CLI_DOCS_DIR}/framepipe.1.gz" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${FRAMEPIPE_CLI_DOCS_DIR}/framepipe.bash-completion"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions" RENAME framepipe)

# The service: unit, user, state directory, and its configuration (the .deb's conffiles:
# an upgrade never overwrites an operator's edits).
install(FILES "${_framepipe_configured}/framepipe.service" DESTINATION "${FRAMEPIPE_SYSTEMD_UNIT_DIR}")
install(FILES "${_framepipe_configured}/framepipe.sysusers.conf" DESTINATION "${FRAMEPIPE_SYSUSERS_DIR}"
        RENAME framepipe.conf)
install(FILES "${_framepipe_configured}/framepipe.tmpfiles.conf" DESTINATION "${FRAMEPIPE_TMPFILES_DIR}"
        RENAME framepipe.conf)
install(FILES "${_framepipe_configured}/framepipe.default" DESTINATION "${FRAMEPIPE_ETC_DIR}/default"
        RENAME framepipe)
install(FILES "${PROJECT_SOURCE_DIR}/deploy/systemd/streams.yaml" DESTINATION "${FRAMEPIPE_ETC_DIR}/framepipe")
install(FILES "${PROJECT_SOURCE_DIR}/config/serve_denoise.yaml" DESTINATION "${FRAMEPIPE_ETC_DIR}/framepipe/pipelines")
