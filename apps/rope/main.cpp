// The rope executable: everything is in rope::cli::run, so the tests can call it in-process.
#include <iostream>

#include "rope/cli.hpp"

int main(int argc, char** argv) { return rope::cli::run(argc, argv, std::cout, std::cerr); }
