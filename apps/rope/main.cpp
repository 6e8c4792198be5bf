// The rope executable: everything is in rope::cli::run, so the tests can call it in-process.
#include <fcntl.h>
#include <iostream>
#include <unistd.h>

#include "rope/cli/cli.hpp"
#include "rope/cli/output.hpp"
#include "rope/io/interrupt.hpp"

int main(int argc, char** argv) {
  // A closed standard descriptor (`rope ... >&-`) is held by /dev/null opened read-only, so that no
  // output file rope opens gets its number, and a write to it fails (EBADF) as it would have.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0) {
      const int held = ::open("/dev/null", O_RDONLY);
      if (held >= 0 && held != fd) ::close(held);  // cannot happen: open takes the lowest free number
    }
  }
  rope::install_interrupt_cleanup();  // a signal leaves no temporary file behind
  rope::cli::FdOutputBuffer stdout_buffer(STDOUT_FILENO);
  std::ostream out(&stdout_buffer);
  const int code = rope::cli::run(argc, argv, out, std::cerr);
  out.flush();
  return code;
}
