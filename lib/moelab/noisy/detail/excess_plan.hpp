// The batched plan of the noisy Fig. 3 sweep on the device (host-only, header-only, no Eigen): which
// min-norm least-squares problems one batch of trials holds, where their data sit in the device
// layout of detail/sample_hd.hpp, and how they are grouped into batched cuBLAS / cuSOLVER calls.
// kernels/noisy_excess.cu builds its pointer arrays from this plan, and
// tests/noisy/excess_device_test.cpp walks the same plan with Eigen in place of cuBLAS / cuSOLVER,
// so the index math the device uses is the one tested on the CPU.
//
// Per trial t of the batch (simulate.cpp: excess_trial):
//   the dense problem:   X_t (n x d) beta = y_t                          -> beta_dense[t d ...]
//   expert e (n_e > 0):  X_t[rows of e, block e] (n_e x d_e) beta = y_t[rows of e]
//                                                                        -> beta_sparse[t d + offset(e) ...]
//   expert e (n_e = 0):  no problem; the zero estimator (beta_sparse is zeroed first).
// Every problem is solved as in linalg/min_norm.cpp: Gram X'X (rows >= cols) or X X' (rows < cols),
// Cholesky, and the orthogonal fallback when the factor fails or its rcond estimate is <= 1e-10.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

namespace moelab::noisy::plan {

struct SolveProblem {
  std::int64_t trial = 0;      // index within the batch
  int expert = -1;             // -1: the dense problem
  std::uint64_t x_offset = 0;  // element of X(top-left) in the batch's X buffer; leading dimension n
  std::uint64_t y_offset = 0;  // first element of its response in the batch's y buffer
  std::uint64_t beta_offset = 0;  // first element of its solution in beta_dense (expert -1) or beta_sparse
  int rows = 0, cols = 0;
  bool over() const { return rows >= cols; }      // Gram X'X (cols x cols); else X X' (rows x rows)
  int gram() const { return rows >= cols ? cols : rows; }
};

/// Problems of one shape: one batched call per step.
struct SolveGroup {
  int rows = 0, cols = 0;
  bool dense = false;
  std::vector<std::size_t> problems;  // indices into BatchPlan::problems, in (trial, expert) order
};

struct BatchPlan {
  int n = 0, d = 0, k = 0;
  std::int64_t trials = 0;
  std::vector<int> row_expert;  // trials x n: the expert of each row (rows grouped by expert)
  std::vector<SolveProblem> problems;
  std::vector<SolveGroup> groups;  // the dense group first, then the sparse groups by (rows, cols)
};

/// The plan of `trials` trials whose allocations are counts[t k + e] (sum over e = n for every t).
inline BatchPlan plan_batch(int n, int d, int k, const int* offset, const int* size, const int* counts, std::int64_t trials) {
  BatchPlan p;
  p.n = n, p.d = d, p.k = k, p.trials = trials;
  p.row_expert.resize(static_cast<std::size_t>(trials) * static_cast<std::size_t>(n));
  const std::uint64_t nd = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(d);
  SolveGroup dense;
  dense.rows = n, dense.cols = d, dense.dense = true;
  std::map<std::pair<int, int>, SolveGroup> sparse;
  for (std::int64_t t = 0; t < trials; ++t) {
    const auto ut = static_cast<std::uint64_t>(t);
    SolveProblem dp;
    dp.trial = t, dp.expert = -1, dp.x_offset = ut * nd, dp.y_offset = ut * static_cast<std::uint64_t>(n);
    dp.beta_offset = ut * static_cast<std::uint64_t>(d), dp.rows = n, dp.cols = d;
    dense.problems.push_back(p.problems.size());
    p.problems.push_back(dp);
    int row = 0;
    for (int e = 0; e < k; ++e) {
      const int ne = counts[static_cast<std::size_t>(t) * static_cast<std::size_t>(k) + static_cast<std::size_t>(e)];
      if (ne < 0 || row + ne > n) throw std::invalid_argument("noisy plan_batch: allocation counts do not sum to n");
      for (int r = row; r < row + ne; ++r) p.row_expert[static_cast<std::size_t>(ut * static_cast<std::uint64_t>(n)) + static_cast<std::size_t>(r)] = e;
      if (ne > 0) {
        SolveProblem sp;
        sp.trial = t, sp.expert = e;
        sp.x_offset = ut * nd + static_cast<std::uint64_t>(offset[e]) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(row);
        sp.y_offset = ut * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(row);
        sp.beta_offset = ut * static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(offset[e]);
        sp.rows = ne, sp.cols = size[e];
        auto& g = sparse[{ne, size[e]}];
        g.rows = ne, g.cols = size[e];
        g.problems.push_back(p.problems.size());
        p.problems.push_back(sp);
      }
      row += ne;
    }
    if (row != n) throw std::invalid_argument("noisy plan_batch: allocation counts do not sum to n");
  }
  p.groups.push_back(std::move(dense));
  for (auto& [shape, g] : sparse) p.groups.push_back(std::move(g));
  return p;
}

/// Device bytes of one trial of the batch (X, G, y, both betas, every Gram matrix, the X X' right-hand
/// sides, the risk terms, row experts, per-problem pointers and flags), for sizing batches. An upper
/// bound over allocations: the sparse Gram of expert e is at most min(n, d_e)^2.
inline double bytes_per_trial(int n, int d, int k, const int* size) {
  double dmax = 0.0, sparse_gram = 0.0;
  for (int e = 0; e < k; ++e) {
    dmax = size[e] > dmax ? size[e] : dmax;
    const double m = size[e] < n ? size[e] : n;
    sparse_gram += m * m;
  }
  const double m = d < n ? d : n;
  const double nn = n, dd = d;
  return 8.0 * (nn * dd + nn * dmax + nn + 2.0 * dd + m * m + sparse_gram + 2.0 * nn + 4.0 * k) + 4.0 * nn +
         (k + 1.0) * (4.0 * 8.0 + 4.0 + 16.0);
}

}  // namespace moelab::noisy::plan
