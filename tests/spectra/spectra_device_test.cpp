// The device spectra path (kernels/spectra_eigen.cu, W3) emulated on the CPU step by step:
// matrix_kernel's per-thread draw (spectra/detail/matrix_draws_hd.hpp: one Philox block = two
// consecutive column-major entries, trials first .. first + T - 1 in batches of trials_per_batch),
// the strided Gram matrices of cuBLAS (Y Y' or Y' Y), and the wrapper's padding, against the CPU
// reference's Sampler::entries path (sample_covariance_eigenvalues, info_plus_noise_eigenvalues).
// The kernel itself runs only in tests/gpu/spectra_gpu_main.cpp, where a device exists. Poisoned
// buffers and the reverse thread loop: the common harness, tests/device_harness.hpp.
#include "moelab/spectra/detail/matrix_draws_hd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "device_harness.hpp"
#include "moelab/core/stream_tags.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/spectra/ensembles.hpp"

namespace sp = moelab::spectra;
namespace dv = moelab::spectra::device;

namespace {

/// matrix_kernel over trials first .. first + count - 1, in device batches of at most `per` trials
/// (each batch starting at first + done), into one M x N matrix per trial.
std::vector<Eigen::MatrixXd> emulated_matrices(int M, int N, sp::EntryLaw law, double sigma2, const std::vector<double>& ell,
                                               const Eigen::VectorXd& signal_sv2, std::uint64_t seed, std::uint64_t first, int count,
                                               int per) {
  std::vector<double> row_scale, signal;
  for (const double l : ell) row_scale.push_back(std::sqrt(l));
  for (Eigen::Index k = 0; k < signal_sv2.size(); ++k) signal.push_back(std::sqrt(signal_sv2(k)));
  dv::MatrixDraw d;
  d.M = M;
  d.N = N;
  d.law = static_cast<dv::Law>(static_cast<int>(law));
  d.seed = seed;
  d.scale = std::sqrt(sigma2 / N);
  d.row_scale = row_scale.data();
  d.row_scale_count = static_cast<int>(row_scale.size());
  d.signal_sv = signal.data();
  d.signal_count = static_cast<int>(signal.size());
  const std::uint64_t entries = static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(N), blocks = (entries + 1) / 2;
  std::vector<Eigen::MatrixXd> out;
  for (int done = 0; done < count;) {
    const int T = std::min(per, count - done);
    // The batch buffer, stride M N, poisoned: every entry must be written by its thread.
    std::vector<double> Y = moelab::test::poisoned<double>(entries * static_cast<std::uint64_t>(T));
    moelab::test::for_each_index(static_cast<std::int64_t>(blocks) * T, [&](std::int64_t i) {  // one thread per (trial, block)
      const auto e = static_cast<std::uint64_t>(i);
      const std::uint64_t t = e / blocks, blk = e % blocks;
      double x0, x1;
      dv::raw_entry_pair(d.law, d.seed, first + static_cast<std::uint64_t>(done) + t, blk, x0, x1);
      Y[t * entries + 2 * blk] = dv::entry_value(d, 2 * blk, x0);
      if (2 * blk + 1 < entries) Y[t * entries + 2 * blk + 1] = dv::entry_value(d, 2 * blk + 1, x1);
    });
    for (int t = 0; t < T; ++t) out.emplace_back(Eigen::Map<const Eigen::MatrixXd>(Y.data() + static_cast<std::uint64_t>(t) * entries, M, N));
    done += T;
  }
  return out;
}

/// The device's Gram (cuBLAS: Y Y' if M <= N, else Y' Y) and eigenvalues (here Eigen's solver, in
/// place of cuSOLVER), then the wrapper's padding to M ascending values with zeros first and clamping.
Eigen::VectorXd emulated_covariance_eigenvalues(const Eigen::MatrixXd& Y) {
  const int M = static_cast<int>(Y.rows()), N = static_cast<int>(Y.cols()), n = dv::gram_order(M, N);
  const Eigen::MatrixXd G = M <= N ? Eigen::MatrixXd(Y * Y.transpose()) : Eigen::MatrixXd(Y.transpose() * Y);
  const Eigen::VectorXd w = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(G, Eigen::EigenvaluesOnly).eigenvalues();
  Eigen::VectorXd e = Eigen::VectorXd::Zero(M);
  e.tail(n) = w.cwiseMax(0.0);
  return e;
}

double max_abs_diff(const Eigen::VectorXd& a, const Eigen::VectorXd& b) { return moelab::test::max_abs_difference(a, b); }

}  // namespace

TEST_CASE("device matrix draws are the CPU's iid matrices at the same addresses", "[spectra]") {
  // Odd M N (the last Philox pair half used), all three laws, trials batched 2 at a time from an
  // offset. Gaussian: the CPU's bulk Box-Muller (fill_normal_cpu) equals RandomStream::normal within
  // 2e-14 (its test); the entries here are scaled by sqrt(sigma2 / N) < 1, so 1e-13 bounds it.
  // Rademacher and uniform entries come from the same uniforms: equal up to the one rounding of the
  // scale product (1e-15).
  const auto law = GENERATE(sp::EntryLaw::gaussian, sp::EntryLaw::rademacher, sp::EntryLaw::uniform);
  const int M = 7, N = 13;
  const double sigma2 = 2.5;
  const std::uint64_t seed = 17, first = 5;
  const auto dev = emulated_matrices(M, N, law, sigma2, {}, Eigen::VectorXd(), seed, first, 5, 2);
  for (int t = 0; t < 5; ++t) {
    const Eigen::MatrixXd cpu =
        sp::iid_matrix(M, N, law, seed, moelab::StreamTag::design_noise, first + static_cast<std::uint64_t>(t)) * std::sqrt(sigma2 / N);
    CAPTURE(sp::entry_law_name(law), t);
    CHECK((dev[static_cast<std::size_t>(t)] - cpu).cwiseAbs().maxCoeff() < 1e-13);
  }
  // Control: trial t + 1's matrix is another matrix.
  const Eigen::MatrixXd next = sp::iid_matrix(M, N, law, seed, moelab::StreamTag::design_noise, first + 1) * std::sqrt(sigma2 / N);
  CHECK((dev[0] - next).cwiseAbs().maxCoeff() > 0.1);
}

TEST_CASE("the device spectra layout gives the CPU's Sampler::entries eigenvalues", "[spectra]") {
  // Eigenvalues of the emulated device Gram matrices against sample_covariance_eigenvalues(...,
  // Sampler::entries): the matrices agree to 1e-13 and both eigensolvers are backward stable, so the
  // eigenvalues agree to c n eps |G| (Weyl); 1e-11 (1 + lambda_max) leaves a factor > 10 at n <= 60.
  // Cases: M <= N (Y Y', syevjBatched-sized n <= 32 and larger), M > N (Y' Y plus M - N zeros),
  // non-Gaussian laws, a spiked covariance (row scales), and batches of 3 trials from an offset.
  struct Case {
    int M, N;
    sp::EntryLaw law;
    std::vector<double> ell;
  };
  const Case c = GENERATE(Case{20, 50, sp::EntryLaw::gaussian, {}}, Case{40, 30, sp::EntryLaw::gaussian, {}},
                          Case{60, 90, sp::EntryLaw::rademacher, {}}, Case{33, 33, sp::EntryLaw::uniform, {}},
                          Case{25, 60, sp::EntryLaw::gaussian, {4.0, 2.0}}, Case{45, 21, sp::EntryLaw::gaussian, {3.0}});
  CAPTURE(c.M, c.N, sp::entry_law_name(c.law), c.ell.size());
  const double sigma2 = 1.5;
  const std::uint64_t seed = 8, first = 11;
  const int count = 7;
  const auto dev = emulated_matrices(c.M, c.N, c.law, sigma2, c.ell, Eigen::VectorXd(), seed, first, count, 3);
  for (int t = 0; t < count; ++t) {
    const Eigen::VectorXd cpu =
        sp::sample_covariance_eigenvalues(c.M, c.N, c.ell, sigma2, c.law, seed, first + static_cast<std::uint64_t>(t), sp::Sampler::entries);
    const Eigen::VectorXd got = emulated_covariance_eigenvalues(dev[static_cast<std::size_t>(t)]);
    REQUIRE(got.size() == cpu.size());
    CHECK(max_abs_diff(got, cpu) <= 1e-11 * (1.0 + cpu.maxCoeff()));
  }
  // Control: the next trial's spectrum is far from this one's (at these sizes the largest eigenvalue
  // alone moves by about lambda_max / M^(2/3) > 0.01).
  const Eigen::VectorXd other =
      sp::sample_covariance_eigenvalues(c.M, c.N, c.ell, sigma2, c.law, seed, first + 1, sp::Sampler::entries);
  CHECK(max_abs_diff(emulated_covariance_eigenvalues(dev[0]), other) > 1e-3);
}

TEST_CASE("the device information-plus-noise matrix gives the CPU's Sampler::entries spectrum", "[spectra]") {
  // Sigma = sqrt(sigma2 / N) X + B, B with sqrt(signal_sv2) on the diagonal (Loubaton-Vallet), both
  // orientations; descending min(M, N) values as info_plus_noise_eigenvalues returns them.
  const int M = GENERATE(30, 70), N = 50;
  Eigen::VectorXd sv2(2);
  sv2 << 9.0, 4.0;
  const double sigma2 = 1.0;
  const std::uint64_t seed = 4, trial = 2;
  const Eigen::MatrixXd Y = emulated_matrices(M, N, sp::EntryLaw::gaussian, sigma2, {}, sv2, seed, trial, 1, 1)[0];
  const Eigen::VectorXd got = emulated_covariance_eigenvalues(Y).tail(dv::gram_order(M, N)).reverse();
  const Eigen::VectorXd cpu = sp::info_plus_noise_eigenvalues(M, N, sv2, sigma2, sp::EntryLaw::gaussian, seed, trial, sp::Sampler::entries);
  REQUIRE(got.size() == cpu.size());
  CHECK(max_abs_diff(got, cpu) <= 1e-11 * (1.0 + cpu.maxCoeff()));
  // Control: without the signal the top eigenvalue drops by order signal_sv2 (the spike is far above
  // the noise edge (1 + sqrt(c))^2 <= 6).
  const Eigen::MatrixXd Y0 = emulated_matrices(M, N, sp::EntryLaw::gaussian, sigma2, {}, Eigen::VectorXd(), seed, trial, 1, 1)[0];
  CHECK(cpu(0) - emulated_covariance_eigenvalues(Y0).maxCoeff() > 1.0);
}

TEST_CASE("device batch sizing and the block-counter limit", "[spectra]") {
  // trials_per_batch keeps (M N + 2 n^2 + n) doubles a trial within the budget, at least 1 trial.
  CHECK(dv::trials_per_batch(10, 20, 1000, 1e9) == 1000);
  CHECK(dv::trials_per_batch(100, 200, 1000, 8.0 * (20000 + 2 * 10000 + 100) * 7) == 7);
  CHECK(dv::trials_per_batch(5000, 5000, 10, 1.0) == 1);
  CHECK(dv::gram_order(30, 20) == 20);
  CHECK(dv::gram_order(20, 30) == 20);
  // The last entry of a matrix at the limit sits in Philox block 2^32 - 1: no wrap.
  CHECK((dv::kMaxMatrixEntries - 1) / 2 == (std::uint64_t{1} << 32) - 1);
  // Batching does not change the draws: batches of 1 and of 4 give the same matrices.
  const auto a = emulated_matrices(6, 9, sp::EntryLaw::gaussian, 1.0, {}, Eigen::VectorXd(), 3, 100, 4, 1);
  const auto b = emulated_matrices(6, 9, sp::EntryLaw::gaussian, 1.0, {}, Eigen::VectorXd(), 3, 100, 4, 4);
  for (std::size_t t = 0; t < a.size(); ++t) CHECK(a[t] == b[t]);
}
