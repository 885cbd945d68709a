// The one translation unit that instantiates Catch2's main().
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
