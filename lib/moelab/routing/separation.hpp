// The piecewise-constant separation of Theorem 3.1 (granularity paper), in miniature. A teacher
// (m, k)-MoE with constant experts computes f(x) = u_S for x in U_S (Sec. 3.1), u_S = sum_{j in S} u_j.
// A student (m', k')-MoE with constant experts is constant on each of its p = C(m', k') regions V_i;
// for given regions the best L2 student is the conditional mean v_i = E[f | V_i], with error
//     E||f - f'||^2 = sum_i mu(V_i) Var(f | V_i) = sum_i sum_S mu(U_S cap V_i) ||u_S - v_i||^2,
// computed here from the joint counts of (student region, teacher region) over Monte-Carlo points
// (conditional means over region intersections; the per-cell variance with the unbiased n_i/(n_i-1)
// factor).
//
// The floor (the proof of Theorem 3.1, Eqs. 3.5-3.6, with edges between all distinct configurations):
// if ||u_S - u_S'||^2 >= delta for all S != S', then within a cell at most one configuration can be
// closer than sqrt(delta)/2 to v_i, so
//     E||f - f'||^2 >= (delta / 4) (1 - sum_i max_S mu(U_S cap V_i)) >= (delta / 4) (1 - p max_S mu(U_S)).
// Lemma 3.3 gives delta >= 1/(2k) and E||f||^2 <= 1; Lemma 3.2 bounds the region masses.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/keys.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/routing/expert_packing.hpp"

#include "moelab/routing/region_masses.hpp"

namespace moelab::routing {

struct SeparationResult {
  std::uint64_t points = 0;
  std::uint64_t student_regions = 0;  // p = C(m', k')
  std::uint64_t cells_hit = 0;        // student regions that received points
  double teacher_norm2 = 0.0;         // E||f||^2
  double error = 0.0;                 // E||f - f'||^2 of the best student on these regions (n_i/(n_i-1) corrected)
  double error_plugin = 0.0;          // the in-sample value (biased low by the fitted means)
  double relative_error = 0.0;        // error / teacher_norm2
  double coverage = 0.0;              // sum_i max_S mu_hat(U_S cap V_i)
  double floor = 0.0;                 // (delta / 4) (1 - coverage)
};

/// Teacher routing R (m x d) with top-k and experts U (m x d_out, row j = u_j); student routing Rs
/// (m' x d) with top-k'. `delta` is min_{S != S'} ||u_S - u_S'||^2 (check_packing's min_distance2).
/// Points: draw_points(law, seed, draw, 0 .. points - 1).
SeparationResult piecewise_constant_separation(const Eigen::MatrixXd& R, int k, const Eigen::MatrixXd& U,
                                               const Eigen::MatrixXd& Rs, int k_student, double delta, InputLaw law,
                                               std::uint64_t points, std::uint64_t seed, std::uint64_t draw);

/// Routing vectors of the student whose regions are exactly those of the teacher when
/// `subset` = all C(m, k) configurations: one vector per configuration, r_S = sum_{i in S} r_i
/// (top-k of <x, r_j> is the S maximising <x, r_S>, so an (C(m, k), 1)-MoE reproduces every U_S).
/// Row i is the k-sum of configuration subset[i] (ranks).
Eigen::MatrixXd k_sum_routing_vectors(const Eigen::MatrixXd& R, int k, const std::vector<std::uint64_t>& subset);

/// `count` distinct configuration ranks out of C(m, k), drawn uniformly (a partial Fisher-Yates
/// shuffle with uniforms of RandomStream(seed, routing_vectors, draw)), ascending.
std::vector<std::uint64_t> random_configurations(std::uint64_t total, std::uint64_t count, std::uint64_t seed,
                                                 std::uint64_t draw);

// ---- The miniature experiment of Theorem 3.1, shared by the study routing.separation and the claim
// routing.thm31.separation ----

/// Teacher: Gaussian routing R (m x d, top-k) and random constant experts U (Lemma 3.3), both drawn
/// from `key`, with the packing of U checked (its min_distance2 is the delta of the floor).
struct ConstantExpertTeacher {
  int m = 0, k = 0, d = 0;
  Eigen::MatrixXd R, U;
  PackingCheck packing;
  std::uint64_t regions = 0;  // C(m, k)
};
ConstantExpertTeacher constant_expert_teacher(int m, int k, int d, const RngKey& key,
                                              std::uint64_t max_pairs = 200'000'000);

/// A student (m', k')-MoE given by its routing vectors (constant experts: only its regions matter).
struct Student {
  std::string family;  // "ksum" or "gaussian"
  int m_student = 0, k_student = 0;
  std::uint64_t regions = 0;  // p = C(m', k')
  Eigen::MatrixXd routing;    // m' x d
};
/// p of the teacher's C(m, k) configuration sums (a (p, 1)-MoE, k_sum_routing_vectors), the p
/// configurations drawn from key.with("ksum", p).
Student ksum_student(const ConstantExpertTeacher& teacher, std::uint64_t p, const RngKey& key);
/// A Gaussian (m', k') router drawn from key.with("gaussian", 1000 m' + k').
Student gaussian_student(int m_student, int k_student, int d, const RngKey& key);

/// Per student, over `batches` independent point batches of `points` points (batch t: points of
/// key.with("points") draw t, the same for every student):
struct StudentErrors {
  Welford relative_error;  // E||f - f'||^2 / E||f||^2 of the best student on its regions
  Welford floor_relative;  // (delta/4)(1 - coverage) / E||f||^2
  Welford excess;          // relative_error - floor_relative (>= 0 by Theorem 3.1's argument)
  Welford coverage;        // sum_i max_S mu_hat(U_S cap V_i)
  Welford teacher_norm2;   // E||f||^2
};
std::vector<StudentErrors> separation_experiment(const ConstantExpertTeacher& teacher, const std::vector<Student>& students,
                                                 InputLaw law, std::uint64_t points, std::int64_t batches, const RngKey& key,
                                                 const std::function<void()>& on_run = {});

}  // namespace moelab::routing
