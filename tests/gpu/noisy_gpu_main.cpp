// The CUDA engine of the noisy Fig. 3 sweep (make_excess_risk_engine(Backend::cuda):
// kernels/noisy_excess.cu) against the CPU reference (simulate.cpp, what the CPU engine runs): the device designs against draw_training_set, the device
// excess risks against excess_trial (same addresses, so the same trials up to rounding), batching,
// the fallback near n = d, and controls (the next trial must not match). The arithmetic of every step
// was emulated on the CPU first (tests/noisy/excess_device_test.cpp); this checks the kernels, the
// cuBLAS / cuSOLVER calls and the index math on hardware.
//
// Exit code 77 (skipped) without a CUDA build or device: tests/gpu/gpu_main.hpp.
#include "moelab/config.hpp"
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "device_harness.hpp"
#include "gpu_main.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/linalg/covariance.hpp"
#include "moelab/noisy/detail/excess_plan.hpp"
#include "moelab/noisy/detail/excess_pack.hpp"
#include "moelab/noisy/excess_engine.hpp"
#include "moelab/noisy/simulate.hpp"

#if MOELAB_HAVE_CUDA
namespace nz = moelab::noisy;

namespace {

/// The Fig. 3 model shape (scenarios/noisy_fig3.toml) with k blocks of size b: Toeplitz(0.5) blocks,
/// p uniform, sigma2 = 1, beta* from a fixed normal stream / sqrt(d).
nz::Model fig3_model(int k, int b) {
  nz::Model m;
  const moelab::RandomStream beta(7, moelab::StreamTag::property_test, 0);
  for (int e = 0; e < k; ++e) {
    m.sigma.push_back(moelab::toeplitz_covariance(b, 0.5));
    m.p.push_back(1.0 / k);
    Eigen::VectorXd be(b);
    for (int a = 0; a < b; ++a) be(a) = beta.normal(static_cast<std::uint64_t>(e * b + a)) / std::sqrt(static_cast<double>(k * b));
    m.beta_star.push_back(be);
  }
  m.sigma2 = 1.0;
  return m;
}

double condition(const Eigen::MatrixXd& X) {
  const Eigen::MatrixXd g = X.rows() >= X.cols() ? Eigen::MatrixXd(X.transpose() * X) : Eigen::MatrixXd(X * X.transpose());
  const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(g, Eigen::EigenvaluesOnly).eigenvalues();
  return std::sqrt(ev(ev.size() - 1) / std::max(ev(0), 1e-300));
}

/// kappa of the dense design and the worst expert block of one CPU training set.
std::pair<double, double> conditions(const nz::Model& m, const nz::TrainingSet& ts) {
  double ks = 1.0;
  int row = 0;
  for (int e = 0; e < m.k(); ++e) {
    const int ne = ts.count[static_cast<std::size_t>(e)];
    if (ne > 0) ks = std::max(ks, condition(ts.xbar.block(row, m.offset(e), ne, m.block_size(e))));
    row += ne;
  }
  return {condition(ts.xbar), ks};
}

/// The device engine (the factory; the gate guarantees a usable device), with the given batch budget.
std::unique_ptr<nz::ExcessRiskEngine> device(double budget_bytes = nz::kExcessDeviceBudgetBytes) {
  return nz::make_excess_risk_engine(moelab::Backend::cuda, budget_bytes);
}

}  // namespace

// Device normals use CUDA's double log / sin / cos (<= 2 ulp), the CPU's fill_normal_cpu a polynomial
// within 4 ulp of the radius: normals differ by <= 6 ulp of 8.6, about 1.2e-14; x = L g sums d_e <= 75
// terms (|L| <= 1 for Toeplitz(0.5)), so entries differ by < 75 * 1.2e-14 + rounding < 2e-12: tolerance 1e-11.
TEST_CASE("gpu noisy: device designs equal draw_training_set", "[gpu][noisy]") {
  for (const auto& [k, b] : {std::pair{12, 5}, std::pair{3, 75}, std::pair{4, 7}})
    for (const auto a : {nz::Allocation::balanced, nz::Allocation::multinomial})
      for (const int n : {k * b / 2, k * b, 4 * k * b + 3}) {
        const nz::Model m = fig3_model(k, b);
        const int d = m.d();
        const std::uint64_t seed = 31, first = 1000;
        const std::int64_t count = 5;
        std::vector<double> X, y;
        const auto engines = moelab::test::both_backends([](moelab::Backend b) { return nz::make_excess_risk_engine(b); });
        engines.device->training_sets(m, n, a, seed, first, count, X, y);
        std::vector<double> Xc, yc;  // the CPU engine's: draw_training_set's designs, byte for byte
        engines.cpu->training_sets(m, n, a, seed, first, count, Xc, yc);
        for (std::int64_t t = 0; t < count; ++t) {
          const auto ts = nz::draw_training_set(m, n, a, seed, first + static_cast<std::uint64_t>(t));
          const Eigen::Map<const Eigen::MatrixXd> Xt(X.data() + static_cast<std::size_t>(t) * n * d, n, d);
          const Eigen::Map<const Eigen::VectorXd> yt(y.data() + static_cast<std::size_t>(t) * n, n);
          INFO("k " << k << " b " << b << " n " << n << " trial " << t);
          CHECK(moelab::test::max_abs_difference(Xt, ts.xbar) < 1e-11);  // NaN (an unwritten element) fails too
          CHECK(moelab::test::max_abs_difference(yt, ts.y) < 1e-11);
          CHECK(Eigen::Map<const Eigen::MatrixXd>(Xc.data() + static_cast<std::size_t>(t) * n * d, n, d) == ts.xbar);
          const auto next = nz::draw_training_set(m, n, a, seed, first + static_cast<std::uint64_t>(t) + 1);
          CHECK((Xt - next.xbar).cwiseAbs().mean() > 0.1);  // control: the next trial's draws
        }
      }
}

// Excess risks: the Gram path's forward error is O(eps kappa^2) (Higham, Sec. 20.4); inputs differ by
// < 1e-11, so relative tolerance 1e-11 kappa^2 (kappa^2 < 1e4 asserted away from n = d).
TEST_CASE("gpu noisy: device excess risks equal excess_trial, across batch sizes", "[gpu][noisy]") {
  for (const auto& [k, b] : {std::pair{12, 5}, std::pair{4, 7}})
    for (const auto a : {nz::Allocation::balanced, nz::Allocation::multinomial})
      for (const int n : {k * b / 3, 6 * k * b}) {
        const nz::Model m = fig3_model(k, b);
        const std::uint64_t seed = 77;
        const std::int64_t count = 24;
        const auto dev = device()->trials(m, n, a, seed, 0, count);
        // Three trials per batch: several batches, trials offset within each.
        const nz::PackedModel pm = nz::pack_model(m);
        const double per = nz::plan::bytes_per_trial(n, pm.d, pm.k, pm.size.data());
        const auto small = device(3.5 * per)->trials(m, n, a, seed, 0, count);
        int rejected = 0;
        for (std::int64_t t = 0; t < count; ++t) {
          const auto ut = static_cast<std::uint64_t>(t);
          const auto ref = nz::excess_trial(m, n, a, seed, ut);
          const auto [kd, ks] = conditions(m, nz::draw_training_set(m, n, a, seed, ut));
          INFO("k " << k << " b " << b << " n " << n << " trial " << t << " kappa " << kd << " / " << ks);
          REQUIRE(kd * kd < 1e4);
          const double td = 1e-11 * kd * kd, ts = 1e-11 * ks * ks;
          const auto& g = dev[static_cast<std::size_t>(t)];
          CHECK(std::abs(g.dense - ref.dense) <= td * ref.dense);
          if (ks * ks < 1e4) CHECK(std::abs(g.sparse - ref.sparse) <= ts * ref.sparse);
          CHECK(g.dense_fallback == ref.dense_fallback);
          CHECK(g.sparse_fallbacks == ref.sparse_fallbacks);
          CHECK(std::abs(small[static_cast<std::size_t>(t)].dense - g.dense) <= td * ref.dense);
          CHECK(std::abs(small[static_cast<std::size_t>(t)].sparse - g.sparse) <= ts * ref.sparse);
          const auto next = nz::excess_trial(m, n, a, seed, ut + 1);  // control
          rejected += std::abs(next.dense - g.dense) > td * ref.dense;
        }
        CHECK(rejected == count);
      }
}

// Near n = d the fallback rule decides per problem; both sides must decide alike except where a
// factor's rcond estimate lies within rounding of 1e-10 (reported, at most one trial in 16 allowed).
TEST_CASE("gpu noisy: the fallback near n = d follows the CPU's decisions", "[gpu][noisy]") {
  const nz::Model m = fig3_model(12, 5);
  const int d = m.d();
  for (const int n : {d - 1, d, d + 1}) {
    const std::int64_t count = 16;
    const auto dev = device()->trials(m, n, nz::Allocation::balanced, 5, 0, count);
    int disagree = 0;
    for (std::int64_t t = 0; t < count; ++t) {
      const auto ref = nz::excess_trial(m, n, nz::Allocation::balanced, 5, static_cast<std::uint64_t>(t));
      const auto& g = dev[static_cast<std::size_t>(t)];
      disagree += g.dense_fallback != ref.dense_fallback || g.sparse_fallbacks != ref.sparse_fallbacks;
      REQUIRE(std::isfinite(g.dense));
      REQUIRE(std::isfinite(g.sparse));
    }
    INFO("n " << n << ": " << disagree << " trials with a different fallback decision");
    CHECK(disagree <= 1);
  }
}

// One point of the paper's size (d = 900, k = 12 blocks of 75, n = 1800): a few trials against the CPU.
TEST_CASE("gpu noisy: a Fig. 3 point at d = 900 matches the CPU", "[gpu][noisy]") {
  const nz::Model m = fig3_model(12, 75);
  const int n = 1800;
  const std::int64_t count = 4;
  const auto dev = device()->trials(m, n, nz::Allocation::balanced, 1, 0, count);
  for (std::int64_t t = 0; t < count; ++t) {
    const auto ut = static_cast<std::uint64_t>(t);
    const auto ref = nz::excess_trial(m, n, nz::Allocation::balanced, 1, ut);
    const auto [kd, ks] = conditions(m, nz::draw_training_set(m, n, nz::Allocation::balanced, 1, ut));
    INFO("trial " << t << " kappa " << kd << " / " << ks << " dense " << dev[t].dense << " vs " << ref.dense);
    CHECK(std::abs(dev[static_cast<std::size_t>(t)].dense - ref.dense) <= 1e-11 * kd * kd * ref.dense);
    CHECK(std::abs(dev[static_cast<std::size_t>(t)].sparse - ref.sparse) <= 1e-11 * ks * ks * ref.sparse);
  }
}
#endif
