# Use ccache when it is installed: a rebuild with a warm cache takes seconds.
find_program(FUSEC_CCACHE ccache)
if(FUSEC_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${FUSEC_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${FUSEC_CCACHE})
endif()
