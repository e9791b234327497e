// The device pipeline of the noisy Fig. 3 sweep (kernels/noisy_excess.cu), emulated on the CPU step by
// step in the device's layout (noisy/detail/sample_hd.hpp) and batch plan (noisy/detail/excess_plan.hpp):
// the SAME MOELAB_HD functions the kernels run, walked in the kernels' thread order, with Eigen in
// place of cuBLAS (Gram) and cuSOLVER (potrf / potrs), and the same CPU fallback. Compared with the
// CPU reference (simulate.cpp: draw_training_set, excess_trial), with controls: the next trial's draws
// and risks must not match. The kernels themselves run only in tests/gpu/noisy_gpu_main.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "device_harness.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/noisy/detail/excess_plan.hpp"
#include "moelab/noisy/detail/sample_hd.hpp"
#include "moelab/noisy/detail/excess_pack.hpp"
#include "moelab/noisy/simulate.hpp"
#include "noisy/random_model.hpp"

namespace nz = moelab::noisy;
namespace hd = moelab::noisy::hd;
using moelab::RandomStream;
using moelab::StreamTag;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Emulated {
  nz::plan::BatchPlan plan;
  std::vector<double> X, G, y;  // the batch's device buffers (sample_hd.hpp layout)
  std::vector<nz::ExcessTrial> rows;
};

/// kernels/noisy_excess.cu, steps 1-2 (design_kernel, signal_kernel), in their thread index order.
void emulate_design(const nz::PackedModel& pm, Emulated& em, std::uint64_t seed, std::uint64_t first) {
  const int n = em.plan.n, d = pm.d, dmax = pm.dmax;
  const std::int64_t B = em.plan.trials;
  const std::uint64_t nd = static_cast<std::uint64_t>(n) * d, ndmax = static_cast<std::uint64_t>(n) * dmax;
  em.X = moelab::test::poisoned<double>(static_cast<std::size_t>(B * static_cast<std::int64_t>(nd)));  // every element must be written
  em.G = moelab::test::poisoned<double>(static_cast<std::size_t>(B * static_cast<std::int64_t>(ndmax)));
  em.y = moelab::test::poisoned<double>(static_cast<std::size_t>(B * n));
  const int pairs = hd::column_pairs(d), signal_pairs = hd::column_pairs(dmax);
  for (std::int64_t t = 0; t < B; ++t)
    for (int b = 0; b < pairs; ++b)
      for (int r = 0; r < n; ++r) {
        const auto ut = static_cast<std::uint64_t>(t);
        hd::noise_step(RandomStream(seed, StreamTag::design_noise, first + ut), n, d, std::sqrt(pm.sigma2), r, b, em.X.data() + ut * nd);
        if (b < signal_pairs)
          hd::signal_draw_step(RandomStream(seed, StreamTag::design_signal, first + ut), n, d, em.plan.row_expert.data() + ut * n,
                               pm.offset.data(), pm.size.data(), r, b, em.G.data() + ut * ndmax);
      }
  for (std::int64_t t = 0; t < B; ++t)
    for (int a = 0; a < dmax; ++a)
      for (int r = 0; r < n; ++r) {
        const auto ut = static_cast<std::uint64_t>(t);
        const int* re = em.plan.row_expert.data() + ut * n;
        hd::signal_add_step(n, re, pm.offset.data(), pm.size.data(), pm.chol.data(), pm.block_offset.data(), em.G.data() + ut * ndmax, r,
                            a, em.X.data() + ut * nd);
        if (a == 0) em.y[ut * n + static_cast<std::uint64_t>(r)] = hd::response_step(n, re, pm.offset.data(), pm.size.data(), pm.w.data(),
                                                                                      em.G.data() + ut * ndmax, r);
      }
}

using Block = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

/// Steps 3-6: per group and problem, the Gram matrix (cuBLAS DGEMM), its factor (potrfBatched), the
/// fallback rule on the factor's diagonal (diagonal_kernel + cholesky_usable), the solve (potrsBatched,
/// X' z), the CPU fallback on a packed copy of the block (cudaMemcpy2D), the risk terms (risk_kernel)
/// and their combination (combine_excess).
void emulate_solve(const nz::PackedModel& pm, Emulated& em, double rcond_fallback) {
  const auto& plan = em.plan;
  const int n = plan.n, d = pm.d, k = pm.k;
  const std::int64_t B = plan.trials;
  std::vector<double> beta_dense(static_cast<std::size_t>(B * d), kNaN), beta_sparse(static_cast<std::size_t>(B * d), 0.0);
  em.rows.assign(static_cast<std::size_t>(B), nz::ExcessTrial{});
  for (const auto& g : plan.groups)
    for (std::size_t pi : g.problems) {
      const auto& pr = plan.problems[pi];
      const Block X(em.X.data() + pr.x_offset, pr.rows, pr.cols, Eigen::OuterStride<>(n));
      const Eigen::Map<const Eigen::VectorXd> y(em.y.data() + pr.y_offset, pr.rows);
      double* beta = (pr.expert < 0 ? beta_dense.data() : beta_sparse.data()) + pr.beta_offset;
      const Eigen::MatrixXd gram = pr.over() ? Eigen::MatrixXd(X.transpose() * X) : Eigen::MatrixXd(X * X.transpose());
      const Eigen::LLT<Eigen::MatrixXd> llt(gram);
      const Eigen::MatrixXd L = llt.matrixL();
      double lo = 0.0, hi = 0.0;
      hd::diagonal_range(L.data(), pr.gram(), lo, hi);
      const int info = llt.info() == Eigen::Success ? 0 : 1;
      if (hd::cholesky_usable(info, lo, hi, rcond_fallback)) {
        Eigen::Map<Eigen::VectorXd> b(beta, pr.cols);
        if (pr.over())
          b = llt.solve(X.transpose() * y);
        else
          b = X.transpose() * llt.solve(y);
        continue;
      }
      const Eigen::MatrixXd packed = X;  // cudaMemcpy2D: rows x cols, leading dimension rows
      nz::cod_min_norm(packed.data(), pr.rows, pr.cols, y.data(), beta);
      auto& row = em.rows[static_cast<std::size_t>(pr.trial)];
      if (pr.expert < 0)
        row.dense_fallback = true;
      else
        ++row.sparse_fallbacks;
    }
  std::vector<double> terms(static_cast<std::size_t>(4 * k));
  for (std::int64_t t = 0; t < B; ++t) {
    for (int e = 0; e < k; ++e) {
      const double* S = pm.sigma.data() + pm.block_offset[static_cast<std::size_t>(e)];
      const std::size_t o = static_cast<std::size_t>(t * d + pm.offset[static_cast<std::size_t>(e)]);
      const int off = pm.offset[static_cast<std::size_t>(e)], de = pm.size[static_cast<std::size_t>(e)];
      hd::block_excess_terms(S, de, beta_dense.data() + o, pm.bayes_dense.data() + off, terms[4 * e], terms[4 * e + 1]);
      hd::block_excess_terms(S, de, beta_sparse.data() + o, pm.bayes_sparse.data() + off, terms[4 * e + 2], terms[4 * e + 3]);
    }
    auto& row = em.rows[static_cast<std::size_t>(t)];
    hd::combine_excess(k, pm.p.data(), pm.sigma2, terms.data(), row.dense, row.sparse);
  }
}

Emulated emulate(const nz::Model& m, int n, nz::Allocation a, std::uint64_t seed, std::uint64_t first, std::int64_t B,
                 double rcond_fallback = nz::kExcessRcondFallback) {
  const nz::PackedModel pm = nz::pack_model(m);
  const auto counts = nz::allocation_counts(m, n, a, seed, first, B);
  Emulated em;
  em.plan = nz::plan::plan_batch(n, pm.d, pm.k, pm.offset.data(), pm.size.data(), counts.data(), B);
  emulate_design(pm, em, seed, first);
  emulate_solve(pm, em, rcond_fallback);
  return em;
}

/// Largest |device-layout X - CPU xbar| and |y - y| of trial t of the batch against training set `ts`.
double design_difference(const Emulated& em, std::int64_t t, const nz::TrainingSet& ts) {
  const int n = em.plan.n, d = static_cast<int>(ts.xbar.cols());
  const Block X(em.X.data() + static_cast<std::size_t>(t) * n * d, n, d, Eigen::OuterStride<>(n));
  const Eigen::Map<const Eigen::VectorXd> y(em.y.data() + static_cast<std::size_t>(t) * n, n);
  return std::max((X - ts.xbar).cwiseAbs().maxCoeff(), (y - ts.y).cwiseAbs().maxCoeff());
}

double condition(const Eigen::MatrixXd& X) {
  const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(X).singularValues();
  return s(0) / s(s.size() - 1);
}

}  // namespace

TEST_CASE("noisy device: normal_pair_at equals RandomStream::normal at even and odd starts", "[noisy][device]") {
  const RandomStream s(99, StreamTag::design_noise, 5);
  for (std::uint64_t j0 : {0ull, 1ull, 6ull, 7ull, 1001ull, 4294967296ull}) {
    double z0 = 0.0, z1 = 0.0;
    hd::normal_pair_at(s, j0, true, z0, z1);
    CHECK(z0 == s.normal(j0));  // same host libm, same Philox words: bit-identical
    CHECK(z1 == s.normal(j0 + 1));
    hd::normal_pair_at(s, j0, false, z0, z1);
    CHECK(z0 == s.normal(j0));
  }
}

TEST_CASE("noisy device: plan_batch refuses counts that do not sum to n", "[noisy][device]") {
  const int offset[2] = {0, 3}, size[2] = {3, 2};
  const int bad[2] = {4, 2}, good[2] = {4, 3};
  CHECK_THROWS(nz::plan::plan_batch(7, 5, 2, offset, size, bad, 1));
  const auto p = nz::plan::plan_batch(7, 5, 2, offset, size, good, 1);
  REQUIRE(p.problems.size() == 3);
  CHECK(p.problems[2].x_offset == 3u * 7u + 4u);  // expert 1: column offset 3 (leading dimension n = 7), first row 4
  CHECK(p.problems[2].beta_offset == 3u);
}

// The device draws against draw_training_set (which uses fill_normal_cpu: vectorised polynomial
// log / sin / cos within 4 ulp of the radius of libm's). Tolerance 1e-12 absolute: a normal is at most
// r <= sqrt(-2 log 2^-53) = 8.6 in magnitude, so the two generators differ by <= 4 * 2^-52 * 8.6 = 8e-15;
// x = L g sums d_e <= 6 such terms with |L(a, b)| <= max sqrt(Sigma_aa) (< 3 for random_model), plus
// rounding of the same order: < 2e-13 for every entry here, 5x below the tolerance.
TEST_CASE("noisy device: the emulated design kernels draw the CPU's training sets", "[noisy][device]") {
  for (std::uint64_t model_case = 0; model_case < 4; ++model_case) {
    const nz::Model m = moelab::test::random_model(model_case, 3, 6);
    const int d = m.d();
    for (const auto a : {nz::Allocation::balanced, nz::Allocation::multinomial})
      for (const int n : {std::max(2, d / 2), d, 3 * d + 1}) {
        const std::uint64_t seed = 1234 + model_case, first = 7;
        const std::int64_t B = 3;
        const auto em = emulate(m, n, a, seed, first, B);
        for (std::int64_t t = 0; t < B; ++t) {
          const auto ts = nz::draw_training_set(m, n, a, seed, first + static_cast<std::uint64_t>(t));
          INFO("model " << model_case << " d " << d << " n " << n << " trial " << t);
          CHECK(design_difference(em, t, ts) < 1e-12);  // also fails on an unwritten (NaN) element
          // Control: the next trial's training set is a different draw.
          const auto next = nz::draw_training_set(m, n, a, seed, first + static_cast<std::uint64_t>(t) + 1);
          const Block X(em.X.data() + static_cast<std::size_t>(t) * n * d, n, d, Eigen::OuterStride<>(n));
          CHECK((X - next.xbar).cwiseAbs().mean() > 0.1);
        }
      }
  }
}

// Excess risks against excess_trial. Both sides solve the same least-squares problems (through the Gram
// matrix and Cholesky unless the fallback rule fires) from inputs that differ by < 1e-12; the Gram path's
// forward error is O(eps kappa(X)^2) (Higham, Accuracy and Stability, Sec. 20.4), so the tolerance is
// relative 1e-12 kappa^2 (kappa of the trial's dense design, or the worst expert block's), with the
// instances chosen away from n = d (kappa^2 < 1e4 asserted, so the tolerance is at most 1e-8).
TEST_CASE("noisy device: the emulated solves and risk kernel give excess_trial's excess risks", "[noisy][device]") {
  int compared = 0, control_rejected = 0, controls = 0;
  double worst = 0.0;
  for (std::uint64_t model_case = 0; model_case < 4; ++model_case) {
    const nz::Model m = moelab::test::random_model(model_case, 3, 6);
    const int d = m.d();
    for (const auto a : {nz::Allocation::balanced, nz::Allocation::multinomial})
      for (const int n : {std::max(2, d / 3), 6 * d}) {
        const std::uint64_t seed = 99 + model_case, first = 11;
        const std::int64_t B = 4;
        const auto em = emulate(m, n, a, seed, first, B);
        for (std::int64_t t = 0; t < B; ++t) {
          const auto trial = first + static_cast<std::uint64_t>(t);
          const auto ref = nz::excess_trial(m, n, a, seed, trial);
          const auto ts = nz::draw_training_set(m, n, a, seed, trial);
          double kappa_dense = condition(ts.xbar), kappa_sparse = 1.0;
          int row = 0;
          for (int e = 0; e < m.k(); ++e) {
            const int ne = ts.count[static_cast<std::size_t>(e)];
            if (ne > 0) kappa_sparse = std::max(kappa_sparse, condition(ts.xbar.block(row, m.offset(e), ne, m.block_size(e))));
            row += ne;
          }
          INFO("model " << model_case << " n " << n << " d " << d << " trial " << t << " kappa " << kappa_dense << " / " << kappa_sparse);
          REQUIRE(kappa_dense * kappa_dense < 1e4);
          REQUIRE(kappa_sparse * kappa_sparse < 1e4);
          const auto& got = em.rows[static_cast<std::size_t>(t)];
          CHECK(got.dense_fallback == ref.dense_fallback);
          CHECK(got.sparse_fallbacks == ref.sparse_fallbacks);
          const double tol_d = 1e-12 * kappa_dense * kappa_dense, tol_s = 1e-12 * kappa_sparse * kappa_sparse;
          const double rd = std::abs(got.dense - ref.dense) / ref.dense, rs = std::abs(got.sparse - ref.sparse) / ref.sparse;
          CHECK(rd <= tol_d);
          CHECK(rs <= tol_s);
          worst = std::max({worst, rd, rs});
          ++compared;
          // Control: the next trial's excess risks (nearest wrong input) differ beyond the tolerance.
          const auto next = nz::excess_trial(m, n, a, seed, trial + 1);
          ++controls;
          control_rejected += std::abs(next.dense - got.dense) / ref.dense > tol_d || std::abs(next.sparse - got.sparse) / ref.sparse > tol_s;
        }
      }
  }
  INFO("largest relative difference " << worst);
  CHECK(compared == 64);
  CHECK(control_rejected == controls);
}

// The fallback plumbing (the packed copy of each problem's block, the write into its beta slot, the
// flags): with rcond_fallback = 1 every problem takes the CPU's orthogonal fallback, which gives the
// same minimum-norm solution as excess_trial's Cholesky path up to rounding (same tolerance as above).
TEST_CASE("noisy device: the emulated fallback path solves every problem by COD", "[noisy][device]") {
  const nz::Model m = moelab::test::random_model(2, 3, 6);
  const int d = m.d();
  for (const int n : {std::max(2, d / 3), 6 * d}) {
    const std::int64_t B = 3;
    const auto em = emulate(m, n, nz::Allocation::balanced, 5, 0, B, /*rcond_fallback=*/1.0);
    const auto counts = nz::allocate_samples(m, n, nz::Allocation::balanced, 5, 0);
    const int experts_with_rows = static_cast<int>(std::count_if(counts.begin(), counts.end(), [](int c) { return c > 0; }));
    for (std::int64_t t = 0; t < B; ++t) {
      const auto ref = nz::excess_trial(m, n, nz::Allocation::balanced, 5, static_cast<std::uint64_t>(t));
      const auto& got = em.rows[static_cast<std::size_t>(t)];
      INFO("n " << n << " trial " << t);
      CHECK(got.dense_fallback);
      CHECK(got.sparse_fallbacks == experts_with_rows);
      CHECK(std::abs(got.dense - ref.dense) <= 1e-8 * ref.dense);
      CHECK(std::abs(got.sparse - ref.sparse) <= 1e-8 * ref.sparse);
    }
  }
}

// At the interpolation threshold n = d the Gram matrices are ill-conditioned and the two sides may
// take different paths only where a factor's rcond estimate lies within rounding of 1e-10; with these
// small, moderately conditioned squares neither side falls back and the risks agree to eps kappa^2.
TEST_CASE("noisy device: the emulation at n = d follows the CPU's fallback decisions", "[noisy][device]") {
  for (std::uint64_t model_case = 0; model_case < 4; ++model_case) {
    const nz::Model m = moelab::test::random_model(model_case, 3, 6);
    const int n = m.d();
    const std::int64_t B = 4;
    const auto em = emulate(m, n, nz::Allocation::balanced, 3, 0, B);
    for (std::int64_t t = 0; t < B; ++t) {
      const auto ref = nz::excess_trial(m, n, nz::Allocation::balanced, 3, static_cast<std::uint64_t>(t));
      const auto ts = nz::draw_training_set(m, n, nz::Allocation::balanced, 3, static_cast<std::uint64_t>(t));
      const double kappa = condition(ts.xbar);
      const auto& got = em.rows[static_cast<std::size_t>(t)];
      INFO("model " << model_case << " trial " << t << " kappa " << kappa);
      CHECK(got.dense_fallback == ref.dense_fallback);
      CHECK(got.sparse_fallbacks == ref.sparse_fallbacks);
      CHECK(std::abs(got.dense - ref.dense) <= 1e-12 * kappa * kappa * ref.dense);
    }
  }
}
