# nlohmann/json (Debian nlohmann-json3-dev): header only, needed by the runtime too.
find_package(nlohmann_json 3.10 REQUIRED)
