// Interrupt safety: SIGINT / SIGTERM set a flag that long loops poll (check_interrupted) and remove
// temporary files that have not yet been renamed onto their targets, so an interrupted run leaves
// every earlier output file intact and no partial one.
#pragma once

#include <string>

namespace moelab {

/// Installs the SIGINT/SIGTERM handlers (idempotent).
void install_interrupt_handlers();
/// True once SIGINT or SIGTERM was received.
bool interrupted();
/// Throws Interrupted (core/error.hpp; the CLI exits 130) when interrupted() is true. Polled between
/// sweep points, between the iterations of parallel_for and in RunContext::advance, so a run stops
/// within one trial (or one progress unit) of the signal.
void check_interrupted();

/// Registers a temporary file for removal on interrupt; release() once it has been renamed.
class TempFileGuard {
 public:
  explicit TempFileGuard(std::string path);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  void release();

 private:
  int slot_;
  std::string path_;
};

}  // namespace moelab
