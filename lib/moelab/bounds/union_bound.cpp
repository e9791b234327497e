#include "moelab/bounds/union_bound.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"

namespace moelab::bounds {

Eigen::MatrixXi threshold_routers(int n) {
  Eigen::MatrixXi r(n + 1, n);
  for (int theta = 0; theta <= n; ++theta)
    for (int x = 0; x < n; ++x) r(theta, x) = x >= theta ? 1 : 0;
  return r;
}

Eigen::MatrixXi point_routers(int n) {
  Eigen::MatrixXi r = Eigen::MatrixXi::Zero(n, n);
  for (int c = 0; c < n; ++c) r(c, c) = 1;
  return r;
}

Eigen::MatrixXd constant_expert_losses(int n) {
  Eigen::MatrixXd l(2, n);
  l.row(0).setZero();
  l.row(1).setOnes();
  return l;
}

// d distinct points on a line cut by n + 1 thresholds into d + 1 patterns; at most min(2m, n) distinct points.
int threshold_router_growth(int n, int m) { return std::min(2 * m, n) + 1; }
// d distinct points: d singletons, plus the empty pattern when some c lies outside the pool (d < n).
int point_router_growth(int n, int m) { return std::min(2 * m + 1, n); }

namespace {

void check_class(const RoutedClass& c) {
  MOELAB_EXPECT(c.T >= 1 && c.routers.rows() >= 1 && c.losses.rows() >= 1 && c.routers.cols() == c.losses.cols(),
                "union bound: routers must be R x n and losses K x n on the same domain");
  MOELAB_EXPECT((c.routers.array() >= 0).all() && (c.routers.array() < c.T).all(),
                "union bound: router entries must be expert indices in [0, T)");
  MOELAB_EXPECT((c.losses.array() >= 0.0).all() && (c.losses.array() <= 1.0).all(),
                "union bound: losses must lie in [0, 1]");
}

// swap_counts without validating the class (validated once by the callers: it costs R n per call).
SwapCounts count_swaps(const RoutedClass& c, std::span<const int> pool, double t) {
  MOELAB_EXPECT(pool.size() >= 2 && pool.size() % 2 == 0 && pool.size() <= 40,
                "swap_counts: the pool holds 2m points, 1 <= m <= 20");
  const int m = static_cast<int>(pool.size() / 2), T = c.T, K = static_cast<int>(c.losses.rows());
  const int R = static_cast<int>(c.routers.rows()), n = static_cast<int>(c.routers.cols());
  for (int z : pool) MOELAB_EXPECT(z >= 0 && z < n, "swap_counts: pool point outside the domain");

  SwapCounts out;
  out.swaps = std::uint64_t{1} << m;
  // Distinct restrictions of the routers to the pool (Eq. 9's mu_1, ..., mu_Gamma on these 2m points).
  // Keys packed into 64 bits when 2m expert indices fit (T = 2: m <= 32), else compared as vectors.
  const int bits = std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned>(T - 1))));
  const bool packed = 2 * m * bits <= 64;
  std::unordered_map<std::uint64_t, int> packed_index;
  std::map<std::vector<int>, int> index;
  std::vector<std::vector<int>> patterns;
  out.pattern_of_router.resize(R);
  std::vector<int> key(2 * m);
  for (int r = 0; r < R; ++r) {
    std::uint64_t code = 0;
    for (int i = 0; i < 2 * m; ++i) {
      key[i] = c.routers(r, pool[i]);
      code = (code << bits) | static_cast<std::uint64_t>(key[i]);
    }
    const int next = static_cast<int>(patterns.size());
    const auto [slot, fresh] = packed ? packed_index.emplace(code, next) : std::pair{packed_index.end(), false};
    const auto [it, fresh_v] = packed ? std::pair{index.end(), false} : index.emplace(key, next);
    if (packed ? fresh : fresh_v) patterns.push_back(key);
    out.pattern_of_router[r] = packed ? slot->second : it->second;
  }
  const int Q = static_cast<int>(patterns.size());
  const int JK = T * K;
  // a[(q m + i) JK + j K + h]: what pair i adds to m D_j(h) under pattern q when not swapped (sigma_i = +1).
  std::vector<double> a(static_cast<std::size_t>(Q) * m * JK, 0.0), A(static_cast<std::size_t>(Q) * JK, 0.0);
  for (int q = 0; q < Q; ++q)
    for (int i = 0; i < m; ++i) {
      double* ai = &a[(static_cast<std::size_t>(q) * m + i) * JK];
      const int x = pool[i], y = pool[m + i];
      for (int h = 0; h < K; ++h) {
        ai[patterns[q][i] * K + h] += c.losses(h, x);
        ai[patterns[q][m + i] * K + h] -= c.losses(h, y);
      }
      for (int u = 0; u < JK; ++u) A[q * JK + u] += ai[u];
    }
  std::vector<int> sigma(m, 1);
  out.abs.assign(Q, 0);
  out.plus.assign(Q, 0);
  out.minus.assign(Q, 0);
  const double thr = m * t - 1e-9;  // see the header: ties count as reached, rounding < 1e-12
  for (std::uint64_t s = 0; s < out.swaps; ++s) {
    bool any_abs = false, any_plus = false, any_minus = false;
    for (int q = 0; q < Q; ++q) {
      double sup_plus = 0.0, sup_minus = 0.0;  // m sup_h D and m sup_h (-D), separated over experts
      for (int j = 0; j < T; ++j) {
        const double* Aj = &A[q * JK + j * K];
        double hi = Aj[0], lo = Aj[0];
        for (int h = 1; h < K; ++h) hi = std::max(hi, Aj[h]), lo = std::min(lo, Aj[h]);
        sup_plus += hi;
        sup_minus -= lo;
      }
      const bool p = sup_plus >= thr, mi = sup_minus >= thr;
      out.plus[q] += p;
      out.minus[q] += mi;
      out.abs[q] += p || mi;
      any_plus |= p;
      any_minus |= mi;
      any_abs |= p || mi;
    }
    out.class_abs += any_abs;
    out.class_plus += any_plus;
    out.class_minus += any_minus;
    if (s + 1 < out.swaps) {  // Gray code: flip one pair
      const int i = std::countr_zero(s + 1);
      for (int q = 0; q < Q; ++q) {
        const double* ai = &a[(static_cast<std::size_t>(q) * m + i) * JK];
        for (int u = 0; u < JK; ++u) A[q * JK + u] -= 2.0 * sigma[i] * ai[u];
      }
      sigma[i] = -sigma[i];
    }
  }
  return out;
}

}  // namespace

SwapCounts swap_counts(const RoutedClass& c, std::span<const int> pool, double t) {
  check_class(c);
  return count_swaps(c, pool, t);
}

UnionProbabilities exact_union_probabilities(const Eigen::VectorXd& p, const RoutedClass& c, int m, double t) {
  check_class(c);
  const int n = static_cast<int>(c.routers.cols()), R = static_cast<int>(c.routers.rows());
  MOELAB_EXPECT(p.size() == n && m >= 1, "exact_union_probabilities: p must have one entry per domain point, m >= 1");
  MOELAB_EXPECT(std::pow(static_cast<double>(n), 2.0 * m) <= 1e7, "exact_union_probabilities: n^(2m) pools must be <= 1e7");
  UnionProbabilities out;
  out.router_abs.assign(R, 0.0);
  out.router_plus.assign(R, 0.0);
  out.router_minus.assign(R, 0.0);
  std::vector<int> z(2 * m, 0);
  for (;;) {
    double w = 1.0;
    for (int x : z) w *= p(x);
    if (w > 0.0) {
      const auto s = count_swaps(c, z, t);
      const double u = w / static_cast<double>(s.swaps);
      out.class_abs += u * s.class_abs;
      out.class_plus += u * s.class_plus;
      out.class_minus += u * s.class_minus;
      for (int r = 0; r < R; ++r) {
        const int q = s.pattern_of_router[r];
        out.router_abs[r] += u * s.abs[q];
        out.router_plus[r] += u * s.plus[q];
        out.router_minus[r] += u * s.minus[q];
      }
    }
    int i = 0;  // next pool in base n
    while (i < 2 * m && ++z[i] == n) z[i++] = 0;
    if (i == 2 * m) break;
  }
  return out;
}

namespace {

// A deterministic per-pool inequality lhs(z) <= rhs(z): reported as its largest excess over the pools against 0.
InequalityCheck per_pool(double max_excess, std::uint64_t pools) {
  InequalityCheck c{};
  c.lhs = max_excess;
  c.rhs = 0.0;
  c.excess = max_excess;
  c.p_violation = max_excess > 0.0 ? 0.0 : 1.0;
  c.exact = true;
  c.trials = pools;
  return c;
}

// Intersection-union test of "P_class <= factor * max_r P_r": rejected only if it is rejected against every
// router (p = the largest per-router p); reported numbers: the plug-in maximiser of P_r.
InequalityCheck against_every_router(const Welford& lhs, const std::vector<Welford>& router, const std::vector<Welford>& diff,
                                     double factor) {
  std::size_t best = 0;
  double p = 0.0;
  for (std::size_t r = 0; r < router.size(); ++r) {
    if (router[r].mean() > router[best].mean()) best = r;
    p = std::max(p, t_test_greater(diff[r], 0.0));
  }
  InequalityCheck c{};
  c.lhs = lhs.mean();
  c.lhs_se = lhs.standard_error();
  c.rhs = factor * router[best].mean();
  c.rhs_se = factor * router[best].standard_error();
  c.excess = diff[best].mean();
  c.excess_se = diff[best].standard_error();
  c.p_violation = p;
  c.exact = false;
  c.trials = lhs.count();
  return c;
}

}  // namespace

UnionBoundCheck check_union_bound(const Eigen::VectorXd& p, const RoutedClass& c, int growth, int m, double t,
                                  std::uint64_t pools, std::uint64_t seed) {
  check_class(c);
  MOELAB_EXPECT(p.size() == c.routers.cols(), "check_union_bound: p must have one entry per domain point");
  MOELAB_EXPECT(m >= 1 && m <= 16 && pools >= 2 && growth >= 1 && t > 0.0,
                "check_union_bound: need 1 <= m <= 16, pools >= 2, growth >= 1, t > 0");
  const auto cdf = point_cdf(p);
  const int R = static_cast<int>(c.routers.rows());
  const double G = growth;
  UnionBoundCheck out;
  out.pools = pools;
  out.swaps = std::uint64_t{1} << m;
  out.growth = growth;
  Welford cls_abs, cls_plus, cls_minus, rep_rhs, no_union_rhs, no_union_diff;
  std::vector<Welford> r_abs(R), r_plus(R), d11(R), d12(R);
  double worst_union = -INFINITY, worst_rep = -INFINITY;
  const double S = static_cast<double>(out.swaps);
  // Pools in chunks (memory: R pattern indices per pool), each chunk in parallel, reduced in pool order:
  // bit-identical for any thread count.
  constexpr std::uint64_t chunk = 4096;
  for (std::uint64_t first = 0; first < pools; first += chunk) {
    const auto runs = parallel_map<SwapCounts>(std::min(chunk, pools - first), [&](std::size_t j) {
      const RandomStream r(seed, kBoundsStreamTag, first + j);
      std::vector<int> z(2 * m);
      for (int i = 0; i < 2 * m; ++i)
        z[i] = draw_point(cdf, r.uniform(i));
      return count_swaps(c, z, t);
    });
    for (const auto& s : runs) {
      out.max_patterns = std::max(out.max_patterns, s.patterns());
      const double lhs = s.class_abs / S;
      cls_abs.add(lhs);
      cls_plus.add(s.class_plus / S);
      cls_minus.add(s.class_minus / S);
      for (int r = 0; r < R; ++r) {
        const int q = s.pattern_of_router[r];
        const double pa = s.abs[q] / S, pp = s.plus[q] / S;
        r_abs[r].add(pa);
        r_plus[r].add(pp);
        d11[r].add(lhs - G * pa);
        d12[r].add(lhs - 2.0 * G * pp);
      }
      // Eq. 12 per pool: each pattern (a mask fixed on these points) and the class.
      auto sign = [&](std::uint64_t a, std::uint64_t pl, std::uint64_t mi) {
        ++out.sign_cases;
        out.sign_violations += a > 2 * pl;
        out.sign_asymmetric += pl != mi;
        out.factor1_violations += a > pl;
        out.worst_sign_excess = std::max(out.worst_sign_excess, (static_cast<double>(a) - 2.0 * pl) / S);
        out.worst_factor1_excess = std::max(out.worst_factor1_excess, (static_cast<double>(a) - pl) / S);
      };
      std::uint64_t sum_abs = 0, max_abs = 0, max_plus = 0;
      for (int q = 0; q < s.patterns(); ++q) {
        sign(s.abs[q], s.plus[q], s.minus[q]);
        sum_abs += s.abs[q];
        max_abs = std::max(max_abs, s.abs[q]);
        max_plus = std::max(max_plus, s.plus[q]);
      }
      sign(s.class_abs, s.class_plus, s.class_minus);
      worst_union = std::max(worst_union, lhs - sum_abs / S);
      worst_rep = std::max(worst_rep, lhs - 2.0 * G * max_plus / S);
      rep_rhs.add(2.0 * G * max_plus / S);
      no_union_rhs.add(max_abs / S);
      no_union_diff.add(lhs - max_abs / S);
    }
  }
  out.class_abs = cls_abs.mean();
  out.class_plus = cls_plus.mean();
  out.class_minus = cls_minus.mean();
  out.router_abs.resize(R);
  out.router_plus.resize(R);
  for (int r = 0; r < R; ++r) {
    out.router_abs[r] = r_abs[r].mean();
    out.router_plus[r] = r_plus[r].mean();
    out.max_router_abs = std::max(out.max_router_abs, out.router_abs[r]);
    out.max_router_plus = std::max(out.max_router_plus, out.router_plus[r]);
    out.mean_router_plus += out.router_plus[r] / R;
    if (out.router_plus[r] > 0.0)
      out.largest_fixed_ratio = std::max(out.largest_fixed_ratio, out.router_abs[r] / out.router_plus[r]);
  }
  out.eq11_fixed_mask = against_every_router(cls_abs, r_abs, d11, G);
  out.eq12_fixed_mask = against_every_router(cls_abs, r_plus, d12, 2.0 * G);
  out.repaired_union = per_pool(worst_union, pools);
  out.repaired = per_pool(worst_rep, pools);
  out.repaired_bound = rep_rhs.mean();
  out.no_union = paired_inequality(cls_abs, no_union_rhs, no_union_diff);
  return out;
}

}  // namespace moelab::bounds
