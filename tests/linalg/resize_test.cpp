// resize_reused (linalg/resize.hpp): per-thread storage stays valid after a failed allocation.
#include <catch2/catch.hpp>

#include <new>

#include <Eigen/Dense>

#include "moelab/linalg/resize.hpp"

using namespace moelab;

// Eigen's resize frees the old block and keeps the freed pointer when the new allocation throws, so
// the matrix's destructor freed it again (a crash at exit after "out of memory"). 2^22 x 2^22 doubles
// (2^47 bytes) cannot be allocated on any x86-64 Linux; ASan aborts on such a request instead of
// returning null, so the test runs in the uninstrumented build only.
TEST_CASE("a reused matrix whose resize failed is empty and valid, and can be resized again", "[linalg][hardening]") {
#if defined(__SANITIZE_ADDRESS__)
  SUCCEED("skipped under ASan (an impossible allocation aborts there)");
#else
  const Eigen::Index huge = Eigen::Index{1} << 22;
  Eigen::MatrixXd m = Eigen::MatrixXd::Ones(64, 64);
  CHECK_THROWS_AS(resize_reused(m, huge, huge), std::bad_alloc);
  CHECK(m.size() == 0);
  resize_reused(m, 3, 2);
  m.setConstant(2.0);
  CHECK(m.sum() == 12.0);
  Eigen::VectorXd v = Eigen::VectorXd::Ones(64);
  CHECK_THROWS_AS(resize_reused(v, huge * huge), std::bad_alloc);
  CHECK(v.size() == 0);
  resize_reused(v, 5);
  v.setOnes();
  CHECK(v.sum() == 5.0);
  // The same size keeps the storage (and the values).
  const double* before = m.data();
  resize_reused(m, 3, 2);
  CHECK(m.data() == before);
  CHECK(m.sum() == 12.0);
#endif
}
