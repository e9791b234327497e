// The three error tiers (DESIGN.md, Conventions):
//   bad input      -> InputError (file, line, key, reason); the CLI maps it to exit code 2;
//   numerical outcome -> a status value returned by the routine (e.g. SolveStatus);
//   internal bug   -> MOELAB_ASSERT / MOELAB_EXPECT (std::logic_error), never thrown on device.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace moelab {

/// Bad user input: a scenario file, a command-line value, a data file.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, std::string key, std::string reason);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_, key_, reason_;
  int line_;
};

/// A run that could not complete (I/O failure); exit code 3.
class RuntimeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The run was stopped by SIGINT/SIGTERM (core/interrupt.hpp); nothing partial was written. The CLI
/// exits 130 (128 + SIGINT), as a shell does for a job stopped by Ctrl-C.
class Interrupted : public RuntimeFailure {
 public:
  using RuntimeFailure::RuntimeFailure;
};

/// `text` safe to print on a terminal: valid UTF-8 is kept, control characters and bytes that are
/// not valid UTF-8 are written as \xNN (a binary file's bytes must not reach the terminal raw).
std::string printable(const std::string& text);

/// Levenshtein distance between two names (for "did you mean" hints).
std::size_t edit_distance(const std::string& a, const std::string& b);
/// The candidate closest to `name` by edit_distance when it is at most `max_distance` away (a
/// misspelling), else "" (ties: the first candidate).
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates, std::size_t max_distance = 2);

[[noreturn]] void expectation_failed(const char* expr, const char* msg, const char* file, int line);

}  // namespace moelab

/// Precondition on arguments of library functions (programming errors, not user input).
#define MOELAB_EXPECT(cond, msg) \
  do { \
    if (!(cond)) ::moelab::expectation_failed(#cond, msg, __FILE__, __LINE__); \
  } while (0)
