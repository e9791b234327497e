// The spectra engine's factory (spectra_engine.hpp) over every backend present: the CPU engine is the
// Sampler::entries path of ensembles.hpp trial by trial (bytes), the CUDA engine exists only where the
// CUDA backend can run, and elsewhere the factory refuses with the one message naming --backend.
#include <cmath>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "device_harness.hpp"
#include "moelab/core/stream_tags.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/spectra_engine.hpp"

namespace sp = moelab::spectra;
using moelab::Backend;

TEST_CASE("the CPU spectra engine is the Sampler::entries path, trial by trial", "[spectra][backend]") {
  const auto engine = sp::make_spectra_engine(Backend::cpu);
  REQUIRE(engine->backend() == Backend::cpu);
  CHECK(engine->concurrent_calls());
  const std::vector<double> ell{3.0};
  for (const auto law : {sp::EntryLaw::gaussian, sp::EntryLaw::rademacher}) {
    for (const auto& [M, N] : {std::pair{12, 20}, std::pair{20, 12}}) {
      CAPTURE(sp::entry_law_name(law), M, N);
      const auto ev = engine->sample_covariance_eigenvalues(M, N, ell, 1.5, law, 7, 30, 3);
      const auto Y = engine->matrices(M, N, ell, 1.5, law, 7, 30, 3);
      REQUIRE(ev.size() == 3);
      REQUIRE(Y.size() == 3);
      for (std::uint64_t t = 0; t < 3; ++t) {
        CHECK(ev[t] == sp::sample_covariance_eigenvalues(M, N, ell, 1.5, law, 7, 30 + t, sp::Sampler::entries));
        // The matrices are the spiked factor: their Gram eigenvalues are the engine's, up to the solver.
        const Eigen::MatrixXd S = Y[t] * Y[t].transpose();
        const Eigen::VectorXd w = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S, Eigen::EigenvaluesOnly).eigenvalues();
        CHECK(moelab::test::max_abs_difference(w.cwiseMax(0.0), ev[t]) <= 1e-12 * (1.0 + ev[t].maxCoeff()));
      }
      // Control: the next trial is another matrix.
      CHECK(moelab::test::max_abs_difference(Y[0], Y[1]) > 0.1);
    }
  }
  Eigen::VectorXd sv2(1);
  sv2 << 9.0;
  CHECK(engine->info_plus_noise_eigenvalues(15, 25, sv2, 1.0, sp::EntryLaw::gaussian, 2, 5) ==
        sp::info_plus_noise_eigenvalues(15, 25, sv2, 1.0, sp::EntryLaw::gaussian, 2, 5, sp::Sampler::entries));
}

TEST_CASE("make_spectra_engine refuses the cuda backend where CUDA cannot run, naming --backend", "[spectra][backend]") {
  if (moelab::test::backend_present(Backend::cuda)) {
    CHECK(sp::make_spectra_engine(Backend::cuda)->backend() == Backend::cuda);
    return;
  }
  CHECK_THROWS_WITH(sp::make_spectra_engine(Backend::cuda),
                    Catch::Matchers::Contains("make_spectra_engine(cuda)") && Catch::Matchers::Contains("--backend cpu"));
}
