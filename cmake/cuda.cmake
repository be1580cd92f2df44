# Decides FRAMEPIPE_WITH_CUDA from FRAMEPIPE_CUDA (AUTO|ON|OFF).
#
# Default architectures: sm_90 machine code plus compute_90 PTX, which keeps CI's build
# short and runs on Hopper natively (and on newer GPUs through the PTX). Change them with
#   cmake -DCMAKE_CUDA_ARCHITECTURES="80-real;90-real;90-virtual" ...
string(TOUPPER "${FRAMEPIPE_CUDA}" _fp_cuda)
set(FRAMEPIPE_WITH_CUDA OFF)
if(_fp_cuda STREQUAL "OFF")
  message(STATUS "framepipe: CUDA backend disabled (FRAMEPIPE_CUDA=OFF)")
else()
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
    endif()
    enable_language(CUDA)
    # CMake 3.25 predates nvcc's C++20 support: teach it the flag (nvcc >= 12 has it).
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    # The CUDA runtime is linked statically (CMake's own switch, CMAKE_CUDA_RUNTIME_LIBRARY,
    # picks it for the explicit links too): the binary then needs only the driver's libcuda,
    # which the NVIDIA container toolkit mounts into a container (deploy/Containerfile), and
    # no libcudart.so of the toolkit's version beside it. -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared
    # links libcudart.so instead.
    if(NOT CMAKE_CUDA_RUNTIME_LIBRARY)
      set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    endif()
    string(TOUPPER "${CMAKE_CUDA_RUNTIME_LIBRARY}" _fp_cudart)
    if(_fp_cudart STREQUAL "STATIC")
      set(FRAMEPIPE_CUDART CUDA::cudart_static)
    elseif(_fp_cudart STREQUAL "SHARED")
      set(FRAMEPIPE_CUDART CUDA::cudart)
    else()
      message(FATAL_ERROR "CMAKE_CUDA_RUNTIME_LIBRARY=${CMAKE_CUDA_RUNTIME_LIBRARY}: framepipe needs the CUDA runtime (Static or Shared)")
    endif()
    set(FRAMEPIPE_WITH_CUDA ON)
    message(STATUS "framepipe: CUDA backend enabled (${CMAKE_CUDA_COMPILER}, archs ${CMAKE_CUDA_ARCHITECTURES}, runtime ${CMAKE_CUDA_RUNTIME_LIBRARY})")
  elseif(_fp_cuda STREQUAL "ON")
    message(FATAL_ERROR "FRAMEPIPE_CUDA=ON but no CUDA compiler (nvcc) was found")
  else()
    message(STATUS "framepipe: nvcc not found, CUDA backend disabled")
  endif()
endif()
