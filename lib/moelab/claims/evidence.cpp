#include "moelab/claims/evidence.hpp"

#include <algorithm>
#include <cmath>

namespace moelab::claims {

TestResult equality_test(std::string form, const Welford& w, double reference) {
  return {std::move(form), w.mean(), w.standard_error(), reference, t_test_two_sided(w, reference),
          static_cast<std::int64_t>(w.count())};
}

TestResult upper_bound_test(std::string form, const Welford& w, double bound) {
  return {std::move(form), w.mean(), w.standard_error(), bound, t_test_greater(w, bound),
          static_cast<std::int64_t>(w.count())};
}

TestResult z_equality_test(std::string form, double estimate, double std_error, double reference,
                           std::int64_t samples) {
  const double z = std_error > 0 ? (estimate - reference) / std_error : (estimate == reference ? 0.0 : INFINITY);
  return {std::move(form), estimate, std_error, reference, z_test_two_sided(z), samples};
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
  for (const auto& t : tests) r.samples += t.samples;
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
