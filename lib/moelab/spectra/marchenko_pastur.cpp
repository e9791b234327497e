#include "moelab/spectra/marchenko_pastur.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <numbers>

#include "moelab/core/error.hpp"
#include "moelab/core/stats.hpp"

namespace moelab::spectra {

namespace {


// Within this fraction of the edge scale of an edge, the closed form loses relative accuracy to the
// cancellation of its O(sqrt(distance)) terms (relative error ~ eps * scale / distance): 5% keeps it
// below ~20 eps outside, while the Gauss rule inside sees singularities >= sqrt(20) interval lengths away.
constexpr double kEdgeFraction = 0.05;

// Mass of the absolutely continuous part between the lower edge a and t (sigma2 = 1 units), by the
// substitution t = a + s^2: integrand s^2 sqrt(b - a - s^2) / (pi c (a + s^2)), analytic near [0, sqrt(t - a)].
double lower_edge_mass(double c, double a, double b, double t) {
  const double s_max = std::sqrt(std::max(t - a, 0.0));
  const auto integrand = [&](double s) {
    const double s2 = s * s;
    return s2 * std::sqrt(std::max(b - a - s2, 0.0)) / (std::numbers::pi * c * (a + s2));
  };
  return boost::math::quadrature::gauss<double, 20>::integrate(integrand, 0.0, s_max);
}

// Mass between t and the upper edge b, by t = b - s^2.
double upper_edge_mass(double c, double a, double b, double t) {
  const double s_max = std::sqrt(std::max(b - t, 0.0));
  const auto integrand = [&](double s) {
    const double s2 = s * s;
    return s2 * std::sqrt(std::max(b - a - s2, 0.0)) / (std::numbers::pi * c * (b - s2));
  };
  return boost::math::quadrature::gauss<double, 20>::integrate(integrand, 0.0, s_max);
}

// Far from c = 1 (c <= kAngularBelow or c >= 1 / kAngularBelow) the closed form below cancels: its terms are
// O(1 + c) while 2 pi c F_ac is O(min(c, 1)) (relative error ~ eps max(c, 1/c); 6e-3 absolute at c = 1e-14, and
// F_ac(1) = 0 at c = 1e-20). There the mass is integrated in the angle of the support instead:
// t = 1 + c - 2 sqrt(c) cos(phi), phi in [0, pi] (t - a = 4 sqrt(c) sin^2(phi/2), b - t = 4 sqrt(c) cos^2(phi/2)),
// which turns f(t) dt into (2/pi) sin^2(phi) / (1 + c - 2 sqrt(c) cos(phi)) dphi: a positive integrand, analytic
// in a strip |Im phi| < |log sqrt c| (poles at cos(phi) = (1 + c)/(2 sqrt c)), that tends to the semicircle
// law (2/pi) sin^2(phi) as c -> 0. A 30-point Gauss-Legendre rule on [0, theta] (or [theta, pi]) then has
// relative error below ~r^(-60), r = Bernstein-ellipse parameter of the strip (r >= 1.97 for theta <= pi at
// c = 0.1: 2e-18), and sums positive terms only: the mass is monotone in theta up to rounding.
constexpr double kAngularBelow = 0.1;

bool use_angular(double c) { return c <= kAngularBelow || c >= 1.0 / kAngularBelow; }

// Distances of t = x / sigma2 from the edges a = 1 + c - 2 sqrt(c), b = 1 + c + 2 sqrt(c) (sigma2 = 1 units), for
// ratios far from 1. Forming a and b in double first would round them by eps (1 + c) absolute, i.e. by
// eps (1 + c) / (4 sqrt c) of the support width (2.8e-7 at c = 1e-20); instead the offset of x from the
// centre sigma2 (1 + c) is formed with x - sigma2 (c < 1; exact by Sterbenz's lemma on the support) or
// fma(-sigma2, c, x) (c > 1; one rounding), so both distances carry a few eps of relative error.
struct EdgeDistances {
  double below, above;  // t - a, b - t (negative outside the support)
};
EdgeDistances edge_distances(double c, double sigma2, double x) {
  const double offset = c <= 1.0 ? (x - sigma2) / sigma2 - c : std::fma(-sigma2, c, x) / sigma2 - 1.0;
  const double half_width = 2.0 * std::sqrt(c);
  return {offset + half_width, half_width - offset};
}

// The angle theta of t in [0, pi]: theta = 2 atan2(sqrt(t - a), sqrt(b - t)) (no acos of a number near -1 or 1).
double support_angle(const EdgeDistances& d) {
  return 2.0 * std::atan2(std::sqrt(std::max(d.below, 0.0)), std::sqrt(std::max(d.above, 0.0)));
}

// (2/pi) int_lo^hi sin^2(phi) / (1 + c - 2 sqrt(c) cos(phi)) dphi, 0 <= lo <= hi <= pi.
double angular_mass(double c, double lo, double hi) {
  const double alpha = 1.0 + c, beta = 2.0 * std::sqrt(c);
  const auto integrand = [&](double phi) {
    const double s = std::sin(phi);
    return s * s / (alpha - beta * std::cos(phi));
  };
  return 2.0 / std::numbers::pi * boost::math::quadrature::gauss<double, 30>::integrate(integrand, lo, hi);
}

// Mass of the absolutely continuous part on [a, t] and on [t, b], a < t < b, sigma2 = 1 units.
// Closed forms (header, `cdf`): 2 pi c F_ac(t) = r + 2(1 + c) asin(sqrt((t - a)/(b - a)))
//   - 2 |1 - c| asin(sqrt(b (t - a)/(t (b - a)))), and symmetrically about b for the upper mass.
double ac_mass_below(double c, double a, double b, double t) {
  if (a > 0.0 && t - a < kEdgeFraction * std::min(a, b - a)) return lower_edge_mass(c, a, b, t);
  const double width = b - a;
  const double r = std::sqrt((b - t) * (t - a));
  const double arc_u = std::asin(std::min(1.0, std::sqrt((t - a) / width)));
  const double arc_v = std::asin(std::min(1.0, std::sqrt(b * (t - a) / (t * width))));
  return (r + 2.0 * (1.0 + c) * arc_u - 2.0 * std::abs(1.0 - c) * arc_v) / (2.0 * std::numbers::pi * c);
}

double ac_mass_above(double c, double a, double b, double t) {
  if (b - t < kEdgeFraction * (b - a)) return upper_edge_mass(c, a, b, t);
  const double width = b - a;
  const double r = std::sqrt((b - t) * (t - a));
  const double arc_u = std::asin(std::min(1.0, std::sqrt((b - t) / width)));
  const double arc_v = std::asin(std::min(1.0, std::sqrt(a * (b - t) / (t * width))));
  return (-r + 2.0 * (1.0 + c) * arc_u - 2.0 * std::abs(1.0 - c) * arc_v) / (2.0 * std::numbers::pi * c);
}

}  // namespace

MarchenkoPastur::MarchenkoPastur(double c, double sigma2) : c_(c), sigma2_(sigma2) {
  MOELAB_EXPECT(std::isfinite(c) && c > 0.0, "MarchenkoPastur: ratio c must be positive and finite");
  MOELAB_EXPECT(std::isfinite(sigma2) && sigma2 > 0.0, "MarchenkoPastur: scale sigma2 must be positive and finite");
}

double MarchenkoPastur::lower_edge() const {
  const double d = 1.0 - std::sqrt(c_);
  return sigma2_ * d * d;
}

double MarchenkoPastur::upper_edge() const {
  const double d = 1.0 + std::sqrt(c_);
  return sigma2_ * d * d;
}

double MarchenkoPastur::atom() const { return c_ > 1.0 ? 1.0 - 1.0 / c_ : 0.0; }

double MarchenkoPastur::density(double x) const {
  if (std::isnan(x)) return x;  // NaN in, NaN out (every comparison below is false for NaN: it gave 0)
  if (use_angular(c_)) {
    // Far from c = 1: f = sqrt((t - a)(b - t)) / (2 pi c t) / sigma2 with cancellation-free distances.
    const EdgeDistances d = edge_distances(c_, sigma2_, x);
    if (!(d.below >= 0.0 && d.above >= 0.0)) return 0.0;
    return std::sqrt(d.below * d.above) / (2.0 * std::numbers::pi * c_ * (x / sigma2_)) / sigma2_;
  }
  const double t = x / sigma2_;
  const double root_c = std::sqrt(c_);
  const double a = (1.0 - root_c) * (1.0 - root_c), b = (1.0 + root_c) * (1.0 + root_c);
  if (!(t >= a && t <= b)) return 0.0;
  if (t == 0.0) return std::numeric_limits<double>::infinity();  // c = 1 only (a = 0)
  // (b - t)(t - a) as a product of two differences: no cancellation of t^2 terms.
  return std::sqrt((b - t) * (t - a)) / (2.0 * std::numbers::pi * c_ * t) / sigma2_;
}

double MarchenkoPastur::cdf(double x) const {
  if (std::isnan(x)) return x;
  if (use_angular(c_)) {
    if (x < 0.0) return 0.0;
    const EdgeDistances d = edge_distances(c_, sigma2_, x);
    if (d.below <= 0.0) return atom();
    if (d.above <= 0.0) return 1.0;
    const double theta = support_angle(d);
    if (theta <= 0.5 * std::numbers::pi) return atom() + angular_mass(c_, 0.0, theta);
    return 1.0 - angular_mass(c_, theta, std::numbers::pi);
  }
  const double t = x / sigma2_;
  const double root_c = std::sqrt(c_);
  const double a = (1.0 - root_c) * (1.0 - root_c), b = (1.0 + root_c) * (1.0 + root_c);
  if (t < 0.0) return 0.0;
  if (t <= a) return atom();  // includes t = 0: right-continuous at the atom
  if (t >= b) return 1.0;
  if (t <= 0.5 * (a + b)) return atom() + ac_mass_below(c_, a, b, t);
  return 1.0 - ac_mass_above(c_, a, b, t);
}

double MarchenkoPastur::survival(double x) const {
  if (use_angular(c_)) {
    // Mass of the continuous part 1/c for c > 1, formed directly (1 - atom() loses log10(c) digits).
    const double continuous = c_ > 1.0 ? 1.0 / c_ : 1.0;
    if (x < 0.0) return 1.0;
    const EdgeDistances d = edge_distances(c_, sigma2_, x);
    if (d.below <= 0.0) return continuous;
    if (d.above <= 0.0) return 0.0;
    const double theta = support_angle(d);
    if (theta > 0.5 * std::numbers::pi) return angular_mass(c_, theta, std::numbers::pi);
    return continuous - angular_mass(c_, 0.0, theta);
  }
  const double t = x / sigma2_;
  const double root_c = std::sqrt(c_);
  const double a = (1.0 - root_c) * (1.0 - root_c), b = (1.0 + root_c) * (1.0 + root_c);
  if (t < 0.0) return 1.0;
  if (t <= a) return 1.0 - atom();
  if (t >= b) return 0.0;
  if (t > 0.5 * (a + b)) return ac_mass_above(c_, a, b, t);
  return (1.0 - atom()) - ac_mass_below(c_, a, b, t);
}

double MarchenkoPastur::quantile(double p) const {
  MOELAB_EXPECT(p >= 0.0 && p <= 1.0, "MarchenkoPastur::quantile: p must lie in [0, 1]");
  const double a = lower_edge(), b = upper_edge();
  if (c_ > 1.0 && p <= atom()) return 0.0;
  if (p == 0.0) return a;
  if (p == 1.0) return b;
  // Solve in the half where the target is not a difference of nearly equal numbers: F(x) = p below
  // the median of the continuous part, S(x) = 1 - p above it.
  const double half = atom() + 0.5 * (1.0 - atom());
  // For c >= 10 (angular branch) always through the survival function: p > atom() >= 0.9 makes 1 - p exact, while
  // cdf = atom() + mass carries the rounding of atom() (eps/2 absolute: 0.5% of the continuous mass 1/c at c = 1e14).
  const bool upper = p > half || (use_angular(c_) && c_ > 1.0);
  const auto f = [&](double x) { return upper ? (1.0 - p) - survival(x) : cdf(x) - p; };
  double lo = a, hi = b;
  double f_lo = f(lo), f_hi = f(hi);
  if (f_lo >= 0.0) return lo;
  if (f_hi <= 0.0) return hi;
  std::uintmax_t max_iter = 200;
  // Bracket to ~2 ulp of the root (tolerance of 51 bits of 53).
  const auto r = boost::math::tools::toms748_solve(f, lo, hi, f_lo, f_hi, boost::math::tools::eps_tolerance<double>(51),
                                                   max_iter);
  return 0.5 * (r.first + r.second);
}

double MarchenkoPastur::moment(int k) const {
  MOELAB_EXPECT(k >= 0 && k <= 200, "MarchenkoPastur::moment: k must lie in [0, 200]");
  if (k == 0) return 1.0;
  // Narayana polynomial sum_{r=0}^{k-1} T_r, T_r = c^r C(k, r) C(k - 1, r)/(r + 1); T_0 = 1 and
  // T_{r+1}/T_r = c (k - r)(k - 1 - r)/((r + 1)(r + 2)): positive terms, no cancellation.
  double term = 1.0, sum = 1.0;
  for (int r = 0; r + 1 < k; ++r) {
    term *= c_ * static_cast<double>(k - r) * static_cast<double>(k - 1 - r) /
            (static_cast<double>(r + 1) * static_cast<double>(r + 2));
    sum += term;
  }
  return std::pow(sigma2_, k) * sum;
}

std::complex<double> MarchenkoPastur::stieltjes(std::complex<double> z) const {
  using cd = std::complex<double>;
  const double root_c = std::sqrt(c_);
  const double a = (1.0 - root_c) * (1.0 - root_c), b = (1.0 + root_c) * (1.0 + root_c);
  const cd w = z / sigma2_;  // m_sigma2(z) = m_1(z / sigma2) / sigma2
  MOELAB_EXPECT(!(w == cd(0.0) && c_ >= 1.0), "MarchenkoPastur::stieltjes: z = 0 is the atom (c > 1) or an edge (c = 1)");
  const cd root = std::sqrt(w - a) * std::sqrt(w - b);  // ~ w at infinity, cut on [a, b]
  const cd base = 1.0 - c_ - w;
  // The two roots are (base + root)/(2 c w) and (base - root)/(2 c w), product 1/(c w): the first is
  // the Stieltjes branch; when |base + root| < |base - root| it suffers cancellation, so use
  // 2 / (base - root) instead (also finite at w = 0 for c < 1).
  cd m;
  if (std::abs(base + root) >= std::abs(base - root))
    m = (base + root) / (2.0 * c_ * w);
  else
    m = 2.0 / (base - root);
  return m / sigma2_;
}

MarchenkoPastur MarchenkoPastur::scaled(double t) const {
  MOELAB_EXPECT(t > 0.0, "MarchenkoPastur::scaled: factor must be positive");
  return MarchenkoPastur(c_, t * sigma2_);
}

MarchenkoPastur MarchenkoPastur::companion() const { return MarchenkoPastur(1.0 / c_, c_ * sigma2_); }

MarchenkoPastur marchenko_pastur_of_gram(double M, double N, double sigma2, GramSide side, GramNormalisation norm) {
  MOELAB_EXPECT(M > 0.0 && N > 0.0, "marchenko_pastur_of_gram: dimensions must be positive");
  const double divisor = norm == GramNormalisation::by_columns ? N : M;
  if (side == GramSide::rows) return MarchenkoPastur(M / N, sigma2 * N / divisor);
  return MarchenkoPastur(N / M, sigma2 * M / divisor);
}

double MarchenkoPastur::ks_distance(std::span<const double> ascending) const {
  return ks_statistic(
      ascending, [&](double x) { return cdf(x); }, [&](double x) { return x <= 0.0 ? 0.0 : cdf(x); });
}

}  // namespace moelab::spectra
