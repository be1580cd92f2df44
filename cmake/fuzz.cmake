# FRAMEPIPE_FUZZ=ON: every library of the project is built for libFuzzer (coverage and
# comparison tracing, -fsanitize=fuzzer-no-link) with AddressSanitizer and
# UndefinedBehaviorSanitizer, and tests/fuzz builds the fuzz targets (-fsanitize=fuzzer).
# Clang only; the CUDA backend is left out (nvcc does not take these flags, and the targets
# exercise parsing and decoding, which run on the CPU). The asan preset (CMakePresets.json)
# is this build with the tests: tools/run-sanitizers.sh runs the test suite from it and
# tools/fuzz.sh the fuzz targets, so CI compiles the project once for both (issue 44).
if(NOT FRAMEPIPE_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "FRAMEPIPE_FUZZ=ON needs clang for C and C++ (libFuzzer), e.g. "
                      "-DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16")
endif()
if(FRAMEPIPE_WITH_CUDA)
  message(FATAL_ERROR "FRAMEPIPE_FUZZ=ON needs -DFRAMEPIPE_CUDA=OFF")
endif()
# UB is an error, not a warning: libFuzzer must see it as a crash and keep the input. Without
# UBSan's vptr check (dynamic types of casts), which costs about a third of the compile time of
# a template-heavy file, nor its null and alignment checks (most of the rest: a null pointer
# used is AddressSanitizer's SEGV, a crash all the same), as in the asan preset
# (tools/run-sanitizers.sh says what each cost); line tables only: reports keep file:line.
set(FRAMEPIPE_FUZZ_SANITIZERS -fsanitize=address,undefined -fno-sanitize=vptr,null,alignment -fno-sanitize-recover=all)
add_compile_options(-fsanitize=fuzzer-no-link ${FRAMEPIPE_FUZZ_SANITIZERS} -fno-omit-frame-pointer -gline-tables-only)
# Coverage where a fuzz target can lead, not in the CPU kernels nor the tests' own code.
configure_file(cmake/fuzz_coverage_ignore.txt.in "${PROJECT_BINARY_DIR}/fuzz_coverage_ignore.txt" @ONLY)
add_compile_options("-fsanitize-coverage-ignorelist=${PROJECT_BINARY_DIR}/fuzz_coverage_ignore.txt")
# Anything else linked in this build (the CLI, tests) needs the sanitizer runtimes too.
add_link_options(${FRAMEPIPE_FUZZ_SANITIZERS})
message(STATUS "framepipe: fuzz build (libFuzzer + ASan + UBSan)")
