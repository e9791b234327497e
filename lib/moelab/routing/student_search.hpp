// Optimised students for the miniature of Theorem 3.1 (granularity paper): Theorem 3.1 says that
// NO (m', k')-MoE with C(m', k') <= c C(m, k)^0.99 approximates the teacher, so its check must try the
// best students it can find, not random ones. With constant experts a student is its partition into
// regions V_i (its best experts are the conditional means E[f | V_i]), so the search is over routers:
//   - router students (m', k'): hill climbing on the routing vectors (one row perturbed at a time,
//     accepted when the in-sample error drops; the step halves after a run of rejections), started
//     from the best of a few Gaussian draws and the teacher's own first m' routing vectors;
//   - k-sum students (p, 1): p of the teacher's configuration sums r_S = sum_{i in S} r_i, started from
//     the p configurations of largest mass and improved by swaps (a swap is kept when the error drops).
// The search runs on a training sample; the claim then measures the chosen students on fresh points.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/keys.hpp"
#include "moelab/routing/separation.hpp"

namespace moelab::routing {

/// Points (d x n) of `law` and the teacher's region rank of each.
struct SeparationSample {
  Eigen::MatrixXd X;
  std::vector<std::uint64_t> teacher;
};
SeparationSample separation_sample(const ConstantExpertTeacher& t, InputLaw law, std::uint64_t n, std::uint64_t seed,
                                   std::uint64_t draw);

/// In-sample error of the best constant experts on the student's regions, relative to the sample's
/// E||f||^2: sum over cells of the within-cell sum of squares of u_S, divided by sum ||u_S||^2
/// (`student` = one region label per point).
double sample_relative_error(const ConstantExpertTeacher& t, const SeparationSample& s, const std::vector<std::uint64_t>& student);

/// Region labels of a router (rank of its top-k set) on the sample's points.
std::vector<std::uint64_t> router_labels(const Eigen::MatrixXd& routing, int k, const Eigen::MatrixXd& X);

struct SearchResult {
  Student student;
  double initial_error = 0.0;  // in-sample relative error of the starting point
  double final_error = 0.0;    // in-sample relative error after the search
  int accepted = 0, tried = 0;
};
/// Hill climbing over (m', k') routers (stream: key.with("climb", 1000 m' + k')).
SearchResult optimise_router_student(const ConstantExpertTeacher& t, const SeparationSample& s, int m_student, int k_student,
                                     int iterations, const RngKey& key);
/// Swap search over (p, 1) k-sum students (stream: key.with("swap", p)).
SearchResult optimise_ksum_student(const ConstantExpertTeacher& t, const SeparationSample& s, std::uint64_t p, int iterations,
                                   const RngKey& key);

/// Teacher region masses estimated on the sample, sorted descending (for the a-priori floor: any p
/// student cells cover at most the p largest masses).
std::vector<double> sorted_region_masses(const ConstantExpertTeacher& t, const SeparationSample& s);

}  // namespace moelab::routing
