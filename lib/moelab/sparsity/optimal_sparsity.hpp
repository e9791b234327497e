// The approximation/estimation trade-off in the number k of activated experts of the `compositional`
// paper ("Sparse Mixture-of-Experts for Compositional Generalization: Empirical Evidence and Theoretical
// Foundations of Optimal Sparsity", arXiv:2410.13964), Sec. 4.3, and its power-law variant (App. A.5).
//
// Convention (named; every function below uses it). The paper writes both error terms as O(.); moelab
// fixes their constants as explicit parameters a, b > 0:
//   E_approx(k) = a N^2 / k                                            (Definition 4, Eq. 6)
//   E_est(k)    = b sqrt(N k d_N log(T / k) / m)                       (Definition 5, unnumbered)
//   E_total(k)  = E_approx(k) + E_est(k)                               (Sec. 4.3.3)
// N: number of tasks (N >= 1), m: training samples, d_N: the router's base Natarajan dimension
// (Assumption 1, NDim = O(N d_N)), T: total experts, k in [1, T]: activated experts. Natural logarithms.
//
// Two other estimation forms are offered for comparison (`EstimationForm`), both stated with their source:
//   definition5_e : b sqrt(N k d_N log(e T / k) / m) -- Definition 5 with the e of the binomial bound
//                   log C(T, k) <= k log(e T / k) restored (not in the paper; increasing in k on [1, T]);
//   theorem1      : b * 2 sqrt((2 k N d_N log T + N d_N log(2m) + log(2/delta)) / (2m)) -- the k-dependent
//                   term of Theorem 1, Eq. 5 (the Rademacher term 4 C R_m(H) does not depend on k).
//
// Finding (proved in docs/sparsity.md, checked in tests): with Definition 5 as printed, E_est(T) = 0 and
// E_approx is strictly decreasing, so E_total(k) > E_total(T) for every k < T: k* = T for all a, b, N, m,
// d_N, T. The printed trade-off has no interior optimum.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace moelab::sparsity {

/// Which estimation-error form E_est(k) to use (see the file comment).
enum class EstimationForm { definition5, definition5_e, theorem1 };

/// Parameters of the trade-off (compositional, Sec. 4.1 and 4.3). `a`, `b` are the constants hidden in
/// the O(.) of Eq. 6 and Definition 5; `delta` is the confidence of Theorem 1 (theorem1 form only).
struct TradeoffParams {
  double N = 1.0;      ///< number of tasks, N >= 1
  double m = 1.0;      ///< number of training samples, m >= 1
  double d_N = 1.0;    ///< router base complexity, d_N > 0
  std::int64_t T = 1;  ///< total number of experts, T >= 1
  double a = 1.0;      ///< constant of E_approx, a > 0
  double b = 1.0;      ///< constant of E_est, b > 0
  double delta = 0.05; ///< confidence level of Theorem 1, 0 < delta < 1
};

/// Throws std::logic_error (MOELAB_EXPECT) unless every field is in its domain (finite, as documented).
void validate(const TradeoffParams& p);

/// E_approx(k) = a N^2 / k (Definition 4, Eq. 6). Requires k > 0.
double approximation_error(double k, const TradeoffParams& p);
/// E_est(k) in the chosen form (file comment). Requires 1 <= k <= T (k real).
double estimation_error(double k, const TradeoffParams& p, EstimationForm form = EstimationForm::definition5);
/// E_total(k) = E_approx(k) + E_est(k) (Sec. 4.3.3). Requires 1 <= k <= T.
double total_error(double k, const TradeoffParams& p, EstimationForm form = EstimationForm::definition5);
/// dE_est/dk, closed form. definition5: b sqrt(N d_N/m) (log(T/k) - 1) / (2 sqrt(k log(T/k))), which is
/// -inf at k = T (T > 1); definition5_e: b sqrt(N d_N/m) log(T/k) / (2 sqrt(k (1 + log(T/k))));
/// theorem1: b alpha / (2m sqrt((alpha k + beta)/(2m))), alpha = 2 N d_N log T, beta = N d_N log(2m) + log(2/delta).
double estimation_error_derivative(double k, const TradeoffParams& p, EstimationForm form = EstimationForm::definition5);
/// dE_total/dk = -a N^2 / k^2 + dE_est/dk.
double total_error_derivative(double k, const TradeoffParams& p, EstimationForm form = EstimationForm::definition5);

/// Minimiser of E_total over the integers k = 1..T.
struct IntegerKStar {
  std::int64_t k = 0;
  double error = 0.0;  ///< E_total(k)
};
/// Exact scan of k = 1..T (O(T)). Ties (equal doubles) go to the smallest k.
IntegerKStar integer_k_star(const TradeoffParams& p, EstimationForm form = EstimationForm::definition5);

/// Minimiser of E_total over real k in [1, T].
struct RealKStar {
  double k = 0.0;
  double error = 0.0;        ///< E_total(k)
  bool at_boundary = false;  ///< k is 1 or T (no interior stationary point is better)
};
/// Candidates: the endpoints 1 and T and every interior root of dE_total/dk where it changes sign from
/// - to + on a 512-point geometric grid of [1, T], each refined by TOMS 748 to ~1e-13 relative; the
/// candidate with the least E_total wins (ties: the smallest k). For theorem1 the stationary point is
/// unique (it solves the quartic B^2 alpha^2 k^4 = 4 A^2 (alpha k + beta), one positive root by Descartes).
RealKStar real_k_star(const TradeoffParams& p, EstimationForm form = EstimationForm::definition5);
/// Closed form for Definition 5 as printed: k* = T (over reals and integers; see the file comment).
double definition5_k_star(const TradeoffParams& p);

/// Remark 3: E_est of Definition 5 as a function of real k peaks at k = T / e (k log(T/k) has derivative
/// log(T/k) - 1), independently of N, m, d_N, b. Returns T / e.
double estimation_peak_k(double T);
/// The peak of E_est (Definition 5) found numerically: Brent maximisation over [1, T] (T >= 3 so that
/// T/e > 1), to ~1e-10 relative. Used to check Remark 3 against the closed form.
double estimation_peak_k_numeric(const TradeoffParams& p);

/// App. A.5: the weighted approximation error a * sum_{i,i'} w_{i,i'} / k with the power law
/// w_{i,i'} = (D_i + D_{i'})^(-alpha), alpha > 1, summed over all N^2 ordered pairs (i, i') (the N^2
/// compositions of Definition 4). D_i > 0 is the "inverse of the difficulty or importance" of task i.
/// The proportionality constant of w is folded into `a`.
double powerlaw_weight_sum(std::span<const double> D, double alpha);
double powerlaw_approximation_error(double k, std::span<const double> D, double alpha, double a = 1.0);
/// D_i = i, i = 1..N: the ordering the paper describes ("high weights ... smaller i + i'").
std::vector<double> index_difficulties(std::int64_t N);
/// The trade-off with the A.5 approximation error: E_approx = a W / k = (a W / N^2) N^2 / k, i.e. the
/// same parameters with a replaced by a W / N^2 (W = powerlaw_weight_sum(D, alpha), N = D.size()).
TradeoffParams with_powerlaw_weights(const TradeoffParams& p, std::span<const double> D, double alpha);

/// The task-difficulty model of the approximation error. Assumption 5 of the compositional paper gives
/// every composition (i, i') the same weight (`uniform`: E_approx = a N^2 / k, Eq. 6); App. A.5 replaces
/// it by the power law w_{i,i'} = (D_i + D_i')^(-alpha), alpha > 1 (`powerlaw`), with D_i the inverse
/// difficulty (or importance) of task i. Profiles of D: `index` D_i = i (the ordering App. A.5 describes),
/// `power` D_i = i^gamma (gamma > 0: a steeper or flatter difficulty ladder), `list` D given explicitly.
enum class Difficulty { uniform, powerlaw };
enum class DifficultyProfile { index, power, list };
struct DifficultySpec {
  Difficulty kind = Difficulty::uniform;
  double alpha = 2.0;                               ///< power-law exponent, > 1 (powerlaw only)
  DifficultyProfile profile = DifficultyProfile::index;
  double gamma = 1.0;                               ///< D_i = i^gamma (profile power), > 0
  std::vector<double> D;                            ///< D_1..D_N (profile list), each > 0
};
const char* to_string(Difficulty d);
const char* to_string(DifficultyProfile p);
/// The name's value ("uniform", "powerlaw"; "index", "power", "list"); false when no such name.
bool parse_difficulty(const std::string& name, Difficulty& out);
bool parse_difficulty_profile(const std::string& name, DifficultyProfile& out);
/// D_1..D_N of the spec's profile (N an integer >= 1; list: D.size() must equal N). MOELAB_EXPECT.
std::vector<double> difficulty_values(const DifficultySpec& spec, std::int64_t N);
/// The weight sum W of the spec at N tasks: N^2 for uniform (every w = 1), powerlaw_weight_sum otherwise.
double difficulty_weight_sum(const DifficultySpec& spec, double N);
/// The trade-off under `spec`: `p` itself (bit for bit) for uniform; with_powerlaw_weights(p, D, alpha) for
/// powerlaw, i.e. a replaced by a W / N^2 (p.N must be an integer). The one code path of the studies,
/// the CLI and the Python binding.
TradeoffParams with_difficulty(const TradeoffParams& p, const DifficultySpec& spec);

/// Which parameter a sweep varies.
enum class Axis { N, m, d_N, T };
/// k* at one value of the swept parameter.
struct KStarPoint {
  double value = 0.0;  ///< the swept parameter's value
  std::int64_t k_integer = 0;
  double error_integer = 0.0;
  double k_real = 0.0;
  double error_real = 0.0;
};
/// k*(value) for each value (T values must be integers >= 1); the other parameters are taken from `base`.
std::vector<KStarPoint> k_star_sweep(const TradeoffParams& base, Axis axis, std::span<const double> values,
                                     EstimationForm form = EstimationForm::definition5);
std::vector<KStarPoint> k_star_vs_N(const TradeoffParams& base, std::span<const double> N,
                                    EstimationForm form = EstimationForm::definition5);
std::vector<KStarPoint> k_star_vs_d_N(const TradeoffParams& base, std::span<const double> d_N,
                                      EstimationForm form = EstimationForm::definition5);
std::vector<KStarPoint> k_star_vs_T(const TradeoffParams& base, std::span<const double> T,
                                    EstimationForm form = EstimationForm::definition5);

/// `p` with the parameter `axis` set to `value` (T: must be an integer >= 1).
TradeoffParams with_axis(TradeoffParams p, Axis axis, double value);

}  // namespace moelab::sparsity
