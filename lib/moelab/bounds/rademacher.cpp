#include "moelab/bounds/rademacher.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "moelab/core/compensated_sum.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"

namespace moelab::bounds {

namespace {

// Draws are split into chunks of this size, each a Welford, merged in chunk order.
constexpr std::uint64_t kChunk = 1024;
// Gray-code sums are recomputed from scratch every 2^kBlockBits steps (at most 1024 rounding steps).
constexpr int kBlockBits = 10;

void sign_vector(const RandomStream& signs, std::uint64_t draw, int m, std::vector<double>& sigma) {
  for (int i = 0; i < m; ++i) sigma[i] = signs.uniform(draw * static_cast<std::uint64_t>(m) + i) < 0.5 ? -1.0 : 1.0;
}

McEstimate estimate_from(const Welford& w, double level) {
  const Interval ci = t_interval(w, level);
  return {w.mean(), w.standard_error(), ci.lower, ci.upper, w.count()};
}

// sigma for Gray-code step: bit i set -> sigma_i = -1. The sign vector of index `code` in binary.
void sigma_of(std::uint64_t code, int m, std::vector<double>& sigma) {
  for (int i = 0; i < m; ++i) sigma[i] = ((code >> i) & 1u) ? -1.0 : 1.0;
}

// Gray-code enumeration of all 2^m sign vectors: `reset(sigma)` recomputes the state for sigma,
// `flip(i, new_sign)` updates it for sigma_i -> new_sign, `value()` the supremum at the current sigma.
template <class Reset, class Flip, class Value>
double enumerate_signs(int m, Reset&& reset, Flip&& flip, Value&& value) {
  const int low_bits = std::min(m, kBlockBits);
  const std::uint64_t blocks = std::uint64_t{1} << (m - low_bits);
  const std::uint64_t steps = std::uint64_t{1} << low_bits;
  std::vector<double> sigma(m);
  CompensatedSum total;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    sigma_of(b << low_bits, m, sigma);
    reset(sigma);
    total.add(value());
    for (std::uint64_t s = 1; s < steps; ++s) {
      const int i = std::countr_zero(s);  // Gray code: step s flips bit ctz(s)
      sigma[i] = -sigma[i];
      flip(i, sigma[i]);
      total.add(value());
    }
  }
  return total.value() / std::ldexp(1.0, m) / m;
}

}  // namespace

double rademacher_exact(int m, const SignedSupremum& sup) {
  MOELAB_EXPECT(m >= 1 && m <= kMaxExactPoints, "rademacher_exact: need 1 <= m <= 20");
  std::vector<double> current;
  return enumerate_signs(
      m, [&](const std::vector<double>& s) { current = s; }, [&](int i, double v) { current[i] = v; },
      [&] { return sup(current); });
}

McEstimate rademacher_mc(int m, const SignedSupremum& sup, std::uint64_t draws, const RandomStream& signs,
                         double level) {
  MOELAB_EXPECT(m >= 1, "rademacher_mc: need m >= 1");
  MOELAB_EXPECT(draws >= 2, "rademacher_mc: need at least 2 draws");
  const std::uint64_t chunks = (draws + kChunk - 1) / kChunk;
  const auto parts = parallel_map<Welford>(chunks, [&](std::size_t c) {
    Welford w;
    std::vector<double> sigma(m);
    const std::uint64_t end = std::min<std::uint64_t>(draws, (c + 1) * kChunk);
    for (std::uint64_t t = c * kChunk; t < end; ++t) {
      sign_vector(signs, t, m, sigma);
      w.add(sup(sigma) / m);
    }
    return w;
  });
  Welford total;
  for (const auto& w : parts) total.merge(w);
  return estimate_from(total, level);
}

SignedSupremum finite_class_supremum(const Eigen::MatrixXd& values) {
  MOELAB_EXPECT(values.rows() >= 1 && values.cols() >= 1, "finite_class_supremum: empty class");
  return [values](std::span<const double> sigma) {
    const Eigen::Map<const Eigen::VectorXd> s(sigma.data(), static_cast<Eigen::Index>(sigma.size()));
    return (values * s).maxCoeff();
  };
}

double finite_class_rademacher(const Eigen::MatrixXd& values) {
  const int m = static_cast<int>(values.cols());
  MOELAB_EXPECT(values.rows() >= 1, "finite_class_rademacher: empty class");
  MOELAB_EXPECT(m >= 1 && m <= kMaxExactPoints, "finite_class_rademacher: need 1 <= m <= 20");
  Eigen::VectorXd sums(values.rows());
  return enumerate_signs(
      m,
      [&](const std::vector<double>& s) {
        sums = values * Eigen::Map<const Eigen::VectorXd>(s.data(), m);
      },
      [&](int i, double v) { sums += (2.0 * v) * values.col(i); }, [&] { return sums.maxCoeff(); });
}

McEstimate finite_class_rademacher_mc(const Eigen::MatrixXd& values, std::uint64_t draws, const RandomStream& signs,
                                      double level) {
  return rademacher_mc(static_cast<int>(values.cols()), finite_class_supremum(values), draws, signs, level);
}

double massart_bound(const Eigen::MatrixXd& values) {
  MOELAB_EXPECT(values.rows() >= 1 && values.cols() >= 1, "massart_bound: empty class");
  const double max_norm = values.rowwise().norm().maxCoeff();
  return max_norm * std::sqrt(2.0 * std::log(static_cast<double>(values.rows()))) / static_cast<double>(values.cols());
}

SignedSupremum linear_class_supremum(const Eigen::MatrixXd& points, double B) {
  MOELAB_EXPECT(points.rows() >= 1 && points.cols() >= 1 && B >= 0.0, "linear_class_supremum: need points and B >= 0");
  return [points, B](std::span<const double> sigma) {
    const Eigen::Map<const Eigen::VectorXd> s(sigma.data(), static_cast<Eigen::Index>(sigma.size()));
    return B * (points * s).norm();
  };
}

double linear_class_rademacher(const Eigen::MatrixXd& points, double B) {
  const int m = static_cast<int>(points.cols());
  MOELAB_EXPECT(points.rows() >= 1 && B >= 0.0, "linear_class_rademacher: need d >= 1 and B >= 0");
  MOELAB_EXPECT(m >= 1 && m <= kMaxExactPoints, "linear_class_rademacher: need 1 <= m <= 20");
  Eigen::VectorXd v(points.rows());
  return enumerate_signs(
      m, [&](const std::vector<double>& s) { v = points * Eigen::Map<const Eigen::VectorXd>(s.data(), m); },
      [&](int i, double sign) { v += (2.0 * sign) * points.col(i); }, [&] { return B * v.norm(); });
}

McEstimate linear_class_rademacher_mc(const Eigen::MatrixXd& points, double B, std::uint64_t draws,
                                      const RandomStream& signs, double level) {
  return rademacher_mc(static_cast<int>(points.cols()), linear_class_supremum(points, B), draws, signs, level);
}

double linear_class_rademacher_bound(const Eigen::MatrixXd& points, double B) {
  MOELAB_EXPECT(points.cols() >= 1 && B >= 0.0, "linear_class_rademacher_bound: need points and B >= 0");
  return B * points.norm() / static_cast<double>(points.cols());
}

SignedSupremum gated_class_supremum(const Eigen::MatrixXd& experts, const std::vector<Eigen::MatrixXd>& gates) {
  MOELAB_EXPECT(experts.rows() >= 1 && experts.cols() >= 1, "gated_class_supremum: empty expert class");
  MOELAB_EXPECT(!gates.empty(), "gated_class_supremum: no gates");
  for (const auto& g : gates)
    MOELAB_EXPECT(g.cols() == experts.cols() && g.rows() == gates.front().rows(),
                  "gated_class_supremum: every gate must be T x m with the experts' m");
  return [experts, gates](std::span<const double> sigma) {
    const Eigen::Map<const Eigen::RowVectorXd> s(sigma.data(), static_cast<Eigen::Index>(sigma.size()));
    double best = -std::numeric_limits<double>::infinity();
    for (const auto& g : gates) {
      // Row j of (g .* sigma) is the signed weight of expert j at each point; its best expert is the
      // largest entry of experts * that row.
      const Eigen::MatrixXd weighted = g.array().rowwise() * s.array();
      const Eigen::MatrixXd scores = experts * weighted.transpose();  // K x T
      best = std::max(best, scores.colwise().maxCoeff().sum());
    }
    return best;
  };
}

}  // namespace moelab::bounds
