// The excess-risk engine's factory (excess_engine.hpp) over every backend present: the CPU engine is
// excess_trial / draw_training_set trial by trial (bytes), the CUDA engine exists only where the CUDA
// backend can run, and elsewhere the factory refuses with the one message naming --backend.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "device_harness.hpp"
#include "moelab/noisy/excess_engine.hpp"
#include "moelab/noisy/simulate.hpp"
#include "noisy/random_model.hpp"

namespace nz = moelab::noisy;
using moelab::Backend;

TEST_CASE("the CPU excess-risk engine is excess_trial and draw_training_set, trial by trial", "[noisy][backend]") {
  const nz::Model m = moelab::test::random_model(1, 3, 6);
  const auto engine = nz::make_excess_risk_engine(Backend::cpu);
  REQUIRE(engine->backend() == Backend::cpu);
  CHECK(engine->concurrent_calls());
  for (const auto a : {nz::Allocation::balanced, nz::Allocation::multinomial})
    for (const int n : {m.d() / 2 + 1, 3 * m.d()}) {
      CAPTURE(static_cast<int>(a), n);
      const std::uint64_t seed = 9, first = 4;
      const auto got = engine->trials(m, n, a, seed, first, 3);
      REQUIRE(got.size() == 3);
      std::vector<double> X, y;
      engine->training_sets(m, n, a, seed, first, 3, X, y);
      REQUIRE(X.size() == static_cast<std::size_t>(3 * n * m.d()));
      for (std::uint64_t t = 0; t < 3; ++t) {
        const auto want = nz::excess_trial(m, n, a, seed, first + t);
        // The same numbers, to the bit (field by field: the struct has padding).
        CHECK(got[t].dense == want.dense);
        CHECK(got[t].sparse == want.sparse);
        CHECK(got[t].dense_fallback == want.dense_fallback);
        CHECK(got[t].sparse_fallbacks == want.sparse_fallbacks);
        const auto ts = nz::draw_training_set(m, n, a, seed, first + t);
        CHECK(Eigen::Map<const Eigen::MatrixXd>(X.data() + t * n * m.d(), n, m.d()) == ts.xbar);
        CHECK(Eigen::Map<const Eigen::VectorXd>(y.data() + t * n, n) == ts.y);
      }
      // Control: another first trial gives other risks.
      CHECK(engine->trials(m, n, a, seed, first + 1, 1)[0].dense != got[0].dense);
    }
  CHECK(engine->trials(m, 5, nz::Allocation::balanced, 1, 0, 0).empty());
}

TEST_CASE("make_excess_risk_engine refuses the cuda backend where CUDA cannot run, naming --backend", "[noisy][backend]") {
  if (moelab::test::backend_present(Backend::cuda)) {
    const auto engine = nz::make_excess_risk_engine(Backend::cuda);
    CHECK(engine->backend() == Backend::cuda);
    CHECK_FALSE(engine->concurrent_calls());
    return;
  }
  CHECK_THROWS_WITH(nz::make_excess_risk_engine(Backend::cuda),
                    Catch::Matchers::Contains("make_excess_risk_engine(cuda)") && Catch::Matchers::Contains("--backend cpu"));
}
