#include "moelab/routing/expert_packing.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing {

Eigen::MatrixXd random_constant_experts(int m, int d, int k, std::uint64_t seed, std::uint64_t draw) {
  MOELAB_EXPECT(m >= 1 && d >= 1 && k >= 1, "random_constant_experts needs m, d, k >= 1");
  Eigen::MatrixXd Ut(d, m);
  RandomStream(seed, StreamTag::routing_experts, draw)
      .fill_normal(0, static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(d), Ut.data());
  return Ut.transpose() * (1.0 / std::sqrt(2.0 * d * k));  // Lemma A.8: N(0, I_d / (2 d k))
}

PackingCheck packing_trial(int m, int d, int k, std::uint64_t seed, std::uint64_t draw, std::uint64_t max_pairs) {
  return check_packing(random_constant_experts(m, d, k, seed, draw), k, max_pairs);
}

PackingEventFractions packing_event_fractions(const Eigen::MatrixXd& U, int k) {
  const int m = static_cast<int>(U.rows()), d = static_cast<int>(U.cols());
  const SubsetRanker ranker(m, k);
  const std::uint64_t C = ranker.count();
  MOELAB_EXPECT(C >= 2 && C <= 20000, "packing_event_fractions: 2 <= C(m, k) <= 20000");
  std::vector<Eigen::VectorXd> sums(C);
  std::vector<std::vector<int>> sets(C);
  for (std::uint64_t s = 0; s < C; ++s) {
    sets[s] = ranker.unrank(s);
    sums[s] = Eigen::VectorXd::Zero(d);
    for (int j : sets[s]) sums[s] += U.row(j).transpose();
  }
  std::uint64_t bad_pairs = 0, bad_sets = 0;
  for (std::uint64_t s = 0; s < C; ++s) {
    bad_sets += sums[s].squaredNorm() > 1.0;
    for (std::uint64_t u = s + 1; u < C; ++u) {
      std::vector<int> common;
      std::set_intersection(sets[s].begin(), sets[s].end(), sets[u].begin(), sets[u].end(), std::back_inserter(common));
      const double sym = 2.0 * (k - static_cast<int>(common.size()));  // |S delta S'|
      bad_pairs += (sums[s] - sums[u]).squaredNorm() < sym / (4.0 * k);
    }
  }
  const double Cd = static_cast<double>(C);
  return {static_cast<double>(bad_pairs) / (Cd * (Cd - 1.0) / 2.0), static_cast<double>(bad_sets) / Cd};
}

PackingCheck check_packing(const Eigen::MatrixXd& U, int k, std::uint64_t max_pairs) {
  const int m = static_cast<int>(U.rows());
  const SubsetRanker ranker(m, k);
  const std::uint64_t C = ranker.count();
  MOELAB_EXPECT(C <= (std::uint64_t{1} << 31) && C * (C - 1) / 2 <= max_pairs, "check_packing: too many pairs for an exhaustive check");
  const Eigen::MatrixXd G = U * U.transpose();
  // Per S: its members, q_S = 1_S' G 1_S, and g_S = G 1_S (an m-vector), so that for S' the cross
  // term 1_S' G 1_S is sum_{j in S'} g_S[j].
  std::vector<int> members(static_cast<std::size_t>(C) * static_cast<std::size_t>(k));
  std::vector<double> q(C);
  Eigen::MatrixXd g(m, static_cast<Eigen::Index>(C));
  PackingCheck out;
  out.max_norm2 = -std::numeric_limits<double>::infinity();
  for (std::uint64_t s = 0; s < C; ++s) {
    int* mem = members.data() + s * static_cast<std::uint64_t>(k);
    ranker.unrank(s, std::span<int>(mem, static_cast<std::size_t>(k)));
    Eigen::VectorXd col = Eigen::VectorXd::Zero(m);
    for (int i = 0; i < k; ++i) col += G.col(mem[i]);
    g.col(static_cast<Eigen::Index>(s)) = col;
    double qs = 0.0;
    for (int i = 0; i < k; ++i) qs += col(mem[i]);
    q[s] = qs;
    out.max_norm2 = std::max(out.max_norm2, qs);
  }
  out.min_separation = std::numeric_limits<double>::infinity();
  out.min_distance2 = std::numeric_limits<double>::infinity();
  for (std::uint64_t s = 0; s < C; ++s) {
    const double* gs = g.col(static_cast<Eigen::Index>(s)).data();
    const int* ms = members.data() + s * static_cast<std::uint64_t>(k);
    for (std::uint64_t t = s + 1; t < C; ++t) {
      const int* mt = members.data() + t * static_cast<std::uint64_t>(k);
      double cross = 0.0;
      int common = 0;
      for (int i = 0, a = 0; i < k; ++i) {
        cross += gs[mt[i]];
        while (a < k && ms[a] < mt[i]) ++a;  // both sorted: count |S cap S'|
        common += a < k && ms[a] == mt[i];
      }
      const double dist2 = q[s] + q[t] - 2.0 * cross;
      out.min_distance2 = std::min(out.min_distance2, dist2);
      const double ratio = dist2 * 4.0 * k / (2.0 * (k - common));
      if (ratio < out.min_separation) {
        out.min_separation = ratio;
        out.worst_s = s;
        out.worst_t = t;
      }
    }
  }
  out.pairs = C * (C - 1) / 2;
  return out;
}

double packing_unbounded_probability(int d) {
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(d), 2.0 * d));
}

double packing_unseparated_probability(int d) { return boost::math::cdf(boost::math::chi_squared(d), 0.5 * d); }

double packing_failure_union_bound(int m, int k, int d, bool printed) {
  const double logC = log_binomial(m, k);
  double log_terms[2];
  if (printed) {
    log_terms[0] = logC - d / 8.0;
    log_terms[1] = 2.0 * logC - d / 16.0;  // "(m choose k)^2 <= m^(2k) pairs"
  } else {
    const double C = std::exp(logC);
    log_terms[0] = logC + std::log(packing_unbounded_probability(d));
    log_terms[1] = std::log(C * (C - 1.0) / 2.0) + std::log(packing_unseparated_probability(d));
  }
  return std::min(1.0, std::exp(log_terms[0]) + std::exp(log_terms[1]));
}

int packing_sufficient_dimension(int m, int k, double eta, bool printed) {
  MOELAB_EXPECT(eta > 0 && eta < 1, "packing_sufficient_dimension needs 0 < eta < 1");
  int d = 1;
  while (packing_failure_union_bound(m, k, d, printed) > eta) ++d;
  return d;
}

}  // namespace moelab::routing
