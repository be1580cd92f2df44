# The .deb's control data (CPack's DEB generator), for packaging/CMakeLists.txt: its
# dependencies computed from the binary (dpkg-shlibdeps), the NVIDIA driver's libraries as
# Recommends (the CPU path runs without them; framepipe says what is missing when a GPU is
# asked for), the maintainer scripts (deploy/debian/) and the conffiles under /etc.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME framepipe)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
# /etc and /lib/systemd are outside the prefix: installed with DESTDIR, as they are.
set(CPACK_SET_DESTDIR ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcuda1 | libnvidia-compute, libnvcuvid1 | libnvidia-decode")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "ffmpeg")
set(CPACK_DEBIAN_PACKAGE_SECTION video)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "framepipe developers <framepipe@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "real-time video pipelines on NVIDIA GPUs, described in YAML")
# CPack writes the summary as the first line, then this, each line indented one space.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "framepipe runs a graph of stages (decode, luma histogram, mean smooth,
NL-means denoise, Laplacian-pyramid fusion, Zhang-Suen thinning, encode)
on a video file, an RTSP stream or a camera, keeping every frame in GPU
memory from the decoder to the encoder. Every stage also runs on the CPU.
.
framepipe serve runs streams added and removed over an HTTP API, with
Prometheus metrics and a status page. This package installs it as a
systemd service, not enabled: see the section Install of
/usr/share/doc/framepipe/README.md.")
set(_framepipe_debian "${CMAKE_CURRENT_BINARY_DIR}/debian")
# The maintainer scripts name systemd's directories as install_rules.cmake set them (prefix
# /usr: absolute paths).
foreach(script postinst prerm postrm)
  configure_file("${PROJECT_SOURCE_DIR}/deploy/debian/${script}.in" "${_framepipe_debian}/${script}" @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
file(WRITE "${_framepipe_debian}/conffiles"
  "${FRAMEPIPE_ETC_DIR}/default/framepipe\n${FRAMEPIPE_ETC_DIR}/framepipe/streams.yaml\n"
  "${FRAMEPIPE_ETC_DIR}/framepipe/pipelines/serve_denoise.yaml\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${_framepipe_debian}/postinst;${_framepipe_debian}/prerm;${_framepipe_debian}/postrm;${_framepipe_debian}/conffiles")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Debian's copyright file and changelog, where a package's documentation must have them.
install(FILES "${PROJECT_SOURCE_DIR}/deploy/debian/copyright" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
find_program(GZIP gzip REQUIRED)
execute_process(COMMAND "${GZIP}" -9n -c "${PROJECT_SOURCE_DIR}/deploy/debian/changelog"
                OUTPUT_FILE "${_framepipe_debian}/changelog.gz" COMMAND_ERROR_IS_FATAL ANY)
install(FILES "${_framepipe_debian}/changelog.gz" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
include(CPack)
