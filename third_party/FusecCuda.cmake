# NVRTC from the CUDA toolkit. Optional: without it kernels are emitted but not
# compiled, and the build says so.
set(CUDAToolkit_ROOT /usr/local/cuda CACHE PATH "CUDA toolkit root")
find_package(CUDAToolkit QUIET)
if(TARGET CUDA::nvrtc)
  # CMake makes CUDA::nvrtc depend on the stub libcuda; binaries linked with it
  # would not start on a machine without a driver. NVRTC itself needs no driver.
  set_property(TARGET CUDA::nvrtc PROPERTY INTERFACE_LINK_LIBRARIES "")
  set(FUSEC_HAVE_NVRTC ON)
  message(STATUS "fusec: NVRTC found (${CUDAToolkit_VERSION}): kernels are compiled to PTX/CUBIN")
else()
  set(FUSEC_HAVE_NVRTC OFF)
  message(STATUS "fusec: NVRTC not found: kernel compilation is off")
endif()
