// Claims on the noisy paper's trained-model experiments (App. B.3 Tables 2-3),
// run by the studies' own code (run_robustness_trial) at the sizes of the shipped scenarios
// (scenarios/moe_noisy_b3_table2.toml, moe_noisy_b3_table3.toml).
//
// moe.noisy.trained_linear_thm3 (Table 2 against Theorem 3): the correctly routed linear MoE and the
//   dense linear model, trained online on noisy modular data, reach Theorem 3's Bayes risks with
//   test noise; printed: the MoE's risk with noise over Theorem 3's sparse risk = 1; control: the
//   same ratio against the dense closed form (the nearest wrong formula) must be rejected.
// moe.noisy.trained_relu_robustness (Table 3): at sigma = 0.1, a correctly routed MoE of ReLU experts
//   loses less accuracy to feature noise than the iso-parameter dense MLP; printed: the paired gap
//   (dense drop - MoE drop) >= 0; control: "gap <= 0" (the MoE no more robust) must be rejected.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/detail/claim_support.hpp"
#include "moelab/moe/noisy_robustness.hpp"

namespace moelab::moe::detail {

namespace {

using claims::TestResult;

claims::Evidence check_trained_linear_thm3(const claims::CheckBudget& b, const RngKey& key) {
  // Table 2's quick scenario at k = 4 blocks of 8, sigma = 0.3 (the middle of the paper's range).
  RobustnessSpec s;
  s.task.blocks = 4, s.task.block_dim = 8;
  // 1000 steps (the ratio is 1.002 +- 0.003 at 1500 and within 1% at 1000) and 65536 test inputs: the
  // seed-to-seed spread of the ratio is mostly the test set's sampling error (~1.1% at 16384 inputs),
  // and the t test over seeds needs a small spread to detect 5% at the suite's level with 7 dof.
  s.sigma = 0.3, s.steps = 1000, s.batch = 256, s.lr = 1e-2, s.test_size = 65536;
  const std::int64_t seeds = b.pick<std::int64_t>(8, 24);
  const auto runs = parallel_map<RobustnessRun>(static_cast<std::size_t>(seeds),
                                                [&](std::size_t t) { return run_robustness_trial(s, key, static_cast<std::int64_t>(t)); });
  Welford moe_ratio, moe_vs_dense, dense_ratio;
  for (const auto& r : runs) {
    moe_ratio.add(r.moe_noisy / r.moe_bayes_noisy);
    moe_vs_dense.add(r.moe_noisy / r.dense_bayes_noisy);
    dense_ratio.add(r.dense_noisy / r.dense_bayes_noisy);
  }
  claims::Evidence e;
  e.printed = claims::equality_test(
      "trained correctly routed linear MoE: test MSE with noise / Thm 3 sparse risk (sigma_o = sigma) = 1", moe_ratio, 1.0);
  e.control(claims::equality_test("the same MoE against Thm 3's DENSE risk: ratio = 1", moe_vs_dense, 1.0));
  // Relevance: 5% of the risk. The dense and sparse closed forms differ by ~2x here, and a trained
  // model 5% above its Bayes risk would be visibly unconverged (online AdamW's excess is ~1%).
  e.relevance = 0.05;
  e.note = fmt::format(
      "k = 4 blocks of 8 (d = 32), Sigma_i = I, p_i = 1/4, beta* ~ N(0, I/8) per seed, sigma = 0.3 in training and test, "
      "{} online AdamW steps of 256 (lr 1e-2, cosine), 65536 test inputs, {} seeds. MoE/Thm3-sparse {:.4f} +- {:.2g}; "
      "MoE/Thm3-dense {:.3f}; dense/Thm3-dense {:.4f} +- {:.2g} (the dense model's own agreement, not tested).",
      s.steps, seeds, moe_ratio.mean(), moe_ratio.standard_error(), moe_vs_dense.mean(), dense_ratio.mean(),
      dense_ratio.standard_error());
  return e;
}

claims::Evidence check_trained_relu_robustness(const claims::CheckBudget& b, const RngKey& key) {
  // Table 3's scenario at k = 4 blocks (d = 32), C = 4, experts of width 16 (dense width 22), sigma = 0.1.
  RobustnessSpec s;
  s.task.blocks = 4, s.task.block_dim = 8, s.task.classes = 4, s.task.teacher_width = 16;
  s.expert_width = 16, s.sigma = 0.1, s.steps = b.pick<std::int64_t>(600, 1500), s.batch = 256, s.lr = 1e-2, s.test_size = 32768;
  // Quick: 4 seeds (~1.5 s of CPU), inconclusive by design: the t test over 3 dof detects at best a gap
  // deviation of ~0.02 > relevance 0.005. With 8 seeds (7 dof) the detectable deviation straddled the
  // relevance (0.006-0.014) and the verdict flipped with the suite seed (seed 8 of 6..10 held), so quick
  // stays below it. Full: 32 seeds of the scenario's 1500 steps (holds at seed 1).
  const std::int64_t seeds = b.pick<std::int64_t>(4, 32);
  const auto runs = parallel_map<RobustnessRun>(static_cast<std::size_t>(seeds),
                                                [&](std::size_t t) { return run_robustness_trial(s, key, static_cast<std::int64_t>(t)); });
  Welford gap, dd, md;
  for (const auto& r : runs) {
    const double a = r.dense_clean - r.dense_noisy, m = r.moe_clean - r.moe_noisy;
    gap.add(a - m), dd.add(a), md.add(m);
  }
  claims::Evidence e;
  e.printed = claims::lower_bound_test("accuracy drop at sigma = 0.1: dense drop - MoE drop >= 0 (paired over seeds)", gap, 0.0);
  e.control(claims::upper_bound_test("the MoE is no more robust: dense drop - MoE drop <= 0", gap, 0.0));
  // Relevance: half a percentage point of accuracy. The paper's dense-minus-MoE drop gaps are 0.87, 0.53,
  // 0.01 and 0.27 points; a MoE losing half a point MORE than the dense model would contradict the table's
  // ordering at about the size of its typical gap.
  e.relevance = 0.005;
  e.note = fmt::format(
      "k = 4 blocks of 8, C = 4 classes, MoE of 4 ReLU experts of width 16 reading their block, dense MLP of width 22 (iso-parameter), "
      "sigma = 0.1, {} online AdamW steps of 256, 32768 test inputs, {} seeds. Drop (clean - noisy accuracy): dense {:.4f} +- {:.2g}, MoE {:.4f} +- {:.2g}; "
      "gap {:.4f} +- {:.2g}.",
      s.steps, seeds, dd.mean(), dd.standard_error(), md.mean(), md.standard_error(), gap.mean(), gap.standard_error());
  return e;
}

}  // namespace

void register_noisy_b3_claims(claims::Registry& r) {
  r.add({"moe.noisy.trained_linear_thm3", "noisy, App. B.3 Table 2 and Thm 3 (trained linear models)",
         "A correctly routed MoE of linear experts trained on noisy modular data reaches Theorem 3's risk of the sparse "
         "Bayes estimators under test noise (and not the dense one's, which is about twice as large).",
         claims::ClaimKind::equality, check_trained_linear_thm3});
  r.add({"moe.noisy.trained_relu_robustness", "noisy, App. B.3 Table 3 (trained two-layer ReLU models)",
         "At feature noise sigma = 0.1, a correctly routed MoE of two-layer ReLU experts loses less accuracy to the noise "
         "than the dense two-layer ReLU network of equal parameter count trained on the same data.",
         claims::ClaimKind::inequality, check_trained_relu_robustness});
}

}  // namespace moelab::moe::detail
