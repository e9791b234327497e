// The gate of the shared Catch2 runner (test_runner.hpp). Apart from test_main.cpp (which compiles
// the Catch2 implementation), the sources of moelab_test_main use the tests' precompiled header,
// so this file is also where it is built.
#include "test_runner.hpp"

namespace moelab::test {

RunnerGate& runner_gate() {
  static RunnerGate gate = nullptr;
  return gate;
}

}  // namespace moelab::test
