/// @file
/// The library's exceptions. Every message states the rule that was broken and the offending value
/// (and, for I/O, the path and the system's reason), so the CLI can print it as one line.
/// A failed identity in verify is data (IdentityResult::check), never an exception.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "rope/core/message.hpp"

namespace rope {

/// Base of every error the library throws: a message (an id and its values, core/message.hpp), which a
/// front end shows in its language, or a finished English text (what()).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
  explicit Error(const char* what) : std::runtime_error(what) {}
  explicit Error(Message message)
      : std::runtime_error(message.en), message_(std::make_shared<const Message>(std::move(message))) {}

  /// The message as the library stated it, or nullptr for an error built from finished text.
  const Message* message() const { return message_.get(); }

 private:
  std::shared_ptr<const Message> message_;
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
