# LLVM/MLIR 19 from Debian (llvm-19-dev libmlir-19-dev mlir-19-tools). Never
# fall back to the LLVM 14 that is also on Debian 12's PATH.
set(MLIR_DIR /usr/lib/llvm-19/lib/cmake/mlir CACHE PATH "MLIR 19 CMake package")
find_package(MLIR REQUIRED CONFIG)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "fusec needs LLVM/MLIR 19, found ${LLVM_PACKAGE_VERSION} (set MLIR_DIR)")
endif()
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
# lld links MLIR binaries ~4x faster than bfd (docs/developing.md).
find_program(FUSEC_LLD ld.lld)
if(FUSEC_LLD AND NOT LLVM_USE_LINKER)
  set(LLVM_USE_LINKER lld)
endif()

include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})
set(LLVM_EXTERNAL_LIT /usr/lib/llvm-19/build/utils/lit/lit.py)
set(FUSEC_FILECHECK_DIR /usr/lib/llvm-19/bin)
message(STATUS "fusec: LLVM/MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

