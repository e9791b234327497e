// Which signal interrupted the run, and the exit status that says so (core/interrupt.hpp sets it).
#pragma once

#include <string>

namespace moelab {

/// The first interrupting signal (SIGINT or SIGTERM), 0 before any.
int interrupt_signal();
/// The exit status of an interrupted run: 128 + the signal, as a shell reports a job ended by it
/// (130 for SIGINT, 143 for SIGTERM); 130 when no signal was seen here.
int interrupt_exit_code();
/// "interrupted by SIGINT; nothing was written" (or SIGTERM).
std::string interrupt_message();
/// Marks this process interrupted by `sig` as if it had received it (an interrupt on another MPI
/// rank: every rank then stops and exits with the same code). No effect once a signal was seen.
void mark_interrupted(int sig);

}  // namespace moelab
