// The one Catch2 runner of every test executable: the Catch2 implementation is compiled here once
// (library moelab_test_main). An executable may install a gate (test_runner.hpp) that decides,
// before any test runs, to exit instead: the GPU tests exit 77 (skipped) without a usable device.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test_runner.hpp"

int main(int argc, char* argv[]) {
  if (const moelab::test::RunnerGate gate = moelab::test::runner_gate()) {
    const int exit_code = gate();
    if (exit_code >= 0) return exit_code;
  }
  return Catch::Session().run(argc, argv);
}
