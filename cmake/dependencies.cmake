# Every dependency is a Debian package; tools/setup.sh installs them.
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFMPEG REQUIRED IMPORTED_TARGET
  libavformat libavcodec libavutil libswscale libavdevice)
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(Threads REQUIRED)
# framepipe serve: cpp-httplib (Debian ships a shared library with a pkg-config file) and
# prometheus-cpp's core (registry, metric families, the text serializer), through its
# pkg-config file: its CMake package also looks for civetweb and CURL (for the pull and push
# parts, which framepipe does not use) and would fail where those are absent (the GPU machine).
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
pkg_check_modules(PROMETHEUS_CPP REQUIRED IMPORTED_TARGET prometheus-cpp-core)
if(FRAMEPIPE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
# yaml-cpp 0.7's package names its target differently across distributions.
if(TARGET yaml-cpp::yaml-cpp)
  set(FRAMEPIPE_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(FRAMEPIPE_YAML_TARGET yaml-cpp)
endif()
