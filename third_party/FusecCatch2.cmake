# Catch2 v2 (Debian catch2). The main() lives in one object library so it is
# compiled once for all unit-test binaries.
find_package(Catch2 2 REQUIRED)
include(Catch)
