// Helpers shared by the noisy claim files (claims_*.cpp): the fixed test models, estimator layout,
// budgets, finite-size corrections and the power statements of combined tests. Not installed.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/model.hpp"

namespace moelab::noisy::detail {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;
using claims::TestResult;
using claims::combined_relevance;

/// A closed form off by this fraction must be detected (the default relevance of the equality claims).
inline constexpr double kRelevance = 0.05;

/// A d-vector of N(0, scale^2) entries from (seed, StreamTag::beta_star, trial).
Eigen::VectorXd random_vector(int d, double scale, std::uint64_t seed, std::uint64_t trial);

/// A heterogeneous small model: three experts of sizes 3, 4, 5 with Toeplitz covariances of scales
/// 1, 2, 0.5 and rho 0.5, 0.3, 0.7, p = (0.5, 0.3, 0.2), sigma2 = 0.5, beta* ~ N(0, I/12) from `seed`.
/// Small d keeps sampling cheap; heterogeneity makes every term of the closed forms matter.
Model heterogeneous_model(std::uint64_t seed);
/// The same covariances and p with a fixed beta_i* = 1/sqrt(12) on every coordinate: for claims whose
/// printed and exact forms must differ by a known margin at every suite seed.
Model heterogeneous_model_fixed_beta();
/// k equal experts of `block` features, Toeplitz(rho) x scale (identity when rho = 0), uniform p,
/// beta* ~ N(0, I/d) from `seed`.
Model equal_block_model(int k, int block, double rho, double scale, double sigma2, std::uint64_t seed);

/// Per-expert estimator <-> its blocks stacked into a d-vector.
Eigen::VectorXd stack(const Model& m, const SparseEstimator& b);
SparseEstimator split(const Model& m, const Eigen::VectorXd& b);

/// Monte-Carlo test points of the risk claims.
inline std::int64_t test_points(const CheckBudget& b) { return b.pick<std::int64_t>(200000, 2000000); }

/// Finite-size corrections of the asymptotic claims.
inline double inv_n(double n) { return 1.0 / n; }
inline double inv_n2(double n) { return 1.0 / (n * n); }
inline double inv_n23(double n) { return std::pow(n, -2.0 / 3.0); }

/// The relevance of an erratum claim: a deviation of `rel` x the exact value, but never more than
/// the distance between the printed and the exact value (a test that cannot tell them apart must not
/// let the printed form hold).
double erratum_relevance(double printed, double exact, double rel = kRelevance);

// One registration function per claim family (claims_<family>.cpp).
void register_eq34_claims(claims::Registry& r);
void register_thm2_claims(claims::Registry& r);
void register_thm3_claims(claims::Registry& r);
void register_thm4_claims(claims::Registry& r);
void register_thm4_remark_claims(claims::Registry& r);
void register_thm5_claims(claims::Registry& r);
void register_a6_claims(claims::Registry& r);
void register_a63_claims(claims::Registry& r);
void register_sec45_claims(claims::Registry& r);
void register_thm1_claims(claims::Registry& r);

}  // namespace moelab::noisy::detail
