// The linear and ReLU separations of the granularity paper (Theorems 3.4 and 3.6) through their
// constructions, at concrete sizes (linear_pieces.hpp):
//
// routing.lemmaB9.construction: Lemma B.9 states that matrices M_1..M_m of rank <= w exist with (B.2) E_x
//   sum_S 1(x in U_S)|sum_{i in S} M_i x|^2 <= E|x|^2 and (B.3) min_{rank U <= c' min(d, k w eps)} |sum_{i in S}
//   M_i - sum_{i in S'} M_i - U|_F^2 >= c d when |S cap S'| <= (1 - eps) k, for universal c, C > 0, any eps >
//   0, d > C k log m, w > (C/eps) log m. Checked as a witness: one draw of the proof's own construction (M_i =
//   A_i B_i' / sqrt(2kwd)) at d = 64 .. 512 satisfies (B.2) (Monte-Carlo over x ~ N(0, I/d), E|x|^2 = 1; the
//   mass form sum_S mu(U_S)|M_S|_F^2/d is not exact per draw, as x given the cone U_S is not isotropic) and
//   (B.3) (exact, Eckart-Young, the minimum over all pairs) with one d-independent c0. The d -> infinity value
//   of the worst pairs is c_inf = t/k - eps/2 (t = ceil(eps k) = |S \ S'| of the closest allowed pairs: the
//   2tw nonzero squared singular values of M_S - M_S' all tend to d/(2kw), and k w eps of them are removed);
//   c0 = c_inf / 4 (the finite-d spread of the product's singular values and the minimum over pairs take the
//   measured c(d) below c_inf; a quarter leaves room at d = 64 and does not move with d). The rank budget: the
//   proof's (B.5) is c' min(d, k w eps) with a small constant c'; the statement's line in our source text is
//   garbled exactly there, and read with c' = 1 it would be void at k w eps >= d (U = M_S - M_S' makes the
//   minimum 0 for ANY matrices; the hypotheses put no upper bound on w). So the statement is read with the
//   proof's c' and not reported as an erratum: the grid uses the budget min(d, k w eps) itself (c' = 1, the
//   strongest reading, fine while k w eps < d), the corner k w eps = d = 32 uses c' = 1/4; the c' = 1 value at
//   the corner is printed in the note. Controls (nearest wrong constructions/statements, exact): the rank budget k w
//   instead of k w eps (the closest pairs' differences have rank 2 t w <= k w: tail 0), and all M_i sharing
//   one row space (B_i = B_1: every difference has rank <= w <= k w eps: tail 0).
//
// routing.lemmaB13.linear_separation: Lemma B.13 / Theorem 3.4 in miniature, like thm31: teacher (B.7) (m, k)
//   = (10, 3), d = 16, w = 2, Gaussian routing (Lemma A.7's construction), experts of Lemma B.9. Students:
//   general-routing linear MoEs (Definition B.12) on given regions with their best linear maps (per-region
//   least squares; no rank restriction, Definition B.12 has none), regions from optimised top-k routers (hill
//   climbing on a dof-corrected in-sample error, linear_pieces.hpp) and from merging the teacher's regions
//   (its router with top-1 and top-2, whose regions are unions of the U_S, and the p - 1 largest U_S kept with
//   the rest in one cell). With eps < 1/k, floor(eps k) = 0 and the lemma's region bound is c' C(m, k) (the
//   proof's c' = 1/1000 admits no student at this size); in miniature c' = 1/2: p <= 60. Printed: every in-
//   hypothesis student keeps relative error >= tau = 0.05 (an approximation within 5% of E|f|^2 would count as
//   approximating; the mass merge with p = 114 of 120 regions reaches 0.001). Measured on fresh batches with
//   the in-sample least- squares error per batch, whose expectation is <= the best student's population error
//   on those regions (conservative for a lower bound). Control: the teacher's own partition (p = C(m, k) =
//   120), the nearest student outside the hypothesis, also keeps error >= tau: must be rejected (its error is
//   0).
//
// routing.lemmaC6.construction: Lemma C.6 (the ReLU paper's analogue): M_i of rank <= w/2 with (C.4) (as B.2)
//   and (C.5) sum_{j <= R} sum_{i > kw/10000} sigma_i^2((sum_{l in S_j} M_l) Pi_perp) >= c d for R = 10^5,
//   |S_1 u .. u S_R| >= 750 k and any projection Pi of rank <= k w. 750 k experts are out of reach (m >= 750
//   k), so in miniature: (m, k, w) = (12, 2, 8), the union threshold T = 4 k, and the index cut kw/10000 < 1,
//   i.e. i > 0 (the full Frobenius norm). Checked on one draw of the proof's construction at d = 128 .. 1024
//   (k w / d <= 1/8; at d = 64 the T w' = 32 coordinates drawn from 64 collide so much that the minimum over
//   the 495 unions reached 0.125 d at one seed of 20): (C.4) by Monte-Carlo, (C.5) through an exact
//   certificate that holds for every R (min over |U| = T of the tail beyond the top k w of sum_{l in U} M_l^2,
//   linear_pieces.hpp: min_union_tail_diagonal) >= c0 d, c0 = 1/4 (a quarter of the d -> infinity value (T w'
//   - k w)/(k w) = 1 when the T w' coordinates are distinct). Control: the union threshold 2 k (T w' = k w
//   coordinates fit into one rank-kw projection: tail 0 for every tuple).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "moelab/routing/detail/claim_support.hpp"
#include "moelab/routing/linear_pieces.hpp"
#include "moelab/routing/student_search.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing::detail {

using claims::Evidence;
using claims::TestResult;

namespace {

LinearTeacher make_teacher(int m, int k, int d, FactoredExperts M, const RngKey& key) {
  LinearTeacher t;
  t.k = k;
  t.R = gaussian_routing_vectors(m, d, key.with("routing").seed(), 0);  // Lemma A.7: r_j ~ N(0, I_d)
  t.M = std::move(M);
  return t;
}

// ---- Lemma B.9 ----
Evidence check_lemma_b9(const claims::CheckBudget& b, const RngKey& key) {
  constexpr int m = 8, k = 2, w = 8;
  constexpr double eps = 0.5;
  const int max_common = static_cast<int>(std::floor((1.0 - eps) * k + 1e-12));  // |S cap S'| <= (1 - eps) k
  const int t_min = k - max_common;
  const int budget = static_cast<int>(std::floor(k * w * eps));  // min(d, k w eps) for d > k w eps
  const double c_inf = static_cast<double>(t_min) / k - eps / 2.0, c0 = c_inf / 4.0;
  const std::uint64_t n_points = b.pick<std::uint64_t>(1000, 8000);
  std::vector<TestResult> printed;
  std::vector<double> rel_exact;  // per part: 0.05 for (B.2), the exact parts need none
  std::string sizes;
  double ctl_budget = 0.0, ctl_shared = 0.0;
  for (int d : {64, 128, 256, 512}) {
    const RngKey kd = key.with("d", d);
    const LinearTeacher t = make_teacher(m, k, d, lemma_b9_experts(m, k, w, d, kd.with("experts").seed(), 0), kd);
    const Welford energy = teacher_energy(t, InputLaw::gaussian, n_points, kd.with("points").seed(), 0);
    const PairTail pt = min_pair_tail(t.M, k, max_common, budget);
    const double c = pt.min_tail / d;
    // (B.2): E|x|^2 = 1 for x ~ N(0, I/d). Power: an excess of 0.05 over the bound must show.
    const TestResult b2 = claims::upper_bound_test("", energy, 1.0);
    const TestResult b3 = claims::deterministic_test("", c, c0, c >= c0);
    printed.push_back(b2), printed.push_back(b3);
    rel_exact.push_back(0.05), rel_exact.push_back(0.0);
    // Controls at this d (the closest pairs only: their minimum bounds the full one from above).
    ctl_budget = std::max(ctl_budget, min_pair_tail(t.M, k, max_common, k * w, t_min).min_tail / d);
    const FactoredExperts shared = lemma_b9_experts(m, k, w, d, kd.with("experts").seed(), 0, true);
    ctl_shared = std::max(ctl_shared, min_pair_tail(shared, k, max_common, budget, t_min).min_tail / d);
    sizes += fmt::format("{}d = {}: E_x|f|^2 = {:.4f} +- {:.2g}, c(d) = {:.4f} = {:.3f} c_inf ({} pairs)", sizes.empty() ? "" : "; ", d,
                         energy.mean(), energy.standard_error(), c, c / c_inf, pt.pairs);
  }
  // The corner k w eps = d (w = 32, d = 32), inside the hypotheses (no upper bound on w), with the proof's c' = 1/4.
  constexpr int dc = 32, wc = 32;
  const RngKey kc = key.with("corner");
  const FactoredExperts Mc = lemma_b9_experts(m, k, wc, dc, kc.with("experts").seed(), 0);
  const int budget_full = std::min(dc, static_cast<int>(std::floor(k * wc * eps)));
  const double c_corner_full = min_pair_tail(Mc, k, max_common, budget_full).min_tail / dc;  // c' = 1: 0 by construction
  const int budget_corner = budget_full / 4;  // the proof's (B.5): c' min(d, k w eps), c' small and unspecified; c' = 1/4
  const double c_corner = min_pair_tail(Mc, k, max_common, budget_corner).min_tail / dc;
  printed.push_back(claims::deterministic_test("", c_corner, c0, c_corner >= c0));
  rel_exact.push_back(0.0);
  Evidence e;
  e.printed = claims::combine_bonferroni(fmt::format("one draw of M_i = A_i B_i' / sqrt(2kwd): (B.2) E_x|f|^2 <= E|x|^2 = 1 and (B.3) "
                                                     "min over pairs / d >= c0 = {:.4f} with rank budget c' min(d, k w eps): c' = 1 at "
                                                     "d = 64..512, c' = 1/4 at the corner k w eps = d = 32",
                                                     c0),
                                         printed);
  e.control(claims::deterministic_test("(B.3) with rank budget k w instead of k w eps: min over pairs / d >= c0 at every d", ctl_budget, c0,
                                       ctl_budget >= c0));
  e.control(claims::deterministic_test("(B.3) for the shared-row-space construction (B_i = B_1): min over pairs / d >= c0 at every d",
                                       ctl_shared, c0, ctl_shared >= c0));
  e.relevance = claims::combined_relevance(e.printed, printed, rel_exact);
  e.note = fmt::format("(m, k, w) = ({}, {}, {}), eps = {}, pairs with |S cap S'| <= {}, budget k w eps = {}; c_inf = {:.4f}, c0 = c_inf/4; "
                       "{}. Corner d = w = 32 (k w eps = 32 = d): budget c' min = {} (c' = 1) gives min/d = {:.3g} (U = M_S - M_S'), "
                       "the proof's c' = 1/4 ({}) gives {:.4f}. Controls: budget k w = {}: max over d of min/d = {:.3g}; shared row space: {:.3g}",
                       m, k, w, eps, max_common, budget, c_inf, sizes, budget_full, c_corner_full, budget_corner, c_corner,
                       k * w, ctl_budget, ctl_shared);
  return e;
}

// ---- Lemma B.13 in miniature ----
struct LinearStudent {
  std::string name;
  std::uint64_t regions = 0;
  bool in_hypothesis = false;
  // region labels of the points X given the teacher's region ranks
  std::function<std::vector<std::uint64_t>(const Eigen::MatrixXd&, const std::vector<std::uint64_t>&)> labels;
  std::string search;  // how it was found
};

Evidence check_lemma_b13(const claims::CheckBudget& b, const RngKey& key) {
  constexpr int m = 10, k = 3, d = 16, w = 2;
  const LinearTeacher t = make_teacher(m, k, d, lemma_b9_experts(m, k, w, d, key.with("experts").seed(), 0), key);
  const std::uint64_t C = binomial(m, k), p_max = C / 2;  // c' = 1/2 in miniature
  const double tau = 0.05;
  const auto n_fit = static_cast<Eigen::Index>(b.pick(4000, 16000));
  Eigen::MatrixXd Xtrain(d, n_fit);
  draw_points(InputLaw::gaussian, key.with("train").seed(), 0, 0, Xtrain);
  const int climb = b.pick(30, 300);
  // Teacher masses (for the merge students) from the training points.
  const std::vector<std::uint64_t> train_labels = router_labels(t.R, k, Xtrain);
  std::vector<double> mass(C, 0.0);
  for (auto l : train_labels) mass[l] += 1.0;
  std::vector<std::uint64_t> by_mass(C);
  for (std::uint64_t i = 0; i < C; ++i) by_mass[i] = i;
  std::stable_sort(by_mass.begin(), by_mass.end(), [&](auto a, auto c) { return mass[a] > mass[c]; });
  std::vector<LinearStudent> students;
  const auto router_student = [&](int ms, int ks) {
    const LinearStudentSearch s = optimise_linear_router(t, Xtrain, ms, ks, climb, key);
    const Eigen::MatrixXd R = s.routing;
    students.push_back({fmt::format("router ({}, {})", ms, ks), s.regions, s.regions <= p_max,
                        [R, ks](const Eigen::MatrixXd& X, const std::vector<std::uint64_t>&) { return router_labels(R, ks, X); },
                        fmt::format("search objective {:.3f} -> {:.3f}, {}/{} steps kept", s.initial_error, s.final_error, s.accepted, s.tried)});
  };
  const auto prefix_merge = [&](int ks) {  // the teacher's router with top-k' < k: a merge of its regions
    const Eigen::MatrixXd R = t.R;
    students.push_back({fmt::format("teacher top-{} merge", ks), binomial(m, ks), binomial(m, ks) <= p_max,
                        [R, ks](const Eigen::MatrixXd& X, const std::vector<std::uint64_t>&) { return router_labels(R, ks, X); }, "merge"});
  };
  const auto mass_merge = [&](std::uint64_t p) {  // the p - 1 largest teacher regions kept, the rest one cell
    std::vector<std::uint64_t> cell(C, p - 1);
    for (std::uint64_t i = 0; i + 1 < p; ++i) cell[by_mass[i]] = i;
    students.push_back({fmt::format("mass merge p = {}", p), p, p <= p_max,
                        [cell](const Eigen::MatrixXd&, const std::vector<std::uint64_t>& tl) {
                          std::vector<std::uint64_t> out(tl.size());
                          for (std::size_t i = 0; i < tl.size(); ++i) out[i] = cell[tl[i]];
                          return out;
                        },
                        "merge"});
  };
  router_student(8, 1), router_student(8, 2), router_student(10, 2);
  prefix_merge(1), prefix_merge(2);
  mass_merge(30), mass_merge(p_max);
  router_student(9, 3);  // 84 regions: outside the miniature hypothesis, reported
  mass_merge(C - 6);
  students.push_back({"teacher partition", C, false, [](const Eigen::MatrixXd&, const std::vector<std::uint64_t>& tl) { return tl; },
                      "exact"});
  const std::size_t control_index = students.size() - 1;
  // Fresh batches: the in-sample least-squares error per batch (conservative, see above); one holdout
  // number per student (fitted on batch 0, evaluated on batch 1; biased up) for the bracket.
  // 12 batches of 5000 points at --quick: the lower-bound tests are Student t with batches - 1 dof,
  // judged at the whole suite's level / 7 (~1e-5): 8 batches (7 dof) left the detectable deviation
  // above the relevance at seed 12; smaller batches bias the in-sample error further down (d/n_j per
  // region: 24 x 3000 took the (10, 2) router from 0.24 to 0.20).
  const int batches = b.pick(12, 32);
  const auto n = static_cast<Eigen::Index>(b.pick(5000, 20000));
  std::vector<Welford> err(students.size());
  std::vector<RegionStats> first(students.size());
  std::vector<double> holdout(students.size(), 0.0);
  for (int bt = 0; bt < batches; ++bt) {
    Eigen::MatrixXd X(d, n);
    draw_points(InputLaw::gaussian, key.with("eval").seed(), static_cast<std::uint64_t>(bt), 0, X);
    const Eigen::MatrixXd F = teacher_outputs(t, X);
    const std::vector<std::uint64_t> tl = router_labels(t.R, k, X);
    for (std::size_t s = 0; s < students.size(); ++s) {
      RegionStats st = region_stats(X, F, students[s].labels(X, tl), students[s].regions);
      err[s].add(piecewise_linear_error(st));
      if (bt == 0) first[s] = std::move(st);
      else if (bt == 1) holdout[s] = piecewise_linear_holdout_error(first[s], st);
    }
  }
  std::vector<TestResult> printed;
  std::string inside, outside;
  for (std::size_t s = 0; s < students.size(); ++s) {
    const auto& st = students[s];
    const std::string line = fmt::format("{} (p = {}): {:.4f} +- {:.2g} (holdout {:.4f}; {})", st.name, st.regions, err[s].mean(),
                                         err[s].standard_error(), holdout[s], st.search);
    if (st.in_hypothesis) {
      printed.push_back(lower_bound_test("", err[s], tau));
      inside += (inside.empty() ? "" : "; ") + line;
    } else {
      outside += (outside.empty() ? "" : "; ") + line;
    }
  }
  Evidence e;
  e.printed = claims::combine_bonferroni(fmt::format("general-routing linear students with p <= C(m,k)/2 = {} regions: relative error "
                                                     ">= tau = {}",
                                                     p_max, tau),
                                         printed);
  e.control(lower_bound_test(fmt::format("the teacher's own partition (p = C(m, k) = {}) also has relative error >= tau", C),
                             err[control_index], tau));
  // Power: an error below tau by tau/2 (2.5% of E|f|^2) must show.
  e.relevance = tau / 2;
  e.note = fmt::format("teacher (B.7) (m, k) = (10, 3), d = {}, w = {}, C = {}; students fitted per region by least squares, "
                       "routers optimised on {} points ({} steps, dof-corrected in-sample objective); {} batches x {} fresh points, "
                       "in-sample error (expectation <= the best student's). In the hypothesis: {}. Outside (not counted): {}",
                       d, w, C, n_fit, climb, batches, n, inside, outside);
  return e;
}

// ---- Lemma C.6 ----
Evidence check_lemma_c6(const claims::CheckBudget& b, const RngKey& key) {
  constexpr int m = 12, k = 2, w = 8, T = 4 * k, T_control = 2 * k;
  const int r = k * w;           // rank(Pi) <= k w
  const double c_inf = static_cast<double>(T * (w / 2) - k * w) / (k * w), c0 = c_inf / 4.0;
  // 2000 points: the (C.4) tests' standard error ~0.006, so an excess of 0.05 over the bound shows at
  // the whole suite's level (1000 points left it at 0.05-0.06 at 4 of 20 seeds alone).
  const std::uint64_t n_points = b.pick<std::uint64_t>(2000, 16000);
  std::vector<TestResult> printed;
  std::vector<double> rel;
  std::string sizes;
  double ctl = 0.0;
  for (int d : {128, 256, 512, 1024}) {
    const RngKey kd = key.with("d", d);
    const LinearTeacher t = make_teacher(m, k, d, lemma_c6_experts(m, k, w, d, kd.with("experts").seed(), 0), kd);
    const Welford energy = teacher_energy(t, InputLaw::gaussian, n_points, kd.with("points").seed(), 0);
    const UnionTail u = min_union_tail_diagonal(t.M, T, r);
    const double c = u.min_tail / d;
    printed.push_back(claims::upper_bound_test("", energy, 1.0)), rel.push_back(0.05);
    printed.push_back(claims::deterministic_test("", c, c0, c >= c0)), rel.push_back(0.0);
    ctl = std::max(ctl, min_union_tail_diagonal(t.M, T_control, r).min_tail / d);
    sizes += fmt::format("{}d = {}: E_x|f|^2 = {:.4f} +- {:.2g}, c(d) = {:.4f} ({} unions)", sizes.empty() ? "" : "; ", d, energy.mean(),
                         energy.standard_error(), c, u.subsets);
  }
  Evidence e;
  e.printed = claims::combine_bonferroni(fmt::format("one draw of M_i = sqrt(d/kw) sum_j e_pij e_pij': (C.4) E_x|f|^2 <= 1 and (C.5) in "
                                                     "miniature (unions >= {} k, index cut kw/10000 -> 0, any R) >= c0 d, c0 = {:.3f}, "
                                                     "at d = 128..1024",
                                                     T / k, c0),
                                         printed);
  e.control(claims::deterministic_test(fmt::format("(C.5) with unions >= {} k (T w' = k w): >= c0 d at every d", T_control / k), ctl, c0,
                                       ctl >= c0));
  e.relevance = claims::combined_relevance(e.printed, printed, rel);
  e.note = fmt::format("(m, k, w) = ({}, {}, {}), w' = {}, rank(Pi) <= k w = {}, unions of T = {} experts (the paper: R = 10^5 sets with "
                       "union >= 750 k, out of reach); c_inf = {:.3f}; {}. Control (T = {}): max over d of the certified minimum / d = {:.3g}",
                       m, k, w, w / 2, r, T, c_inf, sizes, T_control, ctl);
  return e;
}

}  // namespace

void register_linear_separation_claims(claims::Registry& r) {
  r.add({"routing.lemmaB9.construction", "granularity, Lemma B.9 (Eqs. B.2, B.3; proof Eqs. B.4, B.5)",
         "M_i = A_i B_i' / sqrt(2kwd) (A_i, B_i ~ N(0,1)^(d x w)) satisfy E_x sum_S 1(x in U_S)|M_S x|^2 <= E|x|^2 (B.2) and "
         "min_{rank U <= min(d, k w eps)} |M_S - M_S' - U|_F^2 >= c d whenever |S cap S'| <= (1 - eps) k (B.3).",
         ClaimKind::bound, check_lemma_b9});
  r.add({"routing.lemmaB13.linear_separation", "granularity, Lemma B.13 and Theorem 3.4, in miniature",
         "The linear teacher (B.7) cannot be approximated by any general-routing linear MoE with few regions: E|f - g|^2 >= c' for "
         "p below the lemma's region bound (miniature: optimised and merged students with p <= C(m,k)/2 keep relative error >= 0.05).",
         ClaimKind::bound, check_lemma_b13});
  r.add({"routing.lemmaC6.construction", "granularity, Lemma C.6 (Eqs. C.4, C.5)",
         "M_i = sqrt(d/kw) sum_{j <= w/2} e_{p_ij} e_{p_ij}' (p_ij ~ Unif[d]) satisfy (C.4) E_x|f|^2 <= E|x|^2 and (C.5): for S_1..S_R "
         "with |S_1 u .. u S_R| >= 750 k and rank(Pi) <= kw, sum_j sum_{i > kw/10000} sigma_i^2(M_{S_j} Pi_perp) >= c d.",
         ClaimKind::bound, check_lemma_c6});
}

}  // namespace moelab::routing::detail
