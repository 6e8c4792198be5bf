/// @file
/// The library's exceptions. Every message states the rule that was broken and the offending value
/// (and, for I/O, the path and the system's reason), so the CLI can print it as one line.
/// A failed identity in verify is data (IdentityResult::check), never an exception.
#pragma once

#include <stdexcept>
#include <string>

namespace rope {

/// Base of every error the library throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An input that breaks a documented rule: odd dimension, base <= 1, a malformed number, ...
/// The CLI maps it to exit code 2.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A file that cannot be read or written, or an external program that cannot be run.
/// The CLI maps it to exit code 3.
class IoError : public Error {
 public:
  using Error::Error;
};

}  // namespace rope
