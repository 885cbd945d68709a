# nlohmann/json (Debian nlohmann-json3-dev): header only, needed by the runtime
# too. Where the system has no package for it (a bare GPU machine), a copy of
# its headers that test/gpu/copy-json-headers.sh put beside the sources, in
# third_party/nlohmann-json/include, is used instead.
find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  set(FUSEC_JSON_COPY ${CMAKE_CURRENT_LIST_DIR}/nlohmann-json/include)
  if(NOT EXISTS ${FUSEC_JSON_COPY}/nlohmann/json.hpp)
    message(FATAL_ERROR "fusec: nlohmann-json (>= 3.10) was not found: install it (Debian nlohmann-json3-dev), "
                        "or run test/gpu/copy-json-headers.sh on a machine that has it and carry "
                        "third_party/nlohmann-json/ to this one")
  endif()
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${FUSEC_JSON_COPY})
  message(STATUS "fusec: nlohmann-json from the copy in ${FUSEC_JSON_COPY}")
endif()
