/// @file
/// The exit codes of every rope command.
#pragma once

namespace rope::cli {

enum ExitCode : int {
  kOk = 0,             ///< success, also --help and --version
  kVerifyFailed = 1,   ///< a verification ran and an identity exceeded its tolerance
  kInvalidInput = 2,   ///< bad usage or an input that breaks a rule (rope::InvalidArgument)
  kIoError = 3,        ///< a file could not be read or written (rope::IoError)
  kInternalError = 4,  ///< anything else: a bug
  kInterrupted = 130,  ///< `rope verify` stopped by Ctrl-C after printing what it had (128 + SIGINT)
};

}  // namespace rope::cli
