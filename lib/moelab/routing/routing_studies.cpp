#include "moelab/routing/routing_studies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "moelab/core/interrupt.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/routing/counting.hpp"
#include "moelab/routing/expert_packing.hpp"
#include "moelab/routing/order_statistics.hpp"
#include "moelab/routing/region_masses.hpp"
#include "moelab/routing/separation.hpp"

namespace moelab::routing {

namespace {

/// (m, k) from params.m, params.k with 1 <= k < m and C(m, k) < 2^64; d from params.d.
struct Shape {
  int m, k, d;
};
Shape read_shape(const ParamView& v) {
  const int m = static_cast<int>(v.get_int_at_least("params.m", 2));
  const int k = static_cast<int>(v.get_int_at_least("params.k", 1));
  if (k >= m) v.fail("params.k", fmt::format("must be below m = {}, got {}", m, k));
  if (!binomial_fits(m, k)) v.fail("params.k", fmt::format("C({}, {}) does not fit in 64 bits", m, k));
  const int d = static_cast<int>(v.get_int_at_least("params.d", 1));
  return {m, k, d};
}

std::uint64_t read_points(const ParamView& v, std::uint64_t regions, std::int64_t per_region_default) {
  // Points per routing draw: params.points, or params.points_per_region times C(m, k).
  if (v.find("params.points") != nullptr) {
    if (v.find("params.points_per_region") != nullptr) v.fail("params.points", "give params.points or params.points_per_region, not both");
    return static_cast<std::uint64_t>(v.get_int_at_least("params.points", 2));
  }
  const auto per = v.get_int_at_least("params.points_per_region", 1, per_region_default);
  const double n = static_cast<double>(per) * static_cast<double>(regions);
  if (n > 4.0e9) v.fail("params.points_per_region", fmt::format("{} x C(m, k) = {:.3g} points exceeds 4e9 per draw", per, n));
  return static_cast<std::uint64_t>(n);
}

ScorePath read_path(const ParamView& v) {
  const auto p = v.get_choice("params.path", {"automatic", "full", "projected"}, "automatic");
  return p == "full" ? ScorePath::full : p == "projected" ? ScorePath::projected : ScorePath::automatic;
}

/// Routing draws t = 0 .. trials - 1 of shape s, n points each: on the CPU one draw per thread; with
/// `cuda` one draw after the other on the device (kernels/routing_masses.cu), the same points.
std::vector<RegionMassSummary> draws_of(const Shape& s, ScorePath path, InputLaw law, std::uint64_t n, std::int64_t trials,
                                        std::uint64_t seed, bool cuda, Progress& progress, std::vector<std::vector<double>>* masses) {
  if (masses) masses->assign(static_cast<std::size_t>(trials), {});
  const auto one_draw = [&](std::size_t t) {
    const Router router(gaussian_routing_vectors(s.m, s.d, seed, t), s.k, path);
    const auto h = cuda ? region_histogram_cuda(router, law, n, seed, t) : region_histogram(router, law, n, seed, t, false);
    if (masses) {
      auto& out = (*masses)[t];
      out.reserve(h.regions());
      const double C = static_cast<double>(h.regions());
      for (std::uint64_t r = 0; r < h.regions(); ++r) out.push_back(C * static_cast<double>(h.count(r)) / static_cast<double>(n));
    }
    progress.advance();
    return summarize_regions(h);
  };
  if (!cuda) return parallel_map<RegionMassSummary>(static_cast<std::size_t>(trials), one_draw);
  std::vector<RegionMassSummary> out;
  for (std::size_t t = 0; t < static_cast<std::size_t>(trials); ++t) {
    check_interrupted();
    out.push_back(one_draw(t));
  }
  return out;
}

/// The CUDA path's limit on k, checked while preparing (bad input never starts a run).
void check_cuda_shape(const ParamView& v, const Shape& s, const McBudget& b) {
  if (b.backend == BackendRequest::cuda && s.k > kMaxDeviceTopK)
    v.fail("params.k", fmt::format("k = {}: the CUDA routing path supports k <= {}", s.k, kMaxDeviceTopK));
}

// ---- routing.mass_histogram: C mu_hat(U_S) over all regions and draws, vs uniform masses ----
class MassHistogramPoint : public PreparedPoint {
 public:
  MassHistogramPoint(Shape s, InputLaw law, ScorePath path, std::uint64_t n, int bins, double hi, std::int64_t trials)
      : s_(s), law_(law), path_(path), n_(n), bins_(bins), hi_(hi), trials_(trials) {}
  std::size_t work() const override { return static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    std::vector<std::vector<double>> masses;
    const auto sums = draws_of(s_, path_, law_, n_, trials_, b.seed, b.backend == BackendRequest::cuda, progress, &masses);
    const double C = static_cast<double>(binomial(s_.m, s_.k));
    std::vector<double> h(static_cast<std::size_t>(bins_), 0.0);
    const double width = hi_ / bins_;
    double total = 0.0;
    for (const auto& draw : masses)
      for (double x : draw) {
        total += 1.0;
        if (x < hi_) h[static_cast<std::size_t>(std::min(bins_ - 1, static_cast<int>(x / width)))] += 1.0;
      }
    Welford second, balanced;
    for (const auto& x : sums) second.add(x.normalized_second_moment), balanced.add(x.balanced_fraction);
    // Reference (a heuristic shape, not a theorem): the lognormal law with mean 1 and the variance the
    // masses have to first order, c2/d (Mehler, docs/routing.md), plus the multinomial noise C/n of n
    // points per draw.
    const double c2 = second_moment_expansion(s_.m, s_.k).c2;
    const double var = c2 / s_.d + C / static_cast<double>(n_);
    const double s2 = std::log1p(var), mu = -0.5 * s2;
    std::vector<CsvRow> rows;
    for (int i = 0; i < bins_; ++i) {
      const double x = (i + 0.5) * width;
      const double lx = std::log(x) - mu;
      const double ref = std::exp(-0.5 * lx * lx / s2) / (x * std::sqrt(2.0 * M_PI * s2));
      rows.push_back({std::int64_t{s_.m}, std::int64_t{s_.k}, std::int64_t{s_.d}, std::string(input_law_name(law_)), x,
                      h[static_cast<std::size_t>(i)] / (total * width), ref, c2, second.mean(), balanced.mean(),
                      static_cast<std::int64_t>(n_), trials_});
    }
    return rows;
  }

 private:
  Shape s_;
  InputLaw law_;
  ScorePath path_;
  std::uint64_t n_;
  int bins_;
  double hi_;
  std::int64_t trials_;
};

class MassHistogramStudy : public Study {
 public:
  std::string name() const override { return "routing.mass_histogram"; }
  std::string summary() const override {
    return "histogram of C(m,k) mu(U_S) over all regions of Gaussian top-k routers (uniform masses: all at 1), granularity Lemma 3.2";
  }
  std::vector<std::string> columns() const override {
    return {"m", "k", "d", "law", "x", "empirical_density", "lognormal_reference_density", "c2", "second_moment_mean", "balanced_fraction_mean",
            "points", "trials"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    const Shape s = read_shape(v);
    const std::uint64_t C = binomial(s.m, s.k);
    if (C > (std::uint64_t{1} << 22)) v.fail("params.k", fmt::format("C({}, {}) = {} regions: too many for a histogram of masses", s.m, s.k, C));
    const std::uint64_t n = read_points(v, C, 400);
    const InputLaw law = input_law_from_name(v.get_choice("params.law", input_law_names(), "gaussian"));
    const int bins = static_cast<int>(v.get_int_at_least("params.bins", 5, 60));
    const double hi = v.get_positive("params.max_mass", 3.0);
    check_cuda_shape(v, s, b);
    return std::make_unique<MassHistogramPoint>(s, law, read_path(v), n, bins, hi, b.trials);
  }
  CudaPath cuda_path() const override { return CudaPath::experimental; }
};

// ---- routing.balance: moments of the region masses and the balanced fraction, per (m, k, d) ----
class BalancePoint : public PreparedPoint {
 public:
  BalancePoint(Shape s, InputLaw law, ScorePath path, std::uint64_t n, std::int64_t trials)
      : s_(s), law_(law), path_(path), n_(n), trials_(trials) {}
  std::size_t work() const override { return static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const auto sums = draws_of(s_, path_, law_, n_, trials_, b.seed, b.backend == BackendRequest::cuda, progress, nullptr);
    Welford first, second, balanced;
    for (const auto& x : sums) first.add(static_cast<double>(x.regions) * x.first_region_mass), second.add(x.normalized_second_moment),
        balanced.add(x.balanced_fraction);
    const SecondMomentExpansion ex = second_moment_expansion(s_.m, s_.k);
    const double klog2m = s_.k * std::pow(std::log(static_cast<double>(s_.m)), 2);
    return {{std::int64_t{s_.m}, std::int64_t{s_.k}, std::int64_t{s_.d}, std::string(input_law_name(law_)), s_.d / klog2m,
             static_cast<std::int64_t>(binomial(s_.m, s_.k)), first.mean(), first.standard_error(), second.mean(), second.standard_error(),
             1.0 + ex.c2 / s_.d, ex.c2, balanced.mean(), balanced.standard_error(), static_cast<std::int64_t>(n_), trials_}};
  }

 private:
  Shape s_;
  InputLaw law_;
  ScorePath path_;
  std::uint64_t n_;
  std::int64_t trials_;
};

class BalanceStudy : public Study {
 public:
  std::string name() const override { return "routing.balance"; }
  std::string summary() const override {
    return "region masses of Gaussian top-k routers: C E mu(U_S0), C^2 E mu^2 vs 1 + c2/d (Lemma A.5), fraction of regions with mass >= 1/(2C) (Lemma A.6)";
  }
  std::vector<std::string> columns() const override {
    return {"m", "k", "d", "law", "d_over_k_log2m", "regions", "first_mass_mean", "first_mass_std_error", "second_moment_mean",
            "second_moment_std_error", "second_moment_asymptotic", "c2", "balanced_fraction_mean", "balanced_fraction_std_error", "points",
            "trials"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    const Shape s = read_shape(v);
    const std::uint64_t n = read_points(v, binomial(s.m, s.k), 200);
    const InputLaw law = input_law_from_name(v.get_choice("params.law", input_law_names(), "gaussian"));
    check_cuda_shape(v, s, b);
    return std::make_unique<BalancePoint>(s, law, read_path(v), n, b.trials);
  }
  CudaPath cuda_path() const override { return CudaPath::experimental; }
};

// ---- routing.packing: random constant experts (Lemma 3.3 / A.8) per d ----
class PackingPoint : public PreparedPoint {
 public:
  PackingPoint(Shape s, std::int64_t trials) : s_(s), trials_(trials) {}
  std::size_t work() const override { return static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const auto res = parallel_map<PackingCheck>(static_cast<std::size_t>(trials_), [&](std::size_t t) {
      auto p = check_packing(random_constant_experts(s_.m, s_.d, s_.k, b.seed, t), s_.k);
      progress.advance();
      return p;
    });
    Welford both, bounded, separated, norm, sep;
    std::vector<double> seps;
    for (const auto& p : res) {
      both.add(p.bounded() && p.separated()), bounded.add(p.bounded()), separated.add(p.separated());
      norm.add(p.max_norm2), sep.add(p.min_separation), seps.push_back(p.min_separation);
    }
    std::sort(seps.begin(), seps.end());
    const auto q = [&](double a) { return seps[static_cast<std::size_t>(a * static_cast<double>(seps.size() - 1))]; };
    return {{std::int64_t{s_.m}, std::int64_t{s_.k}, std::int64_t{s_.d}, s_.d / (s_.k * std::log(static_cast<double>(s_.m))), both.mean(),
             bounded.mean(), separated.mean(), norm.mean(), sep.mean(), sep.standard_error(), q(0.1), q(0.9),
             packing_failure_union_bound(s_.m, s_.k, s_.d, true), packing_failure_union_bound(s_.m, s_.k, s_.d, false), trials_}};
  }

 private:
  Shape s_;
  std::int64_t trials_;
};

class PackingStudy : public Study {
 public:
  std::string name() const override { return "routing.packing"; }
  std::string summary() const override {
    return "random constant experts u_j ~ N(0, I/(2dk)): boundedness, separation and their union bounds (granularity Lemma 3.3 / A.8)";
  }
  std::vector<std::string> columns() const override {
    return {"m", "k", "d", "d_over_k_log_m", "p_both", "p_bounded", "p_separated", "max_norm2_mean", "min_separation_mean",
            "min_separation_std_error", "min_separation_q10", "min_separation_q90", "fail_bound_printed", "fail_bound_exact", "trials"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    const Shape s = read_shape(v);
    const std::uint64_t C = binomial(s.m, s.k);
    if (C > 20000) v.fail("params.k", fmt::format("C({}, {}) = {}: the exhaustive pair check allows at most 20000 configurations", s.m, s.k, C));
    return std::make_unique<PackingPoint>(s, b.trials);
  }
};

// ---- routing.separation: best piecewise-constant students of a constant-expert teacher ----
class SeparationPoint : public PreparedPoint {
 public:
  SeparationPoint(Shape s, std::vector<double> fractions, std::vector<std::pair<int, int>> gaussian, std::uint64_t n, InputLaw law,
                  std::int64_t trials)
      : s_(s), fractions_(std::move(fractions)), gaussian_(std::move(gaussian)), n_(n), law_(law), trials_(trials) {}
  std::size_t work() const override { return (fractions_.size() + gaussian_.size()) * static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const Eigen::MatrixXd R = gaussian_routing_vectors(s_.m, s_.d, b.seed, 0), U = random_constant_experts(s_.m, s_.d, s_.k, b.seed, 0);
    const PackingCheck pc = check_packing(U, s_.k, 2'000'000'000);
    const std::uint64_t C = binomial(s_.m, s_.k);
    struct Student {
      std::string family;
      int ms, ks;
      std::uint64_t p;
      Eigen::MatrixXd Rs;
    };
    std::vector<Student> students;
    for (double f : fractions_) {
      const auto p = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(f * static_cast<double>(C))));
      students.push_back({"ksum", static_cast<int>(p), 1, p, k_sum_routing_vectors(R, s_.k, random_configurations(C, p, b.seed, 100 + p))});
    }
    for (auto [ms, ks] : gaussian_)
      students.push_back({"gaussian", ms, ks, binomial(ms, ks), gaussian_routing_vectors(ms, s_.d, b.seed, 1000 + static_cast<std::uint64_t>(1000 * ms + ks))});
    const auto T = static_cast<std::size_t>(trials_);
    const auto runs = parallel_map<SeparationResult>(students.size() * T, [&](std::size_t i) {
      const Student& st = students[i / T];
      auto r = piecewise_constant_separation(R, s_.k, U, st.Rs, st.ks, pc.min_distance2, law_, n_, b.seed, 10 + i % T);
      progress.advance();
      return r;
    });
    std::vector<CsvRow> rows;
    for (std::size_t s = 0; s < students.size(); ++s) {
      Welford rel, floor, cov, norm;
      for (std::size_t t = 0; t < T; ++t) {
        const auto& r = runs[s * T + t];
        rel.add(r.relative_error), floor.add(r.floor / r.teacher_norm2), cov.add(r.coverage), norm.add(r.teacher_norm2);
      }
      const auto& st = students[s];
      rows.push_back({std::int64_t{s_.m}, std::int64_t{s_.k}, std::int64_t{s_.d}, st.family, std::int64_t{st.ms}, std::int64_t{st.ks},
                      static_cast<std::int64_t>(st.p), static_cast<double>(st.p) / static_cast<double>(C), rel.mean(), rel.standard_error(),
                      floor.mean(), cov.mean(), norm.mean(), pc.min_distance2, pc.max_norm2, pc.min_separation,
                      static_cast<std::int64_t>(n_), trials_});
    }
    return rows;
  }

 private:
  Shape s_;
  std::vector<double> fractions_;
  std::vector<std::pair<int, int>> gaussian_;
  std::uint64_t n_;
  InputLaw law_;
  std::int64_t trials_;
};

class SeparationStudy : public Study {
 public:
  std::string name() const override { return "routing.separation"; }
  std::string summary() const override {
    return "best L2 approximation of an (m, k) constant-expert MoE by (m', k') students with given regions vs the Theorem 3.1 floor";
  }
  std::vector<std::string> columns() const override {
    return {"m", "k", "d", "family", "m_student", "k_student", "student_regions", "ratio", "relative_error_mean", "relative_error_std_error",
            "floor_relative", "coverage", "teacher_norm2", "delta", "max_norm2", "min_separation", "points", "trials"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    const Shape s = read_shape(v);
    const std::uint64_t C = binomial(s.m, s.k);
    if (C > 5000) v.fail("params.k", fmt::format("C({}, {}) = {}: the miniature allows at most 5000 teacher regions", s.m, s.k, C));
    std::vector<double> fractions;
    if (v.find("params.ksum_fractions") != nullptr) {
      fractions = v.get_double_array("params.ksum_fractions");
      for (std::size_t i = 0; i < fractions.size(); ++i)
        if (!(fractions[i] > 0.0 && fractions[i] <= 1.0)) v.fail_entry("params.ksum_fractions", i, fmt::format("must be in (0, 1], got {}", fractions[i]));
    }
    std::vector<std::pair<int, int>> gaussian;
    if (v.find("params.gaussian_students") != nullptr) {
      const auto mat = v.get_double_matrix("params.gaussian_students");
      for (std::size_t i = 0; i < mat.size(); ++i) {
        if (mat[i].size() != 2 || mat[i][0] < 1 || mat[i][1] < 1 || mat[i][1] > mat[i][0] || mat[i][0] != std::floor(mat[i][0]) ||
            mat[i][1] != std::floor(mat[i][1]))
          v.fail_entry("params.gaussian_students", i, "each entry is [m', k'] with integers 1 <= k' <= m'");
        const int ms = static_cast<int>(mat[i][0]), ks = static_cast<int>(mat[i][1]);
        if (static_cast<double>(binomial(ms, ks)) * static_cast<double>(C) > 1.8e19)
          v.fail_entry("params.gaussian_students", i, "C(m', k') C(m, k) must fit in 64 bits");
        gaussian.emplace_back(ms, ks);
      }
    }
    if (fractions.empty() && gaussian.empty()) v.fail("params.ksum_fractions", "give params.ksum_fractions and/or params.gaussian_students");
    const auto n = static_cast<std::uint64_t>(v.get_int_at_least("params.points", 1000, 50000));
    const InputLaw law = input_law_from_name(v.get_choice("params.law", input_law_names(), "gaussian"));
    return std::make_unique<SeparationPoint>(s, std::move(fractions), std::move(gaussian), n, law, b.trials);
  }
};

// ---- routing.configurations: Table 1 ----
class ConfigurationsPoint : public PreparedPoint {
 public:
  ConfigurationsPoint(int m_ref, int k_ref) : m_ref_(m_ref), k_ref_(k_ref) {}
  std::size_t work() const override { return 1; }
  std::vector<CsvRow> run(const McBudget&, Progress& progress) override {
    std::vector<CsvRow> rows;
    for (const auto& r : table1_models())
      rows.push_back({r.name, std::int64_t{r.experts}, std::int64_t{r.active}, 100.0 * r.active / r.experts, r.printed_sparsity,
                      static_cast<std::int64_t>(binomial(r.experts, r.active)), log10_configurations(r.experts, r.active),
                      theorem31_required_c(m_ref_, k_ref_, r.experts, r.active)});
    progress.advance();
    return rows;
  }

 private:
  int m_ref_, k_ref_;
};

class ConfigurationsStudy : public Study {
 public:
  std::string name() const override { return "routing.configurations"; }
  std::string summary() const override {
    return "Table 1 of the granularity paper: granularity, sparsity and C(m, k) of frontier MoEs, and the c each needs in Theorem 3.1 "
           "against a reference (m, k)";
  }
  std::vector<std::string> columns() const override {
    return {"model", "experts", "active", "sparsity_percent", "printed_sparsity_percent", "configurations", "log10_configurations",
            "required_c_vs_reference"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget&) const override {
    const int m = static_cast<int>(v.get_int_at_least("params.reference_m", 2, 256));
    const int k = static_cast<int>(v.get_int_at_least("params.reference_k", 1, 8));
    if (k >= m) v.fail("params.reference_k", fmt::format("must be below reference_m = {}", m));
    return std::make_unique<ConfigurationsPoint>(m, k);
  }
};

}  // namespace

void add_routing_studies(std::vector<std::unique_ptr<Study>>& out) {
  out.push_back(std::make_unique<MassHistogramStudy>());
  out.push_back(std::make_unique<BalanceStudy>());
  out.push_back(std::make_unique<PackingStudy>());
  out.push_back(std::make_unique<SeparationStudy>());
  out.push_back(std::make_unique<ConfigurationsStudy>());
}

}  // namespace moelab::routing
