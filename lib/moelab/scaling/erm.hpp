// Empirical risk minimisation (ERM) for squared loss over a routed model class where ERM is exact: the
// `scaling` paper's generalization bound (as its review states it: "combined with a standard ERM analysis
// for squared loss, this yields a generalization bound", excess risk <~ approximation error
// + sigma^2 (active-parameter entropy + routing overhead) / n) in its smallest computable instance.
//
// Model: inputs x in [0, 1] (uniform unless stated), y = f(x) + sigma z, z ~ N(0, 1). An E-expert top-1
// MoE with constant experts is a piecewise-constant function on E intervals: the router is the partition
// (E - 1 breakpoints), the experts are the E constants (E active parameters per input: one).
//   fixed routing   the partition is given (E cells): ERM = the regressogram (cell means of y), whose
//                   expected excess risk has the exact closed form `regressogram_risk` (multinomial counts);
//   learned routing ERM over every partition into E intervals with breakpoints between data points (the
//                   routing patterns, C(n - 1, E - 1) of them on n sorted points) and the constants on them:
//                   least-squares segmentation, exact by dynamic programming (`best_segmentation`, O(E n^2)).
// Excess risk = ||f_hat - f||^2 in L2(P_X) (population) or in the empirical norm of the design (in-sample).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace moelab::scaling {

// ---- fixed routing: the regressogram ----

/// One cell of a fixed partition under P_X: its mass p = P(X in cell), the target's conditional mean
/// m = E[f(X) | cell] and conditional second moment s = E[f(X)^2 | cell] (s >= m^2).
struct RegressogramCell {
  double mass = 0.0;
  double mean = 0.0;
  double second_moment = 0.0;
};

/// E[1/N ; N >= 1] for N ~ Binomial(n, p) (0 when n = 0 or p = 0), summed exactly over the pmf (core/log_binomial).
double inverse_binomial_moment(std::int64_t n, double p);

/// The expected excess risk E ||f_hat - f||^2_{L2(P_X)} of the regressogram from n iid draws (x_i, y_i),
/// noise variance sigma2: f_hat = mean of y over the sample points in a cell, 0 on an empty cell.
/// Given the counts N_j, a non-empty cell contributes p_j [v_j + (v_j + sigma2) / N_j] (v_j = s_j - m_j^2,
/// the cell variance of f: the cell mean of f(x_i) misses m_j by v_j / N_j in mean square, the noise mean
/// adds sigma2 / N_j) and an empty one p_j s_j = p_j (v_j + m_j^2); N_j ~ Binomial(n, p_j). So
///   total = sum_j p_j v_j                                        (approximation)
///         + sum_j p_j (v_j + sigma2) E[1/N_j ; N_j >= 1]         (estimation: ~ (sigma2 + v) E / n)
///         + sum_j p_j m_j^2 (1 - p_j)^n                          (empty cells)
/// The noise need not be Gaussian (only its variance enters).
struct RegressogramRisk {
  double approximation = 0.0;
  double estimation = 0.0;
  double empty_cells = 0.0;
  double total = 0.0;
};
RegressogramRisk regressogram_risk(std::span<const RegressogramCell> cells, std::int64_t n, double sigma2);

/// The E equal cells of [0, 1] under the uniform law for f(x) = sin(2 pi x + phase) (closed-form cell moments).
std::vector<RegressogramCell> sine_cells(int E, double phase = 0.0);

/// One draw of the regressogram's excess risk: n points x ~ U[0, 1], y = sin(2 pi x + phase) + sigma z,
/// E equal cells, the exact L2 excess of that fit (sum over cells of p_j ((f_hat_j - m_j)^2 + v_j), p_j s_j
/// on empty cells). Draws: x from (seed_x, StreamTag::bounds, trial) uniforms 0..n-1, the noise from
/// (seed_noise, StreamTag::bounds, trial) normals 0..n-1.
double regressogram_sine_excess(int E, std::int64_t n, double sigma, double phase, std::uint64_t seed_x,
                                std::uint64_t seed_noise, std::uint64_t trial);

// ---- learned routing: least-squares segmentation ----

/// A partition of indices 0..n-1 into E contiguous non-empty segments: starts = {0 = b_0 < b_1 < ... < b_E = n},
/// and the residual sum of squares of y about the segment means.
struct Segmentation {
  std::vector<std::int64_t> starts;
  double rss = 0.0;
};
/// The least-squares segmentation of y (in its given order) into exactly E segments (1 <= E <= n), by dynamic
/// programming over prefix sums in O(E n^2): the ERM over all C(n - 1, E - 1) routing patterns at once.
/// Ties go to the first minimiser in the DP's scan order.
Segmentation best_segmentation(std::span<const double> y, int E);
/// The same by enumerating every partition (for tests; n <= 24).
Segmentation best_segmentation_brute_force(std::span<const double> y, int E);

/// A piecewise-constant function on [0, 1]: edges 0 = e_0 < e_1 < ... < e_K = 1, value values[j] on
/// [e_j, e_(j+1)).
struct PiecewiseConstant {
  std::vector<double> edges;
  std::vector<double> values;
  double operator()(double x) const;
};
/// int_0^1 (f - g)^2 dx, exact (the merged edges cut [0, 1] into intervals where both are constant).
double l2_distance_squared(const PiecewiseConstant& f, const PiecewiseConstant& g);

/// One ERM draw on a piecewise-constant target f: n points x ~ U[0, 1], y = f(x) + sigma z.
struct ErmDraw {
  double fixed_excess = 0.0;       ///< population excess of the regressogram on f's own cells (oracle routing)
  double learned_excess = 0.0;     ///< population excess of the learned-routing ERM (E segments)
  double learned_in_sample = 0.0;  ///< (1/n) sum_i (f_hat(x_i) - f(x_i))^2 of the learned-routing ERM
};
/// The learned partition's edges lie midway between the last point of a segment and the first of the next.
/// Draws: x from (seed_x, StreamTag::bounds, trial) uniforms 0..n-1, noise from (seed_noise, ..., trial)
/// normals 0..n-1.
ErmDraw erm_draw(const PiecewiseConstant& target, std::int64_t n, int E, double sigma, std::uint64_t seed_x,
                 std::uint64_t seed_noise, std::uint64_t trial);

/// The exact expected population excess of the fixed-routing ERM (the regressogram on the target's own E
/// cells, approximation 0): regressogram_risk with cells (p_j = edge gaps, m_j = value_j, s_j = value_j^2).
double fixed_routing_excess(const PiecewiseConstant& target, std::int64_t n, double sigma2);

/// The oracle inequality of least squares over a union of K linear models, constants written out, for the
/// learned-routing ERM when the target lies in the class (approximation 0), in-sample (fixed design):
///   E ||f_hat - f||_n^2 <= (4 sigma2 / n) [c^2 + sqrt(2 pi) c + 2],
///   c = sqrt(2E - 1) + sqrt(2 log K),  K = C(n - 1, E - 1) routing patterns.
/// Proof: ||y - f_hat|| <= ||y - f|| gives ||u||^2 <= 2 <eps, u> for u = f_hat - f, which lies in the span W of
/// the common refinement of the chosen and the true partitions (dim <= 2E - 1); so ||u|| <= 2 max_W ||P_W eps||
/// over the K spaces W. Each ||P_W eps|| / sigma is 1-Lipschitz in a standard normal vector with mean
/// <= sqrt(dim W), so (Gaussian concentration + union bound) P(max >= sigma (sqrt(2E-1) + sqrt(2 log K) + s))
/// <= e^(-s^2/2), whence E max^2 <= sigma2 (c^2 + 2 c sqrt(pi/2) + 2). The routing overhead is the log K term.
double erm_oracle_bound(std::int64_t n, int E, double sigma2);

}  // namespace moelab::scaling
