#include "moelab/bounds/lemma_checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "moelab/bounds/rademacher.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"

namespace moelab::bounds {

Eigen::VectorXd uniform_domain(int n) { return Eigen::VectorXd::Constant(n, 1.0 / n); }

Eigen::MatrixXd threshold_class(int n) {
  Eigen::MatrixXd v(n + 1, n);
  for (int t = 0; t <= n; ++t)
    for (int x = 0; x < n; ++x) v(t, x) = x < t ? 1.0 : 0.0;
  return v;
}

Eigen::MatrixXd cosine_class(int K, int n) {
  Eigen::MatrixXd v(K, n);
  for (int f = 0; f < K; ++f)
    for (int x = 0; x < n; ++x) v(f, x) = std::cos(0.7 * (f + 1) * x);
  return v;
}

std::vector<Eigen::MatrixXd> simplex_vertex_gates(int T, int n) {
  std::vector<Eigen::MatrixXd> gates;
  for (int j = 0; j < T; ++j) {
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(T, n);
    g.row(j).setOnes();
    gates.push_back(std::move(g));
  }
  gates.push_back(Eigen::MatrixXd::Constant(T, n, 1.0 / T));
  return gates;
}

Eigen::MatrixXd partition_gate(int T, int n) {
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(T, n);
  for (int x = 0; x < n; ++x) g(x % T, x) = 1.0;
  return g;
}

namespace {


// Points of S (uniforms [0, m)) and S' ([m, 2m)) of one trial.
void draw_samples(const RandomStream& r, const std::vector<double>& cdf, int m, std::vector<int>& s, std::vector<int>& s2) {
  s.resize(m);
  s2.resize(m);
  for (int i = 0; i < m; ++i) s[i] = draw_point(cdf, r.uniform(i));
  for (int i = 0; i < m; ++i) s2[i] = draw_point(cdf, r.uniform(static_cast<std::uint64_t>(m) + i));
}

// Signed counts over the domain: +weight for each point of `plus`, -weight for each of `minus`.
Eigen::VectorXd count_difference(Eigen::Index n, const std::vector<int>& plus, const std::vector<int>& minus) {
  Eigen::VectorXd c = Eigen::VectorXd::Zero(n);
  for (int x : plus) c(x) += 1.0;
  for (int x : minus) c(x) -= 1.0;
  return c;
}

// Rademacher-signed counts of S with signs from uniforms [2m, 3m).
Eigen::VectorXd signed_counts(const RandomStream& r, Eigen::Index n, const std::vector<int>& s) {
  const int m = static_cast<int>(s.size());
  Eigen::VectorXd c = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < m; ++i) c(s[i]) += r.uniform(2 * static_cast<std::uint64_t>(m) + i) < 0.5 ? -1.0 : 1.0;
  return c;
}

// phi(S, S') = sup_f (L_S(f) - L_S'(f)) of a K x n class.
double ghost_gap(const Eigen::MatrixXd& values, const std::vector<int>& s, const std::vector<int>& s2) {
  return (values * count_difference(values.cols(), s, s2)).maxCoeff() / static_cast<double>(s.size());
}

}  // namespace

std::vector<double> point_cdf(const Eigen::VectorXd& p) {
  MOELAB_EXPECT(p.size() >= 1, "lemma checks: empty domain");
  MOELAB_EXPECT((p.array() >= 0.0).all() && std::abs(p.sum() - 1.0) < 1e-9,
                "lemma checks: point probabilities must be >= 0 and sum to 1");
  std::vector<double> c(p.size());
  double s = 0.0;
  for (Eigen::Index i = 0; i < p.size(); ++i) c[i] = (s += p(i));
  c.back() = 1.0;
  return c;
}

int draw_point(const std::vector<double>& cdf, double u) {
  return static_cast<int>(std::upper_bound(cdf.begin(), cdf.end() - 1, u) - cdf.begin());
}

InequalityCheck paired_inequality(const Welford& lhs, const Welford& rhs, const Welford& diff) {
  InequalityCheck c{};
  c.lhs = lhs.mean();
  c.lhs_se = lhs.standard_error();
  c.rhs = rhs.mean();
  c.rhs_se = rhs.standard_error();
  c.excess = diff.mean();
  c.excess_se = diff.standard_error();
  c.p_violation = t_test_greater(diff, 0.0);
  c.exact = false;
  c.trials = diff.count();
  return c;
}

namespace {

struct PairedTrial {
  double lhs, rhs;
};

InequalityCheck paired_check(const std::vector<PairedTrial>& trials) {
  Welford l, r, d;
  for (const auto& t : trials) {
    l.add(t.lhs);
    r.add(t.rhs);
    d.add(t.lhs - t.rhs);
  }
  return paired_inequality(l, r, d);
}

// Deterministic per-trial inequality: lhs = max over trials of lhs_t, compared with the constant rhs.
InequalityCheck exact_check(double max_lhs, double rhs, std::uint64_t trials) {
  InequalityCheck c{};
  c.lhs = max_lhs;
  c.rhs = rhs;
  c.excess = max_lhs - rhs;
  c.p_violation = max_lhs > rhs ? 0.0 : 1.0;
  c.exact = true;
  c.trials = trials;
  return c;
}

void check_common(const Eigen::VectorXd& p, const Eigen::MatrixXd& values, int m, std::uint64_t trials) {
  MOELAB_EXPECT(values.rows() >= 1 && values.cols() == p.size(), "lemma checks: class must be K x n with n = |domain|");
  MOELAB_EXPECT(m >= 1, "lemma checks: need m >= 1");
  MOELAB_EXPECT(trials >= 2, "lemma checks: need at least 2 trials");
}

void check_unit_range(const Eigen::MatrixXd& v, const char* msg) {
  MOELAB_EXPECT((v.array() >= 0.0).all() && (v.array() <= 1.0).all(), msg);
}

void check_gates(const std::vector<Eigen::MatrixXd>& gates, Eigen::Index n) {
  MOELAB_EXPECT(!gates.empty(), "lemma checks: no gates");
  for (const auto& g : gates) {
    MOELAB_EXPECT(g.cols() == n && g.rows() == gates.front().rows(), "lemma checks: gates must all be T x n");
    MOELAB_EXPECT((g.array() >= 0.0).all() && ((g.colwise().sum().array() - 1.0).abs() < 1e-9).all(),
                  "lemma checks: gate columns must lie on the simplex");
  }
}

// sup over gates of sum_j max_h sum_x w(x) g_j(x) h(x), w a weight per domain point.
double gated_supremum(const Eigen::MatrixXd& experts, const std::vector<Eigen::MatrixXd>& gates, const Eigen::VectorXd& w) {
  double best = -std::numeric_limits<double>::infinity();
  for (const auto& g : gates) {
    const Eigen::MatrixXd weighted = g.array().rowwise() * w.transpose().array();  // T x n
    best = std::max(best, (experts * weighted.transpose()).colwise().maxCoeff().sum());
  }
  return best;
}

// The Monte-Carlo scaffold every lemma check shares: trial t draws S and S' (m points each from the point
// CDF cdf) from its own stream (seed, bounds tag, t), and `body(r, s, s2)` maps them to one Trial; results
// in trial order, so the same for any thread count. body may modify s and s2 (they belong to the trial).
template <class Trial, class Body>
std::vector<Trial> sample_pair_trials(const std::vector<double>& cdf, int m, std::uint64_t trials, std::uint64_t seed,
                                      Body body) {
  return parallel_map<Trial>(trials, [&](std::size_t t) {
    const RandomStream r(seed, kBoundsStreamTag, t);
    std::vector<int> s, s2;
    draw_samples(r, cdf, m, s, s2);
    return body(r, s, s2);
  });
}

}  // namespace

Lemma5Check check_lemma5(const Eigen::VectorXd& p, const Eigen::VectorXd& labels, const Eigen::MatrixXd& experts,
                         const std::vector<Eigen::MatrixXd>& gates, double C, int m, std::uint64_t trials,
                         std::uint64_t seed) {
  check_common(p, experts, m, trials);
  check_unit_range(experts, "check_lemma5: expert values must lie in [0, 1]");
  check_gates(gates, p.size());
  MOELAB_EXPECT(labels.size() == p.size() && ((labels.array() == 0.0) || (labels.array() == 1.0)).all(),
                "check_lemma5: labels must be 0 or 1 at every domain point");
  MOELAB_EXPECT(C > 0.0 && C <= 1.0, "check_lemma5: need 0 < C <= 1 (loss in [0, 1])");
  const auto cdf = point_cdf(p);
  const int T = static_cast<int>(gates.front().rows());
  double w_max = 0.0;
  for (const auto& g : gates) w_max = std::max(w_max, g.maxCoeff());
  // l(f(x), y) = C (y + s f(x)), s = 1 - 2y, for f in [0, 1] and y in {0, 1}.
  const Eigen::VectorXd s = Eigen::VectorXd::Ones(p.size()) - 2.0 * labels;
  struct Trial {
    double phi, rad;
  };
  const auto results = sample_pair_trials<Trial>(cdf, m, trials, seed, [&](const RandomStream& r, auto& a, auto& b) {
    const Eigen::VectorXd diff = count_difference(p.size(), a, b);
    const double constant = C * labels.dot(diff) / m;
    const double phi = constant + C * gated_supremum(experts, gates, s.cwiseProduct(diff)) / m;
    const double rad = (experts * signed_counts(r, p.size(), a)).maxCoeff() / m;
    return Trial{phi, rad};
  });
  std::vector<PairedTrial> printed, derived;
  Welford phi, rad;
  for (const auto& x : results) {
    phi.add(x.phi);
    rad.add(x.rad);
    printed.push_back({x.phi, 2.0 * C * x.rad});
    derived.push_back({x.phi, 2.0 * C * T * w_max * x.rad});
  }
  return {phi.mean(), rad.mean(), w_max, T, paired_check(printed), paired_check(derived)};
}

Lemma7Check check_lemma7(const Eigen::VectorXd& p, const Eigen::MatrixXd& losses, int m, double eps,
                         std::uint64_t trials, std::uint64_t seed) {
  check_common(p, losses, m, trials);
  check_unit_range(losses, "check_lemma7: losses must lie in [0, 1]");
  MOELAB_EXPECT(eps > 0.0, "check_lemma7: need eps > 0");
  const auto cdf = point_cdf(p);
  const Eigen::VectorXd risk = losses * p;  // L_D(h), exact
  const double factor = 1.0 - 2.0 * std::exp(-0.5 * eps * eps * m);
  struct Trial {
    bool uniform, half, twice;
  };
  const auto results = sample_pair_trials<Trial>(cdf, m, trials, seed, [&](const RandomStream& r, auto& a, auto& b) {
    const Eigen::VectorXd la = losses * count_difference(p.size(), a, {}) / m;
    const Eigen::VectorXd lb = losses * count_difference(p.size(), b, {}) / m;
    const double dev = (la - risk).cwiseAbs().maxCoeff();
    const double ghost = (la - lb).cwiseAbs().maxCoeff();
    return Trial{dev > eps, ghost > eps / 2.0, ghost > 2.0 * eps};
  });
  std::vector<PairedTrial> statement, control;
  Welford pu, ph, pd;
  for (const auto& x : results) {
    pu.add(x.uniform);
    ph.add(x.half);
    pd.add(x.twice);
    statement.push_back({factor * x.uniform, static_cast<double>(x.half)});
    control.push_back({factor * x.uniform, static_cast<double>(x.twice)});
  }
  return {factor, pu.mean(), ph.mean(), pd.mean(), paired_check(statement), paired_check(control)};
}

Lemma8Check check_lemma8(const Eigen::VectorXd& p, const Eigen::MatrixXd& values, int m, std::uint64_t trials,
                         std::uint64_t seed) {
  check_common(p, values, m, trials);
  const auto cdf = point_cdf(p);
  struct Trial {
    double gap, rad;
  };
  const auto results = sample_pair_trials<Trial>(cdf, m, trials, seed, [&](const RandomStream& r, auto& a, auto& b) {
    return Trial{ghost_gap(values, a, b), (values * signed_counts(r, p.size(), a)).maxCoeff() / m};
  });
  std::vector<PairedTrial> statement, control;
  Welford gap, rad;
  for (const auto& x : results) {
    gap.add(x.gap);
    rad.add(x.rad);
    statement.push_back({x.gap, 2.0 * x.rad});
    control.push_back({x.gap, x.rad});
  }
  return {gap.mean(), rad.mean(), paired_check(statement), paired_check(control)};
}

Lemma9Check check_lemma9(const Eigen::VectorXd& p, const Eigen::MatrixXd& values, const std::function<double(double)>& phi,
                         double lipschitz, int m, std::uint64_t trials, std::uint64_t seed) {
  check_common(p, values, m, trials);
  MOELAB_EXPECT(m <= kMaxExactPoints, "check_lemma9: exact enumeration needs m <= 20");
  MOELAB_EXPECT(lipschitz > 0.0, "check_lemma9: need L > 0");
  const auto cdf = point_cdf(p);
  const Eigen::MatrixXd composed = values.unaryExpr(phi);
  struct Trial {
    double composed, plain;
  };
  const auto results = sample_pair_trials<Trial>(cdf, m, trials, seed, [&](const RandomStream& r, auto& a, auto& b) {
    Eigen::MatrixXd on_sample(values.rows(), m), composed_on_sample(values.rows(), m);
    for (int i = 0; i < m; ++i) {
      on_sample.col(i) = values.col(a[i]);
      composed_on_sample.col(i) = composed.col(a[i]);
    }
    return Trial{finite_class_rademacher(composed_on_sample), finite_class_rademacher(on_sample)};
  });
  std::vector<PairedTrial> statement, control;
  double worst = -std::numeric_limits<double>::infinity();
  for (const auto& x : results) {
    statement.push_back({x.composed, lipschitz * x.plain});
    control.push_back({x.composed, 0.5 * lipschitz * x.plain});
    worst = std::max(worst, x.composed - lipschitz * x.plain);
  }
  return {worst, paired_check(statement), paired_check(control)};
}

Lemma10Check check_lemma10(const Eigen::VectorXd& p, const Eigen::MatrixXd& experts,
                           const std::vector<Eigen::MatrixXd>& constant_gates,
                           const std::vector<Eigen::MatrixXd>& routed_gates, int m, std::uint64_t trials,
                           std::uint64_t seed) {
  check_common(p, experts, m, trials);
  check_gates(constant_gates, p.size());
  check_gates(routed_gates, p.size());
  for (const auto& g : constant_gates)
    MOELAB_EXPECT(((g.colwise() - g.col(0)).array().abs() < 1e-12).all(),
                  "check_lemma10: constant_gates must not depend on x");
  const auto cdf = point_cdf(p);
  struct Trial {
    double h, conv, gated;
  };
  const auto results = sample_pair_trials<Trial>(cdf, m, trials, seed, [&](const RandomStream& r, auto& a, auto& b) {
    const Eigen::VectorXd w = signed_counts(r, p.size(), a);
    return Trial{(experts * w).maxCoeff() / m, gated_supremum(experts, constant_gates, w) / m,
                 gated_supremum(experts, routed_gates, w) / m};
  });
  std::vector<PairedTrial> control;
  Welford h, conv, gated, gap;
  // Per draw sup_conv <= sup_H exactly; rounding of the weighted sums allows a few ulps of the scale.
  double worst = -std::numeric_limits<double>::infinity();
  for (const auto& x : results) {
    h.add(x.h);
    conv.add(x.conv);
    gated.add(x.gated);
    gap.add(x.h - x.conv);
    worst = std::max(worst, x.conv - x.h);
    control.push_back({x.gated, x.h});
  }
  const double rounding = 64.0 * std::numeric_limits<double>::epsilon() * experts.cwiseAbs().maxCoeff();
  InequalityCheck statement = exact_check(worst, rounding, trials);
  return {h.mean(), conv.mean(), gated.mean(), gap.mean(), statement, paired_check(control)};
}

Lemma11Check check_lemma11(const Eigen::VectorXd& p, const Eigen::MatrixXd& losses, int m, double t,
                           std::uint64_t trials, std::uint64_t seed) {
  check_common(p, losses, m, trials);
  check_unit_range(losses, "check_lemma11: losses must lie in [0, 1]");
  MOELAB_EXPECT(t > 0.0, "check_lemma11: need t > 0");
  const auto cdf = point_cdf(p);
  struct Trial {
    double phi, scaled_difference;
  };
  const auto results = sample_pair_trials<Trial>(cdf, m, trials, seed, [&](const RandomStream& r, auto& a, auto& b) {
    const double phi = ghost_gap(losses, a, b);
    // Replace coordinate j of the 2m (uniform [3m]) by a fresh point (uniform [3m + 1]).
    const std::uint64_t base = 3 * static_cast<std::uint64_t>(m);
    const int j = std::min(2 * m - 1, static_cast<int>(r.uniform(base) * 2 * m));
    const int fresh = draw_point(cdf, r.uniform(base + 1));
    (j < m ? a[j] : b[j - m]) = fresh;
    return Trial{phi, m * std::abs(ghost_gap(losses, a, b) - phi)};
  });
  Welford phi;
  double worst = 0.0;
  for (const auto& x : results) {
    phi.add(x.phi);
    worst = std::max(worst, x.scaled_difference);
  }
  // Bounded differences are exact up to the rounding of two sums of m losses (m eps relative).
  const double rounding = 8.0 * m * std::numeric_limits<double>::epsilon();
  std::vector<PairedTrial> derived, printed;
  Welford tail;
  const double bound_derived = std::exp(-m * t * t), bound_printed = std::exp(-2.0 * m * t * t);
  for (const auto& x : results) {
    const double hit = x.phi - phi.mean() >= t ? 1.0 : 0.0;
    tail.add(hit);
    derived.push_back({hit, bound_derived});
    printed.push_back({hit, bound_printed});
  }
  return {worst,
          tail.mean(),
          exact_check(worst, 1.0 + rounding, trials),
          exact_check(worst, 0.5, trials),
          paired_check(derived),
          paired_check(printed)};
}

}  // namespace moelab::bounds
