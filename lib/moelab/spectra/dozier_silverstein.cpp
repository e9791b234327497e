#include "moelab/spectra/dozier_silverstein.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <numbers>

#include "moelab/core/error.hpp"

namespace moelab::spectra {

namespace {

using cd = std::complex<double>;

// Grid points per omega-interval for locating critical points of x(omega) (support()).
constexpr int kSupportGrid = 4000;

struct NewtonResult {
  cd m;
  double residual;
  int iterations;
  bool ok;
};

}  // namespace

DozierSilverstein::DozierSilverstein(std::vector<double> atoms, std::vector<double> weights, double c, double sigma2)
    : atoms_(std::move(atoms)), weights_(std::move(weights)), c_(c), sigma2_(sigma2) {
  MOELAB_EXPECT(std::isfinite(c) && c > 0.0, "DozierSilverstein: ratio c must be positive");
  MOELAB_EXPECT(std::isfinite(sigma2) && sigma2 > 0.0, "DozierSilverstein: noise variance sigma2 must be positive");
  MOELAB_EXPECT(!atoms_.empty() && atoms_.size() == weights_.size(),
                "DozierSilverstein: atoms and weights must be non-empty and of equal length");
  double total = 0.0, at_zero = 0.0;
  for (std::size_t j = 0; j < atoms_.size(); ++j) {
    MOELAB_EXPECT(std::isfinite(atoms_[j]) && atoms_[j] >= 0.0, "DozierSilverstein: atoms of H must be finite and >= 0");
    MOELAB_EXPECT(std::isfinite(weights_[j]) && weights_[j] > 0.0, "DozierSilverstein: weights of H must be positive");
    total += weights_[j];
    if (atoms_[j] == 0.0) at_zero += weights_[j];
  }
  MOELAB_EXPECT(std::abs(total - 1.0) <= 1e-12, "DozierSilverstein: weights of H must sum to 1");
  for (double& w : weights_) w /= total;
  MOELAB_EXPECT(c <= 1.0 || at_zero / total >= 1.0 - 1.0 / c - 1e-12,
                "DozierSilverstein: for c > 1, H must put mass >= 1 - 1/c at 0 (rank R <= N)");
}

double DozierSilverstein::atom_at_zero() const { return c_ > 1.0 ? 1.0 - 1.0 / c_ : 0.0; }

double DozierSilverstein::scale() const { return moment(1); }

double DozierSilverstein::moment(int k) const {
  MOELAB_EXPECT(k >= 0 && k <= 2, "DozierSilverstein::moment: only k = 0, 1, 2 are implemented");
  double h1 = 0.0, h2 = 0.0;
  for (std::size_t j = 0; j < atoms_.size(); ++j) {
    h1 += weights_[j] * atoms_[j];
    h2 += weights_[j] * atoms_[j] * atoms_[j];
  }
  if (k == 0) return 1.0;
  if (k == 1) return h1 + sigma2_;
  return h2 + 2.0 * sigma2_ * (1.0 + c_) * h1 + sigma2_ * sigma2_ * (1.0 + c_);
}

namespace {

// Damped Newton for G(m) = m - w m_H(omega), w = 1 + s c m, omega = w^2 z - s (1 - c) w, from m0.
// Accepts only iterates in the Stieltjes region Im m > 0 (Im z > 0). Returns ok = false when it does not
// reach |dm| <= tol |m| within max_iter iterations.
NewtonResult newton(const std::vector<double>& t, const std::vector<double>& p, double c, double s, cd z, cd m0,
                    double tol, int max_iter) {
  const auto evaluate = [&](cd m, cd* derivative) {
    const cd w = 1.0 + s * c * m;
    const cd omega = w * w * z - s * (1.0 - c) * w;
    cd mh = 0.0, mh_prime = 0.0;
    for (std::size_t j = 0; j < t.size(); ++j) {
      const cd inv = 1.0 / (t[j] - omega);
      mh += p[j] * inv;
      mh_prime += p[j] * inv * inv;
    }
    if (derivative) *derivative = 1.0 - s * c * mh - w * mh_prime * (s * c * (2.0 * w * z - s * (1.0 - c)));
    return m - w * mh;
  };
  cd m = m0;
  cd g_prime;
  cd g = evaluate(m, &g_prime);
  // Residual floor: G = m - w m_H is a difference of O(|m|) terms, so rounding leaves ~eps |m| (times the
  // few-term sums); a step that cannot lower the residual below 64 eps |m| is at that floor.
  const double floor = 64.0 * std::numeric_limits<double>::epsilon();
  for (int it = 1; it <= max_iter; ++it) {
    const cd step = g / g_prime;
    if (!std::isfinite(step.real()) || !std::isfinite(step.imag())) return {m, std::abs(g) / std::abs(m), it, false};
    if (std::abs(step) <= tol * std::abs(m)) {
      const cd m_new = m - step;
      if (m_new.imag() > 0.0) m = m_new;
      return {m, std::abs(evaluate(m, nullptr)) / std::abs(m), it, true};
    }
    // Damping: halve the step until the residual does not grow (beyond rounding) and Im m stays positive.
    double damping = 1.0;
    cd m_new = m - step, g_new_prime;
    cd g_new = evaluate(m_new, &g_new_prime);
    const auto rejected = [&]() {
      return m_new.imag() <= 0.0 || !std::isfinite(std::abs(g_new)) ||
             std::abs(g_new) > std::abs(g) + floor * std::abs(m);
    };
    int halvings = 0;
    for (; halvings < 40 && rejected(); ++halvings) {
      damping *= 0.5;
      m_new = m - damping * step;
      g_new = evaluate(m_new, &g_new_prime);
    }
    if (rejected()) return {m, std::abs(g) / std::abs(m), it, std::abs(g) <= floor * std::abs(m)};
    m = m_new;
    g = g_new;
    g_prime = g_new_prime;
    if (std::abs(g) <= 0.25 * floor * std::abs(m) && damping == 1.0 && std::abs(step) <= 1e-8 * std::abs(m))
      return {m, std::abs(g) / std::abs(m), it, true};  // quadratic phase reached the rounding floor
  }
  return {m, std::abs(g) / std::abs(m), max_iter, false};
}

}  // namespace

DozierSilversteinSolution DozierSilverstein::stieltjes(std::complex<double> z, const DozierSilversteinOptions& options) const {
  MOELAB_EXPECT(z.imag() > 0.0, "DozierSilverstein::stieltjes: z must lie in the upper half plane");
  MOELAB_EXPECT(options.eta_ratio > 0.0 && options.eta_ratio < 1.0, "DozierSilverstein: eta_ratio must lie in (0, 1)");
  const double x = z.real(), eta_target = z.imag();
  DozierSilversteinSolution out;
  // Start far from the axis, where m = -1/z (1 + O(s0/|z|)) and Newton from -1/z converges to the Stieltjes
  // branch; then lower eta geometrically, each step started from the previous solution.
  double eta = std::max(eta_target, 10.0 * std::max(scale(), std::abs(x)));
  cd m = -1.0 / cd(x, eta);
  bool first = true;
  double ratio = options.eta_ratio;
  double eta_good = eta;
  while (true) {
    const cd zk(x, eta);
    const NewtonResult r = newton(atoms_, weights_, c_, sigma2_, zk, m, options.tolerance, options.max_newton);
    out.iterations += r.iterations;
    // Accept: converged, Stieltjes region (Im m > 0, Im(z m) >= 0 up to rounding: the law lives on [0, inf)).
    const bool ok = r.ok && r.m.imag() > 0.0 && (zk * r.m).imag() >= -1e-12 * std::abs(zk * r.m);
    if (ok) {
      m = r.m;
      eta_good = eta;
      out.m = m;
      out.eta = eta;
      out.residual = r.residual;
      first = false;
      if (eta == eta_target) {
        out.converged = true;
        return out;
      }
      ratio = std::max(options.eta_ratio, ratio * ratio);  // after a retry, lengthen the step again
      eta = std::max(eta_target, eta_good * ratio);
      continue;
    }
    if (first) {
      out.converged = false;
      out.m = r.m;
      out.eta = eta;
      out.residual = r.residual;
      return out;
    }
    // Retry closer to the last accepted eta.
    ratio = std::sqrt(ratio);
    if (ratio > 1.0 - 1e-6) {
      out.converged = false;  // out holds the last accepted point (eta_good > eta_target)
      return out;
    }
    eta = std::max(eta_target, eta_good * ratio);
  }
}

DozierSilversteinDensityPoint DozierSilverstein::density(double x, const DozierSilversteinOptions& options) const {
  const double eta = options.eta_min_rel * scale();
  const DozierSilversteinSolution s = stieltjes({x, eta}, options);
  DozierSilversteinDensityPoint p;
  p.x = x;
  p.density = s.m.imag() / std::numbers::pi;
  p.eta = s.eta;
  p.residual = s.residual;
  p.iterations = s.iterations;
  p.converged = s.converged;
  return p;
}

std::vector<DozierSilversteinDensityPoint> DozierSilverstein::density_grid(const std::vector<double>& xs,
                                                                           const DozierSilversteinOptions& options) const {
  std::vector<DozierSilversteinDensityPoint> out;
  out.reserve(xs.size());
  for (const double x : xs) out.push_back(density(x, options));
  return out;
}

std::vector<DozierSilversteinDensityPoint> DozierSilverstein::density_grid(double lo, double hi, int n,
                                                                           const DozierSilversteinOptions& options) const {
  MOELAB_EXPECT(n >= 2 && hi > lo, "DozierSilverstein::density_grid: needs n >= 2 and hi > lo");
  std::vector<double> xs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) xs[static_cast<std::size_t>(i)] = lo + (hi - lo) * i / (n - 1);
  return density_grid(xs, options);
}

double DozierSilverstein::m_h(double omega, double* derivative) const {
  double mh = 0.0, mh_prime = 0.0;
  for (std::size_t j = 0; j < atoms_.size(); ++j) {
    const double inv = 1.0 / (atoms_[j] - omega);
    mh += weights_[j] * inv;
    mh_prime += weights_[j] * inv * inv;
  }
  if (derivative) *derivative = mh_prime;
  return mh;
}

double DozierSilverstein::omega_map(double omega) const {
  const double g = 1.0 - sigma2_ * c_ * m_h(omega, nullptr);
  return omega * g * g + sigma2_ * (1.0 - c_) * g;
}

double DozierSilverstein::omega_map_derivative(double omega) const {
  double mh_prime = 0.0;
  const double g = 1.0 - sigma2_ * c_ * m_h(omega, &mh_prime);
  const double g_prime = -sigma2_ * c_ * mh_prime;
  return g * g + 2.0 * omega * g * g_prime + sigma2_ * (1.0 - c_) * g_prime;
}

DozierSilverstein DozierSilverstein::companion() const {
  // (B + W)' is N x M, noise variance sigma2/N = (c sigma2)/M: ratio 1/c, scale c sigma2. B'B has the M w_j
  // nonzero eigenvalues t_j of B B' and N - M (1 - w_0) zeros: in fractions of N, c w_j and 1 - c (1 - w_0).
  std::vector<double> t, p;
  double nonzero = 0.0;
  for (std::size_t j = 0; j < atoms_.size(); ++j) {
    if (atoms_[j] == 0.0) continue;
    t.push_back(atoms_[j]);
    p.push_back(c_ * weights_[j]);
    nonzero += c_ * weights_[j];
  }
  const double zero = 1.0 - nonzero;
  MOELAB_EXPECT(zero >= -1e-12, "DozierSilverstein::companion: H puts too little mass at 0 for this c");
  if (zero > 1e-15) {
    t.push_back(0.0);
    p.push_back(zero);
  } else if (!p.empty()) {
    // Renormalise away a rounding-size remainder.
    for (double& w : p) w /= nonzero;
  }
  return DozierSilverstein(t, p, 1.0 / c_, c_ * sigma2_);
}

std::vector<SupportInterval> DozierSilverstein::support() const {
  if (c_ > 1.0) return companion().support();
  const double s0 = scale();
  std::vector<double> poles = atoms_;
  std::sort(poles.begin(), poles.end());
  poles.erase(std::unique(poles.begin(), poles.end()), poles.end());
  const double sc = sigma2_ * c_;
  const auto g = [&](double omega) { return 1.0 - sc * m_h(omega, nullptr); };
  const auto dphi = [&](double omega) { return omega_map_derivative(omega); };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::pair<double, double>> complement;  // x-images of the admissible omega-intervals

  // Omega-intervals between poles: (-inf, P_1), (P_k, P_k+1), (P_K, inf). On each, g is strictly
  // decreasing (g' = -s c m_H' < 0), so {g > 0} is (left end, root of g) (or the whole last interval).
  const std::size_t K = poles.size();
  for (std::size_t k = 0; k <= K; ++k) {
    const double left = k == 0 ? -inf : poles[k - 1];
    double right = k == K ? inf : poles[k];
    if (k < K) {
      // Root of g in (left, right): g -> +inf (pole) or 1 (at -inf) at the left end, -inf at the right pole.
      double a;
      if (std::isfinite(left)) {
        double d = 1e-3 * (right - left);
        a = left + d;
        while (g(a) <= 0.0 && d > 1e-300) a = left + (d *= 0.5);
      } else {
        double d = s0;
        a = right - d;
        while (g(a) <= 0.0 && std::isfinite(d)) a = right - (d *= 2.0);
      }
      double d = 1e-3 * (right - a);
      double b = right - d;
      while (g(b) >= 0.0 && d > 1e-300) b = right - (d *= 0.5);
      std::uintmax_t it = 200;
      const auto r = boost::math::tools::toms748_solve(g, a, b, boost::math::tools::eps_tolerance<double>(52), it);
      right = 0.5 * (r.first + r.second);
    }
    // Scan x'(omega) on a grid of the interval {g > 0} = (left, right).
    std::vector<double> grid;
    grid.reserve(kSupportGrid + 1);
    for (int i = 1; i < kSupportGrid; ++i) {
      const double u = static_cast<double>(i) / kSupportGrid;
      double omega;
      if (std::isfinite(left) && std::isfinite(right))
        omega = left + (right - left) * 0.5 * (1.0 - std::cos(std::numbers::pi * u));  // clusters at both ends
      else if (!std::isfinite(left))
        omega = right - s0 * u / (1.0 - u);
      else
        omega = left + s0 * u / (1.0 - u);
      grid.push_back(omega);
    }
    if (!std::isfinite(left)) std::reverse(grid.begin(), grid.end());  // increasing omega
    // Maximal runs with x' > 0, their ends refined to the sign change.
    const auto refine = [&](double a, double b) {
      std::uintmax_t it = 200;
      const auto r = boost::math::tools::toms748_solve(dphi, a, b, boost::math::tools::eps_tolerance<double>(52), it);
      return 0.5 * (r.first + r.second);
    };
    bool in_run = false;
    double run_start = left;
    // Before the first grid point: the interval end behaves like its nearest grid point.
    double previous = grid.front();
    bool previous_positive = dphi(previous) > 0.0;
    if (previous_positive) {
      // From -inf (x' -> 1 there). Next to a pole, x' < 0 from the right (x ~ omega g^2, g -> +inf), so a
      // positive first point is not expected there; start the run at that point to stay conservative.
      in_run = true;
      run_start = std::isfinite(left) ? previous : left;
    }
    for (std::size_t i = 1; i < grid.size(); ++i) {
      const double omega = grid[i];
      const bool positive = dphi(omega) > 0.0;
      if (positive != previous_positive) {
        const double root = refine(previous, omega);
        if (positive) {
          in_run = true;
          run_start = root;
        } else {
          in_run = false;
          complement.emplace_back(std::isfinite(run_start) ? omega_map(run_start) : -inf, omega_map(root));
        }
      }
      previous = omega;
      previous_positive = positive;
    }
    if (in_run) {
      // Run reaching the right end: the root of g (x -> 0) or +inf (x -> inf).
      complement.emplace_back(std::isfinite(run_start) ? omega_map(run_start) : -inf, std::isfinite(right) ? omega_map(right) : inf);
    }
  }
  // Support = [0, inf) minus the union of the complement intervals.
  std::sort(complement.begin(), complement.end());
  std::vector<SupportInterval> out;
  double covered = -inf;
  for (const auto& [lo, hi] : complement) {
    const double gap_start = std::max(covered, 0.0);
    if (lo > gap_start) out.push_back({gap_start, lo});
    covered = std::max(covered, hi);
  }
  return out;
}

double DozierSilverstein::cdf(double x) const {
  double total = x >= 0.0 ? atom_at_zero() : 0.0;
  for (const SupportInterval& iv : support()) {
    if (x <= iv.lower) break;
    const double half = 0.5 * (iv.upper - iv.lower);
    const double theta_end = x >= iv.upper ? std::numbers::pi : std::acos(1.0 - (x - iv.lower) / half);
    const auto f = [&](double theta) {
      return density(iv.lower + half * (1.0 - std::cos(theta))).density * half * std::sin(theta);
    };
    total += boost::math::quadrature::gauss_kronrod<double, 31>::integrate(f, 0.0, theta_end, 10, 1e-10);
  }
  return std::min(total, 1.0);
}

}  // namespace moelab::spectra
