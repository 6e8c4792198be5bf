/// @file
/// Cleaning up when rope is interrupted. Temporary files (an output's temporary name before its rename,
/// a gnuplot script) are registered while they exist; on SIGINT, SIGTERM, SIGHUP or SIGQUIT the
/// handler installed by install_interrupt_cleanup() unlinks every registered file, kills the running
/// child process group (gnuplot), restores the default action and re-raises the signal, so the exit
/// status still says "killed by SIGINT". Everything the handler does is async-signal-safe (unlink,
/// kill, sigaction, raise on fixed-size static storage).
#pragma once

#include <sys/types.h>

namespace rope {

/// How many temporary files can be registered at once (a command writes at most a few).
inline constexpr int kMaxRegisteredTemps = 64;

/// Installs the handlers (idempotent). Called by the rope executable's main().
void install_interrupt_cleanup();

/// Registers `path` for removal on a signal. Returns a slot for unregister_temp, or -1 if the table
/// is full or the path too long (the file is then still removed on the normal paths, not on a signal).
int register_temp(const char* path) noexcept;
/// Forgets the slot (the file was renamed into place or removed). -1 is ignored.
void unregister_temp(int slot) noexcept;

/// The process group of a running child, killed on a signal; 0 for none.
void set_running_child(pid_t process_group) noexcept;

/// While deferred (a long computation that can stop and report, `rope verify`), the first SIGINT does
/// not end the process: it only sets the flag that interrupt_requested() returns, and the computation
/// stops at its next check. A second SIGINT, or any other signal, acts as always. Setting deferral
/// clears the flag.
void set_interrupt_deferred(bool deferred) noexcept;
bool interrupt_requested() noexcept;

}  // namespace rope
