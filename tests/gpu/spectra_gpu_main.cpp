// The device spectra engine (make_spectra_engine(Backend::cuda): kernels/spectra_eigen.cu) against the
// CPU reference's Sampler::entries path (the CPU engine's functions): the same matrices entry by entry (up to the Box-Muller
// rounding of CUDA's log/sin/cos against glibc's), and the same eigenvalues up to the eigensolvers'
// backward errors, for every eigenvalue method, both Gram orientations, all entry laws, spikes, and
// one large information-plus-noise spectrum. Exit code 77 (skipped) without a CUDA build or a usable
// device; MOELAB_REQUIRE_GPU=1 makes that a failure (tests/gpu/gpu_main.hpp).
#include "moelab/config.hpp"
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "device_harness.hpp"
#include "gpu_main.hpp"
#include "moelab/core/stream_tags.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/spectra_engine.hpp"

#if MOELAB_HAVE_CUDA
namespace sp = moelab::spectra;

namespace {
double max_abs_diff(const Eigen::VectorXd& a, const Eigen::VectorXd& b) { return moelab::test::max_abs_difference(a, b); }
/// The device engine with the given eigensolver (the factory; the gate guarantees a usable device).
std::unique_ptr<sp::SpectraEngine> device(sp::DeviceEigenMethod method = sp::DeviceEigenMethod::automatic) {
  return sp::make_spectra_engine(moelab::Backend::cuda, method);
}
}  // namespace

TEST_CASE("device matrices equal the CPU's iid matrices entry by entry", "[gpu][spectra]") {
  // 1e-12 absolute on entries of size < 9 sqrt(sigma2 / N): CUDA's and glibc's log/sin/cos differ by
  // 1-2 ulp (CUDA Programming Guide, Mathematical Functions), FMA contraction by 1 ulp more.
  const auto law = GENERATE(sp::EntryLaw::gaussian, sp::EntryLaw::rademacher, sp::EntryLaw::uniform);
  const int M = 37, N = 51;
  std::vector<double> ell{4.0};
  const auto engines = moelab::test::both_backends([](moelab::Backend b) { return sp::make_spectra_engine(b); });
  const auto dev = engines.device->matrices(M, N, ell, 2.0, law, 5, 9, 3);
  const auto ref = engines.cpu->matrices(M, N, ell, 2.0, law, 5, 9, 3);
  for (int t = 0; t < 3; ++t) {
    Eigen::MatrixXd cpu = sp::iid_matrix(M, N, law, 5, moelab::StreamTag::design_noise, 9 + static_cast<std::uint64_t>(t));
    cpu.row(0) *= 2.0;
    cpu *= std::sqrt(2.0 / N);
    CHECK(moelab::test::max_abs_difference(ref[static_cast<std::size_t>(t)], cpu) == 0.0);  // the CPU engine's matrices are these
    CHECK(moelab::test::max_abs_difference(dev[static_cast<std::size_t>(t)], cpu) < 1e-12);
  }
}

TEST_CASE("device batched eigenvalues equal the CPU's Sampler::entries eigenvalues", "[gpu][spectra]") {
  // Both eigensolvers are backward stable: |delta lambda| <= c n eps |G| (Weyl), c of order 10, so
  // 1e-10 (1 + lambda_max) at n <= 300. Every method where it applies; 50 trials from an offset.
  struct Case {
    int M, N;
    sp::EntryLaw law;
    sp::DeviceEigenMethod method;
  };
  const Case c = GENERATE(Case{20, 50, sp::EntryLaw::gaussian, sp::DeviceEigenMethod::jacobi_batched},
                          Case{32, 32, sp::EntryLaw::rademacher, sp::DeviceEigenMethod::automatic},
                          Case{40, 25, sp::EntryLaw::gaussian, sp::DeviceEigenMethod::jacobi_batched},
                          Case{100, 200, sp::EntryLaw::gaussian, sp::DeviceEigenMethod::syevd_loop},
                          Case{100, 200, sp::EntryLaw::uniform, sp::DeviceEigenMethod::syev_batched},
                          Case{300, 150, sp::EntryLaw::gaussian, sp::DeviceEigenMethod::automatic},
                          Case{20, 50, sp::EntryLaw::gaussian, sp::DeviceEigenMethod::syev_batched});
  CAPTURE(c.M, c.N, sp::entry_law_name(c.law), static_cast<int>(c.method));
  const std::uint64_t seed = 12, first = 1000;
  const int count = 50;
  const auto dev = device(c.method)->sample_covariance_eigenvalues(c.M, c.N, {}, 1.0, c.law, seed, first, count);
  REQUIRE(dev.size() == static_cast<std::size_t>(count));
  double worst = 0.0;
  for (int t = 0; t < count; ++t) {
    const Eigen::VectorXd cpu =
        sp::sample_covariance_eigenvalues(c.M, c.N, {}, 1.0, c.law, seed, first + static_cast<std::uint64_t>(t), sp::Sampler::entries);
    worst = std::max(worst, max_abs_diff(dev[static_cast<std::size_t>(t)], cpu) / (1.0 + cpu.maxCoeff()));
  }
  INFO("worst scaled eigenvalue difference " << worst);
  CHECK(worst <= 1e-10);
  // Control: trial first + 1 against trial first must differ by far more.
  const Eigen::VectorXd next = sp::sample_covariance_eigenvalues(c.M, c.N, {}, 1.0, c.law, seed, first + 1, sp::Sampler::entries);
  CHECK(max_abs_diff(dev[0], next) > 1e-3);
}

TEST_CASE("one large information-plus-noise spectrum on the device equals the CPU's", "[gpu][spectra]") {
  // M = 1500, N = 3000 (cusolverDnXsyevd on the 1500 x 1500 Gram matrix); the CPU takes a few
  // seconds. Tolerance as above with n = 1500: 1e-9 (1 + lambda_max).
  const int M = 1500, N = 3000;
  Eigen::VectorXd sv2(3);
  sv2 << 16.0, 9.0, 4.0;
  const auto t0 = std::chrono::steady_clock::now();
  const Eigen::VectorXd dev = device()->info_plus_noise_eigenvalues(M, N, sv2, 1.0, sp::EntryLaw::gaussian, 3, 0);
  const auto t1 = std::chrono::steady_clock::now();
  const Eigen::VectorXd cpu = sp::info_plus_noise_eigenvalues(M, N, sv2, 1.0, sp::EntryLaw::gaussian, 3, 0, sp::Sampler::entries);
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("info-plus-noise %d x %d: device %.3f s, CPU %.3f s\n", M, N, std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count());
  REQUIRE(dev.size() == cpu.size());
  CHECK(max_abs_diff(dev, cpu) <= 1e-9 * (1.0 + cpu(0)));
  // Control: another trial's top eigenvalue differs by more than the tolerance.
  CHECK(std::abs(device()->info_plus_noise_eigenvalues(M, N, sv2, 1.0, sp::EntryLaw::gaussian, 3, 1)(0) - cpu(0)) > 1e-6);
}

TEST_CASE("the device spectra refuse bad input", "[gpu][spectra]") {
  CHECK_THROWS(device(sp::DeviceEigenMethod::jacobi_batched)->sample_covariance_eigenvalues(40, 50, {}, 1.0, sp::EntryLaw::gaussian, 1, 0,
                                                                                            2));  // n = 40 > 32
  CHECK_THROWS(device()->sample_covariance_eigenvalues(10, 20, {}, -1.0, sp::EntryLaw::gaussian, 1, 0, 2));
}
#endif  // MOELAB_HAVE_CUDA
