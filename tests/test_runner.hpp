// The hook of the shared Catch2 runner (test_main.cpp): a gate runs before the tests and returns
// the process's exit code to stop there, or -1 to run them. At most one gate per executable,
// installed by a namespace-scope InstallRunnerGate (tests/gpu/gpu_main.hpp).
#pragma once

namespace moelab::test {

using RunnerGate = int (*)();

/// The installed gate (nullptr: none, every test runs).
RunnerGate& runner_gate();

struct InstallRunnerGate {
  explicit InstallRunnerGate(RunnerGate gate) { runner_gate() = gate; }
};

}  // namespace moelab::test
