#include "moelab/claims/evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace moelab::claims {

TestResult equality_test(std::string form, const Welford& w, double reference) {
  TestResult r{std::move(form), w.mean(), w.standard_error(), reference, t_test_two_sided(w, reference),
               static_cast<std::int64_t>(w.count())};
  r.dof = static_cast<double>(w.count()) - 1.0;
  return r;
}

TestResult upper_bound_test(std::string form, const Welford& w, double bound) {
  TestResult r{std::move(form), w.mean(), w.standard_error(), bound, t_test_greater(w, bound),
               static_cast<std::int64_t>(w.count())};
  r.one_sided = true;
  r.dof = static_cast<double>(w.count()) - 1.0;
  return r;
}

TestResult lower_bound_test(std::string form, const Welford& w, double bound) {
  TestResult t = upper_bound_test(std::move(form), w.scaled(-1.0), -bound);
  t.estimate = -t.estimate;
  t.reference = bound;
  return t;
}

TestResult z_equality_test(std::string form, double estimate, double std_error, double reference,
                           std::int64_t samples) {
  const double z = std_error > 0 ? (estimate - reference) / std_error : (estimate == reference ? 0.0 : INFINITY);
  return {std::move(form), estimate, std_error, reference, z_test_two_sided(z), samples};
}

TestResult z_upper_bound_test(std::string form, double estimate, double std_error, double bound, std::int64_t samples) {
  const double z = std_error > 0 ? (estimate - bound) / std_error : (estimate <= bound ? -INFINITY : INFINITY);
  TestResult r{std::move(form), estimate, std_error, bound, z_test_greater(z), samples};
  r.one_sided = true;
  return r;
}

TestResult exhaustive_test(std::string form, std::int64_t cases, std::int64_t violations) {
  return {std::move(form), static_cast<double>(violations), 0.0, 0.0, violations == 0 ? 1.0 : 0.0, cases};
}

TestResult deterministic_test(std::string form, double estimate, double reference, bool holds) {
  return {std::move(form), estimate, 0.0, reference, holds ? 1.0 : 0.0, 0};
}

TestResult combine_bonferroni(std::string form, std::span<const TestResult> tests) {
  MOELAB_EXPECT(!tests.empty(), "combine_bonferroni of no tests");
  const auto best = std::min_element(tests.begin(), tests.end(),
                                     [](const TestResult& a, const TestResult& b) { return a.p_value < b.p_value; });
  TestResult r = *best;
  r.form = std::move(form);
  r.p_value = std::min(1.0, best->p_value * static_cast<double>(tests.size()));
  r.samples = 0;
  // Each sub-test is judged at level / count (nested combinations multiply their counts).
  std::int64_t inner = 1;
  for (const auto& t : tests) r.samples += t.samples, inner = std::max(inner, t.bonferroni);
  r.bonferroni = inner * static_cast<std::int64_t>(tests.size());
  return r;
}

}  // namespace moelab::claims

namespace moelab::claims {

TestResult intercept_test(std::string form, const SizeSeries& s, const std::vector<double (*)(double)>& corrections,
                          double limit) {
  std::vector<std::vector<double>> cols(1 + corrections.size());
  std::vector<double> y, w;
  std::int64_t samples = 0;
  for (std::size_t i = 0; i < s.n.size(); ++i) {
    cols[0].push_back(1.0);
    for (std::size_t j = 0; j < corrections.size(); ++j) cols[j + 1].push_back(corrections[j](s.n[i]));
    y.push_back(s.value[i].mean());
    const double se = s.value[i].standard_error();
    w.push_back(1.0 / (se * se));
    samples += static_cast<std::int64_t>(s.value[i].count());
  }
  const auto fit = weighted_least_squares(cols, y, w);
  return z_equality_test(std::move(form), fit.coef[0], fit.se[0], limit, samples);
}

}  // namespace moelab::claims

namespace moelab::claims {

namespace {
/// The per-side level of `t` at `level`: two-sided halves it, a Bonferroni combination of B sub-tests
/// is judged at level / B (its p-value is B x the smallest: it rejects only when one sub-test has
/// p < level / B).
double side_level(const TestResult& t, double level) {
  const double lv = level / static_cast<double>(std::max<std::int64_t>(1, t.bonferroni));
  return t.one_sided ? lv : lv / 2.0;
}
}  // namespace

double min_detectable(const TestResult& t, double level) {
  if (!(t.std_error > 0.0)) return 0.0;  // exact or deterministic: any deviation shows
  const double a = side_level(t, level);
  // A t test with few degrees of freedom needs far larger deviations than the normal quantiles say
  // (2 samples: t_(1 - 1e-4) = 3183 against z = 3.7); the noncentral-t power is approximated by
  // the central quantiles, exact as dof -> infinity and conservative for small dof.
  if (t.dof > 0.0) {
    if (t.dof < 1.0) return std::numeric_limits<double>::infinity();
    return (student_t_quantile(1.0 - a, t.dof) + student_t_quantile(kPower, t.dof)) * t.std_error;
  }
  return (normal_quantile(1.0 - a) + normal_quantile(kPower)) * t.std_error;
}

double confidence_radius(const TestResult& t, double level) {
  if (!(t.std_error > 0.0)) return 0.0;
  const double a = side_level(t, level);
  if (t.dof > 0.0) {
    if (t.dof < 1.0) return std::numeric_limits<double>::infinity();
    return student_t_quantile(1.0 - a, t.dof) * t.std_error;
  }
  return normal_quantile(1.0 - a) * t.std_error;
}

double combined_relevance(const TestResult& combined, std::span<const TestResult> parts,
                          std::span<const double> relevance) {
  MOELAB_EXPECT(parts.size() == relevance.size() && !parts.empty(), "combined_relevance: one relevance per part");
  double weakest = std::numeric_limits<double>::infinity();  // relevance / std_error of the weakest part
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!(parts[i].std_error > 0.0)) continue;
    weakest = std::min(weakest, std::fabs(relevance[i]) / parts[i].std_error);
  }
  if (!std::isfinite(weakest)) return std::fabs(relevance[0]);
  return weakest * combined.std_error;
}

double resolved_relevance(const Evidence& e) {
  if (!std::isnan(e.relevance)) return e.relevance;
  double r = std::numeric_limits<double>::quiet_NaN();
  for (const auto& c : e.controls) {
    // A control on the same estimate is an alternative closed form: its distance is what the
    // claim says must be detectable.
    if (c.estimate != e.printed.estimate || c.std_error != e.printed.std_error) continue;
    const double d = std::fabs(c.reference - e.printed.reference);
    if (d > 0.0 && !(d >= r)) r = d;
  }
  return r;
}

Evidence equality_evidence(std::string form, const Welford& w, double reference, double rel) {
  Evidence e;
  const double wrong = reference * (1.0 + rel);
  e.printed = equality_test(std::move(form), w, reference);
  e.control(equality_test(fmt::format("same vs the closed form off by {:+.3g}%", 100.0 * rel), w, wrong));
  e.relevance = std::fabs(wrong - reference);
  return e;
}

Evidence extrapolation_evidence(std::string form, const SizeSeries& s, const FiniteSizeModel& model, double limit,
                                double rel) {
  Evidence e;
  const double wrong = limit * (1.0 + rel);
  e.printed = intercept_test(fmt::format("{} (extrapolated, {})", form, model.text), s, model.corrections, limit);
  e.control(intercept_test(fmt::format("same vs the limit off by {:+.3g}%", 100.0 * rel), s, model.corrections, wrong));
  e.relevance = std::fabs(wrong - limit);
  return e;
}

}  // namespace moelab::claims
