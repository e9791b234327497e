#include "moelab/scaling/routed_approximation.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "moelab/core/error.hpp"

namespace moelab::scaling {

int LinearRouter1D::route(double x) const {
  MOELAB_EXPECT(!w.empty() && w.size() == b.size(), "LinearRouter1D: one slope and one offset per expert");
  std::size_t best = 0;
  for (std::size_t j = 1; j < w.size(); ++j)
    if (w[j] * x + b[j] > w[best] * x + b[best]) best = j;
  return static_cast<int>(best);
}

LinearRouter1D router_from_breakpoints(const std::vector<double>& t) {
  MOELAB_EXPECT(t.size() >= 2 && t.front() == 0.0 && t.back() == 1.0, "router_from_breakpoints: t_0 = 0 < ... < t_E = 1");
  LinearRouter1D r;
  const std::size_t E = t.size() - 1;
  r.w.resize(E), r.b.resize(E);
  r.w[0] = 0.0, r.b[0] = 0.0;
  for (std::size_t j = 0; j + 1 < E; ++j) {
    MOELAB_EXPECT(t[j + 1] > t[j], "router_from_breakpoints: breakpoints must increase");
    r.w[j + 1] = static_cast<double>(j + 1);
    r.b[j + 1] = r.b[j] - t[j + 1];  // w_(j+1) - w_j = 1: the lines cross at t_(j+1)
  }
  return r;
}

std::vector<double> router_cells(const LinearRouter1D& r) {
  const std::size_t E = r.w.size();
  MOELAB_EXPECT(E >= 1 && r.b.size() == E, "router_cells: one slope and one offset per expert");
  std::vector<double> t{0.0};
  for (std::size_t j = 0; j + 1 < E; ++j) {
    const double dw = r.w[j + 1] - r.w[j];
    MOELAB_EXPECT(dw > 0.0, "router_cells: slopes must increase (each expert wins one interval)");
    const double x = (r.b[j] - r.b[j + 1]) / dw;  // where line j+1 overtakes line j
    MOELAB_EXPECT(x > t.back() && x < 1.0, "router_cells: an expert wins no interval of [0, 1]");
    t.push_back(x);
  }
  t.push_back(1.0);
  return t;
}

double routed_lacunary_error(const std::vector<double>& t, double beta, int degree, int terms) {
  MOELAB_EXPECT(t.size() >= 2 && beta > 0.0 && (degree == 0 || degree == 1) && terms >= 1 && terms <= 200,
                "routed_lacunary_error: cells, beta > 0, degree 0 or 1, 1 <= terms <= 200");
  const double two_pi = 2.0 * std::acos(-1.0);
  const std::size_t E = t.size() - 1;
  std::vector<double> mean_int(E, 0.0), slope_int(E, 0.0);  // int f and int (x - m) f per cell
  double norm2 = 0.0;
  for (int j = 0; j < terms; ++j) {
    const double w = two_pi * std::ldexp(1.0, j), amp = std::pow(2.0, -j * beta), p = 0.7 * j;
    norm2 += amp * amp / 2.0;
    for (std::size_t c = 0; c < E; ++c) {
      const double a = t[c], b = t[c + 1], m = 0.5 * (a + b);
      mean_int[c] += amp * (std::sin(w * b + p) - std::sin(w * a + p)) / w;
      if (degree == 1) {
        const auto F = [&](double x) { return (x - m) * std::sin(w * x + p) / w + std::cos(w * x + p) / (w * w); };
        slope_int[c] += amp * (F(b) - F(a));
      }
    }
  }
  double proj = 0.0;
  for (std::size_t c = 0; c < E; ++c) {
    const double h = t[c + 1] - t[c];
    proj += mean_int[c] * mean_int[c] / h;
    if (degree == 1) proj += slope_int[c] * slope_int[c] / (h * h * h / 12.0);
  }
  return std::sqrt(std::max(0.0, norm2 - proj));
}

}  // namespace moelab::scaling
