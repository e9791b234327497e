#include "moelab/scaling/erm.hpp"

#include <algorithm>
#include <cmath>
#include <bit>
#include <limits>
#include <numbers>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/scaling/covering_number.hpp"

namespace moelab::scaling {

double inverse_binomial_moment(std::int64_t n, double p) {
  MOELAB_EXPECT(n >= 0 && std::isfinite(p) && p >= 0.0 && p <= 1.0, "inverse_binomial_moment: n >= 0 and 0 <= p <= 1");
  if (n == 0 || p == 0.0) return 0.0;
  if (p == 1.0) return 1.0 / static_cast<double>(n);
  const double lp = std::log(p), lq = std::log1p(-p), nn = static_cast<double>(n);
  double s = 0.0;
  for (std::int64_t k = 1; k <= n; ++k) {
    const double kk = static_cast<double>(k);
    const double log_pmf = log_binomial(nn, kk) + kk * lp + static_cast<double>(n - k) * lq;
    s += std::exp(log_pmf) / kk;
  }
  return s;
}

RegressogramRisk regressogram_risk(std::span<const RegressogramCell> cells, std::int64_t n, double sigma2) {
  MOELAB_EXPECT(n >= 1 && std::isfinite(sigma2) && sigma2 >= 0.0, "regressogram_risk: n >= 1 and sigma2 >= 0");
  RegressogramRisk r;
  for (const auto& c : cells) {
    MOELAB_EXPECT(c.mass >= 0.0 && c.mass <= 1.0 && c.second_moment >= c.mean * c.mean * (1.0 - 1e-12) - 1e-300,
                  "regressogram_risk: a cell needs 0 <= mass <= 1 and second_moment >= mean^2");
    const double v = std::max(0.0, c.second_moment - c.mean * c.mean);
    r.approximation += c.mass * v;
    r.estimation += c.mass * (v + sigma2) * inverse_binomial_moment(n, c.mass);
    // An empty cell predicts 0: its excess p s = p v (the approximation, counted above) + p m^2.
    r.empty_cells += c.mass * c.mean * c.mean * std::pow(1.0 - c.mass, static_cast<double>(n));
  }
  r.total = r.approximation + r.estimation + r.empty_cells;
  return r;
}

std::vector<RegressogramCell> sine_cells(int E, double phase) {
  MOELAB_EXPECT(E >= 1, "sine_cells: E >= 1");
  const double w = 2.0 * std::numbers::pi, h = 1.0 / E;
  std::vector<RegressogramCell> cells(static_cast<std::size_t>(E));
  for (int j = 0; j < E; ++j) {
    const double a = j * h, b = (j + 1) * h;
    auto& c = cells[static_cast<std::size_t>(j)];
    c.mass = h;
    c.mean = (std::cos(w * a + phase) - std::cos(w * b + phase)) / (w * h);
    c.second_moment = 0.5 - (std::sin(2.0 * (w * b + phase)) - std::sin(2.0 * (w * a + phase))) / (4.0 * w * h);
  }
  return cells;
}

double regressogram_sine_excess(int E, std::int64_t n, double sigma, double phase, std::uint64_t seed_x,
                                std::uint64_t seed_noise, std::uint64_t trial) {
  MOELAB_EXPECT(E >= 1 && n >= 1 && sigma >= 0.0, "regressogram_sine_excess: E >= 1, n >= 1, sigma >= 0");
  const auto cells = sine_cells(E, phase);
  const RandomStream xs(seed_x, StreamTag::bounds, trial), zs(seed_noise, StreamTag::bounds, trial);
  const double w = 2.0 * std::numbers::pi;
  std::vector<double> sum(static_cast<std::size_t>(E), 0.0);
  std::vector<std::int64_t> count(static_cast<std::size_t>(E), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = xs.uniform(static_cast<std::uint64_t>(i));
    const auto j = static_cast<std::size_t>(std::min<std::int64_t>(E - 1, static_cast<std::int64_t>(x * E)));
    sum[j] += std::sin(w * x + phase) + sigma * zs.normal(static_cast<std::uint64_t>(i));
    ++count[j];
  }
  double excess = 0.0;
  for (std::size_t j = 0; j < cells.size(); ++j) {
    const auto& c = cells[j];
    if (count[j] == 0) {
      excess += c.mass * c.second_moment;
    } else {
      const double d = sum[j] / static_cast<double>(count[j]) - c.mean;
      excess += c.mass * (d * d + std::max(0.0, c.second_moment - c.mean * c.mean));
    }
  }
  return excess;
}

// ---- segmentation ----

namespace {
// RSS of y[i..j) from prefix sums of the centred y (centring keeps Q - S^2/len free of cancellation).
struct Prefix {
  std::vector<double> S, Q, inv;
  explicit Prefix(std::span<const double> y) : S(y.size() + 1, 0.0), Q(y.size() + 1, 0.0), inv(y.size() + 1, 0.0) {
    double mean = 0.0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(std::max<std::size_t>(1, y.size()));
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double v = y[i] - mean;
      S[i + 1] = S[i] + v;
      Q[i + 1] = Q[i] + v * v;
    }
    for (std::size_t l = 1; l <= y.size(); ++l) inv[l] = 1.0 / static_cast<double>(l);
  }
  double cost(std::size_t i, std::size_t j) const {
    const double s = S[j] - S[i];
    return std::max(0.0, (Q[j] - Q[i]) - s * s * inv[j - i]);
  }
};
}  // namespace

Segmentation best_segmentation(std::span<const double> y, int E) {
  const std::size_t n = y.size();
  MOELAB_EXPECT(E >= 1 && static_cast<std::size_t>(E) <= n, "best_segmentation: 1 <= E <= n");
  const Prefix P(y);
  const auto Es = static_cast<std::size_t>(E);
  // C[e][j]: the least RSS of y[0..j) in e segments; arg[e][j]: the start of the last of them.
  std::vector<std::vector<double>> C(Es + 1, std::vector<double>(n + 1, std::numeric_limits<double>::infinity()));
  std::vector<std::vector<std::size_t>> arg(Es + 1, std::vector<std::size_t>(n + 1, 0));
  for (std::size_t j = 1; j <= n; ++j) C[1][j] = P.cost(0, j);
  for (std::size_t e = 2; e <= Es; ++e) {
    // y[0..j) in e segments needs j >= e; the remaining E - e segments need n - j >= E - e.
    const std::size_t j_lo = e, j_hi = (e == Es) ? n : n - (Es - e);
    const std::size_t j_from = (e == Es) ? n : j_lo;
    for (std::size_t j = j_from; j <= j_hi; ++j) {
      double best = std::numeric_limits<double>::infinity();
      std::size_t best_i = e - 1;
      const double* prev = C[e - 1].data();
      for (std::size_t i = e - 1; i < j; ++i) {
        const double c = prev[i] + P.cost(i, j);
        if (c < best) best = c, best_i = i;
      }
      C[e][j] = best;
      arg[e][j] = best_i;
    }
  }
  Segmentation s;
  s.rss = C[Es][n];
  s.starts.assign(Es + 1, 0);
  std::size_t j = n;
  for (std::size_t e = Es; e >= 1; --e) {
    s.starts[e] = static_cast<std::int64_t>(j);
    j = (e == 1) ? 0 : arg[e][j];
  }
  s.starts[0] = 0;
  return s;
}

Segmentation best_segmentation_brute_force(std::span<const double> y, int E) {
  const std::size_t n = y.size();
  MOELAB_EXPECT(E >= 1 && static_cast<std::size_t>(E) <= n && n <= 24, "best_segmentation_brute_force: 1 <= E <= n <= 24");
  // RSS computed directly (two passes per segment), independent of the prefix sums of the DP.
  auto rss_of = [&](const std::vector<std::int64_t>& b) {
    double r = 0.0;
    for (std::size_t s = 0; s + 1 < b.size(); ++s) {
      double m = 0.0;
      for (auto i = b[s]; i < b[s + 1]; ++i) m += y[static_cast<std::size_t>(i)];
      m /= static_cast<double>(b[s + 1] - b[s]);
      for (auto i = b[s]; i < b[s + 1]; ++i) r += (y[static_cast<std::size_t>(i)] - m) * (y[static_cast<std::size_t>(i)] - m);
    }
    return r;
  };
  Segmentation best;
  best.rss = std::numeric_limits<double>::infinity();
  // Every subset of the n - 1 gaps with E - 1 members, as a bit mask.
  for (std::uint32_t mask = 0; mask < (1u << (n - 1)); ++mask) {
    if (std::popcount(mask) != E - 1) continue;
    std::vector<std::int64_t> b{0};
    for (std::size_t g = 0; g + 1 < n; ++g)
      if (mask & (1u << g)) b.push_back(static_cast<std::int64_t>(g + 1));
    b.push_back(static_cast<std::int64_t>(n));
    const double r = rss_of(b);
    if (r < best.rss) best.rss = r, best.starts = b;
  }
  return best;
}

double PiecewiseConstant::operator()(double x) const {
  const auto it = std::upper_bound(edges.begin() + 1, edges.end() - 1, x);
  return values[static_cast<std::size_t>(it - (edges.begin() + 1))];
}

double l2_distance_squared(const PiecewiseConstant& f, const PiecewiseConstant& g) {
  MOELAB_EXPECT(f.edges.size() == f.values.size() + 1 && g.edges.size() == g.values.size() + 1 && !f.values.empty() &&
                    !g.values.empty(),
                "l2_distance_squared: edges must number one more than values");
  // Merge the two edge lists; on each piece both functions are constant.
  std::size_t a = 0, b = 0;
  double lo = 0.0, sum = 0.0;
  while (a < f.values.size() && b < g.values.size()) {
    const double hi = std::min(f.edges[a + 1], g.edges[b + 1]);
    const double d = f.values[a] - g.values[b];
    sum += (hi - lo) * d * d;
    lo = hi;
    if (f.edges[a + 1] <= hi) ++a;
    if (g.edges[b + 1] <= hi) ++b;
  }
  return sum;
}

ErmDraw erm_draw(const PiecewiseConstant& target, std::int64_t n, int E, double sigma, std::uint64_t seed_x,
                 std::uint64_t seed_noise, std::uint64_t trial) {
  MOELAB_EXPECT(n >= E && E >= 1 && sigma >= 0.0, "erm_draw: n >= E >= 1, sigma >= 0");
  const RandomStream xs(seed_x, StreamTag::bounds, trial), zs(seed_noise, StreamTag::bounds, trial);
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> x(N), y(N), fx(N);
  for (std::size_t i = 0; i < N; ++i) x[i] = xs.uniform(i);
  std::sort(x.begin(), x.end());
  for (std::size_t i = 0; i < N; ++i) fx[i] = target(x[i]), y[i] = fx[i] + sigma * zs.normal(i);
  ErmDraw d;
  // Fixed routing on the target's own cells: cell means of y (0 on an empty cell).
  {
    const std::size_t K = target.values.size();
    std::vector<double> sum(K, 0.0);
    std::vector<std::int64_t> cnt(K, 0);
    for (std::size_t i = 0; i < N; ++i) {
      const auto it = std::upper_bound(target.edges.begin() + 1, target.edges.end() - 1, x[i]);
      const auto j = static_cast<std::size_t>(it - (target.edges.begin() + 1));
      sum[j] += y[i], ++cnt[j];
    }
    PiecewiseConstant fit{target.edges, std::vector<double>(K, 0.0)};
    for (std::size_t j = 0; j < K; ++j) fit.values[j] = cnt[j] ? sum[j] / static_cast<double>(cnt[j]) : 0.0;
    d.fixed_excess = l2_distance_squared(fit, target);
  }
  // Learned routing: least-squares segmentation of the sorted sample.
  const auto seg = best_segmentation(y, E);
  PiecewiseConstant fit;
  fit.edges.push_back(0.0);
  double in_sample = 0.0;
  for (int s = 0; s < E; ++s) {
    const auto b0 = static_cast<std::size_t>(seg.starts[static_cast<std::size_t>(s)]);
    const auto b1 = static_cast<std::size_t>(seg.starts[static_cast<std::size_t>(s) + 1]);
    double m = 0.0;
    for (std::size_t i = b0; i < b1; ++i) m += y[i];
    m /= static_cast<double>(b1 - b0);
    for (std::size_t i = b0; i < b1; ++i) in_sample += (m - fx[i]) * (m - fx[i]);
    fit.values.push_back(m);
    fit.edges.push_back(b1 == N ? 1.0 : 0.5 * (x[b1 - 1] + x[b1]));
  }
  d.learned_excess = l2_distance_squared(fit, target);
  d.learned_in_sample = in_sample / static_cast<double>(N);
  return d;
}

double fixed_routing_excess(const PiecewiseConstant& target, std::int64_t n, double sigma2) {
  std::vector<RegressogramCell> cells;
  for (std::size_t j = 0; j < target.values.size(); ++j) {
    const double v = target.values[j];
    cells.push_back({target.edges[j + 1] - target.edges[j], v, v * v});
  }
  return regressogram_risk(cells, n, sigma2).total;
}

double erm_oracle_bound(std::int64_t n, int E, double sigma2) {
  MOELAB_EXPECT(n >= E && E >= 1 && sigma2 >= 0.0, "erm_oracle_bound: n >= E >= 1, sigma2 >= 0");
  const double log_K = log_binomial(static_cast<double>(n - 1), static_cast<double>(E - 1));
  const double c = std::sqrt(2.0 * E - 1.0) + std::sqrt(2.0 * std::max(0.0, log_K));
  return 4.0 * sigma2 / static_cast<double>(n) * (c * c + std::sqrt(2.0 * std::numbers::pi) * c + 2.0);
}

}  // namespace moelab::scaling
