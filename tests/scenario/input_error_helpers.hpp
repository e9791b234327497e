// Test helper: run a callable that must throw moelab::InputError and return the error, so a test can
// check its full message, line and key.
#pragma once

#include <stdexcept>

#include <catch2/catch.hpp>

#include "moelab/core/error.hpp"

namespace moelab::test {

template <class F>
InputError expect_input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected moelab::InputError, nothing was thrown");
  throw std::logic_error("unreachable");
}

}  // namespace moelab::test
