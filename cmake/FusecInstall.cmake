# Install rules and the exported CMake package (see fusecConfig.cmake.in).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FUSEC_INSTALL_INCLUDE ${CMAKE_INSTALL_INCLUDEDIR}/fusec)
set(FUSEC_INSTALL_CMAKE ${CMAKE_INSTALL_LIBDIR}/cmake/fusec)

set(fusec_exported fusec_support fusec_runtime)
set_target_properties(fusec_support PROPERTIES EXPORT_NAME support)
set_target_properties(fusec_runtime PROPERTIES EXPORT_NAME runtime)
if(FUSEC_BUILD_COMPILER)
  list(APPEND fusec_exported fusec_ir fusec_config fusec_passes fusec_codegen fusec_compiler)
  foreach(component ir config passes codegen compiler)
    set_target_properties(fusec_${component} PROPERTIES EXPORT_NAME ${component})
  endforeach()
endif()
# Installed headers keep the source layout under include/fusec, so their own
# includes ("ir/FuseOps.h") resolve; <fusec/fusec.h> resolves through include/.
foreach(target ${fusec_exported})
  target_include_directories(${target} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    $<INSTALL_INTERFACE:${FUSEC_INSTALL_INCLUDE}>)
  # Libraries of a sanitized build (FUSEC_SANITIZE) call the sanitizer
  # runtimes, so whatever links them must link those runtimes too.
  if(FUSEC_SANITIZE)
    target_link_options(${target} INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
  endif()
endforeach()

install(TARGETS ${fusec_exported} EXPORT fusecTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT fusecTargets NAMESPACE fusec:: DESTINATION ${FUSEC_INSTALL_CMAKE})

set(fusec_tools fuserun)
if(FUSEC_BUILD_COMPILER)
  list(APPEND fusec_tools fusec fusec-opt)
endif()
install(TARGETS ${fusec_tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers: the public entry points under their public names, and every
# library header (plus generated .inc files) in the source layout.
install(FILES runtime/RuntimeApi.h DESTINATION ${FUSEC_INSTALL_INCLUDE} RENAME runtime.h)
install(FILES runtime/c_api/runtime_c.h DESTINATION ${FUSEC_INSTALL_INCLUDE})
foreach(dir support runtime)
  install(DIRECTORY ${dir} DESTINATION ${FUSEC_INSTALL_INCLUDE} FILES_MATCHING PATTERN "*.h")
endforeach()
if(FUSEC_BUILD_COMPILER)
  install(FILES compiler/fusec.h DESTINATION ${FUSEC_INSTALL_INCLUDE})
  foreach(dir ir config passes codegen compiler)
    install(DIRECTORY ${dir} DESTINATION ${FUSEC_INSTALL_INCLUDE} FILES_MATCHING PATTERN "*.h"
            PATTERN "emulation" EXCLUDE)
    install(DIRECTORY ${FUSEC_BINARY_DIR}/${dir} DESTINATION ${FUSEC_INSTALL_INCLUDE}
            FILES_MATCHING PATTERN "*.h.inc" PATTERN "*.h" PATTERN "CMakeFiles" EXCLUDE)
  endforeach()
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/fusecConfig.cmake.in
  ${FUSEC_BINARY_DIR}/fusecConfig.cmake INSTALL_DESTINATION ${FUSEC_INSTALL_CMAKE})
write_basic_package_version_file(${FUSEC_BINARY_DIR}/fusecConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${FUSEC_BINARY_DIR}/fusecConfig.cmake ${FUSEC_BINARY_DIR}/fusecConfigVersion.cmake
  DESTINATION ${FUSEC_INSTALL_CMAKE})
