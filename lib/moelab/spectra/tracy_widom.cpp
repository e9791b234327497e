#include "moelab/spectra/tracy_widom.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <boost/math/special_functions/airy.hpp>
#include <boost/math/tools/roots.hpp>
#include <numbers>

#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"

namespace moelab::spectra {

namespace {

constexpr double kSqrt2 = 1.41421356237309504880;
// zeta'(-1) = 1/12 - log(Glaisher's constant A).
constexpr double kZetaPrimeMinus1 = -0.16542114370045092921;

void check_beta(int beta) { MOELAB_EXPECT(beta == 1 || beta == 2 || beta == 4, "Tracy-Widom beta must be 1, 2 or 4"); }

// ---------------------------------------------------------------------------------------------------------------
// Gauss-Legendre rule on [-1, 1]: Newton's method on P_m from the three-term recurrence, started at the
// Tricomi approximation cos(pi (i + 3/4) / (m + 1/2)); weights 2 / ((1 - x^2) P_m'(x)^2).

struct QuadratureRule {
  std::vector<double> nodes;
  std::vector<double> weights;
};

QuadratureRule make_gauss_legendre(int m) {
  QuadratureRule rule;
  rule.nodes.resize(m);
  rule.weights.resize(m);
  for (int i = 0; i < (m + 1) / 2; ++i) {
    double x = std::cos(std::numbers::pi * (i + 0.75) / (m + 0.5));
    double derivative = 0.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p0 = 1.0, p1 = x;  // P_0, P_1
      for (int k = 2; k <= m; ++k) {
        const double p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      derivative = m * (x * p1 - p0) / (x * x - 1.0);
      const double step = p1 / derivative;
      x -= step;
      if (std::abs(step) < 1e-17) break;
    }
    const double weight = 2.0 / ((1.0 - x * x) * derivative * derivative);
    rule.nodes[i] = -x;  // ascending order
    rule.nodes[m - 1 - i] = x;
    rule.weights[i] = rule.weights[m - 1 - i] = weight;
  }
  if (m % 2 == 1) rule.nodes[m / 2] = 0.0;
  return rule;
}

template <int M>
const QuadratureRule& gauss_legendre() {
  static const QuadratureRule rule = make_gauss_legendre(M);
  return rule;
}

// ---------------------------------------------------------------------------------------------------------------
// Airy function by Taylor expansion about tabulated anchors. Boost's airy_ai costs ~5 us (measured, g++ -O2),
// too slow for the m(m+1)/2 ~ 1600 values of the kernel Ai(x + y + s); the anchors (Ai, Ai' from Boost at
// spacing 1/8 on [-20, 40]) carry Taylor coefficients from Ai'' = x Ai:
//   (k + 1)(k + 2) c_{k+2} = x0 c_k + c_{k-1},  c_0 = Ai(x0), c_1 = Ai'(x0), c_2 = x0 c_0 / 2.
// With |x - x0| <= 1/16 and |x0| <= 40, |c_k h^k| <~ |Ai| (sqrt(40)/16)^k / k!, below 1e-17 |Ai| at k = 14:
// degree 17 leaves margin. Outside the table Boost is called (not on the paths used by F_beta for s in [-12, 40]).

class AiryTable {
 public:
  static constexpr double kLo = -20.0, kHi = 40.0, kStep = 0.125;
  static constexpr int kDegree = 17;
  static constexpr int kAnchors = static_cast<int>((kHi - kLo) / kStep) + 1;

  AiryTable() : coefficients_(static_cast<std::size_t>(kAnchors) * (kDegree + 1)) {
    for (int a = 0; a < kAnchors; ++a) {
      const double x0 = kLo + a * kStep;
      double* c = &coefficients_[static_cast<std::size_t>(a) * (kDegree + 1)];
      c[0] = boost::math::airy_ai(x0);
      c[1] = boost::math::airy_ai_prime(x0);
      c[2] = 0.5 * x0 * c[0];
      for (int k = 1; k + 2 <= kDegree; ++k) c[k + 2] = (x0 * c[k] + c[k - 1]) / ((k + 1.0) * (k + 2.0));
    }
  }

  /// Ai(x) and Ai'(x).
  std::pair<double, double> operator()(double x) const {
    if (!(x >= kLo && x <= kHi)) {
      if (x > 100.0) return {0.0, 0.0};  // Ai(100) ~ 1e-291: below anything the determinants can resolve
      return {boost::math::airy_ai(x), boost::math::airy_ai_prime(x)};
    }
    const int a = static_cast<int>(std::lround((x - kLo) / kStep));
    const double h = x - (kLo + a * kStep);
    const double* c = &coefficients_[static_cast<std::size_t>(a) * (kDegree + 1)];
    double value = c[kDegree];
    double slope = kDegree * c[kDegree];
    for (int k = kDegree - 1; k >= 1; --k) {
      value = value * h + c[k];
      slope = slope * h + k * c[k];
    }
    value = value * h + c[0];
    return {value, slope};
  }

  double ai(double x) const { return (*this)(x).first; }

 private:
  std::vector<double> coefficients_;
};

const AiryTable& airy() {
  static const AiryTable table;
  return table;
}

// ---------------------------------------------------------------------------------------------------------------
// Discretised Fredholm determinants. Node counts and truncations were chosen by a convergence study against
// m = 160 with twice the truncation length (max |change| over s in [-12, 12] / [-14, 12], step 0.05):
//   Airy kernel on [s, max(s, 0) + 12]:  m = 40, 48, 56, 64, 80 all within 2.3e-15 (CDF and density) --
//     roundoff level already at m = 40; truncating at max(s, 0) + 10 is as good.
//   Ai(x + y + s) on (0, max(10 - s, 4)): m = 40 ... 72 within 2e-15 (det(I - B)) and 8e-15 (det(I + B),
//     derivatives); truncating at 8 - s instead of 10 - s costs 7e-14.
// m = 48 keeps a margin of 8 nodes over the smallest converged count. The truncations leave kernel tails
// below 1e-19: K_Ai(x, x) ~ exp(-4/3 x^(3/2)) / (8 pi x) at x = 12; Ai(10)^2 ~ 1e-20 for the off-diagonal
// block of Ai(x + y + s) cut at x = 10 - s.

constexpr int kNodesAiry = 48;
// Left cuts (unscaled argument) below which the left-tail series replaces the determinants. The determinants'
// relative error grows like eps / (1 - largest eigenvalue of the kernel) as s decreases, the series' truncation
// error falls like exp(-(2 sqrt 2 / 3) |s|^(3/2)); measured against the Painleve II reference
// (tests/data/spectra/tracy_widom_left_tail.csv, step 1/8) the two curves cross at (relative error of F, f):
//   beta 2: s = -6.875 (det 2.9e-10, series 3.0e-10);  beta 1: s = -7.0 (det 6.8e-11, series 6.8e-11);
//   beta 4u: s = -7.75 (det 9.1e-12, series 9.8e-12).
// (The former cuts -9 / -10 / -12 left relative errors of 3e-7 / 3e-5 / 1e-3 in the determinants just above them,
// and the leading-term asymptotics below them were off by 6e-5 / 9e-4 / 8e-4.)
constexpr double kLeftCut2 = -7.0, kLeftCut1 = -7.0, kLeftCut4 = -7.75;
// Moments integrate from here (unscaled): the mass further left is < 1e-20 (F2(-9) = 3e-27, F1(-10) = 5e-22,
// F4u(-12) = 6e-23).
double moment_left_end(int beta) { return beta == 2 ? -9.0 : beta == 1 ? -10.0 : -12.0; }
constexpr int kNodesHankel = 48;

struct Value {
  double cdf;
  double pdf;
};

// F2(s) and F2'(s) (Tracy-Widom 1994; Bornemann 2010 Math. Comp.), M nodes on [s, max(s, 0) + length].
template <int M = kNodesAiry>
Value airy_kernel_determinant(double s, bool want_pdf, double length = 12.0) {
  const QuadratureRule& rule = gauss_legendre<M>();
  constexpr int m = M;
  const double upper = std::max(s, 0.0) + length;
  const double half = 0.5 * (upper - s);
  std::array<double, m> x, root_w, ai, aip;
  for (int i = 0; i < m; ++i) {
    x[i] = s + half * (rule.nodes[i] + 1.0);
    root_w[i] = std::sqrt(half * rule.weights[i]);
    std::tie(ai[i], aip[i]) = airy()(x[i]);
  }
  Eigen::MatrixXd a(m, m);
  for (int j = 0; j < m; ++j) {
    a(j, j) = 1.0 - root_w[j] * root_w[j] * (aip[j] * aip[j] - x[j] * ai[j] * ai[j]);
    for (int i = j + 1; i < m; ++i) {
      const double k = (ai[i] * aip[j] - aip[i] * ai[j]) / (x[i] - x[j]);
      a(i, j) = a(j, i) = -root_w[i] * k * root_w[j];
    }
  }
  // I - K is symmetric positive definite (0 <= K_Ai < 1 on L^2(s, inf)); LDLT's determinant is prod(D).
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(a);
  const double det = ldlt.vectorD().prod();
  if (!want_pdf) return {det, 0.0};
  // d/ds log F2 = <(I - K_s)^(-1) phi, phi>, phi = Ai(. + s) (from (d_x + d_y) K_Ai(x, y) = -Ai(x) Ai(y)).
  Eigen::VectorXd phi(m);
  for (int i = 0; i < m; ++i) phi(i) = root_w[i] * ai[i];
  return {det, det * phi.dot(ldlt.solve(phi))};
}

// det(I -+ B_s) and their s-derivatives, B_s(x, y) = Ai(x + y + s) on L^2(0, inf) (Ferrari-Spohn 2005).
struct HankelDeterminants {
  double minus, plus;              // det(I - B_s), det(I + B_s)
  double minus_prime, plus_prime;  // their derivatives in s
};

// M nodes on (0, max(length - s, 4)).
template <int M = kNodesHankel>
HankelDeterminants hankel_determinants(double s, bool want_plus, bool want_pdf, double length = 10.0) {
  const QuadratureRule& rule = gauss_legendre<M>();
  constexpr int m = M;
  const double upper = std::max(length - s, 4.0);
  const double half = 0.5 * upper;
  std::array<double, m> x, root_w;
  for (int i = 0; i < m; ++i) {
    x[i] = half * (rule.nodes[i] + 1.0);
    root_w[i] = std::sqrt(half * rule.weights[i]);
  }
  using Matrix = Eigen::MatrixXd;
  Matrix b(m, m), b_prime(m, m);
  for (int j = 0; j < m; ++j) {
    for (int i = j; i < m; ++i) {
      const auto [ai, aip] = airy()(x[i] + x[j] + s);
      b(i, j) = b(j, i) = root_w[i] * ai * root_w[j];
      b_prime(i, j) = b_prime(j, i) = root_w[i] * aip * root_w[j];
    }
  }
  HankelDeterminants out{};
  // Both I - B and I + B are positive definite: det(I - B_s) = F1(s) > 0 and det(I + B_s) = F2(s) / F1(s) > 0
  // for every s, and B_s -> 0 as s -> inf, so no eigenvalue of B_s reaches +-1.
  const Matrix i_minus_b = Matrix::Identity(m, m) - b;
  const Eigen::LDLT<Matrix> minus(i_minus_b);
  out.minus = minus.vectorD().prod();
  // d/ds log det(I - B_s) = -tr((I - B_s)^(-1) dB_s/ds), dB_s/ds(x, y) = Ai'(x + y + s).
  if (want_pdf) out.minus_prime = -out.minus * minus.solve(b_prime).trace();
  if (want_plus) {
    const Matrix i_plus_b = Matrix::Identity(m, m) + b;
    const Eigen::LDLT<Matrix> plus(i_plus_b);
    out.plus = plus.vectorD().prod();
    if (want_pdf) out.plus_prime = out.plus * plus.solve(b_prime).trace();
  }
  return out;
}

// Left cuts (unscaled argument) below which the left-tail series replaces the determinants (kLeftCut* above).
double left_cut(int beta) { return beta == 2 ? kLeftCut2 : beta == 1 ? kLeftCut1 : kLeftCut4; }
constexpr double kRightCut = 40.0;

// Left-tail asymptotic series of the Hastings-McLeod solution of Painleve II, q'' = s q + 2 q^3 (Tracy-Widom 1994),
// for s = -t -> -inf: q(-t) ~ sqrt(t/2) w(x), w = sum_k a_k x^k, x = t^(-3), a_0 = 1. Substituting into
// q_tt = -t q + 2 q^3 gives sum_k a_k (9 k^2 - 1/4) x^(k+1) = w^3 - w, i.e. for n >= 1
//   a_n = (a_(n-1) (9 (n-1)^2 - 1/4) - R_n) / 2,   R_n = [w^3]_n - 3 a_n (the products of a_0..a_(n-1)),
// so a = 1, -1/8, -73/128, -10657/1024, -13912277/32768, ... (tested). The series is asymptotic
// (a_n / a_(n-1) ~ 4.5 n^2); optimally truncated its smallest term is 1e-13 at t = 9, 1e-15 at t = 10.
// From (log F2)'' = -q^2, u = int_s^inf q (u' = -q) and the constants of Deift-Its-Krasovsky 2008 (tau2) and
// Baik-Buckingham-DiFranco 2008 (tau1, tau4; equivalently u = (sqrt 2/3) t^(3/2) + log(2)/2 + o(1)):
//   log F2(-t) = -t^3/12 - log(t)/8 + log tau2 + sum_{k>=2} c_k t^(3-3k),  c_k = -b_k / (2 (2-3k)(3-3k)),  b = w^2,
//   u(-t) = 2^(-1/2) [ (2/3) t^(3/2) + sum_{k>=1} a_k t^(3/2-3k) / (3/2 - 3k) ] + log(2)/2,
//   F1 = exp(-u/2) F2^(1/2),  F4u = cosh(u/2) F2^(1/2)  (Tracy-Widom 1996; exact identities),
//   d/ds log F2 = int_s^inf q^2 = t^2/4 + 1/(8t) + sum_{k>=2} (3k-3) c_k t^(2-3k),
//   d/ds log F1 = (q + d/ds log F2)/2,  d/ds log F4u = (d/ds log F2 - q tanh(u/2))/2.
// Each sum is truncated before its smallest term (or when a term drops below 1e-18 of the sum).
class LeftTailSeries {
 public:
  static constexpr int kTerms = 40;
  LeftTailSeries() {
    a_[0] = 1.0;
    for (int n = 1; n < kTerms; ++n) {
      long double r = 0.0L;  // [w^3]_n over index triples all below n
      for (int i = 0; i < n; ++i)
        for (int j = 0; i + j <= n; ++j) {
          const int l = n - i - j;
          if (j < n && l < n) r += a_[i] * a_[j] * a_[l];
        }
      a_[n] = (a_[n - 1] * (9.0L * (n - 1) * (n - 1) - 0.25L) - r) / 2.0L;
    }
    for (int k = 0; k < kTerms; ++k) {
      long double b = 0.0L;
      for (int i = 0; i <= k; ++i) b += a_[i] * a_[k - i];
      c_[k] = k >= 2 ? -b / (2.0L * (2.0L - 3.0L * k) * (3.0L - 3.0L * k)) : 0.0L;
    }
  }
  long double a(int k) const { return a_[k]; }

  struct Tail {
    double log_f2, dlog_f2, q, u;
  };
  Tail operator()(long double t) const {
    const long double x = 1.0L / (t * t * t);
    const long double root_t = std::sqrt(t);
    // w = sum a_k x^k; u-sum sum_{k>=1} a_k x^k / (3/2 - 3k); log F2 sum sum_{k>=2} c_k x^k (times t^3);
    // derivative sum sum_{k>=2} (3k - 3) c_k x^k (times t^2).
    const long double w = truncated_sum([&](int k) { return a_[k]; }, x, 0);
    const long double uw = truncated_sum([&](int k) { return a_[k] / (1.5L - 3.0L * k); }, x, 1);
    const long double lw = truncated_sum([&](int k) { return c_[k]; }, x, 2);
    const long double dw = truncated_sum([&](int k) { return (3.0L * k - 3.0L) * c_[k]; }, x, 2);
    const long double log_tau2 = std::log(2.0L) / 24.0L + static_cast<long double>(kZetaPrimeMinus1);
    Tail out;
    out.log_f2 = static_cast<double>(-t * t * t / 12.0L - std::log(t) / 8.0L + log_tau2 + t * t * t * lw);
    out.dlog_f2 = static_cast<double>(t * t / 4.0L + 1.0L / (8.0L * t) + t * t * dw);
    out.q = static_cast<double>(root_t / std::sqrt(2.0L) * w);
    out.u = static_cast<double>((2.0L / 3.0L * t * root_t + t * root_t * uw) / std::sqrt(2.0L) + std::log(2.0L) / 2.0L);
    return out;
  }

 private:
  template <class Coefficient>
  static long double truncated_sum(Coefficient coefficient, long double x, int first) {
    long double sum = 0.0L, power = std::pow(x, first), previous = INFINITY;
    for (int k = first; k < kTerms; ++k, power *= x) {
      const long double term = coefficient(k) * power;
      if (std::abs(term) >= previous) break;  // the asymptotic series has started to diverge
      sum += term;
      previous = std::abs(term);
      if (std::abs(term) < 1e-18L * std::abs(sum)) break;
    }
    return sum;
  }
  std::array<long double, kTerms> a_{}, c_{};
};

const LeftTailSeries& left_tail_series() {
  static const LeftTailSeries series;
  return series;
}

// F and f below the left cut from the series (header); t = -s > 0.
Value left_tail(double s, int beta) {
  const double t = -s;
  if (t > 1e3) return {0.0, 0.0};  // F < exp(-4e7): zero in double; also keeps t^3 and t^(3/2) from inf - inf
  const LeftTailSeries::Tail tail = left_tail_series()(t);
  double log_f = 0.0, dlog = 0.0;
  if (beta == 2) {
    log_f = tail.log_f2;
    dlog = tail.dlog_f2;
  } else if (beta == 1) {
    log_f = 0.5 * (tail.log_f2 - tail.u);
    dlog = 0.5 * (tail.dlog_f2 + tail.q);
  } else {
    // log cosh(u/2) = u/2 + log1p(exp(-u)) - log 2 (u > 0 here: no overflow, no cancellation).
    log_f = 0.5 * (tail.log_f2 + tail.u) + std::log1p(std::exp(-tail.u)) - std::log(2.0);
    dlog = 0.5 * (tail.dlog_f2 - tail.q * std::tanh(0.5 * tail.u));
  }
  const double f = std::exp(log_f);
  return {f, f * dlog};
}

// F and f at s in the unscaled convention (beta = 4: F4u).
Value evaluate_unscaled(double s, int beta, bool want_pdf) {
  if (std::isnan(s)) return {s, s};
  if (s > kRightCut) return {1.0, 0.0};
  if (s < left_cut(beta)) {
    if (s == -INFINITY) return {0.0, 0.0};
    return left_tail(s, beta);
  }
  if (beta == 2) return airy_kernel_determinant(s, want_pdf);
  const HankelDeterminants d = hankel_determinants(s, beta == 4, want_pdf);
  if (beta == 1) return {d.minus, d.minus_prime};
  return {0.5 * (d.minus + d.plus), 0.5 * (d.minus_prime + d.plus_prime)};
}

// F and f in the requested convention: F4(s) = F4u(sqrt 2 s), f4(s) = sqrt 2 f4u(sqrt 2 s). Roundoff (~1e-16) can
// put a determinant just above 1 or a density just below 0 in the flat right tail: both are clamped.
Value evaluate(double s, int beta, Tw4Convention convention, bool want_pdf) {
  check_beta(beta);
  const bool rescale = beta == 4 && convention == Tw4Convention::sqrt2;
  Value v = evaluate_unscaled(rescale ? kSqrt2 * s : s, beta, want_pdf);
  if (rescale) v.pdf *= kSqrt2;
  if (std::isnan(v.cdf)) return v;
  return {std::clamp(v.cdf, 0.0, 1.0), std::max(v.pdf, 0.0)};
}

// Moments of the unscaled law by composite Gauss-Legendre (20 nodes per unit panel) over [left, right]:
// the tails outside carry |s|^4 f(s) < 1e-16 (left: the expansions above; right: 1 - F ~ exp(-c s^(3/2)),
// c = 2/3 for beta = 1, 4/3 for beta = 2 and 4). Central moments are summed about the mean (second pass over
// stored density values): raw fourth moments would cancel ~100 -> 3 for beta = 4 and cost 3e-13 in the kurtosis.
TracyWidomMoments unscaled_moments(int beta) {
  const double left = moment_left_end(beta);
  const double right = beta == 1 ? 18.0 : 11.0;
  const QuadratureRule& rule = gauss_legendre<20>();
  const int panels = static_cast<int>(std::ceil(right - left));
  const double width = (right - left) / panels;
  std::vector<std::pair<double, double>> points;  // (s, weight x density)
  for (int panel = 0; panel < panels; ++panel) {
    const double mid = left + (panel + 0.5) * width;
    for (std::size_t i = 0; i < rule.nodes.size(); ++i) {
      const double s = mid + 0.5 * width * rule.nodes[i];
      points.emplace_back(s, 0.5 * width * rule.weights[i] * evaluate_unscaled(s, beta, true).pdf);
    }
  }
  double mass = 0.0, first = 0.0;
  for (const auto& [s, w] : points) mass += w, first += w * s;
  const double mean = first / mass;
  double m2 = 0.0, m3 = 0.0, m4 = 0.0;
  for (const auto& [s, w] : points) {
    const double d = s - mean;
    m2 += w * d * d;
    m3 += w * d * d * d;
    m4 += w * d * d * d * d;
  }
  m2 /= mass, m3 /= mass, m4 /= mass;
  return {mean, m2, m3 / (m2 * std::sqrt(m2)), m4 / (m2 * m2) - 3.0};
}

}  // namespace

double tracy_widom4_convert(double s, Tw4Convention from, Tw4Convention to) {
  if (from == to) return s;
  // F4(s) = F4u(sqrt 2 s): a sqrt2-convention argument s is the unscaled argument sqrt 2 s.
  return from == Tw4Convention::sqrt2 ? kSqrt2 * s : s / kSqrt2;
}

double tracy_widom_cdf(double s, int beta, Tw4Convention convention) {
  return evaluate(s, beta, convention, false).cdf;
}

double tracy_widom_pdf(double s, int beta, Tw4Convention convention) { return evaluate(s, beta, convention, true).pdf; }

double tracy_widom_quantile(double p, int beta, Tw4Convention convention) {
  check_beta(beta);
  MOELAB_EXPECT(p > 0.0 && p < 1.0, "Tracy-Widom quantile needs p in (0, 1)");
  // Bracket in the unscaled argument: F(-40) < 1e-300 for all beta; F(40) rounds to 1 (> any p < 1).
  const auto residual = [&](double s) { return evaluate_unscaled(s, beta, false).cdf - p; };
  double lo = -12.0, hi = 12.0;
  while (residual(lo) > 0.0 && lo > -60.0) lo -= 12.0;
  while (residual(hi) < 0.0 && hi < kRightCut) hi += 12.0;
  std::uintmax_t iterations = 200;
  const auto [a, b] =
      boost::math::tools::toms748_solve(residual, lo, hi, boost::math::tools::eps_tolerance<double>(52), iterations);
  const double root = 0.5 * (a + b);
  return beta == 4 ? tracy_widom4_convert(root, Tw4Convention::unscaled, convention) : root;
}

TracyWidomMoments tracy_widom_moments(int beta, Tw4Convention convention) {
  check_beta(beta);
  static const std::array<TracyWidomMoments, 3> cached = {unscaled_moments(1), unscaled_moments(2),
                                                          unscaled_moments(4)};
  TracyWidomMoments m = cached[beta == 1 ? 0 : beta == 2 ? 1 : 2];
  if (beta == 4 && convention == Tw4Convention::sqrt2) {
    // X_sqrt2 = X_unscaled / sqrt 2: mean / sqrt 2, variance / 2; skewness and kurtosis are scale-free.
    m.mean /= kSqrt2;
    m.variance /= 2.0;
  }
  return m;
}

EdgeScaling wishart_largest_eigenvalue_scaling(double n, double p, WishartEdge kind) {
  MOELAB_EXPECT(p >= 1.0, "Wishart dimension p must be >= 1");
  switch (kind) {
    case WishartEdge::johnstone_real: {
      MOELAB_EXPECT(n >= 2.0, "real Wishart needs n >= 2 (Johnstone's centring uses n - 1)");
      // Johnstone (2001), Thm 1.1.
      const double a = std::sqrt(n - 1.0), b = std::sqrt(p);
      return {(a + b) * (a + b), (a + b) * std::cbrt(1.0 / a + 1.0 / b)};
    }
    case WishartEdge::johansson_complex: {
      MOELAB_EXPECT(n >= 1.0, "complex Wishart needs n >= 1");
      // Johansson (2000), Thm 1.6.
      const double a = std::sqrt(n), b = std::sqrt(p);
      return {(a + b) * (a + b), (a + b) * std::cbrt(1.0 / a + 1.0 / b)};
    }
  }
  MOELAB_EXPECT(false, "unknown WishartEdge");
  return {};
}

double wishart_largest_eigenvalue_cdf(double l, double n, double p, WishartEdge kind) {
  const EdgeScaling e = wishart_largest_eigenvalue_scaling(n, p, kind);
  return tracy_widom_cdf((l - e.centre) / e.scale, kind == WishartEdge::johnstone_real ? 1 : 2);
}

}  // namespace moelab::spectra
