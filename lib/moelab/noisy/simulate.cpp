#include "moelab/noisy/simulate.hpp"
#include "moelab/linalg/resize.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/linalg/min_norm.hpp"

namespace moelab::noisy {

namespace {

// Test points are simulated in chunks of this many; chunk c draws from trial index c of its streams.
constexpr std::int64_t kChunk = 2048;

std::vector<Eigen::MatrixXd> cholesky_factors(const std::vector<Eigen::MatrixXd>& covs) {
  std::vector<Eigen::MatrixXd> out;
  for (const auto& s : covs) out.emplace_back(Eigen::LLT<Eigen::MatrixXd>(s).matrixL());
  return out;
}

int draw_expert(const std::vector<double>& cumulative, double u) {
  const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
  return std::min(static_cast<int>(it - cumulative.begin()), static_cast<int>(cumulative.size()) - 1);
}

std::vector<double> cumulative_p(const Model& m) {
  std::vector<double> c(m.p.size());
  std::partial_sum(m.p.begin(), m.p.end(), c.begin());
  c.back() = 1.0;
  return c;
}

// One test point of the model: noisy input xbar (length d) and target y. Normal draws: block signal
// at [base, base + d), noise at [base + d, base + 2d) of the test_sample stream.
struct TestPoint {
  Eigen::VectorXd xbar;
  double y = 0.0;
  int route = 0;  // the expert a perfect router (or the mis-routed router) selects
};

class TestPointSampler {
 public:
  TestPointSampler(const Model& m, const RiskOptions& opt)
      : m_(m), opt_(opt), chol_(cholesky_factors(m.sigma)), cum_(cumulative_p(m)), d_(m.d()) {}

  void draw(std::uint64_t seed, std::uint64_t chunk, std::int64_t s, TestPoint& tp) const {
    const RandomStream normals(seed, StreamTag::test_sample, chunk);
    const RandomStream labels(seed, StreamTag::routing_labels, chunk);
    const std::uint64_t base = static_cast<std::uint64_t>(s) * 2u * static_cast<std::uint64_t>(d_);
    tp.xbar.resize(d_);
    normals.fill_normal(base + static_cast<std::uint64_t>(d_), static_cast<std::uint64_t>(d_), tp.xbar.data());
    tp.xbar *= std::sqrt(opt_.test_noise.value_or(m_.sigma2));
    Eigen::VectorXd g;
    const auto signal = [&](int i, std::uint64_t offset) {
      g.resize(m_.block_size(i));
      normals.fill_normal(base + offset, static_cast<std::uint64_t>(g.size()), g.data());
      return Eigen::VectorXd(chol_[static_cast<std::size_t>(i)] * g);
    };
    if (opt_.misroute) {
      const auto& r = *opt_.misroute;
      const Eigen::VectorXd xi = signal(r.i, 0);
      const Eigen::VectorXd xj = signal(r.j, static_cast<std::uint64_t>(m_.block_size(r.i)));
      tp.xbar.segment(m_.offset(r.i), xi.size()) += xi;
      tp.xbar.segment(m_.offset(r.j), xj.size()) += r.eta * xj;
      tp.y = xi.dot(m_.beta_star[static_cast<std::size_t>(r.i)]);
      tp.route = r.j;
    } else {
      const int i = draw_expert(cum_, labels.uniform(static_cast<std::uint64_t>(s)));
      const Eigen::VectorXd xi = signal(i, 0);
      tp.xbar.segment(m_.offset(i), xi.size()) += xi;
      tp.y = xi.dot(m_.beta_star[static_cast<std::size_t>(i)]);
      tp.route = i;
    }
  }

 private:
  const Model& m_;
  RiskOptions opt_;
  std::vector<Eigen::MatrixXd> chol_;
  std::vector<double> cum_;
  int d_;
};

double sparse_prediction(const Model& m, const SparseEstimator& b, const TestPoint& tp) {
  return tp.xbar.segment(m.offset(tp.route), m.block_size(tp.route)).dot(b[static_cast<std::size_t>(tp.route)]);
}

template <class PerPoint>
std::vector<Welford> chunked(std::int64_t samples, int outputs, PerPoint&& per_point) {
  MOELAB_EXPECT(samples >= 2, "need at least two Monte-Carlo samples");
  const std::int64_t chunks = (samples + kChunk - 1) / kChunk;
  auto parts = parallel_map<std::vector<Welford>>(static_cast<std::size_t>(chunks), [&](std::size_t c) {
    std::vector<Welford> w(static_cast<std::size_t>(outputs));
    const std::int64_t begin = static_cast<std::int64_t>(c) * kChunk;
    const std::int64_t end = std::min(samples, begin + kChunk);
    for (std::int64_t s = begin; s < end; ++s) per_point(c, s - begin, w);
    return w;
  });
  std::vector<Welford> total(static_cast<std::size_t>(outputs));
  for (const auto& part : parts)
    for (std::size_t o = 0; o < total.size(); ++o) total[o].merge(part[o]);
  return total;
}

}  // namespace

SampledRisk sample_risk(const Model& m, const Eigen::VectorXd& b_dense, const SparseEstimator& b_sparse,
                        const RiskOptions& options, std::int64_t samples, std::uint64_t seed) {
  const TestPointSampler sampler(m, options);
  auto w = chunked(samples, 3, [&](std::size_t chunk, std::int64_t s, std::vector<Welford>& acc) {
    TestPoint tp;
    sampler.draw(seed, chunk, s, tp);
    const double ed = tp.xbar.dot(b_dense) - tp.y;
    const double es = sparse_prediction(m, b_sparse, tp) - tp.y;
    acc[0].add(ed * ed);
    acc[1].add(es * es);
    acc[2].add(es * es - ed * ed);
  });
  return {w[0], w[1], w[2]};
}

Welford sample_dense_directional_derivative(const Model& m, const Eigen::VectorXd& b, const Eigen::VectorXd& u,
                                            std::int64_t samples, std::uint64_t seed) {
  const TestPointSampler sampler(m, {});
  return chunked(samples, 1, [&](std::size_t chunk, std::int64_t s, std::vector<Welford>& acc) {
    TestPoint tp;
    sampler.draw(seed, chunk, s, tp);
    acc[0].add(2.0 * (tp.xbar.dot(b) - tp.y) * tp.xbar.dot(u));
  })[0];
}

Welford sample_sparse_directional_derivative(const Model& m, const SparseEstimator& b, const SparseEstimator& u,
                                             std::int64_t samples, std::uint64_t seed) {
  const TestPointSampler sampler(m, {});
  return chunked(samples, 1, [&](std::size_t chunk, std::int64_t s, std::vector<Welford>& acc) {
    TestPoint tp;
    sampler.draw(seed, chunk, s, tp);
    acc[0].add(2.0 * (sparse_prediction(m, b, tp) - tp.y) * sparse_prediction(m, u, tp));
  })[0];
}

std::vector<int> allocate_samples(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t trial) {
  const int k = m.k();
  std::vector<int> count(static_cast<std::size_t>(k), 0);
  if (a == Allocation::multinomial) {
    const RandomStream u(seed, StreamTag::routing_labels, trial);
    const auto cum = cumulative_p(m);
    for (int r = 0; r < n; ++r) ++count[static_cast<std::size_t>(draw_expert(cum, u.uniform(static_cast<std::uint64_t>(r))))];
    return count;
  }
  std::vector<std::pair<double, int>> frac;
  int assigned = 0;
  for (int i = 0; i < k; ++i) {
    const double exact = m.p[static_cast<std::size_t>(i)] * n;
    count[static_cast<std::size_t>(i)] = static_cast<int>(std::floor(exact));
    assigned += count[static_cast<std::size_t>(i)];
    frac.emplace_back(exact - std::floor(exact), i);
  }
  std::stable_sort(frac.begin(), frac.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (int r = 0; r < n - assigned; ++r) ++count[static_cast<std::size_t>(frac[static_cast<std::size_t>(r)].second)];
  return count;
}

TrainingSet draw_training_set(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t trial) {
  TrainingSet t;
  draw_training_set(m, n, a, seed, trial, t);
  return t;
}

void draw_training_set(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t trial, TrainingSet& t) {
  const int d = m.d();
  t.count = allocate_samples(m, n, a, seed, trial);
  t.expert.clear();
  for (int i = 0; i < m.k(); ++i) t.expert.insert(t.expert.end(), static_cast<std::size_t>(t.count[static_cast<std::size_t>(i)]), i);
  // Keeps the storage when the size is unchanged (a reused TrainingSet); valid after a bad_alloc.
  resize_reused(t.xbar, n, d);
  resize_reused(t.y, n);
  const double scale = std::sqrt(m.sigma2);
  const RandomStream noise(seed, StreamTag::design_noise, trial);
  const RandomStream signal(seed, StreamTag::design_signal, trial);
  const auto chol = cholesky_factors(m.sigma);
  // The design xbar = sqrt(sigma2) * noise + signal (noisy, Sec. 3: noise on all d coordinates, the
  // signal x_i = L_i g in expert i's block), row r's noise being normals r d .. r d + d - 1 of the
  // noise stream and its signal normals r d + offset_i .. of the signal stream. kRowBlock rows at a
  // time are built row-major in a small buffer (the addressing of the draws) and then written into
  // the column-major xbar, each column's kRowBlock entries one contiguous store: no n x d row-major
  // copy and no strided row updates of the column-major matrix (bench/RESULTS.md, Fig. 3).
  // Same operations in the same order as before (scale * noise, then + signal), so the same bytes.
  constexpr int kRowBlock = 16;
  std::vector<double> rows_buf(static_cast<std::size_t>(kRowBlock) * static_cast<std::size_t>(d));
  Eigen::VectorXd g;
  for (int r0 = 0; r0 < n; r0 += kRowBlock) {
    const int rows = std::min(kRowBlock, n - r0);
    const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(d);
    // Bulk (vectorised) Box-Muller: the same law as RandomStream::fill_normal (distributions.hpp).
    fill_normal_cpu(noise, static_cast<std::uint64_t>(r0) * static_cast<std::uint64_t>(d), count, rows_buf.data());
    for (std::size_t e = 0; e < count; ++e) rows_buf[e] = scale * rows_buf[e];
    for (int rr = 0; rr < rows; ++rr) {
      const int r = r0 + rr;
      const int i = t.expert[static_cast<std::size_t>(r)];
      const int off = m.offset(i);
      g.resize(m.block_size(i));
      fill_normal_cpu(signal, static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(off),
                      static_cast<std::uint64_t>(g.size()), g.data());
      const Eigen::VectorXd x = chol[static_cast<std::size_t>(i)] * g;
      double* row = rows_buf.data() + static_cast<std::size_t>(rr) * static_cast<std::size_t>(d) + static_cast<std::size_t>(off);
      for (Eigen::Index j = 0; j < x.size(); ++j) row[j] += x(j);
      t.y(r) = x.dot(m.beta_star[static_cast<std::size_t>(i)]);
    }
    for (int c = 0; c < d; ++c) {
      double* col = t.xbar.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(n) + static_cast<std::size_t>(r0);
      for (int rr = 0; rr < rows; ++rr) col[rr] = rows_buf[static_cast<std::size_t>(rr) * static_cast<std::size_t>(d) + static_cast<std::size_t>(c)];
    }
  }
}

ExcessTrial excess_trial(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t trial) {
  // Per-thread storage reused across trials (the design and the dense Gram matrix): fresh n x d pages
  // every trial cost 7% of the Fig. 3 sweep in page faults (bench/RESULTS.md). Each trial overwrites
  // every entry it reads, so the results do not depend on which thread ran which trial before.
  thread_local TrainingSet t;
  thread_local Eigen::MatrixXd gram;
  draw_training_set(m, n, a, seed, trial, t);
  ExcessTrial out;
  const auto dense = min_norm_solve(t.xbar, t.y, kMinNormRcondFallback, gram);
  out.dense_fallback = dense.status != SolveStatus::cholesky;
  out.dense = dense_excess_risk(m, dense.beta);
  SparseEstimator sparse;
  int row = 0;
  for (int i = 0; i < m.k(); ++i) {
    const int ni = t.count[static_cast<std::size_t>(i)];
    if (ni == 0) {
      sparse.push_back(Eigen::VectorXd::Zero(m.block_size(i)));  // no data: the zero estimator
      continue;
    }
    const auto s = min_norm_solve(t.xbar.block(row, m.offset(i), ni, m.block_size(i)), t.y.segment(row, ni));
    out.sparse_fallbacks += s.status != SolveStatus::cholesky;
    sparse.push_back(s.beta);
    row += ni;
  }
  out.sparse = sparse_excess_risk(m, sparse);
  return out;
}

ExcessSummary summarize_excess(std::span<const ExcessTrial> trials) {
  ExcessSummary s;
  for (const auto& r : trials) {
    s.dense.add(r.dense), s.sparse.add(r.sparse), s.difference.add(r.sparse - r.dense);
    s.dense_fallbacks += r.dense_fallback, s.sparse_fallbacks += r.sparse_fallbacks;
  }
  return s;
}

ExcessSummary simulate_excess(const Model& m, int n, Allocation a, std::int64_t trials, std::uint64_t seed) {
  const auto rows = parallel_map<ExcessTrial>(static_cast<std::size_t>(trials), [&](std::size_t t) {
    return excess_trial(m, n, a, seed, t);
  });
  return summarize_excess(rows);
}

RouterTrial router_trial(const Model& m, int n, int test_points, std::uint64_t seed, std::uint64_t trial) {
  const TrainingSet t = draw_training_set(m, n, Allocation::balanced, seed, trial);
  const int k = m.k();
  const double s2 = m.sigma2;
  // Per-expert plug-in covariance C_i_hat = X_{i,S_i}' X_{i,S_i} / n_i (A.7.1) and the true C_i.
  struct Rule {
    Eigen::LLT<Eigen::MatrixXd> llt;
    double logdet = 0.0;
  };
  std::vector<Rule> hat(static_cast<std::size_t>(k)), truth(static_cast<std::size_t>(k));
  int row = 0;
  for (int i = 0; i < k; ++i) {
    const int ni = t.count[static_cast<std::size_t>(i)], di = m.block_size(i);
    MOELAB_EXPECT(ni > di, "QDA needs more samples than features per expert");
    const Eigen::MatrixXd xi = t.xbar.block(row, m.offset(i), ni, di);
    row += ni;
    const Eigen::MatrixXd c_hat = xi.transpose() * xi / static_cast<double>(ni);
    const Eigen::MatrixXd c_true = m.sigma[static_cast<std::size_t>(i)] + s2 * Eigen::MatrixXd::Identity(di, di);
    for (auto [rule, c] : {std::pair{&hat[static_cast<std::size_t>(i)], &c_hat}, std::pair{&truth[static_cast<std::size_t>(i)], &c_true}}) {
      rule->llt.compute(*c);
      rule->logdet = 2.0 * rule->llt.matrixLLT().diagonal().array().log().sum();
    }
  }
  // Scores. Printed (A.7.1): -1/2 log|C_i| - 1/2 x_Si' C_i^-1 x_Si.
  // Corrected (log-likelihood ratio against noise-only coordinates, docs/errata.md):
  //   log p_i - 1/2 log|C_i| + d_i/2 log s2 - 1/2 x_Si' C_i^-1 x_Si + ||x_Si||^2 / (2 s2).
  const TestPointSampler sampler(m, {});
  int wrong_printed = 0, wrong_corrected = 0, wrong_bayes = 0, wrong_constant = 0;
  TestPoint tp;
  for (int s = 0; s < test_points; ++s) {
    sampler.draw(seed, (trial << 20) + 1u, s, tp);  // test points: their own chunk index space
    int best_p = 0, best_c = 0, best_b = 0;
    double sp = -INFINITY, sc = -INFINITY, sb = -INFINITY;
    for (int i = 0; i < k; ++i) {
      const Eigen::VectorXd x = tp.xbar.segment(m.offset(i), m.block_size(i));
      const double quad_hat = x.dot(hat[static_cast<std::size_t>(i)].llt.solve(x));
      const double quad_true = x.dot(truth[static_cast<std::size_t>(i)].llt.solve(x));
      const double noise_only = x.squaredNorm() / s2 - m.block_size(i) * std::log(s2);
      const double lp = std::log(m.p[static_cast<std::size_t>(i)]);
      const double printed = -0.5 * hat[static_cast<std::size_t>(i)].logdet - 0.5 * quad_hat;
      const double corrected = lp - 0.5 * hat[static_cast<std::size_t>(i)].logdet - 0.5 * quad_hat + 0.5 * noise_only;
      const double bayes = lp - 0.5 * truth[static_cast<std::size_t>(i)].logdet - 0.5 * quad_true + 0.5 * noise_only;
      if (printed > sp) sp = printed, best_p = i;
      if (corrected > sc) sc = corrected, best_c = i;
      if (bayes > sb) sb = bayes, best_b = i;
    }
    wrong_printed += best_p != tp.route;
    wrong_corrected += best_c != tp.route;
    wrong_bayes += best_b != tp.route;
    wrong_constant += tp.route != 0;
  }
  const double inv = 1.0 / test_points;
  return {wrong_printed * inv, wrong_corrected * inv, wrong_bayes * inv, wrong_constant * inv};
}

RouterSummary summarize_router(std::span<const RouterTrial> trials) {
  RouterSummary s;
  for (const auto& r : trials) {
    s.printed.add(r.printed_error), s.corrected.add(r.corrected_error), s.bayes.add(r.bayes_error);
    s.printed_excess.add(r.printed_error - r.bayes_error);
    s.corrected_excess.add(r.corrected_error - r.bayes_error);
    s.constant_excess.add(r.constant_error - r.bayes_error);
  }
  return s;
}

RouterSummary simulate_router(const Model& m, int n, int test_points, std::int64_t trials, std::uint64_t seed) {
  const auto rows = parallel_map<RouterTrial>(static_cast<std::size_t>(trials), [&](std::size_t t) {
    return router_trial(m, n, test_points, seed, t);
  });
  return summarize_router(rows);
}

}  // namespace moelab::noisy
