#include "moelab/routing/separation.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing {

SeparationResult piecewise_constant_separation(const Eigen::MatrixXd& R, int k, const Eigen::MatrixXd& U,
                                               const Eigen::MatrixXd& Rs, int ks, double delta, InputLaw law,
                                               std::uint64_t points, std::uint64_t seed, std::uint64_t draw) {
  const int m = static_cast<int>(R.rows()), d = static_cast<int>(R.cols()), ms = static_cast<int>(Rs.rows());
  MOELAB_EXPECT(Rs.cols() == d && U.rows() == m && points >= 2, "piecewise_constant_separation: shapes or points");
  const SubsetRanker teacher(m, k), student(ms, ks);
  const std::uint64_t C = teacher.count(), P = student.count();
  MOELAB_EXPECT(P <= ~std::uint64_t{0} / C, "piecewise_constant_separation: C(m, k) C(m', k') must fit in 64 bits");
  // Joint counts of (student region i, teacher region S), key i C + S.
  RegionHistogram joint(C * P, 0);
  constexpr Eigen::Index batch = 1024;
  Eigen::MatrixXd X(d, batch), S(m, batch), Ss(ms, batch);
  std::vector<int> it(static_cast<std::size_t>(k)), is(static_cast<std::size_t>(ks));
  std::vector<double> work(static_cast<std::size_t>(std::max(k, ks)));
  for (std::uint64_t done = 0; done < points;) {
    const auto b = static_cast<Eigen::Index>(std::min<std::uint64_t>(batch, points - done));
    draw_points(law, seed, draw, done, X.leftCols(b));
    S.leftCols(b).noalias() = R * X.leftCols(b);
    Ss.leftCols(b).noalias() = Rs * X.leftCols(b);
    for (Eigen::Index c = 0; c < b; ++c) {
      top_k_indices(S.col(c).data(), m, k, it.data(), work.data());
      top_k_indices(Ss.col(c).data(), ms, ks, is.data(), work.data());
      joint.add(student.rank(is) * C + teacher.rank(it));
    }
    done += static_cast<std::uint64_t>(b);
  }
  const Eigen::MatrixXd G = U * U.transpose();
  const double n = static_cast<double>(points);
  SeparationResult r;
  r.points = points;
  r.student_regions = P;
  const auto entries = joint.sorted_entries();  // grouped by student region (key / C), ascending
  std::vector<int> members(static_cast<std::size_t>(k));
  for (std::size_t a = 0; a < entries.size();) {
    const std::uint64_t cell = entries[a].first / C;
    Eigen::VectorXd expert_counts = Eigen::VectorXd::Zero(m);  // sum over points of 1_S
    double ni = 0.0, sum_q = 0.0, best = 0.0;
    for (; a < entries.size() && entries[a].first / C == cell; ++a) {
      const double c = static_cast<double>(entries[a].second);
      teacher.unrank(entries[a].first % C, members);
      double q = 0.0;  // ||u_S||^2 = 1_S' G 1_S
      for (int i : members) {
        expert_counts(i) += c;
        for (int j : members) q += G(i, j);
      }
      ni += c;
      sum_q += c * q;
      best = std::max(best, c);
    }
    // Within-cell sum of squares: sum ||u_S||^2 - n_i ||v_i||^2 with v_i = U' a_i / n_i.
    const double ss = std::max(0.0, sum_q - expert_counts.dot(G * expert_counts) / ni);
    r.teacher_norm2 += sum_q / n;
    r.error_plugin += ss / n;
    if (ni >= 2) r.error += ss / (ni - 1.0) * (ni / n);
    r.coverage += best / n;
    ++r.cells_hit;
  }
  r.relative_error = r.error / r.teacher_norm2;
  r.floor = 0.25 * delta * (1.0 - r.coverage);
  return r;
}

Eigen::MatrixXd k_sum_routing_vectors(const Eigen::MatrixXd& R, int k, const std::vector<std::uint64_t>& subset) {
  const SubsetRanker ranker(static_cast<int>(R.rows()), k);
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(subset.size()), R.cols());
  std::vector<int> members(static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < subset.size(); ++i) {
    ranker.unrank(subset[i], members);
    for (int j : members) out.row(static_cast<Eigen::Index>(i)) += R.row(j);
  }
  return out;
}

std::vector<std::uint64_t> random_configurations(std::uint64_t total, std::uint64_t count, std::uint64_t seed, std::uint64_t draw) {
  MOELAB_EXPECT(count >= 1 && count <= total && total <= (std::uint64_t{1} << 26), "random_configurations: 1 <= count <= total <= 2^26");
  std::vector<std::uint64_t> perm(total);
  for (std::uint64_t i = 0; i < total; ++i) perm[i] = i;
  const RandomStream rs(seed, StreamTag::routing_vectors, draw);
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto j = i + static_cast<std::uint64_t>(rs.uniform(2 * i) * static_cast<double>(total - i));
    std::swap(perm[i], perm[std::min(j, total - 1)]);
  }
  perm.resize(count);
  std::sort(perm.begin(), perm.end());
  return perm;
}

ConstantExpertTeacher constant_expert_teacher(int m, int k, int d, const RngKey& key, std::uint64_t max_pairs) {
  ConstantExpertTeacher t;
  t.m = m, t.k = k, t.d = d;
  t.R = gaussian_routing_vectors(m, d, key.with("teacher_routing").seed(), 0);
  t.U = random_constant_experts(m, d, k, key.with("teacher_experts").seed(), 0);
  t.packing = check_packing(t.U, k, max_pairs);
  t.regions = binomial(m, k);
  return t;
}

Student ksum_student(const ConstantExpertTeacher& teacher, std::uint64_t p, const RngKey& key) {
  const auto sub = random_configurations(teacher.regions, p, key.with("ksum", static_cast<std::int64_t>(p)).seed(), 0);
  return {"ksum", static_cast<int>(p), 1, p, k_sum_routing_vectors(teacher.R, teacher.k, sub)};
}

Student gaussian_student(int m_student, int k_student, int d, const RngKey& key) {
  const auto seed = key.with("gaussian", 1000 * static_cast<std::int64_t>(m_student) + k_student).seed();
  return {"gaussian", m_student, k_student, binomial(m_student, k_student), gaussian_routing_vectors(m_student, d, seed, 0)};
}

std::vector<StudentErrors> separation_experiment(const ConstantExpertTeacher& teacher, const std::vector<Student>& students,
                                                 InputLaw law, std::uint64_t points, std::int64_t batches, const RngKey& key,
                                                 const std::function<void()>& on_run) {
  MOELAB_EXPECT(batches >= 1, "separation_experiment needs at least one batch");
  const auto T = static_cast<std::size_t>(batches);
  const std::uint64_t seed = key.with("points").seed();
  const auto runs = parallel_map<SeparationResult>(students.size() * T, [&](std::size_t i) {
    const Student& st = students[i / T];
    auto r = piecewise_constant_separation(teacher.R, teacher.k, teacher.U, st.routing, st.k_student,
                                           teacher.packing.min_distance2, law, points, seed, i % T);
    if (on_run) on_run();
    return r;
  });
  std::vector<StudentErrors> out(students.size());
  for (std::size_t s = 0; s < students.size(); ++s)
    for (std::size_t t = 0; t < T; ++t) {
      const auto& r = runs[s * T + t];
      auto& o = out[s];
      const double floor_rel = r.floor / r.teacher_norm2;
      o.relative_error.add(r.relative_error), o.floor_relative.add(floor_rel), o.excess.add(r.relative_error - floor_rel);
      o.coverage.add(r.coverage), o.teacher_norm2.add(r.teacher_norm2);
    }
  return out;
}

}  // namespace moelab::routing
