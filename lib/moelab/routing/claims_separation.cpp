// routing.thm31.separation: granularity paper, Theorem 3.1 (proof, Eqs. 3.5-3.6) in miniature, with
// optimised students.
//
// Teacher: (m, k) = (10, 3), C = C(10, 3) = 120 regions, d = 64, Gaussian routing and random constant
// experts (Lemma 3.3; delta = min_{S != S'} |u_S - u_S'|^2 is reported). Theorem 3.1's hypothesis is
// C(m', k') <= c C^0.99 = c 114.3, so the students it speaks about have at most 114 regions:
//   in the hypothesis:  router students (8, 1), (8, 2), (10, 2), (9, 3) (8, 28, 45, 84 regions) and
//                       k-sum students (p, 1) with p = 12, 30, 60, 114, all optimised (student_search.hpp);
//   outside (reported, not counted): (12, 3) (220 regions) and (10, 3) (120 regions, the teacher's own
//                       architecture).
// The floor is a-priori (it depends on the teacher and p only, not on the student found): in any
// student cell V_i the best constant leaves at least (delta/2)(mu(V_i) - max_S mu(U_S cap V_i)) (the
// weighted variance of points at pairwise squared distance >= delta), and the cells' maxima cover at
// most the p largest teacher masses, so every p-region student has
//     E|f - f'|^2 >= (delta/4) (1 - sum of the p largest mu(U_S))      (the proof's delta/4; delta/2 is sharp).
// Printed: every optimised in-hypothesis student's error (fresh points, unbiased n/(n-1) form) is at
// least its floor. Control (the nearest wrong statement: the separation without the counting
// hypothesis): the teacher-architecture student (10, 3), optimised the same way, also stays above the
// smallest in-hypothesis floor; it must be rejected (the search finds the teacher's router, error 0).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "moelab/routing/detail/claim_support.hpp"
#include "moelab/routing/separation.hpp"
#include "moelab/routing/student_search.hpp"

namespace moelab::routing::detail {

namespace {

using claims::TestResult;

claims::Evidence check_separation(const claims::CheckBudget& b, const RngKey& key) {
  constexpr int m = 10, k = 3, d = 64;
  const ConstantExpertTeacher teacher = constant_expert_teacher(m, k, d, key);
  const double C = static_cast<double>(teacher.regions), C099 = std::pow(C, 0.99);
  const SeparationSample train = separation_sample(teacher, InputLaw::gaussian, b.pick<std::uint64_t>(4000, 16000),
                                                   key.with("train").seed(), 0);
  const SeparationSample masses = separation_sample(teacher, InputLaw::gaussian, b.pick<std::uint64_t>(60000, 400000),
                                                    key.with("masses").seed(), 0);
  const std::vector<double> sorted = sorted_region_masses(teacher, masses);
  const int climb = b.pick(60, 600), swaps = b.pick(80, 800);
  std::vector<SearchResult> found;
  for (auto [ms, ks] : std::vector<std::pair<int, int>>{{8, 1}, {8, 2}, {10, 2}, {9, 3}, {12, 3}, {10, 3}})
    found.push_back(optimise_router_student(teacher, train, ms, ks, climb, key));
  for (std::uint64_t p : {12, 30, 60, 114}) found.push_back(optimise_ksum_student(teacher, train, p, swaps, key));
  std::vector<Student> students;
  for (const auto& f : found) students.push_back(f.student);
  // 16 batches at --quick: the lower-bound tests are Student t with batches - 1 degrees of freedom,
  // and with 8 batches (7 dof) the t quantile at the suite's alpha/(m B) made the detectable deviation
  // 1.1 x the relevance at seed 8 (inconclusive there, holds at the other 19 of 20 seeds).
  const int batches = b.pick(16, 24);
  const std::uint64_t n = b.pick<std::uint64_t>(3000, 20000);
  const auto errs = separation_experiment(teacher, students, InputLaw::gaussian, n, batches, key.with("eval"));
  const double norm2 = errs[0].teacher_norm2.mean();
  const auto floor_of = [&](std::uint64_t p) {
    double top = 0.0;
    for (std::uint64_t i = 0; i < std::min<std::uint64_t>(p, sorted.size()); ++i) top += sorted[i];
    return 0.25 * teacher.packing.min_distance2 * std::max(0.0, 1.0 - top) / norm2;
  };
  std::vector<TestResult> printed;
  std::string inside, outside;
  double min_floor = INFINITY, min_ratio = INFINITY;
  std::size_t teacher_arch = 0;
  for (std::size_t s = 0; s < students.size(); ++s) {
    const auto& st = students[s];
    const auto& r = errs[s];
    const double fl = floor_of(st.regions);
    const bool in = static_cast<double>(st.regions) <= C099;
    const std::string line = fmt::format("{} ({}, {}) p = {}: error {:.4f} +- {:.2g} (in-sample {:.4f} -> {:.4f}, {}/{} steps kept), "
                                         "a-priori floor {:.4f}",
                                         st.family, st.m_student, st.k_student, st.regions, r.relative_error.mean(),
                                         r.relative_error.standard_error(), found[s].initial_error, found[s].final_error,
                                         found[s].accepted, found[s].tried, fl);
    if (in) {
      printed.push_back(lower_bound_test("", r.relative_error, fl));
      min_floor = std::min(min_floor, fl);
      if (fl > 0) min_ratio = std::min(min_ratio, r.relative_error.mean() / fl);
      inside += (inside.empty() ? "" : "; ") + line;
    } else {
      outside += (outside.empty() ? "" : "; ") + line;
      if (st.m_student == m && st.k_student == k) teacher_arch = s;
    }
  }
  claims::Evidence e;
  e.printed = claims::combine_bonferroni("optimised students with C(m', k') <= C(m, k)^0.99: relative error >= (delta/4)(1 - top-p "
                                         "teacher masses) / E|f|^2 (a-priori floor)",
                                         printed);
  e.control(lower_bound_test("the teacher-architecture student (10, 3) (p = C = 120, outside the counting hypothesis) also has "
                             "relative error >= the smallest in-hypothesis floor",
                             errs[teacher_arch].relative_error, min_floor));
  // Power: an error below the floor by 1% of the teacher's energy E|f|^2 must show.
  e.relevance = 0.01;
  e.note = fmt::format("teacher (10, 3), d = 64, C = 120, C^0.99 = {:.1f}; Lemma 3.3 for this draw: max |u_S|^2 = {:.3f}, delta = {:.4f} "
                       "(>= 1/(2k) = {:.4f}); E|f|^2 = {:.4f}; students optimised on {} points, measured on {} x {} fresh points. In "
                       "the hypothesis: {}. Smallest error / floor {:.3g}. Outside (not counted): {}",
                       C099, teacher.packing.max_norm2, teacher.packing.min_distance2, 0.5 / k, norm2, train.teacher.size(), batches, n,
                       inside, min_ratio, outside);
  return e;
}

}  // namespace

void register_separation_claims(claims::Registry& r) {
  r.add({"routing.thm31.separation", "granularity, Theorem 3.1 (proof, Eqs. 3.5-3.6), in miniature",
         "An (m, k)-MoE with constant experts cannot be approximated by any (m', k')-MoE with C(m', k') <= c C(m, k)^0.99: for "
         "optimised students the error is at least the a-priori floor (delta/4)(1 - sum of the p largest mu(U_S)).",
         ClaimKind::bound, check_separation});
}

}  // namespace moelab::routing::detail
