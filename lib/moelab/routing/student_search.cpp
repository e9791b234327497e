#include "moelab/routing/student_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing {

SeparationSample separation_sample(const ConstantExpertTeacher& t, InputLaw law, std::uint64_t n, std::uint64_t seed,
                                   std::uint64_t draw) {
  SeparationSample s;
  s.X.resize(t.d, static_cast<Eigen::Index>(n));
  draw_points(law, seed, draw, 0, s.X);
  s.teacher = router_labels(t.R, t.k, s.X);
  return s;
}

std::vector<std::uint64_t> router_labels(const Eigen::MatrixXd& routing, int k, const Eigen::MatrixXd& X) {
  const int m = static_cast<int>(routing.rows());
  const SubsetRanker ranker(m, k);
  const Eigen::MatrixXd S = routing * X;
  std::vector<std::uint64_t> out(static_cast<std::size_t>(X.cols()));
  std::vector<int> idx(static_cast<std::size_t>(k));
  std::vector<double> work(static_cast<std::size_t>(k));
  for (Eigen::Index c = 0; c < X.cols(); ++c) {
    top_k_indices(S.col(c).data(), m, k, idx.data(), work.data());
    out[static_cast<std::size_t>(c)] = ranker.rank(idx);
  }
  return out;
}

double sample_relative_error(const ConstantExpertTeacher& t, const SeparationSample& s, const std::vector<std::uint64_t>& student) {
  MOELAB_EXPECT(student.size() == s.teacher.size(), "sample_relative_error: one student label per point");
  // Within-cell sum of squares of u_S (granularity, proof of Thm 3.1: the best constant on a cell is
  // its mean): sum_cell [sum ||u_S||^2 - ||sum u_S||^2 / n_cell], with u_S = U' 1_S.
  const SubsetRanker ranker(t.m, t.k);
  const Eigen::MatrixXd G = t.U * t.U.transpose();
  std::unordered_map<std::uint64_t, std::size_t> cell_index;
  std::vector<Eigen::VectorXd> counts;
  std::vector<double> ncell;
  double total_q = 0.0;
  std::vector<int> members(static_cast<std::size_t>(t.k));
  std::vector<double> q_of(t.regions, -1.0);
  for (std::size_t i = 0; i < student.size(); ++i) {
    auto [it, fresh] = cell_index.try_emplace(student[i], counts.size());
    if (fresh) counts.push_back(Eigen::VectorXd::Zero(t.m)), ncell.push_back(0.0);
    ranker.unrank(s.teacher[i], members);
    double& q = q_of[s.teacher[i]];
    if (q < 0) {
      q = 0.0;
      for (int a : members)
        for (int b : members) q += G(a, b);
    }
    for (int a : members) counts[it->second](a) += 1.0;
    ncell[it->second] += 1.0;
    total_q += q;
  }
  double between = 0.0;
  for (std::size_t c = 0; c < counts.size(); ++c) between += counts[c].dot(G * counts[c]) / ncell[c];
  return std::max(0.0, total_q - between) / total_q;
}

SearchResult optimise_router_student(const ConstantExpertTeacher& t, const SeparationSample& s, int ms, int ks, int iterations,
                                     const RngKey& key) {
  const int d = t.d;
  const RngKey k2 = key.with("climb", 1000 * static_cast<std::int64_t>(ms) + ks);
  const auto err = [&](const Eigen::MatrixXd& R) { return sample_relative_error(t, s, router_labels(R, ks, s.X)); };
  // Starting points: three Gaussian routers and the teacher's first min(m', m) routing vectors (padded
  // with Gaussian rows): the best of them.
  std::vector<Eigen::MatrixXd> starts;
  for (std::uint64_t draw = 0; draw < 3; ++draw) starts.push_back(gaussian_routing_vectors(ms, d, k2.with("start").seed(), draw));
  Eigen::MatrixXd aligned = gaussian_routing_vectors(ms, d, k2.with("pad").seed(), 0);
  const int shared = std::min(ms, t.m);
  aligned.topRows(shared) = t.R.topRows(shared);
  starts.push_back(aligned);
  SearchResult r;
  Eigen::MatrixXd best;
  double best_err = INFINITY;
  for (const auto& R : starts) {
    const double e = err(R);
    if (e < best_err) best_err = e, best = R;
  }
  r.initial_error = best_err;
  const RandomStream rs(k2.with("steps").seed(), StreamTag::routing_vectors, 0);
  double step = 0.5;
  int rejected_run = 0;
  for (int it = 0; it < iterations; ++it) {
    const auto base = static_cast<std::uint64_t>(it) * static_cast<std::uint64_t>(d + 2);
    const int row = std::min(ms - 1, static_cast<int>(rs.uniform(base) * ms));
    Eigen::MatrixXd cand = best;
    const double scale = step * best.row(row).norm() / std::sqrt(static_cast<double>(d));
    for (int c = 0; c < d; ++c) cand(row, c) += scale * rs.normal(base + 2 + static_cast<std::uint64_t>(c));
    const double e = err(cand);
    ++r.tried;
    if (e < best_err) {
      best_err = e, best = std::move(cand), ++r.accepted, rejected_run = 0;
    } else if (++rejected_run >= 15) {
      step *= 0.5, rejected_run = 0;
    }
  }
  r.final_error = best_err;
  r.student = {"router", ms, ks, binomial(ms, ks), best};
  return r;
}

std::vector<double> sorted_region_masses(const ConstantExpertTeacher& t, const SeparationSample& s) {
  std::vector<double> mass(t.regions, 0.0);
  for (auto lab : s.teacher) mass[lab] += 1.0;
  for (double& v : mass) v /= static_cast<double>(s.teacher.size());
  std::sort(mass.begin(), mass.end(), std::greater<>());
  return mass;
}

SearchResult optimise_ksum_student(const ConstantExpertTeacher& t, const SeparationSample& s, std::uint64_t p, int iterations,
                                   const RngKey& key) {
  MOELAB_EXPECT(p >= 1 && p <= t.regions, "optimise_ksum_student needs 1 <= p <= C(m, k)");
  const std::uint64_t C = t.regions;
  std::vector<std::uint64_t> all(C);
  std::iota(all.begin(), all.end(), 0);
  const Eigen::MatrixXd K = k_sum_routing_vectors(t.R, t.k, all);
  const Eigen::MatrixXd scores = K * s.X;  // C x n: <x, r_S> for every configuration
  const auto n = static_cast<std::size_t>(s.X.cols());
  const auto labels_of = [&](const std::vector<std::uint64_t>& P) {
    std::vector<std::uint64_t> lab(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t arg = 0;
      double best = -INFINITY;
      for (std::size_t a = 0; a < P.size(); ++a) {
        const double v = scores(static_cast<Eigen::Index>(P[a]), static_cast<Eigen::Index>(i));
        if (v > best) best = v, arg = a;
      }
      lab[i] = arg;
    }
    return lab;
  };
  // Start: the p configurations of largest sample mass.
  std::vector<double> mass(C, 0.0);
  for (auto lab : s.teacher) mass[lab] += 1.0;
  std::vector<std::uint64_t> order = all;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return mass[a] > mass[b]; });
  std::vector<std::uint64_t> P(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(p)),
      rest(order.begin() + static_cast<std::ptrdiff_t>(p), order.end());
  SearchResult r;
  double best_err = sample_relative_error(t, s, labels_of(P));
  r.initial_error = best_err;
  const RandomStream rs(key.with("swap", static_cast<std::int64_t>(p)).seed(), StreamTag::routing_vectors, 0);
  for (int it = 0; it < iterations && !rest.empty(); ++it) {
    const auto a = std::min<std::size_t>(P.size() - 1, static_cast<std::size_t>(rs.uniform(2 * static_cast<std::uint64_t>(it)) * P.size()));
    const auto b = std::min<std::size_t>(rest.size() - 1,
                                         static_cast<std::size_t>(rs.uniform(2 * static_cast<std::uint64_t>(it) + 1) * rest.size()));
    std::swap(P[a], rest[b]);
    const double e = sample_relative_error(t, s, labels_of(P));
    ++r.tried;
    if (e < best_err) best_err = e, ++r.accepted;
    else std::swap(P[a], rest[b]);
  }
  r.final_error = best_err;
  std::sort(P.begin(), P.end());
  r.student = {"ksum", static_cast<int>(p), 1, p, k_sum_routing_vectors(t.R, t.k, P)};
  return r;
}

}  // namespace moelab::routing
