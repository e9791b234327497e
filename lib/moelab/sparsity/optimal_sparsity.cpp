#include "moelab/sparsity/optimal_sparsity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>

#include "moelab/core/compensated_sum.hpp"
#include "moelab/core/error.hpp"

namespace moelab::sparsity {

namespace {

// log(T / k) for 1 <= k <= T, without the cancellation of log(T) - log(k) near k = T.
double log_ratio(double T, double k) { return std::log1p((T - k) / k); }

void expect_k(double k, const TradeoffParams& p) {
  MOELAB_EXPECT(std::isfinite(k) && k >= 1.0 && k <= static_cast<double>(p.T), "k must lie in [1, T]");
}

}  // namespace

void validate(const TradeoffParams& p) {
  MOELAB_EXPECT(std::isfinite(p.N) && p.N >= 1.0, "TradeoffParams: N must be finite and >= 1");
  MOELAB_EXPECT(std::isfinite(p.m) && p.m >= 1.0, "TradeoffParams: m must be finite and >= 1");
  MOELAB_EXPECT(std::isfinite(p.d_N) && p.d_N > 0.0, "TradeoffParams: d_N must be finite and > 0");
  MOELAB_EXPECT(p.T >= 1 && p.T <= (std::int64_t{1} << 40), "TradeoffParams: T must be in [1, 2^40]");
  MOELAB_EXPECT(std::isfinite(p.a) && p.a > 0.0, "TradeoffParams: a must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(p.b) && p.b > 0.0, "TradeoffParams: b must be finite and > 0");
  MOELAB_EXPECT(p.delta > 0.0 && p.delta < 1.0, "TradeoffParams: delta must be in (0, 1)");
}

double approximation_error(double k, const TradeoffParams& p) {
  validate(p);
  MOELAB_EXPECT(std::isfinite(k) && k > 0.0, "approximation_error: k must be finite and > 0");
  return p.a * p.N * p.N / k;  // Eq. 6
}

double estimation_error(double k, const TradeoffParams& p, EstimationForm form) {
  validate(p);
  expect_k(k, p);
  const double T = static_cast<double>(p.T);
  switch (form) {
    case EstimationForm::definition5:  // Definition 5: sqrt(N k d_N log(T/k) / m)
      return p.b * std::sqrt(p.N * k * p.d_N * log_ratio(T, k) / p.m);
    case EstimationForm::definition5_e:  // with log C(T, k) <= k log(e T / k)
      return p.b * std::sqrt(p.N * k * p.d_N * (1.0 + log_ratio(T, k)) / p.m);
    case EstimationForm::theorem1: {  // Eq. 5: 2 sqrt((2 k N d_N log T + N d_N log(2m) + log(2/delta)) / (2m))
      const double alpha = 2.0 * p.N * p.d_N * std::log(T);
      const double beta = p.N * p.d_N * std::log(2.0 * p.m) + std::log(2.0 / p.delta);
      return p.b * 2.0 * std::sqrt((alpha * k + beta) / (2.0 * p.m));
    }
  }
  MOELAB_EXPECT(false, "estimation_error: unknown form");
  return 0.0;
}

double total_error(double k, const TradeoffParams& p, EstimationForm form) {
  return approximation_error(k, p) + estimation_error(k, p, form);
}

double estimation_error_derivative(double k, const TradeoffParams& p, EstimationForm form) {
  validate(p);
  expect_k(k, p);
  const double T = static_cast<double>(p.T);
  const double scale = p.b * std::sqrt(p.N * p.d_N / p.m);
  switch (form) {
    case EstimationForm::definition5: {
      if (p.T == 1) return 0.0;  // E_est is identically 0 on [1, 1]
      const double L = log_ratio(T, k);
      if (L == 0.0) return -std::numeric_limits<double>::infinity();  // k = T: d/dk sqrt(k log(T/k)) -> -inf
      return scale * (L - 1.0) / (2.0 * std::sqrt(k * L));
    }
    case EstimationForm::definition5_e: {
      const double L = log_ratio(T, k);
      return scale * L / (2.0 * std::sqrt(k * (1.0 + L)));
    }
    case EstimationForm::theorem1: {
      const double alpha = 2.0 * p.N * p.d_N * std::log(T);
      const double beta = p.N * p.d_N * std::log(2.0 * p.m) + std::log(2.0 / p.delta);
      return p.b * alpha / (2.0 * p.m * std::sqrt((alpha * k + beta) / (2.0 * p.m)));
    }
  }
  MOELAB_EXPECT(false, "estimation_error_derivative: unknown form");
  return 0.0;
}

double total_error_derivative(double k, const TradeoffParams& p, EstimationForm form) {
  return -p.a * p.N * p.N / (k * k) + estimation_error_derivative(k, p, form);
}

IntegerKStar integer_k_star(const TradeoffParams& p, EstimationForm form) {
  validate(p);
  IntegerKStar best{1, total_error(1.0, p, form)};
  for (std::int64_t k = 2; k <= p.T; ++k) {
    const double e = total_error(static_cast<double>(k), p, form);
    if (e < best.error) best = {k, e};  // strict: ties keep the smallest k
  }
  return best;
}

RealKStar real_k_star(const TradeoffParams& p, EstimationForm form) {
  validate(p);
  const double T = static_cast<double>(p.T);
  RealKStar best{1.0, total_error(1.0, p, form), true};
  if (p.T == 1) return best;
  const auto consider = [&](double k, bool boundary) {
    const double e = total_error(k, p, form);
    if (e < best.error || (e == best.error && k < best.k)) best = {k, e, boundary};
  };
  consider(T, true);
  // Interior local minima: sign changes - -> + of the derivative on a geometric grid, refined by TOMS 748.
  constexpr int kGrid = 512;
  const auto derivative = [&](double k) { return total_error_derivative(k, p, form); };
  double k_prev = 1.0, d_prev = derivative(1.0);
  for (int i = 1; i <= kGrid; ++i) {
    const double k = i == kGrid ? T : std::min(T, std::pow(T, static_cast<double>(i) / kGrid));
    const double d = derivative(k);
    if (d_prev < 0.0 && d > 0.0) {
      boost::math::tools::eps_tolerance<double> tol(44);  // ~1e-13 relative in k
      std::uintmax_t iterations = 200;
      const auto [lo, hi] = boost::math::tools::toms748_solve(derivative, k_prev, k, d_prev, d, tol, iterations);
      consider(0.5 * (lo + hi), false);
    } else if (d == 0.0 && k < T) {
      consider(k, false);
    }
    k_prev = k;
    d_prev = d;
  }
  return best;
}

double definition5_k_star(const TradeoffParams& p) {
  validate(p);
  return static_cast<double>(p.T);
}

double estimation_peak_k(double T) {
  MOELAB_EXPECT(std::isfinite(T) && T > 0.0, "estimation_peak_k: T must be finite and > 0");
  return T / std::numbers::e;  // Remark 3
}

double estimation_peak_k_numeric(const TradeoffParams& p) {
  validate(p);
  MOELAB_EXPECT(p.T >= 3, "estimation_peak_k_numeric: T must be >= 3 so that T/e > 1");
  const auto negative = [&](double k) { return -estimation_error(k, p, EstimationForm::definition5); };
  // Brent: accuracy ~ sqrt(eps) relative (the maximum is quadratic).
  const auto r = boost::math::tools::brent_find_minima(negative, 1.0, static_cast<double>(p.T),
                                                       std::numeric_limits<double>::digits / 2);
  return r.first;
}

double powerlaw_weight_sum(std::span<const double> D, double alpha) {
  MOELAB_EXPECT(!D.empty(), "powerlaw_weight_sum: D must not be empty");
  MOELAB_EXPECT(std::isfinite(alpha) && alpha > 1.0, "powerlaw_weight_sum: alpha must be > 1 (App. A.5)");
  for (double d : D) MOELAB_EXPECT(std::isfinite(d) && d > 0.0, "powerlaw_weight_sum: every D_i must be finite and > 0");
  CompensatedSum s;
  for (std::size_t i = 0; i < D.size(); ++i) {
    s.add(std::pow(2.0 * D[i], -alpha));  // diagonal i = i'
    for (std::size_t j = i + 1; j < D.size(); ++j) s.add(2.0 * std::pow(D[i] + D[j], -alpha));  // (i,j) and (j,i)
  }
  return s.value();
}

double powerlaw_approximation_error(double k, std::span<const double> D, double alpha, double a) {
  MOELAB_EXPECT(std::isfinite(k) && k > 0.0, "powerlaw_approximation_error: k must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(a) && a > 0.0, "powerlaw_approximation_error: a must be finite and > 0");
  return a * powerlaw_weight_sum(D, alpha) / k;
}

std::vector<double> index_difficulties(std::int64_t N) {
  MOELAB_EXPECT(N >= 1, "index_difficulties: N must be >= 1");
  std::vector<double> D(static_cast<std::size_t>(N));
  for (std::int64_t i = 0; i < N; ++i) D[static_cast<std::size_t>(i)] = static_cast<double>(i + 1);
  return D;
}

TradeoffParams with_powerlaw_weights(const TradeoffParams& p, std::span<const double> D, double alpha) {
  TradeoffParams q = p;
  q.N = static_cast<double>(D.size());
  q.a = p.a * powerlaw_weight_sum(D, alpha) / (q.N * q.N);
  validate(q);
  return q;
}

const char* to_string(Difficulty d) { return d == Difficulty::powerlaw ? "powerlaw" : "uniform"; }
const char* to_string(DifficultyProfile p) {
  switch (p) {
    case DifficultyProfile::index: return "index";
    case DifficultyProfile::power: return "power";
    case DifficultyProfile::list: return "list";
  }
  return "?";
}
bool parse_difficulty(const std::string& name, Difficulty& out) {
  if (name == "uniform") return out = Difficulty::uniform, true;
  if (name == "powerlaw") return out = Difficulty::powerlaw, true;
  return false;
}
bool parse_difficulty_profile(const std::string& name, DifficultyProfile& out) {
  if (name == "index") return out = DifficultyProfile::index, true;
  if (name == "power") return out = DifficultyProfile::power, true;
  if (name == "list") return out = DifficultyProfile::list, true;
  return false;
}

std::vector<double> difficulty_values(const DifficultySpec& spec, std::int64_t N) {
  MOELAB_EXPECT(N >= 1, "difficulty_values: N must be >= 1");
  switch (spec.profile) {
    case DifficultyProfile::index: return index_difficulties(N);
    case DifficultyProfile::power: {
      MOELAB_EXPECT(std::isfinite(spec.gamma) && spec.gamma > 0.0, "difficulty_values: gamma must be finite and > 0");
      std::vector<double> D(static_cast<std::size_t>(N));
      for (std::int64_t i = 1; i <= N; ++i) D[static_cast<std::size_t>(i - 1)] = std::pow(static_cast<double>(i), spec.gamma);
      return D;
    }
    case DifficultyProfile::list:
      MOELAB_EXPECT(static_cast<std::int64_t>(spec.D.size()) == N, "difficulty_values: the list must have N entries");
      return spec.D;
  }
  return {};
}

double difficulty_weight_sum(const DifficultySpec& spec, double N) {
  if (spec.kind == Difficulty::uniform) return N * N;
  MOELAB_EXPECT(std::isfinite(N) && N >= 1.0 && N == std::floor(N) && N <= 0x1p31,
                "difficulty_weight_sum: a power-law difficulty needs an integer N");
  const auto D = difficulty_values(spec, static_cast<std::int64_t>(N));
  return powerlaw_weight_sum(D, spec.alpha);
}

TradeoffParams with_difficulty(const TradeoffParams& p, const DifficultySpec& spec) {
  if (spec.kind == Difficulty::uniform) return p;
  MOELAB_EXPECT(std::isfinite(p.N) && p.N >= 1.0 && p.N == std::floor(p.N) && p.N <= 0x1p31,
                "with_difficulty: a power-law difficulty needs an integer N");
  const auto D = difficulty_values(spec, static_cast<std::int64_t>(p.N));
  return with_powerlaw_weights(p, D, spec.alpha);
}

TradeoffParams with_axis(TradeoffParams p, Axis axis, double value) {
  switch (axis) {
    case Axis::N: p.N = value; break;
    case Axis::m: p.m = value; break;
    case Axis::d_N: p.d_N = value; break;
    case Axis::T:
      MOELAB_EXPECT(std::isfinite(value) && value >= 1.0 && value == std::floor(value) && value <= 0x1p40,
                    "with_axis: T must be an integer in [1, 2^40]");
      p.T = static_cast<std::int64_t>(value);
      break;
  }
  validate(p);
  return p;
}

std::vector<KStarPoint> k_star_sweep(const TradeoffParams& base, Axis axis, std::span<const double> values,
                                     EstimationForm form) {
  std::vector<KStarPoint> out;
  out.reserve(values.size());
  for (double v : values) {
    const TradeoffParams p = with_axis(base, axis, v);
    const IntegerKStar ki = integer_k_star(p, form);
    const RealKStar kr = real_k_star(p, form);
    out.push_back({v, ki.k, ki.error, kr.k, kr.error});
  }
  return out;
}

std::vector<KStarPoint> k_star_vs_N(const TradeoffParams& base, std::span<const double> N, EstimationForm form) {
  return k_star_sweep(base, Axis::N, N, form);
}
std::vector<KStarPoint> k_star_vs_d_N(const TradeoffParams& base, std::span<const double> d_N, EstimationForm form) {
  return k_star_sweep(base, Axis::d_N, d_N, form);
}
std::vector<KStarPoint> k_star_vs_T(const TradeoffParams& base, std::span<const double> T, EstimationForm form) {
  return k_star_sweep(base, Axis::T, T, form);
}

}  // namespace moelab::sparsity
