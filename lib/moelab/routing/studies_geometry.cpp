// Scenario studies of the granularity paper's geometry (routing/): random constant experts (Lemma
// 3.3 / A.8), the separation miniature of Theorem 3.1, and Table 1's configuration counts. The
// region-mass studies are in studies.cpp, which lists all of them for the catalogue.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/routing/counting.hpp"
#include "moelab/routing/detail/study_params.hpp"
#include "moelab/routing/expert_packing.hpp"
#include "moelab/routing/separation.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::routing::detail {

// ---- cost models (hardening; docs/hardening.md, "Cost model") ----

/// check_packing (expert_packing.cpp) of m constant experts in R^d with C = C(m, k) configurations:
/// U (m x d) and its transpose, G = U U' (m^2), the members (C k ints), q (C) and g = G 1_S (m x C).
double packing_bytes(double m, double d, double k, double C) {
  return 8.0 * (2.0 * m * d + m * m + C + m * C) + 4.0 * C * k;
}
/// Its work: U U' (m^2 d), the C columns g (k m each) and the C (C - 1)/2 pairs (~4 k each).
double packing_work(double m, double d, double k, double C) {
  return 2.0 * m * m * d + C * k * m + 2.0 * C * C * k;
}

// ---- routing.packing ----

StudyDef packing_study() {
  StudyDef def;
  def.name = "routing.packing";
  def.summary =
      "random constant experts u_j ~ N(0, I/(2dk)): boundedness, separation and their union bounds (granularity Lemma 3.3 / A.8)";
  def.trial_unit = "expert draws (random constant-expert matrices U, checked over every pair)";
  def.figure = "granularity paper, Lemma 3.3 = Lemma A.8 against d";
  def.params = shape_params();
  def.columns = {{"m", "experts"},
                 {"k", "active experts"},
                 {"d", "dimension"},
                 {"d_over_k_log_m", "d / (k log m), the lemma's scale"},
                 {"p_both", "fraction of draws where boundedness and separation both hold"},
                 {"p_bounded", "fraction with max_S ||u_S||^2 <= 1"},
                 {"p_separated", "fraction with every pair separated"},
                 {"max_norm2_mean", "mean of max_S ||u_S||^2"},
                 {"min_separation_mean", "mean of min over pairs of ||u_S - u_S'||^2 4k / |S delta S'|"},
                 {"min_separation_std_error", "its standard error"},
                 {"min_separation_q10", "10% quantile of the minimum separation"},
                 {"min_separation_q90", "90% quantile of the minimum separation"},
                 {"fail_bound_printed", "union bound on P[fail], Laurent-Massart tails and C^2 pairs as printed"},
                 {"fail_bound_exact", "union bound with exact chi-square tails and C(C-1)/2 pairs"},
                 {"trials", "expert draws"}};
  StudyDef out = define_trial_study<Shape, PackingCheck>(
      std::move(def),
      [](const PointParams& p) {
        const Shape s = read_shape(p);
        const std::uint64_t C = binomial(s.m, s.k);
        if (C > 20000)
          p.fail("params.k", fmt::format("C({}, {}) = {}: the exhaustive pair check allows at most 20000 configurations", s.m, s.k, C));
        return s;
      },
      [](const Shape& s, const RunContext& ctx, std::int64_t t) {
        return packing_trial(s.m, s.d, s.k, ctx.key.seed(), static_cast<std::uint64_t>(t));
      },
      [](const Shape& s, std::span<const PackingCheck> res, const RunContext& ctx, RowSink& rows) {
        Welford both, bounded, separated, norm, sep;
        std::vector<double> seps;
        for (const auto& p : res) {
          both.add(p.bounded() && p.separated()), bounded.add(p.bounded()), separated.add(p.separated());
          norm.add(p.max_norm2), sep.add(p.min_separation), seps.push_back(p.min_separation);
        }
        std::sort(seps.begin(), seps.end());
        const auto q = [&](double a) { return seps[static_cast<std::size_t>(a * static_cast<double>(seps.size() - 1))]; };
        rows.row()
            .set("m", s.m)
            .set("k", s.k)
            .set("d", s.d)
            .set("d_over_k_log_m", s.d / (s.k * std::log(static_cast<double>(s.m))))
            .set("p_both", both.mean())
            .set("p_bounded", bounded.mean())
            .set("p_separated", separated.mean())
            .set("max_norm2_mean", norm.mean())
            .set("min_separation_mean", sep.mean())
            .set("min_separation_std_error", sep.standard_error())
            .set("min_separation_q10", q(0.1))
            .set("min_separation_q90", q(0.9))
            .set("fail_bound_printed", packing_failure_union_bound(s.m, s.k, s.d, true))
            .set("fail_bound_exact", packing_failure_union_bound(s.m, s.k, s.d, false))
            .set("trials", ctx.trials);
      });
  // One packing check per running trial; reduce sorts one double per trial.
  set_cost<Shape>(out, [](const Shape& s, std::int64_t trials) {
    const double C = static_cast<double>(binomial(s.m, s.k)), t = static_cast<double>(trials);
    const double running = std::min(static_cast<double>(num_threads()), t);
    return StudyCost{running * packing_bytes(s.m, s.d, s.k, C) + 8.0 * t, t * packing_work(s.m, s.d, s.k, C)};
  });
  return out;
}

// ---- routing.separation ----

struct SeparationPoint {
  Shape s;
  std::vector<double> fractions;
  std::vector<std::pair<int, int>> gaussian;
  std::uint64_t points = 0;
  InputLaw law = InputLaw::gaussian;
};

StudyDef separation_study() {
  StudyDef def;
  def.name = "routing.separation";
  def.summary =
      "best L2 approximation of an (m, k) constant-expert MoE by (m', k') students with given regions vs the Theorem 3.1 floor";
  def.trial_unit = "point batches per student (n points each, the same batches for every student)";
  def.figure = "granularity paper, Theorem 3.1 (proof, Eqs. 3.5-3.6), in miniature";
  def.params = shape_params();
  def.params.push_back(real_list("params.ksum_fractions",
                                 "k-sum students: fractions p/C(m, k) of the teacher's configuration sums used as routing vectors "
                                 "of a (p, 1)-MoE (1 reproduces the teacher)")
                           .positive()
                           .at_most(1.0)
                           .optional());
  def.params.push_back(real_matrix("params.gaussian_students", "Gaussian students: rows [m', k'], integers 1 <= k' <= m'").optional());
  def.params.push_back(integer("params.points", "points per batch").at_least(1000).or_default(50000).unit("points"));
  def.params.push_back(law_param());
  def.columns = {{"m", "teacher experts"},
                 {"k", "teacher active experts"},
                 {"d", "dimension"},
                 {"family", "student family: ksum or gaussian"},
                 {"m_student", "student experts m' (p for a k-sum student)"},
                 {"k_student", "student active experts k'"},
                 {"student_regions", "p = C(m', k')"},
                 {"ratio", "p / C(m, k)"},
                 {"relative_error_mean", "E||f - f'||^2 / E||f||^2 of the best student on its regions"},
                 {"relative_error_std_error", "its standard error over the batches"},
                 {"floor_relative", "(delta/4)(1 - sum_i max_S mu(U_S cap V_i)) / E||f||^2 (Theorem 3.1's floor)"},
                 {"coverage", "sum_i max_S mu(U_S cap V_i)"},
                 {"teacher_norm2", "E||f||^2"},
                 {"delta", "min over S != S' of ||u_S - u_S'||^2"},
                 {"max_norm2", "max_S ||u_S||^2 (Lemma 3.3: <= 1)"},
                 {"min_separation", "min ||u_S - u_S'||^2 4k / |S delta S'| (Lemma 3.3: >= 1)"},
                 {"points", "points per batch"},
                 {"trials", "batches"}};
  StudyDef out = define_study<SeparationPoint>(
      std::move(def),
      [](const PointParams& p) {
        SeparationPoint pt;
        pt.s = read_shape(p);
        const std::uint64_t C = binomial(pt.s.m, pt.s.k);
        if (C > 5000)
          p.fail("params.k", fmt::format("C({}, {}) = {}: the miniature allows at most 5000 teacher regions", pt.s.m, pt.s.k, C));
        pt.fractions = p.real_list("params.ksum_fractions");
        const auto mat = p.real_matrix("params.gaussian_students");
        for (std::size_t i = 0; i < mat.size(); ++i) {
          if (mat[i].size() != 2 || mat[i][0] < 1 || mat[i][1] < 1 || mat[i][1] > mat[i][0] || mat[i][0] > 1e6 ||
              mat[i][0] != std::floor(mat[i][0]) || mat[i][1] != std::floor(mat[i][1]))
            p.view().fail_entry("params.gaussian_students", i, "each entry is [m', k'] with integers 1 <= k' <= m' <= 1e6");
          const int ms = static_cast<int>(mat[i][0]), ks = static_cast<int>(mat[i][1]);
          if (!binomial_fits(ms, ks) || static_cast<double>(binomial(ms, ks)) * static_cast<double>(C) > 1.8e19)
            p.view().fail_entry("params.gaussian_students", i, "C(m', k') C(m, k) must fit in 64 bits");
          pt.gaussian.emplace_back(ms, ks);
        }
        if (pt.fractions.empty() && pt.gaussian.empty())
          p.fail("params.ksum_fractions", "give params.ksum_fractions and/or params.gaussian_students");
        pt.points = static_cast<std::uint64_t>(p.integer("params.points"));
        pt.law = input_law_from_name(p.text("params.law"));
        return pt;
      },
      [](const SeparationPoint& pt, const RunContext& ctx, RowSink& rows) {
        const auto& s = pt.s;
        const ConstantExpertTeacher teacher = constant_expert_teacher(s.m, s.k, s.d, ctx.key, 2'000'000'000);
        const double C = static_cast<double>(teacher.regions);
        std::vector<Student> students;
        for (double f : pt.fractions)
          students.push_back(ksum_student(teacher, std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(f * C))), ctx.key));
        for (auto [ms, ks] : pt.gaussian) students.push_back(gaussian_student(ms, ks, s.d, ctx.key));
        const auto errs = separation_experiment(teacher, students, pt.law, pt.points, ctx.trials, ctx.key, [&] { ctx.advance(); });
        for (std::size_t i = 0; i < students.size(); ++i) {
          const auto& st = students[i];
          const auto& r = errs[i];
          rows.row()
              .set("m", s.m)
              .set("k", s.k)
              .set("d", s.d)
              .set("family", st.family)
              .set("m_student", st.m_student)
              .set("k_student", st.k_student)
              .set("student_regions", static_cast<std::int64_t>(st.regions))
              .set("ratio", static_cast<double>(st.regions) / C)
              .set("relative_error_mean", r.relative_error.mean())
              .set("relative_error_std_error", r.relative_error.standard_error())
              .set("floor_relative", r.floor_relative.mean())
              .set("coverage", r.coverage.mean())
              .set("teacher_norm2", r.teacher_norm2.mean())
              .set("delta", teacher.packing.min_distance2)
              .set("max_norm2", teacher.packing.max_norm2)
              .set("min_separation", teacher.packing.min_separation)
              .set("points", static_cast<std::int64_t>(pt.points))
              .set("trials", ctx.trials);
        }
      },
      [](const SeparationPoint& pt, std::int64_t trials) {
        return (pt.fractions.size() + pt.gaussian.size()) * static_cast<std::size_t>(trials);
      });
  // separation.cpp: the teacher (R and U, m x d, and its packing check) and every student's routing
  // vectors (p x d for a k-sum student with its permutation of the C configurations, m' x d for a
  // Gaussian one) are held for the whole point; (student, batch) runs go in parallel, each with a
  // batch of 1024 points (X d x 1024, scores (m + m') x 1024), G = U U', and the joint histogram of
  // (student region, teacher region) as an open-addressing table over the occupied cells
  // (<= min(C P, n); 16-byte slots at load <= 1/2, old and new table while it grows) plus its sorted
  // entries. A run costs n points of d normals and scores 2 d (m + m').
  set_cost<SeparationPoint>(out, [](const SeparationPoint& pt, std::int64_t trials) {
    const double m = pt.s.m, d = pt.s.d, k = pt.s.k, n = static_cast<double>(pt.points), t = static_cast<double>(trials);
    const double C = static_cast<double>(binomial(pt.s.m, pt.s.k));
    double held = 8.0 * 2.0 * m * d + packing_bytes(m, d, k, C), work = packing_work(m, d, k, C), run_bytes = 0.0;
    const auto student = [&](double ms, double P) {
      held += 8.0 * ms * d;
      const double cells = std::min(C * P, n);
      run_bytes = std::max(run_bytes, 8.0 * (1024.0 * (d + m + ms) + m * m + m) + 3.0 * 2.0 * 16.0 * cells + 32.0 * cells);
      work += t * n * (20.0 * d + 2.0 * d * (m + ms) + 4.0 * (m + ms));
    };
    for (double f : pt.fractions) {
      const double p = std::max(1.0, std::round(f * C));
      held += 8.0 * C;
      student(p, p);
    }
    for (const auto& [ms, ks] : pt.gaussian)
      student(ms, std::exp(log_binomial(ms, ks)));
    const double runs = t * static_cast<double>(pt.fractions.size() + pt.gaussian.size());
    return StudyCost{held + std::min(static_cast<double>(num_threads()), runs) * run_bytes, work};
  });
  return out;
}

// ---- routing.configurations ----

struct Reference {
  int m = 0, k = 0;
};

StudyDef configurations_study() {
  StudyDef def;
  def.name = "routing.configurations";
  def.summary =
      "Table 1 of the granularity paper: granularity, sparsity and C(m, k) of frontier MoEs, and the c each needs in Theorem 3.1 "
      "against a reference (m, k)";
  def.trial_unit = "";
  def.figure = "granularity paper, Table 1, and the counting condition of Theorem 3.1";
  def.params = {integer("params.reference_m", "experts of the reference model (Theorem 3.1's teacher)").at_least(2).or_default(256),
                integer("params.reference_k", "active experts of the reference model (below reference_m)").at_least(1).or_default(8)};
  def.columns = {{"model", "model name"},
                 {"experts", "m"},
                 {"active", "k (granularity)"},
                 {"sparsity_percent", "100 k / m"},
                 {"printed_sparsity_percent", "the sparsity as Table 1 prints it"},
                 {"configurations", "C(m, k)"},
                 {"log10_configurations", "log10 C(m, k)"},
                 {"required_c_vs_reference", "c with C(m, k) = c C(m_ref, k_ref)^0.99 (Theorem 3.1's condition)"}};
  StudyDef out = define_study<Reference>(
      std::move(def),
      [](const PointParams& p) {
        const Reference r{p.small("params.reference_m"), p.small("params.reference_k")};
        if (r.k >= r.m) p.fail("params.reference_k", fmt::format("must be below reference_m = {}", r.m));
        return r;
      },
      [](const Reference& ref, const RunContext& ctx, RowSink& rows) {
        for (const auto& r : table1_models())
          rows.row()
              .set("model", r.name)
              .set("experts", r.experts)
              .set("active", r.active)
              .set("sparsity_percent", 100.0 * r.active / r.experts)
              .set("printed_sparsity_percent", r.printed_sparsity)
              .set("configurations", static_cast<std::int64_t>(binomial(r.experts, r.active)))
              .set("log10_configurations", log10_configurations(r.experts, r.active))
              .set("required_c_vs_reference", theorem31_required_c(ref.m, ref.k, r.experts, r.active));
        ctx.advance();
      });
  // Closed forms over Table 1's fixed list of models (counting.cpp; log C(m, k) by core/log_binomial).
  set_cost<Reference>(out, [](const Reference&, std::int64_t) { return StudyCost{16384.0, 1e4}; });
  return out;
}


}  // namespace moelab::routing::detail
