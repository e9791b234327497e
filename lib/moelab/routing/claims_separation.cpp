// routing.thm31.separation: granularity paper, Theorem 3.1 (proof, Eqs. 3.5-3.6) in miniature. The
// teacher, students and point batches are those of the study routing.separation
// (constant_expert_teacher, ksum_student, gaussian_student, separation_experiment).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "moelab/routing/detail/claim_tests.hpp"
#include "moelab/routing/separation.hpp"

namespace moelab::routing::detail {

using claims::TestResult;

claims::Evidence check_separation(const claims::CheckBudget& b, const RngKey& key) {
  // Teacher (m, k) = (10, 3), C = 120, d = 64 (Lemma 3.3 holds for this draw: reported below).
  constexpr int m = 10, k = 3, d = 64;
  const ConstantExpertTeacher teacher = constant_expert_teacher(m, k, d, key);
  const double C = static_cast<double>(teacher.regions);
  std::vector<Student> students;
  // k-sum students: p of the C configuration sums (a (p, 1)-MoE), p <= C^0.99 = 114.
  for (std::uint64_t p : {12, 30, 60, 90, 114}) students.push_back(ksum_student(teacher, p, key));
  // Random Gaussian students of various granularities.
  for (auto [ms, ks] : std::vector<std::pair<int, int>>{{8, 1}, {8, 2}, {12, 3}}) students.push_back(gaussian_student(ms, ks, d, key));
  const int batches = b.pick(6, 16);
  const std::uint64_t n = b.pick<std::uint64_t>(20000, 40000);
  const auto errs = separation_experiment(teacher, students, InputLaw::gaussian, n, batches, key);
  std::vector<TestResult> printed, control;
  std::string detail;
  double min_floor = INFINITY;
  for (std::size_t s = 0; s < students.size(); ++s) {
    const auto& st = students[s];
    const auto& r = errs[s];
    min_floor = std::min(min_floor, r.floor_relative.mean());
    printed.push_back(lower_bound_test("", r.excess, 0.0));
    if (st.family == "ksum")
      control.push_back(lower_bound_test("", r.relative_error, 1.0 - static_cast<double>(st.regions) / C));
    detail += fmt::format("{}{} ({}, {}) (p/C = {:.3f}): relative error {:.4f} +- {:.2g}, floor {:.4f}", detail.empty() ? "" : "; ",
                          st.family, st.m_student, st.k_student, static_cast<double>(st.regions) / C, r.relative_error.mean(),
                          r.relative_error.standard_error(), r.floor_relative.mean());
  }
  // The exact student: all C configuration sums reproduce f (error 0 up to rounding).
  const auto exact = separation_experiment(teacher, {exact_ksum_student(teacher)}, InputLaw::gaussian, n, 1, key.with("exact"));
  claims::Evidence e;
  e.printed = claims::combine_bonferroni("best student error / E||f||^2 >= (delta/4)(1 - sum_i max_S mu(U_S cap V_i)) / E||f||^2 for "
                                         "students with C(m', k') <= C(m, k)^0.99",
                                         printed);
  // One wrong form (the naive count), rejected when any k-sum student rejects it.
  e.control(claims::combine_bonferroni("relative error >= 1 - C(m', k')/C(m, k) (the naive count) for the k-sum students", control));
  // Power: an error below the floor by 1% of the teacher's energy E||f||^2 (the excess's unit) must
  // show; the floors themselves range from 0.006 (p/C = 0.95) to 0.11.
  e.relevance = 0.01;
  e.note = fmt::format("teacher (10, 3), d = 64, C = 120; Lemma 3.3 for this draw: max ||u_S||^2 = {:.3f}, min separation ratio {:.3f}, "
                       "delta = min ||u_S - u_S'||^2 = {:.4f} (>= 1/(2k) = {:.4f}); {} batches x {} points per student; {}; smallest "
                       "floor {:.4f} (Theorem 3.1's c for these students). Exact (C, 1) k-sum student: relative error {:.2g}",
                       teacher.packing.max_norm2, teacher.packing.min_separation, teacher.packing.min_distance2, 0.5 / k, batches, n,
                       detail, min_floor, exact[0].relative_error.mean());
  return e;
}

}  // namespace moelab::routing::detail
