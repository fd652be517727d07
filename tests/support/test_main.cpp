// The one Catch2 main of every test program (compiled once, linked everywhere).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
