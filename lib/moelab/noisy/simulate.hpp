// Monte-Carlo simulators of the `noisy` paper's model (CPU, OpenMP across trials/chunks).
// Every random number is addressed by (seed, StreamTag, trial or chunk, index), and per-trial
// results are reduced in index order, so outputs are identical for any thread count.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/stats.hpp"
#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/model.hpp"
#include "moelab/noisy/risk.hpp"

namespace moelab::noisy {

/// Squared test errors of a dense and a per-expert estimator on the SAME test points (paired).
struct SampledRisk {
  Welford dense, sparse, difference;  // difference = sparse - dense, per test point
};

/// Draws `samples` test points (x, e) from the model (or the mis-routed input of Thm 4) and
/// records (xbar' b - y)^2 for both estimators. Test-time noise variance: options.test_noise.
SampledRisk sample_risk(const Model& m, const Eigen::VectorXd& b_dense, const SparseEstimator& b_sparse,
                        const RiskOptions& options, std::int64_t samples, std::uint64_t seed);

/// Monte-Carlo estimate of the directional derivative of the (mixture, training-noise) risk at b
/// along u: E[2 (xbar' b - y) xbar' u]. Zero at a stationary point (noisy, A.1).
Welford sample_dense_directional_derivative(const Model& m, const Eigen::VectorXd& b, const Eigen::VectorXd& u,
                                            std::int64_t samples, std::uint64_t seed);
Welford sample_sparse_directional_derivative(const Model& m, const SparseEstimator& b, const SparseEstimator& u,
                                             std::int64_t samples, std::uint64_t seed);

enum class Allocation { balanced, multinomial };

/// Samples per expert: balanced = floor(p_i n) plus the remainder to the largest fractional parts
/// (ties to the lower index); multinomial = drawn per sample (StreamTag::routing_labels).
std::vector<int> allocate_samples(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t trial);

/// One training set: noisy design (n x d), response, expert of each row.
struct TrainingSet {
  Eigen::MatrixXd xbar;
  Eigen::VectorXd y;
  std::vector<int> expert;  // row -> expert
  std::vector<int> count;   // expert -> rows
};
TrainingSet draw_training_set(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t trial);
/// The same training set written into `out`, reusing its storage when the sizes match (the same
/// bytes as the returning overload).
void draw_training_set(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t trial, TrainingSet& out);

struct ExcessTrial {
  double dense = 0.0, sparse = 0.0;  // excess risks via the exact quadratic forms
  bool dense_fallback = false;       // dense solve needed the orthogonal fallback
  int sparse_fallbacks = 0;          // number of experts whose solve needed it
};
/// Min-norm dense and per-expert estimators fitted on one training set, excess risk of each.
ExcessTrial excess_trial(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t trial);

/// One sample size's excess-risk experiment, reduced in trial order: the excess-risk study's
/// `reduce` and the Sec. 4.5 claims both use it, so they measure the same thing.
struct ExcessSummary {
  Welford dense, sparse;
  Welford difference;  // sparse - dense, paired on the same training set
  std::int64_t dense_fallbacks = 0, sparse_fallbacks = 0;
};
ExcessSummary summarize_excess(std::span<const ExcessTrial> trials);
/// `trials` training sets of size n, trial t drawn from (seed, t) by excess_trial, fitted in parallel
/// and reduced by summarize_excess: the same numbers as the study noisy.excess_risk at a point whose
/// key gives `seed`.
ExcessSummary simulate_excess(const Model& m, int n, Allocation a, std::int64_t trials, std::uint64_t seed);

/// QDA router of Thm 1 / A.7: misclassification rates on shared test points.
struct RouterTrial {
  double printed_error = 0.0;    // score as printed in A.7.1
  double corrected_error = 0.0;  // plug-in Bayes score (docs/errata.md)
  double bayes_error = 0.0;      // Bayes classifier with the true covariances
  double constant_error = 0.0;   // negative control: always routes to expert 0
};
RouterTrial router_trial(const Model& m, int n, int test_points, std::uint64_t seed, std::uint64_t trial);

/// One sample size's router experiment, reduced in trial order (the study noisy.qda_router's
/// `reduce` and the Thm 1 claim): error rates and excess over the Bayes rule, per trained router.
struct RouterSummary {
  Welford printed, corrected, bayes;                           // error rates
  Welford printed_excess, corrected_excess, constant_excess;  // minus the Bayes error, paired
};
RouterSummary summarize_router(std::span<const RouterTrial> trials);
/// `trials` routers trained on n samples (trial t from (seed, t)), reduced by summarize_router.
RouterSummary simulate_router(const Model& m, int n, int test_points, std::int64_t trials, std::uint64_t seed);

}  // namespace moelab::noisy
