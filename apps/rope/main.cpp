// The rope executable: everything is in rope::cli::run, so the tests can call it in-process.
#include <iostream>

#include "rope/cli/cli.hpp"
#include "rope/io/interrupt.hpp"

int main(int argc, char** argv) {
  rope::install_interrupt_cleanup();  // Ctrl-C leaves no temporary file behind
  return rope::cli::run(argc, argv, std::cout, std::cerr);
}
