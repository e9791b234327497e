#include "moelab/noisy/excess_cuda.hpp"

#include <algorithm>

#include <Eigen/Dense>

#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/noisy/bayes.hpp"

#ifdef MOELAB_HAVE_CUDA
#include "kernels/noisy_excess.cuh"
#endif

namespace moelab::noisy {

PackedModel pack_model(const Model& m) {
  m.check_consistent();
  PackedModel pm;
  pm.k = m.k(), pm.d = m.d(), pm.sigma2 = m.sigma2, pm.p = m.p;
  pm.block_offset.push_back(0);
  const Eigen::VectorXd bd = bayes_dense_estimator(m);
  const SparseEstimator bs = bayes_sparse_estimator(m);
  pm.w.assign(static_cast<std::size_t>(pm.d), 0.0);
  pm.bayes_dense.assign(bd.data(), bd.data() + bd.size());
  for (int e = 0; e < m.k(); ++e) {
    const auto u = static_cast<std::size_t>(e);
    const int de = m.block_size(e);
    pm.offset.push_back(m.offset(e));
    pm.size.push_back(de);
    pm.dmax = std::max(pm.dmax, de);
    // The factor draw_training_set uses (simulate.cpp: cholesky_factors, Eigen LLT).
    const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(m.sigma[u]).matrixL();
    pm.chol.insert(pm.chol.end(), L.data(), L.data() + L.size());
    pm.sigma.insert(pm.sigma.end(), m.sigma[u].data(), m.sigma[u].data() + m.sigma[u].size());
    pm.block_offset.push_back(pm.block_offset.back() + static_cast<std::uint64_t>(de) * static_cast<std::uint64_t>(de));
    const Eigen::VectorXd w = L.transpose() * m.beta_star[u];  // y = x' beta* = g' (L' beta*), x = L g
    std::copy(w.data(), w.data() + de, pm.w.begin() + m.offset(e));
    pm.bayes_sparse.insert(pm.bayes_sparse.end(), bs[u].data(), bs[u].data() + de);
  }
  return pm;
}

std::vector<int> allocation_counts(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first, std::int64_t count) {
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(count) * static_cast<std::size_t>(m.k()));
  const auto fixed = a == Allocation::balanced ? allocate_samples(m, n, a, seed, first) : std::vector<int>{};
  for (std::int64_t t = 0; t < count; ++t) {
    const auto c = a == Allocation::balanced ? fixed : allocate_samples(m, n, a, seed, first + static_cast<std::uint64_t>(t));
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

void cod_min_norm(const double* X, int rows, int cols, const double* y, double* beta) {
  const Eigen::Map<const Eigen::MatrixXd> A(X, rows, cols);
  const Eigen::Map<const Eigen::VectorXd> b(y, rows);
  // linalg/min_norm.cpp's fallback: Eigen's complete orthogonal decomposition of X.
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(A);
  Eigen::Map<Eigen::VectorXd>(beta, cols) = cod.solve(b);
}

#ifdef MOELAB_HAVE_CUDA
namespace {

cuda::NoisyModelView view(const PackedModel& pm) {
  cuda::NoisyModelView v;
  v.k = pm.k, v.d = pm.d, v.dmax = pm.dmax;
  v.offset = pm.offset.data(), v.size = pm.size.data(), v.block_offset = pm.block_offset.data();
  v.chol = pm.chol.data(), v.sigma = pm.sigma.data(), v.w = pm.w.data();
  v.bayes_dense = pm.bayes_dense.data(), v.bayes_sparse = pm.bayes_sparse.data(), v.p = pm.p.data();
  v.sigma2 = pm.sigma2;
  return v;
}

void fallback(const double* X, int rows, int cols, const double* y, double* beta, void*) { cod_min_norm(X, rows, cols, y, beta); }

}  // namespace

std::vector<ExcessTrial> excess_trials_cuda(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first,
                                            std::int64_t count, double budget_bytes) {
  MOELAB_EXPECT(count >= 0, "excess_trials_cuda: negative trial count");
  std::vector<ExcessTrial> out(static_cast<std::size_t>(count));
  if (count == 0) return out;
  const PackedModel pm = pack_model(m);
  const auto counts = allocation_counts(m, n, a, seed, first, count);
  std::vector<cuda::NoisyExcessRow> rows(static_cast<std::size_t>(count));
  cuda::NoisyDeviceContext ctx(budget_bytes);
  cuda::noisy_excess_trials(ctx, view(pm), n, counts.data(), seed, first, count, kExcessRcondFallback, fallback, nullptr, rows.data());
  for (std::size_t t = 0; t < rows.size(); ++t) {
    out[t].dense = rows[t].dense, out[t].sparse = rows[t].sparse;
    out[t].dense_fallback = rows[t].dense_fallback != 0, out[t].sparse_fallbacks = rows[t].sparse_fallbacks;
  }
  return out;
}

void training_sets_cuda(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first, std::int64_t count,
                        std::vector<double>& X, std::vector<double>& y) {
  const PackedModel pm = pack_model(m);
  const auto counts = allocation_counts(m, n, a, seed, first, count);
  X.resize(static_cast<std::size_t>(count) * static_cast<std::size_t>(n) * static_cast<std::size_t>(pm.d));
  y.resize(static_cast<std::size_t>(count) * static_cast<std::size_t>(n));
  cuda::NoisyDeviceContext ctx;
  cuda::noisy_designs_to_host(ctx, view(pm), n, counts.data(), seed, first, count, X.data(), y.data());
}
#else
std::vector<ExcessTrial> excess_trials_cuda(const Model&, int, Allocation, std::uint64_t, std::uint64_t, std::int64_t, double) {
  MOELAB_EXPECT(false, "excess_trials_cuda: this moelab was built without CUDA");
  return {};
}
void training_sets_cuda(const Model&, int, Allocation, std::uint64_t, std::uint64_t, std::int64_t, std::vector<double>&,
                        std::vector<double>&) {
  MOELAB_EXPECT(false, "training_sets_cuda: this moelab was built without CUDA");
}
#endif

}  // namespace moelab::noisy
