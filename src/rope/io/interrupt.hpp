/// @file
/// Cleaning up when rope is killed by a signal. Temporary files (an output's temporary name before its
/// rename) are registered while they exist; on any of kCleanupSignals the handler installed by
/// install_interrupt_cleanup() first kills the running child process group (gnuplot) and reaps it, then
/// unlinks every registered file, restores the default action and re-raises the signal, so the exit
/// status still says "killed by SIGINT". Everything the handler does is async-signal-safe (kill,
/// waitpid, unlinkat, sigaction, raise on fixed-size static storage). SIGXFSZ is ignored: a write past
/// a file size limit then fails with EFBIG and is reported like a full disk. SIGKILL cannot be caught:
/// temporary files are anonymous until commit (rope/io/atomic_file.hpp), but one being renamed into
/// place at that moment stays (".rope-XXXXXX" beside its target);
/// gnuplot dies with rope (its parent-death signal, rope/io/child_process.hpp).
#pragma once

#include <csignal>
#include <sys/types.h>

namespace rope {

/// How many temporary files can be registered at once (a command writes at most a few).
inline constexpr int kMaxRegisteredTemps = 64;

/// The signals after which the temporary files are removed and gnuplot is stopped.
inline constexpr int kCleanupSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGPIPE, SIGALRM,
                                          SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF};

/// Installs the handlers and ignores SIGXFSZ (idempotent). Called by the rope executable's main().
void install_interrupt_cleanup();

/// Registers `path` for removal on a signal. Returns a slot for unregister_temp, or -1 if the table
/// is full or the path too long (the file is then still removed on the normal paths, not on a signal).
int register_temp(const char* path) noexcept;
/// The same for the file `name` in the directory open as `dirfd` (which must stay open while registered).
int register_temp_at(int dirfd, const char* name) noexcept;
/// The same for the directory `path`, removed on a signal after the registered files (those in it among them): it
/// must then be empty.
int register_temp_dir(const char* path) noexcept;
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
